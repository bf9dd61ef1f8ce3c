"""Executing pages while the book is assembled (claimbook.pipeline.run): the book is assembled as
soon as every page of claims has run, while the pages with no claim of their own still run; a
failure on either side stops the other, and a late page that recorded rows has the book
assembled again. Pages are stand-ins here (no kernel): what is tested is the order of things."""

from __future__ import annotations

import os
import threading
import time
from types import SimpleNamespace

import pytest

from claimbook.common.errors import BuildError
from claimbook.pipeline import run as run_module
from tests.helpers.project import ROOT


@pytest.fixture
def pages(monkeypatch, tmp_path):
    """Stand-in pages: each ``name`` waits until released (a page that reads every claim takes
    longest), writes its notebook, and is logged as it starts and ends."""
    log, release, failing = [], {}, set()

    def execute_chapter(name, template, output, parameters, cwd, label, title=None, server=None):
        log.append(("start", name))
        release.setdefault(name, threading.Event()).wait(10)
        if name in failing:
            raise RuntimeError(f"{name} failed")
        output.write_text(parameters.get("notebook", "{}"))
        log.append(("end", name))

    import claimbook.pipeline.execute as execute_module

    monkeypatch.setattr(execute_module, "execute_chapter", execute_chapter)
    monkeypatch.setattr(run_module, "abandon", lambda server, futures: log.append(("abandon",)))
    return SimpleNamespace(log=log, release=release, failing=failing, folder=tmp_path)


def _job(pages, name, notebook="{}"):
    return (name, "template.ipynb", pages.folder / f"{name}.ipynb", {"notebook": notebook}, pages.folder, "t")


def _released_after(pages, name, seconds):
    event = pages.release.setdefault(name, threading.Event())
    threading.Timer(seconds, event.set).start()


def _released_by(pages, name, callback):
    """``callback`` that releases the page ``name`` once it has been called: the page still runs
    when it is called, however slow the machine (a timer would race a loaded machine)."""
    event = pages.release.setdefault(name, threading.Event())

    def called(*args):
        try:
            return callback(*args)
        finally:
            event.set()

    return called


def test_the_book_is_assembled_while_the_pages_without_claims_still_run(pages):
    _released_after(pages, "claim", 0.05)
    seen = []

    def meanwhile(running):
        seen.append((running, ("end", "every-claim") in pages.log))

    meanwhile = _released_by(pages, "every-claim", meanwhile)
    jobs = [_job(pages, "every-claim"), _job(pages, "claim")]
    run_module.execute(jobs, 3, lambda line: None, None, meanwhile, frozenset({"every-claim"}))
    assert seen == [(frozenset({"every-claim"}), False)]  # once, before that page ended
    assert ("end", "every-claim") in pages.log


def test_with_one_worker_the_book_is_assembled_once_every_page_ran(pages):
    for name in ("claim", "every-claim"):
        _released_after(pages, name, 0)
    seen = []
    jobs = [_job(pages, "every-claim"), _job(pages, "claim")]
    run_module.execute(jobs, 1, lambda line: None, None, seen.append, frozenset({"every-claim"}))
    assert seen == [frozenset()]


def test_only_pages_without_claims_to_run_assemble_at_once(pages):
    seen = []
    jobs = [_job(pages, "every-claim"), _job(pages, "explorer")]
    meanwhile = _released_by(pages, "explorer", _released_by(pages, "every-claim", seen.append))
    run_module.execute(jobs, 3, lambda line: None, None, meanwhile, frozenset({"every-claim", "explorer"}))
    assert seen == [frozenset({"every-claim", "explorer"})]


def test_an_assembly_that_fails_stops_the_pages_still_running(pages):
    _released_after(pages, "claim", 0)
    _released_after(pages, "every-claim", 5)

    def meanwhile(running):
        raise ValueError("the pages disagree with the engine")

    started = time.monotonic()
    with pytest.raises(ValueError, match="disagree"):
        jobs = [_job(pages, "every-claim"), _job(pages, "claim")]
        run_module.execute(jobs, 3, lambda line: None, None, meanwhile, frozenset({"every-claim"}))
    assert ("abandon",) in pages.log and time.monotonic() - started < 4  # not waited for
    pages.release["every-claim"].set()


def test_a_page_that_fails_after_the_assembly_still_fails_the_build(pages):
    _released_after(pages, "claim", 0)
    pages.failing.add("every-claim")
    seen = []
    meanwhile = _released_by(pages, "every-claim", seen.append)
    with pytest.raises(RuntimeError, match="every-claim failed"):
        jobs = [_job(pages, "every-claim"), _job(pages, "claim")]
        run_module.execute(jobs, 3, lambda line: None, None, meanwhile, frozenset({"every-claim"}))
    assert seen == [frozenset({"every-claim"})] and ("abandon",) in pages.log


