"""What a fact-check covers of an announcement (``claimbook coverage``): every checkable statement
of the text (as ``claimbook draft`` finds them) matched with the claim of the registry that
judges it, or the entry of its ``set_aside`` list that says why the book does not, on the figure,
its unit and the benchmark; and the statements nothing covers.

A claim's figures are those its fields state (``claimed``, ``within``, ``tie_within``, a stated
table's figures, the figures of an earlier round it quotes) and those its paraphrased
``statement`` keeps; a set-aside entry's are those of its text. A statement with a superlative and
no figure is covered by a claim or an entry using the same superlative about one of the same
names (benchmark, accelerator family, submitter).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from claimbook.claims.names_in_text import Names, Statement, named_in
from claimbook.common import formatting
from claimbook.common.files import make_directories, write_atomically
from claimbook.inputs.announcement_text import A_FEW_PERCENT, Figure, figures, superlatives
from claimbook.inputs.names import contains_name


@dataclass(frozen=True)
class Judge:
    """Something that covers statements: a claim (``why`` empty) or a set-aside entry."""

    name: str  # the claim's id, or "set aside: TEXT"
    figures: tuple[tuple, ...]  # (value, unit, bound): bound for a "within" figure
    benchmarks: tuple[str, ...]
    superlatives: tuple[str, ...]
    names: frozenset  # benchmarks, families and organizations it names
    why: str = ""
    text: str = ""  # its statement (and title) or the set-aside text: which sentence it paraphrases
    ids: frozenset = frozenset()  # the result IDs it cites (a sentence citing one is its own)


@dataclass(frozen=True)
class Finding:
    """One figure of the text (or a statement's superlative) and what covers it, if anything."""

    statement: Statement
    figure: Figure | None
    judge: Judge | None

    def label(self) -> str:
        if self.figure is None:
            return "/".join(self.statement.superlatives)
        words = "" if self.figure.quantifier == "exactly" else self.figure.quantifier.replace("-", " ") + " "
        if self.figure.value is None:
            return self.figure.written  # "a few percent"
        if not self.figure.written[:1].isdigit():
            return words + self.figure.written  # "nearly double"
        unit = self.figure.unit
        return words + self.figure.written + ("" if unit in ("%", "x") else " ") + unit


def _numbers(value) -> list[float]:
    """The numbers of a field: a number, a mapping's or a list's numbers, a stated figure ("1,234.5")."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, str):
        try:
            return [float(value.replace(",", ""))]
        except ValueError:
            return []
    if isinstance(value, dict):
        return [number for inner in value.values() for number in _numbers(inner)]
    if isinstance(value, list):
        return [number for inner in value for number in _numbers(inner)]
    return []


def _field_figures(fields: dict) -> list[tuple]:
    """(value, unit, bound) of every figure a claim's fields state; ``bound`` for a "within" figure."""
    unit = str(fields.get("unit") or "")
    found = [(number, unit, False) for number in _numbers(fields.get("claimed"))]
    for name in ("within", "tie_within"):
        found += [(number, "%", True) for number in _numbers(fields.get(name))]
    if fields.get("quantifier") == A_FEW_PERCENT:  # "within a few percent": a bound with no figure
        found.append((None, A_FEW_PERCENT, True))
    for entry in fields.get("entries") or []:
        if isinstance(entry, dict):
            found += [(number, "", False) for number in _numbers(entry.get("figures"))]
    stated = fields.get("stated")
    if isinstance(stated, dict):
        found += [(number, "", False) for number in _numbers(stated.get("figures"))]
    found += [(number, "", False) for number in _numbers(fields.get("stated_current"))]
    found += [(float(gpus), SIZE, False) for gpus in _selector_gpus(fields)]
    for name, value in fields.items():  # any other figure a kind's fields give ("pairs: {nearly: 2}")
        if name not in _READ and name not in SELECTOR_FIELDS:
            found += [(number, "", False) for number in _numbers(value) if not isinstance(value, str)]
    return found


SIZE = "GPUs (a selector's size)"  # covers a statement's GPU count only where both name one system
# The fields read above, and the fields that hold selectors (their numbers are sizes, not figures).
_READ = ("claimed", "unit", "within", "tie_within", "quantifier", "entries", "stated", "stated_current")
SELECTOR_FIELDS = (
    "subject",
    "baseline",
    "small",
    "large",
    "rows",
    "items",
    "field",
    "evidence",
    "named",
    "prefer",
)


def _selector_names(value) -> list[str]:
    """The organizations, families and benchmarks a claim's fields name (its selectors, a stated
    table's benchmarks)."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in ("organization", "family", "benchmark") and isinstance(inner, (str, list)):
                found += [str(item) for item in (inner if isinstance(inner, list) else [inner])]
            elif key == "figures" and isinstance(inner, dict):
                found += [str(name) for name in inner]
            elif isinstance(inner, (dict, list)):
                found += _selector_names(inner)
    elif isinstance(value, list):
        found += [name for inner in value for name in _selector_names(inner)]
    return found


def _selector_gpus(value) -> list[int]:
    """The GPU counts a claim's selectors name (``gpus: 72``, ``{min, max}`` bounds, a sum's items)."""
    if isinstance(value, dict):
        found = []
        for key, inner in value.items():
            if key == "gpus":
                found += [n for n in _numbers(inner) if float(n).is_integer()]
            elif isinstance(inner, (dict, list)):
                found += _selector_gpus(inner)
        return found
    if isinstance(value, list):
        return [n for inner in value for n in _selector_gpus(inner)]
    return []


def _text_judge(name: str, text: str, names: Names, stated=None, benchmarks=(), why="") -> Judge:
    """A claim (``stated``: its fields' figures) or a set-aside entry (the figures of its text)."""
    if stated is None:
        found = figures(text, names.accelerators)
        stated = [
            (f.value, f.unit, False) if f.value is not None else (None, A_FEW_PERCENT, True) for f in found
        ]
        stated += [(f.within, "%", True) for f in found if f.within is not None]
    named = named_in(text, names.benchmarks)
    families = named_in(text, names.families)
    organizations = tuple(o for o in names.organizations if contains_name(text, o))
    return Judge(
        name=name,
        figures=tuple(stated),
        benchmarks=tuple(dict.fromkeys([*benchmarks, *named])),
        superlatives=tuple(superlatives(text)),
        names=frozenset([*benchmarks, *named, *families, *organizations]),
        why=why,
        text=text,
    )


def judges(registry, announcement: str, names: Names, unchecked=lambda claim: False) -> list[Judge]:
    """The claims of one announcement (each part on its own, with its parent's benchmarks) and
    its set-aside entries. ``unchecked(claim)``: whether the claim's kind records it without
    checking it (the engine knows; a figure-less such claim judges its statement as a whole)."""
    found = []
    for claim in registry.claims_of(announcement):
        for item in (claim, *claim.parts):
            benchmarks = _benchmarks(item) or _benchmarks(claim)
            text = " ".join(str(part) for part in (item.statement, item.get("title") or ""))
            stated = _field_figures(item.fields)
            if unchecked(item) and item.claimed is None:
                stated = None  # judged as a whole, cannot be checked: the figures of its statement
            judge = _text_judge(item.id, text, names, stated, benchmarks)
            cited = frozenset(str(found_id) for found_id in (getattr(item, "result_ids", None) or ()))
            found.append(replace(judge, names=judge.names | set(_selector_names(item.fields)), ids=cited))
    header = registry.announcements[announcement]
    for text, why in header.set_aside:
        found.append(_text_judge(f"set aside: {text}", text, names, why=why))
    return found


def _benchmarks(claim) -> tuple[str, ...]:
    value = claim.get("benchmark")
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return (str(value),) if value else ()


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _names(statement: Statement) -> set[str]:
    return set(statement.benchmarks) | set(statement.families) | set(statement.organizations)


def _covers(judge: Judge, statement: Statement, figure: Figure | None) -> bool:
    """Whether a claim or an entry covers a statement's figure (or its superlative): the same
    figure, unit and kind of bound, the same benchmark and one of the same names where both say."""
    if statement.benchmarks and judge.benchmarks and not set(statement.benchmarks) & set(judge.benchmarks):
        return False
    if _names(statement) and judge.names and not _names(statement) & judge.names:
        return False
    if figure is None:
        return bool(set(statement.superlatives) & set(judge.superlatives))
    if figure.value is None:  # "a few percent": the words themselves
        return any(value is None and unit == A_FEW_PERCENT for value, unit, _ in judge.figures)
    bound = figure.within is not None
    value = figure.within if bound else figure.value
    # A GPU count matches a selector's size only where both name the same accelerator or benchmark.
    sized = figure.unit == "GPUs" and bool(
        (set(statement.families) | set(statement.benchmarks)) & judge.names
    )
    return any(
        number is not None
        and within == bound
        and (_same(value, number) or _same(value * figure.scale, number))
        and (not unit or unit == figure.unit or (unit == SIZE and sized))
        for number, unit, within in judge.figures
    )


def coverage(statements: list[Statement], judged: list[Judge]) -> list[Finding]:
    """Each figure of each statement (each superlative-only statement once), with the claim that
    judges it or the set-aside entry that covers it (claims first; of several, the one naming
    most of what the statement names), or None."""
    findings = []
    for statement in statements:
        wanted = [*statement.claimed, *([None] if statement.superlatives else [])]
        for figure in wanted:
            covering = [judge for judge in judged if _covers(judge, statement, figure)]
            covering.sort(key=lambda judge: (bool(judge.why), -len(_names(statement) & judge.names)))
            findings.append(Finding(statement, figure, covering[0] if covering else None))
    return findings


def report(findings: list[Finding]) -> str:
    """What ``claimbook coverage`` prints: each figure found, by line, with what covers it, then
    the statements nothing covers, and "N of M figures judged"."""
    lines = []
    for finding in findings:
        judge = finding.judge
        said = (
            "NOT JUDGED"
            if judge is None
            else (judge.name if not judge.why else f"{judge.name} (why: {judge.why})")
        )
        lines.append(f"line {finding.statement.line}: {finding.label()}: {said}")
    left = [finding for finding in findings if finding.judge is None]
    covered = len(findings) - len(left)
    aside = sum(1 for finding in findings if finding.judge is not None and finding.judge.why)
    if left:
        lines.append("")
        lines.append("not judged:")
        lines += [f"  line {f.statement.line}: {f.label()}: {f.statement.text[:160]}" for f in left]
    lines.append("")
    lines.append(
        f"{covered} of {len(findings)} figures judged ({covered - aside} by a claim, {aside} set aside with a reason)"
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class Recall:
    """Whether a draft of the text found one figure a registry's claim states, with the same
    quantifier, unit and benchmark."""

    claim: str
    value: float
    unit: str
    quantifier: str
    benchmarks: tuple[str, ...]
    found: bool


def expected_quantifier(claim, value: float) -> str:
    """The quantifier a claim gives its figure: its ``quantifier`` field, ``form: up-to``, or the
    words before the figure in its paraphrased statement (the same table a draft reads)."""
    if claim.get("quantifier"):
        return str(claim.get("quantifier"))
    if claim.get("form") == "up-to":
        return "up-to"
    for figure in figures(claim.statement):
        if figure.value is not None and (
            _same(figure.value, value) or _same(figure.value * figure.scale, value)
        ):
            return figure.quantifier
    return "exactly"


def draft_recall(statements: list[Statement], registry, announcement: str) -> list[Recall]:
    """For each figure a claim of the announcement states in ``claimed`` (each part on its own),
    whether a statement of the draft has it with the claim's quantifier, unit and benchmark."""
    found = []
    for claim in registry.claims_of(announcement):
        for item in (claim, *claim.parts):
            benchmarks = _benchmarks(item) or _benchmarks(claim)
            for value in dict.fromkeys(_numbers(item.claimed)):
                quantifier = expected_quantifier(item, value)
                hit = any(
                    figure.value is not None
                    and (_same(figure.value, value) or _same(figure.value * figure.scale, value))
                    and figure.unit == item.unit
                    and figure.quantifier == quantifier
                    and (not benchmarks or bool(set(benchmarks) & set(statement.benchmarks)))
                    for statement in statements
                    for figure in statement.figures
                )
                found.append(Recall(item.id, value, item.unit, quantifier, benchmarks, hit))
    return found


def recall_report(recalls: list[Recall]) -> str:
    """The draft's side of the comparison: how many of the figures the claims state it finds
    with their quantifier, unit and benchmark, and the ones it misses."""
    missed = [recall for recall in recalls if not recall.found]
    found = len(recalls) - len(missed)
    lines = [
        f"the draft finds {found} of {len(recalls)} figures the registry's claims state "
        + "(same figure, quantifier, unit and benchmark)"
    ]
    for recall in missed:
        lines.append(
            f"  missed: {recall.claim}: {recall.quantifier} {formatting.stated(recall.value, recall.unit) if recall.unit else formatting.stated(recall.value) + ' (no unit)'}"
            f"{' on ' + ', '.join(recall.benchmarks) if recall.benchmarks else ''}"
        )
    return "\n".join(lines)


# -- coverage by statement -------------------------------------------------------------------------

JUDGED, SET_ASIDE, NOT_COVERED = "judged", "set aside", "not yet covered"
# A sentence that states no figure, no superlative and no name the results have: nothing in
# MLPerf data could settle it, so it is set aside by this one rule rather than one entry each.
NOTHING_TO_CHECK = "it states no figure, superlative or name of a benchmark, accelerator or submitter"
_RESULT_ID = re.compile(r"\b\d+\.\d+-\d{4}\b")  # an MLPerf result ID, "6.1-0106"
_MIN_SHARED = 3  # content words a judge shares with a sentence that has no figure, to cover it
_MIN_SHORT = 2  # ... or, for a sentence of fewer content words, every one of them and two at least
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "its",
        "their",
        "than",
        "into",
        "over",
        "also",
        "more",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "which",
        "when",
        "where",
        "what",
        "who",
        "how",
        "our",
        "your",
        "all",
        "any",
        "each",
        "per",
        "across",
        "between",
        "both",
    ]
)


