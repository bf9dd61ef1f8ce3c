"""What changed between two tidy result tables, for the systems the claims use."""

from __future__ import annotations

import pandas as pd

from claimbook.schema import RESULT_KEY

DIFF_COLUMNS = (*RESULT_KEY, "status", "old_result", "new_result", "units", "change_percent")


def claimed_systems(registry) -> set[tuple[str, str]]:
    """(organization, system) of every system a claim's selectors name by both."""
    systems = set()

    def visit(value):
        if isinstance(value, dict):
            organization, system = value.get("organization"), value.get("system")
            if isinstance(organization, str) and system is not None:
                for name in system if isinstance(system, list) else [system]:
                    systems.add((organization, str(name)))
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    for claim in registry.all_claims():
        visit(claim.fields)
    return systems


def diff_results(
    old: pd.DataFrame, new: pd.DataFrame, systems: set[tuple[str, str]] | None = None
) -> pd.DataFrame:
    """New, removed and changed results (by result key); ``systems`` limits the comparison."""
    key = list(RESULT_KEY)
    if systems is not None:

        def keep(frame):
            pairs = pd.Series(list(zip(frame["organization"], frame["system"])), index=frame.index)
            return frame[pairs.isin(systems)]

        old, new = keep(old), keep(new)
    merged = old[key + ["result", "units"]].merge(
        new[key + ["result", "units"]], on=key, how="outer", suffixes=("_old", "_new"), indicator=True
    )
    status = (
        merged["_merge"].map({"left_only": "removed", "right_only": "new", "both": "unchanged"}).astype(str)
    )
    changed = (merged["_merge"] == "both") & (
        (merged["result_old"] != merged["result_new"]) | (merged["units_old"] != merged["units_new"])
    )
    status[changed] = "changed"
    table = pd.DataFrame(
        {
            **{name: merged[name] for name in key},
            "status": status,
            "old_result": merged["result_old"],
            "new_result": merged["result_new"],
            "units": merged["units_new"].fillna(merged["units_old"]),
        }
    )
    table["change_percent"] = 100 * (table["new_result"] / table["old_result"] - 1)
    table = table[table["status"] != "unchanged"]
    order = {"changed": 0, "new": 1, "removed": 2}
    table = table.sort_values(
        ["status", *key], key=lambda column: column.map(order) if column.name == "status" else column
    )
    return table.reset_index(drop=True)[list(DIFF_COLUMNS)]


def change_counts(table: pd.DataFrame) -> str:
    """The one-line summary of a diff table: "3 changed, 1 new, 0 removed"."""
    counts = table["status"].value_counts()
    return ", ".join(f"{counts.get(status, 0)} {status}" for status in ("changed", "new", "removed"))


def format_diff(table: pd.DataFrame) -> str:
    if table.empty:
        return "no differences"
    summary = change_counts(table)
    shown = table.assign(
        old_result=table["old_result"].map(lambda value: "" if pd.isna(value) else f"{value:,.4g}"),
        new_result=table["new_result"].map(lambda value: "" if pd.isna(value) else f"{value:,.4g}"),
        change_percent=table["change_percent"].map(lambda value: "" if pd.isna(value) else f"{value:+.1f}%"),
    )
    return summary + "\n" + shown.to_string(index=False)


def result_changes(old: pd.DataFrame, new: pd.DataFrame) -> str:
    """What replacing the tidy table ``old`` by ``new`` changes, for a refusal message:
    "3 results changed, 1 new, 0 removed"."""
    table = diff_results(old, new)
    changed = int((table["status"] == "changed").sum())
    counts = change_counts(table).replace(" changed", f" result{'' if changed == 1 else 's'} changed", 1)
    if table.empty:  # the same results; another column (a name, a stated wattage) differs
        return f"{counts} (other columns differ)"
    return counts
