"""Where things are: the project's own folder, and the root of the book being read or built.

A chapter names its data files relative to the book's root (``data/mlperf/v6.1.csv``), so the
same executed notebook means the same thing in the project and in a book built elsewhere with
``build --out``. The book's root is, in order: the folder named by ``CLAIMBOOK_BOOK_ROOT`` (the
build sets it for the kernels it starts), the nearest folder above the working directory that
holds an ``--out`` marker file, or the project itself.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
BOOK_ROOT_VARIABLE = "CLAIMBOOK_BOOK_ROOT"
OUT_MARKER = ".claimbook-out"


def book_root() -> Path:
    named = os.environ.get(BOOK_ROOT_VARIABLE)
    if named:
        return Path(named)
    try:
        here = Path.cwd()
    except OSError:  # the working folder was deleted: it cannot be inside an --out book
        return PROJECT_ROOT
    for folder in (here, *here.parents):
        if (folder / OUT_MARKER).is_file():
            return folder
    return PROJECT_ROOT


def resolve_path(path: str | os.PathLike) -> Path:
    """A data path as a chapter names it: absolute paths as they are, relative ones from the
    book's root."""
    path = Path(path)
    return path if path.is_absolute() else book_root() / path


def relative_to_root(path: str | os.PathLike, root: Path) -> str:
    """``path`` as a chapter should record it: relative to ``root`` when it lies inside it."""
    path = Path(path).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


class OutsideError(ValueError):
    """A path computed from data that would leave the folder it must stay in; nothing was written."""


def inside(target: str | os.PathLike, *parts: str | os.PathLike) -> Path:
    """``target / parts...``, checked to stay inside ``target`` once ``..`` and links are
    resolved; an ``OutsideError`` (one line) otherwise. Every path a command writes that is
    made from data (an id, a round, a page name) goes through here."""
    base = Path(target).resolve()
    path = base.joinpath(*parts)
    resolved = path.resolve()
    if resolved == base or not resolved.is_relative_to(base):
        shown = "/".join(str(part) for part in parts)
        raise OutsideError(f"{shown!r} leads to {resolved}, outside {base}; not writing there")
    return path
