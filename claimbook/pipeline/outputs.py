"""Where a build may write, and how it replaces what it wrote before without ever losing it.

The rules: a build writes into the project (its own generated files: ``book/generated``,
``_toc.yml`` and ``_build/``) or into an ``--out`` folder that does not exist yet, is empty, or was made by an
earlier ``build --out`` (it holds the marker file). Anything else is refused before anything is
written. The folders a build replaces are swapped in one transaction (``publish``): each new
folder made ready on the file system of the one it replaces, a journal, then one exchange each
(``renameat2`` with ``RENAME_EXCHANGE`` on Linux); a kill leaves every old folder, or a journal
the next build rolls forward (``recover``). Each folder holds a manifest of the files the build
wrote there; any other file in it is someone else's and is carried into the new version. One
lock per target (``Lock``) is held by every command that writes into it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import json
import os
import shutil
from pathlib import Path, PurePosixPath

from claimbook.common.files import current_umask
from claimbook.common.paths import (
    BOOK_DIR,
    CONFIG_FILE,
    GENERATED_DIR,
    OUT_MARKER,
    OUT_MARKER_TEXT,
    PROJECT_ROOT,
    TOC_FILE,
    is_out_book,
)
from claimbook.pipeline.digests import file_digest

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
        if entries and not is_out_book(target):
            found = "no" if not (target / OUT_MARKER).exists() else "its own"
            written = "" if found == "no" else " is not the one the build writes"
            raise OutputError(
                f"--out {given}: the folder is not empty and was not made by `claimbook build --out` "
                f"({found} {OUT_MARKER}{written}); choose a new or empty folder"
            )
    return target


def mark_out_folder(target: Path) -> None:
    """Create the folder (with the user's umask) and its marker: ours to replace from now on."""
    target.mkdir(parents=True, exist_ok=True)
    marker = target / OUT_MARKER
    if not marker.exists():
        marker.write_text(OUT_MARKER_TEXT, encoding="utf-8")


def first_missing(folder: Path) -> Path | None:
    """The outermost of ``folder`` and its parents that does not exist yet (None if it exists):
    what a build that makes ``folder`` makes, and removes again if it makes no book there."""
    missing = None
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


def discard_new_out(target: Path, made_from: Path | None, keep: tuple[str, ...] = ()) -> None:
    """Remove what a build that did not finish made of an ``--out`` book in a folder that was new,
    empty or held only its marker: all it holds is the build's (the build held its lock from the
    start), but the names in ``keep`` (a marker that was there before). The folders the build made
    (``made_from``, the outermost it made, down to ``target``) go; a folder the user made stays."""
    if not is_out_book(target):
        return
    for entry in list(target.iterdir()):
        if entry.name in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    if made_from is None:
        return
    for folder in (target, *target.parents):  # each only if empty: rmdir takes nothing else
        with contextlib.suppress(OSError):
            folder.rmdir()
        if folder == made_from:
            break


class Lock:
    """A lock on a target folder (the project, or an ``--out`` book), held by every command that
    writes into it (exclusive) or builds from its data (shared, ``shared=True``), for the whole
    command; released even if the process is killed (the kernel drops flock locks with the
    process). The lock is taken on the folder itself: nothing is created to hold it."""

    def __init__(self, folder: Path, shared: bool = False):
        self.folder = Path(folder)
        self.shared = shared
        self.handle = None

    def __enter__(self):
        self.handle = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(self.handle, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.handle)
            self.handle = None
            raise LockedError(
                f"another build is writing to {self.folder} or building from it (or an ingest, fetch or "
                "new-announcement is); try again when it ends"
            ) from None
        return self

    def __exit__(self, *exc):
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            os.close(self.handle)
            self.handle = None


def owner(path: Path, project: Path = PROJECT_ROOT) -> Path | None:
    """The target a file belongs to: the project, the ``--out`` book it lies in, or None (a
    file of the user's elsewhere, which no build reads while it runs)."""
    resolved = Path(path).resolve()
    project = Path(project).resolve()
    if resolved == project or resolved.is_relative_to(project):
        return project
    for folder in resolved.parents:
        if is_out_book(folder):
            return folder
    return None


def writer_lock(path: Path, project: Path = PROJECT_ROOT):
    """The exclusive lock a command takes before writing ``path`` (``ingest``, ``fetch``,
    ``new-announcement``): that of the target it belongs to, the one builds of it hold."""
    folder = owner(path, project)
    return Lock(folder) if folder is not None else contextlib.nullcontext()


# Where a build stages what it publishes, relative to its target: its own _build/, and beside the
# folders it replaces when _build/ is on another file system.
LEFTOVER_PLACES = ("_build", ".", "book")


def _leftovers(folder: Path) -> list[Path]:
    if not folder.is_dir() or folder.is_symlink():
        return []
    return [
        entry
        for entry in folder.iterdir()
        if entry.name.startswith((STAGING_PREFIX, RETIRED_PREFIX)) and not entry.is_symlink()
    ]


def _unwritten_journals(target: Path) -> list[Path]:
    """Journals a build killed while writing them left under their temporary names (never read:
    a journal counts once it is in place)."""
    folder = target / "_build"
    if not folder.is_dir() or folder.is_symlink():
        return []
    return [path for path in folder.glob(f".{JOURNAL}.*.tmp") if path.is_file() and not path.is_symlink()]


def has_leftovers(target: Path) -> bool:
    """Whether a killed build left staging or retired folders, or an unfinished swap, in ``target``."""
    return (
        (target / "_build" / JOURNAL).is_file()
        or bool(_unwritten_journals(target))
        or any(_leftovers(target / place) for place in LEFTOVER_PLACES)
    )


def clear_leftovers(target: Path) -> None:
    """Finish the swap a killed build left half done (``recover``), then remove the staging and
    retired folders and the half-written journals it left (only ours: they carry our prefixes,
    and the lock says no build is using them)."""
    recover(target / "_build")
    for place in LEFTOVER_PLACES:
        for entry in _leftovers(target / place):
            _remove(entry)
    for journal in _unwritten_journals(target):
        journal.unlink(missing_ok=True)


def _remove(path: Path) -> None:
    """Remove a folder of ours, or a file (a swapped file's old version)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2():
    library = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    function = getattr(library, "renameat2", None)
    if function is not None:
        function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


_EXCHANGE = _renameat2()


def _exchange(first: Path, second: Path) -> None:
    """Exchange two folders: one step where the system can (``renameat2``), else three renames
    through a retired name beside ``first``. Either way its own inverse."""
    if not second.exists():
        os.replace(first, second)
        return
    if _EXCHANGE is not None:
        if _EXCHANGE(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
            return
        error = ctypes.get_errno()
        if error not in (errno.ENOSYS, errno.EINVAL):
            raise OSError(error, os.strerror(error), str(first), None, str(second))
    retired = first.parent / f"{RETIRED_PREFIX}{second.name}-{os.getpid()}"
    os.replace(second, retired)
    os.replace(first, second)
    os.replace(retired, first)


def _filesystem(path: Path) -> int:
    return os.stat(path).st_dev


def _identity(path: Path) -> list[int] | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return [info.st_dev, info.st_ino]


def _beside(new: Path, old: Path) -> Path:
    """``new`` (a folder or a file), or a copy of it beside ``old`` when they are on different
    file systems (a rename cannot cross them): in a staging folder of ours in ``old``'s parent."""
    old.parent.mkdir(parents=True, exist_ok=True)
    if _filesystem(new) == _filesystem(old.parent):
        return new
    place = old.parent / f"{STAGING_PREFIX}{os.getpid()}"  # shared by the folders of one parent
    place.mkdir(exist_ok=True)
    if (place / old.name).exists():
        _remove(place / old.name)
    if new.is_dir():
        shutil.copytree(new, place / old.name, symlinks=True)
    else:
        shutil.copy2(new, place / old.name)
    return place / old.name


JOURNAL = ".claimbook-swap.json"


def publish(pairs: list[tuple[Path, Path]], journal_dir: Path) -> None:
    """Put each new folder (or file: the table of contents) where its old one is, all of them or
    none: one transaction.

    Every new folder is first made ready on the file system of the folder it replaces; then a
    journal naming each pair and the new folder's identity (device, inode: a rename keeps it) is
    written, in one atomic step; then each pair is exchanged. A kill before the journal leaves
    every old folder in place; after it, the next build rolls the swap forward (``recover``)
    before anything else. A failed exchange puts back the ones made before it. Each old version
    ends where its new one was staged, and is removed.
    """
    from claimbook.common.files import write_atomically

    ready = [(_beside(new, old), old) for new, old in pairs]
    journal, target = journal_dir / JOURNAL, journal_dir.parent
    entries = [
        {"new": _relative(new, target), "old": _relative(old, target), "identity": _identity(new)}
        for new, old in ready
    ]
    write_atomically(journal, (json.dumps(entries, indent=1) + "\n").encode())
    done = []
    try:
        for new, old in ready:
            _exchange(new, old)
            done.append((new, old))
    except BaseException:
        for new, old in reversed(done):
            if new.exists():
                _exchange(new, old)
            else:  # it was a rename: there was no old folder
                os.replace(old, new)
        journal.unlink(missing_ok=True)
        raise
    journal.unlink()
    for (new, old), (staged, _) in zip(ready, pairs, strict=True):
        _remove(new)  # now the old version
        if new != staged and new.parent.name.startswith(STAGING_PREFIX):
            shutil.rmtree(new.parent, ignore_errors=True)


# What a build replaces, relative to its target: the only paths a journal may name.
PUBLISHED = (f"{BOOK_DIR}/{GENERATED_DIR}", BOOK_DIR, "data", "_build/html", TOC_FILE, CONFIG_FILE)


def _relative(path: Path, target: Path) -> str:
    return path.relative_to(target).as_posix()


def _journal_pair(entry, target: Path) -> tuple[Path, Path] | None:
    """A journal entry's folders, if it names a staging folder of ours and a folder the build
    replaces, both inside ``target`` (a journal is data in the target: never a way to move
    anything else)."""
    try:
        new, old = PurePosixPath(entry["new"]), PurePosixPath(entry["old"])
    except (KeyError, TypeError):
        return None
    if (
        new.is_absolute()
        or ".." in new.parts
        or not any(part.startswith(STAGING_PREFIX) for part in new.parts)
    ):
        return None
    if str(old) not in PUBLISHED:
        return None
    base = target.resolve()
    pair = (target / new, target / old)
    if not all(path.parent.resolve().is_relative_to(base) for path in pair):
        return None
    return pair


def recover(journal_dir: Path) -> list[str]:
    """Finish the swap a killed ``publish`` began: each folder of its journal not yet exchanged is;
    the folders it names, relative paths."""
    journal, target = journal_dir / JOURNAL, journal_dir.parent
    try:
        entries = json.loads(journal.read_text())
    except FileNotFoundError:
        return []
    except (OSError, ValueError, RecursionError):
        entries = []  # unreadable: written in one step, so never half; treat as no swap begun
    finished = []
    for entry in entries if isinstance(entries, list) else []:
        pair = _journal_pair(entry, target)
        if pair is None:
            continue
        (new, old), identity = pair, entry.get("identity")
        if identity is None or _identity(old) == identity:
            continue  # exchanged before the kill
        if _identity(new) == identity:
            _exchange(new, old)
            finished.append(old.name)
    journal.unlink(missing_ok=True)
    return finished


def follow_umask(folder: Path) -> None:
    """Give every file and folder under ``folder`` the mode a new one gets under the user's umask
    (copies keep their source's mode otherwise)."""
    mask = current_umask()
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~mask)


