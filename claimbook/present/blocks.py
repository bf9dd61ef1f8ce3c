"""What a page shows readers: verdict cards, caveat badges, tables and citations, as escaped
HTML with a plain-text twin.

Text from a results file (system names, organizations) reaches these pages; the markup is written
by the autoescaping templates of ``templates/`` (``present.templating``), every value escaped by
``escape``, so markup in the data shows as text and never runs. Tables scroll
inside their own box, numbers are right-aligned with thousands separators, and each badge says
its verdict in an icon and a word, never by colour alone.
"""

from __future__ import annotations

import functools
import html
import math
import re
from typing import NamedTuple
from urllib.parse import quote

import numpy as np
import pandas as pd
from markupsafe import Markup

from claimbook.common import formatting
from claimbook.engine import caveats, quantifiers
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS
from claimbook.inputs.names import squash
from claimbook.inputs.rules import location_parts
from claimbook.present import links as addresses  # (``links`` is a table's argument)
from claimbook.present.templating import escape, macro, macros, render, trusted

RESULTS_REPOSITORY = "https://github.com/mlcommons/inference_results_{round}/tree/main/{path}"
TRADEMARK = (
    "The MLPerf name and logo are registered and unregistered trademarks of MLCommons Association in the "
    "United States and other countries. All rights reserved. Unauthorized use strictly prohibited. See "
    "www.mlcommons.org for more information."
)
NOT_VERIFIED = "Result not verified by MLCommons Association."
# Icon, word and CSS class of each verdict: the icon and the word say it; colour only repeats it.
BADGES = {
    SUPPORTED: ("✔", "supported", "supported"),
    SUPPORTED_WITH_CAVEATS: ("◐", "supported with caveats", "caveats"),
    NOT_SUPPORTED: ("✘", "not supported", "not-supported"),
    CANNOT_BE_CHECKED: ("?", "cannot be checked", "unchecked"),
}


_LITERAL = re.compile(r"``(.+?)``")


def prose_html(text) -> str:
    """Text written for the package's own readers (a docstring, a field's meaning) as HTML: escaped,
    its reStructuredText literals (double backticks) set as code, never shown as backticks."""
    return str(_BADGES.prose(_LITERAL.split(" ".join(str(text).split()))))


def prose_text(text) -> str:
    """The same text as plain text: the literals without their backticks."""
    return _LITERAL.sub(r"\1", str(text))


# The characters that start inline markup in MyST: escapes, code, emphasis, roles and
# substitutions, links and images, HTML and entities, math, strikethrough, tables, headings.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>&$~|!#])")

_BLOCK_STARTS = set(":%-+>=.,;'()")


def markdown_text(text) -> str:
    """Text from data as MyST Markdown that renders exactly as that text: one line (no newline
    can start a block, a fence or a directive), and every character that could start markup
    backslash-escaped (so ``<script>`` is no tag, ``[x](javascript:...)`` no link, ``{role}`` no
    role, ``$`` no math). Plain words and ``.,:;'()%-`` are left as they are."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    # A line that starts with ``:::``, ``%``, ``-``, ``+``, ``>`` or ``=`` starts a block (a fence,
    # a comment, a list, a quote): its first character is escaped too.
    if escaped[:1] in _BLOCK_STARTS:
        escaped = "\\" + escaped
    return escaped


def provenance_url(round_name: str, location: str) -> str:
    """The public folder of a result: MLCommons publishes each round in its own repository. Built
    from the Location's checked segments only (``inputs.rules.location_parts``: no ``..``, no
    backslash), each quoted, so the link stays in that repository; a Location that is not a
    result's folder (the loaders refuse it) is a ValueError, never a link."""
    return _provenance_url(str(round_name), str(location))


@functools.lru_cache(maxsize=65_536)  # (a result is linked from its ledger line, its card, the citations)
def _provenance_url(round_name: str, location: str) -> str:
    parts = location_parts(location)
    if parts is None:
        raise ValueError(f"Location {str(location)[:200]!r} is not a result's folder; no link is made to it")
    path = "/".join(quote(part, safe="") for part in parts)
    return RESULTS_REPOSITORY.format(round=quote(str(round_name), safe=""), path=path)


