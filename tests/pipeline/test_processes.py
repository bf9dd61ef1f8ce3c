"""Nothing a build starts outlives it, however it ends: killed with its kernel server (SIGKILL,
as an out-of-memory killer or ``kill -9 -PGID`` does), its server alone killed, SIGTERM, SIGHUP,
killed while Sphinx writes the HTML, killed at each step of the final swap, or started with too
few files allowed open.

Everything runs in a copy of the project with the copy's own package, and three chapters of its
own whose pages wait (``notebooks/waiting.ipynb``): each writes a file when its kernel runs, then
waits for a release file the test writes, so a build is killed while its kernels run, whatever
the machine's load. After each end, no process whose working directory or command line names
the test's folder may survive by more than a few seconds (polled with a deadline, never a fixed
sleep), the kernels' folders and connection files (which hold their keys) are gone from the
build's temporary folder (even after a SIGKILL: the build's reaper removes them), and a build
started at once succeeds.
"""

from __future__ import annotations

import inspect
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
import yaml

from tests.helpers.clirun import in_copy
from tests.helpers.errors import one_error_line
from tests.helpers.project import project_copy

WAITING = ("waiting_1", "waiting_2", "waiting_3")
SURVIVAL_SECONDS = 10.0  # "a few seconds": a kernel's parent poller alone takes one
START_SECONDS = 300.0  # how long a build may take to start its pages on a loaded machine

# A first Python sets what the build starts with, then becomes the build: SIGTERM and SIGHUP at
# their defaults whatever this test run was started with (a build started ignoring SIGHUP, under
# nohup, rightly keeps ignoring it: tests/unit/test_interrupts.py), and a limit of open files
# when one is given (as `ulimit -n N` would set it; 0: none).
PRELUDE = (
    "import os, resource, signal, sys; limit = int(sys.argv[1]); "
    "[signal.signal(number, signal.SIG_DFL) for number in (signal.SIGTERM, signal.SIGHUP)]; "
    "limit and resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
)
WAITING_PAGE = textwrap.dedent("""
    import os, pathlib, time
    started = pathlib.Path(os.environ["CLAIMBOOK_TEST_STARTED"])
    (started / f"{os.getpid()}").write_text(os.getcwd())
    release, deadline = pathlib.Path(os.environ["CLAIMBOOK_TEST_RELEASE"]), time.monotonic() + 600
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    print("released")
""")


def _waiting_template(path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    from claimbook.engine.context import PAGE_INPUTS  # the data inputs the build passes every page

    parameters = nbformat.v4.new_code_cell(
        "\n".join(f"{name} = {value!r}" for name, value in PAGE_INPUTS.items())
    )
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [nbformat.v4.new_markdown_cell("# A page that waits"), parameters]
    notebook.cells.append(nbformat.v4.new_code_cell(WAITING_PAGE))
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index}"
    nbformat.write(notebook, path)


