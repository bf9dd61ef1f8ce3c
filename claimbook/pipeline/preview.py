"""``claimbook preview``: the book kept built while its sources change, for the analyst's loop
(edit a claim, look at its page).

A preview is a book of its own in ``_build/preview/`` (it never writes the committed book, nor
``_build/html``), made by the build's own steps: the registry read and checked
(``pipeline.load``), the pages planned with their digests (``pipeline.plan``), the pages whose
digest changed executed (``pipeline.run``: papermill, each page in a kernel forked by the
build's server, ``pipeline.kernels``), the book assembled (``pipeline.assemble``). What a
preview keeps between changes is what a build pays for again each time: the kernel server with
the imports done, and a jupyter-book process holding its Sphinx application
(``pipeline.sphinx_warm``), which rewrites only the pages whose sources changed.

A change is shown in two steps. First the pages the change made run again, the claim's page or
the chapter, as soon as they ran, with their HTML; then the pages that read every claim ("Where
the announcements meet") and the book's assembled pages (the ledger, the announcement pages, the
table of contents). ``on_html`` is called after each step that changed the site.

The preview reads the project's data as a build does, under the project's lock shared for each
step (a step waits a while for an ingest or a build writing; an ingest during a step is refused,
as during an ``--out`` build), and holds its own folder's lock for as long as it runs (one
preview at a time per project). Code of the package changed while it runs is not reloaded: the
preview says so, and a restart takes it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from claimbook.common.errors import BuildError, ChapterError, UsageError
from claimbook.common.formatting import seconds
from claimbook.common.paths import (
    BOOK_DIR,
    CONFIG_FILE,
    DATA_INPUTS,
    GENERATED_DIR,
    PACKAGE_DIR,
    RESULTS,
    TOC_FILE,
)
from claimbook.pipeline import digests, jupyterbook, outputs
from claimbook.pipeline.request import BuildRequest
from claimbook.pipeline.sphinx_warm import SphinxGone, WarmSphinx

PREVIEW_DIR = Path("_build") / "preview"
# The preview's book, laid out as the project is, and the copy of it Sphinx reads (only files
# whose bytes changed are rewritten into it, so Sphinx rewrites only their pages).
SOURCE, WORK = "source", "work"
# The data whose change means every claim's selections must be audited again.
DATA_FILES = (
    RESULTS,
    *DATA_INPUTS["earlier_paths"],
    DATA_INPUTS["reference_dir"],
    DATA_INPUTS["result_ids_path"],
)
# A step waits this long at most for a writer of the project (an ingest, a build) to finish.
LOCK_WAIT = 30.0


class Preview:
    """The preview of the project at ``root``: ``start`` it (the first build), ``refresh`` it
    after each change, ``stop`` it. ``report`` prints a line; ``on_html`` is called from the
    refreshing thread whenever the site changed."""

    def __init__(self, root: Path, report: Callable[[str], None], on_html: Callable[[], None] = lambda: None):
        self.root = Path(root).resolve()
        self.folder = self.root / PREVIEW_DIR
        self.source, self.work = self.folder / SOURCE, self.folder / WORK
        self.report, self.on_html = report, on_html
        # Whether a source changed since the step began (the watcher says: ``claimbook.pipeline.serve``).
        self.newer: Callable[[], bool] = lambda: False
        self.request = BuildRequest(root=self.root, force=True, report=report)
        self.sphinx = WarmSphinx(self.work, report)
        self.server = None
        self._lock = None
        self._audited: dict | None = None  # what the claims and the data were at the last good step
        self._package = digests.folder_digest(PACKAGE_DIR)
        self.stopped = False
        # What is wrong with the project now (the last step's error line), shown in the open pages.
        self.problem: str | None = None
        # The address of the page last served to a browser (``claimbook.pipeline.serve``): the page
        # a reader has open, executed first when a change makes several.
        self.opened: str | None = None

    @property
    def generated(self) -> Path:
        return self.source / BOOK_DIR / GENERATED_DIR

    @property
    def html(self) -> Path:
        return self.sphinx.html

    # -- starting and stopping -------------------------------------------------------------
    def start(self) -> None:
        """Take the preview's folder, start the kernel server, and build the book once: the
        committed book's executed pages are taken where they are current (the digests say)."""
        from claimbook.pipeline.assets import write_vega_bundle
        from claimbook.pipeline.run import kernel_server

        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = outputs.Lock(self.folder).__enter__()
        _remove_dead_kernel_folders()
        self.server = kernel_server(self.root)
        if not self.generated.is_dir():
            self._seed()
        self._mirror_sources()
        # The chart bundle, made once per project (seconds) and shared with its builds.
        bundle = write_vega_bundle(self.root / "_build" / "assets")
        shutil.copy2(bundle, self.source / BOOK_DIR / "_static" / bundle.name)
        _import_what_a_step_uses()
        if self.refresh(first=True):
            self.sphinx.warm_up()
            self._warm_up_kernels()
        # Served even if the first step failed (an edit half made): the next change builds it.
        self.html.mkdir(parents=True, exist_ok=True)

    def _seed(self) -> None:
        """A first preview's book: the committed book's executed pages (reused where their
        digests are current) and its table of contents. Not its assembly: only the pages and the
        cache are taken, so its cache's assembly digest is dropped, and the first step assembles
        the book (the ledger, the announcement pages) rather than trust what it did not copy."""
        from claimbook.pipeline.cache import CACHE_NAME, read_cache
        from claimbook.pipeline.staging import seed_generated

        seed_generated(self.root / BOOK_DIR / GENERATED_DIR, self.generated, link=False)
        if (self.root / TOC_FILE).is_file():
            shutil.copy2(self.root / TOC_FILE, self.source / TOC_FILE)
        cache = self.generated / CACHE_NAME
        if cache.is_file():
            seeded = read_cache(cache)
            seeded.pop("assembly", None)
            cache.write_text(json.dumps(seeded, indent=2, sort_keys=True) + "\n")
        self.report("  first preview: the committed pages taken, the book assembled and its HTML built anew")

    def _warm_up_kernels(self) -> None:
        """Execute one claim's page once, into a file thrown away: what executing a page does
        for the first time in a process (papermill finding its engines and translators,
        jupyter_client its kernel, the kernel's first fork) is then done before the first change."""
        from claimbook.pipeline.execute import execute_chapter
        from claimbook.pipeline.load import read_registry
        from claimbook.pipeline.plan import plan

        scratch = self.folder / ".warm-up.ipynb"
        try:
            registry, changes = read_registry(self.request)
            job = next((job for job in plan(registry, changes) if "/" in job.name), None)
            if job is not None:
                template = self.root / job.template
                execute_chapter(
                    job.name, template, scratch, job.parameters, self.root, job.template, None, self.server
                )
        except (UsageError, ChapterError):
            pass  # only a head start: a page says what is wrong with it when it runs
        finally:
            scratch.unlink(missing_ok=True)

    def stop(self) -> None:
        """End everything the preview started: the kernel server (and any kernel it forked), the
        jupyter-book process; release its folder."""
        self.stopped = True
        for stop in (self.sphinx.stop, self.server.stop if self.server is not None else None):
            if stop is not None:
                stop()
        _remove_own_kernel_folders()
        if self._lock is not None:
            self._lock.__exit__(None, None, None)
            self._lock = None

    # -- one change ------------------------------------------------------------------------
    def refresh(self, first: bool = False) -> bool:
        """Bring the preview up to date with the project; whether it could (a bad input or a
        failing page is reported in one line, and the last good pages stay served)."""
        started = time.perf_counter()
        try:
            executed = self._refresh(first)
        except (UsageError, ChapterError, BuildError, SphinxGone, outputs.LockedError, ValueError) as exc:
            self._failed(f"error: {exc}")
            return False
        except OSError as exc:
            if not self.stopped:
                self.report(_os_failure(exc, self.folder))
            return False
        except Exception as exc:  # noqa: BLE001 -- a preview outlives any one bad step, and says why in one line
            self._failed(f"error: the preview could not be brought up to date: {type(exc).__name__}: {exc}")
            return False
        self._mended()
        if executed is not None:
            self.report(
                f"preview up to date ({len(executed)} page(s) executed, {seconds(time.perf_counter() - started)})"
            )
        return True

    def _failed(self, line: str) -> None:
        """A step's error: its line in the terminal, and in the open pages (reloaded to show it)
        until a step succeeds."""
        if self.stopped:
            return
        self.report(line)
        self.problem = line
        self.on_html()

    def _mended(self) -> None:
        """A step that succeeded after one that failed: the open pages lose the error."""
        if self.problem is not None:
            self.problem = None
            self.on_html()

    def _refresh(self, first: bool) -> tuple[str, ...] | None:
        """One step: the pages whose digest changed executed (those of the claims and chapters
        the change made first, shown as soon as they ran; then those that read every claim),
        the book assembled, the HTML of what changed rewritten; the pages executed (None:
        nothing had changed, or a newer change came before the rest: its step makes it)."""
        from claimbook.pipeline.assemble import assemble
        from claimbook.pipeline.load import read_registry
        from claimbook.pipeline.plan import page_digests, plan
        from claimbook.pipeline.staging import pages_to_run, remove_stale

        self._warn_if_code_changed()
        with self._project_lock():
            registry, changes = read_registry(self.request)
            pages = plan(registry, changes)
            wanted = page_digests(self.root, self.root, pages)
            self._mirror_sources()
            to_run = pages_to_run(self.root, self.root, self.generated, pages, wanted, keep_old=True)
            remove_stale(self.generated, {job.name for job in pages})
            if not to_run and self._assembled(wanted, changes):
                return () if self._publish(first) or first else None
            own, wide = _steps(to_run, registry)
            loaded = self._run_own(own, registry, changes, first)
            if self._newer_change():
                return None
            staged, checks = self._run_wide(pages, wanted, to_run, wide, loaded)
            if self._newer_change():
                return None
            assemble(self.request, staged, loaded, checks)
        self._publish(first)
        return staged.executed

    def _run_wide(self, pages: list, wanted: dict, to_run: list, wide: list, loaded):
        """Once the pages a change made ran: those that read every claim (each only where what
        it reads of a claim changed, as a build runs it: ``rereading``), and the engine's checks
        of the claims with no page and of the pages run; the book as staged, and the checks."""
        from claimbook.pipeline import rereading
        from claimbook.pipeline.plan import reading_bases
        from claimbook.pipeline.run import run_pages
        from claimbook.pipeline.staging import Staged

        bases = reading_bases(self.root, self.root, pages)
        rereadable = rereading.rereadable(loaded, self.generated, pages, wanted, bases)  # (every page)
        staged = Staged(self.source, self.root, RESULTS, pages, wanted, to_run, rereadable, bases)
        staged, made = rereading.settle(self.request, staged, loaded, keep_old=True)
        own = [job for job in to_run if job not in wide]
        ran = {job[0] for job in own}
        kept = dataclasses.replace(
            staged,
            pages=[job for job in pages if job.name not in ran],  # (those that ran are not "reused")
            to_run=[job for job in wide if job in staged.to_run],
        )
        checks, _ = run_pages(self.request, kept, loaded.data, self.server, keep_server=True, checks=made)
        checks |= _checks(own, pages, loaded.data)  # the own pages' verdicts are checked too
        return staged, checks

    def _run_own(self, own: list, registry, changes, first: bool):
        """Execute the pages the change made while this process reads and checks the data
        (neither needs the other: a page reads its data in its own kernel), and show them at
        once if the data passed its checks (a bad input leaves the last good pages served); the
        data read."""
        from concurrent.futures import ThreadPoolExecutor

        from claimbook.pipeline.run import execute

        with ThreadPoolExecutor(max_workers=1) as pool:
            loading = pool.submit(self._load, registry, changes)
            workers = self.request.workers
            ahead, rest = open_page_first(own, self.opened)
            if ahead:
                execute(ahead, workers, self.report, self.server)
            if rest:
                loading.result()  # a bad input shows nothing: it raises here
                self._publish(first)  # the page open in the browser, before the others run
                execute(rest, workers, self.report, self.server)
            loaded = loading.result()
        if own and not first:  # (a first step shows the book once it is whole: assembled)
            self._publish(first)  # the pages the change made, before the rest
        return loaded

    def _newer_change(self) -> bool:
        """Whether a source was saved again since this step began (``newer``): the rest of the
        book is then left to the step that change sets off, which shows its own page first,
        rather than made for what is already out of date."""
        if not self.newer():
            return False
        self.report("  a newer change came: the rest of the book follows it")
        return True

    def _assembled(self, wanted: dict, changes) -> bool:
        """Whether the preview's book was assembled from these very pages and inputs (its cache
        says so): then only the hand-written sources may have changed."""
        from claimbook.pipeline.cache import CACHE_NAME, assembly_digest, read_cache

        cache, toc = read_cache(self.generated / CACHE_NAME), self.source / TOC_FILE
        return (
            cache.get("pages") == wanted
            and toc.is_file()
            and digests.file_digest(toc) == cache.get("toc")
            and cache.get("assembly") == assembly_digest(self.root, wanted, changes.claims)
        )

    @contextlib.contextmanager
    def _project_lock(self):
        """The project's lock, shared with builds from it, for one step (an ingest or a plain
        build writing meanwhile is waited for, a while)."""
        deadline = time.monotonic() + LOCK_WAIT
        lock = outputs.Lock(self.root, shared=True)
        while True:
            try:
                lock.__enter__()
                break
            except outputs.LockedError:
                if time.monotonic() > deadline or self.stopped:
                    raise
                time.sleep(0.2)
        try:
            yield
        finally:
            lock.__exit__(None, None, None)

    def _load(self, registry, changes):
        """The data, checked as a build checks it; the selections audited again only for the
        claims that changed, unless the data did."""
        from claimbook.pipeline.load import load_data

        now = _audit_state(self.root, registry)
        audited = None
        if self._audited is not None and self._audited["data"] == now["data"]:
            audited = [
                claim
                for claim in registry.claims
                if self._audited["claims"].get(claim.id) != now["claims"][claim.id]
            ]
        started = time.perf_counter()
        loaded = load_data(self.request, changes, audited)
        self._audited = now
        self.report(f"  data read and checked ({seconds(time.perf_counter() - started)})")
        return loaded

    def _warn_if_code_changed(self) -> None:
        now = digests.folder_digest(PACKAGE_DIR)
        if now != self._package:
            self._package = now
            self.report(
                "the claimbook package changed: this preview runs the code it started with; restart it to use the new code"
            )

    # -- the site --------------------------------------------------------------------------
    def _mirror_sources(self) -> None:
        """The project's hand-written sources (``_config.yml``, ``book/`` but its generated
        pages) in the preview's book, and nothing the project no longer has."""
        from claimbook.pipeline.assets import VEGA_BUNDLE
        from claimbook.pipeline.staging import copy_sources

        self.source.mkdir(parents=True, exist_ok=True)
        copy_sources(self.root, self.source, with_data=False)
        book = self.source / BOOK_DIR
        for path in sorted(book.rglob("*"), reverse=True):
            relative = path.relative_to(book)
            if relative.parts[0] == GENERATED_DIR or relative.as_posix() == f"_static/{VEGA_BUNDLE}":
                continue
            if not (self.root / BOOK_DIR / relative).exists():
                shutil.rmtree(path) if path.is_dir() else path.unlink()

    def _publish(self, first: bool) -> bool:
        """The preview's book copied to where Sphinx reads it (only what changed), and the
        HTML rebuilt: by the kept process, or by a new one when the configuration, the table
        of contents or the set of pages changed (Sphinx reads those as it starts); whether the
        site changed."""
        before = {name: _bytes(self.work / name) for name in (CONFIG_FILE, TOC_FILE)}
        documents = jupyterbook.documents(self.work)
        written = jupyterbook.sync(self.source, self.work)
        other_pages = documents != jupyterbook.documents(self.work)
        if other_pages:  # as a build does: Sphinx keeps the pages of removed documents
            shutil.rmtree(self.work / "_build", ignore_errors=True)
        restart = (
            self.sphinx.process is None
            or other_pages
            or before != {name: _bytes(self.work / name) for name in (CONFIG_FILE, TOC_FILE)}
        )
        if not written and not restart:
            return False
        said = self.sphinx.restart() if restart else self.sphinx.rebuild()
        jupyterbook.copy_static(self.source, self.html)
        if said.get("warnings"):
            self.report(f"jupyter-book warned {said['warnings']} time(s) (above)")
        self.report(f"  HTML rewritten ({seconds(said.get('seconds', 0))})")
        if not first:
            self.on_html()
        return True


