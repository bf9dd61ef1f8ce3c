"""The claims registry (``data/claims.yaml``): every claim, its figures and its chapter."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from claimbook.results import resolve_path

DEFAULT_CLAIMS_PATH = "data/claims.yaml"


class ClaimsError(ValueError):
    """A claims registry that is malformed; the message names the claim and the field."""


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    kind: str
    figure: float | None = None
    unit: str = ""
    benchmark: str | None = None
    systems: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = ()
    result_ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # organizations a claim names (e.g. its partners)
    chapter: str | None = None
    uncheckable_reason: str | None = None


@dataclass(frozen=True)
class Chapter:
    name: str
    title: str
    template: str | None  # None: the chapter is planned, not written yet
    parameters: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Registry:
    source: dict
    claims: tuple[Claim, ...]
    chapters: dict[str, Chapter]

    def claim(self, claim_id: str) -> Claim:
        for claim in self.claims:
            if claim.id == claim_id:
                return claim
        raise KeyError(f"no claim {claim_id!r} in the registry")

    def claims_of(self, chapter: str) -> tuple[Claim, ...]:
        return tuple(claim for claim in self.claims if claim.chapter == chapter)

    def written_chapters(self) -> tuple[Chapter, ...]:
        """Chapters that have a template, in registry order."""
        return tuple(chapter for chapter in self.chapters.values() if chapter.template)

    def chapter_parameters(self, chapter: str) -> dict:
        """Parameters papermill passes to a chapter: its own, plus its claims' figures."""
        parameters = dict(self.chapters[chapter].parameters)
        parameters["claims"] = {
            claim.id: {"benchmark": claim.benchmark, "claimed": claim.figure, "unit": claim.unit}
            | ({"names": list(claim.names)} if claim.names else {})
            for claim in self.claims_of(chapter)
        }
        return parameters


_CLAIM_FIELDS = {f for f in Claim.__dataclass_fields__}


def _claim(where: str, entry: dict) -> Claim:
    if not isinstance(entry, dict):
        raise ClaimsError(f"{where}: each claim must be a mapping")
    unknown = sorted(set(entry) - _CLAIM_FIELDS)
    if unknown:
        raise ClaimsError(f"{where}: unknown field(s) {', '.join(unknown)}")
    for required in ("id", "statement", "kind"):
        if not entry.get(required):
            raise ClaimsError(f"{where}: field {required!r} is required")
    if entry.get("chapter") is None and not entry.get("uncheckable_reason"):
        raise ClaimsError(f"{where} ({entry['id']}): a claim needs a chapter or an uncheckable_reason")
    figure = entry.get("figure")
    if figure is not None and not isinstance(figure, (int, float)):
        raise ClaimsError(f"{where} ({entry['id']}): figure must be a number, got {figure!r}")
    values = dict(entry)
    for name in ("systems", "scenarios", "result_ids", "names"):
        values[name] = tuple(str(item) for item in entry.get(name) or ())
    if figure is not None:
        values["figure"] = float(figure)
    return Claim(**values)


def load_registry(path: str | os.PathLike = DEFAULT_CLAIMS_PATH) -> Registry:
    path = resolve_path(path)
    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ClaimsError(f"{path}: cannot read the claims registry ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise ClaimsError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(document, dict) or "claims" not in document:
        raise ClaimsError(f"{path}: expected a mapping with 'source', 'claims' and 'chapters'")
    claims = tuple(_claim(f"{path}: claims[{index}]", entry) for index, entry in enumerate(document["claims"]))
    ids = [claim.id for claim in claims]
    repeated = sorted({claim_id for claim_id in ids if ids.count(claim_id) > 1})
    if repeated:
        raise ClaimsError(f"{path}: claim id(s) {', '.join(repeated)} appear more than once")
    chapters = {}
    for name, entry in (document.get("chapters") or {}).items():
        if not isinstance(entry, dict) or not entry.get("title"):
            raise ClaimsError(f"{path}: chapter {name!r} needs a title")
        chapters[name] = Chapter(name, entry["title"], entry.get("template"), dict(entry.get("parameters") or {}))
    for claim in claims:
        if claim.chapter is not None and claim.chapter not in chapters:
            raise ClaimsError(f"{path}: claim {claim.id} names chapter {claim.chapter!r}, which is not defined")
    return Registry(dict(document.get("source") or {}), claims, chapters)
