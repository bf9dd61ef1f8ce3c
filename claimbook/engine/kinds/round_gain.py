"""Kind ``round-gain``: one system's gain from an earlier round to the current one.

The current figure is the system's published result; the earlier one comes from the cross-round
table, the strongest source first. A figure the announcement itself states for the earlier round
(its ``stated`` block) is evidence of the weakest kind and is flagged as a vendor figure; an
earlier figure from another division is flagged too. An earlier figure that names no system
cannot be set against a result of a named system. A gain from a figure of the other division
(Open against Closed) is shown but not judged: MLCommons does not compare the divisions.
"""

from __future__ import annotations

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine.core import (
    Case,
    Data,
    across_divisions,
    benchmarks_of,
    best_row,
    cannot_check,
    chosen,
    claimed_for,
    finish,
    pick,
    scenarios_of,
    select_for,
    within_divisions,
)
from claimbook.engine.kinds.ratio import metric_change
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED, matches, reaches
from claimbook.inputs.earlier import SOURCE_TYPES, UNSPECIFIED_SYSTEM

KIND = "round-gain"
REQUIRED = ("benchmark", "subject", "from_round", "claimed", "form")
OPTIONAL = ("scenarios", "unit", "stated", "stated_current", "earlier", "tolerance", "division")
SELECTORS = ("subject",)
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ("subject",)
EACH = ()
SUMS = ()
FORMS = ("up-to", "each")


def validate(claim: Claim, fail) -> None:
    if claim.get("form") not in FORMS:
        fail("form", f"a round gain is one of {', '.join(FORMS)}")
    if claim.get("unit", "x") not in ("x", "%"):
        fail("unit", "a gain is in x (times) or % (improvement in percent)")
    stated = claim.get("stated")
    if stated is not None:
        if (
            not isinstance(stated, dict)
            or not stated.get("round")
            or not isinstance(stated.get("figures"), dict)
        ):
            fail("stated", "expected {round, figures: {scenario: value}, result_id, division, gpus, units}")
        for scenario, value in stated["figures"].items():
            if not isinstance(value, (int, float)) or value <= 0:
                fail(f"stated.figures.{scenario}", "a stated figure is a positive number")


def _measured(gain: float, unit: str) -> float:
    return gain if unit == "x" else 100.0 * (gain - 1.0)


def _earlier_rows(data: Data, claim: Claim, current: pd.Series, scenario: str) -> pd.DataFrame:
    earlier = data.earlier
    if earlier.empty:
        return earlier
    wanted = claim.get("earlier") or {}
    organization = wanted.get("organization", current["organization"])
    benchmark = current["benchmark"]
    models = earlier["model"].map(data.reference.benchmark)
    return earlier[
        (earlier["round"] == str(claim.get("from_round")))
        & (earlier["organization"] == organization)
        & (models == benchmark)
        & (earlier["scenario"] == scenario)
    ]


