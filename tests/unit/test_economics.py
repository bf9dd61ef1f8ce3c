import re

import numpy as np
import pytest

from claimbook.engine.economics import (
    break_even_notes,
    break_even_table,
    cost_table,
    joules_per_token,
    power_sentences,
    sensitivity,
    usd_per_million_tokens,
)
from claimbook.inputs.ingest import IngestError
from claimbook.inputs.prices import ASSUMED, PRICE_COLUMNS, choose_prices, ingest_prices, load_prices
from claimbook.inputs.reference import annotate, load_reference
from tests.helpers.project import ROOT


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
        (
            "AWS,NVIDIA B200,,on-demand,2026-07-15,x",
            "line 2: the price (usd_per_gpu_hour) of AWS NVIDIA B200 is missing",
        ),
        (
            "AWS,NVIDIA B200,-3,on-demand,2026-07-15,x",
            "line 2: usd_per_gpu_hour is '-3'; a price must be above zero",
        ),
        ("AWS,NVIDIA B200,0,on-demand,2026-07-15,x", "a price must be above zero"),
        ("AWS,NVIDIA B200,cheap,on-demand,2026-07-15,x", "usd_per_gpu_hour is 'cheap', not a number"),
        (",NVIDIA B200,3,on-demand,2026-07-15,x", "line 2: provider is empty"),
    ],
)
def test_bad_price_tables_are_rejected(tmp_path, line, message):
    with pytest.raises(IngestError, match=re.escape(message)):
        ingest_prices(write_prices(tmp_path, ["Lambda,NVIDIA B200,6.69,on-demand,2026-07-15,ok", line][1:]))


REFERENCE = load_reference(ROOT / "data" / "reference")


def test_prices_are_chosen_per_family(tmp_path):
    prices = ingest_prices(
        write_prices(
            tmp_path,
            [
                "A,NVIDIA B200,8,on-demand,d,",
                "B,NVIDIA B200,5,reserved,d,",
                "C,NVIDIA B200,6,on-demand,d,",
                "D,NVIDIA GB200,10,capacity-block,d,",
            ],
        )
    )
    chosen = choose_prices(
        prices,
        ["NVIDIA B200", "NVIDIA GB200", "NVIDIA GB300", "NVIDIA Vera Rubin", "AMD MI355X"],
        "on-demand",
        {"NVIDIA GB300": 12.0, "NVIDIA VR200": 15.0},
        REFERENCE,
    )
    by = chosen.set_index("family")
    assert by.loc["NVIDIA B200", "usd_per_gpu_hour"] == 6.0  # the cheapest of the kind asked for
    assert by.loc["NVIDIA GB200", "usd_per_gpu_hour"] == 10.0  # no on-demand price: the cheapest of any kind
    assert by.loc["NVIDIA GB300", "pricing"] == ASSUMED
    # An assumption named after one published name prices the whole family ("VR200" is Vera Rubin).
    assert by.loc["NVIDIA Vera Rubin", "usd_per_gpu_hour"] == 15.0
    assert "AMD MI355X" not in by.index
    with pytest.raises(ValueError, match="must be a number from 0.01 to"):
        choose_prices(prices, ["NVIDIA GB300"], "on-demand", {"NVIDIA GB300": -1}, REFERENCE)
    # Two names of one family: which price stands is not for the book to pick.
    with pytest.raises(ValueError, match=r"give NVIDIA Vera Rubin twice \('NVIDIA VR200' and 'Vera Rubin'\)"):
        choose_prices(
            prices, ["NVIDIA GB300"], "on-demand", {"NVIDIA VR200": 15.0, "Vera Rubin": 3.0}, REFERENCE
        )
    # A name no reviewed family has and no result is on: a typo that would price nothing, unsaid.
    with pytest.raises(
        ValueError, match=r"'Nvidia Gb300x' names no accelerator family the book knows; closest: NVIDIA GB300"
    ):
        choose_prices(prices, ["NVIDIA GB300"], "on-demand", {"Nvidia Gb300x": 12.0}, REFERENCE)
    # One the results are on, reviewed or not (a new round's accelerator), is a family.
    newcomer = choose_prices(prices, ["Acme X1"], "on-demand", {"Acme X1": 4.0}, REFERENCE)
    assert newcomer.set_index("family").loc["Acme X1", "usd_per_gpu_hour"] == 4.0


