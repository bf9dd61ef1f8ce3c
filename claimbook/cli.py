"""``python -m claimbook``: fetch and ingest results, build the book, compare and list.

Exit codes: 0 success, 1 a build, chapter or download failed, 2 bad input (a results file,
the claims registry or the command line). Errors are one line on stderr saying what and where.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from claimbook.build import BuildError, UsageError, build
from claimbook.claims import ClaimsError, load_registry
from claimbook.csvfile import row_changes
from claimbook.diff import claimed_systems, diff_results, format_diff, result_changes
from claimbook.fetch import ROUND, FetchError, FetchRefused, fetch_summary
from claimbook.files import UNCHANGED, ReplaceRefused, WriteError, replace_file
from claimbook.ledger import claim_ledger
from claimbook.execute import ChapterError
from claimbook.ingest import IngestError, ingest, tidy_csv
from claimbook.results import PROJECT_ROOT, ResultsError, SelectionError, load_results
from claimbook.prices import ingest_prices
from claimbook.rounds import ingest_earlier

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m claimbook", description="Fetch and ingest MLPerf results, build the claims book, compare and list."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    ingest_cmd = commands.add_parser("ingest", help="turn an MLCommons summary.csv into the tidy results table")
    ingest_cmd.add_argument("path", type=Path, help="an MLCommons Inference summary.csv (any round's layout)")
    ingest_cmd.add_argument("--round", dest="round_name", help="round label, e.g. v6.1 (default: the file's version column)")
    ingest_cmd.add_argument("--out", type=Path, help="where to write (default: data/mlperf/ROUND.csv)")
    _add_force(ingest_cmd)

    earlier_cmd = commands.add_parser(
        "ingest-earlier", help="validate a partial table of earlier-round figures (with source_type)"
    )
    earlier_cmd.add_argument("path", type=Path, help="CSV with version, organization, platform, ..., source_type, source")
    earlier_cmd.add_argument("--out", type=Path, help="where to write (default: data/mlperf/earlier_rounds.csv)")
    _add_force(earlier_cmd)

    prices_cmd = commands.add_parser("ingest-prices", help="validate a table of GPU-hour prices")
    prices_cmd.add_argument("path", type=Path, help="CSV with provider, accelerator, usd_per_gpu_hour, pricing, as_of, note")
    prices_cmd.add_argument("--out", type=Path, help="where to write (default: data/prices/gpu_hour_prices.csv)")
    _add_force(prices_cmd)

    fetch_cmd = commands.add_parser("fetch", help="download a round's summary.csv from the MLCommons results repository")
    fetch_cmd.add_argument("round_name", metavar="ROUND", help="round label, vMAJOR.MINOR, e.g. v6.1")
    fetch_cmd.add_argument("--from", dest="url", help="download from this URL instead of the MLCommons repository")
    fetch_cmd.add_argument("--dir", type=Path, help="where rounds are kept (default: data/raw)")
    fetch_cmd.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the server (default: 30)")
    _add_force(fetch_cmd, "the round's summary.csv")

    diff_cmd = commands.add_parser("diff", help="what changed between two tidy result tables")
    diff_cmd.add_argument("old", type=Path, help="the earlier tidy table (from ingest)")
    diff_cmd.add_argument("new", type=Path, help="the later tidy table")
    diff_cmd.add_argument("--all", action="store_true", help="every system, not only those the claims use")

    commands.add_parser("list", help="the claims, their chapters and their current verdicts")

    build_cmd = commands.add_parser("build", help="execute the chapters, write the scorecard and compile the HTML")
    build_cmd.add_argument("--results", type=Path, help="build from this summary.csv instead of the committed data")
    build_cmd.add_argument("--round", dest="round_name", help="round label for --results (default: its version column)")
    build_cmd.add_argument("--out", type=Path, help="build into this folder and leave the committed book untouched")
    build_cmd.add_argument("--no-html", action="store_true", help="execute chapters and write the scorecard only")
    build_cmd.add_argument(
        "--only", action="append", metavar="CLAIM", help="re-execute only this chapter (a chapter name or a claim id); repeatable"
    )
    build_cmd.add_argument(
        "--param", action="append", default=[], metavar="CLAIM.NAME=VALUE",
        help="override one parameter (VALUE is read as YAML), e.g. economics.pricing_kind=spot; repeatable",
    )
    build_cmd.add_argument("--jobs", type=int, help="chapters executed at once (default: the number of cores)")
    build_cmd.add_argument("--force", action="store_true", help="execute every chapter, whatever the cache says")
    return parser


def _add_force(command, what: str = "the output file") -> None:
    command.add_argument("--force", action="store_true",
                         help=f"replace {what} even if it exists and differs (otherwise refused, saying what would change)")


def _write_table(data: bytes, out: Path, force: bool, what: str, what_changes) -> int:
    """Write an ingested table unless a different file is there (then only with --force), and say so."""
    if replace_file(out, data, force, what_changes) == UNCHANGED:
        print(f"unchanged: {out} already holds these {what}", file=sys.stderr)
    else:
        print(f"wrote {what} to {out}", file=sys.stderr)
    return 0


def _result_changes(out: Path, table):
    """For a refusal: what the new tidy table changes, by result (whole rows if the file there
    is not a tidy table)."""
    def what_changes(existing: bytes) -> str:
        try:
            return result_changes(load_results(out.absolute()), table)
        except ResultsError:
            return row_changes(existing, tidy_csv(table))
    return what_changes


def _run_ingest(args) -> int:
    table = ingest(args.path, args.round_name)
    round_name = str(table["round"].iloc[0])
    if args.out is None and not ROUND.fullmatch(round_name):
        raise IngestError(f"{args.path}: round {round_name!r} is not of the form vMAJOR.MINOR, so it cannot name "
                          "the output file; pass --round or --out")
    out = args.out or PROJECT_ROOT / "data" / "mlperf" / f"{round_name}.csv"
    return _write_table(tidy_csv(table), out, args.force, f"{len(table)} results of round {round_name}",
                        _result_changes(out, table))


def _run_ingest_earlier(args) -> int:
    table = ingest_earlier(args.path)
    out = args.out or PROJECT_ROOT / "data" / "mlperf" / "earlier_rounds.csv"
    data = tidy_csv(table)
    return _write_table(data, out, args.force, f"{len(table)} earlier-round figures",
                        lambda existing: row_changes(existing, data))


def _run_ingest_prices(args) -> int:
    table = ingest_prices(args.path)
    out = args.out or PROJECT_ROOT / "data" / "prices" / "gpu_hour_prices.csv"
    data = tidy_csv(table)
    return _write_table(data, out, args.force, f"{len(table)} prices", lambda existing: row_changes(existing, data))


def _run_fetch(args) -> int:
    fetched = fetch_summary(args.round_name, args.dir or PROJECT_ROOT / "data" / "raw", args.url, args.timeout,
                            progress=sys.stderr.isatty(), force=args.force)
    if fetched.unchanged:
        print(f"unchanged: {fetched.path} already holds this download ({fetched.results} results, "
              f"sha256 {fetched.sha256})", file=sys.stderr)
    else:
        print(f"fetched {fetched.results} results ({fetched.size} bytes, sha256 {fetched.sha256}) to {fetched.path}",
              file=sys.stderr)
    return 0


def _run_diff(args) -> int:
    old, new = load_results(args.old), load_results(args.new)
    systems = None if args.all else claimed_systems(load_registry())
    print(format_diff(diff_results(old, new, systems)))
    return 0


def _run_list(args) -> int:
    registry = load_registry()
    scorecard_path = PROJECT_ROOT / "book" / "scorecard.json"
    if not scorecard_path.is_file():
        raise UsageError(f"{scorecard_path}: no scorecard yet; run `python -m claimbook build` first")
    ledger = claim_ledger(json.loads(scorecard_path.read_text()), registry)
    ledger = ledger.assign(
        chapter=ledger["chapter"].replace("", "-"),
        claimed=ledger["claimed"].map(lambda value: "-" if value is None or value != value else f"{value:g}"),
        measured=ledger["measured"].map(lambda value: "-" if value is None or value != value else f"{value:.3g}"),
    )
    print(ledger[["claim", "chapter", "claimed", "measured", "unit", "verdict"]].to_string(index=False))
    return 0


def _run_build(args) -> int:
    if args.round_name and not args.results:
        raise SystemExit("error: --round goes with --results")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    build(
        results=args.results, round_name=args.round_name, out=args.out, html=not args.no_html,
        only=args.only, overrides=args.param, jobs=args.jobs, force=args.force,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        run = {
            "ingest": _run_ingest,
            "ingest-earlier": _run_ingest_earlier,
            "ingest-prices": _run_ingest_prices,
            "fetch": _run_fetch,
            "diff": _run_diff,
            "list": _run_list,
            "build": _run_build,
        }[args.command]
        return run(args)
    except (IngestError, ClaimsError, UsageError, FetchRefused, ReplaceRefused) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ResultsError, SelectionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ChapterError, BuildError, FetchError, WriteError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
