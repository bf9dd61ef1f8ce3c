"""``check``: claims' verdicts now, in this process (``claimbook.quickcheck``)."""

from __future__ import annotations

from pathlib import Path

from claimbook.cli.options import add_rename
from claimbook.common.errors import UsageError


def add_commands(commands) -> None:
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
        "--round",
        dest="round_name",
        help="the round of --results where its version column is empty (a round the column contradicts is refused)",
    )
    check_cmd.add_argument("--json", action="store_true", help="the scorecard rows and results used, as JSON")
    add_rename(check_cmd)


def _run_check(args) -> int:
    if args.round_name and not args.results:
        raise UsageError("--round goes with --results")
    from claimbook.quickcheck import run

    print(run(args.claim_ids, args.registry, args.results, args.round_name, args.json, renames=args.rename))
    return 0
