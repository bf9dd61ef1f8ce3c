"""``python -m claimbook``: fetch and ingest results, build the book, compare and list.

Exit codes: 0 success, 1 a build, chapter or download failed (or the file system did), 2 bad
input (a results file, the claims registry, the command line, a path the file system refuses),
3 memory ran out (a ``ulimit -v`` too low: ``MemoryError``, or a build's own check of its address
space before it starts), 130 interrupted. Errors are one line on stderr saying what and where.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import re
import shutil
import sys
from pathlib import Path

from claimbook.claims.registry import RegistryError
from claimbook.common.errors import BuildError, ChapterError, UsageError
from claimbook.common.files import UNCHANGED, ReplaceRefused, WriteError, replace_file
from claimbook.common.identifiers import terminal_text
from claimbook.common.interrupts import as_interrupts
from claimbook.common.paths import (
    BOOK_DIR,
    GENERATED_DIR,
    PROJECT_ROOT,
    PROJECT_VARIABLE,
    RESULTS,
    OutsideError,
    inside,
    not_in_project,
)

# The modules that read tables (and so import pandas) are imported by the commands that use
# them: a build with nothing to do answers before pandas would have loaded. So are the writers'
# (a lock, the HTML build's processes): ``check`` and ``list`` write nothing.

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NO_MEMORY = 3
EXIT_INTERRUPTED = 130  # what a shell reports for a command ended by Ctrl-C (128 + SIGINT)
# Said without allocating much: the memory that ran out is not there to word it.
NO_MEMORY = (
    b"error: memory ran out (MemoryError); raise the limit (ulimit -v) or free memory; nothing was changed\n"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="claimbook",
        description="Fetch and ingest MLPerf results, build the claims book, compare and list.",
    )
    parser.add_argument(
        "-C",
        "--project",
        metavar="DIR",
        help="the project to work on (as git -C); default: the checkout the command is run in "
        "(or CLAIMBOOK_PROJECT)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    _add_ingest_commands(commands)
    _add_fetch_command(commands)
    _add_reading_commands(commands)
    _add_new_announcement_command(commands)
    _add_build_command(commands)
    _add_drafting_commands(commands)
    _add_preview_command(commands)
    return parser


def _add_ingest_commands(commands) -> None:
    """The three ingest commands: a round's summary, earlier-round figures, GPU-hour prices."""
    ingest_cmd = commands.add_parser(
        "ingest",
        help="turn an MLCommons results summary (summary.csv or its JSON) into the tidy results table",
    )
    ingest_cmd.add_argument(
        "path",
        type=Path,
        help="an MLCommons Inference summary: summary.csv (any round's layout) or summary_results.json, told apart by content",
    )
    ingest_cmd.add_argument(
        "--round", dest="round_name", help="round label, e.g. v6.1 (default: the file's version column)"
    )
    ingest_cmd.add_argument("--out", type=Path, help="where to write (default: data/mlperf/ROUND.csv)")
    _add_force(ingest_cmd)

    earlier_cmd = commands.add_parser(
        "ingest-earlier", help="validate a partial table of earlier-round figures (with source_type)"
    )
    earlier_cmd.add_argument(
        "path", type=Path, help="CSV with version, organization, platform, ..., source_type, source"
    )
    earlier_cmd.add_argument(
        "--out", type=Path, help="where to write (default: data/mlperf/earlier_rounds.csv)"
    )
    _add_force(earlier_cmd)

    prices_cmd = commands.add_parser("ingest-prices", help="validate a table of GPU-hour prices")
    prices_cmd.add_argument(
        "path", type=Path, help="CSV with provider, accelerator, usd_per_gpu_hour, pricing, as_of, note"
    )
    prices_cmd.add_argument(
        "--out", type=Path, help="where to write (default: data/prices/gpu_hour_prices.csv)"
    )
    _add_force(prices_cmd)


