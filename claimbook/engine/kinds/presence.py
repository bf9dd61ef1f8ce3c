"""Kind ``presence``: a count or a presence ("19 partners", "Nebius also submitted", "the only
submitter", "first results", "results span four kinds of benchmark").

Modes, by the fields a claim sets:
- ``count``: the distinct values of a field (organization, family, vendor, category) among the
  rows of ``rows``; with ``named`` (a list, or a mapping of the announcement's names to the
  data's organizations) every named item must be present, and ``claimed`` is the count;
  ``definitions`` are other readings of the count, shown beside it.
- ``only``: the distinct values must be exactly those listed.
- ``items``: each item (a label and a selector, optionally a ``framework`` or ``weights``
  pattern the rows must state) must be present; with ``holds_if: any`` (a claim that names no
  item of its own, such as a benchmark) one item that holds is enough, and the others are shown.
- ``rows`` alone: at least one result must exist; ``detail`` patterns name what the claim says
  about them (a software name, a number format, a system size).
- ``pairs``: pairs of results of one benchmark and scenario whose GPU counts and throughputs
  fit a description ("nearly double the GPUs for a single-digit gain": ``nearly: 2`` takes the
  book's reading of "nearly", or ``gpu_ratio: [low, high]``).
``history: true`` adds the earlier rounds the book has ("the first"). A selection or an item that
finds no result is *cannot be checked*, never *not supported*: the data cannot tell a result never
submitted from one published under another name (``absent`` is still read, and no longer matters).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Check,
    Data,
    Outcome,
    cannot_check,
    finish,
    label_of,
    rows_of,
    select_for,
)
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, bounds
from claimbook.inputs.earlier import round_order

COUNTABLE = {
    "organization": "organization",
    "family": "family",
    "vendor": "vendor",
    "category": "category",
    "benchmark": "benchmark",
}
# What each countable field counts, in a word (the how-to page's field reference).
COUNTED = {
    "organization": "submitters",
    "family": "accelerator families",
    "vendor": "accelerator vendors (a system mixing two counts for both)",
    "category": "benchmark categories (a benchmark may be of several)",
    "benchmark": "benchmarks",
}
DETAILS = {"framework": "framework", "weights": "weight_data_types", "availability": "availability"}
# A detail that must hold (``weights: fp4``) and the name the claim gives it, which the results may
# not spell out (``weights_named: nvfp4``): the first decides, the second only qualifies.
NAMED_DETAILS = {"framework_named": "framework", "weights_named": "weight_data_types"}
# A presence is about what was submitted: its category and division matter, not how a figure was measured.
PRESENCE_ROW_CODES = ("preview", "rdi", "open-division")
# Fields every mode takes: where the results are looked for, and what a part inherits from its
# parent (a benchmark, scenarios, a tolerance or a unit a presence does not read).
SHARED = ("division", "benchmark", "scenarios", "tolerance", "unit", "absent")


@dataclass(frozen=True)
class Mode:
    """One reading of a presence claim, chosen by the field ``chosen_by`` (the mode without one
    is the fallback): the fields it takes beyond ``SHARED``, its own validation, its check and its
    charts."""

    name: str
    chosen_by: str | None
    meaning: str
    fields: tuple[str, ...]
    check: Callable[[Claim, Data], Check]
    validate: Callable[[Claim], None]
    charts: Callable[[Check, Data], list]


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


def mode_of(claim: Claim) -> Mode:
    """The mode a claim's fields choose (``validate`` refuses a claim whose fields choose two)."""
    chosen = _chosen(claim)
    return chosen[0] if chosen else FALLBACK


def _chosen(claim: Claim) -> list[Mode]:
    """The modes whose choosing field the claim sets, less one whose field another of them takes
    (``only`` takes ``count``, the field whose values it lists)."""
    set_by = [mode for mode in MODES.values() if mode.chosen_by and claim.get(mode.chosen_by) is not None]
    return [
        mode
        for mode in set_by
        if not any(mode.chosen_by in other.fields for other in set_by if other is not mode)
    ]


def modes_with(name: str) -> list[str]:
    """The modes that take a field."""
    return [mode.name for mode in MODES.values() if name in mode.fields]


