"""Compiling the HTML with jupyter-book, incrementally.

Sphinx keeps its environment in a work folder under ``_build/``; the staged book is copied into
it file by file, and only files whose bytes changed are rewritten (their times with them), so
Sphinx re-reads and rewrites only the pages that changed. Warnings stay errors. The finished
site is then copied out and swapped in whole (``outputs.swap_in``).
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from claimbook.common.paths import BOOK_DIR, CONFIG_FILE, TOC_FILE

WORK_DIR = ".sphinx-work"
SITE_STAMP = ".claimbook-site.json"

# A jupyter-book process that imports itself and the heaviest Sphinx extensions while the
# chapters execute, then waits for the command line of the build on its standard input (an
# empty line: nothing to do).
_WARM_BUILDER = """
import importlib, json, os, sys, traceback
from jupyter_book.cli.main import main
for name in ("sphinx.application", "myst_nb.sphinx_ext", "sphinx_book_theme", "sphinxcontrib.bibtex"):
    try:
        importlib.import_module(name)
    except Exception:  # only a head start: the build imports what it needs anyway
        pass
line = sys.stdin.readline()
code = 0
if line.strip():
    try:
        main(args=json.loads(line), prog_name="jupyter-book")
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
# Sphinx has written and closed every file: ending without the interpreter's teardown saves the
# build a third of a second (the build waits for this process to end, with work or without).
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
"""


class HtmlError(RuntimeError):
    """jupyter-book failed or warned; the message has its last warnings."""


def start_builder() -> subprocess.Popen:
    """Start a jupyter-book process early, so its imports overlap the chapters' execution."""
    return subprocess.Popen(
        [sys.executable, "-c", _WARM_BUILDER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop_builder(builder: subprocess.Popen | None) -> None:
    if builder is not None and builder.poll() is None:
        try:
            builder.communicate("\n", timeout=30)
        except subprocess.TimeoutExpired:
            builder.kill()


def book_files(root: Path) -> list[Path]:
    """The sources jupyter-book reads from a book laid out as the project is: its configuration,
    its table of contents and what is under ``book/`` (the build's staging folders aside), relative
    to ``root``."""
    files = [Path(CONFIG_FILE), Path(TOC_FILE)]
    for path in sorted((root / BOOK_DIR).rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not any(
            part.startswith((".claimbook-staging-", ".claimbook-retired-")) or part == "_build"
            for part in relative.parts
        ):
            files.append(relative)
    return [relative for relative in files if (root / relative).is_file()]


def sync(source: Path, work: Path) -> int:
    """Make ``work`` a copy of the book in ``source``, rewriting only files whose bytes differ and
    removing files ``source`` no longer has (``work`` is the build's own folder); the number
    written."""
    written = 0
    work.mkdir(parents=True, exist_ok=True)
    files = book_files(source)
    wanted = set(files) | {parent for relative in files for parent in relative.parents}
    for relative in files:
        path, target = source / relative, work / relative
        if target.is_file() and filecmp.cmp(path, target, shallow=False):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        os.utime(target)  # a changed file is newer than Sphinx's environment
        written += 1
    for path in sorted(work.rglob("*"), reverse=True):
        relative = path.relative_to(work)
        if relative.parts[:1] == ("_build",) or relative in wanted:
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return written


def documents(folder: Path) -> set[Path]:
    """The pages of a book's sources (not its build output)."""
    if not folder.is_dir():
        return set()
    return {
        path.relative_to(folder)
        for suffix in ("*.md", "*.ipynb")
        for path in folder.rglob(suffix)
        if path.relative_to(folder).parts[0] != "_build"
    }


def compile_book(book: Path, work_root: Path, builder: subprocess.Popen | None = None) -> Path:
    """Compile the staged ``book`` (its root: ``_config.yml``, ``_toc.yml``, ``book/``) in the
    work folder under ``work_root``; the HTML folder."""
    work = work_root / WORK_DIR
    before = documents(work)
    sync(book, work)
    if before != documents(work):
        # Sphinx keeps the pages of documents that are gone (a removed claim's), and does not
        # rewrite every page's navigation for one added: when the book's pages are not the same
        # ones, its output and environment start afresh.
        shutil.rmtree(work / "_build", ignore_errors=True)
    arguments = [
        "build",
        str(work),
        "--toc",
        str(work / TOC_FILE),
        "--config",
        str(work / CONFIG_FILE),
        "--builder",
        "html",
        "-W",
        "-n",
        "--keep-going",
        "--quiet",
    ]
    builder = builder if builder is not None and builder.poll() is None else start_builder()
    stdout, stderr = builder.communicate(json.dumps(arguments) + "\n")
    if builder.returncode != 0:
        output = (stderr + stdout).splitlines()
        problems = [line for line in output if "WARNING" in line or "ERROR" in line or "Error" in line]
        shown = "\n  ".join((problems or output)[-15:])
        raise HtmlError(f"jupyter-book build failed (exit {builder.returncode}):\n  {shown}")
    output = work / "_build" / "html"
    copy_static(book, output)
    return output


def copy_static(book: Path, output: Path) -> None:
    """The book's own static files (its styles, the chart bundle) copied into the site
    ``output``: an incremental Sphinx run with no page to write copies none, and the site must
    always have their latest version."""
    for static in sorted((book / BOOK_DIR / "_static").glob("*")):
        if static.is_file():
            (output / "_static").mkdir(parents=True, exist_ok=True)
            shutil.copy2(static, output / "_static" / static.name)


def site_digest(book: Path) -> str:
    """What the HTML is made from: every staged source file (the cache file aside)."""
    import hashlib

    digest = hashlib.sha256()
    for relative in book_files(book):
        if relative.name != "cache.json":
            digest.update(relative.as_posix().encode())
            digest.update((book / relative).read_bytes())
    return digest.hexdigest()


def read_stamp(html: Path, key: str = "site") -> str | None:
    """What a site was made from: ``site``, the digest of its staged sources, or ``assembly``, the
    digest of the book build that made them."""
    try:
        return json.loads((html / SITE_STAMP).read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None


def write_stamp(html: Path, stamp: str, assembly: str | None = None) -> None:
    (html / SITE_STAMP).write_text(json.dumps({"site": stamp, "assembly": assembly}) + "\n")
