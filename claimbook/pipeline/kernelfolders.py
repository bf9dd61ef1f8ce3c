"""The folders a page's kernel talks through (its Unix sockets), removed however a build ends.

Each is made in the temporary folder under a name that carries the build's process id
(``claimbook-kernel-PID-XXXXXXXX``). A build that ends normally or by an exception removes its
own; one ended by SIGTERM removes them in its signal handler before it ends as SIGTERM would;
the folders of a build killed outright (SIGKILL) are removed by the next build, which knows
them as a dead process's by their names.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
from pathlib import Path

PREFIX = "claimbook-kernel-"
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-[^/]+")
_open: set[Path] = set()  # this process's folders, for the SIGTERM handler


@contextlib.contextmanager
def kernel_folder():
    """A new folder of this build's for one kernel's sockets (a short path: a Unix socket's path
    has a limit of about a hundred bytes); removed on the way out."""
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    _open.add(folder)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _open.discard(folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_dead(folder: Path | None = None) -> list[Path]:
    """Remove the kernel folders (this user's) of builds that are no longer running; the removed."""
    base = Path(folder or tempfile.gettempdir())
    removed = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            info = entry.lstat()
        except OSError:
            continue
        if not entry.is_dir() or entry.is_symlink() or info.st_uid != os.getuid():
            continue
        if not _alive(int(match.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


@contextlib.contextmanager
def removed_on_terminate():
    """While it is entered (in the main thread), SIGTERM removes this process's kernel folders
    first, then ends the process as it would have (the handler that was there is put back and
    the signal sent again)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)

    def terminate(signum, frame):
        for folder in list(_open):
            shutil.rmtree(folder, ignore_errors=True)
        # And by name: a page's thread may have made its folder a moment ago, not yet recorded.
        with contextlib.suppress(OSError):
            for entry in Path(tempfile.gettempdir()).glob(f"{PREFIX}{os.getpid()}-*"):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
