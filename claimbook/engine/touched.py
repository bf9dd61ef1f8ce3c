"""Which claims a change of results touches: the results each claim's selectors choose, in the old
table and in the new one, and the systems the claims name."""

from __future__ import annotations

import pandas as pd

from claimbook.claims.selectors import FIELDS, select, with_defaults
from claimbook.engine import role_selectors
from claimbook.inputs.reference import annotate
from claimbook.inputs.schema import RESULT_KEY


def claimed_systems(registry) -> set[tuple[str, str]]:
    """(organization, system) of every system a claim's selectors name by both."""
    systems = set()

    def visit(value):
        if isinstance(value, dict):
            organization, system = value.get("organization"), value.get("system")
            if isinstance(organization, str) and system is not None:
                for name in system if isinstance(system, list) else [system]:
                    systems.add((organization, str(name)))
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    for claim in registry.all_claims():
        visit(claim.fields)
    return systems


def _selectors(claim):
    """Every selector of a claim: its roles, a ratio's baselines, a presence claim's items and
    definitions, a sum's items."""
    found = [selector for _, selector in role_selectors(claim)]
    for name in ("items", "definitions"):
        for entry in claim.get(name) or []:
            if isinstance(entry, dict):
                found.append(
                    {key: value for key, value in entry.items() if key not in ("label", "named_only")}
                )
    for selector in list(found):
        for item in selector.get("sum") or []:
            found.append({**{k: v for k, v in selector.items() if k != "sum"}, **item})
    return found


def _reads_round(registry, claim, rounds: set[str]) -> bool:
    announcement = registry.announcements.get(claim.announcement)
    own = announcement.round if announcement is not None else None
    return own is None or own in rounds or str(claim.get("from_round")) in rounds


def touched_claims(registry, reference, old: pd.DataFrame, new: pd.DataFrame) -> dict[tuple, list[str]]:
    """{result key: ids of the claims whose selections choose that result in ``old`` or ``new``}:
    the claims that read the tables' round (their announcement's, or a gain's from_round), never
    another round's claims that select alike."""

    rounds = set(old["round"].astype(str)) | set(new["round"].astype(str))
    reading = [claim for claim in registry.all_claims() if _reads_round(registry, claim, rounds)]
    found: dict[tuple, set[str]] = {}
    for frame in (annotate(old, reference), annotate(new, reference)):
        keys = list(zip(*(frame[name] for name in RESULT_KEY)))
        frame = frame.assign(_key=keys)
        for claim in reading:
            defaults = {"division": claim.get("division", "closed")}
            for selector in _selectors(claim):
                selector = {k: v for k, v in selector.items() if k in FIELDS or k == "exclude"}
                for key in select(frame, with_defaults(selector, defaults))["_key"]:
                    found.setdefault(key, set()).add(claim.id)
    return {key: sorted(ids) for key, ids in found.items()}
