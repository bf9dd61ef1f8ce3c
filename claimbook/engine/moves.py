"""What moved: the claims whose verdict or deciding figure differs from the committed scorecard,
each with why (the result that changed, by its ``Location``, field, old and new value; the
results the claim now stands on instead; its definition).

A build and ``claimbook check --results`` end with this table; an ``--out`` book carries it as a
page. Results are compared field by field as ``diff`` compares them (``inputs.diff.COMPARED``).
"""

from __future__ import annotations

import contextlib
import math
import textwrap
from dataclasses import dataclass

from claimbook.common.formatting import plain, quantity
from claimbook.engine.drift import Drift
from claimbook.engine.scorecard import parse_selection
from claimbook.inputs.diff import COMPARED

ABSENT = "—"  # a verdict or a figure a scorecard does not have


@dataclass(frozen=True)
class Move:
    claim: str
    verdict_before: str
    verdict_after: str
    figure_before: str
    figure_after: str
    why: tuple[str, ...]


def _by_claim(rows: list[dict]) -> dict[str, list[dict]]:
    """Each claim's rows, in the scorecard's order (indexed once: a scan per claim is quadratic).
    A row whose claim is no claim's id (a committed scorecard edited by hand: a list, say) is
    no claim's row."""
    grouped: dict = {}
    for row in rows:
        with contextlib.suppress(TypeError):  # (unhashable: equal to no id)
            grouped.setdefault(row.get("claim"), []).append(row)
    return grouped


def _deciding(rows: list[dict]) -> tuple[float | None, str, str]:
    """(figure, unit, case) of a claim's deciding row: the one marked, or its only row."""
    marked = [row for row in rows if row.get("deciding")] or (rows if len(rows) == 1 else [])
    if not marked:
        return None, "", ""
    row = marked[0]
    value = row.get("measured")
    value = None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
    return value, str(row.get("unit") or ""), str(row.get("scenario") or "")


def _figure_text(value: float | None, unit: str, case: str) -> str:
    if value is None:
        return ABSENT
    return quantity(value, unit) + (f" ({case})" if case else "")


