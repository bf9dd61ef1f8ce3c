"""Building the book: plan the pages, execute what changed, write the generated pages, compile
the HTML, and only then put the new book in place.

Everything is made in a staging folder laid out as the project is (``_config.yml``, ``_toc.yml``,
``book/``). The committed book (``book/generated``, every page the build generates, and the table
of contents ``_toc.yml``) and ``_build/html`` are replaced together, in one transaction, once the
whole build succeeded (``outputs.publish``), so a failure or a kill at any moment leaves the last
good book, or lets the next build finish putting the new one in place; no cleanup by hand. A
file the build did not write (its manifest in each folder says which it did) is kept.
``--out DIR`` builds a whole book (its data included) into a folder of its own; the committed
book changes only through a plain build of the committed data.

A page is executed again only when what it depends on changed (``claimbook.build.digests``); the
digests are kept in ``book/generated/cache.json``. Pages that must run execute in parallel.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from claimbook.build import digests, jupyterbook, kernelfolders, outputs
from claimbook.claims import registry as claims_registry
from claimbook.claims.params import ParamError
from claimbook.claims.params import apply as apply_params
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, RegistryError
from claimbook.common.errors import BuildError, UsageError
from claimbook.common.formatting import seconds
from claimbook.common.paths import (
    BOOK_DIR,
    CONFIG_FILE,
    GENERATED_DIR,
    PACKAGE_DIR,
    PROJECT_ROOT,
    TOC_FILE,
    TOC_HEADER,
    inside,
)
from claimbook.engine import KINDS, load_registry

CACHE_NAME = "cache.json"
CLAIM_TEMPLATE = "notebooks/claim.ipynb"
RESULTS = "data/mlperf/v6.1.csv"
# The data a book reads, relative to its root; an --out book gets its own copy.
DATA_INPUTS = {
    "earlier_paths": ["data/mlperf/earlier_rounds.csv"],
    "reference_dir": "data/reference",
    "registry_dir": CLAIMS_DIR,
    "chapters_file": CHAPTERS_FILE,
    "result_ids_path": "data/result_ids.csv",
    "sources_path": "data/mlperf/sources.csv",
}
# Keys of a chapter's parameters that tell the build about the page, not the page: ``standalone``,
# a page of the round with no claims of its own; ``lists_claims``, a page that reads every claim.
BUILD_KEYS = ("standalone", "lists_claims")
# Parameters whose content the digest takes from the claims themselves, not from the files.
NOT_DIGESTED = ("registry_dir", "chapters_file", "overrides", "book_root")


@dataclass(frozen=True)
class Job:
    name: str  # the page's path under book/generated, without suffix: "rubin_speedup", "amd-v6.1/amd-wan-vs-b300"
    template: str
    parameters: dict
    title: str | None
    claims: tuple[str, ...]
    digest_claims: list = field(default_factory=list)


@dataclass(frozen=True)
class BuildResult:
    target: Path
    pages: tuple[str, ...]
    executed: tuple[str, ...]
    scorecard_rows: int
    html: Path | None
    html_rebuilt: bool
    warnings: tuple[str, ...]


def _claim_payload(claim, registry) -> dict:
    """What a page's digest takes from the registry: the claim, its parts, its announcement's
    header and the other claims of its sentence."""
    announcement = registry.announcements[claim.announcement]
    return {
        "claim": {
            "id": claim.id,
            "statement": claim.statement,
            "kind": claim.kind,
            "fields": claim.fields,
            "parts": [_claim_payload(part, registry)["claim"] for part in claim.parts],
            "result_ids": list(claim.result_ids),
        },
        # Not where the registry file is: the same book must hash the same in every clone.
        "announcement": {key: value for key, value in announcement.__dict__.items() if key != "path"},
        "sentence": [other.fields for other in registry.sentence(claim) if other.id != claim.id],
    }


def plan(registry, common: dict, chapter_changes: dict, claim_overrides: dict, only=None) -> list[Job]:
    """Every page of the book: the narrative chapters with claims (or of the round), then one
    page per claim that has something to show."""
    jobs = []
    every_claim = None
    for name, chapter in registry.chapters.items():
        claims = registry.chapter_claims(name)
        ids = tuple(claim.id for claim in claims)
        if not claims and not chapter.parameters.get("standalone"):
            continue
        if chapter.parameters.get("lists_claims"):
            # A page that reads every claim (where the announcements meet) depends on all of them,
            # and sees every change made to one.
            if every_claim is None:
                every_claim = [_claim_payload(claim, registry) for claim in registry.claims]
            overrides, digest_claims = dict(claim_overrides), every_claim
        else:
            overrides = {
                key: value
                for key, value in claim_overrides.items()
                if key in ids or any(key.startswith(i + ".") for i in ids)
            }
            digest_claims = [_claim_payload(claim, registry) for claim in claims]
        own = {
            key: value
            for key, value in dict(chapter_changes.get(name) or chapter.parameters).items()
            if key not in BUILD_KEYS
        }
        parameters = {
            **common,
            **own,
            "claim_ids": list(ids),
            "book_root": "../",
            "overrides": overrides,
        }
        jobs.append(Job(name, chapter.template, parameters, None, ids, digest_claims))
    for claim in registry.page_claims():
        related = {
            claim.id,
            *(part.id for part in claim.parts),
            *(other.id for other in registry.sentence(claim)),
        }
        parameters = {
            **common,
            "claim_id": claim.id,
            "book_root": "../../",
            "overrides": {key: value for key, value in claim_overrides.items() if key in related},
        }
        jobs.append(
            Job(
                f"{claim.announcement}/{claim.id}",
                CLAIM_TEMPLATE,
                parameters,
                claim.get("title") or claim.statement,
                (claim.id,),
                [_claim_payload(claim, registry)],
            )
        )
    if only:
        wanted = set(only)
        known = {job.name for job in jobs} | {name.split("/")[-1] for name in (job.name for job in jobs)}
        unknown = sorted(
            name for name in wanted if name not in known and not any(name in job.claims for job in jobs)
        )
        if unknown:
            raise UsageError(
                f"--only {unknown[0]}: no page, chapter or claim of that name; chapters: "
                f"{', '.join(registry.chapters)}"
            )
        jobs = [
            job
            for job in jobs
            if job.name in wanted or job.name.split("/")[-1] in wanted or wanted & set(job.claims)
        ]
    return jobs


def page_digests(root: Path, book_root: Path, pages: list[Job]) -> dict[str, str]:
    """What each page's executed notebook depends on (see ``claimbook.build.digests``)."""
    return {
        job.name: digests.chapter_digest(
            root / job.template, job.parameters, book_root, job.digest_claims, NOT_DIGESTED
        )
        for job in pages
    }


