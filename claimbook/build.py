"""Building the book: execute chapters, collect the scorecard, compile HTML, then publish.

Everything happens in a staging folder first. Only when every chapter ran, the scorecard was
written and the HTML compiled without a warning does the result replace the last good book,
by renames. A failure leaves the previous book exactly as it was.

A chapter is executed again only when its inputs changed: its template, its parameters, the
data files it reads, the claims registry, or the package code and pinned requirements. The
digest of those inputs is recorded in ``book/claims/cache.json``; deleting that file only
costs time. Chapters that must run execute in parallel, one kernel per chapter.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd
import yaml

from claimbook import records, scorecard
from claimbook.claims import DEFAULT_CLAIMS_PATH, ClaimsError, Registry, load_registry
from claimbook.economics import COST_COLUMNS
from claimbook.ingest import ingest, write_tidy
from claimbook.ledger import write_ledger
from claimbook.results import PROJECT_ROOT, resolve_path

BOOK_SOURCES = ("_config.yml", "_toc.yml", "book")
EXECUTED_DIR = Path("book") / "claims"
CACHE_FILE = EXECUTED_DIR / "cache.json"
STATIC_DIR = Path("book") / "_static"
HTML_DIR = Path("_build") / "html"
SITE_STAMP = ".claimbook-site.json"
# Files under book/ that the build writes besides the executed chapters.
GENERATED_PAGES = ("scorecard.json", "scorecard.csv", "ledger.md", "costs.csv")
CLAIM_FIELDS = ("benchmark", "claimed", "unit")


class BuildError(RuntimeError):
    """A build that failed; the previous book is untouched."""


class UsageError(ValueError):
    """A build asked for something that does not exist (a chapter, claim or parameter)."""


@dataclass(frozen=True)
class BuildResult:
    chapters: tuple[Path, ...]
    executed: tuple[str, ...]  # chapters whose kernels ran in this build
    scorecard_rows: int
    html: Path | None
    html_rebuilt: bool


def _digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    return _digest_bytes(Path(path).read_bytes())


def package_digest() -> str:
    """The package code, the pinned requirements and the Python version: what else shapes an output."""
    digest = hashlib.sha256()
    for path in sorted((PROJECT_ROOT / "claimbook").glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    requirements = PROJECT_ROOT / "requirements.txt"
    if requirements.is_file():
        digest.update(requirements.read_bytes())
    digest.update(f"{sys.version_info.major}.{sys.version_info.minor}".encode())
    return digest.hexdigest()


def _with_file_digests(value):
    """Parameters with every path to an existing file replaced by its content digest, so the
    digest follows what a chapter reads, not where it lies."""
    if isinstance(value, dict):
        return {key: _with_file_digests(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_file_digests(item) for item in value]
    if isinstance(value, str) and value and len(value) < 4096:
        try:
            path = resolve_path(value)
            if path.is_file():
                return f"file:{file_digest(path)}"
        except OSError:
            pass
    return value


def chapter_digest(template: Path, parameters: dict, claims_file: Path, code: str) -> str:
    """The digest of everything a chapter's executed notebook depends on."""
    inputs = {
        "template": file_digest(template),
        "parameters": _with_file_digests(parameters),
        "claims": file_digest(claims_file),
        "code": code,
    }
    return _digest_bytes(json.dumps(inputs, sort_keys=True).encode())


def resolve_targets(registry: Registry, names) -> set[str]:
    """Chapter names for ``--only``: each a chapter name or a claim id."""
    chapters = set()
    for name in names:
        if name in registry.chapters:
            chapters.add(name)
            continue
        claim = next((claim for claim in registry.claims if claim.id == name), None)
        if claim is None or claim.chapter is None:
            known = ", ".join(chapter.name for chapter in registry.written_chapters())
            raise UsageError(f"--only {name}: no chapter or checkable claim of that name; chapters: {known}")
        chapters.add(claim.chapter)
    unwritten = sorted(name for name in chapters if not registry.chapters[name].template)
    if unwritten:
        raise UsageError(f"--only: chapter(s) {', '.join(unwritten)} have no template yet")
    return chapters