def _same_figure(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _locations(rows: list[dict]) -> list[str]:
    """Every result a claim's rows (and its parts') stand on or cite, in order."""
    found = []
    for row in rows:
        found += [parse_selection(text).get("location", "") for text in row.get("selected") or []]
        found += [text for text in str(row.get("evidence") or "").split("; ")]
    return [location for location in dict.fromkeys(found) if location]


def _value(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ABSENT
    if isinstance(value, float):
        return plain(value, 6)  # never 1.0399e+06 beside 964,468
    return str(value)


def result_changes(
    locations: list[str], old_by_location: dict, new_by_location: dict, renamed=None
) -> list[str]:
    """What changed in each result, by its Location: each field's old and new value, the system
    renamed (``renamed``: {(organization, old system): new system}), or the result gone from the
    new file or new in it."""
    lines = []
    for location in locations:
        before, after = old_by_location.get(location), new_by_location.get(location)
        if before is None and after is None:
            continue
        new_name = (renamed or {}).get((before.get("organization"), before.get("system"))) if before else None
        if after is None and new_name:
            lines.append(
                f"{location}: the system is renamed {new_name} in the new results (the same results, each in the folder of the new name)"
            )
        elif after is None:
            lines.append(f"{location}: no longer in the results")
        elif before is None:
            lines.append(f"{location}: not in the published book's results")
        else:
            units = f" {after['units']}" if after.get("units") else ""
            for name in COMPARED:
                a, b = before.get(name), after.get(name)
                if name in before and name in after and _value(a) != _value(b):
                    unit = units if name == "result" else ""
                    lines.append(f"{location}: {name} {_value(a)}{unit} -> {_value(b)}{unit}")
    return lines


def by_location(results) -> dict[str, dict]:
    """A results table as {Location: its fields}, the index ``compare`` reads (None: no table)."""
    if results is None:
        return {}
    columns = [
        name
        for name in dict.fromkeys(("location", "organization", "system", *COMPARED))
        if name in results.columns
    ]
    records = results[columns].drop_duplicates("location").to_dict("records")
    return {record["location"]: record for record in records}


def compare(
    committed: list[dict], built: list[dict], old_results, new_results, drifts: list[Drift] = (), renamed=None
) -> list[Move]:
    """Every claim (not a part) of the new scorecard whose verdict or deciding figure differs from
    the committed one's, in the new scorecard's order, each with why. A claim the committed
    scorecard lacks is new (its "before" is a dash). ``renamed``: the systems renamed between the
    two results (``inputs.renames.detect``)."""
    old_index, new_index = by_location(old_results), by_location(new_results)
    drift_of = {item.claim: item for item in drifts}
    moves = []
    built_rows, committed_rows = _by_claim(built), _by_claim(committed)
    for claim in dict.fromkeys(row.get("claim") for row in built if not row.get("part_of")):
        after, before = built_rows[claim], committed_rows.get(claim, [])
        figure_after, figure_before = _deciding(after), _deciding(before)
        verdict_after = str(after[0].get("verdict"))
        verdict_before = str(before[0].get("verdict")) if before else ABSENT
        same = verdict_before == verdict_after and figure_before[2] == figure_after[2]
        if before and same and _same_figure(figure_before[0], figure_after[0]):
            continue
        family = [row for row in committed + built if claim in (row.get("claim"), row.get("part_of"))]
        moves.append(
            Move(
                claim,
                verdict_before,
                verdict_after,
                _figure_text(*figure_before) if before else ABSENT,
                _figure_text(*figure_after),
                _why(claim, before, after, family, (old_index, new_index, renamed), drift_of.get(claim)),
            )
        )
    return moves


def _why(claim, before, after, family, indexes, drift) -> tuple[str, ...]:
    if not before:
        return ("a claim the published book does not have",)
    reasons = []
    if drift is not None:  # the cases now on another system (a case lost is said by its result below)
        reasons += [f"now on other results: {change}" for change in drift.changes if ", now " in change]
    reasons += result_changes(_locations(family), *indexes)
    missing = [text.split(": ", 1)[0] for row in after for text in row.get("missing") or []]
    reasons += [f"no result for {text}" for text in dict.fromkeys(missing)]
    if before[0].get("definition") != after[0].get("definition"):
        reasons.append("its definition changed (the registry or a --param)")
    if not reasons:
        reasons.append(
            "results it is compared with changed (a rival's, the best of its class), or the engine did"
        )
    return tuple(dict.fromkeys(reasons))


def table(moves: list[Move], width: int = 100) -> str:
    """The moves as one table for a terminal: claim, verdict before -> after, deciding figure
    before -> after, then why, each reason on a line of its own, wrapped."""
    if not moves:
        return ""
    head = ("claim", "verdict before -> after", "deciding figure before -> after")
    cells = [
        (
            move.claim,
            f"{move.verdict_before} -> {move.verdict_after}",
            f"{move.figure_before} -> {move.figure_after}",
        )
        for move in moves
    ]
    widths = [max(len(row[column]) for row in [head, *cells]) for column in range(2)]
    lines = [f"what moved against the published book ({len(moves)} claim(s)):"]
    lines.append(
        "  " + "  ".join(text.ljust(widths[index]) if index < 2 else text for index, text in enumerate(head))
    )
    for move, row in zip(moves, cells):
        lines.append(
            "  "
            + "  ".join(text.ljust(widths[index]) if index < 2 else text for index, text in enumerate(row))
        )
        for reason in move.why:
            lines += textwrap.wrap(
                reason,
                width,
                initial_indent="      why: ",
                subsequent_indent="           ",
                break_on_hyphens=False,
                break_long_words=False,
            )
    return "\n".join(lines)


def verdict_changes(claim_ids, old_data, new_data) -> list[tuple[str, str, str]]:
    """(claim, verdict on ``old_data``, verdict on ``new_data``) of each claim named (a part
    stands for its claim) whose verdict differs between the two."""
    from claimbook import engine

    registry = new_data.registry
    tops = dict.fromkeys((registry.claim(claim_id).parent or claim_id) for claim_id in claim_ids)
    changes = []
    for claim_id in tops:
        before = engine.check(old_data.registry.claim(claim_id), old_data).verdict
        after = engine.check(registry.claim(claim_id), new_data).verdict
        if before != after:
            changes.append((claim_id, before, after))
    return changes
