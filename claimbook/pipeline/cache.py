"""The build's memory of what it made, ``book/generated/cache.json`` (each page's digest, the
digest of everything else that went into the book, and that of the table of contents it wrote),
and the answer of a build that finds its very book already in place: nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path

from claimbook.common.paths import BOOK_DIR, CONFIG_FILE, GENERATED_DIR, PACKAGE_DIR, TOC_FILE
from claimbook.pipeline import digests, jupyterbook
from claimbook.pipeline.request import BuildRequest, BuildResult

CACHE_NAME = "cache.json"
READINGS = "readings"  # {page: its reading base} (``claimbook.pipeline.rereading``)


def read_cache(path: Path) -> dict:
    """The page digests of the last build (``pages``) and the digest of everything else that
    went into the book (``assembly``)."""
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):  # (nesting too deep: not a cache of ours)
        return {"pages": {}}
    if not isinstance(cache, dict) or not isinstance(cache.get("pages"), dict):
        return {"pages": {}}
    return cache


def write_cache(
    generated: Path, pages: dict, assembly: str | None, toc: Path, readings: dict | None = None
) -> None:
    """What this build made: its pages' digests, its assembly digest, its table of contents',
    and the reading bases of its pages that read every claim (``claimbook.pipeline.rereading``)."""
    cache = {"pages": pages, "assembly": assembly, "toc": digests.file_digest(toc)}
    if readings:
        cache[READINGS] = readings
    (generated / CACHE_NAME).write_text(json.dumps(cache, indent=2, sort_keys=True) + "\n")


def reading_bases_of(cache: dict) -> dict[str, str]:
    """The reading bases ``cache`` holds, ``{page: digest}`` (none where it holds anything else)."""
    bases = cache.get(READINGS)
    if not isinstance(bases, dict) or not all(isinstance(digest, str) for digest in bases.values()):
        return {}
    return bases


def written_toc(target: Path) -> str | None:
    """The digest of the table of contents the last build into ``target`` wrote (None: no cache)."""
    return read_cache(target / BOOK_DIR / GENERATED_DIR / CACHE_NAME).get("toc")


# data/raw/: the rounds ``claimbook fetch`` downloads, ignored by git. The book holds a round once
# it is ingested into data/mlperf/, so a file lying there changes nothing the book is made of.
UNTRACKED_DATA = ("raw",)


def assembly_digest(root: Path, page_digests_: dict, overrides: dict) -> str:
    """Everything a book is made of besides its pages: the package code (the ledger, the
    scorecard, the generated pages are made in the build), the registries, the data, the book's
    hand-written sources, the pins, and the versions of what writes the site as installed
    (``jupyterbook.site_software``: a site made by other software is made again)."""
    inputs = {
        "pages": page_digests_,
        "overrides": overrides,
        "package": digests.folder_digest(PACKAGE_DIR),
        "config": digests.file_digest(root / CONFIG_FILE),
        "data": digests.folder_digest(root / "data", skip=UNTRACKED_DATA),
        "environment": digests.environment_digest(),
        "site": jupyterbook.site_software(),
        "book": {
            path.relative_to(root / BOOK_DIR).as_posix(): digests.file_digest(path)
            for path in sorted((root / BOOK_DIR).rglob("*"))
            if path.is_file() and path.relative_to(root / BOOK_DIR).parts[0] not in (GENERATED_DIR, "_build")
        },
    }
    return digests.bytes_digest(json.dumps(inputs, sort_keys=True, default=str).encode())


def _holds(request: BuildRequest, pages: list, wanted: dict, assembly: str) -> bool:
    """Whether the target already holds this very book: every page current, nothing else changed."""
    target = request.target
    generated = target / BOOK_DIR / GENERATED_DIR
    cache = read_cache(generated / CACHE_NAME)
    if cache.get("pages") != wanted or cache.get("assembly") != assembly:
        return False
    if not all((generated / f"{job.name}.ipynb").is_file() for job in pages):
        return False
    toc = target / TOC_FILE
    if not toc.is_file() or digests.file_digest(toc) != cache.get("toc"):
        return False
    site = target / "_build" / "html"
    return not request.html or (site.is_dir() and jupyterbook.read_stamp(site, "assembly") == assembly)


def unchanged_answer(request: BuildRequest, pages: list, wanted: dict, changes) -> BuildResult | None:
    """The answer of a build whose target already holds this very book (``pages`` with the
    digests ``wanted``, ``changes`` applied), after saying so; None if it does not."""
    if not _holds(request, pages, wanted, assembly_digest(request.root, wanted, changes.claims)):
        return None
    target = request.target
    request.report(f"nothing changed: {target} holds this book already ({len(pages)} page(s))")
    site = target / "_build" / "html" if request.html else None
    return BuildResult(target, tuple(job.name for job in pages), (), 0, site, False, tuple(changes.warnings))
