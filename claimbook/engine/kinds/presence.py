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

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine.core import Case, Data, cannot_check, finish, label_of, rows_of, select_for
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, bounds
from claimbook.inputs.earlier import round_order

KIND = "presence"
REQUIRED = ()
OPTIONAL = (
    "rows",
    "count",
    "named",
    "claimed",
    "unit",
    "only",
    "items",
    "definitions",
    "detail",
    "history",
    "absent",
    "pairs",
    "division",
    "benchmark",
    "scenarios",
    "tolerance",
    "holds_if",
)
SELECTORS = ("rows",)
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ()
EACH = ()
SUMS = ()
COUNTABLE = {
    "organization": "organization",
    "family": "family",
    "vendor": "vendor",
    "category": "category",
    "benchmark": "benchmark",
}
DETAILS = {"framework": "framework", "weights": "weight_data_types", "availability": "availability"}
# A detail that must hold (``weights: fp4``) and the name the claim gives it, which the results may
# not spell out (``weights_named: nvfp4``): the first decides, the second only qualifies.
NAMED_DETAILS = {"framework_named": "framework", "weights_named": "weight_data_types"}
# A presence is about what was submitted: its category and division matter, not how a figure was measured.
PRESENCE_ROW_CODES = ("preview", "rdi", "open-division")


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


def validate(claim: Claim, fail) -> None:
    modes = [name for name in ("count", "items", "pairs") if claim.get(name) is not None]
    if len(modes) > 1:
        fail(modes[1], f"a presence claim uses one of count, only, items or pairs, not {' and '.join(modes)}")
    if not modes and claim.get("rows") is None:
        fail("rows", "a presence claim names the results it is about (rows), or items, or pairs")
    if claim.get("holds_if", "all") not in ("all", "any") or (
        claim.get("holds_if") is not None and claim.get("items") is None
    ):
        fail("holds_if", "all (every item must hold, the default) or any (one is enough), with items")
    if claim.get("count") is not None and claim.get("count") not in COUNTABLE:
        fail("count", f"count one of {', '.join(COUNTABLE)}")
    if claim.get("absent", NOT_SUPPORTED) not in (NOT_SUPPORTED, CANNOT_BE_CHECKED):
        fail("absent", f"{NOT_SUPPORTED!r} or {CANNOT_BE_CHECKED!r}")
    for index, item in enumerate(claim.get("items") or []):
        if not isinstance(item, dict) or not item.get("label"):
            fail(f"items[{index}]", "each item has a label and a selector")
    for name in DETAILS:
        pattern = (claim.get("detail") or {}).get(name)
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                fail(f"detail.{name}", f"not a valid regular expression ({exc})")


def check(claim: Claim, data: Data):
    if claim.get("pairs") is not None:
        return _pairs(claim, data)
    if claim.get("items") is not None:
        return _items(claim, data)
    rows, why = select_for(data, claim, claim.get("rows"), "rows")
    if claim.get("count") is not None or claim.get("only") is not None:
        return _count(claim, data, rows)
    return _rows(claim, data, rows, why)


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