def validate(claim: Claim) -> None:
    chosen = _chosen(claim)
    if len(chosen) > 1:
        kinds.fail(
            claim,
            chosen[1].chosen_by,
            f"a presence claim is of one mode ({', '.join(MODES)}); {chosen[0].chosen_by} and "
            f"{chosen[1].chosen_by} choose two ({chosen[0].name}, {chosen[1].name})",
        )
    mode = mode_of(claim)
    for name in claim.fields:
        if name in SPEC.field_names() and name not in SHARED and name not in mode.fields:
            kinds.fail(
                claim,
                name,
                f"a field of the {' and '.join(modes_with(name))} mode{'s' if len(modes_with(name)) > 1 else ''}, "
                f"not of this claim's {mode.name} mode ({mode.meaning}), which takes "
                f"{', '.join(mode.fields)}",
            )
    if claim.get("absent", NOT_SUPPORTED) not in (NOT_SUPPORTED, CANNOT_BE_CHECKED):
        kinds.fail(claim, "absent", f"{NOT_SUPPORTED!r} or {CANNOT_BE_CHECKED!r}")
    mode.validate(claim)


def check(claim: Claim, data: Data):
    return mode_of(claim).check(claim, data)


def charts(check, data: Data) -> list:
    return mode_of(check.claim).charts(check, data)


def _validate_counted(claim: Claim) -> None:
    if claim.get("count") is not None and not (
        isinstance(claim.get("count"), str) and claim.get("count") in COUNTABLE
    ):
        kinds.fail(claim, "count", f"count one of {', '.join(COUNTABLE)}")
    if claim.get("only") is not None and not isinstance(claim.get("only"), list):
        kinds.fail(claim, "only", "the list of values the results must be on, exactly")
    _validate_detail(claim)


def _validate_rows(claim: Claim) -> None:
    if claim.get("rows") is None:
        kinds.fail(claim, "rows", "a presence claim names the results it is about (rows), or items, or pairs")
    _validate_detail(claim)


def _validate_items(claim: Claim) -> None:
    if claim.get("holds_if", "all") not in ("all", "any"):
        kinds.fail(
            claim, "holds_if", "all (every item must hold, the default) or any (one is enough), with items"
        )
    for index, item in enumerate(claim.get("items") or []):
        if not isinstance(item, dict) or not item.get("label"):
            kinds.fail(claim, f"items[{index}]", "each item has a label and a selector")
    _validate_detail(claim)


def _validate_pairs(claim: Claim) -> None:
    if not isinstance(claim.get("pairs"), dict):
        kinds.fail(claim, "pairs", "a mapping: nearly: N, or gpu_ratio: [low, high], and gain_below_percent")


def _validate_detail(claim: Claim) -> None:
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


def _absent(claim: Claim, reason: str, **kwargs):
    """A selection that finds nothing: cannot be checked, whatever ``absent`` says, since the
    data cannot tell a result never submitted from one published under another name."""
    return cannot_check(claim, reason, **kwargs)


