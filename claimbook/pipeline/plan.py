"""Planning a book: which pages it has (the narrative chapters, then a page per claim), with
what parameters, and what each page's executed notebook depends on (its digest).

A page's parameters are flat, as papermill passes them: the data inputs every page reads, its
claim (``claim_id``) or its chapter's claims (``claim_ids``) and own parameters, and the claim
fields ``--param`` changes (``overrides``). Each is one its template declares in its cell tagged
``parameters`` (``declared_parameters``); one it does not declare is refused, never dropped.
"""

from __future__ import annotations

import ast
import functools
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR
from claimbook.common.errors import UsageError
from claimbook.common.paths import (
    CLAIM_TEMPLATE,
    DATA_INPUTS,
    MLPERF_DIR,
    PROJECT_ROOT,
    RESULTS,
    held_rounds,
    round_results_path,
)
from claimbook.common.suggest import closest_hint
from claimbook.pipeline import digests

# Keys of a chapter's parameters that tell the build about the page, not the page: ``standalone``,
# a page of the round with no claims of its own; ``lists_claims``, a page that reads every claim.
BUILD_KEYS = ("standalone", "lists_claims")
# Parameters whose content the digest takes from the claims themselves, not from the files.
NOT_DIGESTED = ("registry_dir", "chapters_file", "overrides")


@dataclass(frozen=True)
class Job:
    name: str  # the page's path under book/generated, without suffix: "rubin_speedup", "amd-v6.1/amd-wan-vs-b300"
    template: str
    parameters: dict
    title: str | None
    claims: tuple[str, ...]
    digest_claims: list = field(default_factory=list)
    # A page that reads every claim: what its digest takes from the registry besides the claims
    # (``reading_bases``); None for any other page.
    reading_base: list | None = None


@dataclass(frozen=True)
class Changes:
    """What the ``--param`` texts change (``claimbook.claims.params.apply``): chapters'
    parameters ``{chapter: parameters}``, claims' fields ``{claim: {path: value}}``, and the
    warnings applying them gave."""

    chapters: dict = field(default_factory=dict)
    claims: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def claim_payload(claim, registry) -> dict:
    """What a page's digest takes from the registry: the claim, its parts, its announcement's
    header and the other claims of its sentence."""
    announcement = registry.announcements[claim.announcement]
    return {
        "claim": {
            "id": claim.id,
            "statement": claim.statement,
            "kind": claim.kind,
            "fields": claim.fields,
            "parts": [claim_payload(part, registry)["claim"] for part in claim.parts],
            "result_ids": list(claim.result_ids),
            "chapter": claim.chapter,  # where its card is (a page that links it links there)
        },
        "announcement": _announcement_payload(announcement),
        "sentence": [other.fields for other in registry.sentence(claim) if other.id != claim.id],
    }


def _announcement_payload(announcement) -> dict:
    # Not where the registry file is: the same book must hash the same in every clone.
    return {key: value for key, value in announcement.__dict__.items() if key != "path"}


def plan(registry, changes: Changes = Changes(), only=(), results_path: str = RESULTS) -> list[Job]:
    """Every page of the book: the narrative chapters with claims (or of the round), then one
    page per claim that has something to show; with ``only``, those it names. A page reads the
    results of its claims' round (``page_round``): ``results_path`` is the round of the others
    (a page of the round, a chapter whose claims span rounds)."""
    common = {"results_path": results_path, **DATA_INPUTS}
    jobs = _chapter_jobs(registry, common, changes) + _claim_jobs(registry, common, changes.claims)
    announced = [{"announced": registry.announced_digest}] if registry.announced() else []
    jobs = [_on_own_round(_with_announced(job, announced), registry, results_path) for job in jobs]
    return _chosen(jobs, only, registry) if only else jobs


def _with_announced(job: Job, announced: list) -> Job:
    """A page's digest with what the claims state of earlier rounds (``announced``: the digest of
    ``Registry.announced``, where they state any): the
    book's data joins them to the earlier rounds' results, which a check that looks back reads,
    whichever claim states them."""
    if not announced:
        return job
    base = None if job.reading_base is None else [*job.reading_base, *announced]
    return replace(job, digest_claims=[*job.digest_claims, *announced], reading_base=base)