@dataclass(frozen=True)
class StatementCoverage:
    """One sentence of the announcement and what covers it: judged by a claim, set aside with a
    reason, or not yet covered (with the figures nothing covers)."""

    statement: Statement
    status: str
    by: tuple[str, ...] = ()  # the claims' ids or "set aside: TEXT" entries that cover it
    why: str = ""  # a set-aside's reason
    uncovered: tuple[str, ...] = ()  # the labels of its figures nothing covers


def _words(text: str) -> set[str]:
    """A text's content words; a dot or hyphen inside one stays ("v5.1", "gpt-oss"), one that
    ends a sentence does not ("entry." is "entry")."""
    found = (word.rstrip(".-") for word in re.findall(r"[a-z0-9][a-z0-9.\-]+", text.lower()))
    return {word for word in found if word not in _STOP and len(word) > 2}


def _shared(judge: Judge, statement: Statement) -> int:
    return len(_words(judge.text) & _words(statement.text))


def _shared_beyond_names(judge: Judge, statement: Statement) -> int:
    """Words shared besides the names themselves: a sentence naming only NVIDIA and Vera Rubin
    is not the paraphrase of every claim about them."""
    named = {word for name in _names(statement) for word in _words(name)}
    return len((_words(judge.text) & _words(statement.text)) - named)


