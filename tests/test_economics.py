import re

import numpy as np
import pandas as pd
import pytest

from claimbook.economics import (
    break_even_table,
    cost_table,
    joules_per_token,
    judge_cost_claim,
    sensitivity,
    usd_per_million_tokens,
)
from claimbook.ingest import IngestError
from claimbook.prices import ASSUMED, PRICE_COLUMNS, choose_prices, ingest_prices, load_prices
from conftest import ROOT, SHARED_SUMMARY


def test_cost_formula():
    # 72 GPUs at 10 USD/h = 720 USD/h; 100,000 tokens/s = 360 M tokens/h -> 2 USD per million
    assert usd_per_million_tokens(72, 10.0, 100_000.0) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        usd_per_million_tokens(72, 0.0, 1.0)


def test_energy_formula():
    assert joules_per_token(72, 1400.0, 100_800.0) == pytest.approx(1.0)
    assert joules_per_token(72, float("nan"), 1.0) is None


def write_prices(tmp_path, lines):
    path = tmp_path / "prices.csv"
    path.write_text(",".join(PRICE_COLUMNS) + "\n" + "\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "line, message",
    [
        ("AWS,NVIDIA B200,,on-demand,2026-07-15,x", "line 2: the price (usd_per_gpu_hour) of AWS NVIDIA B200 is missing"),
        ("AWS,NVIDIA B200,-3,on-demand,2026-07-15,x", "line 2: usd_per_gpu_hour is '-3'; a price must be above zero"),
        ("AWS,NVIDIA B200,0,on-demand,2026-07-15,x", "a price must be above zero"),
        ("AWS,NVIDIA B200,cheap,on-demand,2026-07-15,x", "usd_per_gpu_hour is 'cheap', not a number"),
        (",NVIDIA B200,3,on-demand,2026-07-15,x", "line 2: provider is empty"),
    ],
)
def test_bad_price_tables_are_rejected(tmp_path, line, message):
    with pytest.raises(IngestError, match=re.escape(message)):
        ingest_prices(write_prices(tmp_path, ["Lambda,NVIDIA B200,6.69,on-demand,2026-07-15,ok", line][1:]))


def test_price_choice(tmp_path):
    prices = ingest_prices(write_prices(tmp_path, [
        "A,NVIDIA B200,8,on-demand,d,", "B,NVIDIA B200,5,reserved,d,", "C,NVIDIA B200,6,on-demand,d,",
        "D,NVIDIA GB200,10,capacity-block,d,",
    ]))
    chosen = choose_prices(prices, ["NVIDIA B200-SXM-180GB", "NVIDIA GB200", "NVIDIA GB300", "NVIDIA B2000"], "on-demand",
                           {"NVIDIA GB300": 12.0})
    by = chosen.set_index("accelerator")
    assert by.loc["NVIDIA B200-SXM-180GB", "usd_per_gpu_hour"] == 6.0  # lowest on-demand, not the reserved 5
    assert by.loc["NVIDIA GB200", "pricing"] == "capacity-block"  # no on-demand: any kind
    assert by.loc["NVIDIA GB300", "pricing"] == ASSUMED
    assert "NVIDIA B2000" not in by.index  # a prefix must end at a word boundary
    with pytest.raises(ValueError, match="must be a positive number"):
        choose_prices(prices, ["NVIDIA GB300"], "on-demand", {"NVIDIA GB300": -1})


def test_changing_a_price_or_a_throughput_changes_the_cost_table(committed_results):
    prices = load_prices(ROOT / "data" / "prices" / "gpu_hour_prices.csv")
    assumed = {"NVIDIA GB300": 10.0}
    base = cost_table(committed_results, choose_prices(prices, list(committed_results.accelerator), "on-demand", assumed))
    dearer = cost_table(committed_results, choose_prices(prices, list(committed_results.accelerator), "on-demand", {"NVIDIA GB300": 20.0}))
    key = ["organization", "system", "model", "scenario"]
    gb300 = base[base.accelerator == "NVIDIA GB300"].set_index(key)["usd_per_million_tokens"]
    assert (dearer[dearer.accelerator == "NVIDIA GB300"].set_index(key)["usd_per_million_tokens"] == 2 * gb300).all()
    faster = committed_results.copy()
    faster.loc[faster.units == "Tokens/s", "result"] *= 4
    quicker = cost_table(faster, choose_prices(prices, list(faster.accelerator), "on-demand", assumed))
    assert np.allclose(quicker.set_index(key).loc[base.set_index(key).index, "usd_per_million_tokens"],
                       base.set_index(key)["usd_per_million_tokens"] / 4)


