"""Executing one chapter template with papermill into a deterministic executed notebook."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import papermill
from papermill.exceptions import PapermillExecutionError

KERNEL = "python3"
# Metadata papermill and nbclient record that changes from run to run (times, paths).
_VOLATILE_NOTEBOOK_KEYS = ("start_time", "end_time", "duration", "input_path", "output_path", "environment_variables")
_VOLATILE_CELL_KEYS = ("papermill", "execution")


class ChapterError(RuntimeError):
    """A chapter that failed to execute; the message names the chapter and the cell."""


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
    try:
        papermill.execute_notebook(
            str(template),
            str(output),
            parameters=parameters,
            kernel_name=KERNEL,
            progress_bar=False,
            cwd=str(cwd),
        )
    except PapermillExecutionError as exc:
        raise ChapterError(
            f"chapter {name}: cell {exc.cell_index} (In [{exc.exec_count}], "
            f"`{_first_line(exc.source)}`) failed: {exc.ename}: {_first_line(str(exc.evalue))}"
        ) from None
    except Exception as exc:  # kernel start-up, unreadable template, ...
        raise ChapterError(f"chapter {name}: could not execute {template}: {type(exc).__name__}: {exc}") from exc
    notebook = make_deterministic(nbformat.read(output, as_version=4), template_label)
    temporary = output.with_suffix(".ipynb.tmp")
    nbformat.write(notebook, temporary)
    os.replace(temporary, output)
    return output
