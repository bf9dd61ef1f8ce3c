"""The forms of a ratio claim, one row each (``FORMS``): what each means, the fields it uses, how
it judges a case and decides the claim, and where its chart's dashed line goes.

A figure is read by the claim's quantifier (``claimbook.engine.quantifiers``), the same way in
every kind: form ``figure`` judges the claimed figures, form ``counterparts`` every subject
result against its own counterpart (against the claimed figure, or parity where it states
none); ``lead`` and ``outcomes`` judge who is ahead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.core import Case
from claimbook.engine.kinds import multiple_unit
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED

OUTCOMES = ("lead", "tie", "trail")
NO_EXPECTATION = "No case has an expectation the data can test."


@dataclass(frozen=True)
class Form:
    meaning: str
    fields: tuple  # the fields the form uses beyond those every ratio has
    check: object  # (claim) -> None: the form's own field checks
    judge: object  # (claim, measured, ratio, label, scenario) -> (claimed figure, holds, judgment)
    decide: object  # (claim, unit, cases, codes) -> (verdict, reason, deciding case)
    line: object  # (claim, unit) -> (where the chart's dashed line is, what it marks)
    # Every subject result against its own counterpart (the best baseline result that matches it)
    # rather than one subject and one baseline result per case; no best of the class then.
    counterparts: bool = False
    parity: bool = False  # judged against parity where the claim states no figure


def form_of(claim: Claim) -> Form | None:
    name = claim.get("form")
    return FORMS.get(name) if isinstance(name, str) else None


def _tie(claim: Claim) -> float:
    return float(claim.get("tie_within") or 0.0) / 100.0


def outcome(ratio: float, tie: float) -> str:
    if ratio > 1.0 + tie:
        return "lead"
    if ratio < 1.0 - tie:
        return "trail"
    return "tie"


def target(claim: Claim, label: str, scenario: str) -> quantifiers.Figure | None:
    """The claimed figure of a case: one figure, {scenario: figure} or {label: {scenario: figure}}."""
    if label != "baseline":
        found = quantifiers.figure_for(claim, label, scenario)
        if found is not None or (isinstance(claim.claimed, dict) and label in claim.claimed):
            return found
    return quantifiers.figure_for(claim, scenario)


def parity_bound(claim: Claim) -> float | None:
    """The gap a comparison with its counterparts allows, in percent (the claimed column and the
    chart's line): within N, or the reading of a vague word."""
    read = quantifiers.read(claim)
    if read.within is not None:
        return float(read.within)
    return read.rule.bound


# -- field checks --------------------------------------------------------------------------------


def _check_outcomes(claim: Claim) -> None:
    outcomes = claim.get("outcomes")
    if not isinstance(outcomes, dict) or not outcomes:
        kinds.fail(claim, "outcomes", "expected {baseline label: {scenario: lead|tie|trail}}")
    for label, cases in outcomes.items():
        if not isinstance(cases, dict) or not all(value in OUTCOMES for value in cases.values()):
            kinds.fail(claim, f"outcomes.{label}", f"expected {{scenario: {'|'.join(OUTCOMES)}}}")
    if claim.get("tie_within") is None:
        kinds.fail(claim, "tie_within", "an outcomes ratio needs the claim's definition of a tie, in percent")


# -- judging a case ------------------------------------------------------------------------------


def _judge_read(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    figure = target(claim, label, scenario)
    if figure is None and not form_of(claim).parity:
        return None, None, None
    judgment = quantifiers.judge(quantifiers.read(claim), measured, figure, multiple_unit(claim))
    claimed = figure.value if figure is not None else parity_bound(claim)
    return claimed, judgment.holds, judgment


def _judge_lead(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    return None, ratio > 1.0 + _tie(claim), None


def _judge_outcomes(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    expected = (claim.get("outcomes") or {}).get(label, {}).get(scenario)
    if expected is None:
        return None, None, None
    return None, outcome(ratio, _tie(claim)) == expected, None


# -- deciding the claim ----------------------------------------------------------------------------


def _gap(case: Case, unit: str) -> float:
    return case.measured if unit == "%" else 100.0 * (case.measured - 1.0)


def _every_case(judged: list[Case], failing: list, described: str) -> tuple[str, str]:
    """The verdict and reason of a claim every case of which must hold (``described``: each case)."""
    if failing:
        count = len(failing)
        return (
            NOT_SUPPORTED,
            f"Not every case holds ({count} of {len(judged)} fail{'s' if count == 1 else ''}): {described}.",
        )
    return SUPPORTED, f"Every case holds: {described}."


def _decide_read(claim: Claim, unit: str, cases: list[Case], codes: set) -> tuple[str, str, str]:
    """The claim's figures judged by its quantifier, on its best case or every case."""
    read = quantifiers.read(claim)
    decision = quantifiers.decide(read, [(case, case.detail.judgment) for case in cases])
    if decision is None:
        return NOT_SUPPORTED, NO_EXPECTATION, cases[0].label
    codes.update(decision.codes)
    if form_of(claim).counterparts:
        return _counterparts_reason(claim, unit, cases, decision)
    best = decision.deciding
    if read.cases == quantifiers.BEST:
        figure = target(claim, "baseline", best.scenario) or target(claim, best.label, best.scenario)
        said, gives = read.spoken(figure, unit), formatting.case_figure(best.measured, unit)
        if not decision.holds:
            reason = f"No case reaches {said}: the best is {gives} ({best.label})"
        else:
            reason = f"The best case, {best.label}, gives {gives} against {said}"
        return (
            (SUPPORTED if decision.holds else NOT_SUPPORTED),
            f"{reason}; all cases: {kinds.spread(cases, unit)}.",
            best.label,
        )
    judged = [case for case in cases if case.detail.judgment is not None]
    described = "; ".join(
        f"{case.label} {formatting.case_figure(case.measured, unit)} "
        f"(claimed {case.detail.claimed_text or formatting.stated(case.claimed, unit)})"
        for case in judged
    )
    return *_every_case(judged, decision.failing, described), best.label


def _counterparts_reason(claim: Claim, unit: str, cases: list[Case], decision) -> tuple[str, str, str]:
    """Every result against its counterpart: how many hold, the spread of gaps, those near the
    bound (a caveat) and those outside it."""
    read = quantifiers.read(claim)
    judged = [case for case in cases if case.detail.judgment is not None]
    low = min(judged, key=lambda case: case.measured)
    high = max(judged, key=lambda case: case.measured)
    holding = len(judged) - len(decision.failing) - len(decision.near)
    figure = target(claim, "baseline", judged[0].scenario)
    text = (
        f"{holding} of {len(judged)} results are within the bound of their counterparts, read as "
        f"{read.spoken(figure, unit)} (from {formatting.signed_percent(_gap(low, unit))} "
        f"to {formatting.signed_percent(_gap(high, unit))})"
    )
    if decision.near:
        text += (
            f"; {len(decision.near)} {'lies' if len(decision.near) == 1 else 'lie'} beyond the bound by less than the "
            f"precision it is stated with ({formatting.points(read.rule.precision)}): "
            + "; ".join(
                f"{case.label} {formatting.signed_percent(_gap(case, unit), 2)}, {formatting.points(near, 2)} beyond"
                for case, near in decision.near
            )
        )
    if decision.failing:
        listed = "; ".join(
            f"{case.label} {formatting.signed_percent(_gap(case, unit))}" for case in decision.failing
        )
        return NOT_SUPPORTED, f"{text}; outside: {listed}.", decision.failing[0].label
    return SUPPORTED, text + ".", low.label


def _decide_every_case(
    claim: Claim, unit: str, cases: list[Case], codes: set, *, describe
) -> tuple[str, str, str]:
    """Every case with an expectation must hold; ``describe`` says each case in the reason."""
    judged = [case for case in cases if case.reaches is not None]
    if not judged:
        return NOT_SUPPORTED, NO_EXPECTATION, cases[0].label
    failing = [case for case in judged if not case.reaches]
    described = "; ".join(describe(claim, case, unit) for case in judged)
    deciding = failing[0] if failing else min(judged, key=lambda case: (case.measured, case.label))
    return *_every_case(judged, failing, described), deciding.label


def _against(case: Case) -> str:
    """The result a case is set against, named (a best-of baseline is a system the reader needs)."""
    baseline = getattr(case.detail, "baseline", "")
    return f" against {baseline}" if baseline and baseline not in case.label else ""


def _describe_lead(claim: Claim, case: Case, unit: str) -> str:
    return f"{case.label} {formatting.case_figure(case.measured, unit)}{_against(case)}"


def _describe_outcome(claim: Claim, case: Case, unit: str) -> str:
    said = outcome(kinds.as_ratio(case.measured, unit), _tie(claim))
    return f"{_describe_lead(claim, case, unit)}: {said}, claimed {case.detail.expected}"


# -- the chart's line ------------------------------------------------------------------------------


def _claimed_line(claim: Claim, unit: str):
    figure = quantifiers.figure(claim.claimed) if not isinstance(claim.claimed, dict) else None
    return (None if figure is None else figure.value), "claimed"


def _level_line(claim: Claim, unit: str):
    return quantifiers.parity(unit).value, "level"


def _counterparts_line(claim: Claim, unit: str):
    if claim.claimed is not None:
        return _claimed_line(claim, unit)
    bound = parity_bound(claim)
    if bound is None:
        return _level_line(claim, unit)
    low = -bound if unit == "%" else 1.0 - bound / 100.0
    return low, f"{formatting.stated(bound, '%')} below"


READ = ("claimed", "quantifier", "cases", "within", "tolerance")
FORMS = {
    "figure": Form(
        "the claimed figure of each case, read by the claim's quantifier (exactly unless it says)",
        READ,
        kinds.check_figures,
        _judge_read,
        _decide_read,
        _claimed_line,
    ),
    "lead": Form(
        "the subject ahead in every case, beyond tie_within percent if given",
        ("tie_within",),
        lambda claim: None,
        _judge_lead,
        partial(_decide_every_case, describe=_describe_lead),
        _level_line,
    ),
    "outcomes": Form(
        "lead, tie or trail as expected in each case (a tie within tie_within percent)",
        ("outcomes", "tie_within"),
        _check_outcomes,
        _judge_outcomes,
        partial(_decide_every_case, describe=_describe_outcome),
        _level_line,
    ),
    "counterparts": Form(
        "every subject result against its own counterpart (sharing match_on), read by the quantifier: "
        "against the claimed figure, or parity where it states none",
        (*READ, "match_on"),
        partial(kinds.check_figures, parity_allowed=True),
        _judge_read,
        _decide_read,
        _counterparts_line,
        counterparts=True,
        parity=True,
    ),
}
# The forms of earlier registries, and what says the same now.
RENAMED = {
    "up-to": "form: figure with quantifier: up-to",
    "each": "form: figure (quantifier: exactly, the default)",
    "within": "form: counterparts with quantifier: within (within: N) or a-few-percent",
}