def committed_plan(root: Path = PROJECT_ROOT) -> tuple[list[Job], dict[str, str]]:
    """The pages of a plain build of the committed data, and their digests."""
    registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
    pages = plan(registry, {"results_path": RESULTS, **DATA_INPUTS}, {}, {})
    return pages, page_digests(root, root, pages)


def _kernel_server(root: Path, registry):
    """A started fork server for the pages' kernels, with every module of the package the
    book's templates import loaded; None where kernels cannot be forked."""
    from claimbook.build import kernels

    if not kernels.available():
        return None
    templates = {chapter.template for chapter in registry.chapters.values()} | {CLAIM_TEMPLATE}
    modules = sorted(
        {
            name
            for template in templates
            if (root / template).is_file()
            for name in digests.template_modules(root / template)
        }
    )
    return kernels.KernelServer(root, modules).start()


def _execute(jobs: list[tuple], workers: int, report: Callable[[str], None], server=None) -> None:
    """Execute pages, in parallel when more than one must run; the first failure stops the build."""
    from claimbook.build.execute import execute_chapter

    started = time.perf_counter()
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            execute_chapter(*job, server)
            report(f"  executed {job[0]} ({seconds(time.perf_counter() - started)})")
        return
    # Threads are enough: each page runs in its own kernel process, and a thread only waits for it.
    with ThreadPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        futures = {pool.submit(execute_chapter, *job, server): job[0] for job in jobs}
        try:
            for future in as_completed(futures):
                future.result()
                report(f"  executed {futures[future]} ({seconds(time.perf_counter() - started)} since start)")
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _read_cache(path: Path) -> dict:
    """The page digests of the last build (``pages``) and the digest of everything else that
    went into the book (``assembly``)."""
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"pages": {}}
    if not isinstance(cache, dict) or not isinstance(cache.get("pages"), dict):
        return {"pages": {}}
    return cache


def assembly_digest(root: Path, page_digests_: dict, overrides: dict) -> str:
    """Everything a book is made of besides its pages: the package code (the ledger, the
    scorecard, the generated pages are made in the build), the registries, the data, the book's
    hand-written sources, the pins."""
    inputs = {
        "pages": page_digests_,
        "overrides": overrides,
        "package": digests.folder_digest(PACKAGE_DIR),
        "config": digests.file_digest(root / CONFIG_FILE),
        "data": digests.folder_digest(root / "data"),
        "environment": digests.environment_digest(),
        "book": {
            path.relative_to(root / BOOK_DIR).as_posix(): digests.file_digest(path)
            for path in sorted((root / BOOK_DIR).rglob("*"))
            if path.is_file() and path.relative_to(root / BOOK_DIR).parts[0] not in (GENERATED_DIR, "_build")
        },
    }
    return digests.bytes_digest(json.dumps(inputs, sort_keys=True, default=str).encode())


