"""The command line's parser: the options before the command, then each command's sub-parser,
added by the command's own module, in the order ``--help`` lists them."""

from __future__ import annotations

import argparse

from claimbook.cli import (
    announcement,
    build,
    check,
    diff,
    drafting,
    fetch,
    ingest,
    kinds,
    listing,
    preview,
    systems,
)

# The modules that add commands, in the order of the commands in ``--help``.
COMMAND_MODULES = (
    ingest,
    fetch,
    diff,
    listing,
    check,
    kinds,
    announcement,
    build,
    systems,
    drafting,
    preview,
)


def build_parser() -> argparse.ArgumentParser:
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
    for command_module in COMMAND_MODULES:
        command_module.add_commands(commands)
    return parser
