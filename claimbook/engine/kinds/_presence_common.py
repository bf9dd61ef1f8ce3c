"""What the modes of a presence claim share: what they count, their case details, the details a
claim states of its results, and the charts of counted results."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.engine import kinds
from claimbook.engine.core import Case, CaseDetail, Check, Data, Outcome, cannot_check, finish, select_for
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED

# What each countable field (a column of the results) counts, in a word (the how-to page's field
# reference).
COUNTED = {
    "organization": "submitters",
    "family": "accelerator families",
    "vendor": "accelerator vendors (a system mixing two counts for both)",
    "category": "benchmark categories (a benchmark may be of several)",
    "benchmark": "benchmarks",
    "division": "divisions (closed, open)",
}
DETAILS = {"framework": "framework", "weights": "weight_data_types", "availability": "availability"}
# A detail that must hold (``weights: fp4``) and the name the claim gives it, which the results may
# not spell out (``weights_named: nvfp4``): the first decides, the second only qualifies.
NAMED_DETAILS = {"framework_named": "framework", "weights_named": "weight_data_types"}
# A presence is about what was submitted: its category and division matter, not how a figure was measured.
PRESENCE_ROW_CODES = ("preview", "rdi", "open-division")


@dataclass(frozen=True)
class PresenceCase(CaseDetail):
    """A case of a presence claim (a count, the values found, the results found): nothing beside
    its figures but, where it has none, why."""

    note: str = ""


@dataclass(frozen=True)
class ItemCase(PresenceCase):
    """An item of a claim of items: what its results state of each detail it names (framework,
    weights ...), and what its selector looked for when it found nothing."""

    stated: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PairCase(PresenceCase):
    """A pair of results that fits a description: how many times the GPUs the larger has."""

    gpu_ratio: float | None = None


def validate_detail(claim: Claim) -> None:
    if claim.get("detail") is not None and not isinstance(claim.get("detail"), dict):
        kinds.fail(claim, "detail", f"the details the results must show, {{{': ..., '.join(DETAILS)}: ...}}")
    for name in DETAILS:
        pattern = (claim.get("detail") or {}).get(name)
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                kinds.fail(claim, f"detail.{name}", f"not a valid regular expression ({exc})")


def strongest(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """For each value of ``column``, its results of the strongest standing (Closed before Open,
    available before preview or research): a partner counts through its best evidence."""
    if rows.empty:
        return rows
    weakness = (rows["division"] != "closed").astype(int) * 2 + (rows["availability"] != "available").astype(
        int
    )
    ranked = rows.assign(_weakness=weakness)
    best = ranked.groupby(column)["_weakness"].transform("min")
    return ranked[ranked["_weakness"] == best].drop(columns="_weakness")


def counted(label: str, measured: float, claimed, unit: str, holds, locations) -> Case:
    """The one case of a count or a presence: the figure found, the one claimed, whether it holds."""
    return Case(label, "", float(measured), claimed, unit, holds, tuple(locations), detail=PresenceCase())


def presence_check(claim: Claim, verdict: str, reason: str, **fields) -> Check:
    """A presence's check (``Outcome``'s fields by name): what was submitted is judged, so its
    rows imply only the caveats of a submission (``PRESENCE_ROW_CODES``)."""
    return finish(claim, Outcome(verdict, reason, row_codes=PRESENCE_ROW_CODES, **fields))


def decided(
    claim: Claim, case: Case, reason: str, rows: pd.DataFrame, found: kinds.Findings, **fields
) -> Check:
    """A presence judged on its one case: supported where it holds, not supported where it does
    not, cannot be checked where the data cannot tell."""
    holds = case.reaches
    verdict = CANNOT_BE_CHECKED if holds is None else SUPPORTED if holds else NOT_SUPPORTED
    return presence_check(
        claim,
        verdict,
        reason,
        cases=(case,),
        deciding=case.label,
        rows=rows,
        codes=found.codes,
        notes=found.notes,
        **fields,
    )


def selected_rows(claim: Claim, data: Data) -> tuple[pd.DataFrame, Check | None]:
    """The results the claim's ``rows`` select; where they select none, the check instead: cannot
    be checked, since the data cannot tell a result never submitted from one published under
    another name."""
    rows, why = select_for(data, claim, claim.get("rows"), "rows")
    if why:
        return rows, cannot_check(claim, f"The data has no such result: {why}.", missing=[why])
    return rows, None


def states(rows: pd.DataFrame, column: str) -> list[str]:
    """The distinct values the results state in a column, in order."""
    return sorted(set(rows[column].astype(str)))


def matches(pattern: str, values) -> bool:
    """Whether every value stated matches a claim's pattern (case aside)."""
    return all(re.search(pattern, text, re.IGNORECASE) for text in values)


