"""The suite's fixtures and hooks, and nothing a test file imports: what the files share is in
the package ``tests.helpers`` (``from tests.helpers.project import ROOT``, for example)."""

import contextlib
import csv
import fcntl
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

from tests.helpers.project import ROOT, build_book, project_copy, run_copy

# The chapters of the hostile-data book: the pages that list submitters by name (the scaling
# pairs, the WAN 2.2 results, the priced systems, every result of the round).
HOSTILE_CHAPTERS = ("scaling", "wan_video", "economics", "explorer")


# The test files that run for long (real builds, a browser): collected first, so that with
# several workers (`make test`) they start at once and the short ones fill in around them.
LONG_FIRST = (
    "test_browser.py",
    "test_safety.py",
    "test_processes.py",
    "test_faults.py",
    "test_new_registry.py",
    "test_project.py",
    "test_build.py",
    "test_preview.py",
    "test_browser_hostile.py",
    "test_faults_registries.py",
    "test_selection_builds.py",
    "test_registry_as_data.py",
    "test_parts.py",
    "test_fuzz.py",
)


# The suite's tiers are its folders, laid out along the project (pyproject.toml registers the
# markers): ``unit/`` and ``book/`` (the committed book against an independent recomputation)
# make the unit tier ``make test-quick`` runs; ``pipeline/``, the files that run real builds,
# kernels, the preview or Sphinx, and the committed pages nbval re-runs, are marked ``build``;
# ``browser/``, the files that drive Chromium, ``browser``.
TIER_OF_FOLDER = {"pipeline": "build", "browser": "browser"}


def tier_of(path: Path) -> str:
    """The tier of a test file or page: browser, build, or unit."""
    if path.suffix == ".ipynb":
        return "build"
    return TIER_OF_FOLDER.get(path.parent.name, "unit")


def _interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config):
    """A SIGTERM (a CI timeout, ``timeout make test``) ends the suite as Ctrl-C does, in the
    controller and in each worker: fixtures are torn down and the folders below removed, so an
    interrupted run leaves nothing in the temporary folder.

    nbval starts each notebook's kernel over TCP: its ports are picked free, closed, then bound
    by the kernel, so two kernels started at once by two test workers can pick the same port, and
    the loser's client then waits 60 s for an answer that never comes ("Kernel didn't respond in
    60 seconds"). Its kernels talk over Unix sockets in a folder of this worker's own instead, as
    the build's kernels do (``claimbook.pipeline.execute``): those cannot collide."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)
    # The checks kept between builds (claimbook.engine.check_cache) are off for the suite, so that
    # nbval's fresh kernels check every claim again, independently of the builds that made the
    # pages; the cache's own tests turn it on, in a folder of their own.
    os.environ.setdefault("CLAIMBOOK_CHECK_CACHE", "0")
    try:
        import nbval.kernel
    except ImportError:
        return
    import atexit
    import tempfile
    import uuid

    from jupyter_client.manager import KernelManager

    folder = tempfile.mkdtemp(prefix="nbval-")  # short: a socket's path has about 100 bytes
    config._claimbook_nbval_sockets = folder
    # Removed however the worker ends (a kernel nbval shuts down late may outlive unconfigure).
    atexit.register(shutil.rmtree, folder, True)

    class SocketKernelManager(KernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = os.path.join(folder, "kernel")
            # Its connection file (the key that signs its messages) in the same folder, not in /tmp.
            self.connection_file = os.path.join(folder, f"kernel-{uuid.uuid4().hex}.json")

    nbval.kernel.KernelManager = SocketKernelManager


def pytest_unconfigure(config):
    folder = getattr(config, "_claimbook_nbval_sockets", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    def rank(item):
        name = Path(str(item.fspath)).name
        return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: the order within a file is kept
    for item in items:
        tier = tier_of(Path(str(item.fspath)))
        if tier != "unit":
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture(scope="session")
def committed_results():
    from claimbook.inputs.results import load_results

    return load_results(ROOT / "data" / "mlperf" / "v6.1.csv")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The whole book, built once for the whole run from the committed data (``made_once``: the
    files that use it, on any worker, only read it); its HTML folder. CLAIMBOOK_TEST_BOOK=DIR
    builds into DIR instead (a folder an earlier --out made is rebuilt incrementally, so a second
    session takes seconds)."""
    out = os.environ.get("CLAIMBOOK_TEST_BOOK")
    if out:
        return build_book(Path(out))
    with made_once(tmp_path_factory, "book") as (folder, to_make):
        site = folder / "out" / "_build" / "html"
        if to_make:
            site = build_book(folder / "out")
    return site


@pytest.fixture(scope="session")
def hostile_book(tmp_path_factory, committed_results) -> Path:
    """A book of a few chapters built from the committed results plus rows whose text carries
    markup, script, links, bidi and zero-width characters and a 3000-character name; its HTML folder."""
    from tests.helpers.summaries import hostile_rows, summary_from_tidy, write_summary

    folder = tmp_path_factory.mktemp("hostile")
    honest = summary_from_tidy(committed_results, folder / "honest.csv")
    with open(honest, newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    summary = write_summary(folder / "hostile.csv", rows + hostile_rows())
    only = [argument for chapter in HOSTILE_CHAPTERS for argument in ("--only", chapter)]
    return build_book(folder / "out", "--results", summary, *only)


@contextlib.contextmanager
def made_once(tmp_path_factory, name: str):
    """A folder of this test run's own, made once for every worker of the run: yields the folder
    and whether it is still to be made (then the caller makes it; once the block ends without an
    error it counts as made). The workers of ``pytest -n`` share their run's temporary folder (the
    parent of each one's own); one makes the folder while the others wait on its lock, then they
    find it made. Only for what the tests that use it read and never change."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's popen-gwN
    folder, made = base / f"made-once-{name}", base / f"made-once-{name}.done"
    with open(base / f"made-once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes
        if made.exists():
            yield folder, False
            return
        shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed to make it left
        folder.mkdir()
        yield folder, True
        made.touch()


@pytest.fixture(scope="session")
def hostile_registry_book(tmp_path_factory) -> Path:
    """A book of one claim page built from a project copy with a registry whose every text
    field carries script, event handlers, ``javascript:`` links and Markdown/MyST markup (see
    tests/helpers/registries.py); its ``--out`` folder (the site is in ``_build/html``). Built
    once for the whole run (``made_once``): its two files, on two workers, only read it."""
    from tests.helpers.registries import EVIL_CLAIM, EVIL_ID, evil_registry

    with made_once(tmp_path_factory, "hostile-registry") as (folder, to_make):
        out = folder / "out"
        if to_make:
            copy = project_copy(folder / "project")
            (copy / "data" / "claims" / f"{EVIL_ID}.yaml").write_text(evil_registry(), encoding="utf-8")
            done = run_copy(copy, "build", "--out", out, "--only", EVIL_CLAIM)
            assert done.returncode == 0, f"the hostile registry's book did not build:\n{done.stderr[-4000:]}"
    return out
