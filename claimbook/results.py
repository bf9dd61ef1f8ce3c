"""Loading the tidy results table and selecting results from it.

This is the one way the book reads results: every chapter goes through ``load_results``
and ``select``/``select_one``, so a missing or ambiguous selection always fails the same way,
naming what was asked and what exists.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

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
    """The tidy results table written by ``claimbook ingest``."""
    path = resolve_path(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no such results table; run `python -m claimbook ingest` first")
    header = pd.read_csv(path, nrows=0).columns
    missing = [name for name in TIDY_COLUMNS if name not in header]
    if missing:
        raise ResultsError(f"{path}: not a tidy results table, missing column(s) {', '.join(missing)}")
    frame = pd.read_csv(path, dtype=_DTYPES, keep_default_na=False, na_values={"per_accelerator": [""], "gpu_watts": [""]})
    return frame[list(TIDY_COLUMNS)]


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
