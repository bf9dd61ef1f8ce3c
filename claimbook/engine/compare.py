"""Comparing two results: how many times better one is, and a result per watt of board power."""

from __future__ import annotations

import pandas as pd


def speedup(new: float, baseline: float, higher_is_better: bool) -> float:
    """How many times better ``new`` is than ``baseline``: above 1 means better."""
    if new <= 0 or baseline <= 0:
        raise ValueError(f"results must be positive to compare, got {new} and {baseline}")
    return new / baseline if higher_is_better else baseline / new


def per_gpu(result: float, gpus: int, higher_is_better: bool) -> float | None:
    """A throughput per GPU; None for a system without GPUs, and for a lower-is-better figure
    (a latency): a time is not shared out among GPUs, and dividing it by their number would make
    the larger system look faster per GPU, the opposite of what it costs (the ingest's own
    ``per_accelerator`` column is for throughputs alone, as MLCommons' summary gives it)."""
    gpus = int(gpus)
    return float(result) / gpus if gpus > 0 and higher_is_better else None


def per_watt(result: float, gpus: int, gpu_watts: float) -> float | None:
    """Throughput per watt of GPU board power, or None where the power is not stated."""
    if gpus <= 0 or pd.isna(gpu_watts) or gpu_watts <= 0:
        return None
    return result / (gpus * gpu_watts)


def metric_change(new: float, old: float) -> float:
    """The signed change of the metric itself, in percent: a latency that fell from 27.38 s to
    16.12 s is -41.1%, however large the speedup."""
    return 100.0 * (float(new) / float(old) - 1.0)
