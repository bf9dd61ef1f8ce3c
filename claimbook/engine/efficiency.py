"""Scaling efficiency: how much of the added hardware shows up as added throughput, and every
scaling pair of a round (the same submitter, benchmark, scenario, accelerator, division and suite
at two GPU counts)."""

from __future__ import annotations

import pandas as pd

# A scaling pair: the same submitter running the same benchmark and scenario on the same
# accelerator, in the same division, at two different GPU counts.
PAIR_KEY = ("organization", "division", "family", "benchmark", "scenario")
# ... and in the same suite: MLPerf's datacenter and edge suites are separate benchmarks with
# their own rules, so a datacenter result set against an edge one is no scaling of either (v5.1
# has one submitter's pairs of that sort at 1,151%).
SAME_SUITE = "system_type"
PAIR_COLUMNS = (
    *PAIR_KEY,
    "model",
    "units",
    "small_system",
    "small_gpus",
    "small_nodes",
    "small_result",
    "large_system",
    "large_gpus",
    "large_nodes",
    "large_result",
    "gpu_ratio",
    "throughput_ratio",
    "efficiency",
    "small_per_gpu",
    "large_per_gpu",
    "small_location",
    "large_location",
    "small_inferred",
    "large_inferred",
    "small_availability",
    "large_availability",
)


def scaling_efficiency(large_result: float, large_gpus: int, small_result: float, small_gpus: int) -> float:
    """(throughput at N GPUs / throughput at N0 GPUs) / (N / N0); 1.0 is perfectly linear."""
    if min(large_result, small_result) <= 0 or min(large_gpus, small_gpus) <= 0:
        raise ValueError("scaling efficiency needs positive results and GPU counts")
    return (large_result / small_result) / (large_gpus / small_gpus)


def scaling_pairs(results: pd.DataFrame) -> pd.DataFrame:
    """Every scaling pair in an annotated results table (with ``family`` and ``benchmark``),
    smaller configuration first.

    Only throughput results on at least one accelerator count, of one suite, the two in one unit;
    an empty frame (with the columns) when the table has no pair.
    """
    eligible = results[(results["metric"] == "throughput") & (results["total_accelerators"] > 0)]
    pairs = []
    for key, group in eligible.groupby([*PAIR_KEY, SAME_SUITE], sort=True):
        key = key[: len(PAIR_KEY)]
        if group["total_accelerators"].nunique() < 2:
            continue
        ordered = group.sort_values(["total_accelerators", "location"])
        for _, small in ordered.iterrows():
            for _, large in ordered.iterrows():
                if large["total_accelerators"] <= small["total_accelerators"]:
                    continue
                if large["units"] != small["units"]:  # an efficiency is of one unit's figures
                    continue
                pairs.append(pair_row(small, large, key))
    return pd.DataFrame(pairs, columns=list(PAIR_COLUMNS))


def pair_row(small, large, key: tuple | None = None) -> dict:
    """One scaling pair from its two results (a combined, summed result too), in ``PAIR_COLUMNS``;
    ``key``: the pair's ``PAIR_KEY`` values where the caller has them."""
    return {
        **dict(zip(PAIR_KEY, key if key is not None else [small[name] for name in PAIR_KEY])),
        "model": large["model"],
        "units": large["units"],
        "small_system": small["system"],
        "small_gpus": int(small["total_accelerators"]),
        "small_nodes": int(small["nodes"]),
        "small_result": small["result"],
        "large_system": large["system"],
        "large_gpus": int(large["total_accelerators"]),
        "large_nodes": int(large["nodes"]),
        "large_result": large["result"],
        "gpu_ratio": large["total_accelerators"] / small["total_accelerators"],
        "throughput_ratio": large["result"] / small["result"],
        "efficiency": scaling_efficiency(
            large["result"], large["total_accelerators"], small["result"], small["total_accelerators"]
        ),
        "small_per_gpu": small["per_accelerator"],
        "large_per_gpu": large["per_accelerator"],
        "small_location": small["location"],
        "large_location": large["location"],
        "small_inferred": bool(small["inferred"]),
        "large_inferred": bool(large["inferred"]),
        "small_availability": small["availability"],
        "large_availability": large["availability"],
    }


def pair_label(pair) -> str:
    """ "Azure deepseek-r1, 72->288 NVIDIA GB200" """
    return f"{pair['organization']} {pair['benchmark']}, {pair['small_gpus']}->{pair['large_gpus']} {pair['family']}"
