"""The ``TODO`` marks a registry still holds (a draft of ``claimbook draft``, or the analyst's own):
each one named by its file, claim and field, so a build can warn about every one of them and a
``--strict`` build can refuse to publish them.
"""

from __future__ import annotations

import re

TODO = re.compile(r"\bTODO\b")


def todo_fields(document, label: str) -> list[str]:
    """Where ``document`` (a registry as read from YAML) holds the word TODO, in a key or a value:
    "data/claims/x.yaml: claim x-01: field subject", "...: field announcement.title"."""
    found: list[str] = []
    if not isinstance(document, dict):
        return found
    header = document.get("announcement")
    if isinstance(header, dict):
        found += [f"{label}: field announcement.{path}" for path in _paths(header)]
    claims = document.get("claims")
    for index, claim in enumerate(claims if isinstance(claims, list) else []):
        name = claim.get("id") if isinstance(claim, dict) and isinstance(claim.get("id"), str) else None
        where = f"claim {name}" if name else f"claims[{index}]"
        found += [f"{label}: {where}: field {path}" for path in _paths(claim)]
    return found


def _paths(value, prefix: str = "") -> list[str]:
    if isinstance(value, dict):
        return [
            path
            for key, inner in value.items()
            for path in ([f"{prefix}{key}"] if TODO.search(str(key)) else _paths(inner, f"{prefix}{key}."))
        ]
    if isinstance(value, list):
        return [path for index, inner in enumerate(value) for path in _paths(inner, f"{prefix}{index}.")]
    return [prefix.rstrip(".")] if isinstance(value, str) and TODO.search(value) else []


def todo_text(found: list[str], limit: int = 3) -> str:
    """The TODOs in a few words: "2 TODO(s) left: data/claims/x.yaml: claim x-01: field subject, ..."."""
    shown = "; ".join(found[:limit]) + (f"; and {len(found) - limit} more" if len(found) > limit else "")
    return f"{len(found)} TODO(s) left ({shown})"
