"""Executing one chapter template with papermill into a deterministic executed notebook."""

from __future__ import annotations

import copy
import functools
import os
import re
from pathlib import Path

import nbformat

from claimbook.common import formatting
from claimbook.common.errors import ChapterError
from claimbook.pipeline.kernelfolders import kernel_folder

KERNEL = "python3"
# Metadata papermill and nbclient record that changes from run to run (times, paths).
_VOLATILE_NOTEBOOK_KEYS = (
    "start_time",
    "end_time",
    "duration",
    "input_path",
    "output_path",
    "environment_variables",
)
_VOLATILE_CELL_KEYS = ("papermill", "execution")


def _kernel_manager(stderr_file, book_root: Path, socket_folder: Path, server=None):
    """A kernel manager whose kernel's stderr goes to a file (its start-up chatter stays out of
    the build's output, and its last words are at hand if it dies), whose kernel reads data
    relative to the book being built, and which talks to its kernel over Unix sockets in a
    folder of its own (``_use_unix_sockets`` says why). With a ``server`` (``claimbook.pipeline.kernels``) the kernel is forked by it
    instead of started from nothing (``_adopt_forked``); everything else is the same.

    The connection file (it holds the key that signs the kernel's messages) is written in that
    folder too, not as a ``tmp*.json`` of the temporary folder: removing the folder removes it,
    however the build ends."""
    from jupyter_client import AsyncKernelManager

    from claimbook.pipeline import kernels

    class ChapterKernel(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.client_factory = _ready_client()
            self.connection_file = str(socket_folder / "kernel.json")

        async def _async_finish_shutdown(self, waittime=None, pollinterval=0.1, restart=False):
            # A page's kernel ends in milliseconds: looked for every 10 ms, not every 100.
            return await super()._async_finish_shutdown(waittime, 0.01, restart)

        async def _async_start_kernel(self, **kw):
            _use_unix_sockets(self, socket_folder)
            return await super()._async_start_kernel(**_start_arguments(kw, stderr_file, book_root))

        start_kernel = _async_start_kernel

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            if server is None:
                return await self._launch_fresh(kernel_cmd, **kw)
            try:
                process = kernels.launch(server, kernel_cmd, kw.get("env"), kw.get("cwd"), stderr_file.name)
            except kernels.ServerGone:  # the server died, or this is not its Python: a kernel from nothing
                return await self._launch_fresh(kernel_cmd, **kw)
            _adopt_forked(self, process, kw.get("cwd"))

        async def _launch_fresh(self, kernel_cmd, **kw):
            launched = await super()._async_launch_kernel(kernel_cmd, **kw)
            kernels.track(self.provisioner.process)  # killed with the others if the build stops
            return launched

    return ChapterKernel


def _use_unix_sockets(manager, socket_folder: Path) -> None:
    """The manager's kernel talks over Unix sockets in ``socket_folder``, not over TCP.

    Why not TCP: a TCP kernel's ports are picked free, closed, then bound by the kernel; two
    kernels started at once by two processes (two builds, or test workers) can pick the same
    port. The loser dies at start-up, and the client's request to it can then block forever.
    Sockets in a private folder cannot collide."""
    manager.transport = "ipc"
    manager.ip = str(socket_folder / "kernel")


def _start_arguments(kw: dict, stderr_file, book_root: Path) -> dict:
    """The kernel's start-up arguments with its stderr sent to ``stderr_file`` (unless given)
    and the book being built named in its environment, where it reads its data from."""
    from claimbook.common.paths import BOOK_ROOT_VARIABLE

    kw.setdefault("stderr", stderr_file)
    environment = dict(kw.get("env") or os.environ)
    environment[BOOK_ROOT_VARIABLE] = str(book_root)
    kw["env"] = environment
    return kw


def _adopt_forked(manager, process, cwd) -> None:
    """A kernel the server forked, recorded as LocalProvisioner.launch_kernel records the
    process it starts, so the manager stops and kills it as one of its own."""
    provisioner = manager.provisioner
    provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, process.pid
    provisioner.cwd = cwd
    manager._reconcile_connection_info(provisioner.connection_info)


def _ready_client():
    """jupyter_client's kernel client, but ready as soon as the kernel answers: its own
    ``wait_for_ready`` ends by waiting for 0.2 s of silence on IOPub to drop the start-up
    messages, on every page. Here what has arrived is dropped without waiting; a message that
    comes later is dropped by nbclient all the same (it keeps only the messages of the cell it
    runs)."""
    import time
    from queue import Empty

    from jupyter_client.asynchronous import AsyncKernelClient

    class ReadyClient(AsyncKernelClient):
        async def wait_for_ready(self, timeout=None):
            deadline = time.time() + (float("inf") if timeout is None else timeout)
            while True:  # as jupyter_client: a kernel_info reply, then IOPub heard from
                self.kernel_info()
                try:
                    reply = await self.shell_channel.get_msg(timeout=1)
                except Empty:
                    pass
                else:
                    if reply["msg_type"] == "kernel_info_reply":
                        try:
                            await self.iopub_channel.get_msg(timeout=0.2)
                        except Empty:
                            pass
                        else:
                            self._handle_kernel_info_reply(reply)
                            break
                if not await self._async_is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if time.time() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {formatting.seconds(timeout)}")
            while True:
                try:
                    await self.iopub_channel.get_msg(timeout=0)
                except Empty:
                    return

    return ReadyClient


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ARROW = re.compile(r"^-*>\s*(\d+)\s?(.*)$")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _failing_line(traceback: list[str]) -> str:
    """The line of the cell the error came from (IPython marks it with an arrow)."""
    for block in traceback:
        for line in _ANSI.sub("", block).splitlines():
            match = _ARROW.match(line.strip())
            if match:
                return f"line {match.group(1)}: `{match.group(2).strip()}`"
    return ""


def cell_id(page: str, index: int) -> str:
    """The id of a page's cell: its page's name and its place, so that no two cells of the book
    share one (every claim's page comes from one template; Jupyter Book 2 warns of repeated
    ids). An id is at most 64 letters, digits, ``-`` and ``_`` (nbformat): a name that is not
    one already (a claim's page, ``ANNOUNCEMENT/CLAIM``), or is too long, is made one and ends
    with a digest of itself, so that two names never give one id."""
    import hashlib

    suffix = f"-{index}"
    slug = re.sub(r"[^A-Za-z0-9_-]+", "_", page)
    if slug != page or len(slug) + len(suffix) > 64:
        digest = hashlib.sha256(page.encode()).hexdigest()[:8]
        slug = f"{slug[: 64 - len(suffix) - len(digest) - 1]}-{digest}"
    return slug + suffix


def make_deterministic(notebook: nbformat.NotebookNode, template: str, page: str) -> nbformat.NotebookNode:
    """Strip what varies between runs, so the same inputs give byte-identical notebooks; number
    the cells by page (``cell_id``)."""
    record = notebook.metadata.get("papermill", {})
    for key in _VOLATILE_NOTEBOOK_KEYS:
        record.pop(key, None)
    record["input_path"] = template
    for index, cell in enumerate(notebook.cells):
        for key in _VOLATILE_CELL_KEYS:
            cell.metadata.pop(key, None)
        if cell.get("outputs"):
            cell.outputs = joined_streams(cell.outputs)
        # papermill gives the cell it injects a random id, and every claim's page has its
        # template's: each takes one from its page and place instead. The page shows its
        # parameters folded at the end, so the injected cell is not rendered.
        cell["id"] = cell_id(page, index)
        if (
            "injected-parameters" in cell.metadata.get("tags", [])
            and "remove-cell" not in cell.metadata["tags"]
        ):
            cell.metadata["tags"].append("remove-cell")
    return notebook


def joined_streams(outputs: list) -> list:
    """A cell's outputs with each run of printed text on one stream as one output: the kernel
    sends what is printed whenever its flush timer fires, so the same cell can give one output
    or several. Only neighbours are joined; text printed after a chart stays after it."""
    joined = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] += output["text"]
        else:
            joined.append(output)
    return joined


