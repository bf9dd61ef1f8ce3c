"""The command line, run in the test's own process: ``claimbook.cli.main`` with its own working
folder, umask and environment, its output captured, and any exception that escapes turned into
what the real command would print (exit 1 and a traceback). A subprocess costs about a second
of imports; this costs milliseconds, so the matrices of inputs and outputs run here.

``as_subprocess`` is the real thing (``python -m claimbook``), for the few cases that prove the
entry point itself behaves the same.

``in_copy`` runs it in a copy of the project with the copy's own package, as ``python -m claimbook``
run there does, but in a child forked from this process: the package finds its project as it is
imported, so the child imports it afresh from the copy, while the libraries it uses (pandas,
numpy, yaml...) stay imported (this process imports what a first child used). It saves the
second of imports of a subprocess where that second is most of the command: a refusal, a build
of a page or two (its kernels are started as a build starts them, by a server of their own). Keep
at least one real command line (``project.run_copy``) for each behaviour.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from tests.helpers.project import ROOT

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


def in_copy(
    copy: Path,
    *args,
    umask: int = 0o022,
    environment: dict | None = None,
    prelude: str | None = None,
    timeout: float = 900,
) -> subprocess.CompletedProcess:
    """``python -m claimbook ARGS`` run in the project copy ``copy`` with its own package (as
    ``project.run_copy`` runs it), in a forked child of this process (see above); with
    ``environment``, in that environment instead of this process's; with ``prelude``, that Python
    code run first (as a ``sitecustomize`` module on the command's path would be). A child killed
    by a signal gives the signal's negative number as its exit code, and nothing it said; one still
    running after ``timeout`` seconds is killed, and the test fails."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns, whatever happens
        try:
            os.close(read)
            if environment is not None:
                os.environ.clear()
                os.environ.update(environment)
            os.environ.pop("CLAIMBOOK_PROJECT", None)
            os.environ["PYTHONPATH"] = str(copy)
            tempfile.tempdir = None  # found again from TMPDIR, as a new process finds it
            for name in [name for name in sys.modules if name.split(".")[0] == "claimbook"]:
                del sys.modules[name]
            sys.path.insert(0, str(copy))  # the copy's package first, as PYTHONPATH puts it for a new process
            if prelude is not None:
                exec(compile(prelude, "<prelude>", "exec"), {"__name__": "sitecustomize"})  # noqa: S102
            import claimbook

            assert Path(claimbook.__file__).is_relative_to(copy), claimbook.__file__
            done = in_process(*args, cwd=copy, umask=umask)
            used = sorted(name for name in sys.modules if name.split(".")[0] == "claimbook")
            payload = [done.returncode, done.stdout, done.stderr, used]
        except BaseException:  # noqa: BLE001 -- said to the parent, which fails the test
            payload = [-1, "", f"the forked command failed:\n{traceback.format_exc()}", []]
        finally:
            try:
                with os.fdopen(write, "w", encoding="utf-8") as stream:
                    json.dump(payload, stream)
            finally:
                os._exit(0)
    os.close(write)
    text = _answer(read, pid, timeout)
    _, status = os.waitpid(pid, 0)
    ended = os.waitstatus_to_exitcode(status)
    if ended < 0:  # killed
        return subprocess.CompletedProcess(["claimbook", *map(str, args)], ended, "", "")
    assert ended == 0 and text, f"the forked command ended with {status}"
    code, out, err, used = json.loads(text)
    # This process imports the modules the command used (this checkout's, the same code), so the
    # next child finds the libraries they import already imported.
    for name in used:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    return subprocess.CompletedProcess(["claimbook", *map(str, args)], code, out, err)


def _answer(read: int, pid: int, timeout: float) -> str:
    """What the child ``pid`` writes to ``read`` until it closes it (read before waiting: a pipe
    holds 64 KiB), within ``timeout`` seconds."""
    deadline, chunks = time.monotonic() + timeout, []
    try:
        while True:
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise AssertionError(f"the forked command ran for more than {timeout:g} s")
            chunk = os.read(read, 1 << 16)
            if not chunk:
                return b"".join(chunks).decode("utf-8")
            chunks.append(chunk)
    finally:
        os.close(read)
