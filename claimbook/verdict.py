"""The book's verdicts: a fixed vocabulary, and the few rules every kind of claim shares.

``matches`` says whether a measurement is the claimed figure as the claim states it (at its
precision); ``reaches`` whether it is that figure or better, in the direction that favours the
claim. Every kind of check, the scorecard and the ledger use these two and nothing else, so a
tolerance means the same thing everywhere.
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


def matches(measured: float | None, claimed: float, tolerance: float = 0.0) -> bool:
    """Whether ``measured`` is the claimed figure as stated.

    A figure written with d decimals matches a measurement that rounds (half up) or truncates
    to it at d decimals: 2.57 is "2.5x" (truncated) and 3.74 is "3.7x" (rounded); 5.81 is not
    "5.7". ``tolerance`` widens the match by that fraction of the claim.
    """
    if measured is None or not (math.isfinite(measured) and math.isfinite(claimed)):
        return False
    quantum = Decimal(1).scaleb(-decimals_of(claimed))
    value = Decimal(repr(float(measured)))
    target = Decimal(repr(float(claimed))).quantize(quantum)
    if value.quantize(quantum, rounding=ROUND_HALF_UP) == target:
        return True
    if value.quantize(quantum, rounding=ROUND_DOWN) == target:
        return True
    return abs(measured - claimed) <= tolerance * abs(claimed)


def reaches(
    measured: float | None, claimed: float, tolerance: float = 0.0, higher_is_better: bool = True
) -> bool:
    """Whether ``measured`` is the claimed figure or better than it (for the claim)."""
    if measured is None or not math.isfinite(measured):
        return False
    if matches(measured, claimed, tolerance):
        return True
    return measured > claimed if higher_is_better else measured < claimed


def gap_percent(claimed: float, measured: float) -> float:
    """How far the claim is from the measurement, signed, in percent of the measurement."""
    return 100.0 * (claimed / measured - 1.0)


def signed(value: float, decimals: int = 1) -> str:
    """A signed percentage: "+3.7%", "-1.9%", "0.0%"."""
    text = f"{value:+.{decimals}f}%"
    return text.replace("+0.0%", "0.0%").replace("-0.0%", "0.0%")


def weakest(verdicts) -> str:
    """The weakest of several verdicts (a claim made of parts is no stronger than its weakest)."""
    verdicts = list(verdicts)
    if not verdicts:
        return CANNOT_BE_CHECKED
    return min(verdicts, key=STRENGTH.index)


# Units that count things: "1 result", "4 categories", whichever form the registry names.
_COUNTED = {
    "result": "results",
    "partner": "partners",
    "GPU": "GPUs",
    "category": "categories",
    "vendor": "vendors",
    "family": "families",
    "organization": "organizations",
    "system": "systems",
    "benchmark": "benchmarks",
}
_COUNT_FORMS = {
    **{singular: (singular, many) for singular, many in _COUNTED.items()},
    **{many: (singular, many) for singular, many in _COUNTED.items()},
}


def figure(value: float | None, unit: str = "") -> str:
    """A measured figure as the book writes it: three significant digits, thousands separated;
    a counted unit agrees with its number ("1 result", "3 categories")."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if unit in _COUNT_FORMS:
        unit = _COUNT_FORMS[unit][0 if value == 1 else 1]
    if abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.1f}" if unit == "%" else f"{value:.0f}"
    else:
        text = f"{value:.3g}"
    return text + ("" if unit in ("%", "x", "") else " ") + unit