MANIFEST = ".claimbook-manifest.json"


def read_manifest(folder: Path) -> dict[str, str | None] | None:
    """The files an earlier build wrote into ``folder`` (paths relative to it), each with the
    digest it wrote it with where the manifest has one (an ``--out`` book's), from the manifest it
    left there; None if there is none (a folder no build of this version has replaced)."""
    try:
        listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(listed, list):
        return {str(item): None for item in listed}
    if isinstance(listed, dict) and all(isinstance(value, str) for value in listed.values()):
        return {str(name): value for name, value in listed.items()}
    return None


def write_manifest(folder: Path, exclude=frozenset(), with_digests: bool = False) -> None:
    """Record in ``folder`` itself the files the build wrote there (those it carried over for
    someone else excepted), with their digests for an ``--out`` book (a file edited since is then
    known): it travels with the folder, through every swap, and survives the loss of ``_build/``."""
    files = sorted(
        relative
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
        if (relative := path.relative_to(folder).as_posix()) not in exclude and relative != MANIFEST
    )
    listed = {name: file_digest(folder / name) for name in files} if with_digests else files
    (folder / MANIFEST).write_text(json.dumps(listed, indent=0) + "\n", encoding="utf-8")


class NotTheBuilds(Exception):
    """Files in a folder the build replaces that a new file of the build would take the place
    of, though the build did not write them as they are (put there, or edited, by hand)."""

    def __init__(self, names: list[str]):
        super().__init__(", ".join(names))
        self.names = names


