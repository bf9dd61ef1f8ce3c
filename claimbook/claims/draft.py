"""A draft registry from an announcement's text (``claimbook draft``): one draft claim per
figure claimed in each checkable statement, in the order of the text, filled where the text and
the data settle it, with ``TODO`` where only the analyst can decide.

The source's sentences appear only as YAML comments (one line each, cut to ``COMMENT_WIDTH``,
every character that could end a comment taken out); every published field is the book's own
words, a name the data has, or a number. The analyst paraphrases each sentence into
``statement``. Candidate systems are listed the way ``claimbook systems`` prints them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from claimbook.claims import systems
from claimbook.claims.drafting import Drafting
from claimbook.claims.names_in_text import Names, Statement
from claimbook.common import formatting, identifiers
from claimbook.inputs.announcement_text import EXACTLY, WITHIN, Figure

TODO = "TODO"
COMMENT_WIDTH = 100
MAX_CANDIDATES = 6
# A draft is for an analyst to finish: a text of more figures than this (a table pasted as
# prose, a hostile file) gets its first ones drafted and says how many it left, so a draft's size
# is bounded by its text's and these, never by the square of its figures.
MAX_CLAIMS = 200
MAX_OTHER_FIGURES = 5  # the other figures of a sentence a claim lists


@dataclass(frozen=True)
class DraftClaim:
    """One draft claim: the statement it comes from, its figure (None for a superlative), the
    kind proposed and why, its fields, and the candidate systems."""

    statement: Statement
    figure: Figure | None
    kind: str
    why: str
    fields: dict
    candidates: tuple


def propose(statement: Statement, figure: Figure | None, kinds: dict[str, Drafting]) -> tuple[str, str]:
    """The kind a statement's figure (or superlative) proposes among ``kinds``, and why."""
    if figure is None:
        superlatives = sorted(
            (rule.order, name, rule) for name, drafting in kinds.items() for rule in drafting.superlatives
        )
        for _, name, rule in superlatives:
            if not rule.words or set(rule.words) & set(statement.superlatives):
                return name, rule.why
    proposals = sorted(
        (rule.order, name, rule) for name, drafting in kinds.items() for rule in drafting.proposals
    )
    for _, name, rule in proposals:
        if rule.test(statement, figure):
            return name, rule.why
    raise ValueError(
        f"no kind is proposed for {statement.text[:60]!r}: no kind declares a proposal that always holds"
    )


def _by_scenario(statement: Statement, figures: tuple[Figure, ...]) -> dict | None:
    """``{Offline: 18, SingleStream: 11}`` when each figure of one unit is followed by its
    scenario's name ("18% Offline and 11% SingleStream"), else None."""
    if len(figures) < 2 or len({figure.unit for figure in figures}) != 1:
        return None
    mapping = {}
    for figure in figures:
        after = statement.text[figure.start : figure.start + 60]
        named = [s for s in statement.scenarios if re.search(rf"\b{s}\b", after, re.IGNORECASE)]
        if not named:
            return None
        first = min(named, key=lambda s: re.search(rf"\b{s}\b", after, re.IGNORECASE).start())
        if first in mapping:
            return None
        mapping[first] = figure.value
    return mapping


def claimed_figures(statement: Statement) -> tuple[Figure, ...]:
    """The figures a statement claims (a value, or a quantifier without one)."""
    return tuple(figure for figure in statement.claimed if figure.value is not None or figure.quantifier)


def draft_claims(
    statement: Statement, results: pd.DataFrame, kinds: dict[str, Drafting], limit: int | None = None
) -> list[DraftClaim]:
    """The draft claims of one statement: one per figure claimed (one for figures by scenario),
    or one for a superlative without a figure, each of the kind ``kinds`` propose; the first
    ``limit`` of them."""
    claimed = claimed_figures(statement)
    candidates = _candidates(statement, results)
    groups = [(None, None)]
    if claimed:
        by_scenario = _by_scenario(statement, claimed)
        groups = [(claimed[0], by_scenario)] if by_scenario else [(figure, None) for figure in claimed]
        groups = groups[:limit]
    drafted = []
    for figure, mapping in groups:
        kind, why = propose(statement, figure, kinds)
        fields = _fields(statement, figure, kind, mapping)
        drafting = kinds[kind]
        fields.update({name: TODO for name in drafting.todos if name not in fields})
        if drafting.fill is not None:  # what the text settles takes the place of its TODO
            fields.update(drafting.fill(statement, figure, results))
        drafted.append(DraftClaim(statement, figure, kind, why, fields, candidates))
    return drafted


