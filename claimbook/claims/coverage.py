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
from dataclasses import dataclass, replace

from claimbook.claims.names_in_text import Names, Statement, named_in
from claimbook.common import formatting
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
            found.append(replace(judge, names=judge.names | set(_selector_names(item.fields))))
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