def _staged(pages, names_with_claims, names_without):
    jobs = [SimpleNamespace(name=name, claims=("c",)) for name in names_with_claims]
    jobs += [SimpleNamespace(name=name, claims=()) for name in names_without]
    to_run = [_job(pages, job.name, notebook=pages.notebooks.get(job.name, "{}")) for job in jobs]
    return SimpleNamespace(pages=jobs, to_run=to_run, generated=pages.folder, executed=())


@pytest.mark.parametrize("late_page_records", [False, True])
def test_a_late_page_that_recorded_rows_has_the_book_assembled_again(pages, monkeypatch, late_page_records):
    record = {
        "cells": [{"outputs": [{"data": {"application/vnd.claimbook.scorecard+json": [{"claim": "x"}]}}]}]
    }
    import json

    pages.notebooks = {"every-claim": json.dumps(record) if late_page_records else "{}"}
    _released_after(pages, "claim", 0)
    monkeypatch.setattr(run_module, "checked_now", lambda registry, staged, only: set())
    monkeypatch.setattr(run_module, "engine_checks", lambda data, checked, made=None: {"checked": True})
    staged = _staged(pages, ["claim"], ["every-claim"])
    request = SimpleNamespace(report=lambda line: None, workers=3, only=())
    assembled = []

    def assemble(checks, running):
        assert checks == {"checked": True}
        assembled.append(running)
        return len(assembled)

    assemble = _released_by(pages, "every-claim", assemble)
    checks, result = run_module.run_pages(
        request, staged, SimpleNamespace(registry=None), None, assemble=assemble
    )
    assert checks == {"checked": True}
    if late_page_records:
        assert assembled == [frozenset({"every-claim"}), frozenset()] and result == 2
    else:
        assert assembled == [frozenset({"every-claim"})] and result == 1


def test_a_plain_rebuild_foretells_a_page_to_run_from_the_files_times(tmp_path):
    """A file a page may read written after the book's cache (or no cache): the server starts at
    once; nothing written since, or only bytecode caches: it waits for the digests."""
    root = tmp_path
    for name in ("data/claims/acme.yaml", "notebooks/claim.ipynb", "requirements.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    assert run_module.touched_since_built(root)  # no cache yet
    cache = root / "book" / "generated" / "cache.json"
    cache.parent.mkdir(parents=True)
    cache.write_text("{}")
    later = cache.stat().st_mtime_ns + 10**9
    assert not run_module.touched_since_built(root)
    (root / "notebooks" / "__pycache__").mkdir()
    compiled = root / "notebooks" / "__pycache__" / "x.pyc"
    compiled.write_text("x")
    os.utime(compiled, ns=(later, later))
    assert not run_module.touched_since_built(root)
    for name in ("data/claims/acme.yaml", "requirements.txt"):
        os.utime(root / name, ns=(later, later))
        assert run_module.touched_since_built(root), name
        os.utime(root / name, ns=(1, 1))
    assert not run_module.touched_since_built(root)


def test_an_early_assembly_leaves_the_files_of_the_pages_still_running(tmp_path):
    # A page's notebook is written beside it first, then renamed: the assembly, which removes
    # what an earlier build generated and this one did not, leaves a running page's files alone.
    from claimbook.pipeline.assemble import _remove_others

    for name in ("where_they_meet.ipynb.tmp", "stale.md", "front.md", "explorer.ipynb"):
        (tmp_path / name).write_text("x")
    _remove_others(tmp_path, {"front.md"}, frozenset({"where_they_meet", "amd-v6.1/a-claim"}))
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "explorer.ipynb",
        "front.md",
        "where_they_meet.ipynb.tmp",
    ]
    _remove_others(tmp_path, {"front.md"})  # none running: what no page writes goes
    assert sorted(path.name for path in tmp_path.iterdir()) == ["explorer.ipynb", "front.md"]


def test_what_an_assembly_says_is_said_once_and_at_once_when_it_fails(monkeypatch):
    from claimbook.pipeline import book
    from claimbook.pipeline.request import BuildRequest

    said, calls = [], []

    def assemble(request, staged, loaded, checks, running, foretold=None):
        calls.append(running)
        request.report(f"wrote the scorecard ({len(calls)})")
        if checks.get("fail"):
            raise ValueError("disagrees")
        return len(calls)

    monkeypatch.setattr(book, "assemble", assemble)
    request = BuildRequest(report=said.append)
    assemble_now, lines = book._assembler(request, None, None)
    assert assemble_now({}, frozenset({"late"})) == 1 and assemble_now({}, frozenset()) == 2
    assert said == [] and lines == ["wrote the scorecard (2)"]  # the last assembly's, said by the build
    with pytest.raises(ValueError):
        assemble_now({"fail": True}, frozenset())
    assert said == ["wrote the scorecard (3)"]
    # an assembly ahead of its pages says nothing when it fails: the build assembles again
    with pytest.raises(ValueError):
        assemble_now({"fail": True}, frozenset({"claim"}), {"claim": []})
    assert said == ["wrote the scorecard (3)"]


