"""Loading the tidy results table.

This is the one way the book reads a round's results; claims select from them through
``claimbook.claims.selectors``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from claimbook.common import identifiers
from claimbook.common.paths import resolve_path
from claimbook.inputs import rules
from claimbook.inputs.csvfile import (
    TIDY,
    IngestError,
    check_looks_like_csv,
    kind_problem,
    read_header,
    read_rows,
)
from claimbook.inputs.schema import TIDY_COLUMNS

_DTYPES = {
    "round": "string",
    "organization": "string",
    "division": "string",
    "availability": "string",
    "system_type": "string",
    "system": "string",
    "system_name": "string",
    "accelerator": "string",
    "nodes": "int64",
    "accelerators_per_node": "int64",
    "total_accelerators": "int64",
    "model": "string",
    "mlperf_model": "string",
    "scenario": "string",
    "result": "float64",
    "units": "string",
    "metric": "string",
    "higher_is_better": "bool",
    "per_accelerator": "float64",
    "gpu_watts": "float64",
    "has_power": "bool",
    "framework": "string",
    "weight_data_types": "string",
    "inferred": "bool",
    "result_id": "string",
    "location": "string",
}


class ResultsError(ValueError):
    """A tidy results table that cannot be read."""


def load_results(path: str | os.PathLike) -> pd.DataFrame:
    """The tidy results table written by ``claimbook ingest``.

    A file that is not one (empty, binary, an HTML page, a raw MLCommons summary, another
    table, a truncated file), or a row that breaks a rule ingest keeps (``claimbook.inputs.rules``:
    a result out of range, a count of nodes of 0, units and direction that disagree, a repeated
    key or Location, control characters), is a ResultsError of one line naming the file, the
    line and what is wrong.
    """
    path = resolve_path(path)
    if not path.is_file():
        raise ResultsError(
            f"{path}: no such file (a tidy results table: `python -m claimbook ingest` writes one from "
            "MLCommons' summary)"
        )
    _check_tidy_columns(path, _as_results_error(read_header, path, _WHAT))
    try:
        frame = pd.read_csv(
            path, dtype=_DTYPES, keep_default_na=False, na_values={"per_accelerator": [""], "gpu_watts": [""]}
        )
    except (ValueError, OverflowError) as exc:  # pandas' parser errors, values of the wrong type
        raise ResultsError(_unreadable(path, exc)) from None
    frame = frame[list(TIDY_COLUMNS)]
    # The rules ingest keeps: a tidy table may have been edited since (a line per record: the
    # table ingest writes has no line breaks inside a field).
    problem = rules.first_problem(frame, path, lambda position: f"line {position + 2}")
    if problem:
        raise ResultsError(problem)
    _check_round(path, frame)
    return frame


def _check_round(path: Path, frame: pd.DataFrame) -> None:
    """A round's table (``data/mlperf/ROUND.csv``) holds that round's results only: a row of
    another round there would have its claims judged on results not of their round."""
    if not identifiers.is_round(path.stem):
        return
    other = frame.index[frame["round"] != path.stem]
    if len(other):
        first = int(other[0])
        raise ResultsError(
            f"{path}, line {first + 2}: round {str(frame['round'].iloc[first])[:20]!r} in the table of "
            f"round {path.stem}; a round's table holds its own results only"
        )


_WHAT = "results table"


def _as_results_error(read, path: Path, *args):
    """``read(path, *args)`` after a look at the file's first bytes; the reader's IngestError
    (about the file, not a raw summary) becomes a ResultsError."""
    try:
        check_looks_like_csv(path, _WHAT)
        return read(path, *args)
    except IngestError as exc:
        raise ResultsError(str(exc)) from None


def _check_tidy_columns(path: Path, header: list[str]) -> None:
    wrong_kind = kind_problem(header, TIDY, path)
    if wrong_kind:
        raise ResultsError(wrong_kind)
    missing = [name for name in TIDY_COLUMNS if name not in header]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        older = (
            " (a table an older ingest wrote: ingest the round's summary again)" if len(missing) <= 2 else ""
        )
        raise ResultsError(f"{path}: not a tidy results table, missing column(s) {shown}{older}")


def _unreadable(path: Path, error: ValueError) -> str:
    """Why pandas could not read a tidy table: the CSV reader's account (a truncated file, a
    ragged line, bytes that are not UTF-8) or the first value of the wrong type."""
    header, rows, lines = _as_results_error(read_rows, path, _WHAT)
    for values, line in zip(rows, lines):
        for name, value in zip(header, values):
            if not _fits(_DTYPES.get(name), name, value):
                return f"{path}, line {line}: {name} is {value!r}, not {_KIND_OF_DTYPE[_DTYPES[name]]}"
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"{path}: not a readable tidy results table ({detail})"


_KIND_OF_DTYPE = {"int64": "a whole number", "float64": "a finite number", "bool": "True or False"}


def _fits(dtype: str | None, name: str, value: str) -> bool:
    if dtype == "int64":
        digits = value.strip().lstrip("+-")
        return digits.isascii() and digits.isdigit() and int(digits) < 2**63
    if dtype == "float64":
        if value == "" and name in ("per_accelerator", "gpu_watts"):
            return True
        try:
            return math.isfinite(float(value))  # "nan" is no number here: an empty field is
        except ValueError:
            return False
    if dtype == "bool":
        return value in ("True", "False", "true", "false", "TRUE", "FALSE")  # pandas reads no spaces
    return True
