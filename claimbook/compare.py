"""Comparing two systems result by result: speedup per scenario, per GPU and per watt."""

from __future__ import annotations

import pandas as pd

RATIO_COLUMNS = (
    "scenario",
    "units",
    "new_result",
    "baseline_result",
    "ratio",
    "new_gpus",
    "baseline_gpus",
    "per_gpu_ratio",
    "new_gpu_watts",
    "baseline_gpu_watts",
    "per_watt_ratio",
    "new_availability",
    "baseline_organization",
    "new_location",
    "baseline_location",
)


def speedup(new: float, baseline: float, higher_is_better: bool) -> float:
    """How many times better ``new`` is than ``baseline``: above 1 means better."""
    if new <= 0 or baseline <= 0:
        raise ValueError(f"results must be positive to compare, got {new} and {baseline}")
    return new / baseline if higher_is_better else baseline / new


def per_watt(result: float, gpus: int, gpu_watts: float) -> float | None:
    """Throughput per watt of GPU board power, or None where the power is not stated."""
    if gpus <= 0 or pd.isna(gpu_watts) or gpu_watts <= 0:
        return None
    return result / (gpus * gpu_watts)


def scenario_ratios(new: pd.DataFrame, baseline: pd.DataFrame) -> pd.DataFrame:
    """Ratio of ``new`` over ``baseline`` in every scenario both have.

    Both frames hold at most one tidy row per scenario. The plain ratio compares whole
    systems; ``per_gpu_ratio`` divides out the GPU counts and ``per_watt_ratio`` the stated
    GPU power (empty where either side states none). Different units in one scenario are an
    error: such results do not measure the same thing.
    """
    rows = []
    baseline_by_scenario = {row["scenario"]: row for _, row in baseline.iterrows()}
    for _, item in new.iterrows():
        base = baseline_by_scenario.get(item["scenario"])
        if base is None:
            continue
        if item["units"] != base["units"]:
            raise ValueError(
                f"{item['scenario']}: cannot compare {item['units']} ({item['location']}) "
                f"with {base['units']} ({base['location']})"
            )
        higher = bool(item["higher_is_better"])
        ratio = speedup(item["result"], base["result"], higher)
        per_gpu = None
        if item["total_accelerators"] > 0 and base["total_accelerators"] > 0 and higher:
            per_gpu = ratio * base["total_accelerators"] / item["total_accelerators"]
        new_per_watt = per_watt(item["result"], item["total_accelerators"], item["gpu_watts"])
        base_per_watt = per_watt(base["result"], base["total_accelerators"], base["gpu_watts"])
        per_watt_ratio = new_per_watt / base_per_watt if higher and new_per_watt and base_per_watt else None
        rows.append(
            {
                "scenario": item["scenario"],
                "units": item["units"],
                "new_result": item["result"],
                "baseline_result": base["result"],
                "ratio": ratio,
                "new_gpus": int(item["total_accelerators"]),
                "baseline_gpus": int(base["total_accelerators"]),
                "per_gpu_ratio": per_gpu,
                "new_gpu_watts": item["gpu_watts"],
                "baseline_gpu_watts": base["gpu_watts"],
                "per_watt_ratio": per_watt_ratio,
                "new_availability": item["availability"],
                "baseline_organization": base["organization"],
                "new_location": item["location"],
                "baseline_location": base["location"],
            }
        )
    frame = pd.DataFrame(rows, columns=list(RATIO_COLUMNS))
    for column in ("per_gpu_ratio", "per_watt_ratio", "new_gpu_watts", "baseline_gpu_watts"):
        frame[column] = frame[column].astype("float64")
    return frame
