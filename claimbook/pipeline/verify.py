"""What the build checks of the book it made before anything is put in place: the pages say
what the engine says, every item a claim names found a result (or a warning says how to point
it elsewhere), and no claim moved onto other results than the committed scorecard records
without the build saying so (or stopping, under ``--strict``).
"""

from __future__ import annotations

from claimbook.common.errors import BuildError


def agree(rows: list[dict], checks: dict) -> None:
    """The scorecard the pages recorded and the checks the build made must say the same."""
    for row in rows:
        check = checks.get(row["claim"]) or (checks.get(row["part_of"]) if row.get("part_of") else None)
        if check is None:
            continue
        if row["claim"] == check.claim.id and row["verdict"] != check.verdict:
            raise BuildError(
                f"claim {row['claim']}: its page says {row['verdict']!r} but the engine says "
                f"{check.verdict!r}; rebuild with --force"
            )


def missing_warnings(rows: list[dict], registry) -> list[str]:
    """A warning for every item a claim names that found no result, saying how to point it
    elsewhere with ``--param``."""
    from claimbook.present import markdown_pages

    warnings = []
    for claim_id, claim_rows in markdown_pages._rows_by_claim(rows).items():
        missing = sorted({text for row in claim_rows for text in row.get("missing") or []})
        claim = registry.claim(claim_id)
        where = claim.chapter or f"{claim.announcement}/{claim.parent or claim.id}"
        # Every missing item at once: fixing one must not reveal the next only on the next build.
        for text in missing:
            warnings.append(
                f"warning: page {where}: claim {claim_id} cannot be checked, {text}; point it elsewhere "
                f"with --param {claim_id}.{selector_path(claim, text)}=NAME (or another field of the "
                "selector)"
            )
    return warnings


def check_drift(request, committed: list[dict], rows: list[dict], warnings: list[str]) -> list:
    """Claims that now stand on other results than the committed scorecard records, listed once
    before anything is written (each case on a line of its own, wrapped), and counted in
    ``warnings``; a subject moved to another organization's system (always), or any drift under
    --strict, stops the build. Returns the drifts."""
    import textwrap

    from claimbook.engine import drift

    strict, report = request.strict, request.report
    found = drift.compare(committed, rows)
    if not found:
        return found
    report(f"drift: {len(found)} claim(s) now stand on other results than the committed scorecard records:")
    for item in found:
        report(f"  claim {item.claim}:")
        for change in item.changes:
            report(
                textwrap.fill(
                    change, 100, initial_indent="    ", subsequent_indent="      ", break_on_hyphens=False
                )
            )
    switched = [item for item in found if item.switched]
    if switched or strict:
        for warning in warnings:  # what else the build found, before it stops
            report(warning)
    if switched:
        raise BuildError(
            f"claim {switched[0].claim}: its subject moved to another organization's system in "
            f"{', '.join(switched[0].switched)} (see the drift list above); a claim never switches its "
            "subject silently: name the system in the registry (or --param); nothing was written"
        )
    if strict:
        raise BuildError(
            f"--strict: {len(found)} claim(s) now stand on other results ({', '.join(d.claim for d in found)}; "
            "see the drift list above); nothing was written"
        )
    warnings.append(
        f"warning: drift: {len(found)} claim(s) stand on other results (listed above): "
        + ", ".join(item.claim for item in found)
    )
    return found


def selector_path(claim, missing: str) -> str:
    """The --param path of the selector field a "no result" text names: ``subject.system``,
    ``rows.family``, or ``items.1.family`` for the second item of a list."""
    import re

    role = missing.split(" ", 1)[0].split(":")[0]
    column = re.search(r"no result with (\w+)=", missing)
    column = column.group(1) if column else "system"
    if role == "item":
        labels = [
            item.get("label", "") if isinstance(item, dict) else "" for item in claim.get("items") or []
        ]
        index = next(
            (
                position
                for position, label in enumerate(labels)
                if label and missing.startswith(f"item {label} (")
            ),
            None,
        )
        role = f"items.{index if index is not None else 0}"
    return f"{role}.{column}"


def strict_failure(warnings: list[str]) -> BuildError | None:
    """Under ``--strict``, the error a book with claims that found no result ends with."""
    missing = [warning for warning in warnings if warning.startswith("warning: page")]
    if not missing:
        return None
    claims = {warning.split(": claim ", 1)[1].split(" ", 1)[0] for warning in missing}
    return BuildError(
        f"--strict: {len(claims)} claim(s) found no result for {len(missing)} item(s) they name (see the "
        "warnings above); the book was written"
    )
