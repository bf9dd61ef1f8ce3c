"""The scorecard: each chapter records its verdicts in its executed notebook, the build collects them.

A chapter calls ``publish(rows)``: the rows appear as a table for readers and, under a mime
type of our own, as JSON the build reads back from the executed notebook. The notebook is the
single record of what it measured; nothing is written to disk from inside a kernel.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import nbformat
import pandas as pd

from claimbook.verdict import VERDICTS

MIME_TYPE = "application/vnd.claimbook.scorecard+json"
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


def _clean(value):
    """JSON-safe values: NaN and infinities become null, numpy scalars plain Python."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def normalise(rows: list[dict]) -> list[dict]:
    """Rows with every scorecard column, checked; raises ScorecardError naming the row."""
    cleaned = []
    for index, row in enumerate(rows):
        missing = [name for name in REQUIRED if name not in row]
        if missing:
            raise ScorecardError(f"scorecard row {index} ({row.get('claim')}): missing {', '.join(missing)}")
        if row["verdict"] not in VERDICTS:
            raise ScorecardError(f"scorecard row {index} ({row['claim']}): unknown verdict {row['verdict']!r}")
        cleaned.append({name: _clean(row.get(name)) for name in COLUMNS})
    return cleaned


def publish(rows: list[dict]):
    """Record the rows for the build, with a plain-text summary (call once per chapter).

    The chapter cell that calls this is tagged ``remove-cell``: readers see the verdicts in the
    chapter's own tables, and the book's renderer never meets our mime type.
    """
    from IPython.display import display

    cleaned = normalise(rows)
    table = pd.DataFrame(cleaned, columns=list(COLUMNS))[["claim", "scenario", "claimed", "measured", "unit", "verdict"]]
    display({MIME_TYPE: cleaned, "text/plain": table.to_string(index=False)}, raw=True)


def collect(notebook_path: str | os.PathLike) -> list[dict]:
    """The scorecard rows an executed chapter recorded."""
    notebook = nbformat.read(notebook_path, as_version=4)
    rows = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if MIME_TYPE in data:
                rows.extend(data[MIME_TYPE])
    return normalise(rows)


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
