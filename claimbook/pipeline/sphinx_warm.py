"""A jupyter-book kept running between builds of one book: ``claimbook preview``'s HTML.

A build's jupyter-book process (``claimbook.pipeline.jupyterbook``) starts, imports Sphinx and
its extensions, reads its environment from disk, builds, and ends: a second or more before the
first page is written. Here one process does that once, then keeps its Sphinx application and
builds again each time it is asked, reading and writing only the pages whose sources changed
(Sphinx's own incremental build), in tenths of a second.

It is jupyter-book's own command line (``jupyter-book build``, the book's ``_config.yml`` and
``_toc.yml`` made into Sphinx's configuration by jupyter-book), with Sphinx's ``build`` wrapped
so that the application it made builds again on each line it reads. Its configuration and table
of contents are read once, as it starts: a change of either needs a new process
(``WarmSphinx.restart``). Warnings are reported, not errors: a preview shows the page the
warning is about; jupyter-book's other words (its banners, where the HTML is) are not. It
speaks JSON lines on a pipe of its own (Sphinx prints to its standard output), and ends when
its input closes; killed outright with the preview (SIGKILL), it is killed at once too, in the
middle of a build (``claimbook.pipeline.lifeline``), so Sphinx never writes on after it.
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from claimbook.common.paths import CONFIG_FILE, TOC_FILE
from claimbook.common.processes import end_child
from claimbook.pipeline.jupyterbook import WITHOUT_EXECUTION
from claimbook.pipeline.lifeline import DIE_WITH_PARENT

_SERVER = (
    DIE_WITH_PARENT
    + WITHOUT_EXECUTION
    + r"""
import json, os, pickle, sys, time, traceback

die_with_parent(int(sys.argv[2]))  # the preview
without_execution()
toc_read_by_libyaml()
import sphinx.builders
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.environment import BuildEnvironment
from jupyter_book.cli.main import main

channel = os.dup(1)  # answers go here; whatever Sphinx and jupyter-book print goes to stderr
os.dup2(2, 1)
build, write = Sphinx.build, Builder.write
# The environment Sphinx saves before it writes any page, saved once the pages are written (and
# the preview told): only a new process reads it, the kept one has it in memory.
saved = []


class SaveLater:
    def dump(self, thing, file, protocol=None):
        if isinstance(thing, BuildEnvironment):
            saved[:] = [(thing, file.name, protocol)]
        else:  # a page's doctree, read now
            pickle.dump(thing, file, protocol)

    def __getattr__(self, name):
        return getattr(pickle, name)


def save_environment():
    for env, name, protocol in saved:
        with open(name + ".new", "wb") as file:
            pickle.dump(env, file, protocol)
        os.replace(name + ".new", name)
    saved.clear()


def write_changed_first(builder, build_docnames, updated_docnames, method="update"):
    # Sphinx writes its pages in the order of their names: the pages whose sources changed
    # (the page an analyst just edited) go first, the pages whose navigation lists them after.
    serial = builder._write_serial
    first = set(updated_docnames)
    builder._write_serial = lambda docnames: serial(sorted(docnames, key=lambda name: (name not in first, name)))
    try:
        return write(builder, build_docnames, updated_docnames, method)
    finally:
        del builder._write_serial


def say(message):
    os.write(channel, (json.dumps(message) + "\n").encode())


def build_on_request(app, force_all=False, filenames=None):
    while True:
        started, warned = time.perf_counter(), getattr(app, "_warncount", 0)
        app.statuscode = 0
        try:
            build(app, force_all, filenames)
        except Exception:
            traceback.print_exc()
            app.statuscode = 1
        say({"built": app.statuscode, "warnings": getattr(app, "_warncount", 0) - warned,
             "seconds": time.perf_counter() - started})
        try:
            save_environment()
        except Exception:
            traceback.print_exc()
        if not sys.stdin.readline():
            break
        force_all, filenames = False, None


Sphinx.build = build_on_request
Builder.write = write_changed_first
sphinx.builders.pickle = SaveLater()
try:
    main(args=json.loads(sys.argv[1]), prog_name="jupyter-book")
except SystemExit:
    pass
except BaseException:
    traceback.print_exc()
