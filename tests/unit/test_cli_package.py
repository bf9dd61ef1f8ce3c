"""The command line is a package, one module per command or few related commands
(docs/architecture.md): each module adds the sub-parsers of the commands it runs, and no others."""

from __future__ import annotations

import argparse
from pathlib import Path

from claimbook import cli
from claimbook.cli import parser

# The modules of the package that add no command.
HELPERS = {"__init__", "exits", "options", "parser", "shared"}
LONGEST = 250  # lines of a module: the package was one module of 900


def _added(module) -> list[str]:
    commands = argparse.ArgumentParser().add_subparsers(dest="command")
    module.add_commands(commands)
    return list(commands.choices)


def test_each_module_adds_the_commands_it_runs_and_no_others():
    for module in parser.COMMAND_MODULES:
        runs = [
            name
            for name, runner in cli._COMMANDS.items()
            if getattr(cli, runner).__module__ == module.__name__
        ]
        assert runs and _added(module) == runs, module.__name__


def test_every_command_module_is_in_the_parser_and_every_command_has_a_runner():
    folder = Path(cli.__file__).parent
    modules = {path.stem for path in folder.glob("*.py")} - HELPERS
    assert modules == {module.__name__.rsplit(".", 1)[1] for module in parser.COMMAND_MODULES}
    assert [name for module in parser.COMMAND_MODULES for name in _added(module)] == list(cli._COMMANDS)


def test_no_module_of_the_command_line_is_long():
    long = {
        path.name: lines
        for path in Path(cli.__file__).parent.glob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST
    }
    assert not long, long
