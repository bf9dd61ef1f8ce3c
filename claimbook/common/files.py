"""Writing files safely: atomically, with the user's umask, and never replacing a different
file unless asked to.

A file is written to a hidden temporary name beside its destination and renamed over it only
once complete, so a failed or interrupted write never leaves half a file. ``tempfile.mkstemp``
creates files readable by the owner only; the temporary is given the mode any other tool would
give a new file (0o666 without the umask's bits) before it is renamed into place.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


class WriteError(Exception):
    """A file that could not be written; the previous file, if any, is untouched."""


class ReplaceRefused(Exception):
    """An existing file differs from what would be written and ``force`` was not given."""


def current_umask() -> int:
    """The process umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # Setting and restoring is the only portable way; it is racy only against other threads
    # creating files in the same instant, which this program does not do.
    old = os.umask(0o022)
    os.umask(old)
    return old


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file: 0o644 under umask 022."""
    return 0o666 & ~current_umask()


def make_directories(folder: Path) -> list[Path]:
    """Create ``folder`` and any missing parents (with the umask); the ones created, deepest first."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{folder}: cannot create the folder ({exc.strerror})") from None
    return missing


def remove_if_empty(folders: list[Path]) -> None:
    """Undo ``make_directories`` after a failure: remove the folders it created that are still empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def hold_interrupts():
    """Hold Ctrl-C and SIGTERM back (in this thread) while a file and its folders are being made,
    so an interrupt cannot land between creating them and recording them for clean-up; the mask to
    give back to ``release_interrupts``, or None where signals cannot be masked."""
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, OSError, ValueError):
        return None


def release_interrupts(previous) -> None:
    """Let held interrupts through: one that came meanwhile is raised here, where the caller's
    clean-up covers it. Calling it again is harmless."""
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def open_temporary(target: Path) -> tuple[BinaryIO, Path]:
    """A new hidden file beside ``target`` (same file system, so the rename is atomic), with the
    mode a new file gets under the umask, open for writing bytes."""
    make_directories(target.parent)
    try:
        handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(f"{target}: cannot create a file in {target.parent} ({exc.strerror})") from None
    try:
        os.fchmod(handle, new_file_mode())
    except BaseException:
        os.close(handle)
        Path(name).unlink(missing_ok=True)
        raise
    return os.fdopen(handle, "wb"), Path(name)


def install(temporary: Path, target: Path) -> None:
    """Rename a finished temporary file over ``target``; on failure the temporary is removed."""
    try:
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise WriteError(f"{target}: cannot replace it ({exc.strerror})") from None


def write_atomically(target: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``target`` atomically, with the umask's mode; returns the path."""
    target = Path(target)
    stream, temporary = open_temporary(target)
    try:
        with stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())  # the rename must not reach the disk before the data
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise WriteError(f"{target}: cannot write it ({exc.strerror})") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    install(temporary, target)
    return target


def existing_bytes(target: Path) -> bytes | None:
    """The current content of ``target``, or None if there is no file there."""
    if not target.exists():
        return None
    if not target.is_file():
        raise ReplaceRefused(f"{target} exists and is not a file; choose another output path")
    try:
        return target.read_bytes()
    except OSError as exc:
        raise WriteError(f"{target}: cannot read the existing file ({exc.strerror})") from None


UNCHANGED, WRITTEN = "unchanged", "written"


def replace_file(
    target: str | os.PathLike, data: bytes, force: bool, what_changes: Callable[[bytes], str]
) -> str:
    """Write ``data`` to ``target`` unless a different file is there and ``force`` is false.

    An identical file is left alone (its time stamps too) and ``UNCHANGED`` returned; a
    different one is a ``ReplaceRefused`` whose message says what would change, worded by
    ``what_changes(existing_content)``. Otherwise the file is written atomically: ``WRITTEN``.
    """
    target = Path(target)
    existing = existing_bytes(target)
    if existing == data:
        return UNCHANGED
    if existing is not None and not force:
        raise ReplaceRefused(
            f"{target} exists and differs: {what_changes(existing)}; pass --force to replace it"
        )
    write_atomically(target, data)
    return WRITTEN


def refuse_link_out(path: Path, within: Path | None, label: str) -> None:
    """Refuse a link at ``path`` whose target lies outside the folder ``within`` (the project): a
    link a repository or a pull request carries (``book/_static/passwd.txt -> /etc/passwd``)
    would otherwise publish a file of the machine. An ``InputError`` naming the link; the
    target's content is never read."""
    from claimbook.common.safe_read import InputError

    if within is None or not os.path.islink(path):
        return
    target = Path(os.path.realpath(path))
    if not target.is_relative_to(os.path.realpath(within)):
        raise InputError(
            f"{label}: a link to a file outside the project ({target}); the book publishes nothing "
            "from outside the project: remove the link, or put the file itself in its place"
        )


def copy_regular(
    source: Path, destination: Path, label: str | None = None, within: Path | None = None
) -> None:
    """Copy a file that must be a regular one (a link to one is followed, if it stays ``within``
    the project when that is given): a FIFO, a device or a folder under that name is an
    ``InputError`` naming it, and nothing is copied (a link to ``/dev/zero`` would otherwise be
    copied until the disk is full)."""
    from claimbook.common.safe_read import check_regular

    refuse_link_out(source, within, label or str(source))
    check_regular(source, label or str(source), "file")
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, destination)


def copy_regular_tree(
    source: Path, destination: Path, skip=lambda relative: False, within: Path | None = None
) -> list[str]:
    """Copy the regular files under ``source`` (links to regular files followed; links to
    folders, FIFOs, devices and sockets left out, never opened) into ``destination``, keeping
    their places; ``skip(relative)`` leaves out a file or folder. With ``within`` (the project),
    a link to a file outside it is an ``InputError`` naming the link (``refuse_link_out``). The
    relative paths copied."""
    copied = []
    for folder, folders, files in os.walk(source):
        here = Path(folder)
        relative_folder = here.relative_to(source)
        folders[:] = sorted(
            name
            for name in folders
            if not (here / name).is_symlink() and not skip((relative_folder / name).as_posix())
        )
        for name in sorted(files):
            relative = (relative_folder / name).as_posix()
            path = here / name
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError:  # a dangling link
                continue
            if not regular or skip(relative):
                continue
            if within is not None:
                shown = path.relative_to(within).as_posix() if path.is_relative_to(within) else str(path)
                refuse_link_out(path, within, shown)
            (destination / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination / relative)
            copied.append(relative)
    destination.mkdir(parents=True, exist_ok=True)
    return copied