def page_round(registry, claim_ids) -> str | None:
    """The one round of the announcements of ``claim_ids`` (None for none, or several)."""
    rounds = {
        registry.announcements[claim.announcement].round
        for claim in registry.all_claims()
        if claim.id in claim_ids and claim.announcement in registry.announcements
    }
    return rounds.pop() if len(rounds) == 1 else None


def _on_own_round(job: Job, registry, results_path: str) -> Job:
    """A page reading its own round's table, where it is not the round of ``results_path``."""
    own = page_round(registry, set(job.claims))
    default_round = Path(results_path).stem
    if own is None or own == default_round:
        return job
    return replace(job, parameters={**job.parameters, "results_path": round_results_path(own)})


def _chapter_jobs(registry, common: dict, changes: Changes) -> list[Job]:
    """The narrative chapters that have claims, and the pages of the round."""
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
                every_claim = [claim_payload(claim, registry) for claim in registry.claims]
            overrides, digest_claims = dict(changes.claims), every_claim
            reading_base = [
                {"announcements": [_announcement_payload(item) for item in registry.announcements.values()]}
            ]
        else:
            reading_base = None
            overrides = {
                key: value
                for key, value in changes.claims.items()
                if key in ids or any(key.startswith(i + ".") for i in ids)
            }
            digest_claims = [claim_payload(claim, registry) for claim in claims]
        own = {
            key: value
            for key, value in dict(changes.chapters.get(name) or chapter.parameters).items()
            if key not in BUILD_KEYS
        }
        # A page of the round (standalone) has no claims of its own, and its template no claim_ids.
        claim_ids = {} if chapter.parameters.get("standalone") else {"claim_ids": list(ids)}
        parameters = {**claim_ids, **own, **common, "overrides": overrides}
        jobs.append(Job(name, chapter.template, parameters, None, ids, digest_claims, reading_base))
    return jobs


def _claim_jobs(registry, common: dict, claim_overrides: dict) -> list[Job]:
    """A page for each claim that has something to show."""
    jobs = []
    for claim in registry.page_claims():
        related = {
            claim.id,
            *(part.id for part in claim.parts),
            *(other.id for other in registry.sentence(claim)),
        }
        parameters = {
            "claim_id": claim.id,
            **common,
            "overrides": {key: value for key, value in claim_overrides.items() if key in related},
        }
        title = claim.get("title") or claim.statement
        jobs.append(
            Job(
                f"{claim.announcement}/{claim.id}",
                CLAIM_TEMPLATE,
                parameters,
                title,
                (claim.id,),
                [claim_payload(claim, registry)],
            )
        )
    return jobs


def _chosen(jobs: list[Job], only, registry) -> list[Job]:
    """The pages ``--only`` names (a page, a chapter, a claim or an announcement: every page of its
    claims); an unknown name is refused."""
    wanted = set(only)
    announced = wanted & set(registry.announcements)
    if announced:
        with_pages = {claim_id for job in jobs for claim_id in job.claims}
        of_them = {claim.id for claim in registry.all_claims() if claim.announcement in announced}
        wanted = (wanted - announced) | (of_them & with_pages)
        if not wanted:
            return []  # an announcement whose claims have no page of their own: its page alone
    known = {job.name for job in jobs} | {name.split("/")[-1] for name in (job.name for job in jobs)}
    unknown = sorted(
        name for name in wanted if name not in known and not any(name in job.claims for job in jobs)
    )
    if unknown:
        claims = [claim.id for claim in registry.all_claims()]
        if unknown[0] in claims:
            raise UsageError(
                f"--only {unknown[0]}: this claim has no page of its own (its announcement's page shows it); "
                "--only takes a page, a chapter or a claim with a page"
            )
        raise UsageError(
            f"--only {unknown[0]}: no page, chapter, claim or announcement of that name"
            f"{closest_hint(unknown[0], claims, 'claims')}; chapters: {', '.join(registry.chapters)}; "
            f"announcements: {', '.join(registry.announcements)}"
        )
    return [
        job
        for job in jobs
        if job.name in wanted or job.name.split("/")[-1] in wanted or wanted & set(job.claims)
    ]


def shown_claims(registry, pages: list[Job], only) -> tuple[set[str], list]:
    """The ids of the claims the book shows (those of its pages, and without ``--only`` those
    with no page: the ledger shows their check), and the claims with no page."""
    included = {claim_id for job in pages for claim_id in job.claims}
    text_only = [claim for claim in registry.claims if claim.chapter is None and not registry.has_page(claim)]
    if not only:
        included |= {claim.id for claim in text_only}
    else:  # an announcement named by --only shows all of its claims
        included |= {claim.id for claim in text_only if claim.announcement in set(only)}
    return included, text_only