def with_title(template: Path, title: str | None, folder: Path) -> Path:
    """The template with a first markdown cell holding the page's title (papermill parameters
    reach code cells only, and a page's title must be in its source)."""
    if not title:
        return template
    info = template.stat()
    notebook = copy.deepcopy(_read_template(str(template), info.st_mtime_ns, info.st_size))
    from claimbook.present.blocks import markdown_text  # a registry's title is text, never markup

    heading = nbformat.v4.new_markdown_cell("# " + markdown_text(title))
    heading["id"] = "page-title"
    notebook.cells.insert(0, heading)
    staged = folder / f".{template.stem}-titled-{os.getpid()}-{abs(hash(title)) % 10**8}.ipynb"
    nbformat.write(notebook, staged)
    return staged


@functools.lru_cache(maxsize=32)
def _read_template(path: str, mtime_ns: int, size: int) -> nbformat.NotebookNode:
    """(Read and validated once per version of the file: every claim's page shares one template.)"""
    return nbformat.read(path, as_version=4)


def _running(server):
    """The server if it can fork this page's kernel; None: start the kernel afresh."""
    return server if server is not None and server.running() else None


def execute_chapter(
    name: str,
    template: Path,
    output: Path,
    parameters: dict,
    cwd: Path,
    template_label: str,
    title: str | None = None,
    server=None,
) -> Path:
    """Run ``template`` with ``parameters`` into ``output``, the kernel reading data from the book
    root ``cwd`` (forked by ``server`` if one is given and running, else started afresh); raises
    ChapterError on failure. A page whose forked kernel died with its server (killed) runs again
    in a kernel started afresh: the server's end is the build's business, not the page's."""
    output.parent.mkdir(parents=True, exist_ok=True)
    source = with_title(template, title, output.parent)
    try:
        forked = _running(server)
        try:
            _execute(name, template, source, output, parameters, cwd, forked)
        except ChapterError:
            if forked is None or forked.running():
                raise
            _execute(name, template, source, output, parameters, cwd, None)
    finally:
        if source != template:
            source.unlink(missing_ok=True)
    notebook = make_deterministic(nbformat.read(output, as_version=4), template_label, name)
    temporary = output.with_suffix(".ipynb.tmp")
    nbformat.write(notebook, temporary)
    os.replace(temporary, output)
    return output


