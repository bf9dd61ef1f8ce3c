"""The book's verdicts: a fixed vocabulary, and the few rules every kind of claim shares.

``matches`` says whether a measurement is the claimed figure as the claim states it (at its
precision); ``reaches`` whether it is that figure or better, in the direction that favours the
claim: the precision every figure is read at. What a claim's word makes of them ("up to", "at
least", "about" ...) is ``claimbook.engine.quantifiers``, the one reading every kind uses.
"""

from __future__ import annotations

import math
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


def gap_percent(claimed: float, measured: float) -> float:
    """How far the claim is from the measurement, signed, in percent of the measurement."""
    return 100.0 * (claimed / measured - 1.0)


def weakest(verdicts) -> str:
    """The weakest of several verdicts (a claim made of parts is no stronger than its weakest)."""
    verdicts = list(verdicts)
    if not verdicts:
        return CANNOT_BE_CHECKED
    return min(verdicts, key=STRENGTH.index)
