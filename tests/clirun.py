"""The command line, run in the test's own process: ``claimbook.cli.main`` with its own working
folder, umask and environment, its output captured, and any exception that escapes turned into
what the real command would print (exit 1 and a traceback). A subprocess costs about a second
of imports; this costs milliseconds, so the matrices of inputs and outputs run here.

``as_subprocess`` is the real thing (``python -m claimbook``), for the few cases that prove the
entry point itself behaves the same.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from pathlib import Path

from conftest import ROOT

# A build's book root comes from this variable when it is set; the command line never sees it.
HIDDEN_VARIABLES = ("CLAIMBOOK_BOOK_ROOT",)


@contextlib.contextmanager
def _process_state(cwd: Path, umask: int):
    previous_folder, previous_umask = os.getcwd(), os.umask(umask)
    hidden = {name: os.environ.pop(name) for name in HIDDEN_VARIABLES if name in os.environ}
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(previous_folder)
        os.umask(previous_umask)
        os.environ.update(hidden)


def in_process(*args, cwd: Path = ROOT, umask: int = 0o022) -> subprocess.CompletedProcess:
    """``python -m claimbook ARGS`` as ``claimbook.cli.main(ARGS)``: exit code, stdout, stderr."""
    from claimbook.cli import main

    argv = [str(arg) for arg in args]
    out, err = io.StringIO(), io.StringIO()
    with _process_state(Path(cwd), umask), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: a usage error exits 2, --help 0
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # noqa: BLE001 -- what Python prints when a command dies of an uncaught exception
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(["claimbook", *argv], code, out.getvalue(), err.getvalue())


def as_subprocess(
    *args, cwd: Path = ROOT, umask: int = 0o022, timeout: float = 900
) -> subprocess.CompletedProcess:
    """The real command line, in a process of its own."""
    environment = {key: value for key, value in os.environ.items() if key not in HIDDEN_VARIABLES}
    return subprocess.run(
        [sys.executable, "-m", "claimbook", *map(str, args)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        umask=umask,
        timeout=timeout,
        check=False,
    )