@functools.cache
def _local_files_without_chdir() -> None:
    """papermill's reader of local files, made to read and write without changing folders (once
    per process). Its own keeps one working folder for the whole process, set by each page's
    thread as it starts and given back as it ends, in whatever order the threads end, and moves
    the process there around every read and write: a folder of an earlier build (gone since)
    could then be the one a later build's page moved to. The build's paths are absolute."""
    from papermill.iorw import LocalHandler, papermill_io

    class LocalFiles(LocalHandler):
        def cwd(self, new_path):
            return None  # no folder of its own: every path it is given is absolute

    papermill_io.register("local", LocalFiles())


def _execute(name: str, template: Path, source: Path, output: Path, parameters: dict, cwd: Path, server):
    """One papermill run of ``source`` into ``output``, in a kernel of its own folder."""
    import papermill  # imported here: a build that executes nothing should not pay for it
    from papermill.exceptions import PapermillExecutionError

    _local_files_without_chdir()

    with (
        kernel_folder() as sockets,
        open(Path(sockets) / "stderr", "w+") as kernel_stderr,
    ):
        kernel_class = _kernel_manager(kernel_stderr, cwd, Path(sockets), server)
        try:
            papermill.execute_notebook(
                str(Path(source).absolute()),
                str(Path(output).absolute()),
                # Flat, as papermill passes them by hand: each one the template declares.
                parameters=parameters,
                kernel_name=KERNEL,
                progress_bar=False,
                # the notebook is written once at the end; saving after every cell only costs time
                request_save_on_cell_execute=False,
                # The kernel's working folder, given to the kernel alone (nbclient starts it
                # there): papermill's own ``cwd`` changes this whole process's folder around the
                # page, from each page's thread, restored in the order they end, so a build could
                # end in its staging folder and the next build's pages look for it once gone.
                resources={"metadata": {"path": str(cwd)}},
                kernel_manager_class=kernel_class,
            )
        except PapermillExecutionError as exc:
            where = _failing_line(exc.traceback or [])
            raise ChapterError(
                f"chapter {name}: cell {exc.cell_index} (In [{exc.exec_count}]{', ' + where if where else ''}) "
                f"failed: {exc.ename}: {_first_line(str(exc.evalue))}"
            ) from None
        except Exception as exc:  # kernel start-up or death, unreadable template, ...
            kernel_stderr.seek(0)
            said = [line for line in kernel_stderr.read().splitlines() if line.strip()]
            last_words = f" (kernel said: {said[-1].strip()})" if said else ""
            raise ChapterError(
                f"chapter {name}: could not execute {template}: {type(exc).__name__}: {exc}{last_words}"
            ) from exc
