"""Building the book: execute chapters, collect the scorecard, compile HTML, then publish.

Everything happens in a staging folder first. Only when every chapter ran, the scorecard was
written and the HTML compiled without a warning does the result replace the last good book,
by renames. A failure leaves the previous book exactly as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from claimbook import records, scorecard
from claimbook.assets import write_vega_bundle
from claimbook.claims import DEFAULT_CLAIMS_PATH, load_registry
from claimbook.execute import execute_chapter
from claimbook.economics import COST_COLUMNS
from claimbook.ingest import ingest, write_tidy
from claimbook.ledger import write_ledger
from claimbook.results import PROJECT_ROOT

BOOK_SOURCES = ("_config.yml", "_toc.yml", "book")
EXECUTED_DIR = Path("book") / "claims"
STATIC_DIR = Path("book") / "_static"
HTML_DIR = Path("_build") / "html"
# Files under book/ that the build writes besides the executed chapters.
GENERATED_PAGES = ("scorecard.json", "scorecard.csv", "ledger.md", "costs.csv")


class BuildError(RuntimeError):
    """A build that failed; the previous book is untouched."""


@dataclass(frozen=True)
class BuildResult:
    chapters: tuple[Path, ...]
    scorecard_rows: int
    html: Path | None


def _copy_sources(root: Path, staging: Path) -> None:
    for name in BOOK_SOURCES:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, staging / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        elif source.is_file():
            shutil.copy2(source, staging / name)
        else:
            raise BuildError(f"{source}: missing; the book needs {', '.join(BOOK_SOURCES)}")


def compile_html(source: Path, report: Callable[[str], None]) -> Path:
    """Run jupyter-book (execution off, warnings as errors) on ``source``."""
    # The console script installed beside this interpreter, so the venv's jupyter-book runs.
    executable = Path(sys.executable).parent / "jupyter-book"
    command = [str(executable), "build", str(source), "--builder", "html", "-W", "-n", "--keep-going", "--quiet"]
    completed = subprocess.run(command, capture_output=True, text=True, cwd=source)
    if completed.returncode != 0:
        output = (completed.stderr + completed.stdout).splitlines()
        problems = [line for line in output if "WARNING" in line or "ERROR" in line or "Error" in line]
        shown = "\n  ".join((problems or output)[-15:])
        raise BuildError(f"jupyter-book build failed (exit {completed.returncode}):\n  {shown}")
    return source / HTML_DIR


def write_costs(rows: list[dict], path: Path) -> Path:
    """The cost table the chapters recorded, as one CSV (header only if none did)."""
    pd.DataFrame(rows, columns=list(COST_COLUMNS)).to_csv(path, index=False, lineterminator="\n")
    return path


def _replace_tree(new: Path, target: Path) -> None:
    """Put ``new`` where ``target`` is with renames; the old tree goes only once the new is in."""
    target.parent.mkdir(parents=True, exist_ok=True)
    retired = None
    if target.exists():
        retired = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, retired)
    os.replace(new, target)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


def _publish_into_project(root: Path, staging: Path, chapters: list[Path], html: Path | None) -> None:
    for executed in chapters:
        destination = root / executed.relative_to(staging)
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(executed, destination)
    for name in GENERATED_PAGES:
        os.replace(staging / "book" / name, root / "book" / name)
    if html is not None:
        _replace_tree(html, root / HTML_DIR)


def build(
    root: Path = PROJECT_ROOT,
    results: Path | None = None,
    round_name: str | None = None,
    out: Path | None = None,
    html: bool = True,
    claims_path: str = DEFAULT_CLAIMS_PATH,
    report: Callable[[str], None] = lambda message: print(message, file=sys.stderr, flush=True),
) -> BuildResult:
    """Build the book from ``root``; with ``out``, into that folder and leave ``root`` alone."""
    root = Path(root).resolve()
    registry = load_registry(root / claims_path)
    chapters = registry.written_chapters()
    if not chapters:
        raise BuildError(f"{root / claims_path}: no chapter has a template")
    target_parent = (Path(out).resolve().parent if out else root)
    target_parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".claimbook-build-", dir=target_parent))
    try:
        _copy_sources(root, staging)
        results_override = None
        round_label = None
        if results is not None:
            report(f"ingesting {results}")
            table = ingest(results, round_name)
            round_label = str(table["round"].iloc[0])
            results_override = write_tidy(table, staging / "data" / "mlperf" / f"{round_label}.csv")

        executed = []
        steps = len(chapters) + (2 if html else 1)
        for number, chapter in enumerate(chapters, start=1):
            report(f"[{number}/{steps}] executing chapter {chapter.name} ({chapter.template})")
            parameters = registry.chapter_parameters(chapter.name)
            if results_override is not None:
                parameters["results_path"] = str(results_override)
            output = staging / EXECUTED_DIR / f"{chapter.name}.ipynb"
            executed.append(
                execute_chapter(chapter.name, root / chapter.template, output, parameters, root, chapter.template)
            )

        report(f"[{len(chapters) + 1}/{steps}] writing the scorecard, the ledger and the cost table")
        rows = [row for path in executed for row in scorecard.collect(path)] + scorecard.uncheckable_rows(registry)
        scorecard.write(rows, staging / "book")
        write_ledger(rows, registry, round_label or str(registry.source.get("round", "")), staging / "book" / "ledger.md")
        write_costs([row for path in executed for row in records.collect(path, "costs")], staging / "book" / "costs.csv")

        html_dir = None
        if html:
            report(f"[{steps}/{steps}] compiling HTML with jupyter-book")
            write_vega_bundle(staging / STATIC_DIR)
            html_dir = compile_html(staging, report)

        if out is not None:
            _replace_tree(staging, Path(out).resolve())
            final = Path(out).resolve()
            report(f"built into {final}")
            return BuildResult(
                tuple(final / path.relative_to(staging) for path in executed),
                len(rows),
                final / HTML_DIR if html else None,
            )
        _publish_into_project(root, staging, executed, html_dir)
        report(f"built: {len(executed)} chapter(s), {len(rows)} scorecard row(s)" + (f", HTML in {root / HTML_DIR}" if html else ""))
        return BuildResult(
            tuple(root / path.relative_to(staging) for path in executed),
            len(rows),
            root / HTML_DIR if html else None,
        )
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