@dataclass
class Project:
    root: Path
    temporary: Path  # the builds' TMPDIR: their kernels' folders and connection files
    started: Path
    release: Path
    environment: dict = field(default_factory=dict)

    def start(self, out: Path, *args, limit_files: int | None = None) -> Build:
        command = [sys.executable, "-m", "claimbook", "build", "--out", str(out), *map(str, args)]
        command[1:1] = ["-c", PRELUDE, str(limit_files or 0)]
        process = subprocess.Popen(
            command,
            cwd=self.root,
            env=self.environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        return Build(process)

    def forked(
        self, out: Path, *args, prelude: str | None = None, **extra: str
    ) -> subprocess.CompletedProcess:
        """``build --out OUT ARGS`` as ``start`` runs it, with the variables ``extra`` too, but in a
        child forked from this process (``clirun.in_copy``: no second of imports), ``prelude`` run
        first in it; waited for."""
        return in_copy(
            self.root,
            "build",
            "--out",
            out,
            *args,
            environment={**self.environment, **extra},
            prelude=prelude,
        )

    def pages_started(self) -> list[Path]:
        return list(self.started.iterdir())

    def reset(self) -> None:
        self.release.unlink(missing_ok=True)
        for path in self.started.iterdir():
            path.unlink()

    def kernel_files(self) -> list[str]:
        """What kernels leave in the temporary folder: their folders, connection files."""
        return sorted(path.name for path in self.temporary.iterdir())


@dataclass
class Build:
    process: subprocess.Popen
    said: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.reader = threading.Thread(target=lambda: self.said.extend(self.process.stderr), daemon=True)
        self.reader.start()

    def wait(self, timeout: float = 600) -> int:
        self.process.wait(timeout=timeout)
        self.reader.join(timeout=30)
        return self.process.returncode

    def text(self) -> str:
        return "".join(self.said)

    def children(self) -> list[int]:
        return [pid for pid, parent in _parents().items() if parent == self.process.pid]


def _parents() -> dict[int, int]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return found


def naming(folder: Path) -> list[str]:
    """The live processes (zombies aside) whose working directory or command line names ``folder``."""
    mine, found = str(folder), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cwd = os.readlink(entry / "cwd")
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if state != "Z" and (cwd == mine or cwd.startswith(mine + "/") or mine in command):
            found.append(f"{entry.name} (cwd {cwd}): {command[:80]}")
    return found


def until(condition, seconds: float, what: str):
    """Poll ``condition`` until it holds (its value) or ``seconds`` pass (a failure saying ``what``)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def no_survivors(folder: Path) -> None:
    deadline = time.monotonic() + SURVIVAL_SECONDS
    while naming(folder) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = naming(folder)
    for line in left:  # end them, so that the next case starts clean; the assertion has spoken
        os.kill(int(line.split(" ", 1)[0]), signal.SIGKILL)
    assert not left, f"processes outlived the build by {SURVIVAL_SECONDS:g} s: {left}"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    base = tmp_path_factory.mktemp("processes")
    root = project_copy(base / "project")
    _waiting_template(root / "notebooks" / "waiting.ipynb")
    chapters = yaml.safe_load((root / "data" / "chapters.yaml").read_text())
    for name in WAITING:
        chapters[name] = {
            "title": f"A page that waits ({name})",
            "template": "notebooks/waiting.ipynb",
            "parameters": {"standalone": True},
        }
    (root / "data" / "chapters.yaml").write_text(yaml.safe_dump(chapters, sort_keys=False))
    temporary = Path(tempfile.mkdtemp(prefix="cbp-"))  # short: kernels' sockets live there
    started, release = base / "started", base / "release"
    started.mkdir()
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    environment.update(
        {
            "PYTHONPATH": str(root),
            "TMPDIR": str(temporary),
            "CLAIMBOOK_TEST_STARTED": str(started),
            "CLAIMBOOK_TEST_RELEASE": str(release),
        }
    )
    yield Project(root, temporary, started, release, environment)
    for line in naming(base):
        os.kill(int(line.split(" ", 1)[0]), signal.SIGKILL)
    from tests.pipeline.test_faults import remove_folder

    remove_folder(temporary)


def _waiting_pages(project: Project, out: Path) -> Build:
    """A build of the three waiting pages, once all three kernels run."""
    project.reset()
    only = [argument for name in WAITING for argument in ("--only", name)]
    build = project.start(out, "--no-html", "--force", "--jobs", "3", *only)
    until(
        lambda: len(project.pages_started()) == 3 or build.process.poll() is not None,
        START_SECONDS,
        "the three pages' kernels did not start",
    )
    assert build.process.poll() is None, build.text()
    return build


def _clean(project: Project, out: Path) -> None:
    assert not project.kernel_files(), f"left in the temporary folder: {project.kernel_files()}"
    staging = (
        [path.name for path in (out / "_build").glob(".claimbook-*")] if (out / "_build").is_dir() else []
    )
    assert not staging, f"left in {out / '_build'}: {staging}"


def test_sigkill_of_the_build_and_its_server_leaves_no_kernel(project, tmp_path):
    out = tmp_path / "out"
    build = _waiting_pages(project, out)
    for pid in [*build.children(), build.process.pid]:  # the build and its server, as kill -9 does
        os.kill(pid, signal.SIGKILL)
    assert build.wait() == -signal.SIGKILL
    no_survivors(tmp_path)
    # Its reaper (no child of the build: the kill spared it) removed the kernels' folders.
    until(lambda: not project.kernel_files(), SURVIVAL_SECONDS, f"left: {project.kernel_files()}")
    project.release.write_text("")
    again = project.forked(out, "--no-html", "--only", WAITING[0])  # (forked: no second of imports)
    assert again.returncode == 0, again.stderr  # and the next build cleans up after it
    _clean(project, out)


def test_sigkill_of_the_server_alone_ends_its_kernels_and_the_build_goes_on(project, tmp_path):
    """The pages whose kernels died with their server run again in kernels started afresh."""
    out = tmp_path / "out"
    build = _waiting_pages(project, out)
    (server,) = build.children()
    os.kill(server, signal.SIGKILL)
    project.release.write_text("")
    assert build.wait() == 0, build.text()
    assert "built into" in build.text()
    no_survivors(tmp_path)
    _clean(project, out)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_interrupt_as_ctrl_c_does(project, tmp_path, name):
    out = tmp_path / "out"
    build = _waiting_pages(project, out)
    assert project.kernel_files(), "the kernels' folders are not in the build's temporary folder"
    build.process.send_signal(getattr(signal, name))
    assert build.wait(timeout=120) == 130, build.text()
    lines = build.text().splitlines()
    assert lines[-1] == "error: interrupted; nothing was changed", build.text()
    assert not [line for line in lines[:-1] if line.startswith("error") or "Traceback" in line], build.text()
    no_survivors(tmp_path)
    _clean(project, out)
    # "Nothing was changed" holds: the folder the build made for its book, marker and all, went.
    assert not out.exists(), f"an interrupted build left {sorted(path.name for path in out.iterdir())}"


def test_sphinx_dies_with_its_build_and_the_next_build_succeeds_at_once(project, tmp_path):
    out = tmp_path / "out"
    project.reset()
    project.release.write_text("")
    # (a claim's page too: a book needs one for its table of contents)
    build = project.start(out, "--only", WAITING[0], "--only", "amd-wan-vs-b300")
    until(
        lambda: "compiling HTML" in build.text() or build.process.poll() is not None, START_SECONDS, "no HTML"
    )
    work = out / "_build" / ".sphinx-work" / "_build"
    until(lambda: work.exists() or build.process.poll() is not None, 120, "Sphinx wrote nothing")
    assert build.process.poll() is None, build.text()
    for pid in [*build.children(), build.process.pid]:
        os.kill(pid, signal.SIGKILL)
    build.wait()
    no_survivors(tmp_path)
    assert not project.kernel_files(), (
        f"left in the temporary folder: {project.kernel_files()}"
    )  # a crash log
    again = project.forked(out, "--only", WAITING[0], "--only", "amd-wan-vs-b300")  # (forked)
    assert again.returncode == 0, again.stderr
    assert (out / "_build" / "html" / "book" / "generated" / f"{WAITING[0]}.html").is_file()
    _clean(project, out)


def test_too_few_open_files_is_one_line_before_anything(project, tmp_path):
    out = tmp_path / "out"
    project.release.write_text("")
    build = project.start(out, "--no-html", "--only", WAITING[0], limit_files=64)
    assert build.wait() == 1, build.text()
    one_error_line(build.text(), "ulimit -n")
    no_survivors(tmp_path)
    _clean(project, out)


# Run first in a build's own process (``Project.forked``, as a sitecustomize module on its path
# would be); it acts once the build has begun to put the book in place (``publish_book``): the N-th rename it then makes (a
# file's, a folder's exchange, the journal's) is never made, the build being killed first.
SITECUSTOMIZE = textwrap.dedent("""
    import os, signal, sys

    _at = int(os.environ.get("KILL_AT_RENAME") or 0)
    _state = {"publishing": False, "count": 0}

    def _step():
        if _state["publishing"]:
            _state["count"] += 1
            if _state["count"] == _at:
                os.kill(os.getpid(), signal.SIGKILL)

    if _at:
        import importlib.abc, importlib.machinery

        for _name in ("replace", "rename"):
            def _wrapped(*args, _real=getattr(os, _name), **kwargs):
                _step()
                return _real(*args, **kwargs)
            setattr(os, _name, _wrapped)

        class _Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name not in ("claimbook.pipeline.outputs", "claimbook.pipeline.publish"):
                    return None
                spec = importlib.machinery.PathFinder.find_spec(name, path)
                run = spec.loader.exec_module

                def exec_module(module):
                    run(module)
                    if name.endswith("outputs"):
                        real = module._exchange

                        def exchange(first, second):
                            _step()
                            return real(first, second)

                        module._exchange = exchange
                    else:
                        real_publish = module.publish_book

                        def publish_book(*args, **kwargs):
                            _state["publishing"] = True
                            return real_publish(*args, **kwargs)

                        module.publish_book = publish_book

                spec.loader.exec_module = exec_module
                return spec

        sys.meta_path.insert(0, _Finder())
""")


def _toc_pages(out: Path) -> list[str]:
    """The pages ``_toc.yml`` names that the book does not have."""
    missing = []

    def walk(item):
        if isinstance(item, dict):
            name = item.get("file")
            if name and not any((out / f"{name}{suffix}").is_file() for suffix in ("", ".md", ".ipynb")):
                missing.append(name)
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(yaml.safe_load((out / "_toc.yml").read_text()))
    return missing


def _leftovers(out: Path) -> list[str]:
    places = [out, out / "_build", out / "book"]
    return sorted(
        str(path.relative_to(out))
        for place in places
        if place.is_dir()
        for path in place.iterdir()
        if path.name.startswith((".claimbook-staging-", ".claimbook-retired-")) or path.name.endswith(".tmp")
    )


def test_a_kill_at_each_rename_of_the_final_swap_leaves_a_book_the_next_build_finishes(project, tmp_path):
    """Killed before each rename of the swap in turn (the journal's, each folder's, the table of
    contents'): the table of contents never names a page the book does not have, and the next
    build leaves a whole book and nothing of the killed one (no staging folder, no journal)."""
    out = tmp_path / "out"
    project.reset()
    project.release.write_text("")
    one, two = ["--no-html", "--only", WAITING[0]], ["--no-html", "--only", WAITING[0], "--only", WAITING[1]]
    first = project.start(out, *one)  # the real command line; the builds below run in forked children
    assert first.wait() == 0, first.text()
    killed_at, book = [], two  # each step swaps in the other book: one page, then two, then one...
    for step in range(1, 9):
        # The hooks act in the build alone: run first in its child (as the sitecustomize module
        # on its path would be), they kill it at the step-th rename.
        killed = project.forked(out, *book, prelude=SITECUSTOMIZE, KILL_AT_RENAME=str(step))
        code = killed.returncode
        if code == 0:  # the swap has fewer renames than this: every one was tried
            break
        assert code == -signal.SIGKILL, killed.stderr
        killed_at.append(step)
        missing = _toc_pages(out)
        journal = (out / "_build" / ".claimbook-swap.json").is_file()
        assert not missing or journal, f"killed at rename {step}: _toc.yml names {missing}, and no journal"
        again = project.forked(out, *book)
        assert again.returncode == 0, again.stderr
        assert not _toc_pages(out) and not _leftovers(out), (step, _toc_pages(out), _leftovers(out))
        assert (out / "book" / "generated" / f"{WAITING[1]}.ipynb").is_file() == (book == two)
        book = one if book == two else two
    print(f"killed at renames {killed_at}")
    assert len(killed_at) >= 3, f"the swap was killed at only {killed_at}"
    no_survivors(tmp_path)


@pytest.fixture
def full_disk_out(tmp_path):
    """An --out folder whose _build/ is a small file system of its own (a tmpfs; needs root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    out = tmp_path / "out"
    (out / "_build").mkdir(parents=True)
    from claimbook.common.paths import OUT_MARKER_TEXT

    (out / ".claimbook-out").write_text(OUT_MARKER_TEXT)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400m", "claimbook-full", str(out / "_build")],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield out
    finally:
        subprocess.run(["umount", "-l", str(out / "_build")], check=False)


def _fill(folder: Path, leave: int = 0) -> None:
    """Write into ``folder`` (its file ``filler``) until its file system is full, or has only
    ``leave`` bytes free."""
    with open(folder / "filler", "ab") as stream:
        try:
            while (free := os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize) > leave:
                stream.write(b"\0" * min(1 << 20, max(free - leave, 1)))
                stream.flush()
        except OSError:
            pass


def test_a_full_disk_during_html_is_one_line_and_leaves_no_work_files(project, full_disk_out, tmp_path):
    out = full_disk_out
    project.reset()
    project.release.write_text("")
    # Filled to its last 2 MiB first: a fast Sphinx can write a small book's whole site in the
    # time 400 MB take to write, so only the last of it is left for once the HTML has begun.
    _fill(out / "_build", leave=2 << 20)
    build = project.start(out, "--only", WAITING[0], "--only", "amd-wan-vs-b300")
    until(
        lambda: "compiling HTML" in build.text() or build.process.poll() is not None, START_SECONDS, "no HTML"
    )
    _fill(out / "_build")
    assert build.wait() == 1, build.text()
    error = one_error_line(build.text(), "No space left on device", among_others=True)
    assert build.text().splitlines()[-1] == error and "\x1b" not in build.text(), build.text()
    (out / "_build" / "filler").unlink()
    left = sorted(path.name for path in (out / "_build").iterdir())
    assert ".sphinx-work" not in left and not [name for name in left if name.startswith(".claimbook-")], left
    no_survivors(tmp_path)
    assert not project.kernel_files(), (
        f"left in the temporary folder: {project.kernel_files()}"
    )  # a crash log
    again = project.forked(out, "--only", WAITING[0], "--only", "amd-wan-vs-b300")  # (forked)
    assert again.returncode == 0, again.stderr


# Loaded by every Python process of a build whose path has it; it acts in the build itself: once
# Sphinx has written the HTML (``compile_book`` returned), the file system under ``_build`` is
# filled, so that the copy of the finished site into the staging folder meets a full disk.
FILL_AFTER_SPHINX = "import importlib.abc, importlib.machinery, os, sys\nfrom pathlib import Path\n\n\n"
FILL_AFTER_SPHINX += inspect.getsource(_fill) + textwrap.dedent("""

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "claimbook.pipeline.jupyterbook":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                real = module.compile_book

                def compile_book(book, work_root, *args, **kwargs):
                    html = real(book, work_root, *args, **kwargs)
                    _fill(Path(work_root))
                    return html

                module.compile_book = compile_book

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Finder())
""")


def test_a_full_disk_while_the_site_is_copied_out_is_one_line_and_keeps_the_published_site(
    project, full_disk_out, tmp_path
):
    """After Sphinx has finished, the copy of its site into the staging folder fills the disk:
    the same one line as a full disk in Sphinx, no work files left, the published site as it was."""
    from tests.helpers.treehash import snapshot

    out, hooks = full_disk_out, tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(FILL_AFTER_SPHINX)
    project.reset()
    project.release.write_text("")
    first = project.start(out, "--only", WAITING[0], "--only", "amd-wan-vs-b300")
    assert first.wait() == 0, first.text()
    published = snapshot(out / "_build" / "html")
    environment = dict(project.environment)
    project.environment["PYTHONPATH"] = f"{project.root}{os.pathsep}{hooks}"
    try:  # one page more: a table of contents of its own, so the site is compiled again
        build = project.start(out, "--only", WAITING[0], "--only", WAITING[1], "--only", "amd-wan-vs-b300")
        code = build.wait()
    finally:
        project.environment = environment
    assert code == 1, build.text()
    error = one_error_line(
        build.text(),
        "No space left on device",
        starts="error: jupyter-book could not write the HTML: ",
        among_others=True,
    )
    assert build.text().splitlines()[-1] == error and "Traceback" not in build.text(), build.text()
    (out / "_build" / "filler").unlink()
    left = sorted(path.name for path in (out / "_build").iterdir())
    assert ".sphinx-work" not in left and not [name for name in left if name.startswith(".claimbook-")], left
    assert snapshot(out / "_build" / "html") == published, "the published site changed"
    no_survivors(tmp_path)
    assert not project.kernel_files(), f"left in the temporary folder: {project.kernel_files()}"
