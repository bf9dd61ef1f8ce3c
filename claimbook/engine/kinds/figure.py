"""Kind ``figure``: a figure the claim states for one system ("0.65 videos per second").

A stated figure holds when it is the published value at the precision it is stated with (the
published value rounds or truncates to it). Otherwise the reason gives the signed gap in
percent; a claim more favourable than the data is not supported, a claim less favourable than
the data is supported with the caveat that it understates.
"""

from __future__ import annotations

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine.core import (
    Case,
    Data,
    benchmarks_of,
    cannot_check,
    chosen,
    claimed_for,
    each_label,
    finish,
    label_of,
    pick,
    select_for,
)
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED, gap_percent, matches, reaches

KIND = "figure"
REQUIRED = ("benchmark", "subject", "scenarios", "claimed")
OPTIONAL = ("unit", "tolerance", "division", "scale")
SELECTORS = ("subject",)
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ("subject",)
EACH = ("subject",)
SUMS = ("subject",)


def validate(claim: Claim, fail) -> None:
    scale = claim.get("scale", 1)
    if not isinstance(scale, (int, float)) or scale <= 0:
        fail("scale", 'the claimed figure\'s unit in result units, e.g. 1000000 for "million"')
    claimed = claim.claimed
    if isinstance(claimed, dict):
        unknown = set(claimed) - set(claim.get("scenarios") or ())
        if unknown:
            fail(
                "claimed",
                f"figures for scenarios the claim does not name: {', '.join(sorted(map(str, unknown)))}",
            )
    elif not isinstance(claimed, (int, float)):
        fail("claimed", "a number, or {scenario: number}")


def same_figure(data: Data, claim: Claim, benchmark: str, scenario: str, claimed: float) -> pd.DataFrame:
    """Every published result of the benchmark and scenario that is the claimed figure as stated."""
    rows = data.results[(data.results["benchmark"] == benchmark) & (data.results["scenario"] == scenario)]
    scale = float(claim.get("scale", 1))
    return rows[[matches(value / scale, claimed, claim.tolerance) for value in rows["result"]]]


def check(claim: Claim, data: Data):
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return cannot_check(
            claim,
            f"The system the figure is about is not in the data: {subject_missing}.",
            missing_texts=[subject_missing],
        )
    benchmark = benchmarks_of(claim)[0]
    cases, used, sentences, context, codes, context_notes = [], [], [], [], set(), []
    each = (claim.get("subject") or {}).get("combine") == "each"
    for scenario in claim.get("scenarios"):
        claimed = claimed_for(claim, scenario)
        rows = subject[(subject["benchmark"] == benchmark) & (subject["scenario"] == scenario)]
        picked = (
            [row for _, row in rows.sort_values("location").iterrows()]
            if each and not rows.empty
            else [pick(rows, claim.get("subject"), "subject", claim, f"{benchmark} {scenario}")]
        )
        for row in picked:
            label = each_label(scenario, row, rows) if each else scenario
            _figure_case(
                claim, data, benchmark, scenario, label, claimed, row, cases, used, sentences, context
            )
            if cases[-1].reaches is False:  # a miss: does the figure belong to another system of the vendor?
                other = same_vendor_match(data, claim, row, benchmark, scenario, claimed)
                if other:
                    context_notes.append(other)
    failing = sum(1 for case in cases if case.reaches is False)
    understating = sum(1 for case in cases if case.reaches and case.extra.get("gap_percent"))
    rows = pd.concat(used) if used else pd.DataFrame()
    tables = {"same_figure": pd.concat(context) if context else pd.DataFrame()}
    measured_cases = [case for case in cases if case.measured is not None]
    if not measured_cases:
        return cannot_check(
            claim,
            f"The system has no published result in the {'scenario' if len(cases) == 1 else 'scenarios'} the claim names.",
            tables=tables,
        )
    if len(measured_cases) < len(cases):
        codes.add("incomplete-data")
    if understating:
        codes.add("understated")
    verdict = NOT_SUPPORTED if failing else SUPPORTED
    deciding = next((case.label for case in measured_cases if not case.reaches), measured_cases[0].label)
    return finish(
        claim,
        verdict,
        ". ".join(sentences) + ".",
        cases=cases,
        deciding=deciding,
        rows=rows,
        codes=codes,
        tables=tables,
        context=context_notes,
    )


def same_vendor_match(
    data: Data, claim: Claim, row: pd.Series, benchmark: str, scenario: str, claimed: float
) -> str:
    """For a stated figure that misses: the other systems of the same vendor, in the same round,
    division, benchmark and scenario, whose published result is the claimed figure as stated.
    Context for the reader (the figure may belong to another system), never support: the claim
    names its system."""
    matching = same_figure(data, claim, benchmark, scenario, claimed)
    matching = matching[
        (matching["vendor"].astype(str) == str(row["vendor"]))
        & (matching["division"] == row["division"])
        & (matching["location"] != row["location"])
    ].sort_values("location", kind="stable")
    if matching.empty:
        return ""
    scale = float(claim.get("scale", 1))
    listed = "; ".join(
        f"{label_of(other)}, {other['family']}, at {formatting.result(float(other['result']) / scale, claim.unit or '')}"
        for _, other in matching.iterrows()
    )
    return (
        f"For context, not support: the claimed {formatting.stated(claimed)} is the published {scenario} result of another "
        f"{row['vendor']} system in the round, {listed}; the claim names {label_of(row)}, at "
        f"{formatting.result(float(row['result']) / scale, claim.unit or '')}"
    )


def _figure_case(
    claim, data, benchmark, scenario, label, claimed, row, cases, used, sentences, context
) -> None:
    """One case of a figure claim: the published result against the claimed figure."""
    if row is None or claimed is None:
        cases.append(
            Case(
                label,
                scenario,
                None,
                claimed,
                claim.unit,
                None,
                extra={"note": f"no published {scenario} result of the system"},
            )
        )
        return
    measured = float(row["result"]) / float(claim.get("scale", 1))
    higher = bool(row["higher_is_better"])
    holds = reaches(measured, claimed, claim.tolerance, higher)
    exact = matches(measured, claimed, claim.tolerance)
    published = (
        f"The published {scenario} result of {label_of(row)} is {formatting.quantity(measured, claim.unit)}"
    )
    if exact:
        sentences.append(
            f"{published}, which is the claimed {formatting.stated(claimed)} at the precision stated"
        )
    else:
        gap = gap_percent(claimed, measured)
        favour = (gap > 0) == higher
        sentences.append(
            f"{published}; the claimed {formatting.stated(claimed)} is {formatting.percent(abs(gap))} {'above' if gap > 0 else 'below'} "
            f"it, {'in the claimant' if favour else 'against the claimant'}'s favour"
        )
    cases.append(
        Case(
            label,
            scenario,
            measured,
            claimed,
            claim.unit,
            holds,
            (row["location"],),
            {"gap_percent": 0.0 if exact else gap_percent(claimed, measured)},
            chosen("subject", row),
        )
    )
    used.append(pd.DataFrame([row]))
    context.append(same_figure(data, claim, benchmark, scenario, claimed).assign(claimed=claimed))
