"""Selectors: how a claim in the registry names the results it is about.

A selector is a mapping from a field of the results table to the value wanted: a value, a list
of accepted values, or for the numeric fields ``gpus`` and ``nodes`` a ``{min: .., max: ..}``
range. ``exclude`` holds a selector whose rows are left out. Names (organizations, systems,
families, benchmarks ...) match whatever their case, spacing and punctuation
(``claimbook.inputs.names``), and ``system`` accepts the book's id (the system's folder in ``Location``,
which is MLCommons' ``Platform``), MLCommons' ``SystemName`` or the result folder itself.

Where a claim takes one result per case, a selector that finds several says how they combine:
``combine: best`` (the highest, named), ``combine: each`` (one case per match), or it is a sum,
``sum: [{selector, count: N}, ...]`` (a combined result: every item's result counted ``count``
times, e.g. a heterogeneous cluster's single-node results). Selecting never fails: an empty
selection is a finding, and ``missing`` says which field emptied it and the closest values the
data has, so a chapter can say what it looked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from claimbook.common.frame_memo import frozen, kept, memo
from claimbook.inputs.names import closest, similarity, squash

# Selector field -> column of the (annotated) results table.
FIELDS = {
    "organization": "organization",
    "system": "system",
    "family": "family",
    "vendor": "vendor",
    "accelerator": "accelerator",
    "form_factor": "form_factor",
    "gpus": "total_accelerators",
    "nodes": "nodes",
    "division": "division",
    "availability": "availability",
    "benchmark": "benchmark",
    "model": "model",
    "scenario": "scenario",
    "round": "round",
    "system_type": "system_type",
    "units": "units",
}
# The columns a ``system`` value may name: the book's id (the folder), MLCommons' SystemName.
SYSTEM_COLUMNS = ("system", "system_name")
NUMERIC = {"gpus", "nodes"}
ANY = "any"  # ``division: any`` lifts the book's default of the Closed division
COMBINE = ("best", "each")  # how several matches of one case combine (``sum`` is a selector of its own)
KEYS = ("exclude", "combine", "sum")  # a selector's keys that are not fields


class SelectorError(ValueError):
    """A selector that names an unknown field or has a value of the wrong shape."""


def validate(selector, where: str) -> None:
    """Raise SelectorError naming ``where`` (file, claim and field) for a malformed selector."""
    if not isinstance(selector, dict):
        raise SelectorError(f"{where}: a selector must be a mapping of field: value, got {selector!r}")
    for field, value in selector.items():
        if field == "exclude":
            validate(value, f"{where}.exclude")
            continue
        if field == "combine":
            if value not in COMBINE:
                raise SelectorError(
                    f"{where}.combine: {value!r}; several matches combine as best or each "
                    "(or write the selector as a sum: [...])"
                )
            continue
        if field == "sum":
            _validate_sum(value, selector, where)
            continue
        if field not in FIELDS:
            raise SelectorError(
                f"{where}.{field}: unknown field; a selector may use {', '.join(FIELDS)}, "
                f"exclude, combine and sum"
            )
        if field in NUMERIC:
            if isinstance(value, dict):
                unknown = set(value) - {"min", "max"}
                if unknown or not all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
                    raise SelectorError(f"{where}.{field}: a range is {{min: N, max: N}} with whole numbers")
            elif isinstance(value, list):
                if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                    raise SelectorError(f"{where}.{field}: expected whole numbers, got {value!r}")
            elif not (isinstance(value, int) and not isinstance(value, bool)):
                raise SelectorError(
                    f"{where}.{field}: expected a whole number, a list or {{min, max}}, got {value!r}"
                )
        elif isinstance(value, list):
            if not value or not all(isinstance(v, (str, int, float)) for v in value):
                raise SelectorError(f"{where}.{field}: expected a non-empty list of values, got {value!r}")
        elif not isinstance(value, (str, int, float)):
            raise SelectorError(f"{where}.{field}: expected a value or a list of values, got {value!r}")


def _validate_sum(items, selector: dict, where: str) -> None:
    if "combine" in selector:
        raise SelectorError(f"{where}.combine: a sum combines its items already; say one or the other")
    if not isinstance(items, list) or not items:
        raise SelectorError(
            f"{where}.sum: a list of selectors, each with a count: [{{system: X, count: 2}}, ...]"
        )
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise SelectorError(f"{where}.sum[{index}]: a selector with a count, got {item!r}")
        count = item.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise SelectorError(
                f"{where}.sum[{index}].count: how many times the result counts, a whole number of at least 1"
            )
        if "sum" in item:
            raise SelectorError(f"{where}.sum[{index}].sum: a sum's item cannot be a sum")
        validate({key: value for key, value in item.items() if key != "count"}, f"{where}.sum[{index}]")


def _named(results: pd.DataFrame, column: str, keys: set[str], derive=None) -> np.ndarray:
    """Which rows of a text column (or of ``derive`` applied to it) are one of the squashed
    ``keys``; the column's distinct values are squashed once per table (``frame_memo``)."""
    codes, squashed = _squashed(results, column, derive)
    hits = np.array([name in keys for name in squashed] + [False], dtype=bool)
    return hits[codes]  # code -1 (no value) reads the last: False