def declared_parameters(template: Path) -> dict:
    """The parameters a template declares, with their defaults: the names its cell tagged
    ``parameters`` assigns (``name: type = literal  # help``, one a line, as papermill reads
    them), read without running it (a default that is not a literal is None)."""
    info = Path(template).stat()
    return dict(_declared(str(template), info.st_mtime_ns, info.st_size))


@functools.lru_cache(maxsize=32)
def _declared(template: str, mtime_ns: int, size: int) -> tuple:
    """(Read once per version of the file: every claim's page shares one template. As JSON, not
    with nbformat: a rebuild with nothing to do never imports it.)"""
    notebook = json.loads(Path(template).read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            source = cell.get("source", "")
            declared = []
            for node in ast.parse("".join(source) if isinstance(source, list) else source).body:
                target = node.target if isinstance(node, ast.AnnAssign) else None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                if isinstance(target, ast.Name) and node.value is not None:
                    try:
                        declared.append((target.id, ast.literal_eval(node.value)))
                    except (ValueError, TypeError, SyntaxError):
                        declared.append((target.id, None))
            return tuple(declared)
    return ()


def check_declared(root: Path, pages: list[Job]) -> None:
    """Every parameter a page is given is one its template declares: papermill would set an
    undeclared one where the template never reads it (a chapter parameter misspelt in the
    chapters' registry would change nothing); a UsageError naming it instead."""
    for job in pages:
        declared = declared_parameters(root / job.template)
        unknown = sorted(set(job.parameters) - set(declared))
        if not unknown:
            continue
        where = (
            f"{job.template}: a claim's page" if "/" in job.name else f"{CHAPTERS_FILE}: chapter {job.name}"
        )
        raise UsageError(
            f"{where}: parameter {unknown[0]} is not one its template {job.template} declares "
            f"(it declares {', '.join(declared) or 'none'})"
        )


def page_digests(root: Path, book_root: Path, pages: list[Job]) -> dict[str, str]:
    """What each page's executed notebook depends on (see ``claimbook.pipeline.digests``), once
    every page is known to be given only parameters its template declares."""
    check_declared(root, pages)
    return _digested(root, book_root, pages, lambda job: job.digest_claims)


def reading_bases(root: Path, book_root: Path, pages: list[Job]) -> dict[str, str]:
    """For each page that reads every claim, the digest of what it depends on but the claims:
    its template, parameters (the ``--param`` changes of claims among them: the page shows
    them) and files as ``page_digests`` takes them, and every announcement. Where only the
    claims changed, the build runs it again only once what it read of one of them changed
    (``claimbook.pipeline.rereading``)."""
    reading = [job for job in pages if job.reading_base is not None]
    return _digested(root, book_root, reading, lambda job: job.reading_base)


def _digested(root: Path, book_root: Path, pages: list[Job], registry_part) -> dict[str, str]:
    """Each page's digest, with what ``registry_part(job)`` takes of the registry."""
    memo: dict = {}  # the pages name the same data files and templates: each digested once
    return {
        job.name: digests.chapter_digest(
            root / job.template,
            job.parameters,
            book_root,
            registry_part(job) + _rounds_read(book_root, job),
            NOT_DIGESTED,
            memo,
        )
        for job in pages
    }


def _rounds_read(book_root: Path, job: Job) -> list:
    """For a page whose claims span rounds (where announcements of several rounds meet): every
    held round's table, which it reads beside the one its parameters name."""
    rounds = {
        payload["announcement"].get("round")
        for payload in job.digest_claims
        if isinstance(payload, dict) and isinstance(payload.get("announcement"), dict)
    }
    if len(rounds) < 2:
        return []
    held = held_rounds(book_root / MLPERF_DIR)
    return [{"rounds held": {name: digests.file_digest(path) for name, path in held.items()}}]


def committed_plan(root: Path = PROJECT_ROOT) -> tuple[list[Job], dict[str, str]]:
    """The pages of a plain build of the committed data, and their digests."""
    from claimbook.engine import load_registry

    registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
    pages = plan(registry)
    return pages, page_digests(root, root, pages)
