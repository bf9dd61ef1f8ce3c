"""The folders a page's kernel talks through (its Unix sockets), removed however a build ends.

Each is made in the temporary folder under a name that carries the build's process id
(``claimbook-kernel-PID-XXXXXXXX``). A build that ends normally or by an exception removes its
own; one interrupted (Ctrl-C, SIGTERM, SIGHUP: ``claimbook.common.interrupts``) removes them once
its pages are abandoned. Those of a build killed outright (SIGKILL) are removed as it dies by
its reaper (``reaper``): a small process of a session of its own, not the build's child, that
waits on a pipe only the build holds open and, when it closes (the build ended, however),
removes the build's folders and ends. Failing that (the reaper killed too), the next build
removes them, knowing them as a dead process's by their names. Each folder holds the kernel's
sockets, its standard error and its connection file (with the key that signs its messages).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

PREFIX = "claimbook-kernel-"
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-[^/]+")
_open: set[Path] = set()  # this process's folders, for ``remove_own``


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


# The reaper: started by the build through a first process that forks it and ends at once (so
# the reaper is no child of the build, and a `kill -9` of the build and its children spares it),
# it leads a session of its own, in /, and waits for the end of the pipe it was given.
_REAPER = r"""
import os, shutil, sys
pipe, folder, prefix = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if os.fork():
    os._exit(0)
os.setsid()
os.chdir("/")
try:
    while os.read(pipe, 64):
        pass
except OSError:
    pass
try:
    names = os.listdir(folder)
except OSError:
    names = []
for name in names:
    path = os.path.join(folder, name)
    if name.startswith(prefix) and os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
os._exit(0)
"""


@contextlib.contextmanager
def reaper():
    """While entered, a reaper removes this process's kernel folders as soon as it ends, however
    it ends (not needed where processes cannot be forked)."""
    import subprocess
    import sys

    if not hasattr(os, "fork"):
        yield
        return
    read, write = os.pipe()
    try:
        first = subprocess.Popen(
            [
                sys.executable,
                "-S",
                "-c",
                _REAPER,
                str(read),
                tempfile.gettempdir(),
                f"{PREFIX}{os.getpid()}-",
            ],
            pass_fds=(read,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        first.wait()
    finally:
        os.close(read)
    try:
        yield
    finally:
        os.close(write)  # the reaper removes what is left, and ends


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


def remove_own() -> None:
    """Remove this process's kernel folders (an interrupted or failed build, once its pages were
    abandoned): those recorded, and by name those a page's thread made a moment ago."""
    for folder in list(_open):
        shutil.rmtree(folder, ignore_errors=True)
        _open.discard(folder)
    with contextlib.suppress(OSError):
        for entry in Path(tempfile.gettempdir()).glob(f"{PREFIX}{os.getpid()}-*"):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
