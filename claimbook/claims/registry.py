"""Announcements as data: one registry file per announcement under ``data/claims/``.

A registry file has an ``announcement`` header (who, title, date, source, round) and its
``claims``; each claim has an ``id``, a paraphrased ``statement``, a ``kind`` the engine knows
and that kind's fields (selectors, the claimed value, scenarios). A claim may be made of
``parts``, each a claim of its own kind that inherits the parent's fields. Narrative chapters
(``data/chapters.yaml``) take their claims from here by ``chapter``; every other claim gets a
page of its own in its announcement's chapter. Every mistake is reported with the file, the
claim id and the field.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from claimbook.claims.fields import HELD
from claimbook.claims.parameter_values import parameter_problem
from claimbook.claims.todos import todo_fields, todo_text
from claimbook.common import identifiers
from claimbook.common.paths import (
    CHAPTERS_FILE,
    CLAIMS_DIR,
    RESERVED_NAMES,
    is_path_parameter,
    path_problem,
    resolve_path,
)
from claimbook.common.safe_read import InputError, load_yaml, read_text, read_yaml, yaml_problem

HEADER_REQUIRED = ("id", "title", "publisher", "claimant", "vendor", "date", "round")
HEADER_OPTIONAL = (
    "source_url",
    "source_label",
    "results_retrieved",
    "division",
    "result_ids",
    "note",
    "set_aside",
)
# Fields a part takes from its parent unless it sets them itself.
INHERITED = ("benchmark", "division", "subject", "scenarios", "baseline", "tolerance", "unit")
ID_PATTERN = re.compile(identifiers.ID.pattern)
# Text fields of the header shown as one line (whitespace, newlines included, collapses to a space).
HEADER_TEXT = ("title", "publisher", "claimant", "vendor", "source_label", "division", "note")
LINK_SCHEMES = ("http", "https")
TEMPLATE = re.compile(r"notebooks/[A-Za-z0-9_][A-Za-z0-9_.\-]*\.ipynb")
# A figure in a registry is a finite number of a sensible size: a claimed 400-digit figure or a
# NaN would reach the verdicts as "nan%" or overflow inside a page.
MAX_NUMBER = 1e15


# The engine's check of a claim's kind and fields: raises ValueError naming the claim and field.
Validator = Callable[["Claim"], None]
# How a file of the registry is read: ``through(part, label, paths, read)`` (``load_registry``).
Through = Callable[[str, str, tuple, Callable], object] | None


class RegistryError(ValueError):
    """A registry or chapter file that is malformed; the message names the file, claim and field."""


class UnfinishedDraft(RegistryError):
    """A registry that does not validate and still holds TODOs: a draft being filled in."""

    def __init__(self, message: str, todos: list[str]):
        super().__init__(message)
        self.todos = tuple(todos)


@dataclass(frozen=True)
class Announcement:
    id: str
    title: str
    publisher: str
    claimant: str  # the organization whose own results are a claim's natural baseline
    vendor: str  # the accelerator vendor whose platform the claims are about
    date: str
    round: str
    path: str
    source_url: str | None = None
    source_label: str = ""
    results_retrieved: str | None = None
    division: str | None = None
    result_ids: tuple[str, ...] = ()
    note: str = ""
    # Statements of the announcement the book deliberately does not judge: (paraphrase, why).
    set_aside: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Claim:
    id: str
    announcement: str
    statement: str
    kind: str
    fields: dict
    where: str  # "data/claims/x.yaml: claim ID", the prefix of every message about this claim
    chapter: str | None = None
    parts: tuple[Claim, ...] = ()
    parent: str | None = None
    result_ids: tuple[str, ...] = ()
    note: str = ""
    inherited: tuple[str, ...] = ()  # the fields a part took from its parent (not its own words)

    def get(self, name: str, default=None):
        return self.fields.get(name, default)

    @property
    def claimed(self):
        return self.fields.get("claimed")

    @property
    def unit(self) -> str:
        return str(self.fields.get("unit") or "")

    @property
    def tolerance(self) -> float:
        return float(self.fields.get("tolerance") or 0.0)


@dataclass(frozen=True)
class Chapter:
    name: str
    title: str
    template: str
    parameters: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Registry:
    announcements: dict[str, Announcement]
    claims: tuple[Claim, ...]  # top-level claims, announcements in order, claims in file order
    chapters: dict[str, Chapter]
    files: tuple[str, ...]  # the registry files read, relative to the book's root where possible
    todos: tuple[str, ...] = ()  # where the files still say TODO (claimbook.claims.todos)
    # The drafts of the folder left out, each why: files with TODOs left that do not validate yet.
    left_out: tuple[str, ...] = ()

    def left_out_note(self) -> str:
        """For a message about what the registry lacks: the drafts it left out, or ""."""
        if not self.left_out:
            return ""
        files = ", ".join(why.split(": ", 1)[0] for why in self.left_out)
        return f" ({files}: left out, a draft with TODOs left that does not validate yet)"

    def claim(self, claim_id: str) -> Claim:
        found = self._by_id.get(claim_id)
        if found is None:
            raise KeyError(f"no claim {claim_id!r} in the registry")
        return found

    def all_claims(self) -> tuple[Claim, ...]:
        """Every claim and every part, parents before their parts."""
        return self._all_claims

    # (Made once per registry, which is frozen: pages and the ledger ask for them per claim.)
    @functools.cached_property
    def _all_claims(self) -> tuple[Claim, ...]:
        found = []
        for claim in self.claims:
            found.append(claim)
            found.extend(claim.parts)
        return tuple(found)

    @functools.cached_property
    def _by_id(self) -> dict[str, Claim]:
        found: dict[str, Claim] = {}
        for claim in self._all_claims:
            found.setdefault(claim.id, claim)
        return found

    def claims_of(self, announcement: str) -> tuple[Claim, ...]:
        return tuple(claim for claim in self.claims if claim.announcement == announcement)

    def chapter_claims(self, chapter: str) -> tuple[Claim, ...]:
        return tuple(claim for claim in self.claims if claim.chapter == chapter)

    def page_claims(self) -> tuple[Claim, ...]:
        """Claims that get a page of their own: no narrative chapter, and something to compute."""
        return self._page_claims

    @functools.cached_property
    def _page_claims(self) -> tuple[Claim, ...]:
        return tuple(claim for claim in self.claims if claim.chapter is None and not _text_only(claim))

    def has_page(self, claim: Claim) -> bool:
        """Whether ``claim`` (one of this registry's) has a page of its own."""
        return claim.id in self._page_claim_ids and self._page_claim_ids[claim.id] == claim

    @functools.cached_property
    def _page_claim_ids(self) -> dict[str, Claim]:
        return {claim.id: claim for claim in self._page_claims}

    def card_page(self, claim: Claim) -> str:
        """The page that shows ``claim``'s card (its name under the generated pages): its own
        page, its narrative chapter, or its announcement's page (a claim with nothing to
        compute); a part's card is its parent's."""
        if claim.parent:
            claim = self.claim(claim.parent)
        if claim.chapter:
            return claim.chapter
        if self.has_page(claim):
            return f"{claim.announcement}/{claim.id}"
        return claim.announcement

    def announced(self) -> tuple[dict, ...]:
        """What the claims state of earlier rounds (each ``stated`` block, with what
        ``inputs.earlier.announced_figures`` reads beside it): a table every check that looks
        back on earlier rounds reads, whichever claim states it."""
        return self._announced

    @functools.cached_property
    def announced_digest(self) -> str:
        """The digest of ``announced()``, made once: every page's digest and every check's cache
        key take it."""
        text = json.dumps(self._announced, sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()

    @functools.cached_property
    def _announced(self) -> tuple[dict, ...]:
        found = []
        for claim in self.all_claims():
            stated = claim.get("stated")
            if stated:
                announcement = self.announcements[claim.announcement]
                found.append(
                    {
                        "stated": stated,
                        "subject": claim.get("subject") or {},
                        "benchmark": claim.get("benchmark"),
                        "claimant": announcement.claimant,
                        "source": f"{announcement.title} ({announcement.date})",
                    }
                )
        return tuple(found)

    def sentence(self, claim: Claim) -> tuple[Claim, ...]:
        """The claims that share ``claim``'s sentence (judged against one baseline), itself included."""
        group = claim.get("sentence")
        if not group:
            return (claim,)
        return tuple(
            other
            for other in self.all_claims()
            if other.get("sentence") == group and other.announcement == claim.announcement
        )


def _text_only(claim: Claim) -> bool:
    """A claim no data bears on and that names no results to show (it says only why it cannot be
    checked, its ``reason``, and names no ``evidence``): the announcement's page says it."""
    return claim.get("reason") is not None and not claim.get("evidence") and not claim.parts


def _where(path: str, claim_id: str | None, index: int) -> str:
    return f"{path}: claim {claim_id}" if claim_id else f"{path}: claims[{index}]"


def _claim(
    entry,
    path: str,
    index: int,
    announcement: Announcement,
    parent: dict | None = None,
    validate: Validator | None = None,
) -> Claim:
    claim_id, where = _claim_id(entry, path, index)
    values = dict(entry)
    inherited = []
    if parent is not None:
        for name in INHERITED:
            if name not in values and name in parent:
                values[name] = parent[name]
                inherited.append(name)
    parts_entries = _checked_values(values, where, parent)
    fields = {name: value for name, value in values.items() if name not in HELD}
    check_numbers(fields, where)
    claim = Claim(
        id=claim_id,
        announcement=announcement.id,
        statement=" ".join(str(values["statement"]).split()),
        kind=str(values["kind"]),
        fields=fields,
        where=where,
        chapter=values.get("chapter"),
        parent=parent["id"] if parent else None,
        result_ids=tuple(str(item) for item in values.get("result_ids") or []),
        note=" ".join(str(values.get("note") or "").split()),
        inherited=tuple(inherited),
    )
    if validate is not None:
        try:
            validate(claim)
        except ValueError as exc:
            raise RegistryError(str(exc)) from None
    parts = tuple(
        _claim(part, path, index, announcement, parent=values, validate=validate) for part in parts_entries
    )
    return Claim(**{**claim.__dict__, "parts": parts})


def _claim_id(entry, path: str, index: int) -> tuple[str, str]:
    """A claim entry's id, checked, and the prefix of every message about it."""
    if not isinstance(entry, dict):
        raise RegistryError(f"{path}: claims[{index}]: each claim must be a mapping")
    claim_id = entry.get("id")
    where = _where(path, claim_id, index)
    if not claim_id:
        raise RegistryError(f"{where}: field id: required")
    problem = identifiers.id_problem(claim_id)
    if problem:
        raise RegistryError(f"{_where(path, None, index)}: field id: {problem}")
    return claim_id, where


def _checked_values(values: dict, where: str, parent: dict | None) -> list:
    """Check the fields every claim holds (statement, kind, text, result IDs, chapter) and take
    its parts out of ``values``: the part entries, a list."""
    for required in ("statement", "kind"):
        if not values.get(required):
            raise RegistryError(f"{where}: field {required}: required")
    parts_entries = values.pop("parts", None) or []
    if parent is not None and parts_entries:
        raise RegistryError(f"{where}: field parts: a part cannot have parts of its own")
    if not isinstance(parts_entries, list):
        raise RegistryError(f"{where}: field parts: expected a list of claims")
    check_common_fields(values, where)
    return parts_entries


def check_common_fields(values: dict, where: str) -> None:
    """The fields any claim may hold, of their types: text, the list of result IDs, the chapter's
    name, the scenarios' names (a claim read from a file, and one a ``--param`` changed); no
    text holding a control or bidirectional-override character."""
    refuse_unsafe_text(values, where)
    for name in ("statement", "title", "note"):
        value = values.get(name)
        if value is not None and (not isinstance(value, (str, int, float)) or isinstance(value, bool)):
            raise RegistryError(f"{where}: field {name}: expected text")
    if not isinstance(values.get("result_ids") or [], list):
        raise RegistryError(f"{where}: field result_ids: expected a list of IDs")
    chapter = values.get("chapter")
    if chapter is not None and not isinstance(chapter, str):
        raise RegistryError(f"{where}: field chapter: expected a chapter name")
    scenarios = values.get("scenarios")
    if scenarios is not None and (
        not isinstance(scenarios, list) or not all(isinstance(item, str) for item in scenarios)
    ):
        raise RegistryError(f"{where}: field scenarios: expected a list of scenario names")


def _announcement(document: dict, path: str) -> Announcement:
    header = document.get("announcement")
    if not isinstance(header, dict):
        raise RegistryError(f"{path}: field announcement: required (who, title, date, source, round)")
    for name in HEADER_REQUIRED:
        if not header.get(name):
            raise RegistryError(f"{path}: field announcement.{name}: required")
    unknown = sorted(set(header) - set(HEADER_REQUIRED) - set(HEADER_OPTIONAL))
    if unknown:
        raise RegistryError(
            f"{path}: field announcement.{unknown[0]}: unknown; the header has "
            f"{', '.join(HEADER_REQUIRED + HEADER_OPTIONAL)}"
        )
    values = {name: header.get(name) for name in HEADER_REQUIRED + HEADER_OPTIONAL}
    values["set_aside"] = _set_aside(values["set_aside"], f"{path}: field announcement.set_aside")
    values["result_ids"] = tuple(str(item) for item in (header.get("result_ids") or ()))
    values = {
        name: (str(value) if isinstance(value, (int, float)) and name != "result_ids" else value)
        for name, value in values.items()
    }
    for name in HEADER_REQUIRED + HEADER_OPTIONAL:
        if isinstance(values[name], (dict, list)) and name not in ("result_ids", "set_aside"):
            raise RegistryError(
                f"{path}: field announcement.{name}: expected text, got a {type(values[name]).__name__}"
            )
    problem = identifiers.id_problem(values["id"])
    if problem:
        raise RegistryError(f"{path}: field announcement.id: {problem}")
    if values["id"] in RESERVED_NAMES:
        raise RegistryError(f"{path}: field announcement.id: {_reserved(values['id'])}")
    if not identifiers.is_round(values["round"]):
        raise RegistryError(
            f"{path}: field announcement.round: {identifiers.ROUND_RULE}, got {values['round']!r}"
        )
    for name in ("date", "results_retrieved"):
        if values[name] is not None:
            problem = identifiers.date_problem(values[name])
            if problem:
                raise RegistryError(f"{path}: field announcement.{name}: {problem}")
    for name in HEADER_TEXT:
        values[name] = " ".join(str(values.get(name) or "").split())
    values["division"] = values["division"] or None
    if values["source_url"] is not None:
        values["source_url"] = check_link(values["source_url"], f"{path}: field announcement.source_url")
    return Announcement(path=path, **values)


def _set_aside(entries, where: str) -> tuple[tuple[str, str], ...]:
    """``set_aside: [{text: ..., why: ...}]``: each statement set aside, paraphrased, and why."""
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise RegistryError(f"{where}: a list of {{text: ..., why: ...}}, one per statement set aside")
    found = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {"text", "why"}:
            raise RegistryError(f"{where}[{index}]: a mapping of text (the statement, paraphrased) and why")
        text, why = (" ".join(str(entry[name] or "").split()) for name in ("text", "why"))
        if (
            not text
            or not why
            or isinstance(entry["text"], (dict, list))
            or isinstance(entry["why"], (dict, list))
        ):
            raise RegistryError(f"{where}[{index}]: text and why are each one line of text, neither empty")
        found.append((text, why))
    return tuple(found)


def check_link(url, where: str) -> str:
    """A link a page may show: an absolute ``http`` or ``https`` address with a host, nothing
    else (``javascript:``, ``data:``, a relative path)."""
    text = str(url).strip()
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in LINK_SCHEMES or not parts.hostname:
        raise RegistryError(f"{where}: a link must be an http or https address, got {text[:80]!r}")
    if identifiers.has_control(text) or any(character.isspace() for character in text):
        raise RegistryError(f"{where}: a link has no spaces or control characters, got {text[:80]!r}")
    return text


def check_numbers(value, where: str, name: str | None = None) -> None:
    """Every number in a claim's fields finite and at most ``MAX_NUMBER``; ``claimed`` a number,
    or a mapping (by scenario, by baseline) of numbers."""

    def walk(item, field_name: str, claimed: bool) -> None:
        if isinstance(item, bool):
            if claimed:
                raise RegistryError(f"{where}: field {field_name}: expected a number, got {item!r}")
            return
        if isinstance(item, (int, float)):
            if isinstance(item, int) and abs(item) > MAX_NUMBER:
                raise RegistryError(
                    f"{where}: field {field_name}: {str(item)[:20]}... is not a sensible figure"
                )
            if isinstance(item, float) and not math.isfinite(item):
                raise RegistryError(f"{where}: field {field_name}: {item!r} is not a finite number")
            if abs(item) > MAX_NUMBER:
                raise RegistryError(f"{where}: field {field_name}: {item!r} is not a sensible figure")
            return
        if isinstance(item, dict):
            for key, inner in item.items():
                walk(inner, f"{field_name}.{key}", claimed)
            return
        if claimed and isinstance(item, str) and _written_figure(item) is not None:
            return  # a figure written as text keeps its precision ("2.90")
        if claimed and item is not None:
            raise RegistryError(
                f"{where}: field {field_name}: expected a number (or a mapping of numbers), got {item!r:.60}"
            )
        if isinstance(item, list):
            for position, inner in enumerate(item):
                walk(inner, f"{field_name}.{position}", claimed)

    for key, item in value.items() if name is None else [(name, value)]:
        walk(item, key, key.split(".")[0] == "claimed")


FIGURE_TEXT = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
# A number written with trailing zeros after its point ("2.90"): YAML reads it as 2.9.
TRAILING_ZEROS = re.compile(r"^[+-]?\d+\.\d*0$")


def _written_figure(text: str) -> float | None:
    """A figure written as text ("2.90", "12,198.80"), or None for text that is not one."""
    cleaned = text.strip()
    if not FIGURE_TEXT.match(cleaned):
        return None
    value = float(cleaned.replace(",", ""))
    return value if math.isfinite(value) and abs(value) <= MAX_NUMBER else None


def _keep_written_figures(document, text: str):
    """``document`` with every claimed figure written with trailing zeros (``claimed: 2.90``) as
    the text it is written with: the zeros are the figure's precision, which YAML drops."""
    if "claimed" not in text or not re.search(r"\d\.\d*0\b", text):
        return document  # (most registries: nothing to keep, and no second parse)
    for path, value in _written_figures(text):
        holder = document
        for step in path[:-1]:
            holder = holder[step] if isinstance(holder, (dict, list)) else None
        if isinstance(holder, dict) and path[-1] in holder:
            holder[path[-1]] = value
    return document


@functools.lru_cache(maxsize=64)
def _written_figures(text: str) -> tuple:
    """Where ``text`` writes a claimed figure with trailing zeros, and how: ``(path, text)``
    pairs. Found once per text in a process (a build reads each registry twice: to compare
    digests, then checked), by a second parse of the text's nodes."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    written = {}

    def walk(node, path: tuple, inside: bool) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else None
                walk(value, (*path, name), inside or name == "claimed")
        elif isinstance(node, yaml.SequenceNode):
            for index, value in enumerate(node.value):
                walk(value, (*path, index), inside)
        elif inside and node.tag.endswith(":float") and TRAILING_ZEROS.match(node.value):
            written[path] = node.value

    try:
        walk(yaml.compose(text, Loader=loader), (), False)
    except yaml.YAMLError:
        return ()
    return tuple(written.items())


def read_registry_file(
    path: Path, label: str, validate: Validator | None = None
) -> tuple[Announcement, list[Claim]]:
    """A registry file's announcement and claims, checked; an error names the file, claim and field."""
    announcement, claims, _todos = _read_file(path, label, validate)
    return announcement, claims


def _read_file(
    path: Path, label: str, validate: Validator | None = None
) -> tuple[Announcement, list[Claim], list[str]]:
    try:
        text = read_text(path, label, "registry")
        document = _keep_written_figures(load_yaml(text, label), text)
    except InputError as exc:
        raise RegistryError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise RegistryError(f"{label}{yaml_problem(exc)}") from None
    if not isinstance(document, dict):
        raise RegistryError(f"{label}: expected a mapping with 'announcement' and 'claims'")
    unknown = sorted(set(document) - {"announcement", "claims"})
    if unknown:
        raise RegistryError(
            f"{label}: field {unknown[0]}: unknown; a registry has 'announcement' and 'claims'"
        )
    refuse_unsafe_text(document, label)
    todos = todo_fields(document, label)
    try:
        announcement = _announcement(document, label)
        entries = document.get("claims")
        if not isinstance(entries, list) or not entries:
            raise RegistryError(f"{label}: field claims: a non-empty list of claims is required")
        claims = [
            _claim(entry, label, index, announcement, validate=validate)
            for index, entry in enumerate(entries)
        ]
    except RegistryError as exc:
        if todos:  # a draft: the error is most likely one of its TODOs
            raise UnfinishedDraft(f"{exc}; the file has {todo_text(todos)}", todos) from None
        raise
    return announcement, claims, todos


# What no text of a registry may hold: control characters but the line breaks and tabs YAML's
# text may carry, and the bidirectional overrides that show text in another order than it reads.
_UNSAFE_IN_REGISTRY = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def refuse_unsafe_text(value, where: str, field: str = "") -> None:
    """Every text of a parsed registry, its keys too, free of ``_UNSAFE_IN_REGISTRY``: a page would
    show a title in another order than it reads, a terminal would act on an ESC."""
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{field}.{key}" if field else str(key)
            refuse_unsafe_text(str(key), where, name)
            refuse_unsafe_text(item, where, name)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            refuse_unsafe_text(item, where, f"{field}[{index}]")
    elif isinstance(value, bytes):  # YAML's !!binary
        raise RegistryError(f"{where}: field {identifiers.terminal_text(field)[:120]}: binary data, not text")
    elif isinstance(value, str):
        found = _UNSAFE_IN_REGISTRY.search(value)
        if found:
            raise RegistryError(
                f"{where}: field {identifiers.terminal_text(field)[:120]}: holds the character "
                f"{identifiers.unsafe_character(found.group(0))} (a control or bidirectional-override "
                "character); a registry's text may not"
            )


def _chapters(path: Path, label: str) -> dict[str, Chapter]:
    if not path.is_file():
        return {}
    try:
        document = read_yaml(path, label, "chapters file") or {}
    except InputError as exc:
        raise RegistryError(str(exc)) from None
    if not isinstance(document, dict):
        raise RegistryError(f"{label}: expected a mapping of chapter name: {{title, template, parameters}}")
    refuse_unsafe_text(document, label)
    chapters = {}
    for name, entry in document.items():
        if not isinstance(entry, dict) or not entry.get("title") or not entry.get("template"):
            raise RegistryError(f"{label}: chapter {name}: needs a title and a template")
        if not isinstance(entry["title"], str):  # (a list would be its page's title as written)
            raise RegistryError(f"{label}: chapter {name}: field title: the page's title, as text")
        if not TEMPLATE.fullmatch(str(entry["template"])):
            # A template is code the build runs: only the project's own notebooks.
            raise RegistryError(
                f"{label}: chapter {name}: field template: a notebook of the project's notebooks/ "
                f"folder (notebooks/NAME.ipynb), got {str(entry['template'])[:80]!r}"
            )
        parameters = entry.get("parameters") or {}
        if not isinstance(parameters, dict):
            raise RegistryError(f"{label}: chapter {name}: field parameters: expected a mapping")
        for key, value in parameters.items():
            for item in value if is_path_parameter(key) and isinstance(value, list) else [value]:
                problem = path_problem(item) if is_path_parameter(key) else None
                if problem:
                    raise RegistryError(f"{label}: chapter {name}: field parameters.{key}: {problem}")
            problem = parameter_problem(str(key), value)
            if problem:
                raise RegistryError(f"{label}: chapter {name}: field parameters.{key}: {problem}")
        problem = identifiers.id_problem(str(name).replace("_", "-"))
        if problem:
            raise RegistryError(
                f"{label}: chapter {str(name)[:80]!r}: a chapter's name (its page's file) must use "
                "lower-case letters, digits, '_', '-' and '.'"
            )
        if str(name) in RESERVED_NAMES:
            raise RegistryError(f"{label}: chapter {name}: {_reserved(str(name))}")
        chapters[str(name)] = Chapter(
            str(name), str(entry["title"]), str(entry["template"]), dict(parameters)
        )
    return chapters


def _reserved(name: str) -> str:
    return (
        f"{name!r} is a name the book gives its own pages, files or folders "
        f"({', '.join(sorted(RESERVED_NAMES))}); choose another"
    )


def _check_names(announcements: dict[str, Announcement], claims: list[Claim], chapters: dict) -> None:
    """Names that would share a file or a ``--param``/``--only`` target: an announcement named
    as a chapter (its page would replace the chapter's), a claim named as a chapter."""
    for announcement in announcements.values():
        if announcement.id in chapters:
            raise RegistryError(
                f"{announcement.path}: field announcement.id: {announcement.id!r} is the name of a "
                "chapter of data/chapters.yaml (their pages would share a file); choose another"
            )
    for claim in claims:
        for item in (claim, *claim.parts):
            if item.id in chapters:
                raise RegistryError(
                    f"{item.where}: field id: {item.id!r} is the name of a chapter of data/chapters.yaml "
                    "(--param and --only name both); choose another"
                )


def _unique(read: list) -> tuple[dict[str, Announcement], list[Claim]]:
    """The announcements by id and their claims in order, refusing an announcement id or a claim
    id (a part's included) that two entries share."""
    announcements, claims = {}, []
    for announcement, file_claims, _todos in read:
        if announcement.id in announcements:
            raise RegistryError(
                f"{announcement.path}: field announcement.id: {announcement.id!r} is also the id of "
                f"{announcements[announcement.id].path}"
            )
        announcements[announcement.id] = announcement
        claims.extend(file_claims)
    seen: dict[str, str] = {}
    for claim in claims:
        for item in (claim, *claim.parts):
            if item.id in seen:
                raise RegistryError(
                    f"{item.where}: field id: duplicate id; {item.id!r} is also in {seen[item.id]}"
                )
            seen[item.id] = item.where.split(": claim")[0]
    return announcements, claims


def _read_now(_part: str, _label: str, _paths: tuple, read: Callable):
    return read()


def load_registry(
    claims_dir: str | os.PathLike = CLAIMS_DIR,
    chapters_file: str | os.PathLike = CHAPTERS_FILE,
    validate: Validator | None = None,
    also: str | os.PathLike | None = None,
    through: Through = None,
) -> Registry:
    """Every registry file in ``claims_dir`` (announcements in date order) and the chapters.

    ``validate``: the check of each claim's kind and fields, which the engine supplies (it knows
    the kinds; ``claimbook.engine.load_registry`` passes it). Without it the fields are not
    checked: only for a build that compares digests with its last, validated build.
    ``also``: one more registry file (a draft, anywhere), read as if it were in the folder; it
    takes the place of the folder's file of the same announcement.
    ``through``: how each file of the folder and the chapters file is read, ``through(part,
    label, (path,), read)``, the engine's way of taking what a page's kernel holds already
    (``claimbook.engine.preloaded.through``); by default, ``read()``."""
    paths = _registry_paths(claims_dir)
    through = through or _read_now
    part = "registry file" if validate is None else "registry file, checked"
    labels = {path: str(Path(claims_dir) / path.name) for path in paths}
    kept = [
        through(part, labels[path], (str(path),), lambda p=path: _read_kept(p, labels[p], validate))
        for path in paths
    ]
    read = [item[:3] for item in kept if item[0] is not None]
    left_out = tuple(item[3] for item in kept if item[0] is None)
    if also is not None:
        read = _with_draft(read, also, validate)
    read.sort(key=lambda item: (item[0].date, item[0].id))
    announcements, claims = _unique(read)
    todos = tuple(todo for item in kept if item[0] is None for todo in item[2]) + tuple(
        todo for item in read for todo in item[2]
    )
    chapters_path = resolve_path(chapters_file)
    read_chapters = lambda: _chapters(chapters_path, str(chapters_file))
    chapters = through("chapters", str(chapters_file), (str(chapters_path),), read_chapters)
    _check_names(announcements, claims, chapters)
    _check_chapters(claims, chapters, chapters_file)
    files = _files_read([*labels.values(), *([str(also)] if also else [])], announcements)
    return Registry(announcements, tuple(claims), chapters, files, todos, left_out)


def _read_kept(path: Path, label: str, validate: Validator | None) -> tuple:
    """A file of the folder as read, and "" ; a draft that does not validate yet (its TODOs left)
    is left out of the book, not an error of every command: (None, [], its TODOs, why)."""
    try:
        return (*_read_file(path, label, validate), "")
    except UnfinishedDraft as exc:
        return None, [], list(exc.todos), f"{exc}; it is left out until it validates"


def _registry_paths(claims_dir: str | os.PathLike) -> list[Path]:
    """The registry files of the folder, in name order; a missing or empty folder is an error."""
    folder = resolve_path(claims_dir)
    if not folder.is_dir():
        raise RegistryError(f"{claims_dir}: no such folder of registry files")
    paths = sorted(folder.glob("*.yaml"))
    if not paths:
        raise RegistryError(f"{claims_dir}: no registry file (*.yaml) in the folder")
    return paths


def _with_draft(read: list, also: str | os.PathLike, validate: Validator | None) -> list:
    """The files read, with the draft ``also`` in place of the file of its announcement."""
    if not Path(also).is_file():
        what = "is not a regular file" if Path(also).exists() else "no such file"
        raise RegistryError(f"{also}: {what} (a registry file, YAML)")
    extra = _read_file(Path(also), str(also), validate)
    return [item for item in read if item[0].id != extra[0].id] + [extra]


def _check_chapters(claims: list[Claim], chapters, chapters_file: str | os.PathLike) -> None:
    """Every claim that names a chapter names one of the chapters file."""
    for claim in claims:
        if claim.chapter is not None and claim.chapter not in chapters:
            raise RegistryError(
                f"{claim.where}: field chapter: {claim.chapter!r} is not a chapter of {chapters_file}; "
                f"chapters: {', '.join(chapters) or 'none'}"
            )


def _files_read(labels: list[str], announcements: dict[str, Announcement]) -> tuple[str, ...]:
    """The labels of the files whose announcement the registry holds, in reading order (a folder
    file the draft replaced is not one)."""
    kept = {announcement.path for announcement in announcements.values()}
    return tuple(label for label in labels if label in kept)
