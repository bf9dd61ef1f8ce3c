"""Kernels that start in milliseconds: a fork server with the heavy imports done, forking one
fresh kernel process per page.

A page's kernel used to spend most of its life starting: a new Python, IPython, ipykernel,
pandas, altair and the package imported again for every page. The build now starts one server
process per build that imports all of that once, reads the book's data files once
(``claimbook.engine.preloaded``: a page reading those very bytes takes what was read), and then
does nothing else: no kernel, no namespace, no chart, no option set. For each page it forks a
child, and the child becomes the
page's kernel exactly as ``python -m ipykernel_launcher -f CONNECTION_FILE`` would (its own
session, working directory, environment, standard streams and arguments), so each page still
runs in a process of its own that no other page ever ran in.

Why forking rather than reusing kernels: a reused kernel carries state from page to page
(modules' caches, altair's and pandas' options, execution counts, the package's modules, the
working directory), and resetting each of them is a list that is never complete. A forked child
starts from the server's pristine state, identical for every page and identical to what a fresh
kernel has after its imports; nothing a page does can reach the next one. nbval re-runs every
committed page in a fresh kernel, and a test executes one page both ways and compares the files.

The server speaks JSON lines over its standard input and output: ``{"id", "argv", "env", "cwd",
"stream"}`` asks for a kernel, ``{"id", "pid"}`` answers, ``{"exited", "status"}`` says a kernel
ended (the server reaps its children). It exits when its input closes (the build ended or died)
and kills the kernels still running then.

Nothing it starts outlives the build (``claimbook.pipeline.lifeline``): the server and each kernel
ask the system (Linux's ``prctl(PR_SET_PDEATHSIG)``) to be killed the moment their parent ends, so
a build killed with SIGKILL, its server with it or not, takes its kernels along at once; a kernel
also watches its server (ipykernel's parent poller, every second) where that call does not exist.
The build holds each kernel by a pidfd where the system has them: it can still tell whether a
kernel runs, and signal it, once the server that forked it is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

from claimbook.common.paths import BOOK_ROOT_VARIABLE
from claimbook.common.processes import end_child
from claimbook.pipeline.lifeline import DIE_WITH_PARENT

# The server: imports, then a loop that forks kernels. It is given as source (run with -c, like
# the kernel launcher's own minimal start) so that no module of the package is imported in it
# but those the pages import.
_SERVER = (
    DIE_WITH_PARENT
    + r"""
import gc, importlib, json, os, select, signal, sys, traceback

die_with_parent(int(sys.argv[2]))  # the build
SERVER = os.getpid()
# Everything the server makes before its first fork lives as long as it does: no collection
# until then (those its imports and data set off took a fifth of its start), as Python's own
# advice for a process that forks without exec has it (``gc.freeze``'s documentation).
gc.disable()

# As ipykernel_launcher does: the working directory leaves sys.path while the kernel loads (the
# kernel's shell puts it back).
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]
import importlib.util
from ipykernel import kernelapp

# What every kernel imports as it initialises (its shell, its debugger, its completer and
# inspector, the store magic, tornado's asyncio loop), imported once here.
for name in (
    "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger", "sqlite3", "faulthandler",
    "IPython.core.debugger", "IPython.core.completerlib", "IPython.core.oinspect",
    "IPython.extensions.storemagic", "tornado.platform.asyncio",
):
    importlib.import_module(name)

for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception:  # the page imports it again and fails there, saying why
        pass
LAUNCHER = importlib.util.find_spec("ipykernel_launcher").origin  # a kernel's sys.argv[0]

# The book's data, loaded once for every page that reads the same files
# (claimbook.engine.preloaded); a page whose load fails here fails on its own, saying why.
if "claimbook.engine.context" in sys.modules:
    try:
        sys.modules["claimbook.engine.context"].preload()
    except Exception:
        pass
# The book's markup templates, compiled once for every page (a tenth of a second each).
if "claimbook.present.templating" in sys.modules:
    try:
        sys.modules["claimbook.present.templating"].compile_all()
    except Exception:  # a page that renders the broken template fails there, saying why
        pass

# What the server holds now (the modules, the data, the templates: hundreds of thousands of
# objects) stays as long as it runs: out of the collector's sight, a kernel's full collections
# no longer go through all of it (a tenth of a second each, several a page where a page reads
# every claim, and each one copying the memory it touches out of the server's). What the
# imports left unreachable stays too (a megabyte): collecting it took longer than a page's start.
gc.freeze()
gc.enable()  # (each kernel collects its own objects as any process does)


def say(message):
    os.write(1, (json.dumps(message) + "\n").encode())