def _recorded(rows) -> str:
    """A stand-in page's notebook that recorded ``rows`` for the scorecard."""
    import json

    return json.dumps(
        {"cells": [{"outputs": [{"data": {"application/vnd.claimbook.scorecard+json": rows}}]}]}
    )


@pytest.mark.parametrize("as_foretold", [True, False])
def test_the_book_is_assembled_ahead_of_a_claim_s_page_and_again_if_it_records_otherwise(
    pages, monkeypatch, as_foretold
):
    """The checks foretell what a claim's own page records: the book is assembled while it runs
    (as the page that reads every claim does too), and stands if the page recorded that; if it
    recorded anything else, the book is assembled again from what it recorded."""
    import json

    from claimbook.common.paths import CLAIM_TEMPLATE
    from claimbook.engine import scorecard

    row = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text())[0]
    other = {**row, "measured": 1.0 if row["measured"] != 1.0 else 2.0}
    pages.notebooks = {"claim": _recorded([row] if as_foretold else [other]), "every-claim": "{}"}
    jobs = [
        SimpleNamespace(name="claim", claims=("c1",), template=CLAIM_TEMPLATE),
        SimpleNamespace(name="every-claim", claims=(), template="notebooks/where_they_meet.ipynb"),
    ]
    to_run = [_job(pages, job.name, notebook=pages.notebooks[job.name]) for job in jobs]
    staged = SimpleNamespace(
        pages=jobs, to_run=to_run, generated=pages.folder, executed=("claim", "every-claim")
    )
    registry = SimpleNamespace(claim=lambda claim_id: SimpleNamespace(announcement="nvidia-v6.1"))
    monkeypatch.setattr(run_module, "checked_now", lambda registry, staged, only: {"c1"})
    monkeypatch.setattr(run_module, "engine_checks", lambda data, checked, made=None: {"c1": "check of c1"})
    foretelling = []
    monkeypatch.setattr(
        scorecard, "foretold", lambda checks, chapter: foretelling.append((checks, chapter)) or [row]
    )
    assembled = []

    def assemble(checks, running, foretold=None):
        assembled.append((running, foretold, ("end", "claim") in pages.log))
        # the claim's page ends once the book was assembled ahead of it; the page that reads
        # every claim, once it was assembled again (or soon, where it need not be)
        pages.release.setdefault("claim" if len(assembled) == 1 else "every-claim", threading.Event()).set()
        return len(assembled)

    if as_foretold:
        _released_after(pages, "every-claim", 0.2)
    request = SimpleNamespace(report=lambda line: None, workers=3, only=())
    _, result = run_module.run_pages(
        request, staged, SimpleNamespace(registry=registry), None, assemble=assemble
    )
    assert foretelling == [(["check of c1"], "nvidia-v6.1")]
    ahead = (frozenset({"claim", "every-claim"}), {"claim": [row]}, False)  # while the claim's page ran
    if as_foretold:
        assert assembled == [ahead] and result == 1
    else:
        assert assembled == [ahead, (frozenset({"every-claim"}), None, True)] and result == 2


def test_no_book_is_assembled_ahead_of_a_narrative_chapter_or_once_the_build_stopped(pages):
    from claimbook.common.paths import CLAIM_TEMPLATE

    chapter = SimpleNamespace(name="wan_video", claims=("c1", "c2"), template="notebooks/wan_video.ipynb")
    claim = SimpleNamespace(name="claim", claims=("c3",), template=CLAIM_TEMPLATE)
    registry = SimpleNamespace(claim=lambda claim_id: SimpleNamespace(announcement="nvidia-v6.1"))
    calls = []

    def assemble(checks, running, foretold=None):
        calls.append(foretold)

    staged = SimpleNamespace(pages=[chapter, claim], generated=pages.folder)
    both = run_module._Ahead(staged, registry, frozenset({"wan_video", "claim"}), frozenset())
    assert both.assemble({"c1": 1, "c2": 2, "c3": 3}, assemble) is None and calls == []
    alone = run_module._Ahead(staged, registry, frozenset({"claim"}), frozenset())
    alone.stop()
    assert alone.assemble({"c3": 3}, assemble) is None and calls == []


def test_the_records_of_the_pages_not_executed_are_read_while_the_pages_run(pages, monkeypatch):
    from claimbook.engine import notebook_records

    read = []
    monkeypatch.setattr(
        notebook_records, "read_ahead", lambda paths: read.append((list(paths), list(pages.log)))
    )
    _released_after(pages, "claim", 0.3)
    reused = [pages.folder / "kept.ipynb"]
    checks, _ = run_module._execute_while_checking(
        [_job(pages, "claim")],
        2,
        lambda line: None,
        None,
        lambda: {"claim": "check"},
        None,
        frozenset(),
        reused,
    )
    assert checks == {"claim": "check"}
    assert [paths for paths, _ in read] == [reused]
    assert ("end", "claim") not in read[0][1] and ("end", "claim") in pages.log  # while the page ran


