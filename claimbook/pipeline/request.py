"""What a build is asked to make (``BuildRequest``, made once by the command line and checked
once, when it is made) and what it answers (``BuildResult``).

A request that cannot be built (``--round`` without ``--results``, ``--jobs 0``, an ``--out``
path the file system cannot hold or a folder the build may not write into, other inputs for the
committed book) is a one-line UsageError or OutputError before anything is read or written.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from claimbook.common import identifiers
from claimbook.common.errors import UsageError
from claimbook.common.paths import PROJECT_ROOT
from claimbook.pipeline.outputs import check_out_folder

NAME_MAX = 255  # bytes in one file name, on every file system the book is built on


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class BuildRequest:
    """One build: the committed book from the committed data (``out`` None), or a whole book in
    ``out`` from other results (``results``, ``round_name``), changed parameters (``overrides``,
    the ``--param`` texts) or only some pages (``only``). ``target`` is where it writes: the
    project's root, or the checked ``out`` folder."""

    root: Path = PROJECT_ROOT
    results: Path | None = None
    round_name: str | None = None
    out: Path | None = None
    html: bool = True
    only: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    jobs: int | None = None
    force: bool = False
    strict: bool = False
    report: Callable[[str], None] = field(default=_to_stderr, compare=False, repr=False)
    target: Path = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())
        object.__setattr__(self, "only", tuple(self.only or ()))
        object.__setattr__(self, "overrides", tuple(self.overrides or ()))
        _check_options(self)
        target = check_out_folder(self.out, self.root) if self.out is not None else self.root
        object.__setattr__(self, "target", target)

    def with_report(self, report: Callable[[str], None]) -> BuildRequest:
        """The same request saying its lines to ``report`` (not checked again: it was, as it
        was made, and its ``--out`` folder is the build's own by now)."""
        copy = object.__new__(BuildRequest)
        for name in self.__dataclass_fields__:
            object.__setattr__(copy, name, getattr(self, name))
        object.__setattr__(copy, "report", report)
        return copy

    @property
    def to_out(self) -> bool:
        """A whole book, its data included, in a folder of its own."""
        return self.out is not None

    @property
    def workers(self) -> int:
        """Pages executed at once: ``--jobs``, else ``default_workers()``."""
        return self.jobs or default_workers()

    @property
    def plain(self) -> bool:
        """A plain rebuild of the committed book: it may be answered from digests alone."""
        return (
            self.results is None
            and not self.force
            and not self.to_out
            and not self.overrides
            and not self.only
        )


def default_workers() -> int:
    """Pages executed at once by default: twice the cores, as many as the system's limit of
    open files allows (``--jobs`` past it is refused, in one line). A page's kernel spends a good
    part of its time waiting (its start, its messages to and from the build), not computing: a
    cold build of 359 pages on 2 cores with 3 pages at once left the cores idle a seventh of its
    time, with 4 a twentieth and ran a tenth faster; 5 and 6 were no faster."""
    from claimbook.pipeline.limits import pages_the_limit_allows

    wanted = 2 * (os.cpu_count() or 1)
    allowed = pages_the_limit_allows()
    return wanted if allowed is None else min(wanted, allowed)


def _check_options(request: BuildRequest) -> None:
    """The options that go together, in the order the command line has always checked them."""
    if request.round_name and not request.results:
        raise UsageError("--round goes with --results")
    if request.round_name and not identifiers.is_round(request.round_name):
        raise UsageError(f"--round {request.round_name[:80]!r}: a round is {identifiers.ROUND_RULE}")
    if request.jobs is not None and request.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if request.out is not None:
        check_out_path(request.out)
    if request.out is None and (request.results is not None or request.overrides or request.only):
        what = "--results" if request.results is not None else "--param" if request.overrides else "--only"
        raise UsageError(
            f"{what} builds a book from other inputs; give --out DIR for it (the committed book is "
            "built only from the committed data, by a plain build)"
        )


def check_out_path(out: Path) -> None:
    """An ``--out`` path the file system can hold: no name too long, and the nearest folder
    that exists a folder (not a file); a one-line UsageError before anything is written."""
    for name in Path(out).parts:
        if len(os.fsencode(name)) > NAME_MAX:
            raise UsageError(
                f"--out {str(out)[:60]}...: a name of {len(os.fsencode(name))} bytes; a file system "
                f"takes at most {NAME_MAX} (nothing was written)"
            )
    for folder in (Path(out), *Path(out).absolute().parents):
        try:
            info = folder.stat()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise UsageError(
                f"--out {out}: cannot use {folder} ({exc.strerror}); nothing was written"
            ) from None
        if folder != Path(out) and not stat.S_ISDIR(info.st_mode):
            raise UsageError(f"--out {out}: {folder} is a file, not a folder; nothing was written")
        return


@dataclass(frozen=True)
class BuildResult:
    target: Path
    pages: tuple[str, ...]
    executed: tuple[str, ...]
    scorecard_rows: int
    html: Path | None
    html_rebuilt: bool
    warnings: tuple[str, ...]
