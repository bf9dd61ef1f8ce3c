"""``draft`` and ``coverage``: from an announcement's text to a registry, and how much of the
text a registry judges."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path

from claimbook.cli.shared import held_round, writer_lock
from claimbook.common.errors import UsageError
from claimbook.common.files import replace_file
from claimbook.common.paths import PROJECT_ROOT, RESULTS, held_rounds, inside


def add_commands(commands) -> None:
    """``draft`` and ``coverage``: from an announcement's text to a registry."""
    draft_cmd = commands.add_parser(
        "draft",
        help="a draft registry from an announcement's text: one claim per checkable statement, TODOs for the rest",
    )
    draft_cmd.add_argument("path", type=Path, help="the announcement, saved as plain text or Markdown")
    draft_cmd.add_argument(
        "--id", dest="identifier", help="the announcement's id (default: from the file's name)"
    )
    draft_cmd.add_argument(
        "--out", type=Path, help="where to write (default: data/claims/ID.yaml, which must not exist)"
    )
    draft_cmd.add_argument(
        "--force",
        action="store_true",
        help="replace --out FILE if it is a draft this command wrote (never another file)",
    )
    draft_cmd.add_argument(
        "--round",
        dest="round_name",
        help="the round the text is about, one the book holds (default: the newest round the text names)",
    )

    coverage_cmd = commands.add_parser(
        "coverage",
        help="which checkable statements of an announcement's text a registry judges or sets aside",
    )
    coverage_cmd.add_argument("path", type=Path, help="the announcement, saved as plain text or Markdown")
    coverage_cmd.add_argument(
        "--registry", type=Path, help="the registry file (default: data/claims/ID.yaml)"
    )
    coverage_cmd.add_argument(
        "--id", dest="identifier", help="the announcement's id (default: from the file's name)"
    )
    coverage_cmd.add_argument(
        "--record",
        action="store_true",
        help="write the count by statement to data/coverage/ID.csv (the chapter page shows it)",
    )


def _draft_round(args, text: str) -> Path:
    """The results a draft proposes systems from: --round's, else the round the text names."""
    from claimbook.claims.draft import round_of_text

    if args.round_name is not None:
        return held_round(args.round_name, "--round")
    named = round_of_text(text)
    if named is None:  # the newest round the book holds: a new announcement's (systems' default too)
        held = held_rounds(PROJECT_ROOT / "data" / "mlperf")
        return next(reversed(held.values())) if held else PROJECT_ROOT / RESULTS
    return held_round(named, f"{args.path}: the text is about round")


def _announcement_id(args) -> str:
    """The announcement's id: --id, or the file's name made one ("AMD v6.1.md" -> amd-v6.1)."""
    from claimbook.common import identifiers

    given = args.identifier or re.sub(r"[^a-z0-9.-]+", "-", args.path.stem.lower()).strip("-.")
    problem = identifiers.id_problem(given)
    if problem:
        raise UsageError(f"{given[:80]!r}: an announcement id: {problem} (give one with --id)")
    return given


def _run_draft(args) -> int:
    from claimbook.claims.draft import annotated_results, draft_registry, is_draft
    from claimbook.common.paths import CLAIMS_DIR
    from claimbook.inputs.announcement_text import read_announcement

    announcement = _announcement_id(args)
    text = read_announcement(args.path)
    registries = PROJECT_ROOT / CLAIMS_DIR
    out = args.out or inside(registries, f"{announcement}.yaml")
    if os.path.lexists(out) and (
        not args.force or args.out is None or out.resolve().parent == registries.resolve()
    ):
        raise UsageError(
            f"{out}: exists; draft writes only a new file (--out FILE, with --force to replace a file "
            "outside data/claims); nothing was written"
        )
    if out.is_symlink():
        raise UsageError(
            f"{out}: is a link; draft writes a file of its own, never through a link; nothing was written"
        )
    if os.path.lexists(out) and not is_draft(out):
        raise UsageError(
            f"{out}: exists and is not a draft `claimbook draft` wrote; --force replaces only the "
            "command's own drafts; nothing was written"
        )
    results, reference = annotated_results(_draft_round(args, text), PROJECT_ROOT / "data" / "reference")
    from claimbook.engine import DRAFTING

    drafted, todos = draft_registry(text, announcement, args.path.name, results, reference, DRAFTING)
    with writer_lock(out) if args.out is None else contextlib.nullcontext():
        replace_file(out, drafted.encode("utf-8"), args.force, lambda existing: "")
    print(
        f"wrote {out}: a draft with {todos} TODO(s); paraphrase each sentence and fill in each TODO "
        "(builds leave the draft out until it validates), then `claimbook coverage`",
        file=sys.stderr,
    )
    return 0


def _run_coverage(args) -> int:
    from claimbook.claims import coverage
    from claimbook.claims.draft import annotated_results
    from claimbook.claims.names_in_text import every_statement, known_names, statements
    from claimbook.engine import SPECS, load_registry
    from claimbook.inputs.announcement_text import read_announcement

    text = read_announcement(args.path)
    registry = load_registry(also=args.registry)
    announcement = _announcement_id(args)
    if args.registry is not None and not args.identifier:
        announcement = next(a.id for a in registry.announcements.values() if a.path == str(args.registry))
    if announcement not in registry.announcements:
        raise UsageError(
            f"{announcement!r}: no registry of that announcement{registry.left_out_note()}; give "
            f"--registry FILE or --id ({', '.join(registry.announcements)})"
        )
    # The names a sentence may state are those of the announcement's own round.
    own_round = held_round(registry.announcements[announcement].round, f"announcement {announcement}: round")
    results, reference = annotated_results(own_round, PROJECT_ROOT / "data" / "reference")
    names = known_names(results, reference)
    found = statements(text, names)
    judging = coverage.judges(
        registry, announcement, names, lambda claim: claim.kind in SPECS and not SPECS[claim.kind].checked
    )
    print(coverage.report(coverage.coverage(found, judging)))
    by_statement = coverage.statement_coverage(every_statement(text, names), judging)
    print()
    print(coverage.statement_report(by_statement))
    print(coverage.recall_report(coverage.draft_recall(found, registry, announcement)))
    if args.record:
        written = coverage.record(by_statement, announcement, PROJECT_ROOT / "data" / "coverage")
        print(f"wrote {written}")
    return 0