def test_committed_costs_match_an_independent_recomputation():
    costs = pd.read_csv(ROOT / "book" / "costs.csv")
    assert len(costs) > 0
    recomputed = costs.total_accelerators * costs.usd_per_gpu_hour * 1e6 / (costs.tokens_per_second * 3600)
    assert np.allclose(costs.usd_per_million_tokens, recomputed, rtol=1e-12)
    stated = costs.gpu_watts.notna()
    assert np.allclose(costs.joules_per_token[stated], (costs.total_accelerators * costs.gpu_watts / costs.tokens_per_second)[stated])


def test_break_even_and_verdict(committed_results):
    rubin = committed_results[committed_results.system == "VR-NVL72_VR-288GB_aarch64x72_TRT"]
    gb300 = committed_results[(committed_results.system == "GB300-NVL72_GB300-288GB_aarch64x72_TRT") & (committed_results.organization == "NVIDIA")]
    table = break_even_table(rubin[rubin.units == "Tokens/s"], gb300, 10.0, 15.0).set_index("scenario")
    interactive = table.loc["Interactive"]
    assert interactive.break_even_usd_per_gpu_hour == pytest.approx(10.0 * interactive.speedup)
    assert interactive.lowers_cost_at_assumed_price == (15.0 < interactive.break_even_usd_per_gpu_hour)
    verdict = judge_cost_claim(table.reset_index(), "NVIDIA Vera Rubin", "NVIDIA GB300")
    assert verdict.verdict == "cannot be checked" and "no public price" in verdict.reason


def test_sensitivity_is_linear_in_price(committed_results):
    rows = committed_results[committed_results.system == "VR-NVL72_VR-288GB_aarch64x72_TRT"].head(1)
    curve = sensitivity(rows, np.array([1.0, 2.0, 4.0]))
    assert np.allclose(curve.usd_per_million_tokens / curve.usd_per_gpu_hour, curve.usd_per_million_tokens.iloc[0])


def test_committed_prices_are_what_ingest_makes(tmp_path):
    shared = SHARED_SUMMARY.parent.parent.parent / "prices" / "gpu_hour_prices.csv"
    if not shared.is_file():
        pytest.skip("the price table is not beside this clone (../shared)")
    from claimbook.ingest import write_tidy

    fresh = write_tidy(ingest_prices(shared), tmp_path / "p.csv")
    assert fresh.read_bytes() == (ROOT / "data" / "prices" / "gpu_hour_prices.csv").read_bytes()


def test_a_missing_price_says_how_to_supply_one(tmp_path):
    from claimbook.prices import price_of

    prices = ingest_prices(write_prices(tmp_path, ["A,NVIDIA B200,8,on-demand,d,"]))
    chosen = choose_prices(prices, ["NVIDIA B200-SXM-180GB", "NVIDIA GB300"], "on-demand", {})
    assert price_of(chosen, "NVIDIA B200-SXM-180GB") == 8.0
    with pytest.raises(LookupError, match="no price for NVIDIA GB300.*assumed_prices"):
        price_of(chosen, "NVIDIA GB300")


def test_cost_claim_rows_give_one_row_per_scenario(committed_results):
    from claimbook.economics import cost_claim_rows
    from claimbook.scorecard import normalise

    rubin = committed_results[committed_results.system == "VR-NVL72_VR-288GB_aarch64x72_TRT"]
    gb300 = committed_results[(committed_results.system == "GB300-NVL72_GB300-288GB_aarch64x72_TRT") & (committed_results.organization == "NVIDIA")]
    table = break_even_table(rubin[rubin.units == "Tokens/s"], gb300, 10.0, 15.0)
    verdict = judge_cost_claim(table, "NVIDIA Vera Rubin", "NVIDIA GB300")
    rows = normalise(cost_claim_rows("c", "economics", table, verdict, "prices.csv"))
    assert [row["scenario"] for row in rows] == [f"{m} {s}" for m, s in zip(table.model, table.scenario)]
    assert [row["measured"] for row in rows] == list(table.break_even_usd_per_gpu_hour)
    assert {row["verdict"] for row in rows} == {"cannot be checked"}