def check(claim: Claim, data: Data):
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return cannot_check(
            claim,
            f"The system is not in the current round's data: {subject_missing}.",
            missing_texts=[subject_missing],
        )
    benchmark = benchmarks_of(claim)[0]
    subject = subject[subject["benchmark"] == benchmark]
    unit, form, from_round = claim.get("unit", "x"), claim.get("form"), str(claim.get("from_round"))
    system_wanted = (claim.get("earlier") or {}).get("system")
    cases, used, codes, notes, table, headlines = [], [], set(), [], [], []
    for scenario in scenarios_of(claim, subject["scenario"]):
        claimed = (
            claimed_for(claim, scenario)
            if form == "each"
            else (None if claim.claimed is None else float(claim.claimed))
        )
        current = pick(
            subject[subject["scenario"] == scenario],
            claim.get("subject"),
            "subject",
            claim,
            f"{benchmark} {scenario}",
        )
        if current is None:
            cases.append(
                Case(
                    scenario, scenario, None, claimed, unit, None, extra={"note": f"no {scenario} result now"}
                )
            )
            continue
        candidates = _earlier_rows(data, claim, current, scenario)
        system = system_wanted or current["system"]
        named = candidates[candidates["system"] == system]
        sized = named[named["total_accelerators"].notna()] if not named.empty else named
        headline = candidates[
            (candidates["system"] == UNSPECIFIED_SYSTEM) | candidates["total_accelerators"].isna()
        ]
        headlines.append(headline)
        if named.empty:
            note = f"no {from_round} figure of {system}"
            if not headline.empty:
                note += "; only figures without a system size"
            cases.append(Case(scenario, scenario, None, claimed, unit, None, extra={"note": note}))
            continue
        earlier = (sized if not sized.empty else named).iloc[0]  # the table is ordered strongest source first
        others = named.drop(index=earlier.name)
        if current["units"] != earlier["units"]:
            cases.append(
                Case(
                    scenario,
                    scenario,
                    None,
                    claimed,
                    unit,
                    None,
                    extra={"note": f"{from_round} in {earlier['units']}, now {current['units']}"},
                )
            )
            continue
        higher = bool(current["higher_is_better"])
        gain = current["result"] / earlier["result"] if higher else earlier["result"] / current["result"]
        measured = _measured(gain, unit)
        crossed = across_divisions(earlier["division"], current["division"])
        holds = None if claimed is None or crossed else reaches(measured, claimed, claim.tolerance)
        source = earlier["source_type"]
        if source == "vendor-announcement":
            codes.add("vendor-source")
        if pd.isna(earlier["total_accelerators"]):
            codes.add("no-system-size")
        if crossed:
            codes.update({"open-division", "cross-division"})
            notes.append(
                f"The {from_round} {scenario} figure is from the {earlier['division'].capitalize()} division, "
                f"the {current['round']} one from the {current['division'].capitalize()} division"
            )
        for _, other in others.iterrows():
            agree = (
                "agrees"
                if matches(other["result"], earlier["result"])
                or abs(other["result"] / earlier["result"] - 1) < 1e-9
                else "differs"
            )
            notes.append(
                f"The {from_round} {scenario} figure {formatting.quantity(earlier['result'])} ({SOURCE_TYPES[source]}"
                f"{', ID ' + earlier['result_id'] if earlier['result_id'] else ''}) {agree} with "
                f"{formatting.quantity(other['result'])} from {SOURCE_TYPES[other['source_type']]}"
                f"{' (ID ' + other['result_id'] + ')' if other['result_id'] else ''}"
            )
        cases.append(
            Case(
                scenario,
                scenario,
                measured,
                claimed,
                unit,
                holds,
                (current["location"],),
                {
                    "from_result": float(earlier["result"]),
                    "to_result": float(current["result"]),
                    "speedup": gain,
                    "metric_change": metric_change(current["result"], earlier["result"]),
                    "metric": str(current["metric"]),
                    "higher_is_better": higher,
                    "units": current["units"],
                    "from_source": source,
                    "from_division": earlier["division"],
                    "cross_division": crossed,
                },
                chosen("subject", current),
            )
        )
        used.append(pd.DataFrame([current]))
        table.append(
            {
                "scenario": scenario,
                "from_round": from_round,
                "to_round": current["round"],
                "from_result": earlier["result"],
                "to_result": current["result"],
                "units": current["units"],
                "gain": gain,
                "change_percent": metric_change(current["result"], earlier["result"]),
                "evidence": source,
                "from_source": earlier["source"],
                "to_source": current["location"],
            }
        )
    rows = pd.concat(used) if used else pd.DataFrame()
    known = pd.concat(headlines) if headlines else pd.DataFrame()
    tables = {"gains": pd.DataFrame(table), "headline_figures": known}
    _check_stated_current(claim, subject, codes, notes)
    measured_cases = [case for case in cases if case.measured is not None]
    if not measured_cases:
        reason = (
            f"No {from_round} result of the same system is in the data the book has "
            f"({'; '.join(case.label + ': ' + case.extra.get('note', '') for case in cases)})."
        )
        if not known.empty:
            listed = "; ".join(
                f"{row.scenario} {formatting.quantity(row.result, row.units)}" for row in known.itertuples()
            )
            reason += (
                f" The {from_round} figures known for this benchmark are headline numbers without a system "
                f"({listed}); they cannot be set against the result of a named system."
            )
            codes.add("no-system-size")
        return cannot_check(claim, reason, tables=tables, codes=codes)
    if len(measured_cases) < len(cases):
        codes.add("incomplete-data")
    spread = ", ".join(
        f"{case.label} {formatting.case_figure(case.measured, unit)} ({formatting.quantity(case.extra['from_result'])} → "
        f"{formatting.quantity(case.extra['to_result'])} {case.extra['units']})"
        if case.extra["higher_is_better"]
        else f"{case.label} {formatting.case_figure(case.measured, unit)}, that is {_speedup_text(case)}"
        for case in measured_cases
    )
    # A gain on a lower-is-better metric is a speedup and a fall of the metric, never a rise.
    summary = "; ".join(
        f"{case.label} {formatting.case_figure(case.measured, unit)}: {_speedup_text(case)}"
        for case in measured_cases
        if not case.extra["higher_is_better"]
    )
    across, measured_cases = within_divisions(
        claim,
        measured_cases,
        spread,
        cases=cases,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        summary=summary,
    )
    if across is not None:
        return across
    if form == "up-to":
        best = max(measured_cases, key=lambda case: (case.measured, case.label))
        if not best.reaches:
            return finish(
                claim,
                NOT_SUPPORTED,
                f"No scenario reaches the claimed {formatting.case_figure(claim.claimed, unit)}: {spread}.",
                cases=cases,
                deciding=best.label,
                rows=rows,
                codes=codes,
                notes=notes,
                tables=tables,
                summary=summary,
            )
        if any(not case.reaches for case in measured_cases):
            codes.add("best-case-only")
        if not matches(best.measured, float(claim.claimed), claim.tolerance):
            codes.add("understated")
        return finish(
            claim,
            SUPPORTED,
            f"The best case, {best.label}, reaches the claimed {formatting.case_figure(claim.claimed, unit)}: {spread}.",
            cases=cases,
            deciding=best.label,
            rows=rows,
            codes=codes,
            notes=notes,
            tables=tables,
            summary=summary,
        )
    judged = [case for case in measured_cases if case.claimed is not None]
    failing = [case for case in judged if not case.reaches]
    listed = ", ".join(
        f"{case.label} {formatting.case_figure(case.measured, unit)}"
        + ("" if case.extra["higher_is_better"] else f", that is {_speedup_text(case)}")
        + f" (claimed {formatting.case_figure(case.claimed, unit)})"
        for case in judged
    )
    if any(
        case.claimed is not None
        and not matches(case.measured, case.claimed, claim.tolerance)
        and case.reaches
        for case in judged
    ):
        codes.add("understated")
    verdict = NOT_SUPPORTED if failing else SUPPORTED
    deciding = (failing or judged or measured_cases)[0].label
    lead = "Not every scenario reaches its figure" if failing else "Every scenario reaches its figure"
    return finish(
        claim,
        verdict,
        f"{lead}: {listed}.",
        cases=cases,
        deciding=deciding,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        summary=summary,
    )


def _check_stated_current(claim: Claim, subject: pd.DataFrame, codes: set, notes: list) -> None:
    """The current-round figures the announcement states should be the published ones."""
    stated = claim.get("stated_current") or {}
    wrong = []
    for scenario, value in stated.items():
        row = best_row(subject[subject["scenario"] == scenario])
        if row is None:
            continue
        if not matches(float(row["result"]), float(value)):
            wrong.append(
                f"{scenario}: stated {formatting.quantity(float(value))}, published {formatting.quantity(float(row['result']))}"
            )
    if wrong:
        codes.add("detail-mismatch")
        notes.append(
            "The current-round figures the announcement states differ from the published ones ("
            + "; ".join(wrong)
            + ")"
        )
    elif stated:
        notes.append(
            f"The current-round figures the announcement states are the published ones ({', '.join(stated)})"
        )


def _speedup_text(case: Case) -> str:
    """ "1.70x as fast, latency -41.1% (27.4 s → 16.1 s)" """
    extra = case.extra
    return (
        formatting.gain(extra["speedup"], extra["metric_change"], extra["metric"], False)
        + f" ({formatting.result(extra['from_result'], extra['units'])} → {formatting.result(extra['to_result'], extra['units'])})"
    )
