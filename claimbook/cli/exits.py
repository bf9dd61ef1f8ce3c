"""The exit codes, and how an error that ends a command becomes one line on stderr and its code."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys

from claimbook.claims.registry import RegistryError
from claimbook.common.errors import BuildError, ChapterError, UsageError
from claimbook.common.files import ReplaceRefused, WriteError
from claimbook.common.paths import OutsideError

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NO_MEMORY = 3
EXIT_INTERRUPTED = 130  # what a shell reports for a command ended by Ctrl-C (128 + SIGINT)
# Said without allocating much: the memory that ran out is not there to word it.
NO_MEMORY = (
    b"error: memory ran out (MemoryError); raise the limit (ulimit -v) or free memory; nothing was changed\n"
)


def said_no_memory(exc: MemoryError) -> int:
    """Memory ran out: one line (written straight to the standard error: its own, if the error
    has one, a build's check of its limit), exit 3. Every writer installs finished files by
    renaming them into place, so nothing half written is left."""
    message = NO_MEMORY
    with contextlib.suppress(Exception):  # (wording it may itself need memory)
        if exc.args and isinstance(exc.args[0], str) and exc.args[0]:
            message = f"error: memory ran out: {exc.args[0]}\n".encode()
    with contextlib.suppress(OSError):
        os.write(2, message)
    return EXIT_NO_MEMORY


def reader_left() -> bool:
    """Whether the standard output is a pipe whose reader has gone."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # not a file (a test's buffer), or no poll
        return False


# Errors of the file system that say a path given or made is unusable (bad input, exit 2); any
# other (a full disk, an I/O error) is a failure (exit 1).
_PATH_ERRORS = {
    errno.ENOENT,
    errno.ENOTDIR,
    errno.EISDIR,
    errno.ENAMETOOLONG,
    errno.EACCES,
    errno.EPERM,
    errno.EROFS,
    errno.EEXIST,
    errno.ELOOP,
    errno.EINVAL,
}


def os_error(exc: OSError) -> tuple[str, int]:
    """An error of the file system as one line naming the path and the cause, and its exit code."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list) and exc.args[0]:
        # copytree collects one (source, destination, why) per file that failed: the first says it.
        _source, destination, why = exc.args[0][0]
        more = len(exc.args[0]) - 1
        return (
            f"{destination}: {why}" + (f" (and {more} more file(s))" if more else ""),
            EXIT_FAILED,
        )
    cause = exc.strerror or str(exc) or type(exc).__name__
    path = exc.filename if exc.filename is not None else None
    where = f"{path}: " if path is not None else ""
    if exc.filename2 is not None:
        where = f"{path} -> {exc.filename2}: "
    code = EXIT_BAD_INPUT if exc.errno in _PATH_ERRORS else EXIT_FAILED
    return f"{where}{cause}", code


def error_kinds() -> tuple[tuple, tuple]:
    """The errors that are bad input (exit 2) and the failures (exit 1); the classes of the
    table-reading modules are imported only once an error has to be told apart."""
    from claimbook.claims.params import ParamError
    from claimbook.common.safe_read import InputError
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.fetch import FetchError, FetchRefused
    from claimbook.inputs.results import ResultsError
    from claimbook.pipeline.jupyterbook import HtmlError
    from claimbook.pipeline.outputs import LockedError, OutputError

    return (
        (
            IngestError,
            RegistryError,
            UsageError,
            FetchRefused,
            ReplaceRefused,
            ResultsError,
            OutputError,
            OutsideError,
            InputError,
            ParamError,
        ),
        (ChapterError, BuildError, FetchError, WriteError, HtmlError, LockedError),
    )
