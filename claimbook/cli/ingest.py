"""``ingest``, ``ingest-earlier`` and ``ingest-prices``: a round's summary, earlier-round figures
and GPU-hour prices checked and written as the book's tables."""

from __future__ import annotations

import sys
from pathlib import Path

from claimbook.cli.options import add_force
from claimbook.cli.shared import writer_lock
from claimbook.common.errors import UsageError
from claimbook.common.files import UNCHANGED, replace_file
from claimbook.common.paths import PROJECT_ROOT, inside


def add_commands(commands) -> None:
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
    add_force(ingest_cmd)

    earlier_cmd = commands.add_parser(
        "ingest-earlier", help="validate a partial table of earlier-round figures (with source_type)"
    )
    earlier_cmd.add_argument(
        "path", type=Path, help="CSV with version, organization, platform, ..., source_type, source"
    )
    earlier_cmd.add_argument(
        "--out", type=Path, help="where to write (default: data/mlperf/earlier_rounds.csv)"
    )
    add_force(earlier_cmd)

    prices_cmd = commands.add_parser("ingest-prices", help="validate a table of GPU-hour prices")
    prices_cmd.add_argument(
        "path", type=Path, help="CSV with provider, accelerator, usd_per_gpu_hour, pricing, as_of, note"
    )
    prices_cmd.add_argument(
        "--out", type=Path, help="where to write (default: data/prices/gpu_hour_prices.csv)"
    )
    add_force(prices_cmd)


def _write_table(data: bytes, out: Path, force: bool, what: str, what_changes) -> int:
    """Write an ingested table unless a different file is there (then only with --force), and say so.
    Under the lock of the target it belongs to: never while a build reads the data it replaces."""
    _table_target(out)
    with writer_lock(out):
        written = replace_file(out, data, force, what_changes)
    if written == UNCHANGED:
        print(f"unchanged: {out} already holds these {what}", file=sys.stderr)
    else:
        print(f"wrote {what} to {out}", file=sys.stderr)
    return 0


def _table_target(out: Path) -> None:
    """A table is a .csv file, and never in the registries' folder: a table written over a
    registry, a page or the book's configuration (with --force) would break every command."""
    from claimbook.common.paths import CLAIMS_DIR

    if out.is_dir():
        return  # (refused by the writer, which says the folder is not a file)
    if out.suffix.lower() != ".csv":
        raise UsageError(f"--out {out}: a table is written as a .csv file; nothing was written")
    registries = (PROJECT_ROOT / CLAIMS_DIR).resolve()
    if out.absolute().resolve().parent == registries:
        raise UsageError(f"--out {out}: {CLAIMS_DIR} holds the registries only; nothing was written")


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
    code = _write_table(
        tidy_csv(table),
        out,
        args.force,
        f"{len(table)} results of round {round_name}",
        _result_changes(out, table),
    )
    if args.out is None:
        _note_unrecorded_source(round_name)
    return code


def _note_unrecorded_source(round_name: str) -> None:
    """A round the book now holds whose source sources.csv does not record: its pages say so, and
    the analyst is told where to record it (the file's own checksum, to start with)."""
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.reference import load_sources

    table = PROJECT_ROOT / "data" / "mlperf" / "sources.csv"
    try:
        recorded = round_name in load_sources(table)
    except IngestError:
        recorded = False
    if not recorded:
        print(
            f"note: {table} has no line for {round_name}: its pages will say that no source of its results "
            "is recorded; add its repository, file, commit, sha256 and publication date there",
            file=sys.stderr,
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
