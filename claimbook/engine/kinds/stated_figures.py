"""Kind ``stated-figures``: a table an announcement states, entry by entry (system, benchmark,
scenario, figure), judged as one claim with every row shown.

``entries`` lists the table's entries: each has a ``label`` (the entry's result ID as the
announcement gives it), a ``subject`` selector (its system), optionally its ``division``, and
``figures``, ``{benchmark: {scenario: figure}}``. Each figure is checked like a stated figure, at
the precision it is stated with (written as text, "12,198.80", it keeps its trailing zeros).
``listed: result-ids`` instead checks the benchmarks the announcement lists for each of its
result IDs (the book's table of result IDs, ``data/result_ids.csv``): each must have a result of
the entry's system. A figure more favourable than the published result beyond its precision, or a
listed benchmark with no result, makes the table *not supported*; rows the data cannot tie to a
result are shown and flagged.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import validate as validate_selector
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Check,
    Data,
    best_row,
    cannot_check,
    gpus_said,
    rows_of,
    select_for,
    where,
)
from claimbook.engine.kinds._skeleton import Measuring
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED, gap_percent
from claimbook.engine.verdict import stated_figure as parse_figure
from claimbook.inputs.schema import SCENARIOS

LISTED = ("result-ids",)
TABLE_COLUMNS = ("entry", "system", "benchmark", "scenario", "stated", "published", "units", "gap", "holds")


@dataclass(frozen=True)
class StatedCase(CaseDetail):
    """One row of the stated table: the gap of the stated figure to the published result (or,
    for a listed benchmark, the results found), the system, or why there is nothing to measure."""

    note: str = ""
    gap_percent: float = 0.0
    exact: bool = False  # the published result at the precision stated
    system: str = ""
    division: str = ""
    either_division: int = 0  # results of the system in the benchmark, in either division
    gpus: str = ""  # the system's GPU count in words, wherever a sentence names it


SPEC = kinds.KindSpec(
    name="stated-figures",
    description="a table of figures an announcement states (entry, benchmark, scenario, figure), one verdict",
    required=(),
    optional=(
        kinds.Field(
            "entries",
            "the table's entries: each a label, a subject selector, a division and figures {benchmark: {scenario: figure}}",
        ),
        kinds.Field(
            "listed",
            "instead of entries: the benchmarks the announcement lists for each result ID",
            {
                "result-ids": "each listed benchmark must have a result of the system the ID is (data/result_ids.csv)"
            },
        ),
        kinds.DIVISION,
        kinds.TOLERANCE,
    ),
    example={
        "id": "acme-table",
        "title": "The figures of Acme's table",
        "statement": "Acme's table gives its entry's Server and Offline figures on gpt-oss-120b.",
        "kind": "stated-figures",
        "entries": [
            {
                "label": "6.1-0001",
                "subject": {"organization": "Acme", "system": "Acme-B300"},
                "figures": {"gpt-oss-120b": {"Server": "12,198.80", "Offline": "15,000"}},
            }
        ],
    },
    detail=StatedCase,
    columns=(*kinds.CASE_COLUMNS[:4], kinds.Column("System", "detail.system"), kinds.CASE_COLUMNS[4]),
    tables={"every_row": kinds.Table("Every row of the table the claim states, as checked")},
)


def validate(claim: Claim) -> None:
    entries, listed = claim.get("entries"), claim.get("listed")
    if (entries is None) == (listed is None):
        kinds.fail(
            claim,
            "entries",
            "a stated-figures claim has either entries (figures per entry) or listed: result-ids",
        )
    if listed is not None and listed not in LISTED:
        kinds.fail(claim, "listed", f"one of {', '.join(LISTED)}")
    if entries is None:
        return
    if not isinstance(entries, list) or not entries:
        kinds.fail(claim, "entries", "a list of {label, subject, figures: {benchmark: {scenario: figure}}}")
    for index, entry in enumerate(entries):
        where = f"entries[{index}]"
        if (
            not isinstance(entry, dict)
            or not entry.get("label")
            or not isinstance(entry.get("subject"), dict)
        ):
            kinds.fail(claim, where, "each entry has a label and a subject selector")
        unknown = sorted(set(entry) - {"label", "subject", "figures", "division"})
        if unknown:
            kinds.fail(claim, f"{where}.{unknown[0]}", "an entry has label, subject, figures and division")
        validate_selector(entry["subject"], f"{claim.where}: field {where}.subject")
        figures = entry.get("figures")
        if not isinstance(figures, dict) or not figures:
            kinds.fail(claim, f"{where}.figures", "expected {benchmark: {scenario: figure}}")
        for benchmark, scenarios in figures.items():
            if not isinstance(scenarios, dict) or not scenarios:
                kinds.fail(claim, f"{where}.figures.{benchmark}", "expected {scenario: figure}")
            for scenario, value in scenarios.items():
                if scenario not in SCENARIOS:
                    kinds.fail(
                        claim,
                        f"{where}.figures.{benchmark}",
                        f"unknown scenario {scenario!r}; one of {', '.join(SCENARIOS)}",
                    )
                try:
                    number, _ = parse_figure(value)
                except ValueError:
                    number = None
                if number is None or number <= 0:
                    kinds.fail(
                        claim, f"{where}.figures.{benchmark}.{scenario}", f"a positive figure, not {value!r}"
                    )


class _StatedTable(Measuring):
    """A stated table, judged row by row as one claim (no reading of a quantifier beside it)."""

    def rows(self, found) -> pd.DataFrame:
        return rows_of(found.used)

    def context(self, claim: Claim, data: Data, found, judged: list, verdict: str) -> list:
        return []


class _Figures(_StatedTable):
    """Each entry's figures against the published results, at the precision stated."""

    def gather(self, claim: Claim, data: Data, subject, found) -> None:
        for entry in claim.get("entries"):
            label = str(entry["label"])
            extra = {"division": entry["division"]} if entry.get("division") else None
            selected, why = select_for(data, claim, entry["subject"], f"entry {label}", extra)
            if why:
                found.missing.append(why)
            for benchmark, scenarios in entry["figures"].items():
                for scenario, written in scenarios.items():
                    case, published = _figure_case(
                        claim, data, selected, entry, (benchmark, scenario), written
                    )
                    found.cases.append(case)
                    found.table.append(_table_row(entry, benchmark, scenario, written, case))
                    if published is not None:
                        found.used.append(pd.DataFrame([published]))

    def tables(self, claim: Claim, found) -> dict:
        return {"every_row": pd.DataFrame(found.table, columns=list(TABLE_COLUMNS))}

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict) -> Check:
        reason = "None of the entries' figures has a published result in the data."
        return cannot_check(claim, reason, missing=found.missing, tables=tables)

    def caveats(self, claim: Claim, data: Data, found, judged: list) -> tuple[set, list]:
        codes, notes = super().caveats(claim, data, found, judged)  # incomplete-data: a row unpublished
        if any(case.reaches and not case.detail.exact for case in judged):
            codes.add("understated")
        return codes, notes

    def judge(self, claim: Claim, found, judged: list, codes: set, notes: list) -> tuple[str, str, str]:
        exact = [case for case in judged if case.detail.exact]
        failing = [case for case in judged if not case.reaches]
        understating = [case for case in judged if case.reaches and not case.detail.exact]
        absent = [case for case in found.cases if case.measured is None]
        sentences = [
            f"{len(exact)} of the {len(found.cases)} figures stated are the published results at the precision stated"
        ]
        if failing:
            sentences.append("more favourable than the published result: " + _listing(failing))
        if understating:
            sentences.append("below the published result (the table understates): " + _listing(understating))
        if absent:
            sentences.append("no published result: " + "; ".join(case.label for case in absent))
        verdict = NOT_SUPPORTED if failing else SUPPORTED
        return verdict, "; ".join(sentences) + ".", (failing or [_worst(judged)])[0].label

    def summary(self, claim: Claim, found, judged: list) -> str:
        worst = _worst(judged)
        exact = sum(1 for case in judged if case.detail.exact)
        summary = f"{exact} of {len(found.cases)} figures as published"
        if not worst.detail.exact:
            summary += f"; largest gap {formatting.signed_percent(worst.detail.gap_percent)} ({worst.label})"
        return summary


