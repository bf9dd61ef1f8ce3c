"""Killing a build never damages the committed book or the site, and two builds never interleave.

Everything here runs in a copy of the project (its working tree without .venv, .git and _build),
with the copy's own code (``PYTHONPATH`` and the working directory are the copy), so the real
project is never at risk. After one successful plain build:

* a plain ``build --force`` (every page executed again) is killed with SIGKILL, the whole process
  group, at 1 and 3 s after its start and once it has executed its first page; each time the
  copy's ``book/`` (and every other source) and ``_build/html`` must hash exactly as before, and
  the next build must succeed with no cleanup by hand and leave no staging or retired folder;
* a second build, each ``ingest --force``, a ``fetch`` and a ``new-announcement`` started while the
  first holds the lock refuse with one ``error: another build`` line (exit 1) and change nothing, and the first
  succeeds; a SIGTERM ends a build as Ctrl-C does and removes its kernel folders at once, and the
  next build removes those of the SIGKILLed ones (``tests/pipeline/test_processes.py`` checks that no
  process outlives a build, however it ends);
* the moments a timer hardly ever hits, inside the final swap (``claimbook.pipeline.outputs.publish``: a
  journal, the new folders and the old exchanged one by one, the old ones then removed from the
  staging folder), are hit on purpose: hooks run first in the build (as a ``sitecustomize`` module
  on its path would be) wrap ``shutil.rmtree`` or the exchange and sends the build SIGKILL right after the exchange, halfway
  through the removal, or between the exchange of the pages and that of the site (the project's
  code is not changed); the next build must finish or clear what the kill left;
* in a copy of their own, changed on purpose (``test_faults_registries.py``): a user's files in
  ``book/generated`` survive a build with ``_build/`` deleted, and a registry added then removed
  gives its claim pages, then takes them away, in the committed book, the ledger, where the
  announcements meet, and the site.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.clirun import in_copy
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT as REPO
from tests.helpers.treehash import changes, leftovers, snapshot

COPY_EXCLUDED = {".venv", ".git", "_build", "__pycache__", ".pytest_cache"}
# When a `build --force` is killed: seconds after its start, or once it says it has executed a
# page (some executed pages are then in its staging folder, whatever the machine's speed).
KILL_AFTER = (1.0, 3.0, "first executed page")
TOKEN_VARIABLE = "CLAIMBOOK_FAULT_TEST"

# Run first in a build's own process (``killed_at``, as a sitecustomize module on its path would
# be); it acts only when the build reaches the named step of the final swap.
SITECUSTOMIZE = textwrap.dedent("""
    import os

    _step, _name = os.environ.get("KILL_AT_STEP"), os.environ.get("KILL_AT_NAME")

    def _die():
        import signal
        os.kill(os.getpid(), signal.SIGKILL)

    def _old_version(path):
        # swap_in leaves the old version in the build's staging folder, under the new one's name
        path = os.fspath(path)
        return os.path.basename(path) == _name and ".claimbook-staging-" in path

    if _step in ("swapped", "remove"):
        import shutil
        _rmtree = shutil.rmtree

        def rmtree(path, *args, **kwargs):
            if _old_version(path):
                if _step == "remove":  # partly deleted
                    for folder, _, files in os.walk(path):
                        if files:
                            os.unlink(os.path.join(folder, sorted(files)[0]))
                            break
                _die()
            return _rmtree(path, *args, **kwargs)

        shutil.rmtree = rmtree

    if _step == "between":
        # Killed just before the named folder is exchanged, once those before it were: the
        # exchange is wrapped as claimbook.pipeline.outputs is imported.
        import importlib.abc, importlib.machinery, sys

        class _Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name != "claimbook.pipeline.outputs":
                    return None
                spec = importlib.machinery.PathFinder.find_spec(name, path)
                run = spec.loader.exec_module

                def exec_module(module):
                    run(module)
                    real = module._exchange

                    def exchange(first, second):
                        if os.path.basename(os.fspath(second)) == _name:
                            _die()
                        return real(first, second)

                    module._exchange = exchange

                spec.loader.exec_module = exec_module
                return spec

        sys.meta_path.insert(0, _Finder())
