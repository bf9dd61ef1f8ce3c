"""Executing the pages that must run, in parallel, each in a kernel forked by one server
(``claimbook.pipeline.kernels``), while this process makes the engine's checks of the claims the
book shows (the ledger reads them, and every executed page must agree with them).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from claimbook.common.formatting import seconds
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, PACKAGE_DIR, TEMPLATES_DIR, inside
from claimbook.pipeline import digests
from claimbook.pipeline.plan import shown_claims
from claimbook.pipeline.request import BuildRequest
from claimbook.pipeline.staging import Staged


def kernel_server(root: Path):
    """A started fork server for the pages' kernels, with every module of the package the
    book's templates (``notebooks/``) import loaded; None where kernels cannot be forked.

    It needs no registry: it starts before the registry is read, its imports overlapping the
    build's own (a template elsewhere only misses the head start)."""
    from claimbook.pipeline import kernels

    if not kernels.available():
        return None
    templates = sorted((root / TEMPLATES_DIR).glob("*.ipynb"))
    modules = sorted({name for template in templates for name in digests.template_modules(template)})
    return kernels.KernelServer(root, modules).start()


class BuildServer:
    """A build's kernel server, started at most once: at once where the request foretells a page
    to execute (``execution_foreseen``: its imports then go on while the inputs are read), else
    only once the plan has a page to run. A build that executes nothing, or stops at its inputs,
    pays for none."""

    def __init__(self, root: Path):
        self.root = root
        self.server = None
        self._started = False

    def start(self):
        """The server (started now if it was not yet); None where kernels cannot be forked."""
        if not self._started:
            self._started = True
            self.server = kernel_server(self.root)
        return self.server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


def touched_since_built(root: Path) -> bool:
    """Whether a file a page may read (the registries and every other data file, the pages'
    templates, the package's modules and markup templates, the pins) was written after the
    committed book's cache was, or the book has no cache: a plain build then starts its kernel
    server at once, its imports going on while the registry is read and the digests are made (a
    fifth of a second sooner than once they are). Only a head start: the digests decide what
    runs, and a file saved again unchanged only started a server for nothing."""
    from claimbook.pipeline.cache import CACHE_NAME

    try:
        built = (root / BOOK_DIR / GENERATED_DIR / CACHE_NAME).stat().st_mtime_ns
    except OSError:
        return True
    watched = (root / "data", root / TEMPLATES_DIR, PACKAGE_DIR, root / "requirements.txt")
    return any(_written_after(path, built) for path in watched)


def _written_after(path: Path, moment: int) -> bool:
    """Whether ``path``, or a file in it, was written after ``moment`` (nanoseconds)."""
    try:
        if not path.is_dir():
            return path.stat().st_mtime_ns > moment
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name == "__pycache__":
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if _written_after(Path(entry.path), moment):
                        return True
                elif entry.stat().st_mtime_ns > moment:
                    return True
    except OSError:
        return False
    return False


def pages_differ(request: BuildRequest, pages: list, wanted: dict) -> bool:
    """Whether a build of ``pages`` (their digests ``wanted``) has a page to execute: one the
    cache its staging folder is seeded from (``staging.stage``) does not hold current."""
    from claimbook.pipeline.cache import CACHE_NAME, read_cache

    generated = request.target / BOOK_DIR / GENERATED_DIR
    if not generated.is_dir():
        generated = request.root / BOOK_DIR / GENERATED_DIR
    cache = read_cache(generated / CACHE_NAME)["pages"]
    return request.force or any(
        cache.get(job.name) != wanted[job.name] or not inside(generated, f"{job.name}.ipynb").is_file()
        for job in pages
    )


def execution_foreseen(request: BuildRequest) -> bool:
    """Whether a build that is not plain will execute a page, as its request and the registry as
    it is on disk foretell before the inputs are read and checked (a few hundredths of a second,
    against a second of the server's imports): ``--force``, ``--results``, a page whose digest
    differs from the cache's, or a ``--param`` that names a claim or chapter of the registry (a
    mistyped one is refused first). Only a head start: a build foreseen wrongly starts its
    server once its plan has a page to run, and one that stops at its inputs says what is wrong
    with them itself."""
    from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, load_registry
    from claimbook.pipeline.plan import page_digests, plan

    if request.force or request.results is not None:
        return True
    root = request.root
    try:
        registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
        named = {claim.id for claim in registry.all_claims()} | set(registry.chapters)
        if any(text.startswith(f"{name}.") for text in request.overrides for name in named):
            return True
        pages = plan(registry, only=request.only)
        return pages_differ(request, pages, page_digests(root, root, pages))
    except Exception:  # noqa: BLE001 -- a bad input: the build stops at it, and says why
        return False