def _has(statement: Statement, figure) -> bool:
    """Whether a sentence states the same figure (value and unit), or, for None, a superlative."""
    if figure is None:
        return bool(statement.superlatives)
    return any(
        other.unit == figure.unit and other.value == figure.value and other.quantifier == figure.quantifier
        for other in statement.claimed
    )


def _own_sentence(judges: list[Judge], statement: Statement, others: list[Statement], figure) -> list[Judge]:
    """The judges that paraphrase this sentence: a judge that shares more than twice as many
    words with another sentence stating the same figure is that sentence's, not this one's (a
    "1.5x" here is not judged by the claim of another sentence's "1.5x")."""
    rivals = [other for other in others if other is not statement and _has(other, figure)]
    kept = []
    for judge in judges:
        here = _shared(judge, statement)
        best = max((_shared(judge, other) for other in rivals if _covers(judge, other, figure)), default=0)
        if best <= 2 * here:
            kept.append(judge)
    return kept


def _status(covering: list[Judge]) -> tuple[str, str]:
    claims = [judge for judge in covering if not judge.why]
    if claims:
        return JUDGED, ""
    return SET_ASIDE, "; ".join(dict.fromkeys(judge.why for judge in covering))


def statement_coverage(statements: list[Statement], judged: list[Judge]) -> list[StatementCoverage]:
    """Every sentence (``names_in_text.every_statement``) with what covers it. A sentence with
    figures or superlatives is covered when each is, by a judge of that sentence; one with
    neither but a name the results have, by the judge sharing a name and most words with it; one
    with none of these is set aside by the rule ``NOTHING_TO_CHECK``."""
    found = []
    for statement in statements:
        cited = set(_RESULT_ID.findall(statement.text))
        by_id = [judge for judge in judged if cited and cited <= judge.ids]
        if by_id:  # a sentence citing result IDs (a row of an entries table) is the claim's citing them
            found.append(StatementCoverage(statement, JUDGED, (by_id[0].name,)))
            continue
        wanted = [*statement.claimed, *([None] if statement.superlatives else [])]
        if not wanted:
            found.append(_by_words(statement, judged))
            continue
        covering, uncovered = [], []
        for figure in wanted:
            judges = [judge for judge in judged if _covers(judge, statement, figure)]
            judges = _own_sentence(judges, statement, statements, figure)
            if judges:
                # A figure: claims first. A superlative: the judge closest in words (a loose word
                # such as "most" is shared by claims of other sentences).
                judges.sort(
                    key=lambda judge: (
                        (bool(judge.why), -_shared(judge, statement))
                        if figure is not None
                        else (-_shared(judge, statement), bool(judge.why))
                    )
                )
                covering.append(judges[0])
            else:
                uncovered.append(Finding(statement, figure, None).label())
        if uncovered:
            found.append(StatementCoverage(statement, NOT_COVERED, uncovered=tuple(uncovered)))
            continue
        status, why = _status(covering)
        by = tuple(dict.fromkeys(judge.name for judge in covering))
        found.append(StatementCoverage(statement, status, by, why))
    return found