""")


@dataclass
class Copy:
    root: Path
    environment: dict
    token: str
    temporary: Path  # the builds' TMPDIR: where their kernel folders are made

    def run(self, *args, extra: dict | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "claimbook", *args],
            cwd=self.root,
            env={**self.environment, **(extra or {})},
            capture_output=True,
            text=True,
            umask=0o022,
            start_new_session=True,
            timeout=timeout,
            check=False,
        )
        print(
            f"$ python -m claimbook {' '.join(args)}  ({time.perf_counter() - started:.1f} s)\n"
            f"-> exit {done.returncode}\n{done.stderr}"
        )
        return done

    def forked(self, *args) -> subprocess.CompletedProcess:
        """A command run as ``run`` runs it, but in a child forked from this process
        (``clirun.in_copy``: no second of imports)."""
        done = in_copy(self.root, *args, environment=self.environment)
        print(f"$ python -m claimbook {' '.join(args)}  (forked)\n-> exit {done.returncode}\n{done.stderr}")
        return done

    def start(self, *args) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "claimbook", *args],
            cwd=self.root,
            env=self.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            umask=0o022,
            start_new_session=True,
        )

    def end_strays(self) -> list[str]:
        """SIGKILL the processes a killed build left behind (none should be: its kernels and
        Sphinx die with it), those that carry this copy's token in their environment; the
        processes ended."""
        mine = f"{TOKEN_VARIABLE}={self.token}".encode()
        ended = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if mine in (entry / "environ").read_bytes().split(b"\0"):
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    os.kill(int(entry.name), signal.SIGKILL)
                    ended.append(f"{entry.name}: {command[:100]}")
            except (OSError, ProcessLookupError):
                continue
        return ended

    def state(self) -> tuple[dict, dict]:
        """What a kill must not change: every source of the copy (book/ first of all), by content,
        and the site."""
        return (snapshot(self.root, COPY_EXCLUDED), snapshot(self.root / "_build" / "html"))

    def leftovers(self) -> list[str]:
        return leftovers(self.root)

    def kernel_folders(self) -> list[str]:
        return sorted(path.name for path in self.temporary.glob("claimbook-kernel-*"))


def _ignore(folder: str, names: list[str]) -> list[str]:
    ignored = [name for name in names if name in COPY_EXCLUDED]
    if Path(folder) == REPO / "tests":
        ignored += [name for name in names if name == "artifacts"]
    return ignored


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    yield from copy_of_the_project(tmp_path_factory)


def copy_of_the_project(tmp_path_factory):
    """A copy of the project's working tree, run with its own code and a temporary folder of its
    own (``Copy``); the processes a killed build left (none should be) are ended after it."""
    base = tmp_path_factory.mktemp("faults")
    root = base / "project"
    shutil.copytree(REPO, root, symlinks=True, ignore=_ignore)
    token = uuid.uuid4().hex
    environment = {
        key: value for key, value in os.environ.items() if key not in ("CLAIMBOOK_BOOK_ROOT", "PYTHONPATH")
    }
    # A short path of its own (a kernel's socket path has a limit of about a hundred bytes).
    temporary = Path(tempfile.mkdtemp(prefix="cbfaults-"))
    environment.update({"PYTHONPATH": str(root), TOKEN_VARIABLE: token, "TMPDIR": str(temporary)})
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import claimbook, claimbook.common.paths as p; print(claimbook.__file__); print(p.PROJECT_ROOT)",
        ],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    module_file, project_root = where.stdout.split()
    assert Path(module_file).is_relative_to(root) and Path(project_root) == root, where
    the_copy = Copy(root, environment, token, temporary)
    yield the_copy
    the_copy.end_strays()
    remove_folder(temporary)


def remove_folder(folder: Path, seconds: float = 10.0) -> None:
    """Remove ``folder``, again while a killed build's reaper may still be removing in it."""
    deadline = time.monotonic() + seconds
    while folder.exists() and time.monotonic() < deadline:
        shutil.rmtree(folder, ignore_errors=True)
        time.sleep(0.05)