def _squashed(results: pd.DataFrame, column: str, derive=None) -> tuple[np.ndarray, list[str]]:
    """(the code of each row's value, each distinct value squashed) of a column, once per table."""
    values = memo(results)
    key = ("squashed", column, derive)
    if key not in values:
        series = results[column] if derive is None else results[column].map(derive)
        codes, uniques = pd.factorize(series)
        values[key] = (codes, [squash(value) for value in uniques])
    return values[key]


def _vendor_sets(results: pd.DataFrame) -> tuple[np.ndarray, list[set[str]]]:
    """(the code of each row's vendors, each distinct list of vendors as a set of squashed names)."""
    values = memo(results)
    if "vendor sets" not in values:
        codes, uniques = pd.factorize(results["vendors"].astype(str))
        values["vendor sets"] = (codes, [{squash(n) for n in names.split(";")} for names in uniques])
    return values["vendor sets"]


def _mask(results: pd.DataFrame, field: str, wanted) -> np.ndarray:
    """The rows ``field: wanted`` accepts, as a read-only array (computed once per table)."""
    try:
        key = ("mask", field, frozen(wanted))
    except TypeError:
        return _field_mask(results, field, wanted)
    values = memo(results)
    if key not in values:
        mask = _field_mask(results, field, wanted)
        mask.flags.writeable = False
        values[key] = mask
    return values[key]


def _field_mask(results: pd.DataFrame, field: str, wanted) -> np.ndarray:
    if field == "division" and wanted == ANY:
        return np.ones(len(results), dtype=bool)
    column = results[FIELDS[field]]
    if field in NUMERIC:
        if isinstance(wanted, dict):
            mask = pd.Series(True, index=results.index)
            if "min" in wanted:
                mask &= column >= wanted["min"]
            if "max" in wanted:
                mask &= column <= wanted["max"]
            return mask.to_numpy(dtype=bool)
        return column.isin(wanted if isinstance(wanted, list) else [wanted]).to_numpy(dtype=bool)
    keys = {squash(value) for value in (wanted if isinstance(wanted, list) else [wanted])}
    if field == "vendor" and "vendors" in results.columns:
        # A system counts for every vendor whose GPUs it has (a system mixing two vendors' GPUs too).
        codes, sets = _vendor_sets(results)
        return np.array([bool(keys & names) for names in sets], dtype=bool)[codes]
    if field != "system":
        return _named(results, FIELDS[field], keys)
    mask = np.zeros(len(results), dtype=bool)
    for name in SYSTEM_COLUMNS:
        mask |= _named(results, name, keys)
    # The result folder: the location up to the system ("./closed/NVIDIA/results/SYSTEM") or whole.
    return mask | _named(results, "location", keys, _folder) | _named(results, "location", keys)


def _folder(location) -> str:
    """``./closed/ORG/results/SYSTEM/...`` -> ``./closed/ORG/results/SYSTEM``."""
    head, found, tail = str(location).partition("/results/")
    return head + found + tail.split("/", 1)[0] if found else str(location)


def _field_values(results: pd.DataFrame, field: str) -> list[str]:
    """The values of a field in the data, as a reader would name them (system: ids and names)."""
    columns = SYSTEM_COLUMNS if field == "system" else (FIELDS[field],)
    return sorted({str(value) for name in columns for value in results[name]})


@dataclass(frozen=True)
class Missing:
    """What emptied a selection: the field, the value asked for and the closest values there.
    ``together``: the value exists, but not with the rest of the selector (``closest`` are then
    the values the field has among the results the rest finds)."""

    field: str
    wanted: object
    closest: tuple[str, ...]
    together: bool = False

    def text(self) -> str:
        near = ", ".join(self.closest) if self.closest else "none"
        if self.together:
            return (
                f"no result with {self.field}={self.wanted!r} together with the rest of the selector "
                f"(each field alone finds results); the results the rest finds have {self.field}: {near}"
            )
        return f"no result with {self.field}={self.wanted!r}; closest {self.field} values in the data: {near}"


