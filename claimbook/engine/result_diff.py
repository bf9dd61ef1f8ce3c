"""``claimbook diff`` explained: the results that changed between two tidy tables, the systems
renamed (detected, or given with ``--rename``), the claims each change touches, and the claims
whose verdict it moves (the engine asked on both tables)."""

from __future__ import annotations

from pathlib import Path

from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR
from claimbook.common.paths import DATA_INPUTS


def rename_overrides(registry, mapping: dict[str, str]) -> dict:
    """The claim overrides that point every claim naming an old system at its new name."""
    from claimbook.claims.params import apply
    from claimbook.claims.renaming import rename_params
    from claimbook.engine import SPECS

    return apply(rename_params(registry, mapping), registry, SPECS)[1]


def _rename_hint(registry, organization: str, system: str, after: str) -> str:
    """What to do of a rename ``diff`` found: map the claims that name the system to its new name,
    or nothing, where no claim names it (those that pick it by family or organization follow it)."""
    from claimbook.claims.renaming import rename_params

    if rename_params(registry, {(organization, system): after}):
        return f" (map the claims to it: --rename {organization}/{system}={after})"
    return " (no claim names it: the claims that pick it by other fields follow the new name)"


def refuse_other_rounds(old, new, old_path, new_path) -> None:
    """``diff`` compares two versions of one round's results (a correction, a re-publication):
    a system's result of one round set against its result of another is no change of a result,
    and the claims it would list read one round only. UsageError naming both rounds if not."""
    from claimbook.common.errors import UsageError
    from claimbook.inputs.earlier import round_order

    def rounds(table) -> str:
        return ", ".join(sorted(set(table["round"].astype(str)), key=round_order)) or "no round"

    if rounds(old) != rounds(new):
        raise UsageError(
            f"{old_path} holds {rounds(old)} and {new_path} {rounds(new)}: diff compares two versions of one "
            "round's results; a result of one round against another's is no change of a result"
        )


def explained_diff(root: Path, old, new, given: dict, show_all: bool = False) -> str:
    from claimbook.engine import load_registry
    from claimbook.engine.context import book_data
    from claimbook.engine.moves import verdict_changes
    from claimbook.engine.touched import touched_claims
    from claimbook.inputs import renames
    from claimbook.inputs.diff import diff_results, format_diff
    from claimbook.inputs.reference import load_reference

    registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
    detected = renames.detect(old, new)
    mapping = dict(detected) | dict(given)
    renamed = [
        f"{organization} {system} -> {after}"
        + ("" if given else _rename_hint(registry, organization, system, after))
        for (organization, system), after in detected.items()
    ]
    renamed += [
        f"{organization or 'any'} {system} -> {after} (--rename)"
        for (organization, system), after in given.items()
    ]
    touched: dict[tuple, list[str]] = {}
    for key, claims in touched_claims(
        registry, load_reference(root / DATA_INPUTS["reference_dir"]), old, new
    ).items():
        organization, division, system, model, scenario = key
        after = mapping.get((organization, system)) or mapping.get((None, system)) or system
        mapped = (organization, division, after, model, scenario)
        touched[mapped] = list(dict.fromkeys([*touched.get(mapped, []), *claims]))
    table = diff_results(renames.rename_table(old, mapping), new, touched=touched, only_touched=not show_all)
    claims = sorted({name for cell in table["claims"] for name in cell.split(", ") if name})
    moved = []
    if claims:
        old_data = book_data(root, old)
        new_data = book_data(root, new, rename_overrides(registry, mapping) if mapping else None)
        moved = [
            f"{claim}: {before} -> {after}"
            for claim, before, after in verdict_changes(claims, old_data, new_data)
        ]
    return format_diff(table, renamed, moved)
