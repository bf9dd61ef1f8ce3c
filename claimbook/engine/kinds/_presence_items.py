"""The modes ``rows`` and ``items`` of a presence claim: results that exist, items each present,
what their results state, and a claim of being first."""

from __future__ import annotations

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.core import (
    Case,
    Data,
    cannot_check,
    label_of,
    rows_of,
    select_for,
)
from claimbook.engine.kinds._leading_common import earlier_rounds, joined
from claimbook.engine.kinds._presence_common import (
    DETAILS,
    NAMED_DETAILS,
    ItemCase,
    counted,
    decided,
    detail_check,
    division_note,
    matches,
    presence_check,
    selected_rows,
    states,
    validate_detail,
)
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED
from claimbook.inputs.earlier import round_order


def validate_rows(claim: Claim) -> None:
    if claim.get("rows") is None:
        kinds.fail(claim, "rows", "a presence claim names the results it is about (rows), or items, or pairs")
    validate_detail(claim)


def validate_items(claim: Claim) -> None:
    if claim.get("holds_if", "all") not in ("all", "any"):
        kinds.fail(
            claim, "holds_if", "all (every item must hold, the default) or any (one is enough), with items"
        )
    for index, item in enumerate(claim.get("items") or []):
        if not isinstance(item, dict) or not item.get("label"):
            kinds.fail(claim, f"items[{index}]", "each item has a label and a selector")
    validate_detail(claim)