def _os_failure(exc: OSError, folder: Path) -> str:
    """A step the file system failed (a full disk: a write names no file) as one line naming
    the path, as a build says it: the file if the error has one, else the preview's folder."""
    where = exc.filename2 or exc.filename or folder
    cause = exc.strerror or str(exc) or type(exc).__name__
    return f"error: the preview could not write {where}: {cause}; the last good pages stay served"


def _remove_dead_kernel_folders() -> None:
    """The kernel folders (each with its kernel's key) of builds and previews killed outright
    (SIGKILL) and whose reaper died too: those of dead processes, by our own naming only."""
    from claimbook.pipeline import kernelfolders

    kernelfolders.remove_dead()


def _remove_own_kernel_folders() -> None:
    """This preview's kernel folders, once its kernels are ended (a page executing as Ctrl-C or
    SIGTERM came leaves its folder otherwise; a SIGKILL's are the reaper's: ``cli``)."""
    from claimbook.pipeline import kernelfolders

    kernelfolders.remove_own()


def _import_what_a_step_uses() -> None:
    """What executing and assembling a page imports (papermill, nbclient, the engine, the
    generated pages), imported as the preview starts: a second of the first change otherwise."""
    import papermill  # noqa: F401

    import claimbook.engine.notebook_records
    import claimbook.engine.scorecard
    import claimbook.pipeline.assemble
    import claimbook.pipeline.execute
    import claimbook.present.markdown_pages  # noqa: F401