def _words_needed(statement: Statement) -> int:
    """The content words a judge must share with a sentence that has no figure: ``_MIN_SHARED``,
    or every one of a shorter sentence's (two at least: one word is no paraphrase)."""
    named = {word for name in _names(statement) for word in _words(name)}
    return max(_MIN_SHORT, min(_MIN_SHARED, len(_words(statement.text) - named)))


def _by_words(statement: Statement, judged: list[Judge]) -> StatementCoverage:
    if not _names(statement):
        return StatementCoverage(statement, SET_ASIDE, why=NOTHING_TO_CHECK)
    needed = _words_needed(statement)
    candidates = [
        judge
        for judge in judged
        if (_names(statement) & judge.names) and _shared_beyond_names(judge, statement) >= needed
    ]
    if not candidates:
        return StatementCoverage(statement, NOT_COVERED)
    best = max(candidates, key=lambda judge: (_shared_beyond_names(judge, statement), not judge.why))
    status, why = _status([best])
    return StatementCoverage(statement, status, (best.name,), why)


def statement_report(found: list[StatementCoverage]) -> str:
    """What ``claimbook coverage`` prints by statement: each sentence's line and status, the
    sentences not yet covered, and "N of M statements judged or set aside"."""
    lines = []
    for item in found:
        said = ", ".join(item.by) or item.why
        lines.append(f"line {item.statement.line}: {item.status}" + (f": {said}" if said else ""))
    left = [item for item in found if item.status == NOT_COVERED]
    if left:
        lines += ["", "statements not yet covered:"]
        lines += [
            f"  line {item.statement.line}: {item.statement.text[:160]}"
            + (f" (figures: {', '.join(item.uncovered)})" if item.uncovered else "")
            for item in left
        ]
    lines += ["", statement_count(found)]
    return "\n".join(lines)


