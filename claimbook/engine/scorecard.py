"""The scorecard: every verdict of the book, one row per claim and case, one row type.

A check (``claimbook.engine``) becomes scorecard rows here and nowhere else. Chapters record
their rows in their executed notebooks (``publish``); the build collects them, adds the claims
that need no page, and writes ``scorecard.json`` and ``scorecard.csv``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import pandas as pd

from claimbook.common.spreadsheet import safe_frame
from claimbook.engine import notebook_records
from claimbook.engine.caveats import CODES
from claimbook.engine.quantifiers import figure
from claimbook.engine.verdict import SUPPORTED_WITH_CAVEATS, VERDICTS

KIND = "scorecard"
COLUMNS = (
    "announcement",
    "claim",
    "part_of",
    "chapter",
    "kind",
    "scenario",
    "claimed",
    "measured",
    "unit",
    "verdict",
    "reaches_claim",
    "deciding",
    "range",
    "caveats",
    "acknowledged",
    "division",
    "availability",
    "reason",
    "evidence",
    "result_ids",
    "measured_vs_best_any",
    "best_any_class",
    "per_gpu_ratio",
    "per_watt_ratio",
    "missing",
    "selected",
    "definition",
)
REQUIRED = ("announcement", "claim", "kind", "verdict", "reason", "caveats", "division", "availability")
LIST_COLUMNS = ("caveats", "acknowledged", "division", "availability", "result_ids", "missing", "selected")
SEPARATOR = " | "  # between the parts of a selection record


def selection_text(entry: tuple) -> str:
    """A selection record as the scorecard writes it: "subject | NVIDIA | VR-NVL72_... | ./closed/...",
    the role followed by "×N" when a sum counts the result N times."""
    role, organization, system, location, count = entry
    return SEPARATOR.join([role + (f" ×{count}" if count != 1 else ""), organization, system, location])


def parse_selection(text: str) -> dict:
    """A scorecard's selection record back as its parts: role, count, organization, system, location."""
    parts = text.split(SEPARATOR)
    role, _, count = parts[0].partition(" ×")
    padded = parts[1:] + [""] * (3 - len(parts[1:]))
    return {
        "role": role,
        "count": int(count) if count.isdigit() else 1,
        "organization": padded[0],
        "system": padded[1],
        "location": SEPARATOR.join(padded[2:]),
    }


