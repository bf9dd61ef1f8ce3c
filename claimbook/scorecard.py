"""The scorecard: every verdict of the book, one row per claim and scenario.

Chapters record their rows with ``publish`` (see ``claimbook.records``); the build collects
them from the executed notebooks and writes ``scorecard.json`` and ``scorecard.csv``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from claimbook import records
from claimbook.verdict import VERDICTS

KIND = "scorecard"
MIME_TYPE = records.mime_type(KIND)
COLUMNS = (
    "claim",
    "chapter",
    "scenario",
    "claimed",
    "measured",
    "unit",
    "verdict",
    "reaches_claim",
    "measured_vs_best_any",
    "per_gpu_ratio",
    "per_watt_ratio",
    "reason",
    "evidence",
)
REQUIRED = ("claim", "chapter", "scenario", "claimed", "measured", "unit", "verdict", "evidence")


class ScorecardError(ValueError):
    """Scorecard rows that are incomplete or use a verdict outside the fixed vocabulary."""


def normalise(rows: list[dict]) -> list[dict]:
    """Rows with every scorecard column, checked; raises ScorecardError naming the row."""
    cleaned = []
    for index, row in enumerate(rows):
        missing = [name for name in REQUIRED if name not in row]
        if missing:
            raise ScorecardError(f"scorecard row {index} ({row.get('claim')}): missing {', '.join(missing)}")
        if row["verdict"] not in VERDICTS:
            raise ScorecardError(f"scorecard row {index} ({row['claim']}): unknown verdict {row['verdict']!r}")
        cleaned.append({name: records.clean(row.get(name)) for name in COLUMNS})
    return cleaned


def publish(rows: list[dict]):
    """Record a chapter's verdict rows for the build (call once per chapter, in a cell tagged
    ``remove-cell``: readers see the verdicts in the chapter's own blocks)."""
    records.publish(KIND, normalise(rows), COLUMNS, ("claim", "scenario", "claimed", "measured", "unit", "verdict"))


def collect(notebook_path: str | os.PathLike) -> list[dict]:
    """The scorecard rows an executed chapter recorded."""
    return normalise(records.collect(notebook_path, KIND))


def uncheckable_rows(registry) -> list[dict]:
    """Rows for the claims that no public MLPerf data can check, with the reason."""
    return [
        {
            "claim": claim.id,
            "chapter": "",
            "scenario": "",
            "claimed": claim.figure,
            "measured": None,
            "unit": claim.unit,
            "verdict": "cannot be checked",
            "reason": claim.uncheckable_reason.strip(),
            "evidence": "",
        }
        for claim in registry.claims
        if claim.uncheckable_reason
    ]


def write(rows: list[dict], directory: str | os.PathLike) -> tuple[Path, Path]:
    """``scorecard.json`` and ``scorecard.csv`` in ``directory``; same rows, same order."""
    directory = Path(directory)
    cleaned = normalise(rows)
    json_path = directory / "scorecard.json"
    csv_path = directory / "scorecard.csv"
    json_path.write_text(json.dumps(cleaned, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    pd.DataFrame(cleaned, columns=list(COLUMNS)).to_csv(csv_path, index=False, lineterminator="\n")
    return json_path, csv_path