def _earlier_of_families(data: Data, earlier: pd.DataFrame, rows: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The earlier results of a system with the accelerators ``rows`` name, placed by the
    systems of the current round, and what the note says: how many, and how many could not be
    placed."""
    families = sorted(set(rows["family"]))
    placed = _earlier_families(data, earlier)
    same = earlier[placed.isin(families)]
    unplaced = int(placed.isna().sum())
    said = (
        f"{len(same)} of them {'is' if len(same) == 1 else 'are'} of a system with {' or '.join(families)} accelerators"
        if not same.empty
        else f"none of them is of a system with {' or '.join(families)} accelerators"
    )
    if unplaced:
        said += (
            f"; {unplaced} name{'s' if unplaced == 1 else ''} no system the round has, so "
            f"{'its' if unplaced == 1 else 'their'} accelerator is not known"
        )
    return same, said


def _earlier_of_benchmarks(data: Data, earlier: pd.DataFrame, rows: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The earlier results of the same submitters on the same benchmarks as ``rows``, and what the
    note says: how many figures of those benchmarks the earlier rounds have."""
    same = earlier[earlier["model"].map(data.reference.benchmark).isin(set(rows["benchmark"]))]
    said = (
        f"they include {formatting.plural(len(same), 'figure')} of the same benchmark"
        if not same.empty
        else "none of them is of the same benchmark"
    )
    return same[same["organization"].isin(set(rows["organization"]))], said


def _first(claim: Claim, data: Data, rows: pd.DataFrame, found: kinds.Findings) -> bool:
    """A claim of being first: earlier rounds the book has should have no such result. A claim
    about an accelerator family (its ``rows`` name one) looks for that family's systems, placed by
    the systems of the current round; otherwise for the same submitters on the same benchmark.
    Returns whether an earlier round has such a result."""
    current = str(rows["round"].iloc[0])
    earlier = data.earlier
    if not earlier.empty:
        earlier = earlier[earlier["round"].map(round_order) < round_order(current)]
    found.codes.add("incomplete-data")
    if earlier.empty:
        # Nothing earlier to search: the first holds on what the book has, and says how far back.
        found.notes.append(
            f"The book holds no result of a round before {current}, so it cannot search further back"
        )
        return False
    by = _earlier_of_families if "family" in (claim.get("rows") or {}) else _earlier_of_benchmarks
    same, said = by(data, earlier, rows)
    found.notes.append(f"{_earlier_rounds_said(earlier)}{said}; rounds the book lacks cannot be searched")
    if not same.empty:
        found.notes.append(
            "An earlier round has such a result: "
            + "; ".join(f"{row.organization} {row.system} {row.round}" for row in same.itertuples())
        )
    return not same.empty


def _earlier_rounds_said(earlier: pd.DataFrame) -> str:
    """Which earlier rounds the book has in full (a results summary) and which only in part."""
    full, partial = earlier_rounds(earlier)
    if not full:
        return f"Of earlier rounds the book has only partial figures ({', '.join(partial) or 'none'}); "
    return (
        f"Of earlier rounds the book has full results of {', '.join(full)}"
        + (f" and partial figures of {', '.join(partial)}" if partial else "")
        + "; "
    )


def _earlier_families(data: Data, earlier: pd.DataFrame) -> pd.Series:
    """The accelerator family of each earlier figure: from its own round's results where the book
    holds that round in full, else from the current round's system of that name (None if none)."""
    current = dict(zip(data.results["system"], data.results["family"]))
    held = {}
    for name in earlier_rounds(earlier)[0]:
        if data.rounds is not None and name in data.rounds.names:
            table = data.rounds.table(name)
            held[name] = dict(zip(zip(table["organization"], table["system"]), table["family"]))
    return pd.Series(
        [
            held.get(name, {}).get((organization, system), current.get(system))
            for name, organization, system in zip(
                earlier["round"], earlier["organization"], earlier["system"]
            )
        ],
        index=earlier.index,
        dtype=object,
    )


SYSTEMS_EACH = 6  # up to this many systems, each is said with its own benchmarks and scenarios


def _where_each(rows: pd.DataFrame, display_name) -> str:
    """The systems of ``rows`` and what they ran: one list where every system ran the same
    benchmarks and scenarios, else each system with its own (one system's scenarios are not
    another's); for many systems, the lists across them, said so."""
    labels = [label_of(row) for _, row in rows.iterrows()]
    systems = sorted(set(labels))

    def ran(part: pd.DataFrame) -> str:
        listed = [
            f"{display_name(benchmark)} ({', '.join(sorted(set(group['scenario'])))})"
            for benchmark, group in sorted(part.groupby("benchmark"), key=lambda item: str(item[0]))
        ]
        return joined(listed)

    each = {system: ran(rows[[label == system for label in labels]]) for system in systems}
    if len(set(each.values())) == 1:
        return f"{', '.join(systems)} on {next(iter(each.values()))}"
    if len(systems) > SYSTEMS_EACH:
        return f"{', '.join(systems)} on (across them) {ran(rows)}"
    return "; ".join(f"{system} on {what}" for system, what in each.items())


def check_rows(claim: Claim, data: Data):
    """At least one such result must exist; ``detail`` says what the claim states of them."""
    rows, refused = selected_rows(claim, data)
    if refused:
        return refused
    found = kinds.Findings()
    detail_check(claim, rows, found)
    earlier_found = bool(claim.get("history")) and _first(claim, data, rows, found)
    ids = (claim.get("detail") or {}).get("result_id")
    if ids is not None:
        return _result_ids(claim, rows, [str(item) for item in ids], found)
    organizations = sorted(set(rows["organization"]))
    reason = (
        f"The data has {formatting.plural(len(rows), 'such result')}{division_note(rows)}: "
        f"{_where_each(rows, data.reference.display_name)}."
    )
    if len(organizations) > 1:
        reason += f" They come from {len(organizations)} submitters."
    if earlier_found:
        reason += " An earlier round the book has already has such a result."
    case = counted("results", len(rows), None, "results", not earlier_found, rows["location"])
    return decided(claim, case, reason, rows_of([rows]), found)


def _result_ids(claim: Claim, rows: pd.DataFrame, ids: list[str], found: kinds.Findings):
    """Result IDs an announcement cites, against the IDs the summary carries for those results."""
    carried = sorted(set(rows["result_id"].astype(str)) - {"", "nan"})
    divisions = sorted(set(rows["division"]))
    if divisions == ["closed"]:
        found.notes.append(
            f"The {len(rows)} results of those systems are all in the Closed division, as the citation says"
        )
    else:
        found.notes.append(
            f"The results of those systems are in the {' and '.join(divisions)} division{'s' if len(divisions) > 1 else ''}"
        )
    if not carried:
        return cannot_check(
            claim,
            f"The summary carries no result ID for these {len(rows)} results (its ID column is "
            f"empty), so it cannot tie {', '.join(ids)} to them; which system each ID is rests on the "
            "announcement (see the result ID table).",
            rows=rows_of([rows]),
            codes=found.codes,
            notes=found.notes,
        )
    absent = [item for item in ids if item not in carried]
    holds = not absent
    reason = (
        f"The summary gives these results the IDs {', '.join(carried)}"
        + (f"; {', '.join(absent)} is not among them" if absent else "")
        + "."
    )
    return presence_check(
        claim,
        SUPPORTED if holds else NOT_SUPPORTED,
        reason,
        rows=rows_of([rows]),
        codes=found.codes,
        notes=found.notes,
    )


def check_items(claim: Claim, data: Data):
    """Each item (a label and a selector, optionally a pattern its results must state) must be
    present; with ``holds_if: any`` one that holds is enough."""
    found = kinds.Findings()
    for item in claim.get("items"):
        _item(claim, data, item, found)
    _shared_field(found)
    cases = found.cases
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
    detail_check(claim, rows_of(found.used), found)
    verdict = NOT_SUPPORTED if failing else CANNOT_BE_CHECKED if unfound else SUPPORTED
    if claim.get("holds_if") == "any" and (failing or unfound) and any(case.reaches for case in cases):
        verdict, failing, unfound = SUPPORTED, [], []
        reason += " The claim names none of them, so one that holds is enough; the others are shown, not held against it."
    if not any(case.measured for case in cases):
        return cannot_check(claim, reason, missing=found.missing)
    return presence_check(
        claim,
        verdict,
        reason,
        cases=tuple(cases),
        deciding=(failing or unfound or cases)[0].label,
        rows=rows_of(found.used),
        codes=found.codes,
        notes=found.notes,
        missing=found.missing,
    )


def _item(claim: Claim, data: Data, item: dict, found: kinds.Findings) -> None:
    """One item's case and its results, and what its selector looked for when it found none."""
    selector = {
        k: v
        for k, v in item.items()
        if k not in ("label", "framework", "weights", "framework_name", "weights_name", *NAMED_DETAILS)
    }
    rows, why = select_for(data, claim, selector, f"item {item['label']}")
    stated, detail_ok = _item_details(item, rows, found)
    holds = detail_ok if not rows.empty else None  # an item that finds no result cannot be checked
    found.cases.append(
        Case(
            str(item["label"]),
            "",
            float(len(rows)),
            None,
            "results",
            holds,
            tuple(rows["location"]),
            detail=ItemCase(note=why or "", stated=stated),
        )
    )
    found.used.append(rows)
    if why:
        found.missing.append(why)


def _item_details(item: dict, rows: pd.DataFrame, found: kinds.Findings) -> tuple[dict, bool]:
    """What an item's results state of each detail it names, and whether every pattern holds (a
    ``*_named`` pattern that does not only qualifies, as a caveat)."""
    detail_ok = True
    stated = {}
    for name, column in DETAILS.items():
        pattern = item.get(name)
        if pattern is None or rows.empty:
            continue
        values = stated[name] = states(rows, column)
        if not matches(pattern, values):
            detail_ok = False
            found.notes.append(
                f"{item['label']}: the claim says {item.get(name + '_name', pattern)}; the results state "
                f"{'; '.join(values)}"
            )
        named = item.get(f"{name}_named")
        if detail_ok and named and not matches(named, values):
            # The pattern holds: the results are of that kind, but the summary does not record the
            # finer name the claim gives ("fp4", not "NVFP4"): not recorded, never "differs".
            found.codes.add("not-recorded")
            found.notes.append(
                f"{item['label']}: the results state {'; '.join(values)}; the summary does not record whether "
                f"that is {item.get(name + '_name', named)}"
            )
    return stated, detail_ok


def _shared_field(found: kinds.Findings) -> None:
    """Items of different benchmarks whose results state the very same framework (or weights):
    the field describes the system, so it cannot say which item used what."""
    for name in DETAILS:
        stated = [
            tuple(case.detail.stated.get(name, ())) for case in found.cases if case.detail.stated.get(name)
        ]
        if len(stated) > 1 and len(set(stated)) == 1:
            found.codes.add("incomplete-data")
            found.notes.append(
                f"Every item's results state the same {name} ({'; '.join(stated[0])}): the field describes the "
                "whole system, so the summary cannot say which item used which"
            )