def test_every_vera_rubin_result_is_priced_by_one_assumption(committed_results):
    """Nebius publishes Vera Rubin as "NVIDIA VR200": its results must not drop out of the cost table."""
    results = annotate(committed_results, REFERENCE)
    prices = load_prices(ROOT / "data" / "prices" / "gpu_hour_prices.csv")
    chosen = choose_prices(
        prices, list(results["family"]), "on-demand", {"NVIDIA GB300": 12, "NVIDIA Vera Rubin": 18}, REFERENCE
    )
    costs = cost_table(results, chosen)
    rubin = results[(results["family"] == "NVIDIA Vera Rubin") & (results["units"] == "Tokens/s")]
    assert set(rubin["location"]) <= set(costs["location"])
    assert "Nebius" in set(costs["organization"])


def test_break_even_and_the_sensitivity_lines_cross_there(committed_results):
    results = annotate(committed_results, REFERENCE)
    new = results[results["system"] == "VR-NVL72_VR-288GB_aarch64x72_TRT"]
    base = results[
        (results["system"] == "GB300-NVL72_GB300-288GB_aarch64x72_TRT")
        & (results["organization"] == "NVIDIA")
    ]
    table = break_even_table(new, base, 10.5, 15.75)
    assert list(table["benchmark"].unique()) == ["deepseek-r1"]  # the only token benchmark of both
    for row in table.itertuples():
        own = new[(new["benchmark"] == row.benchmark) & (new["scenario"] == row.scenario)].iloc[0]
        other = base[(base["benchmark"] == row.benchmark) & (base["scenario"] == row.scenario)].iloc[0]
        # at the break-even price both racks cost the same per token
        assert usd_per_million_tokens(72, row.break_even_usd_per_gpu_hour, own["result"]) == pytest.approx(
            usd_per_million_tokens(72, 10.5, other["result"])
        )
        assert row.cheaper_at_assumed_price == (15.75 < row.break_even_usd_per_gpu_hour)
    notes = break_even_notes(table, "NVIDIA Vera Rubin", "NVIDIA GB300")
    conservative = table["break_even_usd_per_gpu_hour"].min()
    assert f"below {conservative:.2f} USD per GPU-hour (the conservative figure" in notes[0]
    curves = sensitivity(new, base, 10.5, np.linspace(2, 40, 39))
    assert set(curves["line"]) == {
        f"{side} {scenario}" for side in ("new", "baseline") for scenario in table["scenario"]
    }
    flat = curves[curves["line"].str.startswith("baseline")]
    assert (
        flat.groupby("line")["usd_per_million_tokens"].nunique().eq(1).all()
    )  # the baseline at its price is flat


def test_cost_table_counts_board_power_only(committed_results):
    results = annotate(committed_results, REFERENCE)
    prices = load_prices(ROOT / "data" / "prices" / "gpu_hour_prices.csv")
    chosen = choose_prices(prices, list(results["family"]), "on-demand", {}, REFERENCE)
    costs = cost_table(results[results["division"] == "closed"], chosen)
    row = costs.dropna(subset=["joules_per_token"]).iloc[0]
    assert row["joules_per_token"] == pytest.approx(
        row["total_accelerators"] * row["gpu_watts"] / row["tokens_per_second"]
    )
    assert row["usd_per_million_tokens"] == pytest.approx(
        row["total_accelerators"] * row["usd_per_gpu_hour"] * 1e6 / (row["tokens_per_second"] * 3600)
    )


def test_power_sentences_count_each_rounds_measured_power_and_the_results_used():
    import pandas as pd

    results = pd.DataFrame(
        {
            "round": ["v5.1", "v5.1", "v5.1", "v6.1"],
            "has_power": [True, True, False, False],
            "location": ["a", "b", "c", "d"],
        }
    )
    assert power_sentences(results) == (
        (
            "The summary of MLPerf Inference v5.1 marks 2 of its 3 results as having an MLPerf power result (has_power)."
        ),
        (
            "The summary of MLPerf Inference v6.1 marks none of its 1 result as having an MLPerf power result (has_power)."
        ),
    )
    five = results[results["round"] == "v5.1"]
    assert power_sentences(five, ["c"])[0].endswith("; none of them is among the results here.")
    assert (
        "; 1 of them is among the results here, whose energy figures use the stated board power"
        in (power_sentences(five, ["a", "c"])[0])
    )
    assert "; 2 of them are among" in power_sentences(five, ["a", "b"])[0]
