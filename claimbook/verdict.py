"""The one way the book judges a claim, with a fixed vocabulary of verdicts."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

SUPPORTED = "supported"
SUPPORTED_WITH_CAVEATS = "supported with caveats"
NOT_SUPPORTED = "not supported"
CANNOT_BE_CHECKED = "cannot be checked"
VERDICTS = (SUPPORTED, SUPPORTED_WITH_CAVEATS, NOT_SUPPORTED, CANNOT_BE_CHECKED)


@dataclass(frozen=True)
class Verdict:
    verdict: str
    reason: str
    caveats: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}; use one of {', '.join(VERDICTS)}")

    def text(self) -> str:
        """The reason followed by the caveats, as one paragraph."""
        parts = [self.reason, *self.caveats]
        return " ".join(part if part.endswith(".") else part + "." for part in parts)


def decimals_of(claimed: float) -> int:
    """How many decimals a figure was stated with (3.7 -> 1, 99 -> 0, 0.65 -> 2)."""
    exponent = Decimal(repr(float(claimed))).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def matches_claim(measured: float, claimed: float, tolerance: float = 0.0, decimals: int | None = None) -> bool:
    """Whether a measured figure is the claimed one as the claim states it.

    A claim written with d decimals matches a measurement that rounds (half up) or truncates
    to it at d decimals: 2.57 is "2.5x" (truncated) and 3.74 is "3.7x" (rounded), while 5.81
    is not "5.7". ``tolerance`` widens the match by a fraction of the claim.
    """
    if not (math.isfinite(measured) and math.isfinite(claimed)):
        return False
    if decimals is None:
        decimals = decimals_of(claimed)
    quantum = Decimal(1).scaleb(-decimals)
    value = Decimal(repr(float(measured)))
    target = Decimal(repr(float(claimed))).quantize(quantum)
    if value.quantize(quantum, rounding=ROUND_HALF_UP) == target:
        return True
    if value.quantize(quantum, rounding=ROUND_DOWN) == target:
        return True
    return abs(measured - claimed) <= tolerance * abs(claimed)


def judge_up_to(
    claimed: float,
    measured: dict[str, float],
    unit: str = "x",
    tolerance: float = 0.0,
    caveats: tuple[str, ...] = (),
) -> Verdict:
    """Judge an "up to X" claim on the best of the measured cases (e.g. scenarios).

    Supported when the best case is the claimed figure (see ``matches_claim``); a best case
    above the claim also supports it, with the caveat that the claim understates. Caveats
    (preview systems, cases that fall short) turn "supported" into "supported with caveats".
    """
    finite = {case: value for case, value in measured.items() if value is not None and math.isfinite(value)}
    if not finite:
        return Verdict(CANNOT_BE_CHECKED, "No published result measures this claim.")
    best_case = max(finite, key=lambda case: (finite[case], case))
    best = finite[best_case]
    shown = f"{best:.2f}{unit} ({best_case})"
    if matches_claim(best, claimed, tolerance):
        reason = f"The best case reproduces the claimed {claimed:g}{unit}: {shown}."
        return Verdict(SUPPORTED_WITH_CAVEATS if caveats else SUPPORTED, reason, tuple(caveats))
    if best > claimed:
        reason = f"The data show more than the claimed {claimed:g}{unit}: {shown}."
        return Verdict(SUPPORTED_WITH_CAVEATS, reason, ("The claim understates the published result", *caveats))
    reason = f"No case reaches the claimed {claimed:g}{unit}; the best is {shown}."
    return Verdict(NOT_SUPPORTED, reason, tuple(caveats))


def shortfall_caveat(claimed: float, measured: dict[str, float], unit: str = "x", tolerance: float = 0.0) -> str | None:
    """A caveat naming the cases that do not reach an "up to" figure, or None if all do."""
    reaching = [case for case, value in measured.items() if matches_claim(value, claimed, tolerance) or value > claimed]
    short = [case for case in measured if case not in reaching]
    if not short or not reaching:
        return None
    listed = ", ".join(f"{case} {measured[case]:.2f}{unit}" for case in short)
    return f"Only {', '.join(reaching)} reaches {claimed:g}{unit}; the other cases show less ({listed})"


def availability_caveat(availability: dict[str, str]) -> str | None:
    """A caveat for results of systems not yet available (``preview``) or for research (``rdi``)."""
    notable = {system: status for system, status in availability.items() if status != "available"}
    if not notable:
        return None
    listed = ", ".join(f"{system} is a {status} submission" for system, status in sorted(notable.items()))
    return f"{listed}: not yet generally available, so the figures may change before it ships"


def judge_figure(
    claimed: float,
    measured: float | None,
    unit: str,
    tolerance: float = 0.0,
    caveats: tuple[str, ...] = (),
    what: str = "the published figure",
    notes: tuple[str, ...] = (),
) -> Verdict:
    """Judge a plain figure ("0.65 videos per second"): is the measurement that number?

    ``caveats`` qualify a supported verdict; ``notes`` only add to the reason.
    """
    if measured is None or not math.isfinite(measured):
        return Verdict(CANNOT_BE_CHECKED, f"No published result gives {what}.")
    subject = what[:1].upper() + what[1:]
    extra = "".join(f" {note}." for note in notes)
    if matches_claim(measured, claimed, tolerance):
        reason = f"{subject} is {with_unit(measured, unit)}, which is the claimed {with_unit(claimed, unit, '{:g}')}.{extra}"
        return Verdict(SUPPORTED_WITH_CAVEATS if caveats else SUPPORTED, reason, tuple(caveats))
    reason = f"{subject} is {with_unit(measured, unit)}, not the claimed {with_unit(claimed, unit, '{:g}')}.{extra}"
    return Verdict(NOT_SUPPORTED, reason, tuple(caveats))


def with_unit(value: float, unit: str, form: str = "{:.3g}") -> str:
    """A figure with its unit: "99.5%", "2.57x", "5.81 s"."""
    return form.format(value) + ("" if unit in ("%", "x", "") else " ") + unit


def judge_leading(subject: str, measured: float, rivals: dict[str, tuple[str, float] | None], unit: str = "%") -> Verdict:
    """Judge a claim of leading (highest) value under one or more definitions of the field.

    ``rivals`` maps each definition to the best other entrant (label, value), or None when the
    definition leaves no other entrant: a lead without rivals is a caveat, not a win.
    """
    if not rivals:
        return Verdict(CANNOT_BE_CHECKED, "There is no field to compare against.")
    leads, trails, alone = [], [], []
    for definition, rival in rivals.items():
        if rival is None:
            alone.append(definition)
        elif measured >= rival[1]:
            leads.append(f"{definition}: next best {rival[0]} at {rival[1]:.1f}{unit}")
        else:
            trails.append(f"{definition}: {rival[0]} leads with {rival[1]:.1f}{unit}")
    caveats = tuple(f"No other entrant {definition}" for definition in alone)
    shown = f"{subject} at {measured:.1f}{unit}"
    if not trails and leads:
        return Verdict(SUPPORTED_WITH_CAVEATS if caveats else SUPPORTED, f"{shown} leads ({'; '.join(leads)}).", caveats)
    if leads:
        return Verdict(
            SUPPORTED_WITH_CAVEATS,
            f"{shown} leads under one definition only ({'; '.join(leads)}).",
            (f"It does not lead {'; '.join(trails)}", *caveats),
        )
    if trails:
        return Verdict(NOT_SUPPORTED, f"{shown} does not lead ({'; '.join(trails)}).", caveats)
    return Verdict(CANNOT_BE_CHECKED, f"{shown} has no rival under any definition.", caveats)