def _add_fetch_command(commands) -> None:
    """``fetch``: a round's results summary downloaded and checked."""
    fetch_cmd = commands.add_parser(
        "fetch",
        help="download a round's results summary from the MLCommons results repository",
        description="Download a round's results summary (at most 32 MiB: a summary is a few MB) under "
        "the name the round published it (summary.csv, summary_results.json: the round's own first, "
        "then the others), check it is a complete summary of that round, and install it with its "
        "checksum record.",
    )
    fetch_cmd.add_argument("round_name", metavar="ROUND", help="round label, vMAJOR.MINOR, e.g. v6.1")
    fetch_cmd.add_argument(
        "--from", dest="url", help="download from this URL instead of the MLCommons repository"
    )
    fetch_cmd.add_argument("--dir", type=Path, help="where rounds are kept (default: data/raw)")
    fetch_cmd.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds the whole download may take, however slowly the server sends (default: 120); "
        "a download is also stopped past 32 MiB",
    )
    _add_force(fetch_cmd, "the round's summary")


def _add_reading_commands(commands) -> None:
    """The commands that only read: diff, list, check, kinds."""
    diff_cmd = commands.add_parser("diff", help="what changed between two tidy result tables")
    diff_cmd.add_argument("old", type=Path, help="the earlier tidy table (from ingest)")
    diff_cmd.add_argument("new", type=Path, help="the later tidy table")
    diff_cmd.add_argument("--all", action="store_true", help="every result, not only those the claims select")
    _add_rename(diff_cmd)

    list_cmd = commands.add_parser("list", help="the claims, their pages and their current verdicts")
    list_cmd.add_argument("--book", type=Path, help="a book built with --out (default: the committed book)")

    check_cmd = commands.add_parser(
        "check",
        help="claims' verdicts now, in this process: no kernel, no HTML, nothing written",
        description="Validate and check claims as the book's pages do, and print each one's verdict, "
        "its figure per case, the deciding case, caveats, the results used and the reason.",
    )
    check_cmd.add_argument("claim_ids", nargs="*", metavar="CLAIM_ID", help="claims to check (default: all)")
    check_cmd.add_argument(
        "--registry",
        type=Path,
        help="a registry file (e.g. a draft) read in place of its announcement's; without CLAIM_ID, its claims",
    )
    check_cmd.add_argument(
        "--results", type=Path, help="check against this summary.csv instead of the committed data"
    )
    check_cmd.add_argument(
        "--round", dest="round_name", help="round label for --results (default: its version column)"
    )
    check_cmd.add_argument("--json", action="store_true", help="the scorecard rows and results used, as JSON")
    _add_rename(check_cmd)

    commands.add_parser("kinds", help="the kinds of claim a registry can hold, and their fields")


def _add_new_announcement_command(commands) -> None:
    """``new-announcement``: a registry file started."""
    new_cmd = commands.add_parser("new-announcement", help="start a registry file for a new announcement")
    new_cmd.add_argument(
        "identifier", metavar="ID", help="the announcement's id, e.g. acme-v6.1 (the file's name)"
    )
    new_cmd.add_argument(
        "--publisher", required=True, help="who made the claims, as the results file names it"
    )
    new_cmd.add_argument("--title", required=True, help="the announcement's title")
    new_cmd.add_argument("--date", required=True, help="its date, YYYY-MM-DD")
    new_cmd.add_argument(
        "--round",
        dest="round_name",
        help="the MLPerf round it is about, one the book holds (default: the newest it holds)",
    )


