"""``claimbook preview`` as an analyst uses it: started in a project, a claim's figure edited in its
registry, the served page shows the new figure and the open page is told to reload; Ctrl-C ends
it and every process it started (the kernel server, the kernels, the jupyter-book process)."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT, project_copy

CLAIM_FILE = "data/claims/amd-v6.1.yaml"
PAGE = "book/generated/amd-v6.1/amd-wan-vs-b300.html"
# The claimed figure of that claim, and the one the test writes over it.
FIGURE = re.compile(r"(?<=claimed: \{)Offline: [0-9.]+(?=, SingleStream: 11\})")
EDITED = "Offline: 23.5"
# The pages the edit makes the preview execute: the claim's, and the one that reads every claim.
EXECUTED = ("amd-v6.1/amd-wan-vs-b300.ipynb", "where_they_meet.ipynb")


def descendants(pid: int) -> set[tuple[int, str]]:
    """Every process below ``pid`` now, with its start time (a pid may be reused)."""
    parents, started = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)], started[int(entry.name)] = int(fields[1]), fields[19]
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in {seen for seen, _ in found}:
                found.add((child, started[child]))
                todo.append(child)
    return found


def alive(process: tuple[int, str]) -> bool:
    pid, start = process
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == start and fields[0] != "Z"


class Preview:
    """A ``claimbook preview`` running in a project copy, its output collected line by line."""

    def __init__(self, copy: Path, **variables):
        environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
        environment["PYTHONPATH"] = str(copy)
        environment.update(variables)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "claimbook", "preview", "--port", "0"],
            cwd=copy,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self.started: set[tuple[int, str]] = set()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float, count: int = 1) -> re.Match:
        """The ``count``-th line of the preview's output that ``pattern`` finds, once it came."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.started |= descendants(self.process.pid)
            found = [match for line in list(self.lines) if (match := re.search(pattern, line))]
            if len(found) >= count:
                return found[count - 1]
            assert self.process.poll() is None, "the preview ended:\n" + "\n".join(self.lines[-30:])
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} in {timeout} s:\n" + "\n".join(self.lines[-30:]))

    def stop(self) -> int:
        self.started |= descendants(self.process.pid)
        self.process.send_signal(signal.SIGINT)  # what Ctrl-C sends
        try:
            return self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def fetch(url: str) -> str:
    """The page at ``url``; read again if it was read while Sphinx rewrote it (the browser
    reloads only once it is written)."""
    for _ in range(50):
        try:
            with urllib.request.urlopen(url, timeout=30) as answer:
                return answer.read().decode()
        except http.client.IncompleteRead:
            time.sleep(0.1)
    raise AssertionError(f"{url}: never read whole")


@pytest.fixture
def copy(tmp_path) -> Path:
    copy = project_copy(tmp_path / "project")
    bundle = ROOT / "_build" / "assets" / "claimbook-vega.js"  # seconds to make; the same bytes
    if bundle.is_file():
        (copy / "_build" / "assets").mkdir(parents=True)
        (copy / "_build" / "assets" / bundle.name).write_bytes(bundle.read_bytes())
    return copy


