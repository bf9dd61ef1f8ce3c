"""The staging folder a book is made in, laid out as the project is (``_config.yml``,
``book/``, for an ``--out`` book its ``data/``): the hand-written sources copied, the pages an
earlier build executed seeded so unchanged ones are reused, and the list of pages that must run.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from claimbook.common.files import copy_regular, copy_regular_tree
from claimbook.common.paths import (
    BOOK_DIR,
    CONFIG_FILE,
    DATA_INPUTS,
    GENERATED_DIR,
    MLPERF_DIR,
    RESULTS,
    held_rounds,
    inside,
    is_path_parameter,
    round_results_path,
)
from claimbook.pipeline import outputs, rereading
from claimbook.pipeline.cache import CACHE_NAME, read_cache
from claimbook.pipeline.load import Loaded
from claimbook.pipeline.plan import Job, page_digests, plan, reading_bases
from claimbook.pipeline.request import BuildRequest

PRICES = "data/prices/gpu_hour_prices.csv"


@dataclass(frozen=True)
class Staged:
    """A book laid out in ``folder``: its pages, their digests, the pages that must run (each as
    ``claimbook.pipeline.execute.execute_chapter`` takes it), and where its kernels read data."""

    folder: Path
    book_root: Path
    results_path: str
    pages: list[Job]
    digests: dict[str, str]
    to_run: list[tuple]
    # The pages that read every claim, run only if what they read changed
    # (``claimbook.pipeline.rereading``), and the reading bases the cache keeps for them.
    rereadable: frozenset = frozenset()
    reading_bases: dict = field(default_factory=dict)

    @property
    def generated(self) -> Path:
        return self.folder / BOOK_DIR / GENERATED_DIR

    @property
    def executed(self) -> tuple[str, ...]:
        return tuple(job[0] for job in self.to_run)


def stage(request: BuildRequest, folder: Path, loaded: Loaded, known_digests=None) -> Staged:
    """Lay the book out in ``folder`` and find the pages to execute: those whose digest differs
    from the cache's (every page with ``--force``). ``known_digests``: the pages' digests if the
    caller has them already (a build of the committed data: the same pages, the same inputs)."""
    from claimbook.inputs.ingest import write_tidy

    root, table = request.root, loaded.table
    book_root = folder if request.to_out else root  # where the kernels read data from
    copy_sources(root, folder, with_data=request.to_out)
    results_path = RESULTS
    if table is not None:
        # The round the file holds is replaced, and only it: the others stay the committed ones.
        written = round_results_path(str(table["round"].iloc[0]))
        write_tidy(table, inside(folder, written))
        if written == RESULTS:
            results_path = written
    pages = plan(loaded.data.registry, loaded.changes, request.only, results_path)
    if request.to_out:
        copy_named_files(root, folder, pages)
    generated = folder / BOOK_DIR / GENERATED_DIR
    previous = request.target / BOOK_DIR / GENERATED_DIR
    # (linked only to the target's own pages, which this build replaces: a first --out book's
    # are copies, never second names of the project's own)
    if previous.is_dir():
        seed_generated(previous, generated)
    else:
        seed_generated(root / BOOK_DIR / GENERATED_DIR, generated, link=False)
    wanted = known_digests or page_digests(root, book_root, pages)
    bases = reading_bases(root, book_root, pages)
    rereadable = frozenset()
    if not request.force and not request.only:
        rereadable = rereading.rereadable(loaded, generated, pages, wanted, bases)
    to_run = pages_to_run(root, book_root, generated, pages, wanted, request.force, kept=rereadable)
    remove_stale(generated, {job.name for job in pages})
    return Staged(folder, book_root, results_path, pages, wanted, to_run, rereadable, bases)


def pages_to_run(
    root: Path,
    book_root: Path,
    generated: Path,
    pages: list[Job],
    wanted: dict,
    force: bool = False,
    keep_old: bool = False,
    kept: frozenset = frozenset(),
) -> list[tuple]:
    """The pages whose digest differs from the one ``generated``'s cache records (all of them
    with ``force``), each as ``execute_chapter`` takes it; their old executed notebooks removed
    (kept with ``keep_old``: ``claimbook preview`` shows them until the new ones replace them;
    and those of the pages ``kept``, which may yet be reused: ``rereading``)."""
    cache, to_run = read_cache(generated / CACHE_NAME)["pages"], []
    for job in pages:
        output = inside(generated, f"{job.name}.ipynb")
        if not force and cache.get(job.name) == wanted[job.name] and output.is_file():
            continue
        if not keep_old and job.name not in kept:
            output.unlink(missing_ok=True)
        to_run.append(
            (job.name, root / job.template, output, job.parameters, book_root, job.template, job.title)
        )
    return to_run


# What a book's hand-written folder holds that is not a source: the build's own and editors'.
_NOT_SOURCES = (GENERATED_DIR, "_build", ".ipynb_checkpoints", "__pycache__")


def copy_sources(root: Path, staging: Path, with_data: bool) -> None:
    """The book's hand-written sources (not its generated pages), and for an --out book its data:
    regular files only (a link to a device or a FIFO anywhere in them is never opened)."""

    def not_a_source(relative: str) -> bool:
        return any(
            part in _NOT_SOURCES or part.startswith((outputs.STAGING_PREFIX, outputs.RETIRED_PREFIX))
            for part in relative.split("/")
        )

    # Nothing from outside the project reaches the site: a link out of it is refused, named.
    copy_regular(root / CONFIG_FILE, staging / CONFIG_FILE, CONFIG_FILE, within=root)
    copy_regular_tree(root / BOOK_DIR, staging / BOOK_DIR, skip=not_a_source, within=root)
    if with_data:
        for relative in [
            *DATA_INPUTS["earlier_paths"],
            DATA_INPUTS["result_ids_path"],
            DATA_INPUTS["sources_path"],
            DATA_INPUTS["chapters_file"],
            RESULTS,
            *(f"{MLPERF_DIR}/{path.name}" for path in held_rounds(root / MLPERF_DIR).values()),
            PRICES,
        ]:
            if (root / relative).exists():
                copy_regular(root / relative, staging / relative, relative, within=root)
        for folder in (DATA_INPUTS["reference_dir"], DATA_INPUTS["registry_dir"]):
            copy_regular_tree(root / folder, staging / folder, within=root)


def copy_named_files(root: Path, staging: Path, pages) -> None:
    """The files and folders the pages' parameters name (a ``--param`` may name another file of
    the project, ``prices_path=data/prices/mine.csv``), copied into an --out book beside its
    other data: the book reads its own copies, and stays movable. (Each path was checked to lie
    inside the project as it was read: ``claimbook.claims.params``.)"""
    for job in pages:
        for name, value in job.parameters.items():
            if not is_path_parameter(name):
                continue
            for relative in value if isinstance(value, list) else [value]:
                if not isinstance(relative, str) or (staging / relative).exists():
                    continue
                source = inside(root, relative)
                if source.is_dir():
                    copy_regular_tree(source, staging / relative)
                elif source.exists():
                    copy_regular(source, staging / relative, relative)


def seed_generated(previous: Path, staging_claims: Path, link: bool = True) -> None:
    """The pages an earlier build executed and their digests, so unchanged ones are reused
    (everything else there is written anew; a file of the user's is carried over at the end,
    and never reaches the HTML).

    With ``link``, each page is a second name of the earlier build's file (a hard link, where
    the file system allows one; else a copy): hundreds of pages are not copied, and once the
    new book is in place, removing the old one frees no page still used (freeing them was most
    of a rebuild's last second on a disk that discards what is freed). A build never writes a
    staged page in place: a page it executes is removed first (``pages_to_run``) and written
    anew, and the cache, which it rewrites, is always a copy; once the new pages are in place
    the old names go, so no two books share a file. ``claimbook preview``, which keeps a page
    until its new version replaces it, copies (``link`` False)."""
    staging_claims.mkdir(parents=True, exist_ok=True)
    if not previous.is_dir():
        return
    for path in [previous / CACHE_NAME, *sorted(previous.rglob("*.ipynb"))]:
        if path.is_file() and not path.is_symlink():
            destination = staging_claims / path.relative_to(previous)
            destination.parent.mkdir(parents=True, exist_ok=True)
            if not (link and path.name != CACHE_NAME and _linked(path, destination)):
                shutil.copy2(path, destination)


def _linked(path: Path, destination: Path) -> bool:
    """Whether ``destination`` is now a hard link to ``path`` (not across file systems, nor
    where the system refuses one: a file of another user's, a file system without links)."""
    try:
        os.link(path, destination)
    except OSError:
        return False
    return True


def remove_stale(generated: Path, names: set[str]) -> None:
    """Executed pages of claims or chapters the plan no longer has (only the build's own files)."""
    for path in generated.rglob("*.ipynb"):
        name = path.relative_to(generated).with_suffix("").as_posix()
        if name not in names:
            path.unlink()
    for folder in sorted((path for path in generated.rglob("*") if path.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