def _add_build_command(commands) -> None:
    """``build``: the committed book, or a whole book with --out."""
    build_cmd = commands.add_parser(
        "build",
        help="execute the pages, write the scorecard and the ledger, compile the HTML",
        description="Without options: the committed book from the committed data (book/generated, _toc.yml and _build/html). "
        "With --out DIR: a whole book, its data included, in DIR (a new or empty folder, or one an "
        "earlier --out made); --results, --param and --only need --out.",
    )
    build_cmd.add_argument(
        "--results", type=Path, help="build from this summary.csv instead of the committed data (needs --out)"
    )
    build_cmd.add_argument(
        "--round", dest="round_name", help="round label for --results (default: its version column)"
    )
    build_cmd.add_argument(
        "--out", type=Path, help="build a whole book into this folder; the committed book is untouched"
    )
    build_cmd.add_argument(
        "--no-html", action="store_true", help="execute the pages and write the scorecard only"
    )
    build_cmd.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="a book of only this chapter, claim, page or announcement (every page of its claims; needs --out); repeatable",
    )
    build_cmd.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="TARGET.NAME=VALUE",
        help="change one chapter parameter or claim field (needs --out); VALUE is read as YAML, and a mapping merges "
        "into the one it changes (null removes a key), e.g. economics.assumed_prices='{\"NVIDIA GB300\": 12}' "
        "or rubin-dsr1-2.5x.subject.system=NAME; a number picks an item of a list (rubin-frameworks.items.1.family=NAME); "
        "repeatable",
    )
    _add_rename(build_cmd)
    build_cmd.add_argument(
        "--jobs", type=int, help="pages executed at once (default: one more than the number of cores)"
    )
    build_cmd.add_argument(
        "--force",
        action="store_true",
        help="execute every page (or every --only page), whatever the cache says",
    )
    build_cmd.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a claim finds no result for what it names, or now stands on other results than the committed scorecard records (CI builds the committed book so)",
    )


def _add_rename(command) -> None:
    command.add_argument(
        "--rename",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="a system renamed in the new results: every claim naming OLD names NEW (repeatable; or a YAML file of OLD: NEW)",
    )


def _add_drafting_commands(commands) -> None:
    """``systems``, ``draft`` and ``coverage``: from an announcement's text to a registry."""
    systems_cmd = commands.add_parser(
        "systems",
        help="search the results for systems; each line starts with the selector that picks it",
        description="Names match as a registry's selectors match them (case, spacing and punctuation "
        "aside). Every division unless --division says one.",
    )
    for name in ("organization", "system", "family", "vendor", "benchmark", "scenario"):
        systems_cmd.add_argument(f"--{name}", action="append", metavar="NAME", help="repeatable: any of them")
    systems_cmd.add_argument("--gpus", metavar="N|MIN-MAX", help="the system's accelerators: 8, or 8-72")
    systems_cmd.add_argument("--division", help="closed or open (default: both)")
    systems_cmd.add_argument("--results", type=Path, help="a tidy results table (default: the book's round)")
    systems_cmd.add_argument(
        "--round", dest="round_name", help="a round the book holds, e.g. v5.1 (default: the book's round)"
    )

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
    draft_cmd.add_argument("--force", action="store_true", help="replace --out FILE if it exists")
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


def _gpus_filter(text: str | None):
    """``--gpus 8`` or ``--gpus 8-72`` as a selector value."""
    if text is None:
        return None
    low, dash, high = text.partition("-")
    if not (low.strip().isdigit() and (not dash or high.strip().isdigit())):
        raise UsageError(f"--gpus {text[:40]!r}: a whole number (8) or a range (8-72)")
    return {"min": int(low), "max": int(high)} if dash else int(low)


def _run_systems(args) -> int:
    from claimbook.claims import systems
    from claimbook.inputs.reference import annotate, load_reference
    from claimbook.inputs.results import load_results

    filters = {name: getattr(args, name) for name in systems.FILTERS if name not in ("gpus", "division")}
    filters["gpus"] = _gpus_filter(args.gpus)
    filters["division"] = args.division
    if args.results is not None and args.round_name is not None:
        raise UsageError("--results and --round: give one (--round names a round the book holds)")
    path = args.results or (
        _held_round(args.round_name, "--round") if args.round_name else PROJECT_ROOT / RESULTS
    )
    results = annotate(load_results(path), load_reference())
    found = systems.search(results, filters)
    for system in found:
        print(systems.describe(system))
    if not found:
        why = systems.why_none(results, filters)
        print(f"no system matches: {why.text() if why else 'no result'}", file=sys.stderr)
    return 0


