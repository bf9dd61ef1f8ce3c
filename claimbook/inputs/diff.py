"""What changed between two tidy result tables, for the results the claims select.

A result is matched across the two tables by its key (who ran what on which system); it has
changed when its result or units did, or any other field a verdict depends on (its system's
name, its accelerator, its size, its availability, its flags, its software, its direction, its
stated power). Each
change says which claims' selections it touches, in the old table or the new one.
"""

from __future__ import annotations

import pandas as pd

from claimbook.common.formatting import plain, plural, signed_percent
from claimbook.inputs.schema import RESULT_KEY, TIDY_COLUMNS

# Fields compared besides the key: every column of the tidy table a selector, a caveat or a
# verdict reads (the result, its direction, the stated power...), but the round (two rounds'
# tables differ in it everywhere) and the per-accelerator figure (the result over the total,
# both compared: the reader holds it to that).
COMPARED = tuple(name for name in TIDY_COLUMNS if name not in (*RESULT_KEY, "round", "per_accelerator"))
DIFF_COLUMNS = (
    *RESULT_KEY,
    "status",
    "fields",
    "old_result",
    "new_result",
    "units",
    "change_percent",
    "claims",
)


def _same(old: pd.Series, new: pd.Series) -> pd.Series:
    """Equal values (18 and 18.0 alike: an outer merge turns a column with gaps into floats)."""
    both_missing = old.isna() & new.isna()
    equal = (old == new).astype("boolean").fillna(False).astype(bool)
    return both_missing | equal


def diff_results(
    old: pd.DataFrame,
    new: pd.DataFrame,
    systems: set[tuple[str, str]] | None = None,
    touched: dict[tuple, list[str]] | None = None,
    only_touched: bool = True,
) -> pd.DataFrame:
    """New, removed and changed results (by result key), the fields that changed, and the
    claims each touches (``touched``, from ``touched_claims``); ``systems`` limits the comparison
    to those systems, ``only_touched`` to the results the claims select."""
    key = list(RESULT_KEY)
    compared = [name for name in COMPARED if name in old.columns and name in new.columns]
    if systems is not None:
        old, new = _of_systems(old, systems), _of_systems(new, systems)
    merged = old[key + compared].merge(
        new[key + compared], on=key, how="outer", suffixes=("_old", "_new"), indicator=True
    )
    status, fields, changed = _statuses(merged, compared)
    keys = list(zip(*(merged[name] for name in key)))
    table = pd.DataFrame(
        {
            **{name: merged[name] for name in key},
            "status": status,
            "fields": fields,
            "old_result": merged["result_old"],
            "new_result": merged["result_new"],
            "units": merged["units_new"].fillna(merged["units_old"]),
            "claims": [", ".join((touched or {}).get(item, [])) for item in keys],
        }
    )
    table["change_percent"] = 100 * (table["new_result"] / table["old_result"] - 1)
    table = _in_order(table, key, touched is not None and only_touched)
    kept = set(zip(*(table[name] for name in key)))
    shown = merged[changed & pd.Series([item in kept for item in keys], index=merged.index)]
    table.attrs["values"] = _value_changes(shown, compared)
    return table


def _of_systems(frame: pd.DataFrame, systems: set[tuple[str, str]]) -> pd.DataFrame:
    """The results of those (organization, system) pairs."""
    pairs = pd.Series(list(zip(frame["organization"], frame["system"])), index=frame.index)
    return frame[pairs.isin(systems)]


def _statuses(merged: pd.DataFrame, compared: list[str]) -> tuple[pd.Series, list[str], pd.Series]:
    """Each merged result's status (new, removed, changed or unchanged), the fields that changed
    in it (", "-joined), and whether it changed."""
    status = (
        merged["_merge"].map({"left_only": "removed", "right_only": "new", "both": "unchanged"}).astype(str)
    )
    both = merged["_merge"] == "both"
    differing = {name: both & ~_same(merged[f"{name}_old"], merged[f"{name}_new"]) for name in compared}
    fields = [
        ", ".join(name for name in compared if differing[name].iloc[position])
        for position in range(len(merged))
    ]
    changed = both & pd.Series([bool(text) for text in fields], index=merged.index)
    status[changed] = "changed"
    return status, fields, changed