@dataclass
class FirstBuilds:
    first: subprocess.CompletedProcess
    second_started_after: float
    first_seconds: float
    writers: dict[str, subprocess.CompletedProcess]  # the other writers, run while the first built
    sources_during_writers: tuple[dict, dict]


@pytest.fixture(scope="module")
def first_builds(copy, committed_results, tmp_path_factory) -> FirstBuilds:
    """The copy's first plain build (its pages are reused, but the copy has no site yet: the
    HTML is compiled, so it runs for seconds), and, while it holds the lock, a second plain
    build in the same copy, then every other command that writes into the project: an ingest
    that would replace the round's results (--force), and a new announcement."""
    from tests.helpers.summaries import summary_from_tidy

    changed = committed_results.copy()
    changed.loc[changed.index[0], "result"] = changed["result"].iloc[0] * 1.1
    inputs = tmp_path_factory.mktemp("changed")
    summary = summary_from_tidy(changed, inputs / "summary.csv")
    earlier = inputs / "earlier.csv"
    earlier.write_text(
        "version,organization,platform,model,scenario,result,units,total_accelerators,result_id,source_type,source\n"
        "v6.0,NVIDIA,GB300,deepseek-r1,Offline,1000,Tokens/s,72,a,mlperf-summary,x\n"
    )
    started = time.perf_counter()
    first = copy.start("build")
    staging = copy.root / "_build"
    while not list(staging.glob(".claimbook-staging-*")):  # made just after the lock is taken
        assert first.poll() is None, f"the first build ended early: {first.communicate()[1]}"
        assert time.perf_counter() - started < 300, "the first build never started staging"
        time.sleep(0.05)
    second_started_after = time.perf_counter() - started
    before = copy.state()
    # Each is refused at the lock, before any work: the second build in a real command line, the
    # others in children forked from this process, with the copy's package.
    writers = {
        "build": copy.run("build", "--no-html"),
        "ingest": copy.forked("ingest", str(summary), "--round", "v6.1", "--force"),
        "ingest-earlier": copy.forked("ingest-earlier", str(earlier), "--force"),
        "ingest-prices": copy.forked("ingest-prices", "data/prices/gpu_hour_prices.csv", "--force"),
        "fetch": copy.forked("fetch", "v6.1", "--from", summary.as_uri()),
        "new-announcement": copy.forked(
            "new-announcement", "acme-v6.1", "--publisher", "Acme", "--title", "T", "--date", "2026-09-18"
        ),
    }
    during_writers = (before, copy.state())
    still_running = first.poll() is None
    stdout, stderr = first.communicate(timeout=900)
    first_seconds = time.perf_counter() - started
    print(
        f"first build ({first_seconds:.1f} s), second started after {second_started_after:.1f} s:\n{stderr}"
    )
    assert still_running, "the first build ended before the second one did: the lock was not tested"
    return FirstBuilds(
        subprocess.CompletedProcess(first.args, first.returncode, stdout, stderr),
        second_started_after,
        first_seconds,
        writers,
        during_writers,
    )


@pytest.mark.parametrize(
    "command", ["build", "ingest", "ingest-earlier", "ingest-prices", "fetch", "new-announcement"]
)
def test_every_writer_refuses_while_a_build_holds_the_lock(first_builds, command):
    """One lock for every writer of the project: a second build, an ingest --force (of results,
    earlier rounds, prices), a fetch or a new announcement during a build is refused with one line
    and changes nothing (so the build never mixes two datasets), and the first build succeeds."""
    done = first_builds.writers[command]
    one_error_line(done, code=1, starts="error: another build is writing to ")
    before, after = first_builds.sources_during_writers
    assert before == after, f"the refused {command} changed the copy: {changes(before[0], after[0])[:10]}"
    assert first_builds.first.returncode == 0, first_builds.first.stderr
    assert "built into" in first_builds.first.stderr


