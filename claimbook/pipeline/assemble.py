"""Assembling the book from its executed pages: the scorecard (the rows the pages recorded,
and the engine's for claims with no page), checked (``claimbook.pipeline.verify``); the ledger, the
announcement pages and the other generated pages; the table of contents; the costs; the cache.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, GENERATED_FILES, PROJECT_ROOT, TOC_FILE, inside
from claimbook.common.spreadsheet import safe_frame
from claimbook.pipeline import moved, verify
from claimbook.pipeline.cache import assembly_digest, write_cache
from claimbook.pipeline.load import Loaded
from claimbook.pipeline.plan import Job, committed_plan, shown_claims
from claimbook.pipeline.request import BuildRequest
from claimbook.pipeline.staging import Staged


class Assembled(NamedTuple):
    rows: list[dict]  # the scorecard
    warnings: list[str]
    assembly: str | None  # the digest of everything else the book is made of (``book_assembly``)
    moves: list  # the claims whose verdict or deciding figure moved (``engine.moves``)


def assemble(
    request: BuildRequest,
    staged: Staged,
    loaded: Loaded,
    checks: dict,
    running: frozenset = frozenset(),
    foretold: dict | None = None,
) -> Assembled:
    """Write the staged book's scorecard, generated pages, costs and cache. A disagreement or (under --strict, or a subject switched) a
    drift stops the build before anything is put in place. The notebooks of the pages
    ``running`` (still executing) are not read: a page of ``foretold`` counts with the rows
    given for it (``{page: rows}``, the build checks them once it ran), the others record none."""
    from claimbook.engine import drift, notebook_records, scorecard

    foretold = foretold or {}
    data, generated = loaded.data, staged.generated
    included, text_only = shown_claims(data.registry, staged.pages, request.only)
    notebooks = [generated / f"{job.name}.ipynb" for job in staged.pages if job.name not in running]
    rows = [
        row
        for job in staged.pages
        if job.name in foretold or job.name not in running
        for row in (
            foretold[job.name] if job.name in foretold else scorecard.collect(generated / f"{job.name}.ipynb")
        )
    ]
    rows += [
        row
        for claim in text_only
        if claim.id in included
        for row in scorecard.rows_for(checks[claim.id], claim.announcement)
    ]
    verify.agree(rows, checks)
    warnings = list(loaded.changes.warnings) + verify.missing_warnings(rows, data.registry)
    committed = drift.read_committed(request.root / BOOK_DIR / GENERATED_DIR / "scorecard.json")
    found = moved.what_moved(
        request, loaded, committed, rows, verify.check_drift(request, committed, rows, warnings)
    )
    scorecard.write(rows, generated)
    write_pages(
        staged,
        _partial(data.registry, included),
        rows,
        checks,
        data,
        moved.page_text(request, loaded, found),
        running,
    )
    _write_costs(
        [row for path in notebooks for row in notebook_records.collect(path, "costs")],
        generated / "costs.csv",
    )
    request.report(f"wrote the scorecard ({len(rows)} rows), the ledger and the announcement pages")
    assembly = book_assembly(request, staged, loaded)
    write_cache(generated, staged.digests, assembly, staged.folder / TOC_FILE, staged.reading_bases)
    return Assembled(rows, warnings, assembly, found)


def book_assembly(request: BuildRequest, staged: Staged, loaded: Loaded) -> str | None:
    """The digest of everything else the book is made of (None for a book of other results)."""
    if loaded.table is not None:
        return None
    return assembly_digest(request.root, staged.digests, loaded.changes.claims)


def _partial(registry, included: set[str]):
    """The registry restricted to the claims this book shows (all of them, unless --only)."""
    return replace(
        registry,
        claims=tuple(claim for claim in registry.claims if claim.id in included),
        announcements={
            key: value
            for key, value in registry.announcements.items()
            if any(claim.announcement == key and claim.id in included for claim in registry.claims)
        },
    )


def write_pages(
    staged: Staged,
    registry,
    rows: list[dict],
    checks: dict,
    data,
    changes: str | None = None,
    running: frozenset = frozenset(),
) -> None:
    """The generated pages of the book ``registry`` holds, and its table of contents; any other
    page an earlier build generated here goes (the folder is ours), but for the files of the
    pages still ``running`` (a page's notebook is written beside it first, then renamed)."""
    from claimbook.present import blocks, markdown_pages

    generated, round_label = staged.generated, str(data.results["round"].iloc[0])

    every_round = data.all_rounds()

    def cite(selected_rows, announcement=None):
        used = markdown_pages.used_results(selected_rows, every_round)
        return blocks.citation(
            used if not used.empty else None, announcement, data.sources or {}, result_ids=data.result_ids
        )

    front, caveats, kinds, power = GENERATED_FILES[:4]
    ledger = markdown_pages.ledger_entries(rows, registry)  # (made once: every page below reads it)
    pages_text = {
        front: markdown_pages.front_page(
            rows, registry, round_label, cite(rows), results=every_round, ledger=ledger
        ),
        caveats: markdown_pages.caveats_page(),
        kinds: markdown_pages.kinds_page(registry),
        power: markdown_pages.power_page(every_round),
    }
    pages_text.update(_announcement_pages(registry, rows, checks, data, cite, ledger))
    if changes is not None:  # an --out book from other results: what moved against the published one
        pages_text[f"{moved.PAGE}.md"] = changes
    # The table of contents lies at the root of the staged book, beside book/.
    (generated.parents[1] / TOC_FILE).write_text(
        table_of_contents(registry, staged.pages, [moved.PAGE] if changes is not None else []),
        encoding="utf-8",
    )
    for name, text in pages_text.items():
        inside(generated, name).write_text(text, encoding="utf-8")
    write_download(staged.book_root / staged.results_path, generated / "round.csv")  # the explorer's
    _remove_others(generated, set(pages_text) | set(GENERATED_FILES), running)


def _announcement_pages(registry, rows: list[dict], checks: dict, data, cite, ledger) -> dict[str, str]:
    """Each announcement's page by its file name, with the checks and the citation of its own
    claims (``cite``: the citation of the results some rows use; ``ledger``: the rows' ledger
    entries)."""
    from claimbook.present import markdown_pages

    pages = {}
    for announcement in registry.announcements.values():
        text_checks = {
            claim_id: check
            for claim_id, check in checks.items()
            if check.claim.announcement == announcement.id
        }
        own = [row for row in rows if row["announcement"] == announcement.id]
        pages[f"{announcement.id}.md"] = markdown_pages.announcement_page(
            announcement,
            rows,
            registry,
            text_checks,
            cite(own, announcement),
            results=data.round_table(announcement.round),
            ledger=ledger,
        )
    return pages


def _remove_others(generated: Path, kept: set[str], running: frozenset = frozenset()) -> None:
    """Remove the files an earlier build generated that this one did not (the notebooks are the
    pages' own, kept, and so is every file a page still ``running`` writes: ``NAME.``...)."""
    writing = tuple(f"{name}." for name in running if "/" not in name)
    for path in generated.iterdir():
        ours = path.suffix != ".ipynb" and path.name not in kept
        if ours and path.is_file() and not (writing and path.name.startswith(writing)):
            path.unlink(missing_ok=True)


def table_of_contents(registry, pages: list[Job], more: list[str] = ()) -> str:
    """The book's ``_toc.yml``: the announcements with their chapters and claim pages, the pages
    of the round, the method."""
    from claimbook.present import markdown_pages

    names = {job.name for job in pages}
    chapters = [name for name in registry.chapters if name in names and registry.chapter_claims(name)]
    round_pages = [name for name in registry.chapters if name in names and not registry.chapter_claims(name)]
    claim_pages = {name.split("/")[-1] for name in names if "/" in name}
    return markdown_pages.toc(registry, chapters, claim_pages, [*round_pages, *more])


def committed_toc(root: Path = PROJECT_ROOT) -> str:
    """The ``_toc.yml`` a plain build of the committed data writes (the committed one must be it)."""
    from claimbook.engine import load_registry

    registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
    return table_of_contents(registry, committed_plan(root)[0])


def write_download(table: Path, download: Path) -> None:
    """The tidy table ``table`` as a download: its bytes, unless a cell would run as a formula
    in a spreadsheet (``common.spreadsheet``), then its rows with those cells made text; the
    table itself is untouched."""
    import csv
    import io

    from claimbook.common.spreadsheet import safe_rows

    text = table.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    safe = safe_rows(rows)
    if safe == rows:
        shutil.copy2(table, download)
        return
    with open(download, "w", encoding="utf-8", newline="") as stream:
        csv.writer(stream, lineterminator="\n").writerows(safe)


def _write_costs(rows: list[dict], path: Path) -> None:
    """The costs the pages recorded, in one table (the economics' download)."""
    import pandas as pd

    from claimbook.engine.economics import COST_COLUMNS

    table = pd.DataFrame(rows, columns=list(COST_COLUMNS))
    safe_frame(table).to_csv(path, index=False, lineterminator="\n")  # a download (common.spreadsheet)