def _held_round(round_name: str, said: str) -> Path:
    """The tidy table of a round the book holds; any other round is one line naming those it holds."""
    from claimbook.common.paths import held_rounds

    held = held_rounds(PROJECT_ROOT / "data" / "mlperf")
    if round_name not in held:
        raise UsageError(
            f"{said} {str(round_name)[:80]!r}: the book holds no results of that round (it holds "
            f"{', '.join(held) or 'none'}); ingest that round's summary first"
        )
    return held[round_name]


def _draft_round(args, text: str) -> Path:
    """The results a draft proposes systems from: --round's, else the round the text names."""
    from claimbook.claims.draft import round_of_text

    if args.round_name is not None:
        return _held_round(args.round_name, "--round")
    named = round_of_text(text)
    if named is None:
        return PROJECT_ROOT / RESULTS
    return _held_round(named, f"{args.path}: the text is about round")


def _announcement_id(args) -> str:
    """The announcement's id: --id, or the file's name made one ("AMD v6.1.md" -> amd-v6.1)."""
    from claimbook.common import identifiers

    given = args.identifier or re.sub(r"[^a-z0-9.-]+", "-", args.path.stem.lower()).strip("-.")
    problem = identifiers.id_problem(given)
    if problem:
        raise UsageError(f"{given[:80]!r}: an announcement id: {problem} (give one with --id)")
    return given


def _run_draft(args) -> int:
    from claimbook.claims.draft import annotated_results, draft_registry
    from claimbook.common.paths import CLAIMS_DIR
    from claimbook.inputs.announcement_text import read_announcement

    announcement = _announcement_id(args)
    text = read_announcement(args.path)
    registries = PROJECT_ROOT / CLAIMS_DIR
    out = args.out or inside(registries, f"{announcement}.yaml")
    if out.exists() and (not args.force or args.out is None or out.resolve().parent == registries.resolve()):
        raise UsageError(
            f"{out}: exists; draft writes only a new file (--out FILE, with --force to replace a file "
            "outside data/claims); nothing was written"
        )
    results, reference = annotated_results(_draft_round(args, text), PROJECT_ROOT / "data" / "reference")
    from claimbook.engine import DRAFTING

    drafted, todos = draft_registry(text, announcement, args.path.name, results, reference, DRAFTING)
    with writer_lock(out) if args.out is None else contextlib.nullcontext():
        replace_file(out, drafted.encode("utf-8"), args.force, lambda existing: "")
    print(
        f"wrote {out}: a draft with {todos} TODO(s); paraphrase each sentence, then `claimbook coverage`",
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
            f"{announcement!r}: no registry of that announcement; give --registry FILE or --id "
            f"({', '.join(registry.announcements)})"
        )
    # The names a sentence may state are those of the announcement's own round.
    own_round = _held_round(registry.announcements[announcement].round, f"announcement {announcement}: round")
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


def _add_preview_command(commands) -> None:
    """``preview``: the book served on 127.0.0.1, rebuilt and reloaded as its sources change."""
    preview_cmd = commands.add_parser(
        "preview",
        help="serve the book on 127.0.0.1 and show each edit of a registry, template, data file or page",
        description="Build the book into _build/preview (never the committed book) and serve it on "
        "127.0.0.1; on each change of data/ (the registries, the chapters, the results), notebooks/ or "
        "the hand-written pages in book/, execute again only the pages the change touches, rewrite "
        "their HTML and reload the browser. Ctrl-C stops it, and everything it started.",
    )
    preview_cmd.add_argument(
        "--port", type=int, default=8000, help="the port on 127.0.0.1 (default 8000; 0: any free port)"
    )


def _add_force(command, what: str = "the output file") -> None:
    command.add_argument(
        "--force",
        action="store_true",
        help=f"replace {what} even if it exists and differs (otherwise refused, saying what would change)",
    )


