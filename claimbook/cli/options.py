"""The options several commands share, defined once: ``--force`` and ``--rename``."""

from __future__ import annotations


def add_force(command, what: str = "the output file") -> None:
    command.add_argument(
        "--force",
        action="store_true",
        help=f"replace {what} even if it exists and differs (otherwise refused, saying what would change)",
    )


def add_rename(command) -> None:
    command.add_argument(
        "--rename",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="a system renamed in the new results: every claim naming OLD names NEW (repeatable; or a YAML file of OLD: NEW)",
    )