def carry_over(old: Path, new: Path, ours, strict: bool = False) -> list[str]:
    """Files someone else put in a folder the build is about to replace: copied into its new
    version, so replacing the folder loses nothing the build did not make. ``ours``: what the
    folder's manifest says the build wrote (with digests, or None each); with no manifest every
    file is someone else's (a build never deletes what it cannot prove it made). ``strict`` (an
    ``--out`` book): a file the new version replaces that is not the build's as it wrote it
    raises ``NotTheBuilds`` instead of being replaced. The relative paths kept."""
    kept, not_ours = [], []
    if not old.is_dir():
        return kept
    for path in old.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        relative = path.relative_to(old).as_posix()
        destination = new / relative
        if relative == MANIFEST:
            continue
        if ours is not None and relative in ours:
            written = ours[relative] if isinstance(ours, dict) else None
            if strict and written is not None and destination.exists() and file_digest(path) != written:
                not_ours.append(relative)  # edited since the build wrote it
            continue
        if destination.exists():
            if strict:
                not_ours.append(relative)  # someone's file, where the build writes one
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
        kept.append(relative)
    if not_ours:
        raise NotTheBuilds(sorted(not_ours))
    return kept
    for path in old.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        relative = path.relative_to(old).as_posix()
        destination = new / relative
        if (ours is not None and relative in ours) or relative == MANIFEST or destination.exists():
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
        kept.append(relative)
    return kept
