"""Changing nested mappings the way a command line asks: merge, or set a dotted path."""

from __future__ import annotations

import copy

from claimbook.claims.registry import RegistryError


def merge(base, change):
    """``change`` laid over ``base``: mappings merge key by key (a ``None`` removes a key),
    anything else replaces."""
    if isinstance(base, dict) and isinstance(change, dict):
        merged = dict(base)
        for key, value in change.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = merge(base.get(key), value)
        return merged
    return copy.deepcopy(change)


def set_path(fields: dict, path: str, value) -> dict:
    """``fields`` with the dotted ``path`` set to ``value`` (merged, if both are mappings); a
    number after a list's name picks its item: ``items.1.family``."""
    head, _, rest = path.partition(".")
    updated = dict(fields)
    if rest:
        inner = fields.get(head)
        if isinstance(inner, list):
            index, _, deeper = rest.partition(".")
            if not index.isdigit() or int(index) >= len(inner):
                raise RegistryError(
                    f"cannot set {path}: {head} is a list of {len(inner)}; name an item by its "
                    f"index, 0 to {len(inner) - 1} ({head}.0.NAME)"
                )
            items = list(inner)
            position = int(index)
            if deeper and not isinstance(items[position], dict):
                raise RegistryError(f"cannot set {path}: {head}.{index} is not a mapping")
            items[position] = (
                set_path(items[position], deeper, value) if deeper else merge(items[position], value)
            )
            updated[head] = items
        elif inner is not None and not isinstance(inner, dict):
            raise RegistryError(f"cannot set {path}: {head} is not a mapping")
        else:
            updated[head] = set_path(inner or {}, rest, value)
    else:
        updated[head] = merge(fields.get(head), value)
    return updated