def sides_from_text(statement: Statement, results: pd.DataFrame) -> dict:
    """A ratio's subject and baseline where the text settles them: the first accelerator family
    named is the subject's, the second the baseline's, each filled only when one system of that
    family has results on the benchmark named (else left to the analyst)."""
    if len(statement.families) < 2 or not statement.benchmarks:
        return {}
    sides = {}
    for side, family in zip(("subject", "baseline"), statement.families):
        filters = {"family": [family], "benchmark": list(statement.benchmarks)}
        if statement.gpus:
            filters["gpus"] = list(statement.gpus)
        found = systems.search(results, filters)
        if len(found) == 1:
            sides[side] = found[0].selector
    return sides


def _fields(statement: Statement, figure: Figure | None, kind: str, mapping: dict | None) -> dict:
    """The fields every kind's draft has: its title and statement left to the analyst, the
    figure claimed with its quantifier and unit, and the benchmarks and scenarios named."""
    fields: dict = {"title": TODO, "statement": _statement_todo(figure), "kind": kind}
    if figure is not None:
        fields["quantifier"] = figure.quantifier
        if figure.within is not None:
            fields["within"] = figure.within
        if figure.value is not None and figure.quantifier != WITHIN:
            fields["claimed"] = mapping or _number(figure.value)
            if figure.scale != 1.0:
                fields["scale"] = int(figure.scale)
        fields["unit"] = figure.unit
    if statement.benchmarks:
        fields["benchmark"] = (
            statement.benchmarks[0] if len(statement.benchmarks) == 1 else list(statement.benchmarks)
        )
    if statement.scenarios:
        fields["scenarios"] = list(mapping or statement.scenarios)
    return fields


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def _statement_todo(figure: Figure | None) -> str:
    said = f", its figure kept ({_figure_words(figure)})" if figure is not None else ""
    return f"{TODO}: the sentence above in the book's own words{said}"


def _figure_words(figure: Figure) -> str:
    quantifier = "" if figure.quantifier == EXACTLY else figure.quantifier.replace("-", " ") + " "
    if figure.value is None:
        return quantifier.strip()
    if not figure.written[:1].isdigit():  # "twice", "double": the word says its unit
        return quantifier + figure.written
    return quantifier + figure.written + ("" if figure.unit in ("%", "x") else " ") + figure.unit


def _candidates(statement: Statement, results: pd.DataFrame) -> tuple:
    """The systems the statement's names pick (organizations, families, GPU counts, benchmarks),
    loosened a field at a time until some are found; (search options, systems found)."""
    wanted = {
        "family": list(statement.families) or None,
        "organization": list(statement.organizations) or None,
        "gpus": list(statement.gpus) or None,
        "benchmark": list(statement.benchmarks) or None,
    }
    if not any(wanted.values()):
        return ()
    for dropped in ((), ("gpus",), ("gpus", "organization"), ("gpus", "organization", "benchmark")):
        filters = {name: value for name, value in wanted.items() if name not in dropped and value}
        if not filters:
            return ()
        found = systems.search(results, filters)
        if found:
            return (filters, tuple(found))
    return ()


# YAML ends a comment at any of these; a source's sentence loses them (and every other
# character that is not printable) before it becomes a comment.
_LINE_BREAKS = re.compile(r"[\r\n\x85\u2028\u2029]")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DATE = re.compile(
    r"\b(?:(\d{1,2})\s+("
    + "|".join(_MONTHS)
    + r")|("
    + "|".join(m[:3] for m in _MONTHS)
    + r")[a-z]*\.?\s+(\d{1,2}),)"
    r"\s+(20\d\d)\b"
)


def comment(text: str, indent: str = "", width: int | None = COMMENT_WIDTH) -> list[str]:
    """Text as YAML comment lines: nothing in it can end the comment or reach a field.
    ``width=None``: one line, its spacing kept (a line of ``claimbook systems``)."""
    import textwrap

    clean = "".join(ch if ch.isprintable() else " " for ch in _LINE_BREAKS.sub(" ", str(text)))
    if width is None:
        return [f"{indent}# {clean}".rstrip()]
    lines = textwrap.wrap(" ".join(clean.split()), width, break_long_words=True) or [""]
    return [f"{indent}# {line}".rstrip() for line in lines]


