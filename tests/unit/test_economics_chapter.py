"""The economics chapter's numbers, now in the package (``claimbook.engine.economics``): its
prices, break-even table, sensitivity lines and the notes on its cost claim, each recomputed here
from the raw tables (the round's tidy CSV, the price table, data/chapters.yaml) with the csv
module, not from the package's own output."""

import csv

import pytest
import yaml

from claimbook.engine import economics
from claimbook.engine.context import chapter_context, page_data, page_parameters
from tests.helpers.project import ROOT

ON_DEMAND = "on-demand"


@pytest.fixture(scope="module")
def chapter_parameters() -> dict:
    """The economics page's parameters as the build gives them: the book's data (absolute here,
    so the test runs from anywhere) and the chapter's own, read straight from chapters.yaml."""
    chapter = yaml.safe_load((ROOT / "data" / "chapters.yaml").read_text())["economics"]
    own = dict(chapter["parameters"])
    own["prices_path"] = str(ROOT / own["prices_path"])
    parameters = page_parameters(own)
    for key in (
        "results_path",
        "reference_dir",
        "registry_dir",
        "chapters_file",
        "result_ids_path",
        "sources_path",
    ):
        parameters[key] = str(ROOT / parameters[key])
    parameters["earlier_paths"] = [str(ROOT / path) for path in parameters["earlier_paths"]]
    return parameters


@pytest.fixture(scope="module")
def data(chapter_parameters):
    return page_data(chapter_parameters)


def raw_token_results(system: dict) -> dict:
    """(benchmark, scenario) -> (tokens per second, GPUs) of one system's Closed token results,
    read from the round's tidy table with the csv module."""
    with open(ROOT / "data" / "mlperf" / "v6.1.csv", newline="", encoding="utf-8") as handle:
        return {
            (row["model"], row["scenario"]): (float(row["result"]), int(row["total_accelerators"]))
            for row in csv.DictReader(handle)
            if row["division"] == "closed"
            and row["organization"] == system["organization"]
            and row["system"] == system["system"]
            and row["units"] == "Tokens/s"
        }


def expected_break_even(parameters: dict) -> dict:
    """(benchmark, scenario) -> the new system's break-even price per GPU-hour: the price at which
    GPUs x price / tokens per second is the baseline's at its assumed price."""
    assumed = parameters["assumed_prices"]
    new, base = raw_token_results(parameters["new_system"]), raw_token_results(parameters["baseline_system"])
    return {
        key: assumed["NVIDIA GB300"] * base[key][1] / base[key][0] * new[key][0] / new[key][1]
        for key in new.keys() & base.keys()
    }


def test_the_break_even_table_recomputes_from_the_raw_results(data, chapter_parameters):
    setting = economics.price_setting(data, chapter_parameters)
    expected = expected_break_even(chapter_parameters)
    assert expected, "no scenario with token results of both racks"
    found = {
        (row.benchmark, row.scenario): row.break_even_usd_per_gpu_hour
        for row in setting.break_even.itertuples()
    }
    assert found.keys() == expected.keys()
    for key, price in expected.items():
        assert found[key] == pytest.approx(price, rel=1e-9), key
    assumed = chapter_parameters["assumed_prices"]
    assert setting.baseline_price == assumed["NVIDIA GB300"]
    assert setting.new_price == assumed["NVIDIA Vera Rubin"]
    for row in setting.break_even.itertuples():
        assert row.cheaper_at_assumed_price == (
            assumed["NVIDIA Vera Rubin"] < expected[(row.benchmark, row.scenario)]
        )


def test_a_family_without_an_assumption_takes_its_lowest_public_price_of_the_kind(data, chapter_parameters):
    setting = economics.price_setting(data, chapter_parameters)
    with open(ROOT / "data" / "prices" / "gpu_hour_prices.csv", newline="", encoding="utf-8") as handle:
        listed = [row for row in csv.DictReader(handle) if row["accelerator"] == "NVIDIA B200"]
    lowest = min(float(row["usd_per_gpu_hour"]) for row in listed if row["pricing"] == ON_DEMAND)
    chosen = setting.chosen.set_index("family")
    assert chosen.loc["NVIDIA B200", "usd_per_gpu_hour"] == pytest.approx(lowest)