def _write_table(data: bytes, out: Path, force: bool, what: str, what_changes) -> int:
    """Write an ingested table unless a different file is there (then only with --force), and say so.
    Under the lock of the target it belongs to: never while a build reads the data it replaces."""
    with writer_lock(out):
        written = replace_file(out, data, force, what_changes)
    if written == UNCHANGED:
        print(f"unchanged: {out} already holds these {what}", file=sys.stderr)
    else:
        print(f"wrote {what} to {out}", file=sys.stderr)
    return 0


def _result_changes(out: Path, table):
    """For a refusal: what the new tidy table changes, by result (whole rows if the file there
    is not a tidy table)."""
    from claimbook.inputs.csvfile import row_changes
    from claimbook.inputs.diff import result_changes
    from claimbook.inputs.ingest import tidy_csv
    from claimbook.inputs.results import ResultsError, load_results

    def what_changes(existing: bytes) -> str:
        try:
            return result_changes(load_results(out.absolute()), table)
        except ResultsError:
            return row_changes(existing, tidy_csv(table))

    return what_changes


def _run_ingest(args) -> int:
    from claimbook.inputs.ingest import ingest, ingest_warnings, tidy_csv

    table = ingest(args.path, args.round_name)  # the round is vMAJOR.MINOR, checked there
    for warning in ingest_warnings(table, args.path):
        print(warning, file=sys.stderr)
    from claimbook.inputs.reference import load_reference, unlisted

    for warning in unlisted(table, load_reference(PROJECT_ROOT / "data" / "reference")):
        print(warning, file=sys.stderr)  # the reviewed tables lack it: one line, with its count
    round_name = str(table["round"].iloc[0])
    out = args.out or inside(PROJECT_ROOT / "data" / "mlperf", f"{round_name}.csv")
    return _write_table(
        tidy_csv(table),
        out,
        args.force,
        f"{len(table)} results of round {round_name}",
        _result_changes(out, table),
    )


def _run_ingest_earlier(args) -> int:
    from claimbook.inputs.csvfile import row_changes
    from claimbook.inputs.earlier import ingest_earlier
    from claimbook.inputs.ingest import tidy_csv

    table = ingest_earlier(args.path)
    out = args.out or PROJECT_ROOT / "data" / "mlperf" / "earlier_rounds.csv"
    data = tidy_csv(table)
    return _write_table(
        data,
        out,
        args.force,
        f"{len(table)} earlier-round figures",
        lambda existing: row_changes(existing, data),
    )


def _run_ingest_prices(args) -> int:
    from claimbook.inputs.csvfile import row_changes
    from claimbook.inputs.ingest import tidy_csv
    from claimbook.inputs.prices import ingest_prices

    table = ingest_prices(args.path)
    out = args.out or PROJECT_ROOT / "data" / "prices" / "gpu_hour_prices.csv"
    data = tidy_csv(table)
    return _write_table(
        data, out, args.force, f"{len(table)} prices", lambda existing: row_changes(existing, data)
    )


def _run_fetch(args) -> int:
    from claimbook.inputs.fetch import fetch_summary

    folder = args.dir or PROJECT_ROOT / "data" / "raw"
    with writer_lock(folder):
        fetched = fetch_summary(
            args.round_name, folder, args.url, args.timeout, progress=sys.stderr.isatty(), force=args.force
        )
    if fetched.unchanged:
        print(
            f"unchanged: {fetched.path} already holds this download ({fetched.results} results, "
            f"sha256 {fetched.sha256})",
            file=sys.stderr,
        )
    else:
        print(
            f"fetched {fetched.results} results ({fetched.size} bytes, sha256 {fetched.sha256}) to {fetched.path}",
            file=sys.stderr,
        )
    return 0


def _run_diff(args) -> int:
    from claimbook.engine.result_diff import explained_diff
    from claimbook.inputs.renames import parse
    from claimbook.inputs.results import load_results

    given = parse(args.rename)
    old, new = load_results(args.old), load_results(args.new)
    print(explained_diff(PROJECT_ROOT, old, new, given, args.all))
    return 0


