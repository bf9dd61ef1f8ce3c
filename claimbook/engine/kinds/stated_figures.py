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

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import validate as validate_selector
from claimbook.common import formatting
from claimbook.engine.core import Case, Data, best_row, cannot_check, finish, rows_of, select_for
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED, gap_percent, matches, reaches
from claimbook.engine.verdict import stated_figure as parse_figure
from claimbook.inputs.schema import SCENARIOS

KIND = "stated-figures"
REQUIRED = ()
OPTIONAL = ("entries", "listed", "division", "tolerance")
SELECTORS = ()  # each entry's subject is checked in ``validate``
LISTED = ("result-ids",)
TABLE_COLUMNS = ("entry", "system", "benchmark", "scenario", "stated", "published", "units", "gap", "holds")


def validate(claim: Claim, fail) -> None:
    entries, listed = claim.get("entries"), claim.get("listed")
    if (entries is None) == (listed is None):
        fail("entries", "a stated-figures claim has either entries (figures per entry) or listed: result-ids")
    if listed is not None and listed not in LISTED:
        fail("listed", f"one of {', '.join(LISTED)}")
    if entries is None:
        return
    if not isinstance(entries, list) or not entries:
        fail("entries", "a list of {label, subject, figures: {benchmark: {scenario: figure}}}")
    for index, entry in enumerate(entries):
        where = f"entries[{index}]"
        if (
            not isinstance(entry, dict)
            or not entry.get("label")
            or not isinstance(entry.get("subject"), dict)
        ):
            fail(where, "each entry has a label and a subject selector")
        unknown = sorted(set(entry) - {"label", "subject", "figures", "division"})
        if unknown:
            fail(f"{where}.{unknown[0]}", "an entry has label, subject, figures and division")
        validate_selector(entry["subject"], f"{claim.where}: field {where}.subject")
        figures = entry.get("figures")
        if not isinstance(figures, dict) or not figures:
            fail(f"{where}.figures", "expected {benchmark: {scenario: figure}}")
        for benchmark, scenarios in figures.items():
            if not isinstance(scenarios, dict) or not scenarios:
                fail(f"{where}.figures.{benchmark}", "expected {scenario: figure}")
            for scenario, value in scenarios.items():
                if scenario not in SCENARIOS:
                    fail(
                        f"{where}.figures.{benchmark}",
                        f"unknown scenario {scenario!r}; one of {', '.join(SCENARIOS)}",
                    )
                try:
                    number, _ = parse_figure(value)
                except ValueError:
                    number = None
                if number is None or number <= 0:
                    fail(f"{where}.figures.{benchmark}.{scenario}", f"a positive figure, not {value!r}")


def check(claim: Claim, data: Data):
    if claim.get("listed") is not None:
        return _listed(claim, data)
    return _figures(claim, data)


def _figures(claim: Claim, data: Data):
    cases, used, table, missing_texts = [], [], [], []
    for entry in claim.get("entries"):
        label = str(entry["label"])
        extra = {"division": entry["division"]} if entry.get("division") else None
        subject, why = select_for(data, claim, entry["subject"], f"entry {label}", extra)
        if why:
            missing_texts.append(why)
        for benchmark, scenarios in entry["figures"].items():
            for scenario, written in scenarios.items():
                stated, decimals = parse_figure(written)
                rows = subject[(subject["benchmark"] == benchmark) & (subject["scenario"] == scenario)]
                row = best_row(rows)
                case_label = f"{label} · {data.reference.display_name(benchmark)} · {scenario}"
                if row is None:
                    cases.append(
                        Case(
                            case_label,
                            scenario,
                            None,
                            stated,
                            "",
                            None,
                            extra={"note": "no published result"},
                        )
                    )
                    table.append(_table_row(label, entry, benchmark, scenario, written, None, "", None, None))
                    continue
                measured = float(row["result"])
                higher = bool(row["higher_is_better"])
                exact = matches(measured, stated, claim.tolerance, decimals)
                holds = reaches(measured, stated, claim.tolerance, higher, decimals)
                gap = 0.0 if exact else gap_percent(stated, measured)
                cases.append(
                    Case(
                        case_label,
                        scenario,
                        measured,
                        stated,
                        str(row["units"]),
                        holds,
                        (row["location"],),
                        {
                            "gap_percent": gap,
                            "exact": exact,
                            "system": f"{row['organization']} {row['system']}",
                        },
                    )
                )
                table.append(
                    _table_row(
                        label,
                        entry,
                        benchmark,
                        scenario,
                        written,
                        measured,
                        row["units"],
                        gap,
                        holds and exact,
                    )
                )
                used.append(pd.DataFrame([row]))
    measured = [case for case in cases if case.measured is not None]
    tables = {"every_row": pd.DataFrame(table, columns=list(TABLE_COLUMNS))}
    if not measured:
        return cannot_check(
            claim,
            "None of the entries' figures has a published result in the data.",
            missing_texts=missing_texts,
            tables=tables,
        )
    exact = [case for case in measured if case.extra["exact"]]
    failing = [case for case in measured if not case.reaches]
    understating = [case for case in measured if case.reaches and not case.extra["exact"]]
    absent = [case for case in cases if case.measured is None]
    sentences = [
        f"{len(exact)} of the {len(cases)} figures stated are the published results at the precision stated"
    ]
    if failing:
        sentences.append("more favourable than the published result: " + _listing(failing))
    if understating:
        sentences.append("below the published result (the table understates): " + _listing(understating))
    if absent:
        sentences.append("no published result: " + "; ".join(case.label for case in absent))
    codes = set()
    if understating:
        codes.add("understated")
    if absent:
        codes.add("incomplete-data")
    worst = max(measured, key=lambda case: (abs(case.extra["gap_percent"]), case.label))
    summary = f"{len(exact)} of {len(cases)} figures as published"
    if not worst.extra["exact"]:
        summary += f"; largest gap {formatting.signed_percent(worst.extra['gap_percent'])} ({worst.label})"
    return finish(
        claim,
        NOT_SUPPORTED if failing else SUPPORTED,
        "; ".join(sentences) + ".",
        cases=cases,
        deciding=(failing or [worst])[0].label,
        rows=rows_of(used),
        codes=codes,
        tables=tables,
        missing_texts=missing_texts,
        summary=summary,
    )