def _worst(judged: list[Case]) -> Case:
    """The figure furthest from its published result."""
    return max(judged, key=lambda case: (abs(case.detail.gap_percent), case.label))


def _figure_case(claim: Claim, data: Data, subject, entry: dict, at: tuple, written):
    """One stated figure, at (benchmark, scenario), against the published result: its case and
    the result used."""
    benchmark, scenario = at
    stated, decimals = parse_figure(written)
    row = best_row(where(subject, benchmark=benchmark, scenario=scenario))
    case_label = f"{entry['label']} · {data.reference.display_name(benchmark)} · {scenario}"
    if row is None:
        return kinds.unmeasured(
            case_label, scenario, stated, "", StatedCase(note="no published result")
        ), None
    measured = float(row["result"])
    # Each row is a published figure as the announcement writes it: "exactly", at its precision.
    judgment = quantifiers.judge(
        quantifiers.read(claim),
        measured,
        quantifiers.Figure(stated, decimals),
        "",
        bool(row["higher_is_better"]),
    )
    gap = 0.0 if judgment.exact else gap_percent(stated, measured)
    system = f"{row['organization']} {row['system']}"
    detail = StatedCase(gap_percent=gap, exact=judgment.exact, system=system)
    evidence = (row["location"],)
    return Case(
        case_label, scenario, measured, stated, str(row["units"]), judgment.holds, evidence, detail=detail
    ), row


