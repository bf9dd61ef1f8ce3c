"""Where a build may write, and how it replaces what it wrote before without ever losing it.

The rules: a build writes into the project (its own generated files: ``book/generated``,
``_toc.yml`` and ``_build/``) or into an ``--out`` folder that does not exist yet, is empty, or was made by an
earlier ``build --out`` (it holds the marker file). Anything else is refused before anything is
written. A folder is replaced by swapping it with its new version in one step (``renameat2``
with ``RENAME_EXCHANGE`` on Linux), so a build killed at any moment leaves either the old or the
new version in place, never a mix. One lock per target keeps two builds from interleaving.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import json
import os
import shutil
from pathlib import Path

from claimbook.files import current_umask
from claimbook.paths import OUT_MARKER, PROJECT_ROOT

LOCK_FILE = ".claimbook.lock"
STAGING_PREFIX = ".claimbook-staging-"
RETIRED_PREFIX = ".claimbook-retired-"
# Folders of the project that hold sources: an --out folder inside one would mix a built book
# into them.
SOURCE_FOLDERS = (
    "book",
    "data",
    "notebooks",
    "claimbook",
    "tests",
    "docs",
    "benchmarks",
    ".git",
    ".venv",
    ".ci",
    ".github",
)


class OutputError(ValueError):
    """An output the build refuses to write; nothing was written."""


class LockedError(RuntimeError):
    """Another build holds the lock of the same target."""


def check_out_folder(out: Path, project: Path = PROJECT_ROOT) -> Path:
    """The resolved ``--out`` folder if a build may write there; OutputError (one line) if not."""
    given = Path(out)
    target = given.resolve()
    project = project.resolve()
    if target == project or project.is_relative_to(target):
        raise OutputError(
            f"--out {given}: that folder holds the project itself; choose a new or empty folder"
        )
    if target.is_relative_to(project):
        first = target.relative_to(project).parts[0]
        if first in SOURCE_FOLDERS:
            raise OutputError(
                f"--out {given}: inside the project's {first}/ folder; choose a folder outside the "
                "project's sources (e.g. _build/mybook or a new folder elsewhere)"
            )
    if target.exists() and not target.is_dir():
        raise OutputError(f"--out {given}: is a file, not a folder; nothing was written")
    if target.is_dir():
        entries = [entry.name for entry in target.iterdir()]
        if entries and OUT_MARKER not in entries:
            raise OutputError(
                f"--out {given}: the folder is not empty and was not made by `claimbook build --out` "
                f"(no {OUT_MARKER}); choose a new or empty folder"
            )
    return target


def mark_out_folder(target: Path) -> None:
    """Create the folder (with the user's umask) and its marker: ours to replace from now on."""
    target.mkdir(parents=True, exist_ok=True)
    marker = target / OUT_MARKER
    if not marker.exists():
        marker.write_text(json.dumps({"made_by": "python -m claimbook build --out"}) + "\n", encoding="utf-8")


class Lock:
    """An exclusive lock on a target folder, held for the whole build; released even if the
    process is killed (the kernel drops flock locks with the process)."""

    def __init__(self, folder: Path):
        self.path = folder / LOCK_FILE
        self.handle = None

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.seek(0)
            holder = self.handle.read().strip() or "another process"
            self.handle.close()
            raise LockedError(
                f"another build is writing to {self.path.parent} ({holder}); try again when it ends"
            ) from None
        self.handle.seek(0)
        self.handle.truncate()
        self.handle.write(f"pid {os.getpid()}\n")
        self.handle.flush()
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def _leftovers(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [
        entry
        for entry in folder.iterdir()
        if entry.name.startswith((STAGING_PREFIX, RETIRED_PREFIX))
        and entry.is_dir()
        and not entry.is_symlink()
    ]


def has_leftovers(target: Path) -> bool:
    """Whether a killed build left staging or retired folders in ``target`` or its _build/."""
    return bool(_leftovers(target) or _leftovers(target / "_build"))


def clear_leftovers(folder: Path) -> None:
    """Remove staging and retired folders an earlier, killed build left in ``folder`` (only
    ours: they carry our prefixes, and the lock says no build is using them)."""
    for entry in _leftovers(folder):
        shutil.rmtree(entry, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2():
    library = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    function = getattr(library, "renameat2", None)
    if function is not None:
        function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


_EXCHANGE = _renameat2()


def swap_in(new: Path, target: Path) -> None:
    """Put the folder ``new`` where ``target`` is, in one step; the old version is removed after.

    With no ``target`` yet, a rename. Otherwise an atomic exchange where the system has one; where
    it has not, two renames (the window between them is microseconds, and the next build's
    ``clear_leftovers`` and this function's order keep the old version until the new is in).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        os.replace(new, target)
        return
    # The old version goes where ``new`` came from (the build's staging folder under _build/),
    # never beside ``target``: a kill before it is removed leaves it only where the next build
    # clears leftovers.
    if _EXCHANGE is not None:
        result = _EXCHANGE(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(target), _RENAME_EXCHANGE)
        if result == 0:
            shutil.rmtree(new, ignore_errors=True)  # ``new`` now holds the old version
            return
        if ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL, errno.EXDEV):
            raise OSError(ctypes.get_errno(), f"cannot swap {new} and {target}")
    retired = new.parent / f"{RETIRED_PREFIX}{target.name}-{os.getpid()}"
    os.replace(target, retired)
    os.replace(new, target)
    shutil.rmtree(retired, ignore_errors=True)


def replace_file(new: Path, target: Path) -> bool:
    """Move ``new`` over ``target`` unless the bytes are the same; whether it changed."""
    if target.is_file() and target.read_bytes() == new.read_bytes():
        new.unlink()
        return False
    os.replace(new, target)
    return True


def follow_umask(folder: Path) -> None:
    """Give every file and folder under ``folder`` the mode a new one gets under the user's umask
    (copies keep their source's mode otherwise)."""
    mask = current_umask()
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~mask)


MANIFEST = ".claimbook-manifest.json"


def read_manifest(build_dir: Path) -> set[str]:
    """The files the last build of a target wrote into it (relative paths)."""
    try:
        return set(json.loads((build_dir / MANIFEST).read_text()))
    except (OSError, ValueError, TypeError):
        return set()


def write_manifest(build_dir: Path, target: Path, written, exclude=frozenset()) -> None:
    """Record the files the build wrote, given as the folders and files it replaced (those it
    carried over for someone else excepted)."""
    files = sorted(
        relative
        for item in written
        for path in ([item] if item.is_file() else item.rglob("*") if item.is_dir() else [])
        if path.is_file()
        if (relative := path.relative_to(target).as_posix()) not in exclude
    )
    (build_dir / MANIFEST).write_text(json.dumps(files, indent=0) + "\n")


def carry_over(old: Path, new: Path, target: Path, ours: set[str]) -> list[str]:
    """Files someone else put in a folder the build is about to replace: copied into its new
    version, so replacing the folder loses nothing the build did not make. The relative paths."""
    kept = []
    if not old.is_dir() or not ours:
        return kept
    for path in old.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        relative = path.relative_to(target).as_posix()
        destination = new / path.relative_to(old)
        if relative in ours or destination.exists():
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
        kept.append(relative)
    return kept
