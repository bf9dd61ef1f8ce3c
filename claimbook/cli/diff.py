"""``diff``: what changed between two tidy result tables."""

from __future__ import annotations

from pathlib import Path

from claimbook.cli.options import add_rename
from claimbook.common.paths import PROJECT_ROOT


def add_commands(commands) -> None:
    diff_cmd = commands.add_parser("diff", help="what changed between two tidy result tables of one round")
    diff_cmd.add_argument("old", type=Path, help="the earlier tidy table (from ingest)")
    diff_cmd.add_argument("new", type=Path, help="the later tidy table")
    diff_cmd.add_argument("--all", action="store_true", help="every result, not only those the claims select")
    add_rename(diff_cmd)


def _run_diff(args) -> int:
    from claimbook.engine.result_diff import explained_diff, refuse_other_rounds
    from claimbook.inputs.renames import parse
    from claimbook.inputs.results import load_results

    given = parse(args.rename)
    old, new = load_results(args.old), load_results(args.new)
    refuse_other_rounds(old, new, args.old, args.new)
    print(explained_diff(PROJECT_ROOT, old, new, given, args.all))
    return 0