def _nothing_changed(target: Path, pages: list[Job], wanted: dict, assembly: str, html_output: bool) -> bool:
    """Whether the target already holds this very book: every page current, nothing else changed."""
    generated = target / BOOK_DIR / GENERATED_DIR
    cache = _read_cache(generated / CACHE_NAME)
    if cache.get("pages") != wanted or cache.get("assembly") != assembly:
        return False
    if not all((generated / f"{job.name}.ipynb").is_file() for job in pages):
        return False
    toc = target / TOC_FILE
    if not toc.is_file() or digests.file_digest(toc) != cache.get("toc"):
        return False
    site = target / "_build" / "html"
    return not html_output or (site.is_dir() and jupyterbook.read_stamp(site, "assembly") == assembly)


def _unchanged(target: Path, pages: list[Job], html_output: bool, warnings, report) -> BuildResult:
    """The answer of a build whose target already holds this very book: nothing is written."""
    report(f"nothing changed: {target} holds this book already ({len(pages)} page(s))")
    site = target / "_build" / "html" if html_output else None
    return BuildResult(target, tuple(job.name for job in pages), (), 0, site, False, tuple(warnings))


def _check_toc(target: Path, new: Path) -> None:
    """The table of contents is the build's own, written from the registries: one changed since
    the build wrote it (its digest is in the cache) is someone's work, and is not replaced (unless
    it already says what the new one says)."""
    toc = target / TOC_FILE
    if not toc.is_file() or toc.read_bytes() == new.read_bytes():
        return
    written = _read_cache(target / BOOK_DIR / GENERATED_DIR / CACHE_NAME).get("toc")
    if written is None:  # no cache (deleting it only costs time): the build's own says so at its top
        with open(toc, encoding="utf-8", errors="replace") as stream:
            if stream.readline().rstrip("\n") == TOC_HEADER:
                return
    if digests.file_digest(toc) != written:
        raise UsageError(
            f"{toc}: changed since the build wrote it; the build writes it from data/chapters.yaml and "
            "the registries in data/claims/, so restore it (git checkout) or remove it to have it written "
            "again (nothing was written)"
        )


def _copy_sources(root: Path, staging: Path, with_data: bool) -> None:
    """The book's hand-written sources (not its generated pages), and for an --out book its data."""
    shutil.copy2(root / CONFIG_FILE, staging / CONFIG_FILE)
    shutil.copytree(
        root / BOOK_DIR,
        staging / BOOK_DIR,
        ignore=shutil.ignore_patterns(
            GENERATED_DIR,
            "_build",
            ".ipynb_checkpoints",
            "__pycache__",
            f"{outputs.STAGING_PREFIX}*",
            f"{outputs.RETIRED_PREFIX}*",
        ),
        dirs_exist_ok=True,
    )
    if with_data:
        for relative in [
            *DATA_INPUTS["earlier_paths"],
            DATA_INPUTS["result_ids_path"],
            DATA_INPUTS["sources_path"],
            DATA_INPUTS["chapters_file"],
            RESULTS,
            "data/prices/gpu_hour_prices.csv",
        ]:
            source = root / relative
            if source.is_file():
                (staging / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, staging / relative)
        for folder in (DATA_INPUTS["reference_dir"], DATA_INPUTS["registry_dir"]):
            shutil.copytree(root / folder, staging / folder, dirs_exist_ok=True)


def _seed_generated(previous: Path, staging_claims: Path) -> None:
    """The pages an earlier build executed and their digests, so unchanged ones are reused
    (everything else there is written anew; a file of the user's is carried over at the end,
    and never reaches the HTML)."""
    staging_claims.mkdir(parents=True, exist_ok=True)
    if not previous.is_dir():
        return
    for path in [previous / CACHE_NAME, *sorted(previous.rglob("*.ipynb"))]:
        if path.is_file() and not path.is_symlink():
            destination = staging_claims / path.relative_to(previous)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)


def book_data(root: Path, table=None, overrides=None, registry_file=None):
    """What the book of ``root`` reads, loaded the one way (``claimbook.engine.context``): ``table`` in
    place of the committed round, ``registry_file`` in place of its announcement's registry."""
    from claimbook.engine.context import load_data

    return load_data(
        str(root / RESULTS),
        [str(root / path) for path in DATA_INPUTS["earlier_paths"]],
        str(root / DATA_INPUTS["reference_dir"]),
        str(root / CLAIMS_DIR),
        str(root / CHAPTERS_FILE),
        overrides,
        str(root / DATA_INPUTS["result_ids_path"]),
        str(root / DATA_INPUTS["sources_path"]),
        results_table=table,
        registry_file=registry_file,
    )


