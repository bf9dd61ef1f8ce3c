"""Snapshots of folder trees: what a command changed, and proof that it changed nothing else.

``snapshot`` walks a folder without following symbolic links and records, for every entry, what
it is: a folder (and its mode), a link (and where it points) or a file: its mode and the SHA-256
of its bytes, or with ``strict`` its size, inode, modification and change times, so that a file
rewritten with the very same bytes counts as changed (and a large tree is read in milliseconds:
no write can leave the change time as it was). Two snapshots compare with ``==``; ``changes``
says which paths differ, for the assertion's message.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

# What the tests leave out of the project's tree: tools' own folders, never the build's outputs
# (``_build/`` is in: the site must not change either).
REPO_EXCLUDED = (".venv", ".git", "__pycache__", ".pytest_cache", "tests/artifacts")


def _file_digest(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def snapshot(
    root: str | os.PathLike, exclude=(), strict: bool = False, depth: int | None = None
) -> dict[str, tuple]:
    """Every entry under ``root`` (``root`` itself as "."): relative POSIX path -> description.

    ``exclude``: names left out at any depth (``__pycache__`` always is) and relative paths (with a slash,
    "tests/artifacts"). ``depth``: how many levels to list (1: the folder's own entries, whose
    files are still hashed but whose folders are not entered); None: all.
    """
    root = Path(root)
    # Python's bytecode cache is never the command's output: any Python process writes it beside
    # the modules it imports, unless PYTHONDONTWRITEBYTECODE is set (which differs by machine).
    names = {"__pycache__"} | {item for item in exclude if "/" not in item}
    paths = {item.strip("/") for item in exclude if "/" in item}
    result: dict[str, tuple] = {}

    def describe(path: str, info: os.stat_result) -> tuple:
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISLNK(info.st_mode):
            return ("link", os.readlink(path))
        if stat.S_ISDIR(info.st_mode):
            return ("dir", oct(mode))
        if stat.S_ISREG(info.st_mode):
            if strict:  # any write, replacement, chmod or rename moves the change time
                return ("file", oct(mode), info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
            return ("file", oct(mode), _file_digest(path))
        return ("other", oct(mode), stat.S_IFMT(info.st_mode))

    def walk(folder: str, relative: str, level: int) -> None:
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda item: item.name):
                name = f"{relative}/{entry.name}" if relative else entry.name
                if entry.name in names or name in paths:
                    continue
                info = entry.stat(follow_symlinks=False)
                result[name] = describe(entry.path, info)
                if stat.S_ISDIR(info.st_mode) and (depth is None or level + 1 < depth):
                    walk(entry.path, name, level + 1)

    if not root.exists() and not root.is_symlink():
        return {}
    result["."] = describe(str(root), os.stat(root, follow_symlinks=False))
    if result["."][0] == "dir":
        walk(str(root), "", 0)
    return result


def changes(before: dict, after: dict) -> list[str]:
    """The paths two snapshots disagree on: "added PATH", "removed PATH", "changed PATH"."""
    found = [f"removed {path}" for path in before if path not in after]
    found += [f"added {path}" for path in after if path not in before]
    found += [f"changed {path}" for path in before if path in after and before[path] != after[path]]
    return sorted(found, key=lambda line: line.split(" ", 1)[1])


def outside(found: list[str], folder: str) -> list[str]:
    """The changes that are not ``folder`` itself or anything in it."""
    return [
        line
        for line in found
        if line.split(" ", 1)[1] != folder and not line.split(" ", 1)[1].startswith(folder + "/")
    ]


def leftovers(root: str | os.PathLike, prefixes=(".claimbook-staging-", ".claimbook-retired-")) -> list[str]:
    """Paths under ``root`` (at any depth) whose names start with one of ``prefixes``."""
    found = []
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            if name.startswith(tuple(prefixes)):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)
