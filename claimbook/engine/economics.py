"""Cost and energy per token, and what a speedup is worth in price."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from claimbook.common.formatting import count, plural, usd
from claimbook.engine import notebook_records

SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 1_000_000
COST_COLUMNS = (
    "organization",
    "system",
    "accelerator",
    "model",
    "scenario",
    "availability",
    "total_accelerators",
    "tokens_per_second",
    "price_provider",
    "price_kind",
    "usd_per_gpu_hour",
    "usd_per_million_tokens",
    "gpu_watts",
    "joules_per_token",
    "location",
)


def usd_per_million_tokens(gpus: int, usd_per_gpu_hour: float, tokens_per_second: float) -> float:
    """(system price per hour x 10^6) / (tokens per second x 3600), system price = GPUs x GPU price."""
    if gpus <= 0 or usd_per_gpu_hour <= 0 or tokens_per_second <= 0:
        raise ValueError("GPUs, price and throughput must be positive")
    return gpus * usd_per_gpu_hour * TOKENS_PER_MILLION / (tokens_per_second * SECONDS_PER_HOUR)


def joules_per_token(gpus: int, gpu_watts: float, tokens_per_second: float) -> float | None:
    """GPU board power only: GPUs x watts / tokens per second (None where power is not stated)."""
    if gpus <= 0 or tokens_per_second <= 0 or pd.isna(gpu_watts) or gpu_watts <= 0:
        return None
    return gpus * gpu_watts / tokens_per_second


def cost_table(results: pd.DataFrame, chosen_prices: pd.DataFrame) -> pd.DataFrame:
    """Cost per million output tokens and energy per token (board power) of every token-throughput
    result whose accelerator family has a price."""
    tokens = results[(results["units"] == "Tokens/s") & (results["total_accelerators"] > 0)]
    priced = tokens.merge(chosen_prices, on="family", how="inner")
    rows = []
    for item in priced.itertuples():
        rows.append(
            {
                "organization": item.organization,
                "system": item.system,
                "accelerator": item.family,
                "model": item.benchmark,
                "scenario": item.scenario,
                "availability": item.availability,
                "total_accelerators": item.total_accelerators,
                "tokens_per_second": item.result,
                "price_provider": item.provider,
                "price_kind": item.pricing,
                "usd_per_gpu_hour": item.usd_per_gpu_hour,
                "usd_per_million_tokens": usd_per_million_tokens(
                    item.total_accelerators, item.usd_per_gpu_hour, item.result
                ),
                "gpu_watts": item.gpu_watts,
                "joules_per_token": joules_per_token(item.total_accelerators, item.gpu_watts, item.result),
                "location": item.location,
            }
        )
    table = pd.DataFrame(rows, columns=list(COST_COLUMNS))
    table["joules_per_token"] = table["joules_per_token"].astype("float64")
    return table.sort_values(
        ["model", "scenario", "usd_per_million_tokens", "location"], kind="stable"
    ).reset_index(drop=True)


def break_even_price(new: pd.Series, baseline: pd.Series, baseline_usd_per_gpu_hour: float) -> float:
    """The new system's price per GPU-hour at which its cost per token equals the baseline's."""
    return (
        baseline_usd_per_gpu_hour
        * (new["result"] / baseline["result"])
        * (baseline["total_accelerators"] / new["total_accelerators"])
    )


def break_even_table(
    new_rows: pd.DataFrame,
    baseline_rows: pd.DataFrame,
    baseline_usd_per_gpu_hour: float,
    new_usd_per_gpu_hour: float | None,
) -> pd.DataFrame:
    """Per benchmark and scenario with token results on both sides: the new system's break-even
    price, and whether the assumed price is below it (then the new system is cheaper per token)."""
    tokens = new_rows[new_rows["units"] == "Tokens/s"]
    merged = tokens.merge(baseline_rows, on=["benchmark", "scenario"], suffixes=("_new", "_baseline"))
    rows = []
    for _, item in merged.iterrows():
        new = pd.Series({"result": item["result_new"], "total_accelerators": item["total_accelerators_new"]})
        base = pd.Series(
            {"result": item["result_baseline"], "total_accelerators": item["total_accelerators_baseline"]}
        )
        price = break_even_price(new, base, baseline_usd_per_gpu_hour)
        rows.append(
            {
                "benchmark": item["benchmark"],
                "scenario": item["scenario"],
                "speedup": item["result_new"] / item["result_baseline"],
                "baseline_usd_per_gpu_hour": baseline_usd_per_gpu_hour,
                "break_even_usd_per_gpu_hour": price,
                "assumed_usd_per_gpu_hour": new_usd_per_gpu_hour,
                "cheaper_at_assumed_price": None
                if new_usd_per_gpu_hour is None
                else bool(new_usd_per_gpu_hour < price),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "benchmark",
            "scenario",
            "speedup",
            "baseline_usd_per_gpu_hour",
            "break_even_usd_per_gpu_hour",
            "assumed_usd_per_gpu_hour",
            "cheaper_at_assumed_price",
        ],
    )


def break_even_notes(
    break_even: pd.DataFrame, new_family: str, baseline_family: str, display_name=str, baseline_assumed=True
) -> tuple[str, ...]:
    """What would settle the cost claim, conservative figure first: the price below which the new
    system is cheaper per token in every scenario, and in its best one. Prose for readers, every
    price with its unit; how to rerun with other prices is on the method page, not here."""
    if break_even.empty:
        return ("No scenario has token results of both systems, so no break-even price can be computed.",)
    low = break_even.loc[break_even["break_even_usd_per_gpu_hour"].idxmin()]
    high = break_even.loc[break_even["break_even_usd_per_gpu_hour"].idxmax()]
    base = float(break_even["baseline_usd_per_gpu_hour"].iloc[0])
    # An assumption stands only where the table has no public price (``prices.choose_prices``).
    priced = (
        f"an assumed {usd(base)} per GPU-hour (it has no public price)"
        if baseline_assumed
        else f"its lowest public price, {usd(base)} per GPU-hour"
    )
    return (
        (
            f"With {baseline_family} at {priced}, "
            f"{new_family} is cheaper per token in every scenario only if priced below "
            f"{usd(low['break_even_usd_per_gpu_hour'])} per GPU-hour (the conservative figure, set by "
            f"{display_name(low['benchmark'])} {low['scenario']}), and in its best scenario "
            f"({display_name(high['benchmark'])} {high['scenario']}) below "
            f"{usd(high['break_even_usd_per_gpu_hour'])} per GPU-hour."
        ),
        (
            f"These break-even prices scale in proportion to the price {'assumed ' if baseline_assumed else ''}"
            f"for {baseline_family}; the method page says how to rebuild the book with other prices."
        ),
    )


def sensitivity(
    new_rows: pd.DataFrame, baseline_rows: pd.DataFrame, baseline_usd_per_gpu_hour: float, prices: np.ndarray
) -> pd.DataFrame:
    """Cost per million tokens of the new system over a range of its price, and of the baseline at
    its assumed price (a flat line), per scenario: the lines cross at the break-even price."""
    frames = []
    tokens = new_rows[new_rows["units"] == "Tokens/s"]
    for item in tokens.itertuples():
        base = baseline_rows[
            (baseline_rows["benchmark"] == item.benchmark) & (baseline_rows["scenario"] == item.scenario)
        ]
        if base.empty:
            continue
        base = base.iloc[0]
        flat = usd_per_million_tokens(
            int(base["total_accelerators"]), baseline_usd_per_gpu_hour, float(base["result"])
        )
        frames.append(
            pd.DataFrame(
                {
                    "system": f"{item.family}, {plural(item.total_accelerators, 'GPU')}",
                    "scenario": item.scenario,
                    "line": f"new {item.scenario}",
                    "usd_per_gpu_hour": prices,
                    "usd_per_million_tokens": [
                        usd_per_million_tokens(item.total_accelerators, price, item.result)
                        for price in prices
                    ],
                }
            )
        )
        frames.append(
            pd.DataFrame(
                {
                    "system": f"{base['family']}, {plural(int(base['total_accelerators']), 'GPU')}, at {usd(baseline_usd_per_gpu_hour)}/h",
                    "scenario": item.scenario,
                    "line": f"baseline {item.scenario}",
                    "usd_per_gpu_hour": prices,
                    "usd_per_million_tokens": flat,
                }
            )
        )
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(
            columns=["system", "scenario", "line", "usd_per_gpu_hour", "usd_per_million_tokens"]
        )
    )


def publish_costs(table: pd.DataFrame) -> None:
    """Record the cost table for the build, which writes it to ``costs.csv``."""
    notebook_records.publish(
        "costs",
        table.to_dict("records"),
        COST_COLUMNS,
        ("organization", "system", "model", "scenario", "usd_per_million_tokens"),
    )


@dataclass(frozen=True)
class PriceSetting:
    """What the economics chapter computes from its parameters before it shows anything."""

    closed: pd.DataFrame  # the round's Closed results
    prices: pd.DataFrame  # every public price
    chosen: pd.DataFrame  # the price used per accelerator family
    new_rows: pd.DataFrame
    baseline_rows: pd.DataFrame
    new_family: str
    baseline_family: str
    new_price: float | None
    baseline_price: float | None
    break_even: pd.DataFrame
    set_aside: tuple = ()  # the assumed prices a public one made needless: (family, price)

    def no_break_even(self) -> str | None:
        """Why the chapter has no break-even price, from its rows and prices (None where it has one)."""
        if not self.break_even.empty:
            return None
        if self.new_rows.empty or self.baseline_rows.empty:
            side = "new system" if self.new_rows.empty else "baseline"
            return (
                f"The round has no Closed-division result of the {side} the chapter names, so no "
                "break-even price can be computed."
            )
        if self.baseline_price is None:
            return (
                f"{self.baseline_family} has no price (none in the price table, none assumed), so no "
                "break-even price can be computed."
            )
        return "No scenario has token results of both systems, so no break-even price can be computed."

    def assumed(self, family: str) -> bool:
        """Whether the price used for ``family`` is an assumption (it has no public price)."""
        from claimbook.inputs.prices import ASSUMED

        return bool((self.chosen[self.chosen["family"] == family]["pricing"] == ASSUMED).any())


# The economics chapter's own parameters (data/chapters.yaml) the prices and the two systems come from.
PRICE_PARAMETERS = ("prices_path", "pricing_kind", "assumed_prices", "new_system", "baseline_system")
# Points of the sensitivity lines over the chapter's ``price_range``.
CURVE_POINTS = 39


def price_setting(data, parameters: dict) -> PriceSetting:
    """The prices, the two systems' results and the break-even table of the economics chapter,
    from its parameters (``PRICE_PARAMETERS``)."""
    from claimbook.claims.selectors import select
    from claimbook.inputs.prices import choose_prices, load_prices, price_of, set_aside

    missing = [key for key in PRICE_PARAMETERS if key not in parameters]
    if missing:
        raise ValueError(
            f"the economics chapter needs the parameter(s) {', '.join(missing)} (data/chapters.yaml)"
        )
    closed = data.results[data.results["division"] == "closed"]
    prices = load_prices(parameters["prices_path"])
    kinds = sorted(set(prices["pricing"]))
    if parameters["pricing_kind"] not in kinds:  # else every price would be of any kind, unsaid
        raise ValueError(
            f"pricing_kind {str(parameters['pricing_kind'])[:80]!r} is no pricing of the price table "
            f"({parameters['prices_path']}); its pricings: {', '.join(kinds)}"
        )
    chosen = choose_prices(
        prices,
        list(closed["family"]),
        parameters["pricing_kind"],
        parameters["assumed_prices"],
        data.reference,
    )
    new_rows, baseline_rows = (
        select(closed, parameters["new_system"]),
        select(closed, parameters["baseline_system"]),
    )
    new_family = new_rows["family"].iloc[0] if not new_rows.empty else "the new system"
    baseline_family = baseline_rows["family"].iloc[0] if not baseline_rows.empty else "the baseline"
    baseline_price, new_price = price_of(chosen, baseline_family), price_of(chosen, new_family)
    break_even = (
        break_even_table(new_rows, baseline_rows, baseline_price, new_price)
        if baseline_price is not None
        else break_even_table(new_rows.iloc[0:0], baseline_rows, 1.0, None)
    )
    return PriceSetting(
        closed,
        prices,
        chosen,
        new_rows,
        baseline_rows,
        new_family,
        baseline_family,
        new_price,
        baseline_price,
        break_even,
        tuple(set_aside(prices, parameters["assumed_prices"], data.reference)),
    )


def price_curves(setting: PriceSetting, price_range) -> pd.DataFrame:
    """The sensitivity lines (``sensitivity``) of the chapter's two systems over ``price_range``
    (lowest and highest price per GPU-hour of the new system)."""
    from claimbook.inputs.price_values import price_range_problem

    problem = price_range_problem(price_range)
    if problem:
        raise ValueError(problem)
    low, high = price_range
    if setting.baseline_price is None:  # no baseline cost to set the new rack's against
        return sensitivity(setting.new_rows.iloc[0:0], setting.baseline_rows, 1.0, np.array([low, high]))
    return sensitivity(
        setting.new_rows,
        setting.baseline_rows,
        setting.baseline_price,
        np.linspace(low, high, CURVE_POINTS),
    )


def chapter_context(claim, data, chapter: str, parameters: dict) -> dict:
    """What the economics chapter adds to its cost claim's check (its second claim): the
    break-even notes that say what would settle it. Its page and ``claimbook check`` ask
    (``claimbook.engine.context.chapter_context``), with the parameters the page runs with."""
    claim_ids = [other.id for other in data.registry.chapter_claims(chapter)]
    if (
        len(claim_ids) < 2
        or claim.id != claim_ids[1]
        or any(key not in parameters for key in PRICE_PARAMETERS)
    ):
        return {}
    setting = price_setting(data, parameters)
    if setting.no_break_even():
        return {"notes": (setting.no_break_even(),)}
    notes = break_even_notes(
        setting.break_even,
        setting.new_family,
        setting.baseline_family,
        data.reference.display_name,
        setting.assumed(setting.baseline_family),
    )
    return {"notes": notes + assumption_notes(setting, data.reference.display_name)}


def _in_case(table: pd.DataFrame, benchmark: str, scenario: str) -> pd.DataFrame:
    return table[(table["model"] == benchmark) & (table["scenario"] == scenario)]


def assumption_notes(setting: PriceSetting, display_name=str) -> tuple[str, ...]:
    """What a buyer reads beside a break-even: it rests on assumed prices, and where systems with
    a public price are cheaper per token than both systems at their assumed prices, the cheapest
    of them, scenario by scenario (computed from the cost table, never typed)."""
    from claimbook.inputs.prices import ASSUMED

    table = cost_table(setting.closed, setting.chosen)
    if table.empty or setting.break_even.empty:
        return ()
    assumed = table[table["price_kind"] == ASSUMED]
    public = table[table["price_kind"] != ASSUMED]
    mine = set(setting.new_rows["location"]) | set(setting.baseline_rows["location"])
    found, cases = [], 0
    for item in setting.break_even.itertuples():
        racks = _in_case(assumed[assumed["location"].isin(mine)], item.benchmark, item.scenario)
        cheaper = _in_case(public, item.benchmark, item.scenario)
        if racks.empty or cheaper.empty:
            continue
        cases += 1
        best = cheaper.sort_values(["usd_per_million_tokens", "location"], kind="stable").iloc[0]
        if best["usd_per_million_tokens"] < racks["usd_per_million_tokens"].min():
            found.append(
                f"{display_name(item.benchmark)} {item.scenario}: {best['organization']} {best['system']} "
                f"({best['accelerator']}, {plural(int(best['total_accelerators']), 'GPU')}, {best['price_provider']} "
                f"{best['price_kind']} price) at {usd(best['usd_per_million_tokens'])} per million tokens, against "
                + " and ".join(
                    f"{row.accelerator} {usd(row.usd_per_million_tokens)}"
                    for row in racks.sort_values("accelerator").itertuples()
                )
            )
    sides = setting.chosen[setting.chosen["family"].isin([setting.new_family, setting.baseline_family])]
    assumed_sides = sides[sides["pricing"] == ASSUMED]
    if assumed_sides.empty:
        return ()  # both systems at public prices: nothing assumed to say
    prices = ", ".join(f"{row.family} {usd(row.usd_per_gpu_hour)}" for row in assumed_sides.itertuples())
    lead = f"The break-even comparison rests on assumed prices per GPU-hour ({prices}), not on public ones"
    if not found:
        return (lead + ".",)
    kinds = " or ".join(sorted(set(public["price_kind"].astype(str))))
    return (
        lead + f"; at the public prices this chapter takes (the lowest {kinds} price of each accelerator), "
        f"another system is cheaper per token than both at those assumed prices in {len(found)} of "
        f"{cases} scenarios. The cheapest at those prices, scenario by scenario: " + "; ".join(found) + ".",
    )


def price_sentences(setting: PriceSetting, pricing_kind: str) -> tuple[str, ...]:
    """What the prices used are, from the table and the chapter's assumptions (never typed): the
    families priced by an assumption for want of a public price, what the others take, and each
    assumption a public price set aside."""
    from claimbook.inputs.prices import ASSUMED

    chosen = setting.chosen
    assumed = chosen[chosen["pricing"] == ASSUMED]
    dates = sorted(set(setting.prices["as_of"].astype(str)))
    when = f" (prices as of {dates[0]}{f' to {dates[-1]}' if len(dates) > 1 else ''})" if dates else ""
    said = []
    if not assumed.empty:
        families = list(assumed["family"])
        named = " or ".join([", ".join(families[:-1]), families[-1]] if len(families) > 1 else families)
        listed = ", ".join(f"{row.family} at {usd(row.usd_per_gpu_hour)}" for row in assumed.itertuples())
        said.append(
            f"The price table{when} has no public price for {named}: the prices used ({listed} per "
            "GPU-hour) are assumptions of this book, not quotes."
        )
    if len(assumed) < len(chosen):
        said.append(
            f"{'Every other' if not assumed.empty else 'Every'} accelerator takes the lowest public price "
            f"of the table, of the {pricing_kind} kind where it has one."
        )
    said += [
        f"The price assumed for {family} ({usd(price)} per GPU-hour) is set aside: the table has a public "
        "price for it, and a public price stands where one exists."
        for family, price in setting.set_aside
    ]
    return tuple(said)


def power_sentences(results: pd.DataFrame, used_locations=None) -> tuple[str, ...]:
    """What each round's summary says of MLPerf's measured power (its ``has_power`` flag), one
    sentence a round, oldest first: how many of its results have one and, given the results a
    page's energy figures use (``used_locations``), how many of those do. Never typed: a round
    with power results says so, and the board-power figures say they are not those."""
    from claimbook.inputs.earlier import round_order

    used = None if used_locations is None else set(used_locations)
    said = []
    for round_name in sorted(set(results["round"].astype(str)), key=round_order):
        rows = results[results["round"].astype(str) == round_name]
        measured = rows[rows["has_power"].astype(bool)]
        # "marks": a summary without the has_power column marks none, which is all it says.
        sentence = (
            f"The summary of MLPerf Inference {round_name} marks "
            f"{'none' if measured.empty else count(len(measured))} of its {plural(len(rows), 'result')} as "
            "having an MLPerf power result (has_power)"
        )
        if measured.empty:
            said.append(sentence + ".")
            continue
        if used is not None:
            among = int(measured["location"].isin(used).sum())
            sentence += (
                "; none of them is among the results here"
                if among == 0
                else f"; {count(among)} of them {'is' if among == 1 else 'are'} among the results here, whose "
                "energy figures use the stated board power all the same"
            )
        said.append(sentence + ".")
    return tuple(said)
