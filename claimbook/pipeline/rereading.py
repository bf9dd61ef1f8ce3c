"""A page that reads every claim (where the announcements meet) run again only where what it
read changed.

Its digest takes every claim (``plan``), so any edit of any claim changes it. But the page reads
of each claim only a part of its check (``crossref.Seen``), and records the digest of that part
for each claim it read (``crossref.READINGS``). Where nothing but claims changed since it ran
(``plan.reading_bases``: its template, parameters, files and the announcements the same), the
build checks the claims it checks anyway (those of the pages it runs, and those with no page:
every other claim's page is reused, so its inputs are unchanged), and compares what the page
would read of each with what it recorded: the same for every claim, in the same order, and the
page is the one it would make again, and is reused.

Only for a plain book of the committed results whose page reads the data the build reads (its
parameters name the build's files and the build's ``--param`` changes), and never with
``--force`` or ``--only`` (a book of some pages checks the claims of those pages alone).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from claimbook.common.errors import BuildError
from claimbook.common.paths import DATA_INPUTS, RESULTS, inside
from claimbook.pipeline.cache import CACHE_NAME, read_cache, reading_bases_of
from claimbook.pipeline.load import Loaded
from claimbook.pipeline.plan import Job
from claimbook.pipeline.request import BuildRequest


def rereadable(
    loaded: Loaded, generated: Path, pages: list[Job], wanted: dict, bases: dict
) -> frozenset[str]:
    """The pages that read every claim whose claims alone changed since they ran (their digest
    differs, their reading base does not), and whose last run is there to be reused: each is
    run only if what it reads of a claim changed (``settle``). (A book of every page: a build
    with ``--only`` checks only the claims of the pages it builds, and one with ``--force`` runs
    every page.)"""
    if loaded.table is not None or not bases:
        return frozenset()
    cache = read_cache(generated / CACHE_NAME)
    pages_cache, bases_cache = cache["pages"], reading_bases_of(cache)
    return frozenset(
        job.name
        for job in pages
        if job.name in bases
        and pages_cache.get(job.name) != wanted[job.name]
        and bases_cache.get(job.name) == bases[job.name]
        and _reads_the_builds_data(job, loaded)
        and inside(generated, f"{job.name}.ipynb").is_file()
    )


def _reads_the_builds_data(job: Job, loaded: Loaded) -> bool:
    """Whether the page's kernel reads the data the build read: the same files, the same claim
    changes (what it would read is then what the build's checks give)."""
    read = {**DATA_INPUTS, "results_path": RESULTS, "overrides": dict(loaded.changes.claims)}
    return all(job.parameters.get(name) == value for name, value in read.items())


def settle(request: BuildRequest, staged, loaded: Loaded, keep_old: bool = False) -> tuple[object, dict]:
    """The staged book with its rereadable pages settled: those that would read what they
    recorded are not run (their last run stays, said in one line), the others are (their last
    run removed, as for any page that runs, but with ``keep_old``: ``claimbook preview`` shows
    it until the new one replaces it); and the engine's checks made on the way, which the
    build then takes rather than checking again. The claims are checked one by one, in the
    page's order, up to the first that it would read otherwise: the page runs, and the build
    checks the others while the pages run, as it does for any page."""
    if not staged.rereadable:
        return staged, {}
    from claimbook.engine import crossref, notebook_records
    from claimbook.pipeline.load import judged
    from claimbook.pipeline.run import checked_now

    data, registry = loaded.data, loaded.data.registry
    checked, checks = checked_now(registry, staged, request.only), {}
    of_round = [
        claim.id
        for claim in registry.claims
        if registry.announcements[claim.announcement].round == data.round
    ]

    def reading_of(claim_id: str) -> str | None:
        # What the page would read of the claim now; None for a claim not checked now (its page
        # is reused: it is what it was).
        if claim_id not in checked:
            return None
        if claim_id not in checks:
            checks[claim_id] = judged(registry.claim(claim_id), data)
        return crossref.reading(crossref.seen(checks[claim_id], registry))

    reused = set()
    for name in sorted(staged.rereadable):
        output = inside(staged.generated, f"{name}.ipynb")
        try:
            recorded = notebook_records.collect(output, crossref.READINGS)
        except (OSError, BuildError):  # (not a page a build wrote: it runs, and is written anew)
            recorded = None
        if recorded is not None and _reads_the_same(recorded, of_round, reading_of):
            reused.add(name)
            request.report(f"reusing {name}: what it reads of each claim did not change")
        elif not keep_old:
            output.unlink(missing_ok=True)  # (a page that runs is written anew, never in place)
    to_run = [job for job in staged.to_run if job[0] not in reused]
    return replace(staged, to_run=to_run, rereadable=frozenset()), checks


def _reads_the_same(recorded: list, of_round: list[str], reading_of) -> bool:
    """Whether a page that recorded ``recorded`` would read the same now: the same claims in the
    same order (``of_round``), and of each the reading it recorded (``reading_of(claim)``: None
    where the claim is what it was), asked in that order up to the first that differs."""
    if not all(isinstance(row, dict) and isinstance(row.get("reading"), str) for row in recorded):
        return False  # (not a record this page makes: it runs)
    if [row.get("claim") for row in recorded] != of_round:
        return False
    return all(reading_of(row["claim"]) in (None, row["reading"]) for row in recorded)
