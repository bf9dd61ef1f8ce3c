"""The economics chapter's tables and chart: what the speedup is worth, the prices used, and the
cost and energy per token of every priced result (the numbers: ``claimbook.engine.economics``)."""

from __future__ import annotations

import pandas as pd

from claimbook.engine.economics import PriceSetting, power_sentences, price_curves, price_sentences
from claimbook.inputs.prices import readable
from claimbook.present import blocks, charts

BREAK_EVEN_COLUMNS = {
    "benchmark": "Benchmark",
    "scenario": "Scenario",
    "speedup": "Speedup (x)",
    "break_even_usd_per_gpu_hour": "Break-even USD per GPU-hour",
}
COST_COLUMNS = {
    "organization": "Submitter",
    "system": "System",
    "accelerator": "Accelerator",
    "scenario": "Scenario",
    "total_accelerators": "GPUs",
    "tokens_per_second": "Tokens/s",
    "usd_per_gpu_hour": "USD per GPU-hour",
    "price_kind": "Price",
    "usd_per_million_tokens": "USD per million tokens",
    "joules_per_token": "Joules per token (board power, not measured)",
}
PRICE_DECIMALS = {"USD per GPU-hour": 2}


def show_break_even(setting: PriceSetting, price_range) -> None:
    """The break-even price per scenario, then the cost lines that cross at it over ``price_range``."""
    from IPython.display import display

    why_none = setting.no_break_even()
    if why_none:
        blocks.display_html(blocks.paragraph(why_none), why_none)
        return
    columns = {**BREAK_EVEN_COLUMNS, **_price_headings(setting)}
    blocks.table(
        setting.break_even.rename(columns=columns),
        "Break-even price of the new rack per GPU-hour, per scenario",
        decimals={columns[name]: 2 for name in _PRICE_COLUMNS},
    )
    curves = price_curves(setting, price_range)
    if not curves.empty:
        display(
            charts.sensitivity_chart(
                curves,
                "Cost per million tokens against the new rack's price",
                "Line chart: the new rack's cost per million tokens as its price per GPU-hour varies, "
                "and the baseline rack's cost at its price (flat); the lines cross at the break-even "
                "price.",
                assumed=setting.new_price,
            )
        )


_PRICE_COLUMNS = ("baseline_usd_per_gpu_hour", "break_even_usd_per_gpu_hour", "assumed_usd_per_gpu_hour")


def _price_headings(setting: PriceSetting) -> dict:
    """The break-even table's price headings, each price said as assumed or public, as it is."""
    baseline = "assumed" if setting.assumed(setting.baseline_family) else "public"
    new = "assumed" if setting.assumed(setting.new_family) else "public"
    return {
        "baseline_usd_per_gpu_hour": f"Baseline USD per GPU-hour ({baseline})",
        "assumed_usd_per_gpu_hour": f"{new.capitalize()} USD per GPU-hour",
        "cheaper_at_assumed_price": f"Cheaper at the {new} price",
    }


def show_prices(setting: PriceSetting, pricing_kind: str) -> None:
    """Where the prices come from (``economics.price_sentences``), the price used per accelerator
    family, then every public price of the table."""
    for sentence in price_sentences(setting, pricing_kind):
        blocks.display_html(blocks.paragraph(sentence), sentence)
    blocks.table(
        readable(setting.chosen),
        f"Price per GPU-hour used for each accelerator family (pricing kind: {pricing_kind})",
        decimals=PRICE_DECIMALS,
    )
    blocks.table(
        readable(setting.prices.drop(columns=["note"])),
        "Every public price in the table",
        decimals=PRICE_DECIMALS,
    )


def show_costs(costs: pd.DataFrame, data) -> None:
    """The cost table (``economics.cost_table``), one table per benchmark, then what the round's
    summary says of measured power, of its results and of these (``economics.power_sentences``)."""
    for benchmark in sorted(set(costs["model"])):
        part = costs[costs["model"] == benchmark]
        blocks.table(
            part[list(COST_COLUMNS)].rename(columns=COST_COLUMNS),
            f"{data.reference.display_name(benchmark)}: cost and energy per output token",
            decimals={"USD per GPU-hour": 2, "USD per million tokens": 3},
        )
    for sentence in power_sentences(data.results, costs["location"]):
        blocks.display_html(blocks.paragraph(sentence), sentence)