@pytest.fixture(scope="module")
def good(copy, first_builds) -> tuple[dict, dict]:
    """The copy after its first successful build: the state every kill must leave."""
    assert first_builds.first.returncode == 0, first_builds.first.stderr
    assert (copy.root / "_build" / "html" / "index.html").is_file()
    assert not copy.leftovers(), copy.leftovers()
    return copy.state()


def forced_build(copy, wait_for_a_page: bool) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    """A ``build --force`` started, what it says, and the thread reading it; with
    ``wait_for_a_page``, returned once it says it has executed a page."""
    started = time.perf_counter()
    build = copy.start("build", "--force")
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(build.stderr), daemon=True)
    reader.start()
    while wait_for_a_page and not any(line.startswith("  executed ") for line in said):
        assert build.poll() is None and time.perf_counter() - started < 300, "no page was executed"
        time.sleep(0.02)
    return build, said, reader


@pytest.mark.parametrize(
    "moment",
    KILL_AFTER,
    ids=[f"{moment:g}s" if isinstance(moment, float) else moment.replace(" ", "-") for moment in KILL_AFTER],
)
def test_kill_leaves_the_book_and_the_site_as_they_were(copy, good, moment):
    assert copy.state() == good, "the copy is not in its last good state before the kill"
    started = time.perf_counter()
    build, said, reader = forced_build(copy, wait_for_a_page=not isinstance(moment, float))
    if isinstance(moment, float):
        time.sleep(moment)
    assert build.poll() is None, f"the build ended before the kill: {''.join(said)}"
    os.killpg(build.pid, signal.SIGKILL)
    build.wait(timeout=60)
    reader.join(timeout=10)
    strays = copy.end_strays()
    print(
        f"killed after {time.perf_counter() - started:.1f} s (exit {build.returncode}); it had said:\n"
        f"{''.join(said)}left: {copy.leftovers()}\nstray processes ended: {strays}"
    )
    assert build.returncode == -signal.SIGKILL
    sources, site = copy.state()
    assert sources == good[0], f"the kill changed the copy's sources: {changes(good[0], sources)[:20]}"
    assert site == good[1], f"the kill changed _build/html: {changes(good[1], site)[:20]}"


def test_sigterm_removes_the_kernel_folders_at_once(copy, good):
    """A build ended by SIGTERM while its pages execute ends as Ctrl-C ends it (one line, exit
    130) and removes its kernels' folders as it ends (the SIGKILLed ones above left theirs, for
    the next build to remove)."""
    build, said, reader = forced_build(copy, wait_for_a_page=True)
    mine = f"claimbook-kernel-{build.pid}-"
    assert any(name.startswith(mine) for name in copy.kernel_folders()), copy.kernel_folders()
    build.send_signal(signal.SIGTERM)
    build.wait(timeout=120)
    reader.join(timeout=10)
    strays = copy.end_strays()
    assert build.returncode == 130, "".join(said)
    assert said[-1] == "error: interrupted; nothing was changed\n", "".join(said)
    assert not [name for name in copy.kernel_folders() if name.startswith(mine)], copy.kernel_folders()
    assert not strays, f"processes outlived the interrupted build: {strays}"
    sources, site = copy.state()
    assert sources == good[0], changes(good[0], sources)[:20]
    assert site == good[1], changes(good[1], site)[:20]


def test_the_next_build_succeeds_without_cleanup(copy, good):
    done = copy.run("build")
    assert done.returncode == 0, done.stderr
    assert not copy.leftovers(), f"staging or retired folders left: {copy.leftovers()}"
    assert not copy.kernel_folders(), f"kernel folders of killed builds left: {copy.kernel_folders()}"
    sources, site = copy.state()
    assert sources == good[0], changes(good[0], sources)[:20]
    assert site == good[1], changes(good[1], site)[:20]


# The steps of the final swap (claimbook.pipeline.outputs.swap_in) of a plain build: book/generated, then
# the table of contents, then the site. (step, name the step acts on, build options)
SWAP_STEPS = {
    "pages-swapped-old-not-yet-removed": ("swapped", "generated", ["--no-html"]),
    "pages-swapped-old-half-removed": ("remove", "generated", ["--no-html"]),
}