def with_categories(data: Data, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per result and benchmark category (a benchmark may belong to several)."""
    expanded = rows.assign(category=[list(data.reference.categories(name)) for name in rows["benchmark"]])
    return expanded.explode("category").dropna(subset=["category"])


def values_of(data: Data, rows: pd.DataFrame, field: str) -> list[str]:
    if field == "category":
        return sorted(set(with_categories(data, rows)["category"]))
    if field == "vendor" and "vendors" in rows.columns:
        # a system counts for every vendor whose GPUs it has (one mixing two vendors counts for both)
        return sorted({name for names in rows["vendors"].astype(str) for name in names.split(";")})
    return states(rows, field)


def named_of(claim: Claim) -> dict[str, list[str]]:
    """The names the claim gives, each with the data values it stands for."""
    named = claim.get("named")
    if named is None:
        return {}
    if isinstance(named, dict):
        return {
            str(name): [str(value) for value in (values if isinstance(values, list) else [values])]
            for name, values in named.items()
        }
    return {str(name): [str(name)] for name in named}


def found_table(data: Data, rows: pd.DataFrame, field: str) -> pd.DataFrame:
    if rows.empty:
        return pd.DataFrame(columns=[field, "results", "divisions"])
    frame = with_categories(data, rows) if field == "category" else rows
    grouped = frame.groupby(field).agg(
        results=("location", "nunique"), divisions=("division", lambda values: ", ".join(sorted(set(values))))
    )
    return grouped.reset_index()


def detail_check(claim: Claim, rows: pd.DataFrame, found: kinds.Findings) -> None:
    """What the claim says about the results (software, number format, size) against the data."""
    detail = claim.get("detail") or {}
    for name, column in DETAILS.items():
        pattern = detail.get(name)
        if pattern is None or rows.empty:
            continue
        values = states(rows, column)
        if not matches(pattern, values):
            found.codes.add("detail-mismatch")
            found.notes.append(
                f"The claim names {detail.get(name + '_name', pattern)} as the {name}; the results state "
                f"{'; '.join(values) or 'nothing'}"
            )
    if "gpus" in detail and not rows.empty:
        sizes = sorted({int(value) for value in rows["total_accelerators"]})
        if sizes != [int(detail["gpus"])]:
            found.codes.add("different-size")
            found.notes.append(
                f"The claim implies {detail['gpus']} GPUs ({detail.get('gpus_name', 'the named system')}); "
                f"the results are of {', '.join(map(str, sizes))} GPUs"
            )


def count_bars(check, data: Data) -> list:
    """The results per value counted, each said to be named by the claim or not (with nothing
    counted, the results themselves)."""
    found = check.tables.get("found")
    if found is None or found.empty:
        return result_dots(check, data)
    named = {value for values in named_of(check.claim).values() for value in values}
    named |= {str(value) for value in check.claim.get("only") or []}  # "only B300": B300 is named
    column = found.columns[0]
    table = found.assign(
        named=found[column].astype(str).isin(named).map({True: "named by the claim", False: "not named"})
    )
    return [
        kinds.CountBars(
            table,
            column,
            f"Results per {column}",
            f"Bar chart of the number of published results per {column}; the text says "
            "whether the claim names it.",
        )
    ]


def result_dots(check, data: Data) -> list:
    """Every result of each benchmark and scenario the claim's results are of (per GPU where
    they are throughputs), the claim's drawn large: at most three charts."""
    if check.rows is None or check.rows.empty:
        return []
    made = []
    for (benchmark, scenario), _ in check.rows.groupby(["benchmark", "scenario"], sort=True):
        rows = data.results[(data.results["benchmark"] == benchmark) & (data.results["scenario"] == scenario)]
        throughput = rows["metric"].eq("throughput").all()
        made.append(
            kinds.ResultDots(
                rows,
                "per_gpu" if throughput else "result",
                f"{data.reference.display_name(benchmark)}, {scenario}: "
                + ("per GPU" if throughput else "every result"),
                f"Dot plot of every {scenario} result on {benchmark}; the results the claim is about are drawn large.",
                highlight=list(check.rows["location"]),
            )
        )
    return made[:3]


def no_charts(check, data: Data) -> list:
    """Items and pairs: the evidence and context tables say it all."""
    return []


def division_note(rows: pd.DataFrame) -> str:
    """The divisions of the results counted, as a sentence names them beside the count: a count
    of one division is not the count of the round."""
    divisions = rows["division"].astype(str).str.capitalize().value_counts()
    if divisions.empty:
        return ""
    if len(divisions) == 1:
        return f" in the {divisions.index[0]} division"
    return " (" + ", ".join(f"{count} {name}" for name, count in sorted(divisions.items())) + ")"
