"""Building the book (``build``): read and check the inputs (``claimbook.pipeline.load``), plan the
pages (``plan``), lay the book out in a staging folder (``staging``), execute what changed
(``run``), assemble the scorecard and the generated pages (``assemble``, checked by ``verify``),
compile the HTML and only then put the new book in place (``publish``).

Everything is made in a staging folder laid out as the project is (``_config.yml``, ``_toc.yml``,
``book/``). The committed book (``book/generated``, every page the build generates, and the table
of contents ``_toc.yml``) and ``_build/html`` are replaced together, in one transaction, once the
whole build succeeded (``outputs.publish``), so a failure or a kill at any moment leaves the last
good book, or lets the next build finish putting the new one in place; no cleanup by hand. A
file the build did not write (its manifest in each folder says which it did) is kept.
``--out DIR`` builds a whole book (its data included) into a folder of its own; the committed
book changes only through a plain build of the committed data.

A page is executed again only when what it depends on changed (``claimbook.pipeline.digests``); the
digests are kept in ``book/generated/cache.json`` (``claimbook.pipeline.cache``), and a build whose
target holds its very book already answers from them, writing nothing. Pages that must run
execute in parallel.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from claimbook.claims.todos import todo_text
from claimbook.common.errors import BuildError
from claimbook.common.interrupts import as_interrupts
from claimbook.pipeline import jupyterbook, kernelfolders, outputs, rereading, verify
from claimbook.pipeline.assemble import assemble
from claimbook.pipeline.cache import unchanged_answer
from claimbook.pipeline.limits import ensure_address_space, ensure_open_files
from claimbook.pipeline.load import Loaded, load_data, read_registry
from claimbook.pipeline.plan import page_digests, plan
from claimbook.pipeline.publish import compile_html, publish_book
from claimbook.pipeline.request import BuildRequest, BuildResult
from claimbook.pipeline.run import (
    BuildServer,
    abandon,
    execution_foreseen,
    pages_differ,
    run_pages,
    touched_since_built,
)
from claimbook.pipeline.staging import Staged, stage
from claimbook.pipeline.verify import strict_failure


def build(request: BuildRequest) -> BuildResult:
    """Build the book ``request`` asks for: the committed book (plain build) or a whole book in
    its ``out`` folder. Everything that can be wrong with the inputs (the output folder, the
    registry, the parameters, the results file, the systems the claims name) is checked before
    anything is written.

    One lock for every writer of the project: a plain build holds it alone, an --out build
    shares it (it reads the project's data and book), from before the registry is read until
    the book is in place; an ingest or another build meanwhile is refused, with one line."""
    ensure_open_files(request.workers)
    ensure_address_space()
    with outputs.Lock(request.root, shared=request.to_out), as_interrupts(), kernelfolders.reaper():
        kernelfolders.remove_dead()  # those of builds killed outright
        # The pages' kernels come from a fork server (``claimbook.pipeline.kernels``), started
        # only for a build that executes a page: at once where the request foretells one (its
        # imports then go on while the inputs are read; a plain rebuild foretells one from the
        # files' times alone, ``touched_since_built``), else once the plan has a page to run.
        # It ends with the build, however the build ends.
        server = BuildServer(request.root)
        if execution_foreseen(request) if not request.plain else touched_since_built(request.root):
            server.start()
        try:
            registry, changes = read_registry(request)
            _report_todos(request, registry)
            if request.only:  # a name that is no page is refused before the target is made
                plan(registry, changes, request.only)
            if request.plain and not outputs.has_leftovers(request.target):
                # A plain rebuild with nothing changed is answered before the data is even loaded
                # (unless a killed build left folders to clear: that takes the lock, below).
                pages = plan(registry, changes)
                wanted = page_digests(request.root, request.root, pages)
                answer = unchanged_answer(request, pages, wanted, changes)
                if answer is not None:
                    return _warned(request, answer)
                if pages_differ(request, pages, wanted):
                    server.start()
                planned = (pages, wanted)  # (the build below does not plan it again)
            else:
                planned = None
            return _build_target(request, load_data(request, changes), server, planned)
        except BaseException:
            # Failed or interrupted: nothing it started goes on (its pages were abandoned, their
            # kernels killed), nor do their folders stay.
            abandon(server.server, [])
            kernelfolders.remove_own()
            raise
        finally:
            server.stop()


def _warned(request: BuildRequest, answer: BuildResult) -> BuildResult:
    """A build with nothing to do still says what its inputs must not publish."""
    for warning in answer.warnings:
        request.report(warning)
    return answer


def _report_todos(request: BuildRequest, registry) -> None:
    """Every TODO a registry still holds, named, on every build; a --strict build stops on them
    before anything is written."""
    for why in registry.left_out:
        request.report(f"warning: {why}")
    for todo in registry.todos:
        request.report(f"warning: TODO left: {todo}")
    if registry.todos and request.strict:
        raise BuildError(
            f"--strict: the registries have {todo_text(list(registry.todos))}; nothing was written"
        )


def _build_target(request: BuildRequest, loaded: Loaded, server: BuildServer, planned=None) -> BuildResult:
    """The build once its inputs are read and checked: the target made ready, then the book
    made in a staging folder of its own. ``planned``: the pages and their digests, where the
    plain build planned them already (and found something to do)."""
    target = request.target
    _refuse_a_switched_subject(request, loaded)  # other results: a switched subject stops it now
    if not request.to_out:
        return _build_marked(request, loaded, server, planned)
    made_from = outputs.first_missing(target)
    held = {entry.name for entry in target.iterdir()} if made_from is None else set()
    new = held <= {outputs.OUT_MARKER}  # nothing there but (perhaps) a marker: all of it is ours
    target.mkdir(parents=True, exist_ok=True)
    with outputs.Lock(target):  # held until what a failed build made is gone
        try:
            outputs.mark_out_folder(target)
            return _build_marked(request, loaded, server)
        except BaseException:
            if new:  # a book that never came: what this build made goes ("nothing was changed")
                outputs.discard_new_out(target, made_from, keep=tuple(held))
            raise


def _refuse_a_switched_subject(request: BuildRequest, loaded: Loaded) -> None:
    """A build on other results stops before its first page where a claim's subject moved to
    another organization's system (of the pages it builds)."""
    if loaded.table is None:
        return
    built = None
    if request.only:
        built = {
            claim for job in plan(loaded.data.registry, loaded.changes, request.only) for claim in job.claims
        }
    verify.refuse_a_switched_subject(request.root, loaded.data, request.report, built)


def _build_marked(request: BuildRequest, loaded: Loaded, server: BuildServer, planned=None) -> BuildResult:
    """The build into its target (the project, or an ``--out`` book whose lock the caller holds)."""
    target = request.target
    build_dir = target / "_build"
    build_dir.mkdir(parents=True, exist_ok=True)
    outputs.clear_leftovers(target)  # a swap a kill interrupted is finished first
    wanted = None
    if planned is not None:  # (planned, and found changed, before the data was loaded)
        wanted = planned[1]
    elif loaded.table is None and not request.force:
        pages = plan(loaded.data.registry, loaded.changes, request.only)
        wanted = page_digests(request.root, request.root, pages)
        answer = unchanged_answer(request, pages, wanted, loaded.changes)
        if answer is not None:
            return _warned(request, answer)
    folder = Path(build_dir / f"{outputs.STAGING_PREFIX}{os.getpid()}")
    folder.mkdir()
    try:
        return _build_in(request, stage(request, folder, loaded, wanted), loaded, server)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _build_in(request: BuildRequest, staged: Staged, loaded: Loaded, servers: BuildServer) -> BuildResult:
    """The build proper, in its staging folder: execute, assemble, compile, publish; then say
    what was built (and fail a --strict build whose claims found no result)."""
    staged, checks = rereading.settle(request, staged, loaded)
    if staged.to_run:
        server = servers.start()  # (started already where the request foretold it)
    else:
        server = None
        servers.stop()  # nothing to execute: one foreseen wrongly ends now
    builder = (
        jupyterbook.start_builder(staged.folder, jupyterbook.work_folder(request.target))
        if request.html and staged.to_run
        else None
    )
    try:
        # (assembled while the pages with no claim of their own still run: ``run_pages``)
        assemble_now, said = _assembler(request, staged, loaded)
        _, assembled = run_pages(request, staged, loaded.data, server, assemble=assemble_now, checks=checks)
        for line in said:  # what the book's last assembly said, once
            request.report(line)
        html_folder = None
        if request.html:
            html_folder = compile_html(request, staged.folder, builder, assembled.assembly)
            builder = None
        publish_book(request, staged.folder, html_folder)
    except BaseException:
        jupyterbook.kill_builder(builder)  # Sphinx stops now, not once it has finished
        raise
    jupyterbook.stop_builder(builder)
    return _built(request, staged, assembled, html_folder is not None)


def _assembler(request: BuildRequest, staged: Staged, loaded: Loaded):
    """``assemble`` as ``run_pages`` calls it, and the lines its last assembly said: held back,
    since a page still running that recorded rows after all has the book assembled again (the
    lines are then said once, not twice); said at once where the assembly fails."""
    said: list[str] = []

    def assemble_now(checks: dict, running: frozenset, foretold: dict | None = None):
        lines: list[str] = []
        try:
            made = assemble(request.with_report(lines.append), staged, loaded, checks, running, foretold)
        except BaseException:
            if foretold is None:  # (an assembly ahead of its pages says nothing: the build assembles again)
                for line in lines:
                    request.report(line)
            raise
        said[:] = lines
        return made

    return assemble_now, said


def _built(request: BuildRequest, staged: Staged, assembled, rebuilt: bool) -> BuildResult:
    """The answer of a build that put its book in place, after saying what it made."""
    report, target, rows = request.report, request.target, assembled.rows
    for warning in assembled.warnings:
        report(warning)
    site = target / "_build" / "html" if request.html else None
    report(
        f"built into {target}: {len(staged.pages)} page(s), {len(staged.to_run)} executed, {len(rows)} scorecard row(s)"
        + (f", HTML in {site}" if site is not None else "")
    )
    if assembled.moves:  # what moved is the last thing said
        from claimbook.engine.moves import table

        report(table(assembled.moves))
    failure = strict_failure(assembled.warnings) if request.strict else None
    if failure is not None:
        raise failure
    pages = tuple(job.name for job in staged.pages)
    return BuildResult(target, pages, staged.executed, len(rows), site, rebuilt, tuple(assembled.warnings))