def execute(
    jobs: list[tuple],
    workers: int,
    report: Callable[[str], None],
    server=None,
    meanwhile: Callable[[frozenset], None] | None = None,
    later: frozenset = frozenset(),
) -> None:
    """Execute pages, in parallel when more than one must run; the first failure (or an
    interrupt) stops the build: the pages still running are abandoned, their kernels killed.

    ``meanwhile(running)`` is called in this thread once every page but those named ``later``
    has run, while those of them still running (``running``) go on; a failure of it stops the
    pages as a page's failure does."""
    from claimbook.pipeline.execute import execute_chapter

    started = time.perf_counter()
    if workers <= 1 or len(jobs) <= 1:
        try:
            for job in jobs:
                execute_chapter(*job, server)
                report(f"  executed {job[0]} ({seconds(time.perf_counter() - started)})")
            if meanwhile is not None:
                meanwhile(frozenset())
        except BaseException:
            abandon(server, [])
            raise
        return
    # Threads are enough: each page runs in its own kernel process, and a thread only waits for it.
    pool = ThreadPoolExecutor(max_workers=min(workers, len(jobs)), thread_name_prefix="page")
    futures = {pool.submit(execute_chapter, *job, server): job[0] for job in jobs}
    running = set(futures.values())
    try:
        if meanwhile is not None and running <= later:
            meanwhile(frozenset(running))
            meanwhile = None
        for future in as_completed(futures):
            future.result()
            running.discard(futures[future])
            report(f"  executed {futures[future]} ({seconds(time.perf_counter() - started)} since start)")
            if meanwhile is not None and running <= later:
                meanwhile(frozenset(running))
                meanwhile = None
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        abandon(server, list(futures))
        raise
    pool.shutdown()


# How long an abandoned page's thread is given to notice that its kernel is gone (it does within
# a second or two) before the build cleans up after it all the same.
ABANDON_SECONDS = 10.0
QUIET_WHEN_ABANDONED = ("papermill", "traitlets", "nbclient", "jupyter_client")


def abandon(server, futures: list) -> None:
    """Stop what the pages of an interrupted or failed build still run: the server and every
    kernel (forked or started afresh), while their threads are given a moment to end (a thread
    that meanwhile started a kernel afresh sees it killed too), so that no page writes into the
    staging folder once it is being removed."""
    import logging
    from concurrent.futures import wait

    from claimbook.pipeline import kernels

    # What the abandoned pages' clients say of their dying kernels is not news: one line says
    # why the build stopped.
    loggers = [logging.getLogger(name) for name in QUIET_WHEN_ABANDONED]
    silenced = [logger for logger in loggers if not logger.disabled]
    for logger in silenced:
        logger.disabled = True
    if server is not None:
        server.stop()
    deadline = time.monotonic() + ABANDON_SECONDS
    while True:
        kernels.kill_kernels()
        if not wait(futures, timeout=0.2).not_done:
            break
        if time.monotonic() > deadline:
            silenced = []  # still running: they stay quiet
            break
    kernels.kill_kernels()
    for logger in silenced:
        logger.disabled = False


def run_pages(
    request: BuildRequest,
    staged: Staged,
    data,
    server,
    keep_server: bool = False,
    assemble: Callable[[dict, frozenset], object] | None = None,
    checks: dict | None = None,
) -> tuple[dict, object]:
    """Execute the staged pages that must run, and the engine's checks: ``{claim id: check}``;
    the server is stopped once they ran unless it is kept (``claimbook preview`` keeps it).

    With ``assemble(checks, running)``, the book is assembled too (its result returned beside
    the checks): as soon as every page of claims has run, while the pages with no claim of
    their own (where the announcements meet, the explorer: they record no verdict) still run,
    so that a one-claim rebuild does not wait for the page that reads every claim before it
    assembles; ``running`` names the pages still running, whose notebooks it must not read. A
    page of those that recorded something after all has the book assembled again, whole.
    ``checks``: the engine's checks the build made already (``rereading.settle``)."""
    report, to_run = request.report, staged.to_run
    reused = len(staged.pages) - len(to_run)
    if reused:
        report(f"reusing {reused} page(s) whose inputs did not change")
    checked = checked_now(data.registry, staged, request.only)
    made = checks

    def check_all() -> dict:
        return engine_checks(data, checked, made)

    if not to_run:
        checks = check_all()
        return checks, None if assemble is None else assemble(checks, frozenset())
    workers = request.workers
    report(f"executing {len(to_run)} page(s) on up to {min(workers, len(to_run))} worker(s)")
    later = frozenset(job.name for job in staged.pages if not job.claims)
    executed = set(staged.executed)
    reused_notebooks = [
        inside(staged.generated, f"{job.name}.ipynb") for job in staged.pages if job.name not in executed
    ]
    ahead = _Ahead(staged, data.registry, frozenset(executed), later) if assemble is not None else None
    checks, assembled = _execute_while_checking(
        to_run,
        workers,
        report,
        server,
        check_all,
        assemble,
        later,
        reused_notebooks,
        ahead,
    )
    if server is not None and not keep_server:
        server.stop()  # its memory is the HTML's now
    if assemble is not None and assembled[1]:
        from claimbook.engine.notebook_records import recorded

        if any(recorded(inside(staged.generated, f"{name}.ipynb")) for name in assembled[1]):
            return checks, assemble(checks, frozenset())
    return checks, None if assemble is None else assembled[0]


