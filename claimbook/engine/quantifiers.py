"""The vendor's word on a figure: one reading of every quantifier, the same in every kind.

A figure is never just a number: "up to 3.7x", "at least 95%", "about 80%", "nearly double" and
"more than 2x" each set a different test. A claim writes its word in the registry field
``quantifier`` (``up-to``, ``exactly`` ...), and which cases must hold (the best one, or every
one) in ``cases``, apart from the word. Every kind reads both here, through ``read``, and judges
each case with ``judge`` and the claim with ``decide``; the method page lists each word with its
rule (``RULES``) and the how-to page an example of each.

Figures are judged in the claim's own unit. A ratio is a speedup, so higher is always better:
"at least 2x faster" on a latency is a speedup of at least 2. A stated figure (a latency, a cost)
is read as written: "under 6 s" is ``less-than``. ``up-to`` and ``exactly`` read the figure at
the precision it is written with (``verdict.matches``: 3.74 is "3.7x", 2.57 is "2.5x", 5.81 s is
not "5.7 s"), and a claimed figure keeps that precision however it is written (``claimed:
"2.90"`` or ``claimed: 2.90``). The bounds (``at-least`` ...) give no rounding in the claim's
favour: 0.946 is not "at least 0.95". A relative word (``about``, ``nearly``, ``within``,
``a-few-percent``) bounds the measured figure relative to the claimed one; where a claim compares
results with their counterparts and states no figure, the figure is parity, and the bound is on
the gap in percent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from claimbook.common import formatting
from claimbook.engine.verdict import matches, reaches, stated_figure

BEST, EVERY = "best", "every"
CASES = {BEST: "the best case must hold", EVERY: "every case must hold"}


@dataclass(frozen=True)
class Figure:
    """A claimed figure as written: its value and the decimals it is written with."""

    value: float
    decimals: int

    def text(self, unit: str = "") -> str:
        """The figure as the claim writes it, trailing zeros kept: "2.90x"."""
        return formatting.stated(self.value, unit, self.decimals)


def figure(written) -> Figure | None:
    """A figure from a registry: a number (its decimals as its value shows them; the registry
    keeps a number written with trailing zeros, ``2.90``, as its text) or text ("2.90",
    "12,198.80"). None for no figure."""
    if written is None:
        return None
    value, decimals = stated_figure(written)
    return Figure(value, decimals)


def figure_for(claim, *keys) -> Figure | None:
    """The claimed figure of a case: the claim's one figure, or the one its mapping gives the
    first of ``keys`` found (a scenario, a baseline label, or both nested)."""
    value = claim.claimed
    if not isinstance(value, dict):
        return figure(value)
    for key in keys:
        if isinstance(value, dict) and key in value:
            value = value[key]
            if not isinstance(value, dict):
                return figure(value)
    return None


def figures_in(claimed) -> list[Figure]:
    """Every figure a ``claimed`` value holds, read (none for a claim without a figure)."""
    return [figure(item) for item in figures_of(claimed)]


def figures_of(claimed) -> list:
    """Every figure a ``claimed`` value holds (a number, text, or mappings of them)."""
    if isinstance(claimed, dict):
        return [item for value in claimed.values() for item in figures_of(value)]
    return [] if claimed is None else [claimed]


@dataclass(frozen=True)
class Judgment:
    """One case judged: whether it holds; whether the claim understates it (a precise figure
    below the measured one); how far beyond a vague bound it lies within the bound's precision
    (``near``, in points, a caveat rather than a failure); and whether it is the figure as stated."""

    holds: bool
    understates: bool = False
    near: float | None = None
    exact: bool = False


@dataclass(frozen=True)
class Rule:
    """What a quantifier means: its rule in one line (the method page), an example (the how-to
    page), the cases that must hold unless the claim says, whether it reads the figure at its
    stated precision (``tolerance`` then widens it), and how it judges a case."""

    word: str
    meaning: str
    example: str
    cases: str
    judge: Callable  # (measured, target, reading, higher_is_better) -> Judgment
    precise: bool = False
    parity: bool = True  # may judge a gap against parity (a comparison that states no figure)
    relative: bool = False  # bounds the figure relative to the claimed one (none relative to 0)
    bound: float | None = None  # a relative word's gap either way, in percent (about: 5)
    precision: float = 0.0  # points a miss may lie beyond the bound as a caveat, not a failure


# -- the judgments ------------------------------------------------------------------------------


def _precise(measured, target: Figure, reading, higher_is_better: bool) -> Judgment:
    exact = matches(measured, target.value, reading.tolerance, target.decimals)
    holds = reaches(measured, target.value, reading.tolerance, higher_is_better, target.decimals)
    return Judgment(holds, understates=holds and not exact, exact=exact)


def _bound(test):
    def judge(measured, target: Figure, reading, higher_is_better: bool) -> Judgment:
        return Judgment(bool(test(measured, target.value)))

    return judge


def _relative(low: float, high: float, precision: float = 0.0):
    """A bound relative to the figure: ``low`` to ``high`` times it; with ``precision`` (points of
    the gap), a miss by less is near the bound."""

    def judge(measured, target: Figure, reading, higher_is_better: bool) -> Judgment:
        ratio = measured / target.value if target.value else float("nan")
        beyond = max(low - ratio, ratio - high, 0.0) * 100.0
        if beyond == 0.0:
            return Judgment(True)
        if beyond < precision:
            return Judgment(True, near=beyond)
        return Judgment(False)

    return judge


def _within(measured, target: Figure, reading, higher_is_better: bool) -> Judgment:
    bound = float(reading.within) / 100.0
    return _relative(1.0 - bound, 1.0 + bound)(measured, target, reading, higher_is_better)


UP_TO, EXACTLY, WITHIN, A_FEW_PERCENT = "up-to", "exactly", "within", "a-few-percent"
# The relative words' spans, as fractions of the figure.
SPANS = {"about": (0.95, 1.05), "nearly": (0.80, 1.0), A_FEW_PERCENT: (0.95, 1.05)}
RULES = {
    rule.word: rule
    for rule in (
        Rule(
            UP_TO,
            "the best case reaches the figure at the precision it is stated with (or more)",
            '"up to 3.7x": 3.74x holds, 3.64x does not',
            BEST,
            _precise,
            precise=True,
            parity=False,
        ),
        Rule(
            EXACTLY,
            "the measured value is the figure at the precision it is stated with (a figure below it understates)",
            '"5.7 s": 5.74 s holds, 5.81 s does not',
            EVERY,
            _precise,
            precise=True,
            parity=False,
        ),
        Rule(
            "at-least",
            "at or above the figure, with no rounding in the claim's favour",
            '"at least 95%": 95.0% holds, 94.6% does not',
            EVERY,
            _bound(lambda measured, value: measured >= value),
        ),
        Rule(
            "or-better",
            "at or above the figure, with no rounding in the claim's favour (as at-least)",
            '"95% or better": 95.0% holds, 94.6% does not',
            EVERY,
            _bound(lambda measured, value: measured >= value),
        ),
        Rule(
            "more-than",
            "strictly above the figure",
            '"more than 2x": 2.01x holds, 2.00x does not',
            EVERY,
            _bound(lambda measured, value: measured > value),
        ),
        Rule(
            "over",
            "strictly above the figure (as more-than)",
            '"over 20%": 20.1% holds, 20.0% does not',
            EVERY,
            _bound(lambda measured, value: measured > value),
        ),
        Rule(
            "at-most",
            "at or below the figure, with no rounding in the claim's favour (a latency, a cost)",
            '"at most 6 s": 6.0 s holds, 6.04 s does not',
            EVERY,
            _bound(lambda measured, value: measured <= value),
        ),
        Rule(
            "less-than",
            "strictly below the figure (a latency, a cost)",
            '"less than 6 s": 5.99 s holds, 6.0 s does not',
            EVERY,
            _bound(lambda measured, value: measured < value),
        ),
        Rule(
            "under",
            "strictly below the figure (as less-than)",
            '"under 6 s": 5.99 s holds, 6.0 s does not',
            EVERY,
            _bound(lambda measured, value: measured < value),
        ),
        Rule(
            "about",
            "within 5% of the figure, either way",
            '"about 80%": 76% to 84% holds',
            EVERY,
            _relative(*SPANS["about"]),
            relative=True,
            bound=5.0,
        ),
        Rule(
            "nearly",
            "at least 80% of the figure and not above it",
            '"nearly double": 1.6x to 2.0x holds',
            EVERY,
            _relative(*SPANS["nearly"]),
            relative=True,
        ),
        Rule(
            A_FEW_PERCENT,
            "a gap of at most 5% either way, stated in whole percent (a miss by less than one point is a caveat)",
            '"within a few percent of its own": -5.4% is at the edge (a caveat), -6.2% fails',
            EVERY,
            _relative(*SPANS[A_FEW_PERCENT], precision=1.0),
            relative=True,
            bound=5.0,
            precision=1.0,
        ),
        Rule(
            WITHIN,
            "a gap of at most N% either way (the claim's within: N)",
            '"within 10%" (quantifier: within, within: 10): -9.8% holds, -10.4% does not',
            EVERY,
            _within,
            relative=True,
        ),
    )
}
WORDS = tuple(RULES)

# A band a claim states with its figure and a vague word are read by two rules, written here once
# (the method page's table of bands is checked against it) and cited on every card that uses one.
STATED_BAND, VAGUE_WORD = "a stated band", "a vague word"
BAND_RULES = {
    STATED_BAND: (
        'a band the claim states with a figure ("within 3%", a tie "within 3%") is the claimant\'s own '
        "precision: a gap beyond it fails, by any amount"
    ),
    VAGUE_WORD: (
        'a word with no figure ("a few percent") has the book\'s one reading, at most 5%, stated in '
        "whole percent: a gap beyond it by less than one point is a caveat (at the edge of a vague "
        "bound), not a failure"
    ),
}


def band_sentence(band: str) -> str:
    """The rule a card cites for a stated band or a vague word."""
    return f"The book's rule for {band}: {BAND_RULES[band]}."


@dataclass(frozen=True)
class Reading:
    """How the book reads a claim's figures: its quantifier's rule, the cases that must hold,
    the N of "within N%", and the tolerance a precise figure is widened by."""

    rule: Rule
    cases: str
    within: float | None = None
    tolerance: float = 0.0

    @property
    def word(self) -> str:
        return self.rule.word

    def spoken(self, target, unit: str) -> str:
        """The claim's words as the book reads them: '"at least 0.95x"'; ``target`` a figure, a
        list of figures (one per case) or None (a comparison with parity)."""
        said = {A_FEW_PERCENT: "within a few percent"}.get(self.word, self.word.replace("-", " "))
        if self.word == WITHIN:
            said = f"within {formatting.stated(float(self.within), '%')}"
        if target is None or target == []:
            return f'"{said}" of its counterpart'
        texts = [item.text(unit) for item in (target if isinstance(target, list) else [target])]
        figures = ", ".join(dict.fromkeys(texts))
        return f'"{figures}"' if self.word == EXACTLY else f'"{said} {figures}"'

    def sentence(self, target, unit: str) -> str:
        """One sentence for a card: the words, the rule, and which cases must hold."""
        meaning = self.rule.meaning
        if self.within is not None:
            meaning = meaning.replace("N%", formatting.stated(float(self.within), "%"))
        said = f"Read as {self.spoken(target, unit)}: {meaning}; {CASES[self.cases]}"
        band = {WITHIN: STATED_BAND, A_FEW_PERCENT: VAGUE_WORD}.get(self.word)
        return said if band is None else f"{said}. {band_sentence(band)}"


def read(claim, default: str = EXACTLY) -> Reading:
    """The reading of ``claim``'s figures: its ``quantifier`` (``default`` when it has none), its
    ``cases`` (the quantifier's own unless it says), its ``within`` and ``tolerance``."""
    word = claim.get("quantifier") or default
    rule = RULES[word]
    within = claim.get("within")
    return Reading(
        rule,
        claim.get("cases") or rule.cases,
        float(within) if isinstance(within, (int, float)) and not isinstance(within, bool) else None,
        claim.tolerance if rule.precise else 0.0,
    )


def bounds(word: str, value: float) -> tuple[float, float]:
    """The range a relative word allows around ``value`` ("nearly 2": 1.6 to 2)."""
    low, high = SPANS[word]
    return low * value, high * value


def parity(unit: str) -> Figure:
    """The figure of a comparison that states none: level (1x, or a lead of 0%)."""
    return Figure(1.0 if unit == "x" else 0.0, 0)


def judge(
    reading: Reading, measured: float | None, target: Figure | None, unit: str = "x", higher_is_better=True
):
    """One case judged under the claim's reading; ``target`` None: against parity (the gap in
    percent, in the unit's terms). None when there is nothing to judge."""
    if measured is None or formatting.is_missing(measured):
        return None
    if target is None:
        ratio = measured if unit == "x" else 1.0 + measured / 100.0
        return reading.rule.judge(ratio, parity("x"), reading, True)
    return reading.rule.judge(float(measured), target, reading, higher_is_better)


@dataclass(frozen=True)
class Decision:
    """The claim judged on its cases: whether it holds, the deciding case, the cases that fail,
    and the caveat codes the reading implies (best-case-only, understated, near-bound)."""

    holds: bool
    deciding: object
    failing: tuple
    near: tuple
    codes: frozenset


def decide(reading: Reading, judged: list, better=None) -> Decision | None:
    """The claim's decision from (case, judgment) pairs: under ``best``, the best case (by
    ``better``, a key: the highest by default) must hold; under ``every``, every case. None
    with no case to judge."""
    judged = [(case, judgment) for case, judgment in judged if judgment is not None]
    if not judged:
        return None
    key = better or (lambda case: case.measured)
    codes = set()
    failing = tuple(case for case, judgment in judged if not judgment.holds)
    near = tuple((case, judgment.near) for case, judgment in judged if judgment.near is not None)
    if near:
        codes.add("near-bound")
    if reading.cases == BEST:
        best_case, best = max(judged, key=lambda pair: (key(pair[0]), pair[0].label))
        if best.holds and failing:
            codes.add("best-case-only")
        if best.understates:
            codes.add("understated")
        return Decision(best.holds, best_case, failing, near, frozenset(codes))
    if any(judgment.understates for _, judgment in judged if judgment.holds):
        codes.add("understated")
    if failing:
        return Decision(False, failing[0], failing, near, frozenset(codes))
    weakest = min(judged, key=lambda pair: (key(pair[0]), pair[0].label))[0]
    return Decision(True, weakest, failing, near, frozenset(codes))


# -- the registry's fields ----------------------------------------------------------------------


def problem(
    claim, *, figures: bool = True, parity_allowed: bool = False, default: str = EXACTLY
) -> tuple | None:
    """What is wrong with a claim's quantifier fields, as (field, message), or None.

    ``figures``: the claim states figures the quantifier reads; ``parity_allowed``: a claim
    without a figure is judged against parity (a comparison with counterparts)."""
    word = claim.get("quantifier")
    if word is not None and (not isinstance(word, str) or word not in RULES):
        return "quantifier", f"unknown quantifier {word!r}; the book reads {', '.join(WORDS)}"
    rule = RULES[word or default]
    cases = claim.get("cases")
    if cases is not None and (not isinstance(cases, str) or cases not in CASES):
        return "cases", f"best (the best case must hold) or every (every case must hold), not {cases!r}"
    if cases == EVERY and rule.word == UP_TO:
        return "cases", '"up to" names the best case; say another quantifier for a figure every case reaches'
    within = claim.get("within")
    if rule.word == WITHIN and (
        isinstance(within, bool) or not isinstance(within, (int, float)) or within < 0
    ):
        return "within", "quantifier within needs the N of 'within N%': within: N, a number of percent"
    stated = figures_of(claim.claimed) if figures else []
    for written in stated:
        try:
            value = figure(written).value
        except ValueError:
            return "claimed", f"a figure, not {written!r}"
        if value == 0 and rule.relative:
            return (
                "claimed",
                f"a figure of 0 has no {rule.word} bound relative to it; leave the figure out to compare with parity",
            )
    if figures and not stated and not (parity_allowed and rule.parity):
        return "claimed", f"quantifier {rule.word} needs the claimed figure"
    return None


def applies_within(claim) -> bool:
    return claim.get("quantifier") == WITHIN


def applies_tolerance(claim, default: str = EXACTLY) -> bool:
    word = claim.get("quantifier") or default
    return word in RULES and RULES[word].precise
