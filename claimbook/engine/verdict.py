"""The book's verdicts: a fixed vocabulary, and the few rules every kind of claim shares.

``matches`` says whether a measurement is the claimed figure as the claim states it (at its
precision); ``reaches`` whether it is that figure or better, in the direction that favours the
claim. Every kind of check, the scorecard and the ledger use these two and nothing else, so a
tolerance means the same thing everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

SUPPORTED = "supported"
SUPPORTED_WITH_CAVEATS = "supported with caveats"
NOT_SUPPORTED = "not supported"
CANNOT_BE_CHECKED = "cannot be checked"
VERDICTS = (SUPPORTED, SUPPORTED_WITH_CAVEATS, NOT_SUPPORTED, CANNOT_BE_CHECKED)
# Weakest first: a claim made of parts is as strong as its weakest part.
STRENGTH = (NOT_SUPPORTED, CANNOT_BE_CHECKED, SUPPORTED_WITH_CAVEATS, SUPPORTED)


def decimals_of(claimed: float) -> int:
    """How many decimals a figure was stated with (3.7 -> 1, 99 -> 0, 0.65 -> 2)."""
    exponent = Decimal(repr(float(claimed))).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def stated_figure(text) -> tuple[float, int]:
    """A figure as an announcement writes it, and its decimals: "12,198.80" -> (12198.8, 2).

    A number keeps the decimals its value shows (YAML reads 12198.80 as 12198.8); text keeps the
    trailing zeros it is written with."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text), decimals_of(float(text))
    cleaned = str(text).replace(",", "").strip()  # anything but a number fails below
    try:
        value = Decimal(cleaned)
    except ArithmeticError:  # decimal.InvalidOperation: not a number
        raise ValueError(f"not a figure: {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"not a figure: {text!r}")
    return float(value), max(0, -int(value.as_tuple().exponent))


def matches(
    measured: float | None, claimed: float, tolerance: float = 0.0, decimals: int | None = None
) -> bool:
    """Whether ``measured`` is the claimed figure as stated.

    A figure written with d decimals matches a measurement that rounds (half up) or truncates
    to it at d decimals: 2.57 is "2.5x" (truncated) and 3.74 is "3.7x" (rounded); 5.81 is not
    "5.7". ``tolerance`` widens the match by that fraction of the claim; ``decimals`` gives the
    precision where the figure was written with trailing zeros ("12,198.80").
    """
    if measured is None or not (math.isfinite(measured) and math.isfinite(claimed)):
        return False
    quantum = Decimal(1).scaleb(-(decimals_of(claimed) if decimals is None else decimals))
    value = Decimal(repr(float(measured)))
    target = Decimal(repr(float(claimed))).quantize(quantum)
    if value.quantize(quantum, rounding=ROUND_HALF_UP) == target:
        return True
    if value.quantize(quantum, rounding=ROUND_DOWN) == target:
        return True
    return abs(measured - claimed) <= tolerance * abs(claimed)


def reaches(
    measured: float | None,
    claimed: float,
    tolerance: float = 0.0,
    higher_is_better: bool = True,
    decimals: int | None = None,
) -> bool:
    """Whether ``measured`` is the claimed figure or better than it (for the claim)."""
    if measured is None or not math.isfinite(measured):
        return False
    if matches(measured, claimed, tolerance, decimals):
        return True
    return measured > claimed if higher_is_better else measured < claimed


@dataclass(frozen=True)
class Reading:
    """The one reading the book gives a vague quantifier (listed on the method page)."""

    phrase: str
    meaning: str
    low: float  # the bound as a fraction of the figure (or, for a gap in percent, in points)
    high: float
    precision: float  # how finely the phrase states it: a miss by less is a caveat, not a failure


# "a few percent" bounds a gap in percent points; "about" and "nearly" bound a figure X.
QUANTIFIERS = {
    "a few percent": Reading(
        "a few percent", "a gap of at most 5% either way, stated in whole percent", -5.0, 5.0, 1.0
    ),
    "about": Reading("about", "within 5% of the figure, either way", 0.95, 1.05, 0.0),
    "nearly": Reading("nearly", "at least 80% of the figure and not above it", 0.80, 1.0, 0.0),
}


def quantifier(phrase: str) -> Reading:
    """The book's reading of a vague quantifier; a phrase without one is an error."""
    try:
        return QUANTIFIERS[str(phrase).strip().lower()]
    except KeyError:
        raise ValueError(
            f"no reading for {phrase!r}; the book reads {', '.join(repr(name) for name in QUANTIFIERS)}"
        ) from None


def bounds(phrase: str, figure_: float | None = None) -> tuple[float, float]:
    """The range a quantified statement allows: of a gap in points, or of ``figure_`` ("nearly 2")."""
    reading = quantifier(phrase)
    if figure_ is None:
        return reading.low, reading.high
    return reading.low * figure_, reading.high * figure_


def beyond(value: float, low: float, high: float) -> float:
    """How far ``value`` lies outside [low, high] (0 inside), in its own units."""
    return max(low - value, value - high, 0.0)


def gap_percent(claimed: float, measured: float) -> float:
    """How far the claim is from the measurement, signed, in percent of the measurement."""
    return 100.0 * (claimed / measured - 1.0)


def weakest(verdicts) -> str:
    """The weakest of several verdicts (a claim made of parts is no stronger than its weakest)."""
    verdicts = list(verdicts)
    if not verdicts:
        return CANNOT_BE_CHECKED
    return min(verdicts, key=STRENGTH.index)
