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
    here = Path.cwd()
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