def badge(verdict: str) -> str:
    return str(_BADGES.badge(*BADGES[verdict]))


# The book's own words a reader meets in a card's prose and the citation, by the caveat that
# defines them on the method page.
TERMS = ("inferred", "derived-metric")
_TAG_OR_LINK = re.compile(r"(<a\b.*?</a>|<[^>]+>)", re.DOTALL)


def defined_terms(markup: str, book_root: str = "") -> str:
    """Escaped ``markup`` with the first use of each of the book's own terms (``TERMS``: "inferred
    result", "derived by this book"), outside a tag or a link, linked to its definition on the
    method page, the definition on hover as the caveat badges have it."""
    for code in TERMS:
        caveat = caveats.BY_CODE[code]
        pieces = _TAG_OR_LINK.split(markup)
        for index, piece in enumerate(pieces):
            at = -1 if piece.startswith("<") else piece.find(caveat.label)
            if at >= 0:
                link = str(_BADGES.term(addresses.caveat(code, book_root), caveat.explanation, caveat.label))
                pieces[index] = piece[:at] + link + piece[at + len(caveat.label) :]
                break
        markup = "".join(pieces)
    return markup


def caveat_badges(codes, book_root: str = "", acknowledged=()) -> str:
    """One small labelled badge per caveat code, linked to its explanation on the method page."""
    items = []
    for code in codes:
        caveat = caveats.BY_CODE[code]
        stated = code in set(acknowledged)
        items.append(
            {
                "css": "claimbook-caveat" + ("" if caveat.qualifies else " claimbook-caveat-label"),
                "href": addresses.caveat(code, book_root),
                "explanation": caveat.explanation,
                "label": caveat.label + (" (stated by the claim)" if stated else ""),
            }
        )
    return str(_BADGES.caveats(items))


def paragraph(text) -> str:
    """A paragraph of text."""
    return str(_DETAILS.paragraph(text))


def display_html(markup: str, text: str):
    from IPython.display import display

    display({"text/html": markup, "text/plain": text}, raw=True)


class SystemNames:
    """Systems as readers know them: the organization's own name for a system (the summary's
    SystemName) where the text says the book's id for it (its results folder, MLCommons'
    Platform), the id on hover. A system whose organization gives it two names keeps its id."""

    def __init__(self, results: pd.DataFrame | None = None):
        self.names: dict[str, tuple[str, str]] = {}  # "organization id" -> (shown, id)
        if results is not None and not results.empty and "system_name" in results.columns:
            frame = results[["organization", "system", "system_name"]].drop_duplicates()
            for (organization, system), group in frame.groupby(["organization", "system"], sort=True):
                found = {str(name).strip() for name in group["system_name"] if isinstance(name, str)} - {""}
                if len(found) == 1 and squash(next(iter(found))) != squash(system):
                    self.names[f"{organization} {system}"] = (
                        _own_name(str(organization), found.pop()),
                        f"{organization} {system}",
                    )
        keys = sorted(self.names, key=len, reverse=True)
        self.pattern = (
            re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, keys)) + r")(?![\w-])") if keys else None
        )

    def html(self, text) -> str:
        """``text`` escaped, each system it names by organization and id shown by its name."""
        text = " ".join(str(text).split())
        if self.pattern is None:
            return escape(text)
        out, last = [], 0
        for match in self.pattern.finditer(text):
            shown, identifier = self.names[match.group(1)]
            out.append(escape(text[last : match.start()]))
            out.append(str(_BADGES.system(identifier, shown)))
            last = match.end()
        return "".join(out) + escape(text[last:])

    def name(self, organization: str, system: str) -> str:
        """The name a reader knows a system by, with its organization."""
        found = self.names.get(f"{organization} {system}")
        return found[0] if found else f"{organization} {system}"


def _own_name(organization: str, name: str) -> str:
    """An organization's name for its system, with the organization said once."""
    return name if squash(name).startswith(squash(organization)) else f"{organization}'s {name}"


PLAIN = SystemNames()


def system_names(results: pd.DataFrame | None) -> SystemNames:
    """``SystemNames(results)``, made once per table as it is (the front page and every
    announcement's page name the systems of the same results)."""
    if results is None or results.empty:
        return SystemNames(results)
    from claimbook.common.frame_memo import memo

    kept = memo(results)
    if "system names" not in kept:
        kept["system names"] = SystemNames(results)
    return kept["system names"]


