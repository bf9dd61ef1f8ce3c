"""What the build checks of the book it made before anything is put in place: the pages say
what the engine says, every item a claim names found a result (or a warning says how to point
it elsewhere), and no claim moved onto other results than the committed scorecard records
without the build saying so (or stopping, under ``--strict``).
"""

from __future__ import annotations

from claimbook.common.errors import BuildError
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR


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


def drifted(root, rows: list[dict]) -> list:
    """The claims of ``rows`` that now stand on other results than the committed scorecard of
    ``root`` records (``claimbook.engine.drift``)."""
    from claimbook.engine import drift

    committed = drift.read_committed(root / BOOK_DIR / GENERATED_DIR / "scorecard.json")
    return drift.compare(committed, rows)


def switched_error(found: list) -> BuildError | None:
    """The error for a claim whose subject moved to another organization's system (never
    accepted, by ``build`` or ``check``, which say it in the same words), if one did."""
    switched = [item for item in found if item.switched]
    if not switched:
        return None
    return BuildError(
        f"claim {switched[0].claim}: its subject moved to another organization's system in "
        f"{', '.join(switched[0].switched)} (see the drift list above); a claim never switches its "
        "subject silently: name the system in the registry (a build also takes it from --param); "
        "nothing was written"
    )


def refuse_a_switched_subject(root, data, report, claim_ids=None) -> None:
    """Before any page runs on other results (``--results``): the engine's check of every claim
    (as ``check`` makes it, in a second or two), so that a claim whose subject moved to another
    organization's system stops the build at once, in ``check``'s words, not after every page
    has been executed. Other drift is left to the build's own list, from its pages' rows.
    ``claim_ids``: only those claims (the pages ``--only`` builds)."""
    from claimbook.engine import scorecard
    from claimbook.pipeline.load import judged

    rows = []
    for claim in data.registry.claims:
        if claim_ids is not None and claim.id not in claim_ids:
            continue  # (``--only``: the claims of the pages built)
        rows += scorecard.normalise(
            scorecard.rows_for(judged(claim, data), claim.chapter or claim.announcement)
        )
    found = [item for item in drifted(root, rows) if item.switched]
    if found:
        report_drift(found, report)
        raise switched_error(found)


def report_drift(found: list, report) -> None:
    """The drift list, printed once: each claim, then each of its cases on a line of its own, wrapped."""
    import textwrap

    report(f"drift: {len(found)} claim(s) now stand on other results than the committed scorecard records:")
    for item in found:
        report(f"  claim {item.claim}:")
        for change in item.changes:
            report(
                textwrap.fill(
                    change, 100, initial_indent="    ", subsequent_indent="      ", break_on_hyphens=False
                )
            )


def check_drift(request, committed: list[dict], rows: list[dict], warnings: list[str]) -> list:
    """Claims that now stand on other results than the committed scorecard records, listed once
    before anything is written, and counted in ``warnings``; a subject moved to another
    organization's system (always), or any drift under --strict, stops the build. Returns the
    drifts."""
    from claimbook.engine import drift

    found = drift.compare(committed, rows)
    if not found:
        return found
    report_drift(found, request.report)
    switched = switched_error(found)
    if switched is not None or request.strict:
        for warning in warnings:  # what else the build found, before it stops
            request.report(warning)
    if switched is not None:
        raise switched
    if request.strict:
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
    """The --param path of the selector field a "no result" text names (the engine knows the
    names its kinds give their selectors: ``claimbook.engine.param_path``)."""
    from claimbook.engine import param_path

    return param_path(claim, missing)


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