def test_an_edited_figure_is_served_and_reloaded_and_ctrl_c_ends_everything(copy):
    from websockets.sync.client import connect

    before = {path: path.read_bytes() for path in (copy / "book" / "generated").rglob("*") if path.is_file()}
    preview = Preview(copy)
    try:
        port = int(preview.wait_for(r"serving the book at http://127\.0\.0\.1:(\d+)/", 600).group(1))
        url = f"http://127.0.0.1:{port}/{PAGE}"
        page = fetch(url)
        assert "websocket-reload" in page  # the page reloads itself when told to
        assert "23.5%" not in page
        with connect(f"ws://127.0.0.1:{port}/websocket-reload", open_timeout=30) as reload:
            registry = copy / CLAIM_FILE
            text, count = FIGURE.subn(EDITED, registry.read_text(encoding="utf-8"))
            assert count == 1
            registry.write_text(text, encoding="utf-8")
            assert reload.recv(timeout=300) == "refresh"
        deadline = time.monotonic() + 120
        while "claimed 23.5%" not in fetch(url):
            assert time.monotonic() < deadline, "the served page never showed the edited figure"
            time.sleep(0.2)
        preview.wait_for(r"preview up to date \(2 page\(s\) executed", 300)
        # A registry broken mid-edit is one line, the page stays served; mended, it is shown again.
        registry.write_text(text.replace("claimed: {", "claimed: {{", 1), encoding="utf-8")
        preview.wait_for(r"^error: .*amd-v6\.1\.yaml", 300)
        assert "claimed 23.5%" in fetch(url)
        registry.write_text(text.replace(EDITED, "Offline: 24.5"), encoding="utf-8")
        deadline = time.monotonic() + 120
        while "claimed 24.5%" not in fetch(url):
            assert time.monotonic() < deadline, "the mended registry's figure was never shown"
            time.sleep(0.2)
        # The claim's verdict and measured figures stay: the page that reads every claim reads
        # the same of it, and is not run again.
        preview.wait_for(r"preview up to date \(1 page\(s\) executed", 300)
        assert "reusing where_they_meet: what it reads of each claim did not change" in preview.lines
        # Its own writes (all in _build/preview) set off nothing more: one step per edit.
        time.sleep(3)
        assert sum("changed:" in line for line in preview.lines) == 3, preview.lines
    finally:
        code = preview.stop()
    assert code == 0, "\n".join(preview.lines[-30:])
    assert preview.lines[-1] == "preview stopped"
    assert preview.started, "the preview started no process (no kernel server, no jupyter-book)"
    survivors = [pid for pid in preview.started if alive(pid)]
    assert not survivors, f"still running after Ctrl-C: {survivors}"
    # The committed book is the build's: the preview wrote only in _build/preview.
    after = {path: path.read_bytes() for path in (copy / "book" / "generated").rglob("*") if path.is_file()}
    assert after == before
    assert (copy / "_build" / "preview" / "work" / "_build" / "html" / PAGE).is_file()
    assert not (copy / "_build" / "html").exists()
    # The pages the preview executed after the edits (in kernels forked from a server that read
    # the data before them) are the pages a build makes from the same files.
    executed = {
        name: (copy / "_build" / "preview" / "source" / "book" / "generated" / name).read_bytes()
        for name in EXECUTED
    }
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    environment["PYTHONPATH"] = str(copy)
    build = subprocess.run(
        [sys.executable, "-m", "claimbook", "build", "--no-html"],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    for name, page in executed.items():
        assert page != before[copy / "book" / "generated" / name], f"{name}: the edit changed nothing"
        assert (copy / "book" / "generated" / name).read_bytes() == page, name


def test_a_port_already_taken_is_refused_in_one_line():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = in_process("preview", "--port", port)
    one_error_line(done, code=2, starts=f"error: --port {port}: cannot listen on 127.0.0.1:{port}")


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _gone_within(processes, seconds: float) -> list:
    deadline = time.monotonic() + seconds
    while (left := [process for process in processes if alive(process)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid, _ in left:  # ended, so that nothing outlives the test; the assertion has spoken
        os.kill(pid, signal.SIGKILL)
    return left


def test_a_preview_killed_while_sphinx_builds_takes_sphinx_and_its_kernels_with_it(copy):
    """SIGKILL of ``claimbook preview`` (an out-of-memory killer, a closed terminal's
    ``kill -9``) while its kept jupyter-book builds the book for the first time: every process
    it started (that jupyter-book, the kernel server and its kernels) ends within seconds, not
    once Sphinx has finished writing into the project. (Sphinx also ends as it first writes into
    its closed output; the lifeline ends it when it writes nothing: the next test.)"""
    preview = Preview(copy)
    try:

        def building():
            preview.started |= descendants(preview.process.pid)
            assert preview.process.poll() is None, "\n".join(preview.lines[-30:])
            return [process for process in preview.started if "build_on_request" in _command_line(process[0])]

        deadline = time.monotonic() + 600
        while not (warm := building()):
            assert time.monotonic() < deadline, "the kept jupyter-book never started"
            time.sleep(0.05)
        assert not any("serving the book" in line for line in preview.lines), "Sphinx was not building"
        preview.started |= descendants(preview.process.pid)
        preview.process.kill()
        preview.process.wait(timeout=60)
    finally:
        if preview.process.poll() is None:
            preview.process.kill()
    left = _gone_within(preview.started, 5.0)
    assert not left, (
        f"outlived the killed preview by 5 s: {[(pid, _command_line(pid)[:80]) for pid, _ in left]}"
    )
    assert warm


# A Sphinx extension that makes a build wait (a minute, once a flag file exists), having said
# that it started: a build is then killed in its middle, whatever the machine's load.
SLOW_EXTENSION = """
import os, pathlib, time

def _wait(app, env, docnames):
    if os.path.exists(os.environ["SLOW_FLAG"]):
        pathlib.Path(os.environ["SLOW_STARTED"]).write_text("")
        time.sleep(60)

def setup(app):
    app.connect("env-before-read-docs", _wait)
    return {"parallel_read_safe": True}
"""
# A process that keeps a WarmSphinx as the preview does: started in a thread that ends (as the
# preview's steps are), then asked to build again, which waits.
HOLDER = """
import os, pathlib, sys, threading, time
from claimbook.pipeline.sphinx_warm import WarmSphinx

source = pathlib.Path(sys.argv[1])
sphinx = WarmSphinx(source, report=lambda line: None)
thread = threading.Thread(target=sphinx.start)
thread.start()
thread.join()
time.sleep(1)
print("alive" if sphinx.process.poll() is None else "ended", sphinx.process.pid, flush=True)
pathlib.Path(os.environ["SLOW_FLAG"]).write_text("")
os.utime(source / "intro.md")
sphinx.rebuild()
"""


def test_the_kept_jupyter_book_outlives_the_thread_that_started_it_and_dies_with_its_process(tmp_path):
    """The lifeline ties a process to the thread that started it: the preview's jupyter-book,
    started by a step's thread that then ends, keeps running; its process killed in the middle of
    a build, it ends within seconds."""
    book, extensions = tmp_path / "book", tmp_path / "extensions"
    book.mkdir()
    extensions.mkdir()
    (extensions / "slow_ext.py").write_text(SLOW_EXTENSION)
    (book / "_config.yml").write_text(
        'title: A book\nexecute:\n  execute_notebooks: "off"\nsphinx:\n  extra_extensions: [slow_ext]\n'
    )
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (book / "intro.md").write_text("# A page\n\nSome text.\n")
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    environment.update(
        {
            "PYTHONPATH": f"{ROOT}{os.pathsep}{extensions}",
            "SLOW_FLAG": str(tmp_path / "slow"),
            "SLOW_STARTED": str(tmp_path / "started"),
        }
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(book)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = holder.stdout.readline().split()
        assert said[:1] == ["alive"], f"{said}: {holder.stderr.read() if holder.poll() is not None else ''}"
        warm = (int(said[1]), Path(f"/proc/{said[1]}/stat").read_text().rsplit(")", 1)[1].split()[19])
        deadline = time.monotonic() + 120
        while not (tmp_path / "started").exists():
            assert holder.poll() is None and time.monotonic() < deadline, holder.stderr.read()
            time.sleep(0.05)
        holder.kill()
        holder.wait(timeout=60)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert not _gone_within([warm], 5.0), "the kept jupyter-book outlived its process by 5 s"


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_port_that_is_no_port_is_one_line(port):
    done = in_process("preview", "--port", port)
    one_error_line(done, code=2, starts=f"error: --port {port}: not a port")


def _answer(app, scope_type: str, host: str, origin: str | None = None) -> list[dict]:
    """What the preview's loopback guard sends for one request (and whether it passed it on)."""
    import asyncio

    from claimbook.pipeline.serve import LoopbackOnly

    sent = []

    async def inner(scope, receive, send):
        sent.append({"type": "passed"})

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    asyncio.run(LoopbackOnly(inner, port=8123)({"type": scope_type, "headers": headers}, receive, send))
    return sent


def test_the_preview_answers_only_for_its_loopback_names():
    """Against DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 sends
    its own Host (refused, 400) and its websocket its own Origin (closed)."""
    for host in ("127.0.0.1:8123", "localhost:8123", "[::1]:8123", "LOCALHOST:8123"):
        assert _answer(None, "http", host) == [{"type": "passed"}], host
    for host in ("evil.example:8123", "127.0.0.1:9999", "127.0.0.1", "", "127.0.0.1.evil.example:8123"):
        answer = _answer(None, "http", host)
        assert answer[0]["type"] == "http.response.start" and answer[0]["status"] == 400, host
    assert _answer(None, "websocket", "127.0.0.1:8123", "http://localhost:8123") == [{"type": "passed"}]
    assert _answer(None, "websocket", "127.0.0.1:8123") == [{"type": "passed"}]  # no browser's
    for origin in ("http://evil.example:8123", "http://127.0.0.1:8124", "null"):
        (closed,) = _answer(None, "websocket", "127.0.0.1:8123", origin)
        assert closed["type"] == "websocket.close" and closed["code"] == 1008, origin


def _kernel_folders(tmp: Path, pid: int) -> list[Path]:
    return sorted(tmp.glob(f"claimbook-kernel-{pid}-*"))


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def _edit_figure(copy: Path, figure: str) -> None:
    registry = copy / CLAIM_FILE
    text, count = FIGURE.subn(figure, registry.read_text(encoding="utf-8"))
    assert count == 1
    registry.write_text(text, encoding="utf-8")


def _signal_while_executing(preview: Preview, copy: Path, figure: str, signum: int) -> None:
    preview.wait_for(r"serving the book at http://127\.0\.0\.1:(\d+)/", 900)
    said = sum("executing" in line for line in preview.lines)
    _edit_figure(copy, figure)
    preview.wait_for(r"^executing \d+ page", 300, count=said + 1)
    time.sleep(0.2)
    preview.started |= descendants(preview.process.pid)
    preview.process.send_signal(signum)
    preview.process.wait(timeout=60)


def test_a_preview_ended_by_any_signal_leaves_no_kernel_key_and_serves_the_whole_book_first(copy):
    """SIGTERM while a page executes: exit 130 (as a build), and within seconds no kernel
    folder of the preview's (each holds its kernel's HMAC key) in the temporary folder; SIGKILL:
    the reaper removes them; the next start removes those of dead processes (named as ours
    only). And a fresh clone's first preview serves the whole book: the announcement pages and
    the ledger (its copy of the committed cache no longer vouches for an assembly it lacked)."""
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="cbk-", dir="/tmp"))  # short: a socket's path is bounded
    try:
        dead = tmp / f"claimbook-kernel-{_dead_pid()}-leftover"
        dead.mkdir()
        (dead / "kernel.json").write_text('{"key": "secret"}')
        alive_one = tmp / f"claimbook-kernel-{os.getpid()}-alive"
        lookalike = tmp / "claimbook-kernel-notes"
        alive_one.mkdir()
        lookalike.mkdir()
        preview = Preview(copy, TMPDIR=str(tmp))
        try:
            port = int(preview.wait_for(r"serving the book at http://127\.0\.0\.1:(\d+)/", 900).group(1))
            assert not dead.exists() and alive_one.is_dir() and lookalike.is_dir()
            for page in ("book/generated/amd-v6.1.html", "book/generated/nvidia-v6.1.html"):
                assert "claimbook" in fetch(f"http://127.0.0.1:{port}/{page}"), page
            assert "claimbook-ledger" in fetch(f"http://127.0.0.1:{port}/book/index.html")
            assert not any("warned" in line for line in preview.lines), preview.lines[-20:]
            _signal_while_executing(preview, copy, "Offline: 23.5", signal.SIGTERM)
        finally:
            if preview.process.poll() is None:
                preview.process.kill()
        assert preview.process.returncode == 130, preview.lines[-20:]
        assert not _gone_within(preview.started, 5.0)
        assert not _kernel_folders(tmp, preview.process.pid)
        killed = Preview(copy, TMPDIR=str(tmp))
        try:
            # (a figure whose verdict is not the last one's: the page that reads every claim runs
            # too, and the signal comes while it runs)
            _signal_while_executing(killed, copy, "Offline: 18", signal.SIGKILL)
        finally:
            if killed.process.poll() is None:
                killed.process.kill()
        deadline = time.monotonic() + 5
        while _kernel_folders(tmp, killed.process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _kernel_folders(tmp, killed.process.pid)
        assert not _gone_within(killed.started, 5.0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_full_disk_during_a_step_is_one_line_naming_the_path(tmp_path, monkeypatch):
    """A write the disk refuses mid-step (a full disk says no file: ``write()`` fails) is one
    line naming where the preview writes, as builds say it, and the preview goes on serving
    (seen: "OSError: [Errno 28] No space left on device", with no path)."""
    import errno

    from claimbook.pipeline.preview import Preview as PreviewOfProject

    said = []
    preview = PreviewOfProject(ROOT, said.append)
    for error in (
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "page.html")),
    ):

        def full(first, error=error):
            raise error

        monkeypatch.setattr(preview, "_refresh", full)
        assert preview.refresh() is False
    where = ROOT / "_build" / "preview"
    assert said == [
        f"error: the preview could not write {where}: No space left on device; the last good pages stay served",
        f"error: the preview could not write {tmp_path / 'page.html'}: No space left on device; the last good pages stay served",
    ]


CHROMIUM = "/usr/bin/chromium"


@pytest.mark.skipif(
    not Path(CHROMIUM).is_file() and not os.environ.get("CLAIMBOOK_REQUIRE_BROWSER"),
    reason="the banner's test needs Debian's chromium (apt-get install chromium)",
)
def test_a_mistake_shows_as_a_banner_in_the_open_page_until_it_is_fixed(copy):
    """A registry broken while its page is open in Chromium: the page reloads with a banner over
    its top carrying the terminal's error line (the last good page under it), and loses it once
    the registry is mended."""
    from playwright.sync_api import sync_playwright

    preview = Preview(copy)
    try:
        port = int(preview.wait_for(r"serving the book at http://127\.0\.0\.1:(\d+)/", 600).group(1))
        registry = copy / CLAIM_FILE
        text = registry.read_text(encoding="utf-8")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--headless", "--no-sandbox"]
            )
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"http://127.0.0.1:{port}/{PAGE}")
            assert page.locator("#claimbook-preview-problem").count() == 0
            registry.write_text(text.replace("claimed: {", "claimed: {{", 1), encoding="utf-8")
            error = preview.wait_for(r"^error: .*amd-v6\.1\.yaml.*", 300).group(0)
            banner = page.locator("#claimbook-preview-problem")
            banner.wait_for(state="visible", timeout=60_000)
            assert error in " ".join(banner.inner_text().split())
            box = banner.bounding_box()
            assert box is not None and box["y"] == 0 and box["width"] == 1400, box
            assert page.locator("h1").count() >= 1, "the last good page is no longer under the banner"
            registry.write_text(text, encoding="utf-8")
            banner.wait_for(state="detached", timeout=300_000)
            browser.close()
    finally:
        preview.stop()


def test_the_page_open_in_the_browser_runs_first_and_alone_when_a_change_makes_several():
    """A template edit makes many pages: the one last served to a browser runs first, alone
    (and is shown before the others run); where it is not among them, or is the only one, all
    run together."""
    import asyncio

    from claimbook.pipeline.preview import open_page_first
    from claimbook.pipeline.serve import OpenPage

    jobs = [("amd-v6.1/amd-breadth", 1), ("amd-v6.1/amd-wan-vs-b300", 2), ("scaling", 3)]
    opened = "/book/generated/amd-v6.1/amd-wan-vs-b300.html"
    assert open_page_first(jobs, opened) == ([jobs[1]], [jobs[0], jobs[2]])
    assert open_page_first(jobs, "/book/generated/where_they_meet.html") == (jobs, [])
    assert open_page_first(jobs, None) == (jobs, [])
    assert open_page_first([jobs[1]], opened) == ([jobs[1]], [])

    class Seen:
        opened = None

    async def app(scope, receive, send):
        return None

    middleware = OpenPage(app, Seen)
    for path in (opened, "/_static/claimbook.css"):
        asyncio.run(middleware({"type": "http", "method": "GET", "path": path}, None, None))
    assert Seen.opened == opened  # a page, not the files it loads