def claim_heading(claim, registry=None, root: str = "", title: str | None = None) -> str:
    """A claim's title (or ``title``) as a link to its card, its id on hover; as text without a
    registry to place it."""
    text = title or claim.get("title") or claim.id
    if registry is None:
        return escape(text)
    return str(_BADGES.claim_link(addresses.claim(claim, registry, root), claim.id, text))


def card(
    check, book_root: str = "", title: str | None = None, link: str | None = None, registry=None, names=PLAIN
) -> str:
    """A verdict card: the claim in a sentence, the badge, the finding with its range, the caveats.
    Its title links to where the card is (``link``, or the claim's place in ``registry``); the
    card is that place's anchor. Systems are named as readers know them (``names``)."""
    claim = check.claim
    heading = claim_heading(claim, registry, book_root, title)
    if link:
        heading = str(_BADGES.claim_link(link, claim.id, title or claim.get("title") or claim.id))
    every_row = check.tables.get("every_row")
    if every_row is not None and every_row.empty:
        every_row = None
    return render(
        "card.html",
        anchor=addresses.card_anchor(claim.id),
        verdict=check.verdict,
        claim_id=claim.id,
        heading=trusted(heading),
        badge=trusted(badge(check.verdict)),
        spread=trusted(_spread_html(check)),
        statement=claim.statement,
        finding=trusted(names.html(check.reason)),
        measured=check.measured_range(),
        caveats=trusted(_caveat_badges_of(check, book_root)),
        decision=" ".join(claim.get("decision").split()) if claim.get("decision") else "",
        context=trusted(_context_html(check, names, book_root)),
        parts=[_part(part, names, book_root) for part in check.parts],
        every_row=every_row is not None
        and trusted(table_html(every_row, "Every row of the table the claim states, as checked")),
        every_row_count=formatting.count(len(every_row)) if every_row is not None else "",
        notes=[trusted(names.html(note)) for note in check.notes],
    )


def _part(part, names, book_root: str) -> dict:
    """A part of a claim as its card lists it."""
    return {
        "badge": trusted(badge(part.verdict)),
        "detail": part.claim.get("role") == "detail",
        "statement": part.claim.statement,
        "finding": trusted(names.html(part.reason)),
        "caveats": trusted(_caveat_badges_of(part, book_root)),
        "context": trusted(_context_html(part, names, book_root)),
    }


def spread(check) -> str:
    """Every case's figure, where the claim's word is read on its best case and it has several
    ("up to 3.7x across scenarios"): the spread on the card's first line, where a reader looks
    first, so a best case never reads as every case. Empty otherwise."""
    return spread_of(check.claim, [(case.label, case.measured, case.unit) for case in check.cases])


def spread_of(claim, cases) -> str:
    """The same from (label, measured, unit) of each case (a check's, or the scorecard's rows)."""
    if claim.claimed is None:
        return ""
    reading = quantifiers.read(claim)
    measured = [
        (label, float(value), unit)
        for label, value, unit in cases
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ]
    if reading.cases != quantifiers.BEST or len(measured) < 2 or len({unit for *_, unit in measured}) > 1:
        return ""
    return "across cases: " + ", ".join(
        f"{label} {formatting.quantity(value, unit)}" for label, value, unit in measured
    )


def spread_html(text: str) -> str:
    return str(_BADGES.spread(text))


def _spread_html(check) -> str:
    return spread_html(spread(check))


def _context_html(check, names=PLAIN, book_root: str = "") -> str:
    """What a reader expects beside the figures (the best rival, per-GPU figures, an inferred
    side), visible on the card and never deciding."""
    notes = [trusted(defined_terms(names.html(note), book_root)) for note in check.context]
    return render("context.html", notes=notes)


def _caveat_badges_of(check, book_root: str) -> str:
    return caveat_badges(check.caveats, book_root, check.acknowledged) if check.caveats else ""


