"""``python -m claimbook``: fetch and ingest results, build the book, compare and list.

Exit codes: 0 success, 1 a build, chapter or download failed (or the file system did), 2 bad
input (a results file, the claims registry, the command line, a path the file system refuses),
3 memory ran out (a ``ulimit -v`` too low: ``MemoryError``, or a build's own check of its address
space before it starts), 130 interrupted. Errors are one line on stderr saying what and where.

One module per command, or per few related commands (``ingest`` and its two siblings, ``draft``
and ``coverage``), holds its sub-parser (``add_commands``) and its runner; ``parser`` puts them
together, ``options`` holds the options several commands share, ``exits`` the exit codes and how
an error becomes one line. This module runs a command.
"""

from __future__ import annotations

import os
import sys

# The runners, by the names ``_COMMANDS`` gives them: looked up here as a command runs.
from claimbook.cli.announcement import _run_new_announcement  # noqa: F401
from claimbook.cli.build import _run_build  # noqa: F401
from claimbook.cli.check import _run_check  # noqa: F401
from claimbook.cli.diff import _run_diff  # noqa: F401
from claimbook.cli.drafting import _run_coverage, _run_draft  # noqa: F401
from claimbook.cli.exits import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NO_MEMORY,
    NO_MEMORY,
    error_kinds,
    os_error,
    reader_left,
    said_no_memory,
)
from claimbook.cli.fetch import _run_fetch  # noqa: F401
from claimbook.cli.ingest import _run_ingest, _run_ingest_earlier, _run_ingest_prices  # noqa: F401
from claimbook.cli.kinds import _run_kinds  # noqa: F401
from claimbook.cli.listing import _run_list  # noqa: F401
from claimbook.cli.parser import build_parser
from claimbook.cli.preview import _run_preview  # noqa: F401
from claimbook.cli.shared import writer_lock
from claimbook.cli.systems import _run_systems  # noqa: F401
from claimbook.common.interrupts import as_interrupts
from claimbook.common.paths import PROJECT_VARIABLE, not_in_project

# The modules that read tables (and so import pandas) are imported by the commands that use
# them: a build with nothing to do answers before pandas would have loaded. So are the writers'
# (a lock, the HTML build's processes): ``check`` and ``list`` write nothing.

# What other code imports from ``claimbook.cli``.
__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NO_MEMORY",
    "NO_MEMORY",
    "main",
    "os_error",
    "said_no_memory",
    "writer_lock",
]


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
    args = build_parser().parse_args(argv)
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
        if reader_left():  # ``| head``: what it did not read is not lost
            return 0
        message, code = os_error(exc)  # another pipe (a process the command started) broke
        print(f"error: {message}", file=sys.stderr)
        return code
    except Exception as exc:
        bad_input, failed = error_kinds()
        if isinstance(exc, bad_input + failed):
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT if isinstance(exc, bad_input) else EXIT_FAILED
        if isinstance(exc, OSError):
            message, code = os_error(exc)
            print(f"error: {message}", file=sys.stderr)
            return code
        raise