def _table_row(entry: dict, benchmark: str, scenario: str, written, case: Case) -> dict:
    """A stated figure's row of the table the card shows: as the announcement states it, and as checked."""
    measured = case.measured is not None
    return {
        "entry": str(entry["label"]),
        "system": " ".join(str(value) for value in entry["subject"].values()),
        "benchmark": benchmark,
        "scenario": scenario,
        "stated": str(written),
        "published": case.measured,
        "units": case.unit,
        "gap": formatting.signed_percent(case.detail.gap_percent, 2) if measured else None,
        "holds": kinds.HOLDS[case.reaches and case.detail.exact if measured else None],
    }


def _listing(cases) -> str:
    return "; ".join(
        f"{case.label} stated {formatting.quantity(case.claimed)}, published {formatting.quantity(case.measured, case.unit)} "
        f"({formatting.signed_percent(case.detail.gap_percent)})"
        for case in cases
    )


class _Listed(_StatedTable):
    """Each benchmark listed for a result ID, against the results of the system the ID is."""

    row_codes = ("preview", "rdi", "open-division")

    def gather(self, claim: Claim, data: Data, subject, found) -> Check | None:
        ids = data.result_ids
        if ids is None or ids.empty:
            return cannot_check(claim, "The book has no table of result IDs (data/result_ids.csv).")
        announcement = data.announcement(claim)
        for _, entry in ids[
            (ids["stated_by"] == announcement.id) & (ids["round"] == announcement.round)
        ].iterrows():
            self._entry(claim, data, entry, found)
        return None

    def _entry(self, claim: Claim, data: Data, entry: pd.Series, found) -> None:
        """One result ID's listed benchmarks: a case and a table row each."""
        system = str(entry.get("system") or "").strip()
        rows = pd.DataFrame()
        if system:
            selector = {"organization": str(entry["organization"]), "system": system}
            division = {"division": str(entry["division"] or "closed")}
            rows, _ = select_for(data, claim, selector, f"entry {entry['id']}", division)
        for benchmark in [name for name in str(entry["benchmarks"]).split(";") if name]:
            results = where(rows, benchmark=benchmark) if not rows.empty else rows
            found.cases.append(_listed_case(data, entry, system, benchmark, results))
            if system:
                found.used.append(results)
            found.table.append(
                {
                    "entry": entry["id"],
                    "system": f"{entry['organization']} {system or '(not stated)'}",
                    "division": entry["division"],
                    "benchmark": benchmark,
                    "results": None if not system else len(results),
                    "holds": kinds.HOLDS[found.cases[-1].reaches],
                }
            )

    def tables(self, claim: Claim, found) -> dict:
        return {"every_row": pd.DataFrame(found.table)}

    def judged(self, claim: Claim, found) -> list:
        return [case for case in found.cases if case.reaches is not None]

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict) -> Check:
        return cannot_check(claim, "No result ID of the announcement is tied to a system.", tables=tables)

    def judge(self, claim: Claim, found, judged: list, codes: set, notes: list) -> tuple[str, str, str]:
        failing = [case for case in judged if not case.reaches]
        untied = len(found.cases) - len(judged)
        sentences = [
            (
                f"{len(judged) - len(failing)} of the {len(judged)} benchmarks listed for an entry the book ties to "
                "a system have a result of that system"
            )
        ]
        if failing:
            sentences.append(
                "no result of the system in "
                + "; ".join(
                    f"{case.label} ({case.detail.system} ({case.detail.gpus}), {case.detail.division} division"
                    + (", none in the other division either" if not case.detail.either_division else "")
                    + ")"
                    for case in failing
                )
            )
        if untied:
            sentences.append(f"{untied} listed for IDs the announcement ties to no one system are not judged")
        verdict = NOT_SUPPORTED if failing else SUPPORTED
        return verdict, "; ".join(sentences) + ".", (failing or judged)[0].label

    def summary(self, claim: Claim, found, judged: list) -> str:
        failing = sum(1 for case in judged if not case.reaches)
        return f"{len(judged) - failing} of {len(judged)} listed benchmarks found"


