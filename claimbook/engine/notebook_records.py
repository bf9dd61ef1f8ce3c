"""Machine-readable records a chapter leaves in its executed notebook for the build.

A chapter calls ``publish(kind, rows)``; the rows travel as a notebook output under the mime
type ``application/vnd.claimbook.KIND+json`` (validated by nbval like any other output), and
the build reads them back with ``collect``. Nothing is written to disk from inside a kernel.
The cell that publishes is tagged ``remove-cell``, so the book's renderer never meets it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from pathlib import Path

import pandas as pd

from claimbook.common.errors import BuildError
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR


def mime_type(kind: str) -> str:
    return f"application/vnd.claimbook.{kind}+json"


def clean(value):
    """JSON-safe values: NaN and infinities become null, numpy scalars plain Python."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA:
        return None
    return value


def _cleaned(rows: list[dict], columns) -> list[dict]:
    return [{name: clean(row.get(name)) for name in columns} for row in rows]


def as_recorded(rows: list[dict], columns) -> list[dict]:
    """``rows`` as ``publish`` records them and ``collect`` reads them back (JSON-safe, through
    JSON): what a page that publishes them will have recorded."""
    return json.loads(json.dumps(_cleaned(rows, columns)))


def publish(kind: str, rows: list[dict], columns, summary_columns) -> None:
    """Record ``rows`` (already validated) with a plain-text summary of ``summary_columns``."""
    from IPython.display import display

    cleaned = _cleaned(rows, columns)
    summary = pd.DataFrame(cleaned, columns=list(columns))[list(summary_columns)]
    display({mime_type(kind): cleaned, "text/plain": summary.to_string(index=False)}, raw=True)


def collect(notebook_path: str | os.PathLike, kind: str) -> list[dict]:
    """Every row of ``kind`` an executed notebook recorded, in order. (Read as JSON: the build
    wrote it with nbformat, and validating every page again costs more than the rest of a
    rebuild.) Each version of a notebook is read once for all its kinds (the scorecard, the
    costs): a build of hundreds of pages read each twice."""
    info = os.stat(notebook_path)
    key = (os.path.abspath(notebook_path), info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
    kept = _records(*key).get(mime_type(kind))
    return [] if kept is None else json.loads(kept)  # the caller's own rows, read from the text kept


# The records the book's assembly reads: the scorecard's rows and the costs (a page's other
# records, what the meeting page read of each claim, tell the build about the page alone).
ASSEMBLED = ("scorecard", "costs")


def recorded(notebook_path: str | os.PathLike) -> bool:
    """Whether an executed notebook recorded anything the book's assembly reads (``ASSEMBLED``)."""
    info = os.stat(notebook_path)
    key = (os.path.abspath(notebook_path), info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
    kept = _records(*key)
    return any(kept.get(mime_type(kind), "[]") != "[]" for kind in ASSEMBLED)


def read_ahead(notebook_paths) -> None:
    """Read the records of notebooks that will be collected later, so that ``collect`` then
    finds them read; a notebook that cannot be read is left for ``collect`` to say why."""
    for path in notebook_paths:
        with contextlib.suppress(Exception):  # ``collect`` says what is wrong with it
            recorded(path)


# (Large enough for every page of a book of several rounds: the assembly reads each page's
# records twice, once for the scorecard and once for the costs.)
@functools.lru_cache(maxsize=8192)
def _records(path: str, size: int, mtime_ns: int, inode: int, ctime_ns: int) -> dict[str, str]:
    """Each kind's rows in the notebook, as JSON text: each ``collect`` reads its own copy from
    it (faster than a deep copy of the rows, and nothing a caller does reaches the cache)."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = notebook.get("cells", [])
        outputs = [output for cell in cells for output in cell.get("outputs", [])]
        data = [(mime, rows) for output in outputs for mime, rows in output.get("data", {}).items()]
    except (ValueError, AttributeError, TypeError, RecursionError) as exc:  # (a file no build wrote)
        raise BuildError(
            f"{_as_the_book_names_it(path)}: not a page the build executed ({type(exc).__name__}); "
            "claimbook build --force makes every page again"
        ) from None
    found: dict[str, list] = {}
    for mime, rows in data:
        if mime.startswith("application/vnd.claimbook.") and isinstance(rows, list):
            found.setdefault(mime, []).extend(rows)
    return {mime: json.dumps(rows, ensure_ascii=False) for mime, rows in found.items()}


def _as_the_book_names_it(path: str) -> str:
    """A page by its place in the book (``book/generated/...``), not in a build's staging folder,
    which is gone once the build stops; any other path as it is."""
    parts = Path(path).parts
    for index in range(len(parts) - 1):
        if (parts[index], parts[index + 1]) == (BOOK_DIR, GENERATED_DIR):
            return Path(*parts[index:]).as_posix()
    return path