def definition_digest(claim) -> str:
    """A short digest of what a claim says (its fields): drift is judged only for a claim whose
    definition is what it was, since a changed claim is meant to stand on other results."""
    text = json.dumps(
        {"kind": claim.kind, "fields": claim.fields}, sort_keys=True, default=str, ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _selected(case, used: pd.DataFrame) -> list[str]:
    """The results a case stands on, by role; a kind that does not name roles gives its evidence."""
    if case.selected:
        return [selection_text(entry) for entry in case.selected]
    return _from_locations(case.evidence, used)


def _from_locations(locations, used: pd.DataFrame) -> list[str]:
    if used.empty:
        return []
    known = dict(zip(used["location"], zip(used["organization"], used["system"], strict=True), strict=True))
    found = []
    for location in locations:
        names = known.get(location)
        if names is not None:
            found.append(selection_text(("result", str(names[0]), str(names[1]), location, 1)))
    return found


class ScorecardError(ValueError):
    """Scorecard rows that are incomplete or use a verdict or caveat outside the vocabulary."""


def _number(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def rows_for(check, chapter: str) -> list[dict]:
    """The scorecard rows of one check: one per case (one row if it has none), then its parts'."""
    used = check.rows if check.rows is not None else pd.DataFrame()
    shared = _shared(check, chapter, used)
    rows = [_case_row(case, check, shared, used) for case in check.cases or ()]
    if not rows:
        rows.append(_claim_row(check.claim, shared, used))
    for part in check.parts:
        rows.extend(rows_for(part, chapter))
    return rows


def _shared(check, chapter: str, used: pd.DataFrame) -> dict:
    """The columns every row of a check has: the claim, its verdict, caveats and the results used."""
    claim = check.claim
    return {
        "announcement": claim.announcement,
        "claim": claim.id,
        "part_of": claim.parent or "",
        "chapter": chapter,
        "kind": claim.kind,
        "verdict": check.verdict,
        "range": check.measured_range(),
        "caveats": list(check.caveats),
        "acknowledged": list(check.acknowledged),
        "division": sorted(set(used["division"])) if not used.empty else [],
        "availability": sorted(set(used["availability"])) if not used.empty else [],
        "reason": " ".join([check.reason, *check.notes, *check.context]).strip(),
        "result_ids": list(claim.result_ids),
        "unit": claim.unit,
        "missing": list(check.missing),
        "definition": definition_digest(claim),
    }


def _case_row(case, check, shared: dict, used: pd.DataFrame) -> dict:
    return {
        **shared,
        "scenario": case.label,
        "claimed": _number(case.claimed),
        "measured": _number(case.measured),
        "unit": case.unit or check.claim.unit,
        "reaches_claim": case.reaches,
        "deciding": case.label == check.deciding,
        "evidence": "; ".join(case.evidence),
        "measured_vs_best_any": _number(case.detail.measured_vs_best_any),
        # the class the best-of-any figure is of ("NVIDIA GB300, 72 GPUs"), named beside it
        "best_any_class": case.detail.best_class if case.detail.measured_vs_best_any is not None else None,
        "per_gpu_ratio": _number(case.detail.per_gpu_ratio),
        "per_watt_ratio": _number(case.detail.per_watt_ratio),
        "selected": _selected(case, used),
    }


def _claim_row(claim, shared: dict, used: pd.DataFrame) -> dict:
    """The one row of a check without cases: the claim's own figure, the results it read."""
    claimed = None if isinstance(claim.claimed, (dict, list)) else figure(claim.claimed)
    claimed = None if claimed is None else claimed.value
    locations = sorted(set(used["location"])) if not used.empty else []
    return {
        **shared,
        "scenario": "",
        "claimed": _number(claimed),
        "measured": None,
        "reaches_claim": None,
        "deciding": True,
        "evidence": "; ".join(locations),
        "measured_vs_best_any": None,
        "best_any_class": None,
        "per_gpu_ratio": None,
        "per_watt_ratio": None,
        "selected": _from_locations(locations, used) if locations else [],
    }


def normalise(rows: list[dict]) -> list[dict]:
    """Rows with every column, checked; raises ScorecardError naming the row."""
    cleaned = []
    for index, row in enumerate(rows):
        missing = [name for name in REQUIRED if name not in row]
        if missing:
            raise ScorecardError(f"scorecard row {index} ({row.get('claim')}): missing {', '.join(missing)}")
        if row["verdict"] not in VERDICTS:
            raise ScorecardError(
                f"scorecard row {index} ({row['claim']}): unknown verdict {row['verdict']!r}"
            )
        unknown = [code for code in row["caveats"] if code not in CODES]
        if unknown:
            raise ScorecardError(
                f"scorecard row {index} ({row['claim']}): unknown caveat(s) {', '.join(unknown)}"
            )
        if row["verdict"] == SUPPORTED_WITH_CAVEATS and not row["caveats"]:
            raise ScorecardError(
                f"scorecard row {index} ({row['claim']}): 'supported with caveats' without a caveat"
            )
        cleaned.append(
            {
                name: (
                    list(row.get(name) or [])
                    if name in LIST_COLUMNS
                    else notebook_records.clean(row.get(name))
                )
                for name in COLUMNS
            }
        )
    return cleaned


def _published(checks, chapter: str) -> list[dict]:
    return normalise([row for check in checks for row in rows_for(check, chapter)])


def publish(checks, chapter: str):
    """Record a chapter's checks for the build (in a cell tagged ``remove-cell``)."""
    notebook_records.publish(
        KIND,
        _published(checks, chapter),
        COLUMNS,
        ("claim", "scenario", "claimed", "measured", "unit", "verdict"),
    )


def foretold(checks, chapter: str) -> list[dict]:
    """The rows a page that publishes ``checks`` for ``chapter`` records, as ``collect`` reads
    them back: what the build expects of a page still running (the page says, once it ran)."""
    return normalise(notebook_records.as_recorded(_published(checks, chapter), COLUMNS))


def collect(notebook_path: str | os.PathLike) -> list[dict]:
    """The scorecard rows an executed chapter recorded."""
    return normalise(notebook_records.collect(notebook_path, KIND))


def frame(rows: list[dict]) -> pd.DataFrame:
    """The rows as a table, list columns joined with ';' (the CSV form)."""
    return _frame(normalise(rows))


def _frame(cleaned: list[dict]) -> pd.DataFrame:
    """``frame`` of rows ``normalise`` has cleaned already."""
    table = pd.DataFrame(cleaned, columns=list(COLUMNS))
    for column in LIST_COLUMNS:
        table[column] = table[column].map(lambda values: ";".join(values))
    return table


def write(rows: list[dict], directory: str | os.PathLike) -> tuple[Path, Path]:
    """``scorecard.json`` and ``scorecard.csv`` in ``directory``; same rows, same order."""
    directory = Path(directory)
    cleaned = normalise(rows)
    json_path = directory / "scorecard.json"
    csv_path = directory / "scorecard.csv"
    json_path.write_text(json.dumps(cleaned, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    # A download: text a spreadsheet would run as a formula is written as text (the JSON keeps it).
    safe_frame(_frame(cleaned)).to_csv(csv_path, index=False, lineterminator="\n")
    return json_path, csv_path