def _listed_case(data: Data, entry: pd.Series, system: str, benchmark: str, found: pd.DataFrame) -> Case:
    """One listed benchmark of a result ID: the results of its system found there."""
    label = f"{entry['id']} · {data.reference.display_name(benchmark)}"
    if not system:
        note = f"the announcement does not say which {entry['organization']} system the ID is"
        return Case(label, "", None, None, "results", None, detail=StatedCase(note=note))
    elsewhere = where(
        data.results, organization=str(entry["organization"]), system=system, benchmark=benchmark
    )
    of_system = where(data.results, organization=str(entry["organization"]), system=system)
    detail = StatedCase(
        system=f"{entry['organization']} {system}",
        division=entry["division"],
        either_division=len(elsewhere),
        gpus=gpus_said(of_system.iloc[0]) if not of_system.empty else "GPU count not stated",
    )
    evidence = tuple(found["location"]) if not found.empty else ()
    return Case(label, "", float(len(found)), None, "results", not found.empty, evidence, detail=detail)


def check(claim: Claim, data: Data) -> Check:
    return (_LISTED if claim.get("listed") is not None else _FIGURES).check(claim, data)


_FIGURES, _LISTED = _Figures(), _Listed()


def charts(check, data: Data) -> list:
    """Each row of a stated table: the stated figure's gap to the published result (0 when it is
    the published result at its precision), or the results found for each listed benchmark."""
    listed = check.claim.get("listed") is not None
    bars = tuple(
        kinds.Bar(
            case.label,
            case.measured if listed else case.detail.gap_percent,
            case.claimed,
            case.reaches,
            str(case.detail.system),
        )
        for case in check.cases
        if case.measured is not None
    )
    if not bars:
        return []
    if listed:
        return [
            kinds.CaseBars(
                bars,
                "Results of each entry's system on each benchmark listed",
                "Bar chart of the number of published results of the entry's system on each benchmark the "
                "announcement lists for it; a benchmark with none does not hold.",
                "results",
            )
        ]
    return [
        kinds.CaseBars(
            bars,
            "Each stated figure against the published result",
            "Bar chart of the gap, in percent, between each figure the announcement states and the published "
            "result (0 where the figure is the result at its stated precision); the dashed line marks the "
            "published result.",
            "%",
            0.0,
            "published",
        )
    ]
