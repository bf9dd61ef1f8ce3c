"""Drift: a claim that now stands on other results than the committed scorecard records.

The scorecard lists, per case, the results each claim used and in which role (``selected``). A
rebuild on new data compares each claim's subject and baseline (and a scaling pair's two
configurations) with those of the committed scorecard. A claim whose definition changed (its
fields, ``definition``) is not compared: it is meant to stand on other results. Other values of
the same results are not drift; other systems are. A subject that moves to another
organization's system is never accepted: the claim must say so in the registry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from claimbook.engine.scorecard import parse_selection

ROLES = ("subject", "baseline", "small", "large")  # what a claim stands on (not its rivals)


@dataclass(frozen=True)
class Drift:
    claim: str
    changes: tuple[str, ...]  # "Offline: subject was NVIDIA VR-NVL72_..., now Nebius VR200-..."
    switched: tuple[str, ...]  # the cases whose subject moved to another organization

    def text(self) -> str:
        return f"claim {self.claim}: " + "; ".join(self.changes)


def read_committed(path: Path) -> list[dict]:
    """The rows of a committed scorecard (none if there is none, or it is not readable)."""
    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # (nesting too deep: not a scorecard of ours)
        return []
    return rows if isinstance(rows, list) else []


def _stands_on(rows: list[dict]) -> dict[str, dict[str, set[tuple[str, str]]]]:
    """{case: {role: {(organization, system)}}} of one claim's rows."""
    found: dict[str, dict[str, set]] = {}
    for row in rows:
        roles = found.setdefault(str(row.get("scenario") or ""), {})
        for text in row.get("selected") or []:
            entry = parse_selection(text)
            if entry["role"] in ROLES:
                roles.setdefault(entry["role"], set()).add((entry["organization"], entry["system"]))
    return found


def _names(systems: set[tuple[str, str]]) -> str:
    return ", ".join(f"{organization} {system}" for organization, system in sorted(systems)) or "no result"


def compare(committed: list[dict], built: list[dict]) -> list[Drift]:
    """Every claim of both scorecards, of the same definition, whose subject or baseline now
    stands on other systems; in the order of the new scorecard."""

    def by_claim(rows):
        grouped: dict[str, list[dict]] = {}
        for row in rows:
            grouped.setdefault(str(row.get("claim")), []).append(row)
        return grouped

    old, new = by_claim(committed), by_claim(built)
    drifts = []
    for claim, rows in new.items():
        before = old.get(claim)
        # A scorecard from before definitions were recorded is taken to hold the same claims.
        if not before or before[0].get("definition") not in (None, rows[0].get("definition")):
            continue
        if not any("selected" in row for row in before):
            continue  # a scorecard from before selections were recorded cannot say what they were
        was, now = _stands_on(before), _stands_on(rows)
        if not any(was.values()) and not any(now.values()):
            continue
        changes, switched = [], []
        for case in list(dict.fromkeys([*was, *now])):
            old_roles, new_roles = was.get(case, {}), now.get(case, {})
            label = case or "the claim"
            for role in ROLES:
                a, b = old_roles.get(role, set()), new_roles.get(role, set())
                if a == b or (case not in was and not b) or (case not in now and not a):
                    continue
                if case not in now:
                    changes.append(f"{label}: no longer a case (its {role} was {_names(a)})")
                elif case not in was:
                    changes.append(f"{label}: a new case, its {role} {_names(b)}")
                else:
                    changes.append(f"{label}: {role} was {_names(a)}, now {_names(b)}")
                if role == "subject" and b and {org for org, _ in b} - {org for org, _ in a} and a:
                    switched.append(label)
        if changes:
            drifts.append(Drift(claim, tuple(changes), tuple(switched)))
    return drifts