def test_the_price_curves_span_the_range_and_cross_at_the_break_even_price(data, chapter_parameters):
    setting = economics.price_setting(data, chapter_parameters)
    low, high = chapter_parameters["price_range"]
    curves = economics.price_curves(setting, [low, high])
    base = raw_token_results(chapter_parameters["baseline_system"])
    new = raw_token_results(chapter_parameters["new_system"])
    for (benchmark, scenario), break_even in expected_break_even(chapter_parameters).items():
        line = curves[curves["line"] == f"new {scenario}"]
        assert len(line) == economics.CURVE_POINTS
        assert line["usd_per_gpu_hour"].min() == pytest.approx(low)
        assert line["usd_per_gpu_hour"].max() == pytest.approx(high)
        tokens, gpus = new[(benchmark, scenario)]
        for price, cost in zip(line["usd_per_gpu_hour"], line["usd_per_million_tokens"]):
            assert cost == pytest.approx(gpus * price * 1e6 / (tokens * 3600))
        flat = curves[curves["line"] == f"baseline {scenario}"]["usd_per_million_tokens"]
        base_tokens, base_gpus = base[(benchmark, scenario)]
        assumed = chapter_parameters["assumed_prices"]["NVIDIA GB300"]
        assert set(flat.round(9)) == {round(base_gpus * assumed * 1e6 / (base_tokens * 3600), 9)}
        # the new rack's cost at its break-even price is the baseline's
        assert gpus * break_even * 1e6 / (tokens * 3600) == pytest.approx(flat.iloc[0])


def test_the_cost_claim_s_check_notes_the_conservative_break_even(data, chapter_parameters):
    ids = [claim.id for claim in data.registry.chapter_claims("economics")]
    cost_claim, other = data.registry.claim(ids[1]), data.registry.claim(ids[0])
    notes = chapter_context(cost_claim, data, "economics", chapter_parameters)["notes"]
    conservative = min(expected_break_even(chapter_parameters).values())
    assert f"only if priced below {conservative:.2f} USD per GPU-hour (the conservative figure" in notes[0]
    assert chapter_context(other, data, "economics", chapter_parameters) == {}
    # No other chapter adds anything to its claims' checks.
    scaling = data.registry.chapter_claims("scaling")[0]
    assert chapter_context(scaling, data, "scaling", chapter_parameters) == {}


def test_a_missing_price_parameter_is_named(data, chapter_parameters):
    without = {key: value for key, value in chapter_parameters.items() if key != "pricing_kind"}
    with pytest.raises(ValueError, match="needs the parameter.s. pricing_kind"):
        economics.price_setting(data, without)
    cost_claim = data.registry.chapter_claims("economics")[1]
    assert chapter_context(cost_claim, data, "economics", without) == {}