def _count(claim: Claim, data: Data, rows: pd.DataFrame):
    field = claim.get("count") or "organization"
    found = _values(data, rows, field)
    codes, notes, cases = set(), [], []
    tables = {"found": _found_table(data, rows, field)}
    if claim.get("only") is not None:
        only = [str(value) for value in claim.get("only")]
        extra = [value for value in found if value not in only]
        absent = [value for value in only if value not in found]
        holds = not extra and not absent
        cases.append(
            Case(
                field,
                "",
                float(len(found)),
                float(len(only)),
                field,
                holds,
                tuple(rows["location"]) if not rows.empty else (),
            )
        )
        _detail(claim, rows, codes, notes)
        submitters = sorted(set(rows["organization"]))
        reason = (
            f"All {len(rows)} such results are on {field} {', '.join(found) or 'none'} "
            f"(submitted by {', '.join(submitters) or 'no one'})"
            + (f"; besides {', '.join(only)} there is {', '.join(extra)}" if extra else "")
            + (f"; none on {', '.join(absent)}" if absent else "")
            + "."
        )
        return finish(
            claim,
            SUPPORTED if holds else NOT_SUPPORTED,
            reason,
            cases=cases,
            deciding=field,
            rows=rows_of([strongest(rows, COUNTABLE[field]) if field != "category" else rows]),
            codes=codes,
            notes=notes,
            tables=tables,
            row_codes=PRESENCE_ROW_CODES,
        )
    names = _named(claim)
    claimed = None if claim.claimed is None else float(claim.claimed)
    if names:
        present = {name: [value for value in values if value in found] for name, values in names.items()}
        matched = [name for name, values in present.items() if values]
        absent = [name for name, values in present.items() if not values]
        mapped = {value for values in names.values() for value in values}
        unnamed = [value for value in found if value not in mapped]
        measured = float(len(matched))
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
    else:
        measured = float(len(found))
        holds = claimed is None or measured == claimed
        reason = f"The data has {len(found)}: {', '.join(found) or 'none'}."
        kept = rows
    cases.append(
        Case(
            f"{field} count",
            "",
            measured,
            claimed,
            claim.unit or field,
            holds,
            tuple(sorted(set(kept["location"]))),
        )
    )
    readings = _definitions(claim, data, field, names)
    if readings:
        tables["definitions"] = pd.DataFrame(readings)
        other = [reading for reading in readings[1:]]
        if claimed is not None:
            matching = [reading["definition"] for reading in other if reading["count"] == claimed]
            differ = [reading for reading in other if reading["count"] != readings[0]["count"]]
            if (not holds and matching) or (holds and differ):
                codes.add("definition-dependent")
            if not holds and matching:
                notes.append(
                    f"The count is {formatting.stated(claimed)} only if one counts {' or '.join(matching)}"
                )
            described = "; ".join(f"{reading['definition']}: {reading['count']}" for reading in other)
            reason = (
                f"Counted as {readings[0]['definition']}: {readings[0]['count']} "
                f"({readings[0]['organizations'] or 'none'}), claimed {formatting.stated(claimed)}. Other readings give {described}."
            )
            measured = float(readings[0]["count"])
            holds = readings[0]["count"] == claimed
            cases[-1] = Case(
                f"{field} count", "", measured, claimed, claim.unit or field, holds, cases[-1].evidence
            )
    _detail(claim, kept, codes, notes)
    if claim.get("history"):
        _first(data, kept, codes, notes)
    evidence = (
        strongest(kept, COUNTABLE[field])
        if field != "category"
        else strongest(_with_categories(data, kept), "category").drop(columns="category")
    )
    return finish(
        claim,
        SUPPORTED if holds else NOT_SUPPORTED,
        reason,
        cases=cases,
        deciding=cases[-1].label,
        rows=rows_of([evidence]),
        codes=codes,
        notes=notes,
        tables=tables,
        row_codes=PRESENCE_ROW_CODES,
    )


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