def _with_categories(data: Data, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per result and benchmark category (a benchmark may belong to several)."""
    expanded = rows.assign(category=[list(data.reference.categories(name)) for name in rows["benchmark"]])
    return expanded.explode("category").dropna(subset=["category"])


def _values(data: Data, rows: pd.DataFrame, field: str) -> list[str]:
    if field == "category":
        return sorted(set(_with_categories(data, rows)["category"]))
    if field == "vendor" and "vendors" in rows.columns:
        # a system counts for every vendor whose GPUs it has (one mixing two vendors counts for both)
        return sorted({name for names in rows["vendors"].astype(str) for name in names.split(";")})
    return sorted(set(rows[COUNTABLE[field]].astype(str)))


def _named(claim: Claim) -> dict[str, list[str]]:
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


def _only(claim: Claim, data: Data):
    """The distinct values of the counted field must be exactly those the claim lists."""
    rows, _ = select_for(data, claim, claim.get("rows"), "rows")
    field = claim.get("count") or "organization"
    found = _values(data, rows, field)
    codes, notes = set(), []
    only = [str(value) for value in claim.get("only")]
    extra = [value for value in found if value not in only]
    absent = [value for value in only if value not in found]
    holds = not extra and not absent
    case = Case(
        field,
        "",
        float(len(found)),
        float(len(only)),
        field,
        holds,
        tuple(rows["location"]) if not rows.empty else (),
        detail=PresenceCase(),
    )
    _detail(claim, rows, codes, notes)
    submitters = sorted(set(rows["organization"]))
    besides = f"; besides {', '.join(only)} there is {', '.join(extra)}" if extra else ""
    none_on = f"; none on {', '.join(absent)}" if absent else ""
    return finish(
        claim,
        Outcome(
            SUPPORTED if holds else NOT_SUPPORTED,
            f"All {len(rows)} such results are on {field} {', '.join(found) or 'none'} "
            f"(submitted by {', '.join(submitters) or 'no one'}){besides}{none_on}.",
            cases=(case,),
            deciding=field,
            rows=rows_of([strongest(rows, COUNTABLE[field]) if field != "category" else rows]),
            codes=codes,
            notes=notes,
            tables={"found": _found_table(data, rows, field)},
            row_codes=PRESENCE_ROW_CODES,
        ),
    )


@dataclass(frozen=True)
class _Tally:
    """A count as first read: the figure, whether it is the claimed one, why, the rows behind it."""

    measured: float
    holds: bool
    reason: str
    kept: pd.DataFrame


def _count(claim: Claim, data: Data):
    """The distinct values of a field among the claim's rows, against the claimed count and the
    names the claim gives; each of its ``definitions`` another reading, shown beside it."""
    rows, _ = select_for(data, claim, claim.get("rows"), "rows")
    field = claim.get("count")
    codes, notes = set(), []
    tables = {"found": _found_table(data, rows, field)}
    names = _named(claim)
    claimed = None if claim.claimed is None else float(claim.claimed)
    tally = _tally(claim, data, rows, field, names, claimed, notes, tables)
    case = Case(
        f"{field} count",
        "",
        tally.measured,
        claimed,
        claim.unit or field,
        tally.holds,
        tuple(sorted(set(tally.kept["location"]))),
        detail=PresenceCase(),
    )
    reason, holds = tally.reason, tally.holds
    readings = _definitions(claim, data, field, names)
    if readings:
        tables["definitions"] = pd.DataFrame(readings)
        if claimed is not None:
            reason, case = _reread(readings, claimed, case, codes, notes)
            holds = case.reaches
    _detail(claim, tally.kept, codes, notes)
    evidence = (
        strongest(tally.kept, COUNTABLE[field])
        if field != "category"
        else strongest(_with_categories(data, tally.kept), "category").drop(columns="category")
    )
    return finish(
        claim,
        Outcome(
            SUPPORTED if holds else NOT_SUPPORTED,
            reason,
            cases=(case,),
            deciding=case.label,
            rows=rows_of([evidence]),
            codes=codes,
            notes=notes,
            tables=tables,
            row_codes=PRESENCE_ROW_CODES,
        ),
    )


def _tally(claim, data, rows, field, names, claimed, notes, tables) -> _Tally:
    """The count of the field's values, or of the names the claim gives that the data has."""
    found = _values(data, rows, field)
    if not names:
        holds = claimed is None or float(len(found)) == claimed
        return _Tally(
            float(len(found)), holds, f"The data has {len(found)}: {', '.join(found) or 'none'}.", rows
        )
    present = {name: [value for value in values if value in found] for name, values in names.items()}
    matched = [name for name, values in present.items() if values]
    absent = [name for name, values in present.items() if not values]
    mapped = {value for values in names.values() for value in values}
    unnamed = [value for value in found if value not in mapped]
    holds = not absent and (claimed is None or len(names) == claimed)
    reason = f"{len(matched)} of the {len(names)} named ({field}) have results"
    if absent:
        reason += f"; no result for {', '.join(absent)}"
    if claimed is not None and len(names) != claimed:
        reason += f"; the claim names {len(names)}, not {formatting.stated(claimed)}"
    reason += "."
    if unnamed:
        notes.append(
            f"The data also has {formatting.quantity(len(unnamed), field)} the claim does not name: {', '.join(unnamed)}"
        )
    tables["named"] = pd.DataFrame(
        {"named": list(names), "in the data as": [", ".join(present[name]) or "—" for name in names]}
    )
    kept = rows[rows[COUNTABLE[field]].astype(str).isin(mapped)] if field != "category" else rows
    return _Tally(float(len(matched)), holds, reason, kept)


def _reread(readings: list[dict], claimed: float, case: Case, codes: set, notes: list) -> tuple[str, Case]:
    """A count with several definitions: judged on the first, the others shown (and a caveat
    where the verdict would depend on which one a reader takes)."""
    other = readings[1:]
    matching = [reading["definition"] for reading in other if reading["count"] == claimed]
    differ = [reading for reading in other if reading["count"] != readings[0]["count"]]
    if (not case.reaches and matching) or (case.reaches and differ):
        codes.add("definition-dependent")
    if not case.reaches and matching:
        notes.append(f"The count is {formatting.stated(claimed)} only if one counts {' or '.join(matching)}")
    described = "; ".join(f"{reading['definition']}: {reading['count']}" for reading in other)
    reason = (
        f"Counted as {readings[0]['definition']}: {readings[0]['count']} "
        f"({readings[0]['organizations'] or 'none'}), claimed {formatting.stated(claimed)}. Other readings give {described}."
    )
    first = readings[0]["count"]
    return reason, replace(case, measured=float(first), reaches=first == claimed)


def _found_table(data: Data, rows: pd.DataFrame, field: str) -> pd.DataFrame:
    if rows.empty:
        return pd.DataFrame(columns=[field, "results", "divisions"])
    frame = _with_categories(data, rows) if field == "category" else rows
    column = COUNTABLE[field]
    grouped = frame.groupby(column).agg(
        results=("location", "nunique"), divisions=("division", lambda values: ", ".join(sorted(set(values))))
    )
    return grouped.reset_index().rename(columns={column: field})


def _definitions(claim: Claim, data: Data, field: str, names: dict) -> list[dict]:
    """Each reading of a count: its selector applied, restricted to the named items if any."""
    readings = []
    mapped = {value: name for name, values in names.items() for value in values}
    for definition in claim.get("definitions") or []:
        rows, _ = select_for(
            data,
            claim,
            {k: v for k, v in definition.items() if k not in ("label", "named_only")},
            "definition",
        )
        values = _values(data, rows, field)
        if definition.get("named_only", True) and names:
            values = sorted({mapped[value] for value in values if value in mapped})
        readings.append(
            {"definition": str(definition["label"]), "count": len(values), "organizations": ", ".join(values)}
        )
    return readings


def _detail(claim: Claim, rows: pd.DataFrame, codes: set, notes: list) -> None:
    """What the claim says about the results (software, number format, size) against the data."""
    detail = claim.get("detail") or {}
    for name, column in DETAILS.items():
        pattern = detail.get(name)
        if pattern is None or rows.empty:
            continue
        stated = sorted(set(rows[column].astype(str)))
        if not all(re.search(pattern, text, re.IGNORECASE) for text in stated):
            codes.add("detail-mismatch")
            notes.append(
                f"The claim names {detail.get(name + '_name', pattern)} as the {name}; the results state "
                f"{'; '.join(stated) or 'nothing'}"
            )
    if "gpus" in detail and not rows.empty:
        sizes = sorted({int(value) for value in rows["total_accelerators"]})
        if sizes != [int(detail["gpus"])]:
            codes.add("different-size")
            notes.append(
                f"The claim implies {detail['gpus']} GPUs ({detail.get('gpus_name', 'the named system')}); "
                f"the results are of {', '.join(map(str, sizes))} GPUs"
            )


def _first(claim: Claim, data: Data, rows: pd.DataFrame, codes: set, notes: list) -> bool:
    """A claim of being first: earlier rounds the book has should have no such result. A claim
    about an accelerator family (its ``rows`` name one) looks for that family's systems, placed by
    the systems of the current round; otherwise for the same submitters on the same benchmark.
    Returns whether an earlier round has such a result."""
    earlier = data.earlier
    if earlier.empty or rows.empty:
        return False
    current = str(rows["round"].iloc[0])
    earlier = earlier[earlier["round"].map(round_order) < round_order(current)]
    rounds = sorted(set(data.earlier["round"]) - {current}, key=round_order)
    codes.add("incomplete-data")
    lead = f"Of earlier rounds the book has only partial figures ({', '.join(rounds) or 'none'}); "
    if "family" in (claim.get("rows") or {}):
        families = sorted(set(rows["family"]))
        placed = earlier["system"].map(dict(zip(data.results["system"], data.results["family"])))
        same = earlier[placed.isin(families)]
        unplaced = int(placed.isna().sum())
        notes.append(
            lead
            + (
                f"{len(same)} of them {'is' if len(same) == 1 else 'are'} of a system with {' or '.join(families)} accelerators"
                if not same.empty
                else f"none of them is of a system with {' or '.join(families)} accelerators"
            )
            + (
                f"; {unplaced} name{'s' if unplaced == 1 else ''} no system the round has, so "
                f"{'its' if unplaced == 1 else 'their'} accelerator is not known"
                if unplaced
                else ""
            )
            + "; rounds the book lacks cannot be searched"
        )
    else:
        models = set(rows["benchmark"])
        same = earlier[earlier["model"].map(data.reference.benchmark).isin(models)]
        notes.append(
            lead
            + (
                f"they include {formatting.plural(len(same), 'figure')} of the same benchmark"
                if not same.empty
                else "none of them is of the same benchmark"
            )
            + "; rounds the book lacks cannot be searched"
        )
        same = same[same["organization"].isin(set(rows["organization"]))]
    if not same.empty:
        notes.append(
            "An earlier round has such a result: "
            + "; ".join(f"{row.organization} {row.system} {row.round}" for row in same.itertuples())
        )
    return not same.empty


def _rows(claim: Claim, data: Data):
    """At least one such result must exist; ``detail`` says what the claim states of them."""
    rows, why = select_for(data, claim, claim.get("rows"), "rows")
    if rows.empty:
        return _absent(
            claim,
            f"The data has no such result: {why}." if why else "The data has no such result.",
            missing=[why] if why else (),
        )
    codes, notes = set(), []
    _detail(claim, rows, codes, notes)
    earlier_found = bool(claim.get("history")) and _first(claim, data, rows, codes, notes)
    ids = (claim.get("detail") or {}).get("result_id")
    if ids is not None:
        return _result_ids(claim, rows, [str(item) for item in ids], codes, notes)
    organizations = sorted(set(rows["organization"]))
    systems = sorted({label_of(row) for _, row in rows.iterrows()})
    benchmarks = sorted(set(rows["benchmark"]))
    reason = (
        f"The data has {formatting.plural(len(rows), 'such result')}: "
        f"{', '.join(systems)} on {', '.join(data.reference.display_name(name) for name in benchmarks)}"
        f" ({', '.join(sorted(set(rows['scenario'])))})."
    )
    if len(organizations) > 1:
        reason += f" They come from {len(organizations)} submitters."
    if earlier_found:
        reason += " An earlier round the book has already has such a result."
    case = Case(
        "results",
        "",
        float(len(rows)),
        None,
        "results",
        not earlier_found,
        tuple(rows["location"]),
        detail=PresenceCase(),
    )
    return finish(
        claim,
        Outcome(
            NOT_SUPPORTED if earlier_found else SUPPORTED,
            reason,
            cases=(case,),
            deciding="results",
            rows=rows_of([rows]),
            codes=codes,
            notes=notes,
            row_codes=PRESENCE_ROW_CODES,
        ),
    )


def _result_ids(claim: Claim, rows: pd.DataFrame, ids: list[str], codes: set, notes: list):
    """Result IDs an announcement cites, against the IDs the summary carries for those results."""
    carried = sorted(set(rows["result_id"].astype(str)) - {"", "nan"})
    divisions = sorted(set(rows["division"]))
    notes.append(
        f"The {len(rows)} results of those systems are all in the {' and '.join(d.capitalize() for d in divisions)} "
        f"division{'s' if len(divisions) > 1 else ''}, as the citation says"
        if divisions == ["closed"]
        else f"The results of those systems are in the {' and '.join(divisions)} division{'s' if len(divisions) > 1 else ''}"
    )
    if not carried:
        return cannot_check(
            claim,
            f"The summary carries no result ID for these {len(rows)} results (its ID column is "
            f"empty), so it cannot tie {', '.join(ids)} to them; which system each ID is rests on the "
            "announcement (see the result ID table).",
            rows=rows_of([rows]),
            codes=codes,
            notes=notes,
        )
    absent = [item for item in ids if item not in carried]
    holds = not absent
    reason = (
        f"The summary gives these results the IDs {', '.join(carried)}"
        + (f"; {', '.join(absent)} is not among them" if absent else "")
        + "."
    )
    return finish(
        claim,
        Outcome(
            SUPPORTED if holds else NOT_SUPPORTED,
            reason,
            rows=rows_of([rows]),
            codes=codes,
            notes=notes,
            row_codes=PRESENCE_ROW_CODES,
        ),
    )


def _items(claim: Claim, data: Data):
    """Each item (a label and a selector, optionally a pattern its results must state) must be
    present; with ``holds_if: any`` one that holds is enough."""
    cases, used, codes, notes, missing_texts = [], [], set(), [], []
    for item in claim.get("items"):
        case, rows, why = _item(claim, data, item, codes, notes)
        if why:
            missing_texts.append(why)
        cases.append(case)
        used.append(rows)
    _shared_field(cases, codes, notes)
    failing = [case for case in cases if case.reaches is False]
    unfound = [case for case in cases if case.reaches is None]
    listed = "; ".join(
        f"{case.label}: {'found' if case.measured else 'not found'}"
        + (
            f" ({', '.join(v for values in case.detail.stated.values() for v in values)})"
            if case.detail.stated
            else ""
        )
        for case in cases
    )
    reason = f"{len(cases) - len(failing)} of {len(cases)} hold: {listed}."
    _detail(claim, rows_of(used), codes, notes)
    verdict = NOT_SUPPORTED if failing else CANNOT_BE_CHECKED if unfound else SUPPORTED
    if claim.get("holds_if") == "any" and (failing or unfound) and any(case.reaches for case in cases):
        verdict, failing, unfound = SUPPORTED, [], []
        reason += " The claim names none of them, so one that holds is enough; the others are shown, not held against it."
    if not any(case.measured for case in cases):
        return _absent(claim, reason, missing=missing_texts)
    return finish(
        claim,
        Outcome(
            verdict,
            reason,
            cases=tuple(cases),
            deciding=(failing or unfound or cases)[0].label,
            rows=rows_of(used),
            codes=codes,
            notes=notes,
            missing=missing_texts,
            row_codes=PRESENCE_ROW_CODES,
        ),
    )


def _item(claim: Claim, data: Data, item: dict, codes: set, notes: list):
    """One item's case, its results, and what its selector looked for when it found none."""
    selector = {
        k: v
        for k, v in item.items()
        if k not in ("label", "framework", "weights", "framework_name", "weights_name", *NAMED_DETAILS)
    }
    rows, why = select_for(data, claim, selector, f"item {item['label']}")
    stated, detail_ok = _item_details(item, rows, codes, notes)
    holds = detail_ok if not rows.empty else None  # an item that finds no result cannot be checked
    case = Case(
        str(item["label"]),
        "",
        float(len(rows)),
        None,
        "results",
        holds,
        tuple(rows["location"]),
        detail=ItemCase(note=why or "", stated=stated),
    )
    return case, rows, why


def _item_details(item: dict, rows: pd.DataFrame, codes: set, notes: list) -> tuple[dict, bool]:
    """What an item's results state of each detail it names, and whether every pattern holds (a
    ``*_named`` pattern that does not only qualifies, as a caveat)."""
    detail_ok = True
    stated = {}
    for name, column in DETAILS.items():
        pattern = item.get(name)
        if pattern is None or rows.empty:
            continue
        values = sorted(set(rows[column].astype(str)))
        stated[name] = values
        if not all(re.search(pattern, text, re.IGNORECASE) for text in values):
            detail_ok = False
            notes.append(
                f"{item['label']}: the claim says {item.get(name + '_name', pattern)}; the results state "
                f"{'; '.join(values)}"
            )
        named = item.get(f"{name}_named")
        if detail_ok and named and not all(re.search(named, text, re.IGNORECASE) for text in values):
            codes.add("detail-mismatch")
            notes.append(
                f"{item['label']}: the results state {'; '.join(values)}, which does not name "
                f"{item.get(name + '_name', named)}"
            )
    return stated, detail_ok


def _shared_field(cases: list[Case], codes: set, notes: list) -> None:
    """Items of different benchmarks whose results state the very same framework (or weights):
    the field describes the system, so it cannot say which item used what."""
    for name in DETAILS:
        stated = [tuple(case.detail.stated.get(name, ())) for case in cases if case.detail.stated.get(name)]
        if len(stated) > 1 and len(set(stated)) == 1:
            codes.add("incomplete-data")
            notes.append(
                f"Every item's results state the same {name} ({'; '.join(stated[0])}): the field describes the "
                "whole system, so the summary cannot say which item used which"
            )


PAIR_COLUMNS = (
    "reading",
    "benchmark",
    "scenario",
    "smaller",
    "larger",
    "gpu_ratio",
    "gain_percent",
    "small_location",
    "large_location",
)
SCALE_OUT = "one submitter's scale-out"


@dataclass(frozen=True)
class _PairRule:
    """What a pair must be: its GPU ratio within [low, high], its gain at least 0 and below ``gain_below``."""

    low: float
    high: float
    gain_below: float

    @classmethod
    def of(cls, spec: dict) -> _PairRule:
        low, high = spec.get("gpu_ratio", [1.5, 2.0])
        if spec.get("nearly") is not None:  # "nearly double": the book's one reading of "nearly"
            low, high = bounds("nearly", float(spec["nearly"]))
        return cls(low, high, float(spec.get("gain_below_percent", 10.0)))

    def fits(self, small, large) -> bool:
        ratio = large["total_accelerators"] / small["total_accelerators"]
        gain = 100.0 * (large["result"] / small["result"] - 1.0)
        return self.low <= ratio <= self.high and 0.0 <= gain < self.gain_below

    def description(self) -> str:
        return (
            f"{formatting.stated(self.low)} to {formatting.stated(self.high)} times the GPUs for a gain below "
            f"{formatting.stated(self.gain_below, '%')}"
        )


def _pair_record(small, large, reading: str) -> dict:
    return {
        "reading": reading,
        "benchmark": large["benchmark"],
        "scenario": large["scenario"],
        "smaller": label_of(small),
        "larger": label_of(large),
        "gpu_ratio": large["total_accelerators"] / small["total_accelerators"],
        "gain_percent": 100.0 * (large["result"] / small["result"] - 1.0),
        "small_location": small["location"],
        "large_location": large["location"],
    }


def _scale_outs(rows: pd.DataFrame, rule: _PairRule) -> list[dict]:
    """Every pair of one submitter's system of one accelerator family, benchmark and scenario that fits."""
    found = []
    # Grouped in Python: a few hundred small groups cost more as pandas frames than as lists.
    systems: dict[tuple, list[dict]] = {}
    for item in rows.sort_values(["total_accelerators", "location"]).to_dict("records"):
        systems.setdefault(
            (item["organization"], item["family"], item["benchmark"], item["scenario"]), []
        ).append(item)
    for key in sorted(systems):
        ordered = systems[key]
        for small in ordered:
            for large in ordered:
                if large["total_accelerators"] > small["total_accelerators"] and rule.fits(small, large):
                    found.append(_pair_record(small, large, SCALE_OUT))
    return found


def _top_against_smaller(rows: pd.DataFrame, rule: _PairRule) -> list[dict]:
    """For context: each benchmark's top result against the best result of any smaller system."""
    found = []
    for _, group in rows.groupby(["benchmark", "scenario"], sort=True):
        top = group.sort_values(["result", "location"], ascending=[False, True]).iloc[0]
        smaller = group[group["total_accelerators"] < top["total_accelerators"]]
        if smaller.empty:
            continue
        runner = smaller.sort_values(["result", "location"], ascending=[False, True]).iloc[0]
        if rule.fits(runner, top):
            found.append(_pair_record(runner, top, "the top result against the best smaller system"))
    return found


def _listed(records) -> str:
    return "; ".join(
        f"{item['larger']} against {item['smaller']} ({item['benchmark']} {item['scenario']}): "
        f"{formatting.times(item['gpu_ratio'])} the GPUs for {formatting.signed_percent(item['gain_percent'])}"
        for item in records
    )


def _pair_case(item: dict, rule: _PairRule) -> Case:
    return Case(
        f"{item['benchmark']} · {item['scenario']} · {item['reading']}",
        item["scenario"],
        item["gain_percent"],
        rule.gain_below,
        "%",
        item["reading"] == SCALE_OUT,
        (item["large_location"], item["small_location"]),
        detail=PairCase(gpu_ratio=item["gpu_ratio"]),
    )


def _pairs(claim: Claim, data: Data):
    """Pairs of results of one benchmark and scenario whose GPU counts and gain fit a description.

    The natural reading is one submitter's system scaled out (same submitter, accelerator family,
    benchmark and scenario). For context the book also sets each benchmark's top result against the
    best result of any smaller system: a pair of different systems, which says nothing of scaling.
    """
    rule = _PairRule.of(claim.get("pairs"))
    rows, _ = select_for(data, claim, claim.get("rows") or {}, "rows")
    rows = rows[(rows["metric"] == "throughput") & (rows["total_accelerators"] > 0)]
    scale_outs, context = _scale_outs(rows, rule), _top_against_smaller(rows, rule)
    table = pd.DataFrame(scale_outs + context, columns=list(PAIR_COLUMNS))
    used = rows[rows["location"].isin(set(table["small_location"]) | set(table["large_location"]))]
    cases = [_pair_case(item, rule) for item in scale_outs + context]
    if scale_outs:
        return finish(
            claim,
            Outcome(
                SUPPORTED,
                f"{formatting.plural(len(scale_outs), 'scale-out')} in the round {'fits' if len(scale_outs) == 1 else 'fit'} the description ({rule.description()}): "
                f"{_listed(scale_outs)}.",
                cases=tuple(cases),
                deciding=cases[0].label,
                rows=rows_of([used]),
                codes={"unnamed-baseline"},
                tables={"pairs": table},
                row_codes=PRESENCE_ROW_CODES,
            ),
        )
    reason = (
        f"The sentence is an illustration that names no system, so no result can confirm or refute it. No "
        f"submitter's own scale-out in the round has {rule.description()}."
    )
    notes = []
    if context:
        notes.append(
            f"Pairs of different systems fit it: {_listed(context)}. They are different systems, often of "
            "different submitters and accelerators, not one system scaled out"
        )
    return cannot_check(
        claim,
        reason,
        tables={"pairs": table},
        rows=rows_of([used]),
        notes=notes,
        codes={"unnamed-baseline"} | ({"different-size"} if context else set()),
    )


# -- the charts of each mode -------------------------------------------------------------------


def _count_bars(check, data: Data) -> list:
    """The results per value counted, each said to be named by the claim or not (with nothing
    counted, the results themselves)."""
    found = check.tables.get("found")
    if found is None or found.empty:
        return _result_dots(check, data)
    named = {value for values in _named(check.claim).values() for value in values}
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


def _result_dots(check, data: Data) -> list:
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


def _no_charts(check, data: Data) -> list:
    """Items and pairs: the evidence and context tables say it all."""
    return []


MODES = {
    mode.name: mode
    for mode in (
        Mode(
            "count",
            "count",
            "the distinct values of a field among the rows, against the claimed count and the names given",
            ("count", "rows", "named", "claimed", "definitions", "detail"),
            _count,
            _validate_counted,
            _count_bars,
        ),
        Mode(
            "only",
            "only",
            "the distinct values of a field (count, organization by default) are exactly those listed",
            ("only", "count", "rows", "detail"),
            _only,
            _validate_counted,
            _count_bars,
        ),
        Mode(
            "items",
            "items",
            "each item (a label and a selector) is present; with holds_if: any, one is enough",
            ("items", "holds_if", "detail"),
            _items,
            _validate_items,
            _no_charts,
        ),
        Mode(
            "pairs",
            "pairs",
            "pairs of results whose GPU counts and gain fit a description",
            ("pairs", "rows"),
            _pairs,
            _validate_pairs,
            _no_charts,
        ),
        Mode(
            "rows",
            None,
            "at least one such result exists; detail names what the claim says of them",
            ("rows", "detail", "history"),
            _rows,
            _validate_rows,
            _result_dots,
        ),
    )
}
FALLBACK = MODES["rows"]


def _of_modes(item: kinds.Field) -> kinds.Field:
    """A field only some modes take, its meaning saying which."""
    if item.name in SHARED:
        return item
    takes = modes_with(item.name)
    return replace(item, meaning=f"{item.meaning} (mode{'s' if len(takes) > 1 else ''} {', '.join(takes)})")


INHERITED = "inherited from a parent claim; a presence does not read it"
SPEC = kinds.KindSpec(
    name="presence",
    description="a count or a presence (partners, submitters, kinds of benchmark, pairs of results)",
    required=(),
    optional=tuple(
        _of_modes(item)
        for item in (
            kinds.Field("rows", "a selector of the results the claim is about"),
            kinds.Field(
                "count", "the field whose distinct values are counted (or listed, with only)", COUNTED
            ),
            kinds.Field(
                "named", "the names the claim gives: a list, or {announcement's name: data's value or values}"
            ),
            kinds.Field("claimed", "the claimed count"),
            kinds.Field("unit", "the noun of the count, as the claim words it (partners)"),
            kinds.Field("only", "the values the results must be on, exactly"),
            kinds.Field(
                "items",
                "what must each be present: a label and a selector, optionally a framework or weights pattern",
            ),
            kinds.Field(
                "definitions", "other readings of the count, each a label and a selector, shown beside it"
            ),
            kinds.Field(
                "detail",
                "what the claim says of the results: framework, weights, availability patterns, gpus, result_id",
            ),
            kinds.Field(
                "history",
                "true: no earlier round the book has may have such a result (a claim of being first)",
            ),
            kinds.Field(
                "absent",
                "read for older registries: a selection that finds nothing cannot be checked either way",
                {
                    NOT_SUPPORTED: "(the old default, no longer applied)",
                    CANNOT_BE_CHECKED: "what the book decides",
                },
            ),
            kinds.Field(
                "pairs", "a description of pairs: nearly: N or gpu_ratio: [low, high], and gain_below_percent"
            ),
            kinds.DIVISION,
            kinds.Field("benchmark", INHERITED),
            kinds.Field("scenarios", INHERITED),
            kinds.Field("tolerance", INHERITED),
            kinds.Field(
                "holds_if",
                "how many items must hold",
                {
                    "all": "every item (the default)",
                    "any": "one is enough: a claim that names no item of its own",
                },
            ),
        )
    ),
    example={
        "id": "acme-partners",
        "title": "Three partners",
        "statement": "Three partners submitted results on Acme's accelerators.",
        "kind": "presence",
        "count": "organization",
        "rows": {"vendor": "NVIDIA", "exclude": {"organization": "Acme"}},
        "named": ["Alpha", "Beta", "Gamma"],
        "claimed": 3,
        "unit": "partners",
    },
    detail=PresenceCase,
    selectors=("rows",),
    columns=kinds.CASE_COLUMNS,
    tables={
        "found": kinds.Table("What the data has, counted"),
        "named": kinds.Table("Each name the claim gives, and the organizations it stands for in the data"),
        "definitions": kinds.Table("The count under each reading of the claim"),
        "pairs": kinds.Table("Pairs of results (first 40)", omit_suffix="location", head=40),
    },
)