def apply_override(registry: Registry, parameters: dict[str, dict], text: str) -> str:
    """Apply ``TARGET.NAME=VALUE`` (VALUE read as YAML) and return the chapter it changes.

    TARGET is a chapter name or a claim id; NAME a chapter parameter, or for a claim one of
    its figures (``claimed``, ``benchmark``, ``unit``).
    """
    target_name, equals, raw_value = text.partition("=")
    target, dot, name = target_name.rpartition(".")
    if not equals or not dot or not target or not name:
        raise UsageError(f"--param {text!r}: expected CLAIM.NAME=VALUE or CHAPTER.NAME=VALUE")
    try:
        value = yaml.safe_load(raw_value)
    except yaml.YAMLError as exc:
        raise UsageError(f"--param {text!r}: the value is not valid YAML ({exc})") from None
    claim = next((claim for claim in registry.claims if claim.id == target), None)
    chapter = target if target in registry.chapters else (claim.chapter if claim else None)
    if chapter is None or chapter not in parameters:
        known = ", ".join(sorted(parameters))
        raise UsageError(f"--param {text!r}: {target!r} is neither a built chapter nor a claim of one; chapters: {known}")
    if claim is not None and name in CLAIM_FIELDS:
        parameters[chapter]["claims"][claim.id][name] = value
        return chapter
    if name not in parameters[chapter] or name == "claims":
        known = ", ".join(key for key in parameters[chapter] if key != "claims")
        raise UsageError(f"--param {text!r}: chapter {chapter} has no parameter {name!r}; it has {known}")
    parameters[chapter][name] = value
    return chapter


def _copy_sources(root: Path, staging: Path) -> None:
    for name in BOOK_SOURCES:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, staging / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        elif source.is_file():
            shutil.copy2(source, staging / name)
        else:
            raise BuildError(f"{source}: missing; the book needs {', '.join(BOOK_SOURCES)}")


def _overlay_previous(previous_book: Path, staging: Path) -> None:
    """Bring a previous --out build's executed chapters and cache into the staging folder."""
    previous = previous_book / "claims"
    if not previous.is_dir():
        return
    # The folder's own cache decides, not the project's: deleting it there forces a full run.
    (staging / CACHE_FILE).unlink(missing_ok=True)
    for path in previous.iterdir():
        if path.suffix in (".ipynb", ".json") and path.is_file():
            shutil.copy2(path, staging / EXECUTED_DIR / path.name)