def _run_list(args) -> int:
    from claimbook.engine import load_registry

    book = (args.book or PROJECT_ROOT) / BOOK_DIR / GENERATED_DIR / "scorecard.json"
    if not book.is_file():
        raise UsageError(f"{book}: no scorecard yet; run `python -m claimbook build` first")
    for entry in _ledger(book, load_registry()):
        claim = entry["claim"]
        print(
            terminal_text(
                f"{claim.id:40} {claim.announcement:12} {entry['verdict']:24} {entry['range'] or ''}"
            )
        )
    return 0


def _ledger(book: Path, registry) -> list[dict]:
    """The ledger of a book's scorecard (a file someone may have edited: every value it shows is
    checked to be what a build writes, else one line saying it is not a scorecard)."""
    from dataclasses import replace

    from claimbook.common.safe_read import read_text
    from claimbook.engine.verdict import VERDICTS
    from claimbook.present.markdown_pages import ledger_entries

    try:
        rows = json.loads(read_text(book, str(book), "scorecard", limit=256 * 1024 * 1024))
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise ValueError("not a list of rows")
        for number, row in enumerate(rows, 1):
            if row.get("verdict") not in VERDICTS:
                raise ValueError(
                    f"row {number}: verdict {terminal_text(repr(row.get('verdict')))[:60]} is not a verdict"
                )
            if not isinstance(row.get("claim"), str) or not isinstance(row.get("range") or "", str):
                raise TypeError(f"row {number}: its claim and range are not text")
        present = {row["claim"] for row in rows}
        shown = replace(registry, claims=tuple(claim for claim in registry.claims if claim.id in present))
        return ledger_entries(rows, shown)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        detail = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise UsageError(
            f"{book}: not a scorecard this book can read ({terminal_text(detail)}); rebuild it with "
            "`python -m claimbook build`"
        ) from None


def _run_check(args) -> int:
    if args.round_name and not args.results:
        raise UsageError("--round goes with --results")
    from claimbook.quickcheck import run

    print(run(args.claim_ids, args.registry, args.results, args.round_name, args.json, renames=args.rename))
    return 0


def _run_kinds(args) -> int:
    from claimbook import engine
    from claimbook.engine import quantifiers

    for name, spec in engine.SPECS.items():
        print(f"{name}: {spec.description}")
        print(f"  required: {', '.join(spec.required_names()) or '-'}")
        print(
            "  optional: "
            + ", ".join(f"{item.name} ({item.needs})" if item.needs else item.name for item in spec.optional)
        )
    print("compound: a claim made only of parts (each part a claim of its own kind)")
    print("quantifier (the vendor's word on a figure, read one way in every kind; cases: best or every):")
    for word, rule in quantifiers.RULES.items():
        print(f"  {word}: {rule.meaning} (cases: {rule.cases} unless the claim says)")
    return 0


def _run_new_announcement(args) -> int:
    from claimbook.common import identifiers
    from claimbook.engine import load_registry
    from claimbook.present.scaffold import new_registry

    problem = identifiers.id_problem(args.identifier)
    if problem:
        raise UsageError(f"new-announcement {args.identifier[:80]!r}: an announcement id: {problem}")
    if args.round_name is None:
        from claimbook.common.paths import held_rounds

        args.round_name = (list(held_rounds(PROJECT_ROOT / "data" / "mlperf")) or ["v6.1"])[-1]
    if not identifiers.is_round(args.round_name):
        raise UsageError(f"--round {args.round_name[:80]!r}: a round is {identifiers.ROUND_RULE}")
    _held_round(args.round_name, "--round")  # its claims are judged on that round's results
    problem = identifiers.date_problem(args.date)
    if problem:
        raise UsageError(f"--date: {problem}")
    for option, value in (("--title", args.title), ("--publisher", args.publisher)):
        if not value.strip() or identifiers.has_control(value):
            raise UsageError(
                f"{option} {value[:80]!r}: one line of text, without control characters or line breaks"
            )
    out = inside(PROJECT_ROOT / "data" / "claims", f"{args.identifier}.yaml")
    if out.exists():
        raise UsageError(f"{out}: exists; a new announcement needs a new id (nothing was written)")
    text = new_registry(
        args.identifier, args.publisher, args.title, args.date, args.round_name, load_registry()
    )
    with writer_lock(out):
        replace_file(out, text.encode("utf-8"), False, lambda existing: "")
    print(f"wrote {out}: fill in its claims, then run `make book`", file=sys.stderr)
    return 0