def test_a_public_price_stands_over_an_assumption_and_the_page_says_so(data, chapter_parameters, tmp_path):
    """A family the price table prices takes its public price, whatever was assumed for it: the
    assumption is set aside, and every sentence on the prices follows the table (none typed)."""
    with open(ROOT / "data" / "prices" / "gpu_hour_prices.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    columns = list(rows[0])
    # the table as an analyst's own: a public GB300 price added, and an assumption for B200 (priced)
    rows.append(
        {
            **rows[0],
            "provider": "MyCloud",
            "accelerator": "NVIDIA GB300",
            "usd_per_gpu_hour": "9",
            "pricing": ON_DEMAND,
        }
    )
    mine = tmp_path / "prices.csv"
    with open(mine, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    assumed = {**chapter_parameters["assumed_prices"], "NVIDIA B200": 3.0}
    parameters = {**chapter_parameters, "prices_path": str(mine), "assumed_prices": assumed}
    setting = economics.price_setting(data, parameters)
    chosen = setting.chosen.set_index("family")
    b200 = min(
        float(row["usd_per_gpu_hour"])
        for row in rows
        if row["accelerator"] == "NVIDIA B200" and row["pricing"] == ON_DEMAND
    )
    assert (
        chosen.loc["NVIDIA GB300", "usd_per_gpu_hour"] == 9.0
        and chosen.loc["NVIDIA GB300", "provider"] == "MyCloud"
    )
    assert chosen.loc["NVIDIA B200", "usd_per_gpu_hour"] == pytest.approx(b200)
    assert chosen.loc["NVIDIA Vera Rubin", "usd_per_gpu_hour"] == assumed["NVIDIA Vera Rubin"]
    assert setting.set_aside == (("NVIDIA B200", 3.0), ("NVIDIA GB300", assumed["NVIDIA GB300"]))
    assert not setting.assumed("NVIDIA GB300") and setting.assumed("NVIDIA Vera Rubin")
    said = " ".join(economics.price_sentences(setting, ON_DEMAND))
    assert "no public price for NVIDIA Vera Rubin:" in said and "GB300 at" not in said
    assert "The price assumed for NVIDIA B200 (3.00 USD per GPU-hour) is set aside" in said
    assert (
        f"The price assumed for NVIDIA GB300 ({assumed['NVIDIA GB300']:.2f} USD per GPU-hour) is set aside"
        in said
    )
    cost_claim = data.registry.chapter_claims("economics")[1]
    notes = chapter_context(cost_claim, data, "economics", parameters)["notes"]
    assert notes[0].startswith("With NVIDIA GB300 at its lowest public price, 9.00 USD per GPU-hour, ")
    assert "(it has no public price)" not in " ".join(notes)
    # the break-even follows the public baseline price: 9 where 10.5 was assumed
    for row in setting.break_even.itertuples():
        assert row.baseline_usd_per_gpu_hour == 9.0


def test_the_committed_prices_are_said_from_the_table(data, chapter_parameters):
    """The committed book: GB300 and Vera Rubin have no public price in the table, so their
    assumptions stand, and the prices' sentences name exactly those, with the table's date."""
    setting = economics.price_setting(data, chapter_parameters)
    with open(ROOT / "data" / "prices" / "gpu_hour_prices.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    listed = {row["accelerator"] for row in rows}
    for family in chapter_parameters["assumed_prices"]:
        assert family not in listed  # (were it listed, the test above says what happens)
    said = economics.price_sentences(setting, ON_DEMAND)
    dates = sorted({row["as_of"] for row in rows})
    assert said[0].startswith(f"The price table (prices as of {dates[0]}")
    assert "no public price for NVIDIA GB300 or NVIDIA Vera Rubin:" in said[0]
    assumed = chapter_parameters["assumed_prices"]
    assert (
        f"(NVIDIA GB300 at {assumed['NVIDIA GB300']:.2f} USD, "
        f"NVIDIA Vera Rubin at {assumed['NVIDIA Vera Rubin']:.2f} USD per GPU-hour)"
    ) in said[0]
    assert setting.set_aside == ()


def test_a_pricing_kind_the_table_lacks_and_a_price_range_that_is_none_are_named(data, chapter_parameters):
    with open(ROOT / "data" / "prices" / "gpu_hour_prices.csv", newline="", encoding="utf-8") as handle:
        kinds = sorted({row["pricing"] for row in csv.DictReader(handle)})
    with pytest.raises(ValueError) as raised:
        economics.price_setting(data, {**chapter_parameters, "pricing_kind": "bogus"})
    assert str(raised.value).startswith("pricing_kind 'bogus' is no pricing of the price table")
    assert str(raised.value).endswith(f"its pricings: {', '.join(kinds)}")
    setting = economics.price_setting(data, chapter_parameters)
    for price_range in ([1], [-1, 5], [5, 2], ["a", "b"], [1, 1e308]):
        with pytest.raises(ValueError, match="two prices per GPU-hour, the lowest and the highest"):
            economics.price_curves(setting, price_range)


@pytest.mark.parametrize(
    "change, said",
    [
        (
            {"new_system": {"organization": "NVIDIA", "system": "NOPE"}},
            "no Closed-division result of the new system",
        ),
        ({"baseline_system": {"organization": "Nobody"}}, "no Closed-division result of the baseline"),
        (
            {"assumed_prices": {"NVIDIA Vera Rubin": 15.75}},
            "NVIDIA GB300 has no price (none in the price table",
        ),
    ],
)
def test_no_break_even_says_why_and_draws_no_line(data, chapter_parameters, change, said):
    """A chapter whose systems have no result, or whose baseline has no price, says why it has no
    break-even price (the page showed an empty table, or failed dividing by a price of 0)."""
    setting = economics.price_setting(data, {**chapter_parameters, **change})
    assert setting.break_even.empty and said in setting.no_break_even()
    assert economics.price_curves(setting, [2.0, 40.0]).empty
    claim = data.registry.chapter_claims("economics")[1]
    assert chapter_context(claim, data, "economics", {**chapter_parameters, **change}) == {
        "notes": (setting.no_break_even(),)
    }
    assert economics.price_setting(data, chapter_parameters).no_break_even() is None