def _check_systems(data, registry) -> None:
    """A selector naming a system no data the book knows has is a registry mistake (a typo),
    not a missing result: an error naming the file, the claim, the field and the closest real
    names. A system may be named by the book's id, its SystemName or its result folder, in any
    case, spacing and punctuation (``claimbook.claims.selectors``)."""
    from claimbook.inputs.names import closest, squash

    frames = [data.results, data.earlier]
    committed = PROJECT_ROOT / RESULTS
    if committed.is_file():
        from claimbook.inputs.results import load_results

        frames.append(load_results(committed))
    names = set()
    for frame in frames:
        for column in ("system", "system_name"):
            if column in frame:
                names |= {str(value) for value in frame[column].dropna()}
        if "location" in frame:
            names |= {str(value) for value in frame["location"].dropna()}
            names |= {
                str(value).split("/results/")[0]
                + "/results/"
                + str(value).split("/results/")[1].split("/")[0]
                for value in frame["location"].dropna()
                if "/results/" in str(value)
            }
    known = {squash(name) for name in names}

    def systems(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "system":
                    yield from (item if isinstance(item, list) else [item])
                else:
                    yield from systems(item)
        elif isinstance(value, list):
            for item in value:
                yield from systems(item)

    ids = sorted({str(value) for frame in frames for value in frame["system"].dropna()})
    for claim in registry.all_claims():
        for name, value in claim.fields.items():
            for system in systems(value):
                if squash(system) not in known:
                    near = closest(system, ids)
                    raise UsageError(
                        f"{claim.where}: field {name}: unknown system {system!r}; no results file the "
                        "book has names it (as its id, SystemName or result folder)"
                        + (f"; closest: {', '.join(near)}" if near else "")
                    )


def _check_selections(data, registry) -> None:
    """Every selector that takes one result per case and finds several without saying how they
    combine: one error listing them all (a claim must always mean the same results)."""
    from claimbook import engine
    from claimbook.engine.core import ClaimSpecError

    found = []
    for claim in registry.claims:
        try:
            found += engine.audit(claim, data)
        except ClaimSpecError as exc:
            found.append(str(exc))
    if found:
        more = f" (and {len(found) - 1} more: {' / '.join(found[1:])})" if len(found) > 1 else ""
        raise UsageError(found[0] + more)


def _missing_warnings(rows: list[dict], registry) -> list[str]:
    from claimbook.present import markdown_pages

    warnings = []
    for claim_id, claim_rows in markdown_pages._rows_by_claim(rows).items():
        missing = sorted({text for row in claim_rows for text in row.get("missing") or []})
        claim = registry.claim(claim_id)
        where = claim.chapter or f"{claim.announcement}/{claim.parent or claim.id}"
        # Every missing item at once: fixing one must not reveal the next only on the next build.
        for text in missing:
            warnings.append(
                f"warning: page {where}: claim {claim_id} cannot be checked, {text}; point it elsewhere "
                f"with --param {claim_id}.{_selector_path(claim, text)}=NAME (or another field of the "
                "selector)"
            )
    return warnings


def _drift(root: Path, rows: list[dict], strict: bool, warnings: list[str], report) -> None:
    """Claims that now stand on other results than the committed scorecard records, in one list
    before anything is written; a subject moved to another organization's system (always), or
    any drift under --strict, stops the build."""
    from claimbook.engine import drift

    committed = drift.read_committed(root / BOOK_DIR / GENERATED_DIR / "scorecard.json")
    found = drift.compare(committed, rows)
    if not found:
        return
    report(f"drift: {len(found)} claim(s) now stand on other results than the committed scorecard records:")
    for item in found:
        report(f"  {item.text()}")
    switched = [item for item in found if item.switched]
    if switched or strict:
        for warning in warnings:  # what else the build found, before it stops
            report(warning)
    if switched:
        raise BuildError(
            f"claim {switched[0].claim}: its subject moved to another organization's system in "
            f"{', '.join(switched[0].switched)} (see the drift list above); a claim never switches its "
            "subject silently: name the system in the registry (or --param); nothing was written"
        )
    if strict:
        raise BuildError(
            f"--strict: {len(found)} claim(s) now stand on other results ({', '.join(d.claim for d in found)}; "
            "see the drift list above); nothing was written"
        )
    warnings += [f"warning: drift: {item.text()}" for item in found]


def _selector_path(claim, missing: str) -> str:
    """The --param path of the selector field a "no result" text names: ``subject.system``,
    ``rows.family``, or ``items.1.family`` for the second item of a list."""
    import re

    role = missing.split(" ", 1)[0].split(":")[0]
    column = re.search(r"no result with (\w+)=", missing)
    column = column.group(1) if column else "system"
    if role == "item":
        labels = [
            item.get("label", "") if isinstance(item, dict) else "" for item in claim.get("items") or []
        ]
        index = next(
            (
                position
                for position, label in enumerate(labels)
                if label and missing.startswith(f"item {label} (")
            ),
            None,
        )
        role = f"items.{index if index is not None else 0}"
    return f"{role}.{column}"


def build(
    root: Path = PROJECT_ROOT,
    results: Path | None = None,
    round_name: str | None = None,
    out: Path | None = None,
    html_output: bool = True,
    only=None,
    overrides=(),
    jobs: int | None = None,
    force: bool = False,
    strict: bool = False,
    report: Callable[[str], None] = lambda message: print(message, file=sys.stderr, flush=True),
) -> BuildResult:
    """Build the book from ``root``: the committed book (plain build) or a whole book in ``out``.

    Everything that can be wrong with the inputs (the output folder, the registry, the parameters,
    the results file, the systems the claims name) is checked before anything is written.
    """
    root = Path(root).resolve()
    if out is None and (results is not None or overrides or only):
        what = "--results" if results is not None else "--param" if overrides else "--only"
        raise UsageError(
            f"{what} builds a book from other inputs; give --out DIR for it (the committed book is "
            "built only from the committed data, by a plain build)"
        )
    target = outputs.check_out_folder(out, root) if out is not None else root
    # One lock for every writer of the project: a plain build holds it alone, an --out build
    # shares it (it reads the project's data and book), from before the registry is read until
    # the book is in place; an ingest or another build meanwhile is refused, with one line.
    with outputs.Lock(root, shared=out is not None), kernelfolders.removed_on_terminate():
        return _build_target(
            root, target, results, round_name, out, html_output, only, overrides, jobs, force, strict, report
        )


def _build_target(
    root, target, results, round_name, out, html_output, only, overrides, jobs, force, strict, report
) -> BuildResult:
    kernelfolders.remove_dead()  # those of builds killed outright
    # A plain rebuild of unchanged inputs is answered from digests alone; it needs no engine (nor
    # pandas) to validate claims its last build validated. Any other build validates them below.
    quick = results is None and not force and out is None and not overrides and not only
    try:
        registry = (
            claims_registry.load_registry(
                root / CLAIMS_DIR, root / CHAPTERS_FILE
            )  # checked by the last build
            if quick
            else load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
        )
        chapter_changes, claim_overrides, warnings = apply_params(overrides, registry, KINDS)
    except (RegistryError, ParamError) as exc:
        raise UsageError(str(exc)) from None
    if only:  # a name that is no page is refused before the target is made
        plan(registry, {"results_path": RESULTS, **DATA_INPUTS}, chapter_changes, claim_overrides, only)
    if quick:
        # A plain rebuild with nothing changed is answered before the data is even loaded (unless a
        # killed build left folders to clear: that takes the lock, below).
        pages = plan(
            registry, {"results_path": RESULTS, **DATA_INPUTS}, chapter_changes, claim_overrides, only
        )
        wanted = page_digests(root, root, pages)
        if not outputs.has_leftovers(target) and _nothing_changed(
            target, pages, wanted, assembly_digest(root, wanted, claim_overrides), html_output
        ):
            return _unchanged(target, pages, html_output, warnings, report)
    # The pages' kernels come from a fork server (``claimbook.build.kernels``) whose imports go on
    # while the data loads; it ends with the build, however the build ends.
    server = _kernel_server(root, registry)
    try:
        options = (results, round_name, out, html_output, only, jobs, force, strict, report)
        return _load_and_build(root, target, server, options, (chapter_changes, claim_overrides, warnings))
    finally:
        if server is not None:
            server.stop()


def _load_and_build(root, target, server, options, changes) -> BuildResult:
    """The build once its inputs are read: the data loaded and checked, then the pages."""
    results, round_name, out, html_output, only, jobs, force, strict, report = options
    chapter_changes, claim_overrides, warnings = changes
    from claimbook.inputs.ingest import ingest

    table = None
    try:
        if results is not None:
            report(f"ingesting {results}")
            table = _as_read(ingest(results, round_name))
        data = book_data(root, table, claim_overrides)
        _check_systems(data, data.registry)
        _check_selections(data, data.registry)
    except (RegistryError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if out is not None:
        outputs.mark_out_folder(target)
    build_dir = target / "_build"
    build_dir.mkdir(parents=True, exist_ok=True)
    with outputs.Lock(target) if out is not None else contextlib.nullcontext():
        outputs.clear_leftovers(target)  # a swap a kill interrupted is finished first
        wanted = None
        if table is None and not force:
            pages = plan(
                data.registry,
                {"results_path": RESULTS, **DATA_INPUTS},
                chapter_changes,
                claim_overrides,
                only,
            )
            wanted = page_digests(root, root, pages)
            if _nothing_changed(
                target, pages, wanted, assembly_digest(root, wanted, claim_overrides), html_output
            ):
                return _unchanged(target, pages, html_output, warnings, report)
        staging = Path(build_dir / f"{outputs.STAGING_PREFIX}{os.getpid()}")
        staging.mkdir()
        try:
            return _build_in(
                root,
                target,
                staging,
                data,
                table,
                chapter_changes,
                claim_overrides,
                list(warnings),
                out is not None,
                html_output,
                only,
                jobs,
                force,
                strict,
                report,
                wanted,
                server,
            )
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _build_in(
    root,
    target,
    staging,
    data,
    table,
    chapter_changes,
    claim_overrides,
    warnings,
    to_out,
    html_output,
    only,
    jobs_wanted,
    force,
    strict,
    report,
    known_digests=None,
    server=None,
) -> BuildResult:
    """The build proper, in ``staging``. ``known_digests``: the pages' digests if the caller has
    them already (a build of the committed data: the same pages, the same inputs)."""
    from claimbook import engine
    from claimbook.engine import notebook_records, scorecard
    from claimbook.inputs.ingest import write_tidy

    book_root = staging if to_out else root  # where the kernels read data from
    _copy_sources(root, staging, with_data=to_out)
    results_path = RESULTS
    if table is not None:
        results_path = f"data/mlperf/{table['round'].iloc[0]}.csv"
        write_tidy(table, inside(staging, results_path))
    common = {"results_path": results_path, **DATA_INPUTS}
    pages = plan(data.registry, common, chapter_changes, claim_overrides, only)

    generated = staging / BOOK_DIR / GENERATED_DIR
    previous = target / BOOK_DIR / GENERATED_DIR
    _seed_generated(previous if previous.is_dir() else root / BOOK_DIR / GENERATED_DIR, generated)
    cache = _read_cache(generated / CACHE_NAME)["pages"]
    wanted_digests, to_run = known_digests or page_digests(root, book_root, pages), []
    for job in pages:
        template = root / job.template
        digest = wanted_digests[job.name]
        output = inside(generated, f"{job.name}.ipynb")
        if not force and cache.get(job.name) == digest and output.is_file():
            continue
        output.unlink(missing_ok=True)
        to_run.append((job.name, template, output, job.parameters, book_root, job.template, job.title))
    _remove_stale(generated, {job.name for job in pages})
    if server is not None and not to_run:
        server.stop()  # nothing to execute
    builder = jupyterbook.start_builder() if html_output and to_run else None
    try:
        reused = len(pages) - len(to_run)
        if reused:
            report(f"reusing {reused} page(s) whose inputs did not change")
        included = {claim_id for job in pages for claim_id in job.claims}
        text_only = [
            claim
            for claim in data.registry.claims
            if claim.chapter is None and claim not in data.registry.page_claims()
        ]
        if not only:
            included |= {claim.id for claim in text_only}

        # The engine checks the claims of the pages executed now (their pages must agree with it)
        # and the claims with no page (the ledger shows its check); a reused page was checked by
        # the build that made it, from inputs its digest proves unchanged.
        executed_claims = {
            claim_id for job in pages if job.name in {run[0] for run in to_run} for claim_id in job.claims
        }
        checked = included & (executed_claims | {claim.id for claim in text_only})

        def check_all() -> dict:
            return {
                claim.id: engine.check(claim, data) for claim in data.registry.claims if claim.id in checked
            }

        if to_run:
            # One more kernel than cores: each spends part of its time starting up and waiting.
            workers = jobs_wanted or (os.cpu_count() or 1) + 1
            report(f"executing {len(to_run)} page(s) on up to {min(workers, len(to_run))} worker(s)")
            # The engine's checks (for the ledger and the agreement test) need no page: they are
            # made while the kernels run, which leaves this process waiting anyway.
            with ThreadPoolExecutor(max_workers=1) as checker:
                pending = checker.submit(check_all)
                _execute(to_run, workers, report, server)
                checks = pending.result()
            if server is not None:
                server.stop()  # its memory is the HTML's now
        else:
            checks = check_all()

        notebooks = [generated / f"{job.name}.ipynb" for job in pages]
        rows = [row for path in notebooks for row in scorecard.collect(path)]
        rows += [
            row
            for claim in text_only
            if claim.id in included
            for row in scorecard.rows_for(checks[claim.id], claim.announcement)
        ]
        _agree(rows, checks)
        warnings += _missing_warnings(rows, data.registry)
        _drift(root, rows, strict, warnings, report)
        partial = _partial(data.registry, included)
        scorecard.write(rows, generated)
        round_label = str(data.results["round"].iloc[0])
        _write_pages(generated, partial, rows, checks, round_label, pages, book_root / results_path, data)
        _write_costs(
            [row for path in notebooks for row in notebook_records.collect(path, "costs")],
            generated / "costs.csv",
        )
        report(f"wrote the scorecard ({len(rows)} rows), the ledger and the announcement pages")

        assembly = None if table is not None else assembly_digest(root, wanted_digests, claim_overrides)
        (generated / CACHE_NAME).write_text(
            json.dumps(
                {
                    "pages": wanted_digests,
                    "assembly": assembly,
                    "toc": digests.file_digest(staging / TOC_FILE),
                },
                indent=2,
                sort_keys=True,
            )
            + "\n"
        )
        html_folder, rebuilt = None, False
        if html_output:
            html_folder, rebuilt = _compile(root, target, staging, builder, report, assembly)
            builder = None
        _publish(target, staging, to_out, html_folder, rebuilt, report)
    finally:
        jupyterbook.stop_builder(builder)
    for warning in warnings:
        report(warning)
    report(
        f"built into {target}: {len(pages)} page(s), {len(to_run)} executed, {len(rows)} scorecard row(s)"
        + (f", HTML in {target / '_build' / 'html'}" if html_output else "")
    )
    if strict and any(warning.startswith("warning: page") for warning in warnings):
        claims = {
            w.split(": claim ", 1)[1].split(" ", 1)[0] for w in warnings if w.startswith("warning: page")
        }
        items = sum(w.startswith("warning: page") for w in warnings)
        raise BuildError(
            f"--strict: {len(claims)} claim(s) found no result for {items} item(s) they name (see the "
            "warnings above); the book was written"
        )
    return BuildResult(
        target,
        tuple(job.name for job in pages),
        tuple(job[0] for job in to_run),
        len(rows),
        target / "_build" / "html" if html_output else None,
        rebuilt,
        tuple(warnings),
    )


def _as_read(table):
    """An ingested table as a page will read it back from its file (the same types)."""
    import tempfile

    from claimbook.inputs.ingest import write_tidy
    from claimbook.inputs.results import load_results

    with tempfile.TemporaryDirectory() as folder:
        return load_results(write_tidy(table, Path(folder) / "results.csv"))


def _remove_stale(generated: Path, names: set[str]) -> None:
    """Executed pages of claims or chapters the plan no longer has (only the build's own files)."""
    for path in generated.rglob("*.ipynb"):
        name = path.relative_to(generated).with_suffix("").as_posix()
        if name not in names:
            path.unlink()
    for folder in sorted((path for path in generated.rglob("*") if path.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


def _agree(rows: list[dict], checks: dict) -> None:
    """The scorecard the pages recorded and the checks the build made must say the same."""
    for row in rows:
        check = checks.get(row["claim"]) or (checks.get(row["part_of"]) if row.get("part_of") else None)
        if check is None:
            continue
        if row["claim"] == check.claim.id and row["verdict"] != check.verdict:
            raise BuildError(
                f"claim {row['claim']}: its page says {row['verdict']!r} but the engine says "
                f"{check.verdict!r}; rebuild with --force"
            )


def _partial(registry, included: set[str]):
    """The registry restricted to the claims this book shows (all of them, unless --only)."""
    from dataclasses import replace

    return replace(
        registry,
        claims=tuple(claim for claim in registry.claims if claim.id in included),
        announcements={
            key: value
            for key, value in registry.announcements.items()
            if any(claim.announcement == key and claim.id in included for claim in registry.claims)
        },
    )


def _write_pages(
    generated: Path,
    registry,
    rows: list[dict],
    checks: dict,
    round_label: str,
    pages,
    results_file: Path,
    data,
) -> None:
    """The generated pages; any other page an earlier build generated here goes (the folder is ours)."""
    from claimbook.present import blocks, markdown_pages

    def cite(selected_rows, announcement=None):
        used = markdown_pages.used_results(selected_rows, data.results)
        return blocks.citation(
            used if not used.empty else None, announcement, data.sources or {}, result_ids=data.result_ids
        )

    pages_text = {
        "front.md": markdown_pages.front_page(rows, registry, round_label, cite(rows)),
        "caveats.md": markdown_pages.caveats_page(),
        "kinds.md": markdown_pages.kinds_page(registry),
    }
    for announcement in registry.announcements.values():
        text_checks = {
            claim_id: check
            for claim_id, check in checks.items()
            if check.claim.announcement == announcement.id
        }
        own = [row for row in rows if row["announcement"] == announcement.id]
        pages_text[f"{announcement.id}.md"] = markdown_pages.announcement_page(
            announcement, rows, registry, text_checks, cite(own, announcement)
        )
    # The table of contents lies at the root of the staged book, beside book/.
    (generated.parents[1] / TOC_FILE).write_text(table_of_contents(registry, pages), encoding="utf-8")
    for name, text in pages_text.items():
        inside(generated, name).write_text(text, encoding="utf-8")
    shutil.copy2(results_file, generated / "round.csv")  # the explorer's download
    kept = set(pages_text) | {"round.csv", CACHE_NAME, "scorecard.json", "scorecard.csv", "costs.csv"}
    for path in generated.iterdir():
        if path.is_file() and path.suffix != ".ipynb" and path.name not in kept:
            path.unlink()


def table_of_contents(registry, pages: list[Job]) -> str:
    """The book's ``_toc.yml``: the announcements with their chapters and claim pages, the pages
    of the round, the method."""
    from claimbook.present import markdown_pages

    names = {job.name for job in pages}
    chapters = [name for name in registry.chapters if name in names and registry.chapter_claims(name)]
    round_pages = [name for name in registry.chapters if name in names and not registry.chapter_claims(name)]
    claim_pages = {name.split("/")[-1] for name in names if "/" in name}
    return markdown_pages.toc(registry, chapters, claim_pages, round_pages)


def committed_toc(root: Path = PROJECT_ROOT) -> str:
    """The ``_toc.yml`` a plain build of the committed data writes (the committed one must be it)."""
    registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
    return table_of_contents(registry, committed_plan(root)[0])


def _write_costs(rows: list[dict], path: Path) -> None:
    import pandas as pd

    from claimbook.engine.economics import COST_COLUMNS

    pd.DataFrame(rows, columns=list(COST_COLUMNS)).to_csv(path, index=False, lineterminator="\n")


def _compile(root: Path, target: Path, staging: Path, builder, report, assembly) -> tuple[Path | None, bool]:
    """The HTML, unless the staged book is byte for byte what the current HTML was made from."""
    from claimbook.build.assets import write_vega_bundle

    # The bundle takes seconds to make: made once per target (an --out book never writes into the
    # project), copied from the project's own when it has one.
    assets = target / "_build" / "assets"
    project_bundle = root / "_build" / "assets" / "claimbook-vega.js"
    if target != root and project_bundle.is_file() and not (assets / project_bundle.name).is_file():
        assets.mkdir(parents=True, exist_ok=True)
        shutil.copy2(project_bundle, assets / project_bundle.name)
    bundle = write_vega_bundle(assets)
    static = staging / BOOK_DIR / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle, static / bundle.name)
    stamp = jupyterbook.site_digest(staging)
    current = target / "_build" / "html"
    if current.is_dir() and jupyterbook.read_stamp(current) == stamp:
        report("HTML is up to date")
        jupyterbook.stop_builder(builder)
        if (
            jupyterbook.read_stamp(current, "assembly") != assembly
        ):  # the same site, now known to come from this book
            jupyterbook.write_stamp(current, stamp, assembly)
        return None, False
    report("compiling HTML with jupyter-book")
    compiled = jupyterbook.compile_book(staging, target / "_build", builder)
    fresh = staging / "html"
    shutil.copytree(compiled, fresh)
    jupyterbook.write_stamp(fresh, stamp, assembly)
    return fresh, True


def _publish(
    target: Path, staging: Path, to_out: bool, html_folder: Path | None, rebuilt: bool, report
) -> None:
    """Put the new book in place: every folder it replaces in one transaction
    (``outputs.publish``). A file someone else put in a folder the build replaces (one its
    manifest does not list) is carried into the new version first; each new folder records in
    its manifest what the build wrote there; every file written follows the user's umask."""
    build_dir = target / "_build"
    _check_toc(target, staging / TOC_FILE)
    if to_out:
        pairs = [(staging / BOOK_DIR, target / BOOK_DIR), (staging / "data", target / "data")]
        files = [CONFIG_FILE, TOC_FILE]
    else:
        pairs = [(staging / BOOK_DIR / GENERATED_DIR, target / BOOK_DIR / GENERATED_DIR)]
        files = [TOC_FILE]
    if rebuilt and html_folder is not None:
        pairs.append((html_folder, build_dir / "html"))
    pairs = [(new, old) for new, old in pairs if new.is_dir()]
    kept = []
    for new, old in pairs:
        ours = outputs.read_manifest(old)
        if ours is None and old.is_relative_to(build_dir) and old.is_dir():
            ours = {path.relative_to(old).as_posix() for path in old.rglob("*")}  # _build/ is ours
        carried = outputs.carry_over(old, new, ours)
        kept += [f"{old.relative_to(target).as_posix()}/{name}" for name in carried]
        outputs.write_manifest(new, exclude=set(carried))
        outputs.follow_umask(new)
    if kept:
        report(f"kept {len(kept)} file(s) the build did not make: {', '.join(kept[:5])}")
    # The table of contents first: a build killed after it leaves one that says what the next
    # build's will say (the check above lets it be replaced).
    for name in files:
        outputs.follow_umask(staging / name)
        outputs.replace_file(staging / name, target / name)
    outputs.publish(pairs, build_dir)
