"""The metric ``efficiency`` of a leadership claim: a scaling pair against every other pair, under
each definition of the field; pairs above linear are shown and left out."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.core import Case, Data, SelectionError, cannot_check, several
from claimbook.engine.efficiency import pair_label, scaling_pairs
from claimbook.engine.kinds._leading_common import LeadCase, lead, verdict_of
from claimbook.engine.kinds.scaling import configurations, in_division, margin_of, superlinear


def validate_efficiency(claim: Claim) -> None:
    for name in ("small", "large", "definitions", "benchmark"):
        if not claim.get(name):
            kinds.fail(
                claim,
                name,
                "a leading-efficiency claim names its benchmark, its pair (small, large) and its definitions",
            )
    for index, definition in enumerate(claim.get("definitions")):
        if (
            not isinstance(definition, dict)
            or not definition.get("label")
            or not ("beyond_gpus" in definition or definition.get("scale_out"))
        ):
            kinds.fail(
                claim,
                f"definitions[{index}]",
                "each definition has a label and beyond_gpus: N or scale_out: true",
            )


# -- metric efficiency: a scaling pair against every other scaling pair ------------------------


def check_efficiency(claim: Claim, data: Data):
    small, large, missing = configurations(claim, data)
    if missing is not None:
        return missing
    margin = margin_of(claim)
    pairs = scaling_pairs(in_division(claim, data))
    pairs = pairs.assign(efficiency_percent=100 * pairs["efficiency"])
    pairs = pairs.assign(superlinear=[superlinear(value, margin) for value in pairs["efficiency_percent"]])
    own = pairs[
        pairs["small_location"].isin(set(small["location"]))
        & pairs["large_location"].isin(set(large["location"]))
    ]
    if own.empty:
        return cannot_check(claim, "The two configurations do not form a scaling pair in the data.")
    # Other submissions only: the same racks measured from another starting size are not rivals.
    rivals = pairs[~pairs["large_location"].isin(set(large["location"]))]
    flagged = rivals[rivals["superlinear"]]
    eligible = rivals.drop(flagged.index)
    named = list(claim.get("scenarios") or own["scenario"])
    found = kinds.Findings(
        codes={"derived-metric"},
        used=[
            small[small["location"].isin(set(own["small_location"]))],
            large[large["location"].isin(set(own["large_location"]))],
        ],
    )
    readings, context = {}, []
    for definition in claim.get("definitions"):
        readings[definition["label"]] = _definition_cases(
            claim, definition, eligible, own, (small, large), named, context, found
        )
    _flagged(flagged, own, named, margin, found)
    tables = {"pairs": pairs.assign(own=pairs.index.isin(own.index))}
    return verdict_of(claim, readings, found, tables, context)


def _definition_cases(
    claim: Claim,
    definition: dict,
    eligible,
    own,
    configurations,
    named,
    context: list,
    found: kinds.Findings,
) -> list[Case]:
    """One definition's cases: the claim's pair against the best eligible pair of each scenario;
    a scenario the claim does not name goes to ``context`` (a caveat in ``found`` where the pair
    trails there)."""
    if "beyond_gpus" in definition:
        field = eligible[eligible["large_gpus"] > int(definition["beyond_gpus"])]
    else:
        field = eligible[eligible["large_nodes"] > eligible["small_nodes"]]
    cases = []
    for scenario in list(dict.fromkeys(list(named) + list(own["scenario"]))):
        mine = own[own["scenario"] == scenario]
        if mine.empty:
            continue
        if len(mine) > 1:
            raise SelectionError(_several_pairs(claim, mine, configurations, scenario))
        mine = mine.iloc[0]
        case = _efficiency_case(
            f"{definition['label']} · {scenario}", scenario, mine, field[field["scenario"] == scenario]
        )
        if scenario in named:
            cases.append(case)
            continue
        context.append(replace(case, reaches=None))
        if case.reaches is False:
            found.codes.add("other-scenarios")
            found.notes.append(
                f"In {scenario}, which the claim does not name, {case.detail.leader} leads under "
                f'"{definition["label"]}" ({pair_label(mine)} at {formatting.quantity(case.measured, "%")})'
            )
    return cases


def _several_pairs(claim: Claim, mine: pd.DataFrame, configurations, scenario: str) -> str:
    small, large = configurations
    locations = set(mine["large_location"]) | set(mine["small_location"])
    both = pd.concat([large[large["location"].isin(locations)], small[small["location"].isin(locations)]])
    return several(claim, "small and large", both, f"the {scenario} scaling pair")


def _efficiency_case(label: str, scenario: str, mine: pd.Series, theirs: pd.DataFrame) -> Case:
    """The claim's pair against the most efficient of ``theirs`` (none: a case with no rival)."""
    theirs = theirs.sort_values(["efficiency", "large_location"], ascending=[False, True])
    if theirs.empty:
        return lead(label, scenario, (None, "%", None), (mine["large_location"],), LeadCase(uncontested=True))
    top = theirs.iloc[0]
    leads = mine["efficiency_percent"] >= top["efficiency_percent"]
    # Every pair ahead, best first: a "behind" names them all (or their count and the best few).
    ahead = tuple(
        f"{pair_label(pair)} at {formatting.quantity(pair['efficiency_percent'], '%')}"
        for _, pair in theirs[theirs["efficiency_percent"] > mine["efficiency_percent"]].iterrows()
    )
    detail = LeadCase(
        leader=pair_label(top) + f" at {formatting.quantity(top['efficiency_percent'], '%')}"
        if not leads
        else pair_label(mine),
        ahead=ahead,
        next=pair_label(top),
        next_value=float(top["efficiency_percent"]),
        subject_value=float(mine["efficiency_percent"]),
        units="% efficiency",
    )
    evidence = (mine["large_location"], mine["small_location"], top["large_location"])
    return lead(label, scenario, (float(mine["efficiency_percent"]), "%", leads), evidence, detail)