def _read_cache(path: Path) -> dict:
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def site_digest(staging: Path) -> str:
    """What the HTML is made from: the staged book sources and the code that renders them."""
    digest = hashlib.sha256(package_digest().encode())
    paths = [staging / "_config.yml", staging / "_toc.yml", *sorted((staging / "book").rglob("*"))]
    for path in paths:
        if path.is_file() and path.name != "cache.json":
            digest.update(str(path.relative_to(staging)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


# A jupyter-book process that imports itself while the chapters execute, then waits for the
# command line of the build on its standard input (an empty line: nothing to do).
_WARM_BUILDER = """
import json, sys
from jupyter_book.cli.main import main
line = sys.stdin.readline()
if line.strip():
    main(args=json.loads(line), prog_name="jupyter-book")
"""


def start_html_builder() -> subprocess.Popen:
    """Start a jupyter-book process early, so its imports overlap the chapters' execution."""
    return subprocess.Popen(
        [sys.executable, "-c", _WARM_BUILDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )


def stop_html_builder(builder: subprocess.Popen | None) -> None:
    if builder is not None and builder.poll() is None:
        builder.communicate("\n", timeout=30)


def compile_html(source: Path, bundle_cache: Path, builder: subprocess.Popen | None = None) -> Path:
    """Run jupyter-book (execution off, warnings as errors) on ``source``.

    The vega bundle takes seconds to make, so it is made once into ``bundle_cache`` (kept
    until vl-convert changes) and copied into the book's static files.
    """
    from claimbook.assets import write_vega_bundle

    bundle = write_vega_bundle(bundle_cache)
    (source / STATIC_DIR).mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle, source / STATIC_DIR / bundle.name)
    arguments = ["build", str(source), "--builder", "html", "-W", "-n", "--keep-going", "--quiet"]
    builder = builder if builder is not None and builder.poll() is None else start_html_builder()
    stdout, stderr = builder.communicate(json.dumps(arguments) + "\n")
    if builder.returncode != 0:
        output = (stderr + stdout).splitlines()
        problems = [line for line in output if "WARNING" in line or "ERROR" in line or "Error" in line]
        shown = "\n  ".join((problems or output)[-15:])
        raise BuildError(f"jupyter-book build failed (exit {builder.returncode}):\n  {shown}")
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


def _replace_if_changed(new: Path, target: Path) -> None:
    """Move ``new`` over ``target`` unless the bytes are the same (then leave the file alone)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and target.read_bytes() == new.read_bytes():
        return
    os.replace(new, target)


def _execute(jobs: list[tuple], workers: int, report: Callable[[str], None]) -> None:
    """Execute chapters, in parallel when more than one must run; the first failure stops the build."""
    from claimbook.execute import execute_chapter

    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            started = time.perf_counter()
            execute_chapter(*job)
            report(f"  executed {job[0]} ({time.perf_counter() - started:.1f} s)")
        return
    # Threads are enough: each chapter runs in its own kernel process, and a thread only waits
    # for it. (Forked worker processes can inherit a running event loop or zmq context from
    # the caller, a test runner or a notebook, and leave their kernels without an answer.)
    with ThreadPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        started = time.perf_counter()
        futures = {pool.submit(execute_chapter, *job): job[0] for job in jobs}
        try:
            for future in as_completed(futures):
                future.result()
                report(f"  executed {futures[future]} ({time.perf_counter() - started:.1f} s since start)")
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def build(
    root: Path = PROJECT_ROOT,
    results: Path | None = None,
    round_name: str | None = None,
    out: Path | None = None,
    html: bool = True,
    claims_path: str = DEFAULT_CLAIMS_PATH,
    only=None,
    overrides=(),
    jobs: int | None = None,
    force: bool = False,
    report: Callable[[str], None] = lambda message: print(message, file=sys.stderr, flush=True),
) -> BuildResult:
    """Build the book from ``root``; with ``out``, into that folder and leave ``root`` alone."""
    root = Path(root).resolve()
    claims_file = root / claims_path
    registry = load_registry(claims_file)
    chapters = registry.written_chapters()
    if not chapters:
        raise BuildError(f"{claims_file}: no chapter has a template")
    parameters = {chapter.name: registry.chapter_parameters(chapter.name) for chapter in chapters}
    for text in overrides:
        apply_override(registry, parameters, text)
    forced = resolve_targets(registry, only) if only else set()
    if force:
        forced = {chapter.name for chapter in chapters}
    workers = jobs or os.cpu_count() or 1
    target = Path(out).resolve() if out else root

    target.parent.mkdir(parents=True, exist_ok=True)
    builder = None
    staging = Path(tempfile.mkdtemp(prefix=".claimbook-build-", dir=target.parent if out else root))
    try:
        _copy_sources(root, staging)
        if out is not None:
            _overlay_previous(target / "book", staging)
        round_label = None
        if results is not None:
            report(f"ingesting {results}")
            table = ingest(results, round_name)
            round_label = str(table["round"].iloc[0])
            staged_results = write_tidy(table, staging / "data" / "mlperf" / f"{round_label}.csv")
            for chapter_parameters in parameters.values():
                chapter_parameters["results_path"] = str(staged_results)

        cache = _read_cache(staging / CACHE_FILE)
        code = package_digest()
        digests, jobs_to_run = {}, []
        for chapter in chapters:
            digests[chapter.name] = chapter_digest(root / chapter.template, parameters[chapter.name], claims_file, code)
            output = staging / EXECUTED_DIR / f"{chapter.name}.ipynb"
            fresh = cache.get(chapter.name) == digests[chapter.name] and output.is_file()
            if only and not force and chapter.name not in forced:
                if not output.is_file():
                    raise UsageError(f"--only: chapter {chapter.name} has never been built here; build it first")
                digests[chapter.name] = cache.get(chapter.name, "")
                continue
            if fresh and chapter.name not in forced:
                continue
            output.unlink(missing_ok=True)
            jobs_to_run.append((chapter.name, root / chapter.template, output, parameters[chapter.name], root, chapter.template))

        # Chapters to run mean new HTML: let jupyter-book import itself meanwhile.
        builder = start_html_builder() if html and jobs_to_run else None
        reused = [chapter.name for chapter in chapters if chapter.name not in {job[0] for job in jobs_to_run}]
        if reused:
            report(f"reusing {len(reused)} chapter(s) whose inputs did not change: {', '.join(reused)}")
        if jobs_to_run:
            report(f"executing {len(jobs_to_run)} chapter(s) on up to {min(workers, len(jobs_to_run))} worker(s): "
                   + ", ".join(job[0] for job in jobs_to_run))
            _execute(jobs_to_run, workers, report)
        (staging / CACHE_FILE).write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n")

        executed = [staging / EXECUTED_DIR / f"{chapter.name}.ipynb" for chapter in chapters]
        rows = [row for path in executed for row in scorecard.collect(path)] + scorecard.uncheckable_rows(registry)
        scorecard.write(rows, staging / "book")
        write_ledger(rows, registry, round_label or str(registry.source.get("round", "")), staging / "book" / "ledger.md")
        write_costs([row for path in executed for row in records.collect(path, "costs")], staging / "book" / "costs.csv")
        report(f"wrote the scorecard ({len(rows)} rows), the ledger and the cost table")

        html_rebuilt = False
        previous_html = target / HTML_DIR
        if html:
            stamp = site_digest(staging)
            previous_stamp = _read_cache(previous_html / SITE_STAMP).get("site")
            if previous_stamp == stamp and previous_html.is_dir():
                report("HTML is up to date")
            else:
                report("compiling HTML with jupyter-book")
                compile_html(staging, root / "_build" / "assets", builder)
                builder = None
                (staging / HTML_DIR / SITE_STAMP).write_text(json.dumps({"site": stamp}) + "\n")
                html_rebuilt = True

        if out is not None:
            if html and not html_rebuilt:
                (staging / HTML_DIR).parent.mkdir(parents=True, exist_ok=True)
                os.replace(previous_html, staging / HTML_DIR)
            _replace_tree(staging, target)
        else:
            for path in executed + [staging / CACHE_FILE] + [staging / "book" / name for name in GENERATED_PAGES]:
                _replace_if_changed(path, root / path.relative_to(staging))
            if html_rebuilt:
                _replace_tree(staging / HTML_DIR, root / HTML_DIR)
        report(
            f"built into {target}: {len(chapters)} chapter(s), {len(jobs_to_run)} executed, {len(rows)} scorecard row(s)"
            + (f", HTML in {target / HTML_DIR}" if html else "")
        )
        return BuildResult(
            tuple(target / EXECUTED_DIR / f"{chapter.name}.ipynb" for chapter in chapters),
            tuple(job[0] for job in jobs_to_run),
            len(rows),
            target / HTML_DIR if html else None,
            html_rebuilt,
        )
    except ClaimsError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        stop_html_builder(builder)
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
