"""Machine-readable records a chapter leaves in its executed notebook for the build.

A chapter calls ``publish(kind, rows)``; the rows travel as a notebook output under the mime
type ``application/vnd.claimbook.KIND+json`` (validated by nbval like any other output), and
the build reads them back with ``collect``. Nothing is written to disk from inside a kernel.
The cell that publishes is tagged ``remove-cell``, so the book's renderer never meets it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd


def mime_type(kind: str) -> str:
    return f"application/vnd.claimbook.{kind}+json"


def clean(value):
    """JSON-safe values: NaN and infinities become null, numpy scalars plain Python."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA:
        return None
    return value


def publish(kind: str, rows: list[dict], columns, summary_columns) -> None:
    """Record ``rows`` (already validated) with a plain-text summary of ``summary_columns``."""
    from IPython.display import display

    cleaned = [{name: clean(row.get(name)) for name in columns} for row in rows]
    summary = pd.DataFrame(cleaned, columns=list(columns))[list(summary_columns)]
    display({mime_type(kind): cleaned, "text/plain": summary.to_string(index=False)}, raw=True)


def collect(notebook_path: str | os.PathLike, kind: str) -> list[dict]:
    """Every row of ``kind`` an executed notebook recorded, in order. (Read as JSON: the build
    wrote it with nbformat, and validating every page again costs more than the rest of a
    rebuild.)"""
    notebook = json.loads(Path(notebook_path).read_text(encoding="utf-8"))
    rows = []
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            rows.extend(output.get("data", {}).get(mime_type(kind), []))
    return rows