say({"ended": True})
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
"""
)


# The lines of jupyter-book's output a preview reports as they come: Sphinx's warnings and
# errors (colour codes removed). If the process ends, its last lines are reported too.
_REPORTED = re.compile(r"WARNING|ERROR")
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


# The lifeline ties a process to the thread that started it, and a preview's steps run in
# threads of their own that end: the kept process is started by this one thread, which lives as
# long as the preview's process.
_STARTER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="claimbook-sphinx-starter")


class SphinxGone(RuntimeError):
    """The kept jupyter-book process ended (it failed to start its application, or was killed)."""


class WarmSphinx:
    """One kept jupyter-book process for the book in ``source`` (``_config.yml``, ``_toc.yml``,
    ``book/``), writing its HTML under ``source/_build/html``."""

    def __init__(self, source: Path, report: Callable[[str], None]):
        self.source = Path(source)
        self.report = report
        self.process: subprocess.Popen | None = None

    @property
    def html(self) -> Path:
        return self.source / "_build" / "html"

    def _arguments(self) -> list[str]:
        # As the build runs jupyter-book (``jupyterbook.compile_book``), with warnings as warnings.
        source = str(self.source)
        return [
            "build",
            source,
            "--toc",
            str(self.source / TOC_FILE),
            "--config",
            str(self.source / CONFIG_FILE),
            "--builder",
            "html",
            "-n",
            "--quiet",
        ]

    def start(self) -> dict:
        """Start the process; it builds the book once (from the environment on disk, if any);
        what that build said."""
        read, write = os.pipe()
        try:
            self.process = _STARTER.submit(
                subprocess.Popen,
                [sys.executable, "-c", _SERVER, json.dumps(self._arguments()), str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # Ctrl-C reaches the preview, which ends this process
            ).result()
        finally:
            os.close(write)
        self._answers = os.fdopen(read, encoding="utf-8")
        self._last = collections.deque(maxlen=20)  # its last lines, said if it ends
        self._forwarding = threading.Thread(target=self._forward, args=(self.process.stderr,), daemon=True)
        self._forwarding.start()
        return self._answer()

    def _forward(self, stream) -> None:
        for line in stream:
            line = _COLOUR.sub("", line.rstrip())
            if line.strip():
                self._last.append(line)
            if _REPORTED.search(line):
                self.report(line)

    def _answer(self) -> dict:
        try:
            line = self._answers.readline()
        except (OSError, ValueError):  # stopped from another thread meanwhile
            line = ""
        answer = json.loads(line) if line.strip() else {"ended": True}
        if "ended" in answer:
            self.stop()
            self._forwarding.join(timeout=5)  # what it printed last, read to its end
            said = [line.strip() for line in self._last if not line.startswith(("  File ", "    "))]
            raise SphinxGone(
                "jupyter-book could not build the preview" + (f": {' / '.join(said[-3:])}" if said else "")
            )
        return answer

    def rebuild(self) -> dict:
        """Build again: the pages whose sources changed since the last build, and those whose
        navigation did; what the build said (``built``: 0 when it succeeded, ``warnings``)."""
        if self.process is None or self.process.poll() is not None:
            raise SphinxGone("the preview's jupyter-book process is not running")
        try:
            self.process.stdin.write("\n")
            self.process.stdin.flush()
        except OSError as exc:
            raise SphinxGone(f"the preview's jupyter-book process is not running ({exc})") from None
        return self._answer()

    def warm_up(self) -> None:
        """Rewrite the book's smallest page once: Sphinx compiles the theme's templates the first
        time it writes a page (a second or more), which the first change would wait for."""
        from claimbook.pipeline.jupyterbook import documents

        pages = sorted(documents(self.source), key=lambda page: ((self.source / page).stat().st_size, page))
        if pages:
            os.utime(self.source / pages[0])
            self.rebuild()

    def restart(self) -> dict:
        """A new process (the configuration or the table of contents changed), once the old one
        saved its environment (the new one reads it rather than every page)."""
        self.stop(timeout=30)
        return self.start()

    def stop(self, timeout: float = 1) -> None:
        """End the process at once: a build it is in the middle of is only a preview's."""
        process, self.process = self.process, None
        if process is None:
            return
        end_child(process, timeout=timeout)
        self._answers.close()