def _in_order(table: pd.DataFrame, key: list[str], only_touched: bool) -> pd.DataFrame:
    """The results that differ (only those a claim selects, with ``only_touched``): the changed
    ones first, then the new, then the removed, each by key."""
    table = table[table["status"] != "unchanged"]
    if only_touched:
        table = table[table["claims"] != ""]
    order = {"changed": 0, "new": 1, "removed": 2}
    table = table.sort_values(
        ["status", *key], key=lambda column: column.map(order) if column.name == "status" else column
    )
    return table.reset_index(drop=True)[list(DIFF_COLUMNS)]


def _value_changes(merged: pd.DataFrame, compared) -> list[str]:
    """Each changed value of a field other than the result, once: "accelerator: 'A' -> 'B' (6 results)"."""
    lines = []
    for name in compared:
        if name in ("result", "location"):
            continue
        pairs = merged[~_same(merged[f"{name}_old"], merged[f"{name}_new"])]
        counts = pairs.groupby([pairs[f"{name}_old"].astype(str), pairs[f"{name}_new"].astype(str)]).size()
        for (before, after), count in counts.items():
            lines.append(f"{name}: {before!r} -> {after!r} ({plural(count, 'result')})")
    return lines


def change_counts(table: pd.DataFrame) -> str:
    """The one-line summary of a diff table: "3 changed, 1 new, 0 removed"."""
    counts = table["status"].value_counts()
    return ", ".join(f"{counts.get(status, 0)} {status}" for status in ("changed", "new", "removed"))


def _line(row) -> str:
    """One result of a diff on one line: who ran what, then what changed, numbers in one format."""
    who = f"{row['organization']} {row['system']} {row['model']} {row['scenario']} ({row['division']})"
    units = f" {row['units']}" if isinstance(row["units"], str) and row["units"] else ""
    if row["status"] == "new":
        return f"new: {who}: {plain(row['new_result'])}{units}"
    if row["status"] == "removed":
        return f"removed: {who}: {plain(row['old_result'])}{units}"
    fields = [name for name in str(row["fields"]).split(", ") if name]
    said = []
    if "result" in fields:
        change = "" if pd.isna(row["change_percent"]) else f" ({signed_percent(row['change_percent'])})"
        said.append(f"result {plain(row['old_result'])} -> {plain(row['new_result'])}{units}{change}")
    others = [name for name in fields if name != "result"]
    if others:
        said.append(f"{', '.join(others)} changed")
    return f"changed: {who}: {'; '.join(said)}"


def format_diff(table: pd.DataFrame, renamed: list[str] = (), moved: list[str] | None = None) -> str:
    """A diff for a terminal: the counts, one line per result (its claims indented below it),
    the values that changed, the systems renamed, the claims touched and those whose verdict
    the change moves (``moved``: None when the engine was not asked)."""
    if table.empty and not renamed:
        return "no differences"
    lines = [change_counts(table)]
    for row in table.to_dict("records"):
        lines.append(_line(row))
        if row["claims"]:
            lines.append(f"  claims: {row['claims']}")
    values = table.attrs.get("values") or []
    if values:
        lines += ["Values that changed:", *(f"  {line}" for line in values)]
    if renamed:
        lines += ["Systems renamed (the same results in the same folders, under another name):"]
        lines += [f"  {line}" for line in renamed]
    claims = sorted({name for cell in table["claims"] for name in cell.split(", ") if name})
    if claims:
        lines.append(f"Claims whose selections these touch ({len(claims)}): {', '.join(claims)}")
    if moved:
        lines.append(f"Claims whose verdict this moves ({len(moved)}):")
        lines += [f"  {line}" for line in moved]
    elif claims and moved is not None:
        lines.append("No claim's verdict moves.")
    return "\n".join(lines)


def result_changes(old: pd.DataFrame, new: pd.DataFrame) -> str:
    """What replacing the tidy table ``old`` by ``new`` changes, for a refusal message:
    "3 results changed, 1 new, 0 removed", and the results whose other fields changed."""
    table = diff_results(old, new)
    changed = table[table["status"] == "changed"]
    by_result = pd.Series(
        [bool({"result", "units"} & set(text.split(", "))) for text in changed["fields"]],
        index=changed.index,
        dtype=bool,
    )
    results = int(by_result.sum())
    counts = change_counts(table).replace(
        f"{len(changed)} changed", f"{plural(results, 'result')} changed", 1
    )
    others = changed[~by_result]
    if not others.empty:
        fields = sorted({name for text in others["fields"] for name in text.split(", ")})
        counts += f"; {len(others)} more with other fields changed ({', '.join(fields)})"
    if table.empty:  # the same results and fields; another column (a stated wattage) differs
        return f"{counts} (other columns differ)"
    return counts