def statement_count(found: list[StatementCoverage]) -> str:
    done = [item for item in found if item.status != NOT_COVERED]
    judged = sum(1 for item in found if item.status == JUDGED)
    return (
        f"{len(done)} of {formatting.plural(len(found), 'statement')} judged or set aside "
        f"({judged} judged by a claim, {len(done) - judged} set aside with a reason)"
    )


RECORD_COLUMNS = ("line", "status", "by", "why")


def record(found: list[StatementCoverage], announcement: str, folder: Path) -> Path:
    """The count by statement as a small table for the build (``data/coverage/ID.csv``): each
    sentence's line, status and what covers it, never the announcement's words."""
    frame = pd.DataFrame(
        [
            {"line": item.statement.line, "status": item.status, "by": ";".join(item.by), "why": item.why}
            for item in found
        ],
        columns=list(RECORD_COLUMNS),
    )
    make_directories(folder)
    return write_atomically(
        folder / f"{announcement}.csv", frame.to_csv(index=False, lineterminator="\n").encode()
    )


def recorded_count(folder: Path, announcement: str) -> tuple[int, int] | None:
    """(statements judged or set aside, statements) from the recorded table, or None without one."""
    path = folder / f"{announcement}.csv"
    if not path.is_file():
        return None
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(frame.columns) != list(RECORD_COLUMNS):
        raise ValueError(f"{path}: columns must be {', '.join(RECORD_COLUMNS)}")
    return int((frame["status"] != NOT_COVERED).sum()), len(frame)