@pytest.mark.parametrize("case", list(SWAP_STEPS), ids=list(SWAP_STEPS))
def test_kill_inside_the_final_swap(copy, good, case):
    step, name, options = SWAP_STEPS[case]
    assert copy.state() == good, "the copy is not in its last good state before the kill"
    # As after a change to the package: the pages are reused, but the book is assembled again
    # and book/generated swapped in whole.
    cache = copy.root / "book" / "generated" / "cache.json"
    stale = json.loads(cache.read_text())
    stale["assembly"] = "made by an older version of the package"
    cache.write_text(json.dumps(stale))
    try:
        killed_at(copy, step, name, *options)
        left = copy.leftovers()
        print(f"left after the kill: {left}")
        sources, site = copy.state()  # the exchange is done: the new version is in place, whole
        done = copy.run("build")  # the next build, with no cleanup by hand
        problems = []
        if sources != good[0]:
            problems.append(f"the kill changed the copy's sources: {changes(good[0], sources)[:4]} ...")
        if site != good[1]:
            problems.append(f"the kill changed _build/html: {changes(good[1], site)[:4]} ...")
        if done.returncode != 0:
            problems.append(f"the next build failed: {error_line(done)}")
        if copy.leftovers():
            problems.append(
                f"after the next build, staging or retired folders are left: {copy.leftovers()[:4]} ..."
            )
        assert not problems, "\n".join(problems)
        assert copy.state() == good
    finally:
        # So that the next case starts from the last good state even when this one failed (the
        # assertions above have spoken): remove by hand what the build did not.
        for path in copy.leftovers():
            target = copy.root / path
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists():
                target.unlink()
        if copy.state() != good:
            copy.run("build")


def killed_at(copy, step: str, name: str, *options) -> None:
    """A plain build that its ``sitecustomize`` kills at ``step`` of the swap of folder ``name``:
    in a child forked from this process (``clirun.in_copy``: no second of imports), the hooks run
    first in it as the module on its path would be (they act in the build alone)."""
    variables = {**copy.environment, "KILL_AT_STEP": step, "KILL_AT_NAME": name}
    killed = in_copy(copy.root, "build", *options, environment=variables, prelude=SITECUSTOMIZE)
    print(
        f"$ python -m claimbook build {' '.join(options)}  (forked, {step} {name})\n-> exit {killed.returncode}"
    )
    copy.end_strays()
    assert killed.returncode == -signal.SIGKILL, "the build was not killed at that step"


def error_line(done) -> str:
    """A failed build's error line, and the first warning that made it fail."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", done.stderr)
    lines = [line for line in text.splitlines() if line.startswith("error:")]
    problems = [line.strip() for line in text.splitlines() if "WARNING" in line]
    return (lines[0] if lines else f"exit {done.returncode}") + (f" ({problems[0]})" if problems else "")


def test_kill_while_removing_the_old_site(copy, good):
    """A changed hand-written page makes the build compile and swap in a new site; a kill while
    the old site is being removed leaves a whole site (the new one), and the next build clears
    the rest. (Runs last: it changes the copy's book.)"""
    page = copy.root / "book" / "howto.md"
    page.write_text(page.read_text() + "\nOne more line, so that the site changes.\n")
    killed_at(copy, "remove", "html")
    print(f"left after the kill: {copy.leftovers()}")
    _, site_after_kill = copy.state()
    assert (copy.root / "_build" / "html" / "index.html").is_file()
    done = copy.run("build")
    assert done.returncode == 0, done.stderr
    # The site the killed build swapped in was whole, and is known to be this book's: not compiled again.
    assert "compiling HTML" not in done.stderr and "nothing changed" in done.stderr
    assert copy.state()[1] == site_after_kill
    assert not copy.leftovers(), f"staging or retired folders left: {copy.leftovers()}"


def test_kill_between_the_pages_and_the_site(copy, good):
    """Killed after book/generated was exchanged and before _build/html was: the next build finds
    the swap's journal and finishes it (the new site was whole, staged beside it), so pages and
    site come from one build. (Changes the copy's book.)"""
    page = copy.root / "book" / "howto.md"
    page.write_text(page.read_text() + "\nAnd a line for the swap that a kill interrupts.\n")
    killed_at(copy, "between", "html")
    site = copy.root / "_build" / "html"
    cache = json.loads((copy.root / "book" / "generated" / "cache.json").read_text())
    assert html_stamp(site) != cache["assembly"], "the site was swapped before the kill"
    assert (copy.root / "_build" / ".claimbook-swap.json").is_file(), "no journal of the swap"
    done = copy.run("build")
    assert done.returncode == 0, done.stderr
    assert "compiling HTML" not in done.stderr and "nothing changed" in done.stderr, done.stderr
    assert html_stamp(site) == cache["assembly"], "pages and site come from different builds"
    assert "a line for the swap that a kill interrupts" in (site / "book" / "howto.html").read_text()
    assert not copy.leftovers(), f"staging or retired folders left: {copy.leftovers()}"


def html_stamp(site: Path) -> str | None:
    return json.loads((site / ".claimbook-site.json").read_text()).get("assembly")


def _limited_to(kilobytes: int):
    """A ``preexec_fn`` that does what ``ulimit -v KILOBYTES`` does (soft and hard)."""

    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (kilobytes * 1024, kilobytes * 1024))

    return limit