def _rows(claim: Claim, data: Data, rows: pd.DataFrame, why: str | None):
    if rows.empty:
        return _absent(
            claim,
            f"The data has no such result: {why}." if why else "The data has no such result.",
            missing_texts=[why] if why else (),
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
    case = Case("results", "", float(len(rows)), None, "results", not earlier_found, tuple(rows["location"]))
    return finish(
        claim,
        NOT_SUPPORTED if earlier_found else SUPPORTED,
        reason,
        cases=[case],
        deciding="results",
        rows=rows_of([rows]),
        codes=codes,
        notes=notes,
        row_codes=PRESENCE_ROW_CODES,
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
        SUPPORTED if holds else NOT_SUPPORTED,
        reason,
        rows=rows_of([rows]),
        codes=codes,
        notes=notes,
        row_codes=PRESENCE_ROW_CODES,
    )


def _items(claim: Claim, data: Data):
    cases, used, codes, notes, missing_texts = [], [], set(), [], []
    for item in claim.get("items"):
        selector = {
            k: v
            for k, v in item.items()
            if k not in ("label", "framework", "weights", "framework_name", "weights_name", *NAMED_DETAILS)
        }
        rows, why = select_for(data, claim, selector, f"item {item['label']}")
        found = not rows.empty
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
        if why:
            missing_texts.append(why)
        holds = detail_ok if found else None  # an item that finds no result cannot be checked
        cases.append(
            Case(
                str(item["label"]),
                "",
                float(len(rows)),
                None,
                "results",
                holds,
                tuple(rows["location"]),
                {"stated": stated, "note": why or ""},
            )
        )
        used.append(rows)
    _shared_field(cases, codes, notes)
    failing = [case for case in cases if case.reaches is False]
    unfound = [case for case in cases if case.reaches is None]
    listed = "; ".join(
        f"{case.label}: {'found' if case.measured else 'not found'}"
        + (
            f" ({', '.join(v for values in case.extra['stated'].values() for v in values)})"
            if case.extra["stated"]
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
        return _absent(claim, reason, missing_texts=missing_texts)
    return finish(
        claim,
        verdict,
        reason,
        cases=cases,
        deciding=(failing or unfound or cases)[0].label,
        rows=rows_of(used),
        codes=codes,
        notes=notes,
        missing_texts=missing_texts,
        row_codes=PRESENCE_ROW_CODES,
    )


def _shared_field(cases: list[Case], codes: set, notes: list) -> None:
    """Items of different benchmarks whose results state the very same framework (or weights):
    the field describes the system, so it cannot say which item used what."""
    for name in DETAILS:
        stated = [
            tuple(case.extra["stated"].get(name, ())) for case in cases if case.extra["stated"].get(name)
        ]
        if len(stated) > 1 and len(set(stated)) == 1:
            codes.add("incomplete-data")
            notes.append(
                f"Every item's results state the same {name} ({'; '.join(stated[0])}): the field describes the "
                "whole system, so the summary cannot say which item used which"
            )


def _pairs(claim: Claim, data: Data):
    """Pairs of results of one benchmark and scenario whose GPU counts and gain fit a description.

    The natural reading is one submitter's system scaled out (same submitter, accelerator family,
    benchmark and scenario). For context the book also sets each benchmark's top result against the
    best result of any smaller system: a pair of different systems, which says nothing of scaling.
    """
    spec = claim.get("pairs")
    low, high = spec.get("gpu_ratio", [1.5, 2.0])
    if spec.get("nearly") is not None:  # "nearly double": the book's one reading of "nearly"
        low, high = bounds("nearly", float(spec["nearly"]))
    gain_below = float(spec.get("gain_below_percent", 10.0))
    rows, _ = select_for(data, claim, claim.get("rows") or {}, "rows")
    rows = rows[(rows["metric"] == "throughput") & (rows["total_accelerators"] > 0)]

    def fits(small, large) -> bool:
        ratio = large["total_accelerators"] / small["total_accelerators"]
        gain = 100.0 * (large["result"] / small["result"] - 1.0)
        return low <= ratio <= high and 0.0 <= gain < gain_below

    def record(small, large, reading):
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

    scale_outs, context = [], []
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
                if large["total_accelerators"] > small["total_accelerators"] and fits(small, large):
                    scale_outs.append(record(small, large, "one submitter's scale-out"))
    for _, group in rows.groupby(["benchmark", "scenario"], sort=True):
        top = group.sort_values(["result", "location"], ascending=[False, True]).iloc[0]
        smaller = group[group["total_accelerators"] < top["total_accelerators"]]
        if smaller.empty:
            continue
        runner = smaller.sort_values(["result", "location"], ascending=[False, True]).iloc[0]
        if fits(runner, top):
            context.append(record(runner, top, "the top result against the best smaller system"))
    table = pd.DataFrame(
        scale_outs + context,
        columns=[
            "reading",
            "benchmark",
            "scenario",
            "smaller",
            "larger",
            "gpu_ratio",
            "gain_percent",
            "small_location",
            "large_location",
        ],
    )
    used = rows[rows["location"].isin(set(table["small_location"]) | set(table["large_location"]))]

    def listed(records):
        return "; ".join(
            f"{item['larger']} against {item['smaller']} ({item['benchmark']} {item['scenario']}): "
            f"{formatting.times(item['gpu_ratio'])} the GPUs for {formatting.signed_percent(item['gain_percent'])}"
            for item in records
        )

    cases = [
        Case(
            f"{item['benchmark']} · {item['scenario']} · {item['reading']}",
            item["scenario"],
            item["gain_percent"],
            gain_below,
            "%",
            item["reading"] == "one submitter's scale-out",
            (item["large_location"], item["small_location"]),
            {"gpu_ratio": item["gpu_ratio"]},
        )
        for item in scale_outs + context
    ]
    description = f"{formatting.stated(low)} to {formatting.stated(high)} times the GPUs for a gain below {formatting.stated(gain_below, '%')}"
    if scale_outs:
        return finish(
            claim,
            SUPPORTED,
            f"{formatting.plural(len(scale_outs), 'scale-out')} in the round {'fits' if len(scale_outs) == 1 else 'fit'} the description ({description}): "
            f"{listed(scale_outs)}.",
            cases=cases,
            deciding=cases[0].label,
            rows=rows_of([used]),
            codes={"unnamed-baseline"},
            tables={"pairs": table},
            row_codes=PRESENCE_ROW_CODES,
        )
    reason = (
        f"The sentence is an illustration that names no system, so no result can confirm or refute it. No "
        f"submitter's own scale-out in the round has {description}."
    )
    notes = []
    if context:
        notes.append(
            f"Pairs of different systems fit it: {listed(context)}. They are different systems, often of "
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