def _table_row(label, entry, benchmark, scenario, written, published, units, gap, holds) -> dict:
    return {
        "entry": label,
        "system": " ".join(str(value) for value in entry["subject"].values()),
        "benchmark": benchmark,
        "scenario": scenario,
        "stated": str(written),
        "published": published,
        "units": units,
        "gap": None if gap is None else formatting.signed_percent(gap, 2),
        "holds": {True: "yes", False: "no", None: "—"}[holds],
    }


def _listing(cases) -> str:
    return "; ".join(
        f"{case.label} stated {formatting.quantity(case.claimed)}, published {formatting.quantity(case.measured, case.unit)} "
        f"({formatting.signed_percent(case.extra['gap_percent'])})"
        for case in cases
    )


def _listed(claim: Claim, data: Data):
    """Each benchmark an announcement lists for one of its result IDs, against the results of the
    system the book ties that ID to."""
    announcement = data.announcement(claim)
    ids = data.result_ids
    if ids is None or ids.empty:
        return cannot_check(claim, "The book has no table of result IDs (data/result_ids.csv).")
    mine = ids[(ids["stated_by"] == announcement.id) & (ids["round"] == announcement.round)]
    cases, used, table = [], [], []
    for _, entry in mine.iterrows():
        system = str(entry.get("system") or "").strip()
        benchmarks = [name for name in str(entry["benchmarks"]).split(";") if name]
        rows = pd.DataFrame()
        if system:
            rows, _ = select_for(
                data,
                claim,
                {"organization": str(entry["organization"]), "system": system},
                f"entry {entry['id']}",
                {"division": str(entry["division"] or "closed")},
            )
        for benchmark in benchmarks:
            label = f"{entry['id']} · {data.reference.display_name(benchmark)}"
            found = rows[rows["benchmark"] == benchmark] if not rows.empty else rows
            if not system:
                note = f"the announcement does not say which {entry['organization']} system the ID is"
                cases.append(Case(label, "", None, None, "results", None, extra={"note": note}))
            else:
                elsewhere = data.results[
                    (data.results["organization"] == str(entry["organization"]))
                    & (data.results["system"] == system)
                    & (data.results["benchmark"] == benchmark)
                ]
                cases.append(
                    Case(
                        label,
                        "",
                        float(len(found)),
                        None,
                        "results",
                        not found.empty,
                        tuple(found["location"]) if not found.empty else (),
                        {
                            "system": f"{entry['organization']} {system}",
                            "division": entry["division"],
                            "either_division": len(elsewhere),
                        },
                    )
                )
                used.append(found)
            table.append(
                {
                    "entry": entry["id"],
                    "system": f"{entry['organization']} {system or '(not stated)'}",
                    "division": entry["division"],
                    "benchmark": benchmark,
                    "results": None if not system else len(found),
                    "holds": "—" if not system else ("yes" if not found.empty else "no"),
                }
            )
    tables = {"every_row": pd.DataFrame(table)}
    judged = [case for case in cases if case.reaches is not None]
    if not judged:
        return cannot_check(claim, "No result ID of the announcement is tied to a system.", tables=tables)
    failing = [case for case in judged if not case.reaches]
    untied = [case for case in cases if case.reaches is None]
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
                f"{case.label} ({case.extra['system']}, {case.extra['division']} division"
                + (", none in the other division either" if not case.extra["either_division"] else "")
                + ")"
                for case in failing
            )
        )
    codes = set()
    if untied:
        codes.add("incomplete-data")
        sentences.append(
            f"{len(untied)} listed for IDs the announcement ties to no one system are not judged"
        )
    return finish(
        claim,
        NOT_SUPPORTED if failing else SUPPORTED,
        "; ".join(sentences) + ".",
        cases=cases,
        deciding=(failing or judged)[0].label,
        rows=rows_of(used),
        codes=codes,
        tables=tables,
        row_codes=("preview", "rdi", "open-division"),
        summary=f"{len(judged) - len(failing)} of {len(judged)} listed benchmarks found",
    )