def test_records_read_ahead_are_the_records_collected_and_a_bad_notebook_is_left_to_collect(tmp_path):
    import json

    from claimbook.engine import notebook_records

    rows = [{"claim": "a", "verdict": "supported"}]
    good = tmp_path / "good.ipynb"
    good.write_text(
        json.dumps(
            {
                "cells": [
                    {"outputs": [{"data": {notebook_records.mime_type("scorecard"): rows, "text/plain": ""}}]}
                ]
            }
        )
    )
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    listed = tmp_path / "list.ipynb"
    listed.write_text("[]")
    notebook_records.read_ahead([good, broken, listed, tmp_path / "missing.ipynb"])
    before = notebook_records._records.cache_info()
    assert notebook_records.collect(good, "scorecard") == rows
    assert notebook_records._records.cache_info().hits == before.hits + 1  # read ahead, not again
    # a file no build wrote (not JSON, or not a notebook): one line naming it, never a traceback
    for bad in (broken, listed):
        with pytest.raises(BuildError, match=f"^{bad}: not a page the build executed"):
            notebook_records.collect(bad, "scorecard")
    # named by its place in the book, not in the build's staging folder (gone once it stops)
    staged = tmp_path / "_build" / ".claimbook-staging-1" / "book" / "generated" / "acme" / "a.ipynb"
    staged.parent.mkdir(parents=True)
    staged.write_text("{}}")
    with pytest.raises(BuildError, match="^book/generated/acme/a.ipynb: not a page the build executed"):
        notebook_records.collect(staged, "scorecard")
    with pytest.raises(OSError):
        notebook_records.collect(tmp_path / "missing.ipynb", "scorecard")


def test_each_collect_gets_rows_of_its_own_and_only_recorded_rows_count(tmp_path):
    import json

    from claimbook.engine import notebook_records

    rows = [{"claim": "a", "caveats": ["x"], "measured": 1.5, "result_ids": [], "note": "\u00e9\ud800"}]
    path = tmp_path / "page.ipynb"
    outputs = [{"data": {notebook_records.mime_type("scorecard"): rows}}]
    outputs.append({"data": {notebook_records.mime_type("costs"): []}})
    path.write_text(json.dumps({"cells": [{"outputs": outputs}]}))
    first = notebook_records.collect(path, "scorecard")
    assert first == rows
    first[0]["caveats"].append("changed")
    first[0]["measured"] = None
    assert notebook_records.collect(path, "scorecard") == rows  # the cache is not the caller's
    assert notebook_records.collect(path, "costs") == [] and notebook_records.collect(path, "other") == []
    assert notebook_records.recorded(path)
    empty = tmp_path / "empty.ipynb"
    empty.write_text(json.dumps({"cells": [{"outputs": [outputs[1]]}]}))
    assert not notebook_records.recorded(empty)  # a kind with no row records nothing


def test_pages_run_twice_the_cores_at_once_unless_told(monkeypatch):
    import resource

    from claimbook.pipeline import request as request_module
    from claimbook.pipeline.request import BuildRequest

    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, resource.RLIM_INFINITY))
    monkeypatch.setattr(request_module.os, "cpu_count", lambda: 3)
    assert BuildRequest().workers == 6 and BuildRequest(jobs=1).workers == 1
    monkeypatch.setattr(request_module.os, "cpu_count", lambda: None)  # (the system cannot say)
    assert BuildRequest().workers == 2


def test_the_default_pages_at_once_fit_the_systems_limit_of_open_files(monkeypatch):
    """Sixteen cores under a hard limit of 1,024 files: the default takes what the limit allows
    (the build starts), an explicit ``--jobs`` past it is refused in one line."""
    import resource

    from claimbook.common.errors import BuildError
    from claimbook.pipeline import limits
    from claimbook.pipeline import request as request_module
    from claimbook.pipeline.request import BuildRequest

    monkeypatch.setattr(request_module.os, "cpu_count", lambda: 16)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 1024))
    workers = BuildRequest().workers
    assert workers == (1024 - limits.BASE_FILES) // limits.FILES_PER_PAGE < 32
    limits.ensure_open_files(workers)  # (within the limit: nothing to raise)
    with pytest.raises(BuildError, match=r"^a build of 32 page\(s\) at once needs about 1088 open files"):
        limits.ensure_open_files(BuildRequest(jobs=32).workers)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, resource.RLIM_INFINITY))
    assert BuildRequest().workers == 32
