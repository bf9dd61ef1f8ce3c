"""The modes ``count`` and ``only`` of a presence claim: the distinct values of a field among
the results, against the claimed count (read by the claim's quantifier) and the names given."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.core import Case, Data, rows_of, select_for
from claimbook.engine.kinds._presence_common import (
    COUNTED,
    counted,
    decided,
    detail_check,
    division_note,
    found_table,
    named_of,
    selected_rows,
    strongest,
    validate_detail,
    values_of,
    with_categories,
)


def validate_counted(claim: Claim) -> None:
    if claim.get("count") is not None and not (
        isinstance(claim.get("count"), str) and claim.get("count") in COUNTED
    ):
        kinds.fail(claim, "count", f"count one of {', '.join(COUNTED)}")
    if claim.get("only") is not None and not isinstance(claim.get("only"), list):
        kinds.fail(claim, "only", "the list of values the results must be on, exactly")
    named = claim.get("named")
    if named is not None and not _names(named):  # (a name alone would be read letter by letter)
        kinds.fail(claim, "named", "a list of names, or {announcement's name: data's value or values}")
    claimed = claim.claimed
    if claim.get("only") is None and claimed is not None and not _a_count(claimed):
        kinds.fail(claim, "claimed", f"a count is a whole number, at least 0, not {claimed!r}")
    definitions = claim.get("definitions")
    if definitions is not None and not (
        isinstance(definitions, list)
        and all(isinstance(item, dict) and item.get("label") for item in definitions)
    ):
        kinds.fail(claim, "definitions", "a list of the count's other readings, each a selector with a label")
    validate_detail(claim)


def _names(named) -> bool:
    """Whether a claim's ``named`` is a list of names or {name: value or list of values}."""

    def name(value) -> bool:
        return isinstance(value, (str, int)) and not isinstance(value, bool)

    if isinstance(named, dict):
        values = [
            item for value in named.values() for item in (value if isinstance(value, list) else [value])
        ]
        return all(map(name, named)) and all(map(name, values))
    return isinstance(named, list) and all(map(name, named))


def _a_count(written) -> bool:
    """Whether a registry's claimed count is a whole number, at least 0 ("7", 7 or 7.0)."""
    try:
        value = quantifiers.figure(written).value
    except (TypeError, ValueError):
        return False
    return not isinstance(written, bool) and value >= 0 and float(value).is_integer()


def check_only(claim: Claim, data: Data):
    """The distinct values of the counted field must be exactly those the claim lists."""
    rows, refused = selected_rows(claim, data)
    if refused:
        return refused
    field = claim.get("count") or "organization"
    values, found = values_of(data, rows, field), kinds.Findings()
    only = [str(value) for value in claim.get("only")]
    extra = [value for value in values if value not in only]
    absent = [value for value in only if value not in values]
    holds = not extra and not absent
    case = counted(field, len(values), float(len(only)), field, holds, rows["location"])
    detail_check(claim, rows, found)
    submitters = sorted(set(rows["organization"]))
    besides = f"; besides {', '.join(only)} there is {', '.join(extra)}" if extra else ""
    none_on = f"; none on {', '.join(absent)}" if absent else ""
    reason = (
        f"All {len(rows)} such results{division_note(rows)} are on {field} {', '.join(values) or 'none'} "
        f"(from {formatting.plural(len(submitters), 'submitter')}: {', '.join(submitters) or 'none'})"
        f"{besides}{none_on}."
    )
    evidence = rows_of([strongest(rows, field) if field != "category" else rows])
    return decided(claim, case, reason, evidence, found, tables={"found": found_table(data, rows, field)})


@dataclass(frozen=True)
class _Tally:
    """A count as first read: the figure, whether it is the claimed one (None: cannot be checked,
    a named value without results), why, the rows behind it, and whether the claim understates it."""

    measured: float
    holds: bool | None
    reason: str
    kept: pd.DataFrame
    understates: bool = False


def _judged(claim: Claim, count: float):
    """A count against the claimed one, read by the claim's quantifier (None with no claimed count)."""
    if claim.claimed is None:
        return None
    return quantifiers.judge(quantifiers.read(claim), float(count), quantifiers.figure(claim.claimed), "")


def _evidence(data: Data, kept: pd.DataFrame, field: str) -> pd.DataFrame:
    """The results a count stands on: the strongest of each value counted."""
    if field != "category":
        return strongest(kept, field)
    return strongest(with_categories(data, kept), "category").drop(columns="category")


def check_count(claim: Claim, data: Data):
    """The distinct values of a field among the claim's rows, against the claimed count and the
    names the claim gives; each of its ``definitions`` another reading, shown beside it."""
    rows, refused = selected_rows(claim, data)
    if refused:
        return refused
    field = claim.get("count")
    found, tables = kinds.Findings(), {"found": found_table(data, rows, field)}
    names = named_of(claim)
    claimed = None if claim.claimed is None else quantifiers.figure(claim.claimed).value
    tally = _tally(claim, data, rows, field, names, found.notes, tables)
    evidence = _evidence(data, tally.kept, field)  # (the case's results are the ones the page cites)
    case = counted(
        f"{field} count",
        tally.measured,
        claimed,
        claim.unit or field,
        tally.holds,
        sorted(set(evidence["location"])),
    )
    reason = tally.reason
    if tally.understates:
        found.codes.add("understated")
    readings = _definitions(claim, data, field, names)
    if readings:
        tables["definitions"] = pd.DataFrame(readings)
        if claimed is not None:
            reason, case = _reread(claim, readings, case, found)
    detail_check(claim, tally.kept, found)
    if claimed is not None:
        found.notes.append(quantifiers.read(claim).sentence(quantifiers.figure(claim.claimed), claim.unit))
    return decided(claim, case, reason, rows_of([evidence]), found, tables=tables)