def checked_now(registry, staged: Staged, only) -> set[str]:
    """The claims the engine checks now: those of the pages executed now (their pages must agree
    with it) and the claims with no page (the ledger shows its check); a reused page was checked
    by the build that made it, from inputs its digest proves unchanged."""
    included, text_only = shown_claims(registry, staged.pages, only)
    executed = set(staged.executed)
    executed_claims = {claim_id for job in staged.pages if job.name in executed for claim_id in job.claims}
    return included & (executed_claims | {claim.id for claim in text_only})


def engine_checks(data, checked: set[str], made: dict | None = None) -> dict:
    """The engine's checks of the claims ``checked``, in the registry's order (those ``made``
    already taken from it)."""
    from claimbook.pipeline.load import judged

    made = made or {}
    return {
        claim.id: made[claim.id] if claim.id in made else judged(claim, data)
        for claim in data.registry.claims
        if claim.id in checked
    }


def _execute_while_checking(
    to_run,
    workers: int,
    report,
    server,
    check_all: Callable[[], dict],
    assemble=None,
    later=frozenset(),
    reused_notebooks=(),
    ahead: _Ahead | None = None,
) -> tuple[dict, tuple]:
    """Execute the pages, and meanwhile ``check_all`` in a thread: the checks, and what
    ``assemble`` made with them once only pages ``later`` ran, with the names of those then
    still running.

    The engine's checks need no page: they are made while the kernels run, which leaves this
    process waiting anyway. What executing a page imports is imported first: sharing the
    interpreter with the checks, those imports would hold back every kernel's start. So are the
    records of the pages not executed now (``reused_notebooks``, unchanged meanwhile) read: the
    assembly then finds them read (a tenth of a second at three hundred pages). Where the
    checks foretell what every page of claims still running will record (``ahead``), the book
    is assembled in that thread too, while the pages run; it stands if they recorded that."""
    import papermill  # noqa: F401

    import claimbook.pipeline.execute  # noqa: F401

    def check_all_and_import() -> tuple[dict, object]:
        checks = check_all()
        # What assembling the book then needs, imported while this process waits for the
        # kernels rather than after them.
        import claimbook.engine.scorecard
        import claimbook.present.markdown_pages  # noqa: F401
        from claimbook.engine.notebook_records import read_ahead

        read_ahead(reused_notebooks)
        return checks, None if ahead is None else ahead.assemble(checks, assemble)

    checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="checks")
    pending = checker.submit(check_all_and_import)
    assembled: list = [None, frozenset()]

    def meanwhile(running: frozenset) -> None:
        checks, made = pending.result()
        if made is not None and ahead.as_foretold():
            assembled[:] = [made, ahead.not_read]
        else:
            assembled[:] = [assemble(checks, running), running]

    try:
        execute(to_run, workers, report, server, None if assemble is None else meanwhile, later)
        return pending.result()[0], tuple(assembled)
    finally:
        # A failed or interrupted build does not wait for the checks: the thread ends by itself,
        # but for an assembly under way, which writes in the staging folder (about to go).
        if ahead is not None:
            ahead.stop()
        checker.shutdown(wait=False, cancel_futures=True)


class _Ahead:
    """The book assembled ahead of the pages of claims still running, from the rows the engine's
    checks foretell each will record (``scorecard.foretold``): only where every such page is a
    claim's own page (a narrative chapter adds to its claims' checks). Once the pages ran, the
    assembly stands if each recorded exactly those rows and no costs (``as_foretold``); else the
    book is assembled again from what they recorded."""

    def __init__(self, staged: Staged, registry, executed: frozenset, later: frozenset):
        from claimbook.common.paths import CLAIM_TEMPLATE

        self.generated, self.registry = staged.generated, registry
        pages = [job for job in staged.pages if job.name in executed and job.claims]
        self.claims = {job.name: job.claims[0] for job in pages}
        self.possible = all(job.template == CLAIM_TEMPLATE and len(job.claims) == 1 for job in pages)
        self.executed, self.not_read = executed, executed & later
        self.foretold: dict | None = None
        self._lock, self._stopped = threading.Lock(), False

    def assemble(self, checks: dict, assemble: Callable):
        """The book assembled with the rows foretold (None where it cannot be, or failed)."""
        from claimbook.engine import scorecard

        if not self.possible or not self.claims:
            return None
        with self._lock:
            if self._stopped:
                return None
            try:
                self.foretold = {
                    name: scorecard.foretold([checks[claim]], self.registry.claim(claim).announcement)
                    for name, claim in self.claims.items()
                }
                return assemble(checks, self.executed, self.foretold)
            except Exception:  # noqa: BLE001 -- assembled again from the pages, which says why
                return None

    def as_foretold(self) -> bool:
        """Whether every page foretold recorded the rows foretold, and no costs."""
        from claimbook.engine import notebook_records, scorecard

        for name, rows in (self.foretold or {}).items():
            path = inside(self.generated, f"{name}.ipynb")
            if scorecard.collect(path) != rows or notebook_records.collect(path, "costs"):
                return False
        return self.foretold is not None

    def stop(self) -> None:
        """No assembly from now on; one under way is waited for."""
        with self._lock:
            self._stopped = True
