"""``fetch``: a round's results summary downloaded, checked and installed."""

from __future__ import annotations

import sys
from pathlib import Path

from claimbook.cli.options import add_force
from claimbook.cli.shared import writer_lock
from claimbook.common.paths import PROJECT_ROOT


def add_commands(commands) -> None:
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
    add_force(fetch_cmd, "the round's summary")


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