def _run_limited(kilobytes: int, *args, cwd: Path, tmp: Path) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    environment["TMPDIR"] = str(tmp)
    return subprocess.run(
        [sys.executable, "-m", "claimbook", *map(str, args)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        preexec_fn=_limited_to(kilobytes),
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("kilobytes", [150_000, 200_000])
def test_check_out_of_memory_is_one_line(kilobytes, tmp_path):
    """``check`` under ``ulimit -v`` too low for it: one line saying memory ran out, exit 3 (it
    was a 43-line MemoryError traceback)."""
    done = _run_limited(kilobytes, "check", cwd=REPO, tmp=tmp_path)
    one_error_line(done, code=3, starts="error: memory ran out")


def test_a_build_without_the_memory_it_needs_says_so_and_leaves_nothing(tmp_path):
    """``build`` under ``ulimit -v 600000`` aborted (SIGABRT, exit 134, libzmq's message only):
    it says memory is short and what to raise, exit 3, before it writes or starts anything."""
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    tmp.mkdir()
    done = _run_limited(
        600_000, "build", "--out", out, "--no-html", "--only", "amd-wan-vs-b300", cwd=REPO, tmp=tmp
    )
    one_error_line(done, "ulimit -v", code=3, starts="error: memory ran out")
    assert not out.exists() and not list(tmp.iterdir())


def test_builds_in_one_process_are_independent_of_the_ones_before(tmp_path, monkeypatch):
    """A long-lived process (the preview, a test worker) builds again and again: nothing of one
    build (a kernel, a server, a working folder) may reach the next. papermill changed the
    process's working folder around each page (``os.chdir`` from each page's thread, restored
    in the order the threads ended), so a build could end in its own staging folder, and the
    next one's page looked for it once it was gone (a flaky test: ``.claimbook-staging-NNNN: No
    such file or directory``). Several builds of two pages at once, each into a folder deleted
    after it: each succeeds, and no page's thread ever changes the working folder."""
    from tests.helpers.clirun import in_process

    moved = []
    real_chdir = os.chdir

    def chdir(path):
        if threading.current_thread() is not threading.main_thread():
            moved.append(str(path))
        real_chdir(path)

    monkeypatch.setattr(os, "chdir", chdir)
    pages = ("--only", "rubin-leading-debut", "--only", "rubin-frameworks")
    for number in range(3):
        out = tmp_path / f"out-{number}"
        done = in_process("build", "--no-html", "--force", "--jobs", "2", *pages, "--out", out)
        assert done.returncode == 0, done.stderr[-3000:]
        assert (out / "book" / "generated" / "scorecard.json").is_file()
        shutil.rmtree(out)
        assert os.getcwd() == str(REPO) or Path(os.getcwd()).exists()
    assert not moved, f"a page's thread changed the working folder: {moved[:4]}"