def dates_in(text: str) -> list[str]:
    """The dates a text writes ("17 September 2026", "Sep 16, 2026") as YYYY-MM-DD."""
    found = []
    for day, month, short, short_day, year in _DATE.findall(text):
        number = (_MONTHS.index(month) if month else [m[:3] for m in _MONTHS].index(short)) + 1
        date = "-".join((year, str(number).zfill(2), (day or short_day).zfill(2)))
        if identifiers.date_problem(date) is None:
            found.append(date)
    return list(dict.fromkeys(found))


def _field(name: str, value) -> str:
    """``name: value``, the value as YAML on one line (a mapping or a list in flow style)."""
    flow = isinstance(value, (dict, list))
    text = yaml.safe_dump(value, default_flow_style=flow, width=10_000, allow_unicode=False).strip()
    return f"{name}: {text.removesuffix(chr(10) + '...').strip()}"


def render(
    announcement: str,
    source: str,
    text: str,
    statements,
    names: Names,
    results: pd.DataFrame,
    kinds: dict[str, Drafting],
) -> str:
    """The draft registry as YAML text: a header with its TODOs, then each draft claim under the
    sentence it comes from (a comment), the kind ``kinds`` propose and why, and the candidate
    systems."""
    lines = [*_header(announcement, source, text, statements, names), "claims:"]
    claim_lines = _claims(announcement, statements, results, kinds)
    if not claim_lines:
        claim_lines = [*comment("no checkable statement found: no figure and no superlative", "  "), "  []"]
    return "\n".join(lines + claim_lines) + "\n"


# The first words of every draft: what `draft --force` may replace (its own drafts, nothing else).
DRAFT_MARK = "# A draft registry made by `claimbook draft`"