def _tally(claim, data, rows, field, names, notes, tables) -> _Tally:
    """The count of the field's values, or of the names the claim gives that the data has: a
    named value the data has no result for cannot be checked (never held against the claim),
    unless the claim's own count already contradicts the names it gives."""
    found = values_of(data, rows, field)
    if not names:
        judgment = _judged(claim, len(found))
        return _Tally(
            float(len(found)),
            True if judgment is None else judgment.holds,
            f"The data has {len(found)}: {', '.join(found) or 'none'}.",
            rows,
            bool(judgment and judgment.understates),
        )
    present = {name: [value for value in values if value in found] for name, values in names.items()}
    matched = [name for name, values in present.items() if values]
    absent = [name for name, values in present.items() if not values]
    mapped = {value for values in names.values() for value in values}
    unnamed = [value for value in found if value not in mapped]
    judgment = _judged(claim, len(names))
    holds = None if absent else True
    reason = f"{len(matched)} of the {len(names)} named ({field}) have results"
    if absent:
        reason += _absent_reason(data, field, {name: names[name] for name in absent})
    if judgment is not None and not judgment.holds:
        holds = False
        reason += f"; the claim names {len(names)}, not {quantifiers.figure(claim.claimed).text()}"
    reason += "."
    if unnamed:
        notes.append(
            f"The data also has {formatting.quantity(len(unnamed), field)} the claim does not name: {', '.join(unnamed)}"
        )
    tables["named"] = pd.DataFrame(
        {"named": list(names), "in the data as": [", ".join(present[name]) or "—" for name in names]}
    )
    kept = rows[rows[field].astype(str).isin(mapped)] if field != "category" else rows
    return _Tally(float(len(matched)), holds, reason, kept)


def _absent_reason(data: Data, field: str, absent: dict[str, list[str]]) -> str:
    """Why a named value without a result among the claim's rows cannot be checked: where the
    round has it from other systems, none of the claim's systems submitted it (a missing
    submission is no evidence either way); only a value the round lacks altogether may be a
    result published under another name."""
    everywhere = values_of(data, data.results, field)
    elsewhere = [name for name, values in absent.items() if set(values) & set(everywhere)]
    unknown = [name for name in absent if name not in elsewhere]
    text = ""
    if elsewhere:
        wanted = {value for name in elsewhere for value in absent[name]}
        frame = with_categories(data, data.results) if field == "category" else data.results
        others = frame[frame[field].astype(str).isin(wanted)]
        vendors = sorted(set(others["vendor"].astype(str))) if "vendor" in others.columns else []
        text += (
            f"; no result of the claim's systems for {', '.join(elsewhere)}, which the round has from other "
            f"systems only ({formatting.plural(len(others), 'result')}"
            + (f", on {' and '.join(vendors)} GPUs" if vendors else "")
            + "): none of the claim's systems submitted it, and a missing submission is no "
            "evidence either way (cannot be checked)"
        )
    if unknown:
        text += (
            f"; no result in the round for {', '.join(unknown)}, which the data cannot tell from a result "
            "published under another name: cannot be checked, not evidence against the claim"
        )
    return text


def _reread(claim: Claim, readings: list[dict], case: Case, found: kinds.Findings) -> tuple[str, Case]:
    """A count with several definitions: judged on the first, the others shown (and a caveat
    where the verdict would depend on which one a reader takes)."""
    claimed = quantifiers.figure(claim.claimed)
    holding = {reading["definition"]: _judged(claim, reading["count"]).holds for reading in readings}
    first = readings[0]
    other = readings[1:]
    matching = [reading["definition"] for reading in other if holding[reading["definition"]]]
    differ = [reading for reading in other if holding[reading["definition"]] != holding[first["definition"]]]
    if (not holding[first["definition"]] and matching) or (holding[first["definition"]] and differ):
        found.codes.add("definition-dependent")
    if not holding[first["definition"]] and matching:
        found.notes.append(f"The count is {claimed.text()} only if one counts {' or '.join(matching)}")
    described = "; ".join(f"{reading['definition']}: {reading['count']}" for reading in other)
    reason = (
        f"Counted as {first['definition']}: {first['count']} "
        f"({first['organizations'] or 'none'}), claimed {claimed.text()}. Other readings give {described}."
    )
    return reason, replace(case, measured=float(first["count"]), reaches=holding[first["definition"]])


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
        values = values_of(data, rows, field)
        if definition.get("named_only", True) and names:
            values = sorted({mapped[value] for value in values if value in mapped})
        readings.append(
            {"definition": str(definition["label"]), "count": len(values), "organizations": ", ".join(values)}
        )
    return readings
