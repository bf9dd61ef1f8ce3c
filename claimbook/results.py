"""Loading the tidy results table and selecting results from it.

This is the one way the book reads results: every chapter goes through ``load_results``
and ``select``/``select_one``, so a missing or ambiguous selection always fails the same way,
naming what was asked and what exists.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from claimbook.csvfile import TIDY, IngestError, check_looks_like_csv, kind_problem, read_header, read_rows
from claimbook.schema import TIDY_COLUMNS

PROJECT_ROOT = Path(__file__).resolve().parents[1]

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
    "framework": "string",
    "weight_data_types": "string",
    "inferred": "bool",
    "result_id": "string",
    "location": "string",
}

# Criteria a selection may use, in the order an error message narrows them down.
SELECTION_FIELDS = ("model", "organization", "division", "accelerator", "total_accelerators", "system", "scenario")


class ResultsError(ValueError):
    """A tidy results table that cannot be read."""


class SelectionError(LookupError):
    """A selection that matched no result, or several where one was expected."""


def resolve_path(path: str | os.PathLike) -> Path:
    """Relative data paths are relative to the project root, wherever the kernel runs."""
    path = Path(path)
    return path if path.is_absolute() else PROJECT_ROOT / path


def load_results(path: str | os.PathLike) -> pd.DataFrame:
    """The tidy results table written by ``claimbook ingest``.

    A file that is not one (empty, binary, an HTML page, a raw MLCommons summary, another
    table, a truncated file) is a ResultsError of one line naming the file and what it is.
    """
    path = resolve_path(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no such results table; run `python -m claimbook ingest` first")
    _check_tidy_columns(path, _as_results_error(read_header, path, _WHAT))
    try:
        frame = pd.read_csv(path, dtype=_DTYPES, keep_default_na=False,
                            na_values={"per_accelerator": [""], "gpu_watts": [""]})
    except ValueError as exc:  # pandas' parser errors and values of the wrong type
        raise ResultsError(_unreadable(path, exc)) from None
    return frame[list(TIDY_COLUMNS)]


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
        raise ResultsError(f"{path}: not a tidy results table, missing column(s) {shown}")


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


_KIND_OF_DTYPE = {"int64": "a whole number", "float64": "a number", "bool": "True or False"}


def _fits(dtype: str | None, name: str, value: str) -> bool:
    if dtype == "int64":
        return value.strip().lstrip("+-").isdigit()
    if dtype == "float64":
        if value == "" and name in ("per_accelerator", "gpu_watts"):
            return True
        try:
            float(value)
        except ValueError:
            return False
        return True
    if dtype == "bool":
        return value.strip() in ("True", "False", "true", "false", "TRUE", "FALSE")
    return True


def _matches(frame: pd.DataFrame, field: str, wanted) -> pd.Series:
    if isinstance(wanted, (list, tuple, set, frozenset)):
        return frame[field].isin(list(wanted))
    return frame[field] == wanted


def _describe(criteria: dict) -> str:
    return ", ".join(f"{field}={value!r}" for field, value in criteria.items())


def select(results: pd.DataFrame, **criteria) -> pd.DataFrame:
    """Rows matching every criterion (a value, or a list of accepted values).

    An empty selection is an error that names the first criterion nothing matched and the
    values that do exist for it, given the criteria before it.
    """
    unknown = [field for field in criteria if field not in SELECTION_FIELDS]
    if unknown:
        raise TypeError(f"cannot select on {', '.join(unknown)}; use {', '.join(SELECTION_FIELDS)}")
    criteria = {field: criteria[field] for field in SELECTION_FIELDS if criteria.get(field) is not None}
    mask = pd.Series(True, index=results.index)
    applied: dict = {}
    for field, wanted in criteria.items():
        narrowed = mask & _matches(results, field, wanted)
        if not narrowed.any():
            existing = sorted(map(str, results.loc[mask, field].unique()))
            shown = ", ".join(existing[:20]) + (" ..." if len(existing) > 20 else "")
            context = f" among results with {_describe(applied)}" if applied else ""
            raise SelectionError(
                f"no result with {field}={wanted!r}{context}; existing {field} values: {shown or 'none'}"
            )
        mask = narrowed
        applied[field] = wanted
    return results[mask]


def select_one(results: pd.DataFrame, **criteria) -> pd.Series:
    """Exactly one result; several matches are an error listing them by provenance."""
    rows = select(results, **criteria)
    if len(rows) > 1:
        listed = "; ".join(rows["location"].head(10))
        raise SelectionError(f"{len(rows)} results match {_describe(criteria)}, expected one: {listed}")
    return rows.iloc[0]


def select_per_scenario(results: pd.DataFrame, scenarios, **criteria) -> pd.DataFrame:
    """One result per scenario, in the order given; a missing scenario is an error."""
    return pd.DataFrame([select_one(results, scenario=scenario, **criteria) for scenario in scenarios])


def best_per_scenario(results: pd.DataFrame, scenarios, **criteria) -> pd.DataFrame:
    """The best result by any submitter in each scenario that has one (ties: first by provenance)."""
    rows = select(results, scenario=list(scenarios), **criteria)
    best = []
    for scenario in scenarios:
        candidates = rows[rows["scenario"] == scenario].sort_values("location")
        if candidates.empty:
            continue
        higher_is_better = bool(candidates["higher_is_better"].iloc[0])
        index = candidates["result"].idxmax() if higher_is_better else candidates["result"].idxmin()
        best.append(candidates.loc[index])
    return pd.DataFrame(best)