def become_kernel(request):
    code = 1
    try:
        die_with_parent(SERVER)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.close(wake_read)
        os.close(wake_write)
        os.setsid()  # as jupyter_client starts a kernel: a session of its own
        os.chdir(request["cwd"])
        stream = os.open(request["stream"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.dup2(stream, 1)
        os.dup2(stream, 2)
        os.close(nothing)
        os.close(stream)
        os.environ.clear()
        os.environ.update(request["env"])
        # ipykernel reads its parent (JPY_PARENT_PID) as it is imported, here before any request:
        # it is told the server, its real parent, to watch.
        sys.argv = [LAUNCHER, *request["argv"], f"--IPKernelApp.parent_handle={SERVER}"]
        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


# A kernel's end wakes the loop at once (the signal writes to the pipe).
wake_read, wake_write = os.pipe()
os.set_blocking(wake_write, False)
signal.set_wakeup_fd(wake_write)
signal.signal(signal.SIGCHLD, lambda *_: None)
say({"ready": os.getpid()})
children = set()
buffer = b""
while True:
    readable, _, _ = select.select([0, wake_read], [], [], 1.0)
    if wake_read in readable:
        os.read(wake_read, 4096)
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if not pid:
            break
        children.discard(pid)
        say({"exited": pid, "status": os.waitstatus_to_exitcode(status)})
    if 0 not in readable:
        continue
    data = os.read(0, 65536)
    if not data:
        break
    buffer += data
    while b"\n" in buffer:
        line, buffer = buffer.split(b"\n", 1)
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            become_kernel(request)
        children.add(pid)
        say({"id": request["id"], "pid": pid})
for pid in children:
    # The kernel, then its session (a kernel forked a moment ago may not have made it yet).
    for kill in (os.kill, os.killpg):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
# Nothing of the server's needs finalizing: ending at once saves the build a few tenths of a
# second of the interpreter tearing down pandas and altair.
os._exit(0)
"""
)


class ServerGone(RuntimeError):
    """The fork server is not running (it failed to start or died)."""


class ForkedKernel:
    """A kernel the server forked, with what jupyter_client asks of a ``Popen``: ``pid``,
    ``poll``, ``wait``, ``send_signal``, ``terminate``, ``kill``.

    While the server runs it says when a kernel ends. Once it is gone (killed, or stopped), the
    kernel is looked at directly, through a pidfd where the system has them (it names this
    process and no later one with the same pid), so a kernel still running is seen, and killed."""

    stdin = stdout = stderr = None

    def __init__(self, server: KernelServer, pid: int):
        self.server, self.pid = server, pid
        self.returncode = None
        self._pidfd = _pidfd(pid)
        _LIVE.add(self)

    def poll(self):
        if self.returncode is None:
            status = self.server.exit_status(self.pid)
            if status is None and not self.server.running() and self._ended():
                status = -signal.SIGKILL  # ended with or after its server; its status went with it
            if status is not None:
                self._finished(status)
        return self.returncode

    def _ended(self) -> bool:
        if self._pidfd is not None:
            return bool(select.select([self._pidfd], [], [], 0)[0])
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # the pid is someone else's now
            return True
        return False

    def _finished(self, status: int) -> None:
        self.returncode = status
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        _LIVE.discard(self)

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        self.server.wait_exit(self.pid, timeout)
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            if self._pidfd is not None:
                select.select([self._pidfd], [], [], left)
            else:
                time.sleep(0.02 if left is None else min(0.02, left))
        return self.returncode

    def send_signal(self, signum):
        if self.poll() is not None:
            return
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signum)
            else:
                os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


def _pidfd(pid: int) -> int | None:
    """A file descriptor naming process ``pid`` (Linux 5.3 and later), or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


# The kernels of this process's pages that may still run (forked, or started afresh): what
# ``kill_kernels`` ends.
_LIVE: set = set()


def track(process) -> None:
    """Count a kernel started afresh (a ``Popen``) among those ``kill_kernels`` ends (and forget
    those that have ended)."""
    for kernel in list(_LIVE):
        if not isinstance(kernel, ForkedKernel) and kernel.returncode is not None:
            _LIVE.discard(kernel)
    if process is not None:
        _LIVE.add(process)


def kill_kernels() -> None:
    """Kill every kernel of this process's pages that still runs (an interrupted or failed
    build: its pages are abandoned, their kernels with them). A kernel started afresh leads a
    session of its own: the whole of it is killed."""
    for kernel in list(_LIVE):
        if kernel.poll() is None:
            if not isinstance(kernel, ForkedKernel):
                with contextlib.suppress(OSError):
                    os.killpg(kernel.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                kernel.kill()
        else:
            _LIVE.discard(kernel)


class KernelServer:
    """One fork server for a build: ``start`` it, ``spawn`` kernels, ``stop`` it."""

    def __init__(self, book_root, modules=()):
        self.book_root = str(book_root)
        self.modules = list(modules)
        self.process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._answers: dict[int, int] = {}
        self._exits: dict[int, int] = {}
        self._next = 0
        self._ready = False
        self._gone = False

    def start(self) -> KernelServer:
        """Start the server (its imports go on while the build does other work)."""
        environment = dict(os.environ)
        environment[BOOK_ROOT_VARIABLE] = self.book_root
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, json.dumps(self.modules), str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.book_root,
            env=environment,
            start_new_session=True,
        )
        threading.Thread(target=self._listen, args=(self.process.stdout,), daemon=True).start()
        return self

    def _listen(self, stream) -> None:
        try:
            for line in stream:
                message = json.loads(line)
                with self._changed:
                    if "ready" in message:
                        self._ready = True
                    elif "exited" in message:
                        self._exits[message["exited"]] = message["status"]
                    else:
                        self._answers[message["id"]] = message["pid"]
                    self._changed.notify_all()
        except (OSError, ValueError):  # the server died mid-line: it is gone, as at the end
            pass
        with self._changed:
            self._gone = True
            self._changed.notify_all()

    def running(self) -> bool:
        return self._alive()

    def _alive(self) -> bool:
        process = self.process
        return process is not None and not self._gone and process.poll() is None

    def spawn(self, argv: list[str], env: dict, cwd: str, stream: str) -> ForkedKernel:
        """A new kernel: ``argv`` is the kernel command after ``python -m ipykernel_launcher``;
        its output goes to the file ``stream``."""
        with self._changed:
            if not self._alive():
                raise ServerGone("the kernel server is not running")
            request_id, self._next = self._next, self._next + 1
            request = {"id": request_id, "argv": argv, "env": env, "cwd": cwd, "stream": stream}
            try:
                self.process.stdin.write((json.dumps(request) + "\n").encode())
                self.process.stdin.flush()
            except (OSError, ValueError) as exc:
                raise ServerGone(f"the kernel server is not running ({exc})") from None
            while request_id not in self._answers:
                if not self._alive():
                    raise ServerGone("the kernel server stopped")
                self._changed.wait()
            return ForkedKernel(self, self._answers.pop(request_id))

    def exit_status(self, pid: int):
        """How kernel ``pid`` ended, if the server said so; None otherwise (still running, or
        the server is gone: ``ForkedKernel.poll`` then looks at the kernel itself)."""
        with self._lock:
            return self._exits.get(pid)

    def wait_exit(self, pid: int, timeout=None) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: pid in self._exits or not self._alive(), timeout)

    def stop(self) -> None:
        """End the server; a kernel still running is killed."""
        process = self.process
        if process is None:
            return
        with self._lock:
            never_forked = self._next == 0
        if never_forked:
            # No kernel to end: a build that executes nothing (or stops at its inputs) need not
            # wait a second or more for the server to finish importing only to exit.
            process.kill()
            process.wait()
            process.stdin.close()
        else:
            end_child(process, timeout=10)
        self.process = None


FRESH_VARIABLE = "CLAIMBOOK_FRESH_KERNELS"


def available() -> bool:
    """Forking kernels needs POSIX fork; elsewhere, or with ``CLAIMBOOK_FRESH_KERNELS=1``, each
    page starts its own kernel."""
    return hasattr(os, "fork") and sys.platform != "win32" and os.environ.get(FRESH_VARIABLE) != "1"


def _same_python(executable: str) -> bool:
    import shutil

    # The very interpreter (not only the same binary: a virtual environment is a path).
    return os.path.abspath(shutil.which(executable) or executable) == os.path.abspath(sys.executable)


def launch(server: KernelServer, kernel_cmd: list[str], env: dict, cwd, stream: str) -> ForkedKernel:
    """What ``jupyter_client.launcher.launch_kernel`` would start for ``kernel_cmd``, forked by
    ``server``: the same environment (with the parent's pid, as jupyter_client sets it)."""
    if kernel_cmd[1:3] != ["-m", "ipykernel_launcher"] or not _same_python(kernel_cmd[0]):
        raise ServerGone(f"not this Python's IPython kernel: {' '.join(kernel_cmd[:3])}")
    start = 3
    environment = dict(env if env is not None else os.environ)
    environment["JPY_PARENT_PID"] = str(os.getpid())
    return server.spawn(kernel_cmd[start:], environment, str(cwd or os.getcwd()), stream)