def _checks(executed: list[tuple], pages: list, data) -> dict:
    """The engine's checks of the claims of the executed pages (``{claim id: check}``), to
    which the build holds their verdicts (``verify.agree``), as ``run_pages`` checks those of
    the pages it executes."""
    from claimbook import engine

    names = {job[0] for job in executed}
    wanted = {claim_id for job in pages if job.name in names for claim_id in job.claims}
    return {claim.id: engine.check(claim, data) for claim in data.registry.claims if claim.id in wanted}


def open_page_first(own: list[tuple], opened: str | None) -> tuple[list, list]:
    """The pages a change made, split so that the page open in the browser (its address
    ``opened``, as served) runs alone first and is shown before the others run; all of them at
    once where it is not among them or is the only one."""
    wanted = f"/{BOOK_DIR}/{GENERATED_DIR}/"
    name = opened.split(wanted, 1)[1].removesuffix(".html") if opened and wanted in opened else None
    ahead = [job for job in own if job[0] == name]
    if not ahead or len(own) == 1:
        return own, []
    return ahead, [job for job in own if job[0] != name]


def _steps(to_run: list[tuple], registry) -> tuple[list, list]:
    """The pages to run split in two: those of the claims or chapters a change made (shown
    first), and the pages that read every claim (after them)."""
    wide = {name for name, chapter in registry.chapters.items() if chapter.parameters.get("lists_claims")}
    return [job for job in to_run if job[0] not in wide], [job for job in to_run if job[0] in wide]


def _audit_state(root: Path, registry) -> dict:
    """What each claim is (its fields, parts and sentence: what a page's digest takes), and the
    digest of the data every claim selects from."""
    from claimbook.pipeline.plan import claim_payload

    data = {
        name: digests.folder_digest(root / name) if (root / name).is_dir() else _file(root / name)
        for name in DATA_FILES
    }
    return {"claims": {claim.id: claim_payload(claim, registry) for claim in registry.claims}, "data": data}


def _file(path: Path) -> str | None:
    return digests.file_digest(path) if path.is_file() else None


def _bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None
