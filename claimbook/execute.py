"""Executing one chapter template with papermill into a deterministic executed notebook."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import nbformat
import papermill
from jupyter_client import AsyncKernelManager
from papermill.exceptions import PapermillExecutionError

KERNEL = "python3"
# Metadata papermill and nbclient record that changes from run to run (times, paths).
_VOLATILE_NOTEBOOK_KEYS = ("start_time", "end_time", "duration", "input_path", "output_path", "environment_variables")
_VOLATILE_CELL_KEYS = ("papermill", "execution")


class ChapterError(RuntimeError):
    """A chapter that failed to execute; the message names the chapter and the cell."""


class _KernelWithCapturedStderr(AsyncKernelManager):
    """A kernel whose stderr goes to a file: its start-up chatter stays out of the build's
    output, and its last words are at hand if it dies."""

    stderr_file = None

    async def _async_start_kernel(self, **kw):
        if self.stderr_file is not None:
            kw.setdefault("stderr", self.stderr_file)
        return await super()._async_start_kernel(**kw)

    start_kernel = _async_start_kernel


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def make_deterministic(notebook: nbformat.NotebookNode, template: str) -> nbformat.NotebookNode:
    """Strip what varies between runs, so the same inputs give byte-identical notebooks."""
    record = notebook.metadata.get("papermill", {})
    for key in _VOLATILE_NOTEBOOK_KEYS:
        record.pop(key, None)
    record["input_path"] = template
    for index, cell in enumerate(notebook.cells):
        for key in _VOLATILE_CELL_KEYS:
            cell.metadata.pop(key, None)
        # papermill gives the cell it injects a random id; derive it from its place instead.
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell["id"] = f"injected-parameters-{index}"
    return notebook


def execute_chapter(
    name: str, template: Path, output: Path, parameters: dict, cwd: Path, template_label: str
) -> Path:
    """Run ``template`` with ``parameters`` into ``output``; raises ChapterError on failure."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(mode="w+") as kernel_stderr:
        kernel_class = type("ChapterKernel", (_KernelWithCapturedStderr,), {"stderr_file": kernel_stderr})
        try:
            papermill.execute_notebook(
                str(template),
                str(output),
                parameters=parameters,
                kernel_name=KERNEL,
                progress_bar=False,
                cwd=str(cwd),
                kernel_manager_class=kernel_class,
            )
        except PapermillExecutionError as exc:
            raise ChapterError(
                f"chapter {name}: cell {exc.cell_index} (In [{exc.exec_count}], "
                f"`{_first_line(exc.source)}`) failed: {exc.ename}: {_first_line(str(exc.evalue))}"
            ) from None
        except Exception as exc:  # kernel start-up or death, unreadable template, ...
            kernel_stderr.seek(0)
            said = [line for line in kernel_stderr.read().splitlines() if line.strip()]
            last_words = f" (kernel said: {said[-1].strip()})" if said else ""
            raise ChapterError(
                f"chapter {name}: could not execute {template}: {type(exc).__name__}: {exc}{last_words}"
            ) from exc
    notebook = make_deterministic(nbformat.read(output, as_version=4), template_label)
    temporary = output.with_suffix(".ipynb.tmp")
    nbformat.write(notebook, temporary)
    os.replace(temporary, output)
    return output
