"""Selectors: how a claim in the registry names the results it is about.

A selector is a mapping from a field of the results table to the value wanted: a value, a list
of accepted values, or for the numeric fields ``gpus`` and ``nodes`` a ``{min: .., max: ..}``
range. ``exclude`` holds a selector whose rows are left out. Selecting never fails: an empty
selection is a finding, and ``missing`` says which field emptied it and the closest values the
data has, so a chapter can say what it looked for.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import pandas as pd

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
NUMERIC = {"gpus", "nodes"}
ANY = "any"  # ``division: any`` lifts the book's default of the Closed division


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
        if field not in FIELDS:
            raise SelectorError(
                f"{where}.{field}: unknown field; a selector may use {', '.join(FIELDS)} and exclude"
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


def _mask(results: pd.DataFrame, field: str, wanted) -> pd.Series:
    column = results[FIELDS[field]]
    if field == "division" and wanted == ANY:
        return pd.Series(True, index=results.index)
    if field in NUMERIC and isinstance(wanted, dict):
        mask = pd.Series(True, index=results.index)
        if "min" in wanted:
            mask &= column >= wanted["min"]
        if "max" in wanted:
            mask &= column <= wanted["max"]
        return mask
    if field == "vendor" and "vendors" in results.columns:
        # A system counts for every vendor whose GPUs it has (a system mixing two vendors' GPUs too).
        accepted = {str(value) for value in (wanted if isinstance(wanted, list) else [wanted])}
        return results["vendors"].astype(str).map(lambda names: bool(accepted & set(names.split(";"))))
    if isinstance(wanted, list):
        return column.isin(wanted)
    return column == wanted


@dataclass(frozen=True)
class Missing:
    """What emptied a selection: the field, the value asked for and the closest values there."""

    field: str
    wanted: object
    closest: tuple[str, ...]

    def text(self) -> str:
        near = ", ".join(self.closest) if self.closest else "none"
        return f"no result with {self.field}={self.wanted!r}; closest {self.field} values in the data: {near}"


def select(results: pd.DataFrame, selector: dict | None) -> pd.DataFrame:
    """The rows every field of ``selector`` accepts (possibly none)."""
    if not selector:
        return results
    mask = pd.Series(True, index=results.index)
    for field, wanted in selector.items():
        if field == "exclude":
            mask &= ~results.index.isin(select(results, wanted).index)
        else:
            mask &= _mask(results, field, wanted)
    return results[mask]


def missing(results: pd.DataFrame, selector: dict) -> Missing | None:
    """Why ``selector`` selects nothing: the first field that empties it, or None if it does not."""
    mask = pd.Series(True, index=results.index)
    for field, wanted in selector.items():
        if field == "exclude":
            continue
        narrowed = mask & _mask(results, field, wanted)
        if not narrowed.any():
            existing = sorted({str(value) for value in results.loc[mask, FIELDS[field]]})
            asked = [str(item) for item in (wanted if isinstance(wanted, list) else [wanted])]
            close = []
            for item in asked:
                close += difflib.get_close_matches(item, existing, n=3, cutoff=0.5)
            closest = tuple(dict.fromkeys(close)) or tuple(existing[:5])
            return Missing(field, wanted, closest)
        mask = narrowed
    if not select(results, selector).empty:
        return None
    return Missing("exclude", selector.get("exclude"), ())


def describe(selector: dict) -> str:
    """A selector in words, for reasons and captions: "NVIDIA, GB300-NVL72_..., 72 GPUs"."""
    parts = []
    for field, value in selector.items():
        if field == "exclude":
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
