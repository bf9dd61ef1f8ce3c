"""Systems renamed between two results files, and the renames an analyst gives.

A system is renamed when the new file has, for the same organization, a system of another name
with the same results (benchmark, scenario, result, units) in the same folder structure (its
``Location`` with the old name replaced by the new). ``--rename OLD=NEW`` (repeatable) or a YAML
file of ``OLD: NEW`` gives the renames for every claim at once (``claims.renaming``).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from claimbook.common.errors import UsageError
from claimbook.common.safe_read import InputError, load_yaml, read_text, yaml_problem

MATCHED = ("model", "scenario", "result", "units")  # what must be the same for a rename


def _fingerprint(rows, system: str, renamed_to: str | None = None) -> frozenset:
    name = renamed_to or system
    return frozenset(
        (str(location).replace(f"/{system}/", f"/{name}/"), *(str(row[column]) for column in MATCHED))
        for location, row in zip(rows["location"], rows.to_dict("records"))
    )


def detect(old, new) -> dict[tuple[str, str], str]:
    """{(organization, old system): new system} for each system of ``old`` gone from ``new``
    whose results are all in ``new`` under another name, in the same folders."""
    old_systems = set(zip(old["organization"], old["system"]))
    new_systems = set(zip(new["organization"], new["system"]))
    gone, added = old_systems - new_systems, sorted(new_systems - old_systems)
    found = {}
    for organization, system in sorted(gone):
        rows = old[(old["organization"] == organization) & (old["system"] == system)]
        for other_organization, other in added:
            if other_organization != organization:
                continue
            theirs = new[(new["organization"] == organization) & (new["system"] == other)]
            if _fingerprint(rows, system, other) == _fingerprint(theirs, other):
                found[(organization, system)] = other
                break
    return found


def rename_table(table, renames: dict[tuple[str | None, str], str]):
    """``table`` with each system renamed (its name and its result folders), as the new file
    names it; ``renames``: {(organization, or None for any, old system): new system}."""
    if not renames:
        return table
    table = table.copy()
    for (organization, old), new in renames.items():
        mask = table["system"] == old
        if organization is not None:
            mask &= table["organization"] == organization
        table.loc[mask, "system"] = new
        table.loc[mask, "location"] = table.loc[mask, "location"].str.replace(
            f"/{old}/", f"/{new}/", regex=False
        )
    return table


def parse(texts) -> dict[tuple[str | None, str], str]:
    """The renames of ``--rename`` values: ``OLD=NEW`` (that system, whoever submitted it) or
    ``ORGANIZATION/OLD=NEW`` (a system name is a folder's, so it has no ``/``), or a YAML file
    mapping such names to new ones; as {(organization or None, old system): new system}."""
    renames: dict[tuple[str | None, str], str] = {}
    for text in texts or ():
        old, equals, new = str(text).partition("=")
        if equals:
            pairs = {old.strip(): new.strip()}
        elif Path(text).is_file():
            pairs = _from_file(Path(text))
        else:
            raise UsageError(f"--rename {str(text)[:80]!r}: expected OLD=NEW or a YAML file of OLD: NEW")
        for before, after in pairs.items():
            organization, _, system = before.rpartition("/")
            key = (organization or None, system)
            if not system or not after or system == after or "/" in after:
                raise UsageError(f"--rename {str(text)[:80]!r}: a rename needs two different system names")
            if renames.get(key, after) != after:
                raise UsageError(f"--rename: {before!r} is renamed twice ({renames[key]!r} and {after!r})")
            renames[key] = after
    return renames


def _from_file(path: Path) -> dict[str, str]:
    try:
        document = load_yaml(read_text(path, str(path), "renames file"), str(path))
    except InputError as exc:
        raise UsageError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}{yaml_problem(exc)}") from None
    if not isinstance(document, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in document.items()
    ):
        raise UsageError(f"{path}: a renames file maps old names to new ones (OLD: NEW), as text")
    return document