def _flagged(flagged: pd.DataFrame, own: pd.DataFrame, named, margin: float, found: kinds.Findings) -> None:
    """Pairs above linear (plus the margin), left out of the field: said, and a caveat where one
    would beat the claim's pair in a scenario it names."""
    if any(
        row["scenario"] in named
        and row["efficiency_percent"]
        > float(own[own["scenario"] == row["scenario"]]["efficiency_percent"].max())
        for _, row in flagged.iterrows()
    ):
        found.codes.add("superlinear-baseline")
    if flagged.empty:
        return
    highest = flagged.sort_values("efficiency_percent", ascending=False, kind="stable").head(3)
    found.notes.append(
        f"{formatting.plural(len(flagged), 'pair')} above {formatting.stated(100 + margin, '%')} efficiency {'is' if len(flagged) == 1 else 'are'} "
        "shown but left out of the field"
        + (f"; the highest {len(highest)}: " if len(flagged) > len(highest) else ": ")
        + "; ".join(
            f"{pair_label(row)} {row['scenario']} {formatting.quantity(row['efficiency_percent'], '%')}"
            for _, row in highest.iterrows()
        )
    )


# -- the charts of each metric ----------------------------------------------------------------


def efficiency_scatters(check, data: Data) -> list:
    """Every scaling pair's efficiency in each scenario of the claim, its own pair drawn large."""
    pairs = check.tables.get("pairs")
    if pairs is None or pairs.empty:
        return []
    own = pairs[pairs["own"]]
    scenarios = list(dict.fromkeys(case.scenario for case in check.cases if case.scenario))
    return [
        kinds.EfficiencyScatter(
            pairs,
            scenario,
            f"Scaling efficiency of every pair, {scenario}",
            "Scatter plot of every scaling pair's efficiency against the larger configuration's "
            "GPU count; the claim's pair is drawn large.",
            highlight=list(zip(own["small_location"], own["large_location"])),
        )
        for scenario in scenarios
    ]
