import math

import pandas as pd
import pytest

from claimbook.compare import per_watt, scenario_ratios, speedup


def rows(*items):
    base = {"units": "Tokens/s", "higher_is_better": True, "availability": "available", "organization": "Acme", "gpu_watts": 1000.0}
    return pd.DataFrame([{**base, **item} for item in items])


def test_speedup_direction():
    assert speedup(300.0, 100.0, True) == 3.0
    assert speedup(2.0, 6.0, False) == 3.0  # latency: lower is better
    with pytest.raises(ValueError):
        speedup(0.0, 1.0, True)


def test_per_watt_needs_stated_power():
    assert per_watt(1000.0, 10, 100.0) == 1.0
    assert per_watt(1000.0, 10, float("nan")) is None
    assert per_watt(1000.0, 0, 100.0) is None


def test_ratios_per_scenario_per_gpu_and_per_watt():
    new = rows(
        {"scenario": "Offline", "result": 400.0, "total_accelerators": 36, "gpu_watts": 2000.0, "location": "n/o"},
        {"scenario": "Server", "result": 300.0, "total_accelerators": 36, "gpu_watts": 2000.0, "location": "n/s"},
        {"scenario": "Interactive", "result": 50.0, "total_accelerators": 36, "gpu_watts": 2000.0, "location": "n/i"},
    )
    baseline = rows(
        {"scenario": "Offline", "result": 200.0, "total_accelerators": 72, "location": "b/o"},
        {"scenario": "Server", "result": 100.0, "total_accelerators": 72, "gpu_watts": float("nan"), "location": "b/s"},
    )
    table = scenario_ratios(new, baseline)
    assert table["scenario"].tolist() == ["Offline", "Server"]  # Interactive has no baseline
    offline = table.iloc[0]
    assert offline["ratio"] == 2.0
    assert offline["per_gpu_ratio"] == 4.0  # half the GPUs
    assert offline["per_watt_ratio"] == pytest.approx(2.0)  # twice the GPU power: per GPU x 1/2
    assert math.isnan(table.iloc[1]["per_watt_ratio"])  # baseline states no power
    assert offline["new_location"] == "n/o" and offline["baseline_location"] == "b/o"


def test_units_must_agree():
    new = rows({"scenario": "Server", "result": 4.0, "total_accelerators": 8, "units": "Queries/s", "location": "n"})
    baseline = rows({"scenario": "Server", "result": 2.0, "total_accelerators": 8, "units": "Tokens/s", "location": "b"})
    with pytest.raises(ValueError, match="cannot compare Queries/s"):
        scenario_ratios(new, baseline)