def card_text(check) -> str:
    lines = [
        f"{check.claim.id}: {check.verdict}"
        + (f" ({spread(check)})" if spread(check) else "")
        + f". {check.reason}"
    ]
    if check.measured_range():
        lines.append(f"Measured: {check.measured_range()}")
    if check.caveats:
        lines.append("Caveats: " + ", ".join(check.caveats))
    if check.claim.get("decision"):
        lines.append("Why the book decided so: " + " ".join(str(check.claim.get("decision")).split()))
    lines += [f"For context: {note}" for note in check.context]
    lines += [f"- {part.claim.id}: {part.verdict}. {part.reason}" for part in check.parts]
    return "\n".join(lines)


def show_card(check, book_root: str = "", registry=None, names=PLAIN):
    display_html(card(check, book_root, registry=registry, names=names), card_text(check))


def _cell(value, numeric: bool, decimals: int | None = None) -> Cell:
    if isinstance(value, (bool, np.bool_)):
        value = "yes" if value else "no"
    text = escape(
        formatting.table_number(value, decimals)
        if numeric
        else (
            formatting.MISSING if value is None or (isinstance(value, float) and math.isnan(value)) else value
        )
    )
    if numeric:
        return Cell(css="num", content=trusted(text))
    return _text_cell(text)


class Cell(NamedTuple):
    """A table's cell as ``templates/cells.html`` writes it: ``content`` is markup (escaped text
    with its break points, or a badge); ``title`` a tooltip, ``href`` a link around the content."""

    content: Markup
    css: str = ""
    title: str | None = None
    href: str | None = None
    lead: bool = False


def _text_cell(text: str) -> Cell:
    if len(text) <= 14:
        return Cell(content=trusted(_CAMEL.sub("<wbr>", text)))
    long = max((len(word) for word in text.split()), default=0) > 14
    return Cell(css="claimbook-long" if long else "", content=trusted(breakable(text)))


def text_cell(text: str) -> str:
    """A cell of escaped text. Short text ("Tokens/s") never breaks; a long name may, after "/"
    and "_" first, and anywhere if a table must (``claimbook-long``), so the table fits its column."""
    return str(_TD(_text_cell(text)))


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
_TD = macro("cells.html", "td")
_BADGES = macros("badges.html")
_DETAILS = macros("details.html")


def breakable(text: str) -> str:
    """Escaped text with break points a browser would not find: after "/" and "_", and between
    the words of a camel-case name ("Single<wbr>Stream")."""
    return _CAMEL.sub("<wbr>", text.replace("/", "/<wbr>").replace("_", "_<wbr>"))


# Headings readers see for the tidy tables' columns; any other snake_case name is spelled out.
HEADINGS = {
    "organization": "Submitter",
    "family": "Accelerator",
    "gpus": "GPUs",
    "small_gpus": "GPUs, smaller",
    "large_gpus": "GPUs, larger",
    "efficiency_percent": "Efficiency (%)",
    "per_gpu": "Per GPU",
    "source_type": "Source",
    "usd_per_gpu_hour": "USD per GPU-hour",
    "usd_per_million_tokens": "USD per million tokens",
    "gain": "Speedup (x)",
    "change_percent": "Change of the metric (%)",
}


def heading(column) -> str:
    """A column's heading for readers: ``small_gpus`` is "GPUs, smaller", ``result`` "Result"."""
    column = str(column)
    if column in HEADINGS:
        return HEADINGS[column]
    if re.fullmatch(r"[a-z][a-z0-9_]*", column):
        return column.replace("_", " ").capitalize()
    return column


# The columns a reader looks for first, in this order, wherever a table has them: on a phone they
# are in view before the table scrolls.
LEAD = ("Claim", "Case", "Verdict", "Measured", "Claimed")
_LEAD = re.compile(r"(Claim|Case|Verdict|Measured|Claimed)( \(.*\))?")


def table_class(columns: int) -> str:
    """A table's classes: a table of many columns (``WIDE``) is set smaller, to fit a laptop's column."""
    return "claimbook-table claimbook-wide" if columns >= WIDE else "claimbook-table"


WIDE = 9