def _rename_params(texts) -> list[str]:
    """The --param changes ``--rename`` stands for (every claim naming an old system)."""
    if not texts:
        return []
    from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, load_registry
    from claimbook.claims.renaming import rename_params
    from claimbook.inputs.renames import parse

    return rename_params(load_registry(PROJECT_ROOT / CLAIMS_DIR, PROJECT_ROOT / CHAPTERS_FILE), parse(texts))


def _run_build(args) -> int:
    from claimbook.pipeline.request import BuildRequest

    if args.rename and args.out is None:
        raise UsageError("--rename changes what the book says, so it needs --out")
    request = BuildRequest(  # checked as it is made, before the build's imports
        results=args.results,
        round_name=args.round_name,
        out=args.out,
        html=not args.no_html,
        only=args.only,
        overrides=[*args.param, *_rename_params(args.rename)],
        jobs=args.jobs,
        force=args.force,
        strict=args.strict,
    )
    from claimbook.pipeline.book import build  # the build's imports (notebooks, charts) only when building

    build(request)
    return 0


def _run_preview(args) -> int:
    """Serve the preview until Ctrl-C or SIGTERM; what it started ends with it."""
    from claimbook.pipeline.preview import Preview
    from claimbook.pipeline.serve import bound_socket, serve

    def report(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    sock = bound_socket(args.port)  # a taken port is refused before anything starts
    preview = Preview(PROJECT_ROOT, report)
    code = 0
    try:
        with as_interrupts(), _kernel_folders_reaped():
            report("building the preview in _build/preview (the committed book is not touched)")
            preview.start()
            port = sock.getsockname()[1]
            serve(
                preview,
                sock,
                lambda: report(f"serving the book at http://127.0.0.1:{port}/ (Ctrl-C stops the preview)"),
            )
    except KeyboardInterrupt as exc:
        code = _preview_interrupted(exc)
    finally:
        preview.stop()
        sock.close()
    report("preview stopped")
    return code


def _kernel_folders_reaped():
    """The reaper of the preview's kernel folders (each holds its kernel's key): removed as the
    preview dies, even by SIGKILL (``claimbook.pipeline.kernelfolders``)."""
    from claimbook.pipeline.kernelfolders import reaper

    return reaper()


def _preview_interrupted(exc: KeyboardInterrupt) -> int:
    """Ctrl-C is how a preview is stopped (exit 0); SIGTERM or SIGHUP (``as_interrupts`` names
    the signal) end it as they end a build: interrupted, exit 130."""
    return EXIT_INTERRUPTED if exc.args else 0


# Each command and the function that runs it (looked up as it runs: a test may replace one).
_COMMANDS = {
    "ingest": "_run_ingest",
    "ingest-earlier": "_run_ingest_earlier",
    "ingest-prices": "_run_ingest_prices",
    "fetch": "_run_fetch",
    "diff": "_run_diff",
    "list": "_run_list",
    "check": "_run_check",
    "kinds": "_run_kinds",
    "new-announcement": "_run_new_announcement",
    "build": "_run_build",
    "systems": "_run_systems",
    "draft": "_run_draft",
    "coverage": "_run_coverage",
    "preview": "_run_preview",
}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    named = os.path.abspath(os.path.expanduser(args.project)) if args.project else None
    if named and os.environ.get(PROJECT_VARIABLE) != named:
        # The command line reads -C before the package finds its project (claimbook.__main__).
        print(
            "error: -C DIR is read by the claimbook command itself: claimbook -C DIR COMMAND", file=sys.stderr
        )
        return EXIT_BAD_INPUT
    outside = not_in_project()
    if outside:
        print(f"error: {outside}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        with as_interrupts():  # SIGTERM and SIGHUP end a command as Ctrl-C does
            return globals()[_COMMANDS[args.command]](args)
    except KeyboardInterrupt:
        # Every writer installs its files by renaming finished ones into place: an interrupted
        # command leaves what was there as it was.
        print("error: interrupted; nothing was changed", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as exc:
        return said_no_memory(exc)
    except BrokenPipeError as exc:
        if _reader_left():  # ``| head``: what it did not read is not lost
            return 0
        message, code = os_error(exc)  # another pipe (a process the command started) broke
        print(f"error: {message}", file=sys.stderr)
        return code
    except Exception as exc:
        bad_input, failed = _error_kinds()
        if isinstance(exc, bad_input + failed):
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT if isinstance(exc, bad_input) else EXIT_FAILED
        if isinstance(exc, OSError):
            message, code = os_error(exc)
            print(f"error: {message}", file=sys.stderr)
            return code
        raise


def said_no_memory(exc: MemoryError) -> int:
    """Memory ran out: one line (written straight to the standard error: its own, if the error
    has one, a build's check of its limit), exit 3. Every writer installs finished files by
    renaming them into place, so nothing half written is left."""
    message = NO_MEMORY
    with contextlib.suppress(Exception):  # (wording it may itself need memory)
        if exc.args and isinstance(exc.args[0], str) and exc.args[0]:
            message = f"error: memory ran out: {exc.args[0]}\n".encode()
    with contextlib.suppress(OSError):
        os.write(2, message)
    return EXIT_NO_MEMORY


def writer_lock(path):
    """``claimbook.pipeline.outputs.writer_lock``: one writer at a time of a book or a file."""
    from claimbook.pipeline.outputs import writer_lock as lock

    return lock(path)


def _reader_left() -> bool:
    """Whether the standard output is a pipe whose reader has gone."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # not a file (a test's buffer), or no poll
        return False


# Errors of the file system that say a path given or made is unusable (bad input, exit 2); any
# other (a full disk, an I/O error) is a failure (exit 1).
_PATH_ERRORS = {
    errno.ENOENT,
    errno.ENOTDIR,
    errno.EISDIR,
    errno.ENAMETOOLONG,
    errno.EACCES,
    errno.EPERM,
    errno.EROFS,
    errno.EEXIST,
    errno.ELOOP,
    errno.EINVAL,
}


def os_error(exc: OSError) -> tuple[str, int]:
    """An error of the file system as one line naming the path and the cause, and its exit code."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list) and exc.args[0]:
        # copytree collects one (source, destination, why) per file that failed: the first says it.
        _source, destination, why = exc.args[0][0]
        more = len(exc.args[0]) - 1
        return (
            f"{destination}: {why}" + (f" (and {more} more file(s))" if more else ""),
            EXIT_FAILED,
        )
    cause = exc.strerror or str(exc) or type(exc).__name__
    path = exc.filename if exc.filename is not None else None
    where = f"{path}: " if path is not None else ""
    if exc.filename2 is not None:
        where = f"{path} -> {exc.filename2}: "
    code = EXIT_BAD_INPUT if exc.errno in _PATH_ERRORS else EXIT_FAILED
    return f"{where}{cause}", code


def _error_kinds() -> tuple[tuple, tuple]:
    """The errors that are bad input (exit 2) and the failures (exit 1); the classes of the
    table-reading modules are imported only once an error has to be told apart."""
    from claimbook.claims.params import ParamError
    from claimbook.common.safe_read import InputError
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.fetch import FetchError, FetchRefused
    from claimbook.inputs.results import ResultsError
    from claimbook.pipeline.jupyterbook import HtmlError
    from claimbook.pipeline.outputs import LockedError, OutputError

    return (
        (
            IngestError,
            RegistryError,
            UsageError,
            FetchRefused,
            ReplaceRefused,
            ResultsError,
            OutputError,
            OutsideError,
            InputError,
            ParamError,
        ),
        (ChapterError, BuildError, FetchError, WriteError, HtmlError, LockedError),
    )