def _fields(selector: dict):
    return [(field, wanted) for field, wanted in selector.items() if field in FIELDS]


def select(results: pd.DataFrame, selector: dict | None) -> pd.DataFrame:
    """The rows every field of ``selector`` accepts (possibly none); for a sum, every item's rows.
    The same selector on the same table is selected once (``frame_memo``); each caller gets its
    own (shallow, copy-on-write) copy."""
    if not selector:
        return results
    try:
        key = ("select", frozen(selector))
    except TypeError:
        return _select(results, selector)
    values = memo(results)
    if key not in values:
        values[key] = _select(results, selector)
    return values[key].copy(deep=False)


def _select(results: pd.DataFrame, selector: dict) -> pd.DataFrame:
    if "sum" in selector:
        shared = {key: value for key, value in selector.items() if key != "sum"}
        parts = [select(results, {**shared, **item_selector(item)}) for item in selector["sum"]]
        return results[results.index.isin(pd.concat(parts).index)] if parts else results.iloc[:0]
    mask = np.ones(len(results), dtype=bool)
    for field, wanted in selector.items():
        if field == "exclude":
            mask &= ~results.index.isin(select(results, wanted).index)
        elif field in FIELDS:
            mask &= _mask(results, field, wanted)
    return kept(results, mask)


def item_selector(item: dict) -> dict:
    """A sum's item as a selector of its own (without its count)."""
    return {key: value for key, value in item.items() if key != "count"}


def missing(results: pd.DataFrame, selector: dict) -> Missing | None:
    """Why ``selector`` selects nothing, or None if it does not.

    Each field is tried alone first: a value no result has (a typo, a re-spelt name) is the one
    to blame, with the closest real names. If every value exists but not together, the field to
    blame is the one whose value is most like a value the rest of the selector finds
    (``organization: Dell`` where the AMD MI350P results are by ``Dell_AMD``)."""
    if not select(results, selector).empty:
        return None
    fields = _fields(selector)
    for field, wanted in fields:
        if not _mask(results, field, wanted).any():
            asked = wanted if isinstance(wanted, list) else [wanted]
            existing = _field_values(results, field)
            near = tuple(dict.fromkeys(name for item in asked for name in closest(item, existing)))
            return Missing(field, wanted, near or tuple(existing[:5]))
    best = None
    for field, wanted in fields:
        rest = select(results, {key: value for key, value in selector.items() if key != field})
        if rest.empty:
            continue
        values = _field_values(rest, field)
        asked = [str(item) for item in (wanted if isinstance(wanted, list) else [wanted])]
        score = max(similarity(item, value) for item in asked for value in values)
        near = tuple(dict.fromkeys(name for item in asked for name in closest(item, values))) or tuple(
            values[:5]
        )
        if best is None or score > best[0]:
            best = (score, Missing(field, wanted, near, together=True))
    if best is not None:
        return best[1]
    return Missing("exclude", selector.get("exclude"), ())


def describe(selector: dict) -> str:
    """A selector in words, for reasons and captions: "NVIDIA, GB300-NVL72_..., 72 GPUs"."""
    parts = []
    for field, value in selector.items():
        if field == "combine":
            parts.append(f"{value} of several")
        elif field == "sum":
            parts.append(
                "the sum of "
                + " and ".join(
                    f"{item.get('count', 1)} × ({describe(item_selector(item))})" for item in value
                )
            )
        elif field == "exclude":
            parts.append(f"not ({describe(value)})")
        elif field == "gpus" and isinstance(value, int):
            parts.append(f"{value} GPUs")
        elif field == "nodes" and isinstance(value, int):
            parts.append(f"{value} node" + ("" if value == 1 else "s"))
        elif isinstance(value, dict):
            bounds = [f"{'at least' if key == 'min' else 'at most'} {bound}" for key, bound in value.items()]
            parts.append(f"{field} {' and '.join(bounds)}")
        elif isinstance(value, list):
            parts.append(f"{field} in {', '.join(map(str, value))}")
        else:
            parts.append(f"{field} {value}")
    return ", ".join(parts)


def with_defaults(selector: dict | None, defaults: dict) -> dict:
    """``selector`` with the claim's defaults (e.g. its division) for the fields it leaves out."""
    merged = dict(defaults)
    merged.update(selector or {})
    return merged