def is_draft(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as a draft this command writes."""
    if not path.is_file():
        return False
    with open(path, "rb") as stream:
        return stream.read(len(DRAFT_MARK.encode())) == DRAFT_MARK.encode()


def _header(announcement: str, source: str, text: str, statements, names: Names) -> list[str]:
    """The draft's header and its announcement, each field the analyst fills in a TODO, with
    what the text suggests for it (the organization it names most, the dates in it)."""
    organizations = [name for statement in statements for name in statement.organizations]
    most = max(set(organizations), key=organizations.count) if organizations else None
    return [
        *comment(
            f"{DRAFT_MARK.removeprefix('# ')} from {source}. Every {TODO} is for the analyst: "
            f"a registry with a {TODO} left warns on every build and fails --strict."
        ),
        *comment(
            "The source's sentences are comments: paraphrase each into its claim's statement, then delete "
            "the comments (they are someone else's words and are never published)."
        ),
        "announcement:",
        f"  id: {announcement}",
        f"  title: {TODO}",
        *comment(
            f"the organization the text names most: {most}"
            if most
            else "no organization of the results named",
            "  ",
        ),
        f"  publisher: {TODO}",
        f"  claimant: {TODO}",
        f"  vendor: {TODO}",
        *comment(f"dates in the text: {', '.join(dates_in(text)) or 'none'}", "  "),
        f"  date: {TODO}",
        f"  round: {names.round}",
        f"  source_url: {TODO}",
    ]


def _claims(announcement: str, statements, results: pd.DataFrame, kinds: dict[str, Drafting]) -> list[str]:
    """The draft claims of the statements, numbered, at most ``MAX_CLAIMS``, saying where figures
    were left out ([] when no statement has one)."""
    lines = []
    number = 0
    for index, statement in enumerate(statements):
        if number >= MAX_CLAIMS:
            lines += _left_out(statements[index:], MAX_CLAIMS)
            break
        drafted = draft_claims(statement, results, kinds, limit=MAX_CLAIMS - number)
        for place, claim in enumerate(drafted):
            number += 1
            lines += _claim_lines(claim, f"{announcement}-{str(number).zfill(2)}", first=place == 0)
        if len(drafted) < len(claimed_figures(statement)) and not _by_scenario(
            statement, claimed_figures(statement)
        ):
            lines += _left_out([statement], MAX_CLAIMS, drafted[-1].figure)
    return lines


def _left_out(statements, limit: int, after: Figure | None = None) -> list[str]:
    """The comment that says how many figures a draft stopped short of (``after``: the last
    figure drafted of the first statement; the rest of it, then the other statements)."""
    left = sum(
        len([f for f in claimed_figures(s) if after is None or index or f.start > after.start]) or 1
        for index, s in enumerate(statements)
    )
    where = f"from line {statements[0].line}"
    return [
        "",
        *comment(
            f"a draft holds at most {limit} claims: {formatting.plural(left, 'more figure')} of the text "
            f"({where} on) are not drafted; draft those that are claims by hand",
            "  ",
        ),
    ]


def _claim_lines(claim: DraftClaim, claim_id: str, first: bool = True) -> list[str]:
    """A draft claim's lines: its sentence (once: the first claim of a sentence writes it, and
    its candidate systems; the others point to it), the kind proposed, a few of the sentence's
    other figures, its fields."""
    line = claim.statement.line
    if first:
        lines = ["", *comment(f"line {line}: {claim.statement.text}", "  ")]
    else:
        figure = f": its figure {_figure_words(claim.figure)}" if claim.figure is not None else ""
        lines = ["", *comment(f"line {line}, the sentence above{figure}", "  ")]
    lines += comment(f"kind {claim.kind}: {claim.why}", "  ")
    lines += _other_figures(claim)
    if claim.candidates and first:
        filters, found = claim.candidates
        options = " ".join(
            f"--{name} {shlex.quote(str(v))}" for name, value in filters.items() for v in value
        )
        lines += comment(f"candidate systems (claimbook systems {options}):", "  ", width=None)
        for system in found[:MAX_CANDIDATES]:
            lines += comment(systems.describe(system), "  ", width=None)
        if len(found) > MAX_CANDIDATES:
            lines += comment(
                f"... and {formatting.plural(len(found) - MAX_CANDIDATES, 'more system')}", "    "
            )
    fields = [_field(name, value) for name, value in {"id": claim_id, **claim.fields}.items()]
    return [*lines, f"  - {fields[0]}", *(f"    {field}" for field in fields[1:])]


def _other_figures(claim: DraftClaim) -> list[str]:
    """A few of the sentence's other figures, those nearest the claim's own (found by bisection:
    a sentence of thousands of figures costs a claim no more than one of ten)."""
    import bisect

    figures = claim.statement.figures
    place = (
        0 if claim.figure is None else bisect.bisect_left(figures, claim.figure.start, key=lambda f: f.start)
    )
    near = figures[max(0, place - MAX_OTHER_FIGURES) : place + MAX_OTHER_FIGURES + 1]
    others = [f for f in near if f is not claim.figure and f.value is not None]
    others = sorted(
        others, key=lambda f: (abs(f.start - figures[min(place, len(figures) - 1)].start), f.start)
    )
    shown = sorted(others[:MAX_OTHER_FIGURES], key=lambda f: f.start)
    if not shown:
        return []
    words = ", ".join(_figure_words(f) for f in shown)
    if len(figures) - 1 > len(shown):
        words += f" (of the {formatting.plural(len(figures), 'figure')} it holds)"
    return comment(f"other figures of the sentence: {words}", "  ")


# "MLPerf Inference v5.1", "Inference 5.1", "v6.0": the rounds a text names (the first form is
# the round it is about; the others may be earlier rounds it compares with).
_ABOUT_ROUND = re.compile(r"\bMLPerf[\s-]*Inference[\s-]*v?(\d{1,3}\.\d{1,3})\b", re.IGNORECASE)
_ANY_ROUND = re.compile(r"(?<![\w.])v(\d{1,3}\.\d{1,3})(?![\w]|\.\d)")


def round_of_text(text: str) -> str | None:
    """The round an announcement is about, read from its text: the newest round it names as
    "MLPerf Inference vX.Y", else the newest "vX.Y" it names (an announcement names earlier rounds
    to compare with, never later ones); None if it names none."""
    for pattern in (_ABOUT_ROUND, _ANY_ROUND):
        found = {f"v{number}" for number in pattern.findall(text)}
        if found:
            return max(found, key=lambda name: tuple(int(part) for part in name[1:].split(".")))
    return None


def annotated_results(results_path, reference_dir="data/reference") -> tuple[pd.DataFrame, object]:
    """The round's results with the reviewed names beside them, and the reference tables."""
    from claimbook.inputs.reference import annotate, load_reference
    from claimbook.inputs.results import load_results

    reference = load_reference(reference_dir)
    return annotate(load_results(results_path), reference), reference


def draft_registry(
    text: str, announcement: str, source: str, results: pd.DataFrame, reference, kinds: dict[str, Drafting]
) -> tuple[str, int]:
    """The draft registry of an announcement's text, and how many TODOs it leaves; each claim
    of the kind ``kinds`` propose (``claimbook.engine.DRAFTING``: what each kind declares)."""
    from claimbook.claims.names_in_text import known_names, statements

    names = known_names(results, reference)
    drafted = render(announcement, source, text, statements(text, names), names, results, kinds)
    return drafted, len(re.findall(rf"(?m)^\s*-?\s*[\w.]+: '?{TODO}\b", drafted))