def reader_order(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its lead columns (``LEAD``, a unit in brackets allowed) first."""
    lead = sorted(
        (column for column in frame.columns if _LEAD.fullmatch(str(column))),
        key=lambda column: LEAD.index(_LEAD.fullmatch(str(column)).group(1)),
    )
    return frame[lead + [column for column in frame.columns if column not in lead]]


def folded(frame: pd.DataFrame, caption: str, kept=()) -> tuple[pd.DataFrame, str]:
    """A table of three rows or more without its text columns that say the same in every row:
    the caption says it once ("... (every row: Status closed, available)"), and the table is
    narrower. Lead columns, numbers and the columns in ``kept`` stay."""
    if len(frame) < 3:
        return frame, caption
    same = [
        column
        for column in frame.columns
        if column not in kept
        and not _LEAD.fullmatch(str(column))
        and not pd.api.types.is_numeric_dtype(frame[column])
        and frame[column].map(str).nunique() == 1
    ]
    if not same or len(same) == len(frame.columns):
        return frame, caption
    said = "; ".join(f"{heading(column)} {frame[column].iloc[0]}" for column in same)
    return frame.drop(columns=same), f"{caption} (every row: {said})"


def claims_linked(frame: pd.DataFrame, links: dict, titles: dict) -> tuple[pd.DataFrame, dict, dict]:
    """A table naming claims by id ("Claim id") shows each by its title ("Claim"), linked to its
    card, the id on hover, where the page knows its registry (``links.use_page``)."""
    if "Claim id" not in frame.columns or addresses.Page.registry is None:
        return frame, links, titles
    ids = [str(value) for value in frame["Claim id"]]
    known = {claim.id: claim for claim in addresses.Page.registry.all_claims()}
    frame = frame.assign(
        _claim_url=[addresses.claim_by_id(value) or "" for value in ids],
        _claim_id=ids,
    )
    if "Claim" not in frame.columns:
        titles_of = [str(known[value].get("title") or value) if value in known else value for value in ids]
        frame.insert(list(frame.columns).index("Claim id"), "Claim", titles_of)
    frame = frame.drop(columns=["Claim id"])
    return frame, {**links, "Claim": "_claim_url"}, {**titles, "Claim": "_claim_id"}


def table_html(
    frame: pd.DataFrame,
    caption: str,
    links: dict | None = None,
    titles: dict | None = None,
    decimals: dict | None = None,
) -> str:
    """An escaped HTML table in its own scroll box, its lead columns first (``reader_order``).
    ``links`` maps a column to a column of URLs (its cells become links); ``titles`` maps a column
    to a column of tooltips; ``decimals`` fixes the decimals of a numeric column (prices). A
    "Verdict" column shows badges; claims named by id link to their cards (``claims_linked``).
    A table of more than ``MOST`` columns is shown as two (or more), each with its key columns."""
    frame, links, titles = claims_linked(frame, dict(links or {}), dict(titles or {}))
    frame = reader_order(frame)
    hidden = set(links.values()) | set(titles.values())
    frame, caption = folded(frame, caption, set(links) | set(titles) | hidden)
    shown = [column for column in frame.columns if column not in hidden]
    numeric = {
        column: pd.api.types.is_numeric_dtype(frame[column]) and not pd.api.types.is_bool_dtype(frame[column])
        for column in shown
    }
    style = _CellStyle(links, titles, decimals or {}, numeric)
    parts = column_parts(shown)
    return "".join(
        _table_part(frame, columns, caption if not index else f"{caption} (continued)", style)
        for index, columns in enumerate(parts)
    )


# At most so many columns in one table: more do not fit a laptop's column at a readable size.
MOST = 10
KEYS = ("Claim", "Case")  # columns each part of a split table repeats


def column_parts(columns: list) -> list[list]:
    """``columns`` in parts of at most ``MOST``, each starting with the key columns."""
    if len(columns) <= MOST:
        return [list(columns)]
    keys = [column for column in columns if column in KEYS] or list(columns[:1])
    rest = [column for column in columns if column not in keys]
    count = math.ceil(len(rest) / (MOST - len(keys)))
    size = math.ceil(len(rest) / count)
    return [keys + rest[start : start + size] for start in range(0, len(rest), size)]


class _CellStyle:
    """How a table's cells are written: links, tooltips, decimals, numbers."""

    def __init__(self, links: dict, titles: dict, decimals: dict, numeric: dict):
        self.links, self.titles, self.decimals, self.numeric = links, titles, decimals, numeric

    def cell(self, row, column, lead: bool = False) -> Cell:
        cell = _cell(row[column], self.numeric[column], self.decimals.get(column))
        url = row[self.links[column]] if column in self.links else None
        if isinstance(url, str) and url:
            cell = _text_cell(escape(row[column]))._replace(href=url)
        elif column == "Verdict" and row[column] in BADGES:
            cell = Cell(content=trusted(badge(row[column])))
        if column in self.titles and isinstance(row[self.titles[column]], str):
            cell = cell._replace(title=row[self.titles[column]])
        return cell._replace(lead=lead)


def _table_part(frame: pd.DataFrame, columns: list, caption: str, style: _CellStyle) -> str:
    # the lead columns are marked: a phone keeps them narrow enough to be read before the table scrolls
    lead = {column: bool(_LEAD.fullmatch(str(column))) for column in columns}
    heads = [
        {
            "numeric": style.numeric[column],
            "lead": lead[column],
            "heading": trusted(breakable(escape(heading(column)))),
        }
        for column in columns
    ]
    # Each row's values as the frame holds them, without a Series made for each row (iterrows):
    # the tables of a page reading every claim are written in a tenth of the time.
    names = list(frame.columns)
    rows = (
        [style.cell(row, column, lead[column]) for column in columns]
        for row in (dict(zip(names, values)) for values in frame.to_numpy())
    )
    return render("table.html", caption=caption, classes=table_class(len(columns)), columns=heads, rows=rows)


def table_text(frame: pd.DataFrame, caption: str) -> str:
    return caption + "\n" + plain_table(frame.rename(columns=heading))


def _plain_cell(value) -> str:
    return (
        formatting.table_number(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else str(value)
    )


# What pandas' plain text writes differently from the text itself (it escapes these).
_ESCAPED_BY_PANDAS = re.compile(r"[\t\r\n]")


def plain_table(frame: pd.DataFrame) -> str:
    """The frame as plain text, each cell as ``_plain_cell`` writes it: what pandas'
    ``to_string(index=False)`` writes of those texts (each column right-aligned to its widest
    text or heading, one space between columns), without pandas' formatter, a tenth of the time
    (a page reading every claim writes seventy tables). Anything else (no rows, headings that
    are not text or not unique, text pandas escapes) is pandas' own."""
    headings = list(frame.columns)
    simple = len(frame) and headings and frame.columns.is_unique and all(isinstance(h, str) for h in headings)
    columns = [[_plain_cell(value) for value in frame[name].tolist()] for name in headings] if simple else []
    texts = [*headings, *(text for column in columns for text in column)]
    if not simple or any(_ESCAPED_BY_PANDAS.search(text) for text in texts):
        return frame.map(_plain_cell).to_string(index=False)
    widths = [max(len(heading_), *map(len, column)) for heading_, column in zip(headings, columns)]
    return "\n".join(
        " ".join(text.rjust(width) for text, width in zip(line, widths))
        for line in [headings, *zip(*columns)]
    )


def table(
    frame: pd.DataFrame,
    caption: str,
    links: dict | None = None,
    titles: dict | None = None,
    decimals: dict | None = None,
):
    hidden = set((links or {}).values()) | set((titles or {}).values())
    display_html(
        table_html(frame, caption, links, titles, decimals),
        table_text(reader_order(frame.drop(columns=list(hidden))), caption),
    )


def ids_for(result_ids: pd.DataFrame, rows: pd.DataFrame, with_system: bool = False) -> list[list[str]]:
    """For each result in ``rows``, the IDs an announcement gives the entry it belongs to (same
    round, submitter, system and division; an ID with no division stands for any), each with who
    states it."""
    index: dict[tuple, list] = {}
    for item in result_ids.itertuples():
        index.setdefault((item.round, item.organization, item.system), []).append(item)
    found = []
    for round_name, organization, system, division in zip(
        rows["round"], rows["organization"], rows["system"], rows["division"]
    ):
        known = [
            item
            for item in index.get((round_name, organization, system), ())
            if item.division in (division, "")
        ]
        found.append([_cited(item, with_system) for item in known])
    return found


# A result ID whose system (or division) the book inferred says so in its note (data/result_ids.csv).
INFERRED_SYSTEM = "system inferred by this book"
INFERRED_DIVISION = "division inferred by this book"


def _cited(item, with_system: bool) -> str:
    """A result ID as a citation gives it: who states the ID, and whose the system is (the
    announcement's, or inferred by this book where its note says so)."""
    if not with_system:
        return f"{item.id} ({item.stated_by})"
    # One system may have entries in both divisions (two IDs): the division tells them apart.
    division = f", {str(item.division).capitalize()} division" if item.division else ""
    system = f"{item.organization} {item.system}{division}"
    if str(item.note).startswith(INFERRED_DIVISION):
        return f"{item.id} ({system}, the {INFERRED_DIVISION}; the ID as cited by {item.stated_by})"
    if str(item.note).startswith(INFERRED_SYSTEM):
        return f"{item.id} ({system}, {INFERRED_SYSTEM}; the ID as cited by {item.stated_by})"
    return f"{item.id} ({system}, as stated by {item.stated_by})"


def evidence_frame(rows: pd.DataFrame, result_ids: pd.DataFrame | None = None) -> pd.DataFrame:
    """The published results used, as readers see them: each system by its organization's name
    for it (the book's id on hover), linked to its folder of logs; one unit per table where it
    can be."""
    if rows is None or rows.empty:
        return pd.DataFrame()
    rows = rows.sort_values(["organization", "system", "benchmark", "scenario"], kind="stable")
    units = sorted(set(rows["units"]))
    one_unit = len(units) == 1
    result_column = f"Result ({units[0]})" if one_unit else "Result"
    frame = _systems_frame(rows)
    if rows["benchmark"].nunique() > 1:
        frame["Benchmark"] = rows["benchmark"].astype(str).values
    frame["Scenario"] = rows["scenario"].astype(str).values
    frame[result_column] = rows["result"].astype(float).values
    if not one_unit:
        frame["Units"] = rows["units"].astype(str).values
    per_gpu = rows["per_accelerator"].astype(float).values
    if pd.notna(per_gpu).any():
        frame["Per GPU"] = per_gpu
    frame["Status"] = _status_column(rows)
    if (result_ids is not None and not result_ids.empty) or (
        "result_id" in rows.columns and rows["result_id"].notna().any()
    ):
        frame["Result ID"] = _result_id_column(rows, result_ids)
    frame["_url"] = [provenance_url(r, loc) for r, loc in zip(rows["round"], rows["location"])]
    return frame


def _systems_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Whose system each result is, by its organization's own name for it (the book's id and its
    published accelerator name on hover), and its accelerators."""
    own_names = rows["system_name"] if "system_name" in rows.columns else rows["system"]
    return pd.DataFrame(
        {
            "System": [
                _own_name(str(organization), str(name).strip() or str(system))
                if isinstance(name, str)
                else f"{organization} {system}"
                for organization, system, name in zip(rows["organization"], rows["system"], own_names)
            ],
            "_system": [
                f"{organization} {system}: its folder of logs"
                for organization, system in zip(rows["organization"], rows["system"])
            ],
            "Accelerators": [
                f"{int(count)} × {family}"
                for count, family in zip(rows["total_accelerators"], rows["family"])
            ],
            "_published_accelerator": rows["accelerator"].astype(str).values,
        }
    )


def _status_column(rows: pd.DataFrame) -> list[str]:
    """Division, category and the inferred flag in one column: what MLCommons asks to be stated."""
    return [
        ", ".join([division, availability] + (["inferred"] if inferred else []))
        for division, availability, inferred in zip(
            rows["division"].astype(str), rows["availability"].astype(str), rows["inferred"].astype(bool)
        )
    ]


def _result_id_column(rows: pd.DataFrame, result_ids: pd.DataFrame | None) -> list[str]:
    """Each result's ID: the summary's own where it carries one (v5.1's JSON), else the IDs
    announcements cite for its entry, else a dash."""
    published = (
        rows["result_id"] if "result_id" in rows.columns else pd.Series([None] * len(rows), index=rows.index)
    )
    cited = (
        ids_for(result_ids, rows)
        if result_ids is not None and not result_ids.empty
        else [[] for _ in range(len(rows))]
    )
    return [
        f"{value} (MLCommons' summary)" if isinstance(value, str) and value else "; ".join(ids) or "—"
        for value, ids in zip(published, cited)
    ]


def evidence(rows: pd.DataFrame, caption: str, result_ids: pd.DataFrame | None = None):
    """The exact results a check used, each system linked to its folder of published logs."""
    frame = evidence_frame(rows, result_ids)
    if frame.empty:
        display_html(paragraph(f"{caption}: no published result."), f"{caption}: no published result.")
        return
    if "Benchmark" not in frame.columns and "benchmark" in rows.columns and not rows.empty:
        caption = f"{caption}: {rows['benchmark'].iloc[0]}"
    table(
        frame,
        caption,
        links={"System": "_url"},
        titles={"System": "_system", "Accelerators": "_published_accelerator"},
    )


def citation(
    rows: pd.DataFrame,
    announcement,
    sources: dict,
    derived: bool = True,
    result_ids: pd.DataFrame | None = None,
) -> str:
    """The footnote MLCommons' rules ask for: suite and version, division, benchmarks and
    scenarios, source and date, result IDs where known, the derived-metric statement and the
    trademark legend."""
    sentences = []
    if rows is not None and not rows.empty:
        # Each round its own citation, the newest first: its version, divisions, source and IDs.
        for round_name in sorted(set(rows["round"].astype(str)), key=_round_key, reverse=True):
            sentences += _round_citation(rows[rows["round"].astype(str) == round_name], sources, result_ids)
    if announcement is not None:
        sentences.append(("announcement", {"title": announcement.title, "date": announcement.date}))
    if derived:
        sentences.append(("derived", NOT_VERIFIED))
    sentences.append(("trademark", TRADEMARK))
    return render("citation.html", sentences=sentences)


def _round_key(round_name: str) -> tuple:
    digits = [int(part) for part in round_name.lstrip("v").split(".") if part.isdigit()]
    return (digits, round_name)


def _round_citation(rows: pd.DataFrame, sources: dict, result_ids: pd.DataFrame | None) -> list[str]:
    """The citation's sentences for the results of one round, each (its kind, what it says)."""
    round_name = str(rows["round"].iloc[0])
    said = {
        "round": round_name,
        "divisions": " and ".join(f"{name.capitalize()} division" for name in sorted(set(rows["division"]))),
        "scenarios": ", ".join(sorted(set(rows["scenario"]))),
        "benchmarks": ", ".join(sorted(set(rows["benchmark"]))),
    }
    parts = [("round", said)]
    source = sources.get(round_name, {})
    if not source:  # a round ingested with no line of its own in sources.csv: never another round's
        parts.append(("no source", round_name))
    else:
        parts.append(
            (
                "source",
                {
                    "repository": source.get("repository", ""),
                    "file": source.get("file", "summary.csv"),
                    "commit": str(source.get("commit", ""))[:12],
                    "published": source.get("published", ""),
                },
            )
        )
    published = sorted({str(value) for value in rows.get("result_id", ()) if pd.notna(value) and value})
    if published:  # a summary that carries the public result IDs (v5.1's JSON): cited from it
        parts.append(("published ids", ", ".join(published)))
    elif result_ids is not None and not result_ids.empty:
        listed = sorted({text for ids in ids_for(result_ids, rows, with_system=True) for text in ids})
        if listed:
            parts.append(("cited ids", "; ".join(listed)))
    return parts


def show_citation(rows, announcement, sources: dict, derived: bool = True, result_ids=None):
    markup = defined_terms(citation(rows, announcement, sources, derived, result_ids), addresses.Page.root)
    import re

    display_html(markup, re.sub(r"<[^>]+>", "", html.unescape(markup)))


def details(summary: str, markup: str, text: str):
    """Folded content for readers who want it (a chapter's parameters, for instance)."""
    display_html(str(_DETAILS.details(summary, trusted(markup))), f"{summary}\n{text}")


def parameters(values: dict, template: str):
    """The parameters a page ran with, folded away, and how to rerun it."""
    import json

    shown = json.dumps(values, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    details(
        "Parameters this page ran with",
        str(_DETAILS.parameters(template, shown)),
        shown,
    )
