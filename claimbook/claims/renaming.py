"""Renames as one mapping: ``--rename OLD=NEW`` points every claim that names OLD at NEW.

Each rename becomes the ``--param`` changes it stands for (one per field of a claim that names
the old system), so a rename changes a build exactly as those ``--param`` would, digests included.
"""

from __future__ import annotations

from claimbook.inputs.names import squash

# The selector fields a system is named by.
SYSTEM_FIELDS = ("system", "system_name")


def _named(value, path: str, renames: dict, organization=None):
    """(path, new name) of every selector field under ``value`` that names a renamed system
    (``renames``: {(squashed organization or None, squashed system): new name})."""
    if isinstance(value, dict):
        organization = value.get("organization", organization)
        owner = squash(organization) if isinstance(organization, str) else None
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key in SYSTEM_FIELDS and isinstance(item, str):
                new = renames.get((owner, squash(item))) or renames.get((None, squash(item)))
                if new is not None:
                    yield where, new
                    continue
            yield from _named(item, where, renames, organization)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _named(item, f"{path}.{index}", renames, organization)


def rename_params(registry, renames: dict) -> list[str]:
    """The ``--param`` texts that point every claim (parts included) naming an old system at the
    new one; ``renames``: {(organization, or None for any, old system): new system}."""
    import json

    if not renames:
        return []
    by_name = {
        (squash(organization) if organization else None, squash(old)): new
        for (organization, old), new in renames.items()
    }
    texts = []
    for claim in registry.all_claims():
        for path, new in _named(dict(claim.fields), "", by_name):
            texts.append(f"{claim.id}.{path}={json.dumps(new)}")
    return list(dict.fromkeys(texts))


def unnamed_renames(registry, renames: dict) -> list[str]:
    """The renames no claim's selector names ("ORGANIZATION/OLD", or "OLD" for any): they would
    change nothing, which a build or check says rather than doing nothing in silence."""
    return [
        f"{organization}/{old}" if organization else str(old)
        for (organization, old), new in renames.items()
        if not rename_params(registry, {(organization, old): new})
    ]


def refuse_unnamed(registry, renames: dict) -> None:
    """A UsageError naming the renames no claim names (see ``unnamed_renames``)."""
    from claimbook.common.errors import UsageError

    missing = unnamed_renames(registry, renames)
    if missing:
        listed = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise UsageError(
            f"--rename {listed}: no claim names {'it' if len(missing) == 1 else 'them'}, so the rename "
            "would change nothing (`claimbook diff OLD NEW` lists the systems renamed between two tables)"
        )
