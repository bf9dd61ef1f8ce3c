"""``python -m claimbook``: ingest results and build the book.

Exit codes: 0 success, 1 a build or chapter failed, 2 bad input (a results file, the claims
registry or the command line). Errors are one line on stderr saying what and where.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from claimbook.build import BuildError, build
from claimbook.claims import ClaimsError
from claimbook.execute import ChapterError
from claimbook.ingest import IngestError, ingest, write_tidy
from claimbook.results import PROJECT_ROOT
from claimbook.prices import ingest_prices
from claimbook.rounds import ingest_earlier

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m claimbook", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    ingest_cmd = commands.add_parser("ingest", help="turn an MLCommons summary.csv into the tidy results table")
    ingest_cmd.add_argument("path", type=Path, help="an MLCommons Inference summary.csv (any round's layout)")
    ingest_cmd.add_argument("--round", dest="round_name", help="round label, e.g. v6.1 (default: the file's version column)")
    ingest_cmd.add_argument("--out", type=Path, help="where to write (default: data/mlperf/ROUND.csv)")

    earlier_cmd = commands.add_parser(
        "ingest-earlier", help="validate a partial table of earlier-round figures (with source_type)"
    )
    earlier_cmd.add_argument("path", type=Path, help="CSV with version, organization, platform, ..., source_type, source")
    earlier_cmd.add_argument("--out", type=Path, help="where to write (default: data/mlperf/earlier_rounds.csv)")

    prices_cmd = commands.add_parser("ingest-prices", help="validate a table of GPU-hour prices")
    prices_cmd.add_argument("path", type=Path, help="CSV with provider, accelerator, usd_per_gpu_hour, pricing, as_of, note")
    prices_cmd.add_argument("--out", type=Path, help="where to write (default: data/prices/gpu_hour_prices.csv)")

    build_cmd = commands.add_parser("build", help="execute the chapters, write the scorecard and compile the HTML")
    build_cmd.add_argument("--results", type=Path, help="build from this summary.csv instead of the committed data")
    build_cmd.add_argument("--round", dest="round_name", help="round label for --results (default: its version column)")
    build_cmd.add_argument("--out", type=Path, help="build into this folder and leave the committed book untouched")
    build_cmd.add_argument("--no-html", action="store_true", help="execute chapters and write the scorecard only")
    return parser


def _run_ingest(args) -> int:
    table = ingest(args.path, args.round_name)
    round_name = str(table["round"].iloc[0])
    out = args.out or PROJECT_ROOT / "data" / "mlperf" / f"{round_name}.csv"
    write_tidy(table, out)
    print(f"wrote {len(table)} results of round {round_name} to {out}", file=sys.stderr)
    return 0


def _run_ingest_earlier(args) -> int:
    table = ingest_earlier(args.path)
    out = args.out or PROJECT_ROOT / "data" / "mlperf" / "earlier_rounds.csv"
    write_tidy(table, out)
    print(f"wrote {len(table)} earlier-round figures to {out}", file=sys.stderr)
    return 0


def _run_ingest_prices(args) -> int:
    table = ingest_prices(args.path)
    out = args.out or PROJECT_ROOT / "data" / "prices" / "gpu_hour_prices.csv"
    write_tidy(table, out)
    print(f"wrote {len(table)} prices to {out}", file=sys.stderr)
    return 0


def _run_build(args) -> int:
    if args.round_name and not args.results:
        raise SystemExit("error: --round goes with --results")
    build(results=args.results, round_name=args.round_name, out=args.out, html=not args.no_html)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        run = {
            "ingest": _run_ingest,
            "ingest-earlier": _run_ingest_earlier,
            "ingest-prices": _run_ingest_prices,
            "build": _run_build,
        }[args.command]
        return run(args)
    except (IngestError, ClaimsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ChapterError, BuildError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
