"""Where things are: the project's own folder, and the root of the book being read or built.

The project is the checkout the package was imported from (an editable install, or ``python -m
claimbook`` run in a checkout), or else the nearest folder at or above the working directory
that is a checkout (the package installed with ``pip install .``, run from inside a project). A
folder is a checkout when it holds the chapters' registry and the claim template
(``PROJECT_MARKERS``); the command line refuses, in one line, to run outside one.

A chapter names its data files relative to the book's root (``data/mlperf/v6.1.csv``), so the
same executed notebook means the same thing in the project and in a book built elsewhere with
``build --out``. The book's root is, in order: the folder named by ``CLAIMBOOK_BOOK_ROOT`` (the
build sets it for the kernels it starts), the nearest folder above the working directory that
holds an ``--out`` marker file, or the project itself.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_MARKERS = ("data/chapters.yaml", "notebooks/claim.ipynb")
BOOK_ROOT_VARIABLE = "CLAIMBOOK_BOOK_ROOT"
OUT_MARKER = ".claimbook-out"
# A book's layout (jupyter-book 1.x, the project's root as its source folder): the configuration
# and the table of contents at the root, the hand-written pages in book/, the pages the build
# generates in book/generated/ (all of that folder is the build's own).
CONFIG_FILE = "_config.yml"
TOC_FILE = "_toc.yml"
BOOK_DIR = "book"
GENERATED_DIR = "generated"


def is_project(folder: Path) -> bool:
    return all((folder / marker).is_file() for marker in PROJECT_MARKERS)


def find_project() -> Path | None:
    """The project's folder (see above), or None outside every checkout."""
    if is_project(PACKAGE_DIR.parent):
        return PACKAGE_DIR.parent
    try:
        here = Path.cwd()
    except OSError:  # a working directory removed under us
        return None
    return next((folder for folder in (here, *here.parents) if is_project(folder)), None)


FOUND_PROJECT = find_project()
# Outside a project the command line stops before using it (``not_in_project``).
PROJECT_ROOT = FOUND_PROJECT or PACKAGE_DIR.parent


def not_in_project() -> str | None:
    """Why the commands cannot run here (one line), or None inside a project."""
    if FOUND_PROJECT is not None:
        return None
    try:
        here = str(Path.cwd())
    except OSError:
        here = "the working directory"
    return (
        f"not inside a claimbook project: neither {here} nor a folder above it holds "
        f"{' and '.join(PROJECT_MARKERS)}; run claimbook from a checkout of the project"
    )


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
