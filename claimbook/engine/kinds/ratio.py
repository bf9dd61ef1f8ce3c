"""Kind ``ratio``: one system (or set of results) against another, scenario by scenario.

Forms: ``up-to`` (the best case must reach the figure; the spread is shown), ``each`` (every
case its own figure), ``lead`` (the subject ahead in every case, beyond ``tie_within`` percent
if given), ``outcomes`` (lead / tie / trail expected per case; a tie is within ``tie_within``
percent, the claim's own definition) and ``within`` (every subject result within ``within``
percent of its baseline; ``within`` may be a vague quantifier, "a few percent", read the one way
the method page gives, a miss by less than its precision being a caveat, not a failure). A baseline that names ``prefer: {organization: X}`` is X's own result
where X has one, else the best result of the class by anyone else (X's "best partner"). When the
baseline belongs to another vendor than the claimant, the claim is also judged against the best
result of the baseline's class by any submitter; a claim that holds only as stated is flagged.
A case that sets results of different divisions against each other is shown but not judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import validate as validate_selector
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.compare import per_watt, speedup
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Data,
    Outcome,
    across_divisions,
    benchmarks_of,
    best_row,
    cannot_check,
    chosen,
    claimed_for,
    each_label,
    finish,
    label_of,
    pick,
    rows_of,
    scenarios_of,
    select_for,
    within_divisions,
)
from claimbook.engine.verdict import (
    CANNOT_BE_CHECKED,
    NOT_SUPPORTED,
    SUPPORTED,
    matches,
    quantifier,
    reaches,
)

OUTCOMES = ("lead", "tie", "trail")


@dataclass(frozen=True)
class RatioCase(CaseDetail):
    """One comparison: the results on both sides, how the baseline was chosen, and the figures a
    reader expects beside the ratio (per GPU, per watt, against the best of the baseline's class
    and the best rival at the claimant's size); for a case with nothing to measure, why."""

    note: str = ""
    cross_division: bool = False
    baseline: str = ""  # the baseline result, "NVIDIA ... (8 GPUs)"
    baseline_chosen: str = ""  # named, own, or best partner (the claim's ``prefer`` rule)
    subject_result: float | None = None
    baseline_result: float | None = None
    units: str = ""
    metric: str = ""
    higher_is_better: bool | None = None
    metric_change: float | None = None  # the metric's own signed change, in percent
    subject_gpus: int | None = None
    baseline_gpus: int | None = None
    expected: str | None = None  # an outcomes ratio's expected lead, tie or trail
    inferred_against_measured: str | None = None  # the side whose result is inferred
    per_gpu_ratio: float | None = None
    per_watt_ratio: float | None = None
    best_class: str | None = None  # the baseline's class in words
    best_any: str | None = None  # the best result of that class by any submitter
    measured_vs_best_any: float | None = None
    best_rival: str | None = None  # the best other vendor's result at the claimant's size
    best_rival_family: str | None = None
    best_rival_is_baseline: bool = False
    vs_best_rival: float | None = None

    @property
    def compared(self) -> str:
        return self.baseline or self.note


# -- the forms: how a ratio is judged, one row each -------------------------------------------


@dataclass(frozen=True)
class Form:
    meaning: str
    fields: object  # (claim) -> None: the form's own field checks
    judge: object  # (claim, measured, ratio, label, scenario) -> (claimed figure, holds)
    decide: object  # (claim, unit, cases, codes) -> (verdict, reason, deciding case)
    line: object  # (claim, unit) -> (where the chart's dashed line is, what it marks)
    # Every subject result against its own counterpart (the best baseline result that matches it)
    # rather than one subject and one baseline result per case; no best of the class then.
    counterparts: bool = False


def _tie(claim: Claim) -> float:
    return float(claim.get("tie_within") or 0.0) / 100.0


def _outcome(ratio: float, tie: float) -> str:
    if ratio > 1.0 + tie:
        return "lead"
    if ratio < 1.0 - tie:
        return "trail"
    return "tie"


def within_reading(claim: Claim) -> tuple[float, float, str]:
    """The bound of a "within" claim in percent, the precision it is stated with (a miss by less
    is a caveat), and how the book reads it."""
    value = claim.get("within")
    if isinstance(value, str):
        reading = quantifier(value)
        return reading.high, reading.precision, f'"{reading.phrase}" read as {reading.meaning}'
    return float(value), 0.0, f"within {formatting.stated(float(value), '%')}"


def _needs_claimed(claim: Claim) -> None:
    if claim.claimed is None:
        kinds.fail(claim, "claimed", f"a ratio of form {claim.get('form')} needs the claimed figure")


def _up_to_fields(claim: Claim) -> None:
    _needs_claimed(claim)
    if not isinstance(claim.claimed, (int, float)):
        kinds.fail(claim, "claimed", "an up-to ratio has one figure")


def _outcomes_fields(claim: Claim) -> None:
    outcomes = claim.get("outcomes")
    if not isinstance(outcomes, dict) or not outcomes:
        kinds.fail(claim, "outcomes", "expected {baseline label: {scenario: lead|tie|trail}}")
    for label, cases in outcomes.items():
        if not isinstance(cases, dict) or not all(value in OUTCOMES for value in cases.values()):
            kinds.fail(claim, f"outcomes.{label}", f"expected {{scenario: {'|'.join(OUTCOMES)}}}")
    if claim.get("tie_within") is None:
        kinds.fail(claim, "tie_within", "an outcomes ratio needs the claim's definition of a tie, in percent")


def _within_fields(claim: Claim) -> None:
    within = claim.get("within")
    if within is None:
        kinds.fail(claim, "within", "a within ratio needs the allowed gap, in percent, or a quantifier")
    if isinstance(within, str):
        try:
            quantifier(within)
        except ValueError as exc:
            kinds.fail(claim, "within", str(exc))
    elif isinstance(within, bool) or not isinstance(within, (int, float)) or within < 0:
        kinds.fail(
            claim, "within", "the allowed gap in percent (a number), or a quantifier such as 'a few percent'"
        )


def _judge_up_to(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    claimed = float(claim.claimed)
    return claimed, reaches(measured, claimed, claim.tolerance)


def _judge_each(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    claimed = claimed_for(claim, label, scenario) if label != "baseline" else claimed_for(claim, scenario)
    if claimed is None and isinstance(claim.claimed, dict) and isinstance(claim.claimed.get(label), dict):
        value = claim.claimed[label].get(scenario)
        claimed = None if value is None else float(value)
    return claimed, (None if claimed is None else reaches(measured, claimed, claim.tolerance))


def _judge_lead(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    return None, ratio > 1.0 + _tie(claim)


def _judge_outcomes(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    expected = (claim.get("outcomes") or {}).get(label, {}).get(scenario)
    if expected is None:
        return None, None
    return None, _outcome(ratio, _tie(claim)) == expected


def _judge_within(claim: Claim, measured: float, ratio: float, label: str, scenario: str):
    bound, precision, _ = within_reading(claim)
    return bound, abs(ratio - 1.0) * 100.0 - bound < precision or abs(ratio - 1.0) * 100.0 <= bound


def _claimed_line(claim: Claim, unit: str):
    return float(claim.claimed), "claimed"


def _level_line(claim: Claim, unit: str):
    return (1.0, "level") if unit == "x" else (0.0, "level")


def _within_line(claim: Claim, unit: str):
    bound = within_reading(claim)[0]
    return -bound, f"{formatting.stated(bound, '%')} below"


def _no_line(claim: Claim, unit: str):
    return None, "claimed"


def _baselines(claim: Claim) -> list[tuple[str, dict]]:
    """(label, selector) of each baseline: one mapping, or a list with a ``label`` each."""
    baseline = claim.get("baseline")
    if isinstance(baseline, dict):
        return [("baseline", baseline)]
    if isinstance(baseline, list):
        found = []
        for index, entry in enumerate(baseline):
            if not isinstance(entry, dict) or not entry.get("label"):
                raise ValueError(f"{claim.where}: field baseline[{index}]: each baseline needs a label")
            found.append((str(entry["label"]), {k: v for k, v in entry.items() if k != "label"}))
        return found
    raise ValueError(f"{claim.where}: field baseline: expected a selector or a list of labelled selectors")


def _value(row: pd.Series, measure: str) -> float | None:
    """The figure compared; None per GPU for a result without GPUs (a CPU-only system)."""
    if measure != "per-gpu":
        return float(row["result"])
    gpus = int(row["total_accelerators"])
    return float(row["result"]) / gpus if gpus else None


def _measured(ratio: float, unit: str) -> float:
    return ratio if unit == "x" else 100.0 * (ratio - 1.0)


def _ratio(subject: pd.Series, base: pd.Series, measure: str) -> float | None:
    new, old = _value(subject, measure), _value(base, measure)
    return None if new is None or old is None else speedup(new, old, bool(subject["higher_is_better"]))


def _choose(
    rows: pd.DataFrame, prefer: dict | None, selector=None, role="baseline", claim=None, case=""
) -> tuple[pd.Series | None, str]:
    """The baseline result of a case, and how it was chosen: the claim's ``prefer`` rule (its own
    best, else the best partner's), or the one result its selector names."""
    if prefer:
        own = rows
        for field, value in prefer.items():
            own = own[own[{"organization": "organization"}.get(field, field)] == value]
        if not own.empty:
            return best_row(own), "own"
        others = rows.drop(own.index)
        return best_row(others), "best partner"
    if claim is None:
        return best_row(rows), "named"
    return pick(rows, selector, role, claim, case), "named"


def _class_selector(selector: dict, base_rows: pd.DataFrame) -> dict:
    """The class a baseline belongs to: its selector without who submitted it, and the accelerator
    and system size of the baseline's results where the selector names a system instead (the best
    "GB300 NVL72 result of any submitter" is a 72-GPU GB300 result, not any result at all)."""
    found = {field: value for field, value in selector.items() if field not in ("organization", "system")}
    if "family" not in found and "accelerator" not in found:
        found["family"] = sorted(set(base_rows["family"].astype(str)))
    if "gpus" not in found and "nodes" not in found:
        found["gpus"] = sorted({int(value) for value in base_rows["total_accelerators"]})
    return found


def class_name(selector: dict) -> str:
    """A class in words, for a column or a sentence: "NVIDIA GB300, 72 GPUs"."""
    families = selector.get("family") or selector.get("accelerator") or []
    families = [families] if isinstance(families, str) else list(families)
    gpus = selector.get("gpus")
    gpus = [gpus] if isinstance(gpus, int) else (gpus if isinstance(gpus, list) else [])
    size = f"{' or '.join(map(str, gpus))} GPU{'' if gpus == [1] else 's'}" if gpus else ""
    return ", ".join(part for part in (" or ".join(map(str, families)), size) if part) or "any result"


NO_EXPECTATION = "No case has an expectation the data can test."


def _decide_up_to(claim: Claim, unit: str, cases: list[Case], codes: set) -> tuple[str, str, str]:
    """The best case must reach the figure; the spread is shown."""
    claimed = float(claim.claimed)
    best = max(cases, key=lambda case: (case.measured, case.label))
    spread = ", ".join(f"{case.label} {formatting.case_figure(case.measured, unit)}" for case in cases)
    if not best.reaches:
        return (
            NOT_SUPPORTED,
            (
                f"No case reaches the claimed {formatting.stated(claimed, unit)}: the best is "
                f"{formatting.case_figure(best.measured, unit)} ({best.label}); all cases: {spread}."
            ),
            best.label,
        )
    if any(not case.reaches for case in cases):
        codes.add("best-case-only")
    if not matches(best.measured, claimed, claim.tolerance):
        codes.add("understated")
    return (
        SUPPORTED,
        (
            f"The best case, {best.label}, gives {formatting.case_figure(best.measured, unit)} against the claimed "
            f"{formatting.stated(claimed, unit)}; all cases: {spread}."
        ),
        best.label,
    )


def _decide_within(claim: Claim, unit: str, cases: list[Case], codes: set) -> tuple[str, str, str]:
    """Every result within the bound of its counterpart; a miss by less than the precision the
    bound is stated with is a caveat (near-bound), not a failure."""
    judged = [case for case in cases if case.reaches is not None]
    if not judged:
        return NOT_SUPPORTED, NO_EXPECTATION, cases[0].label
    codes.add("definition-dependent")
    within, precision, reading = within_reading(claim)

    def gap(case):
        return abs(case.measured if unit == "%" else 100.0 * (case.measured - 1.0))

    outside = [case for case in judged if not case.reaches]
    near = [case for case in judged if case.reaches and gap(case) > within]
    low = min(judged, key=lambda case: case.measured)
    high = max(judged, key=lambda case: case.measured)
    inside = len(judged) - len(outside) - len(near)
    text = (
        f"{inside} of {len(judged)} results are within {formatting.stated(within, '%')} of their baseline "
        f"(from {formatting.signed_percent(low.measured)} to {formatting.signed_percent(high.measured)}; {reading})"
    )
    if near:
        codes.add("near-bound")
        text += (
            f"; {len(near)} {'lies' if len(near) == 1 else 'lie'} beyond it by less than the precision "
            f"it is stated with ({formatting.points(precision)}): "
            + "; ".join(
                f"{case.label} {formatting.signed_percent(case.measured, 2)}, {formatting.points(gap(case) - within, 2)} beyond"
                for case in near
            )
        )
    if outside:
        listed = "; ".join(f"{case.label} {formatting.signed_percent(case.measured)}" for case in outside)
        return NOT_SUPPORTED, f"{text}; outside: {listed}.", outside[0].label
    return SUPPORTED, text + ".", low.label


def _decide_every_case(
    claim: Claim, unit: str, cases: list[Case], codes: set, *, describe, understated: bool = False
) -> tuple[str, str, str]:
    """Every case with an expectation must hold; ``describe`` says each case in the reason, and
    ``understated`` flags a claimed figure below the measured one."""
    judged = [case for case in cases if case.reaches is not None]
    if not judged:
        return NOT_SUPPORTED, NO_EXPECTATION, cases[0].label
    failing = [case for case in judged if not case.reaches]
    described = "; ".join(describe(claim, case, unit) for case in judged)
    if failing:
        worst = failing[0]
        return (
            NOT_SUPPORTED,
            f"Not every case holds ({len(failing)} of {len(judged)} fail{'s' if len(failing) == 1 else ''}): {described}.",
            worst.label,
        )
    if understated and any(
        case.claimed is not None and not matches(case.measured, case.claimed, claim.tolerance)
        for case in judged
    ):
        codes.add("understated")
    deciding = min(judged, key=lambda case: (case.measured, case.label))
    return SUPPORTED, f"Every case holds: {described}.", deciding.label


def _describe_each(claim: Claim, case: Case, unit: str) -> str:
    return f"{case.label} {formatting.case_figure(case.measured, unit)} (claimed {formatting.stated(case.claimed, unit)})"


def _describe_lead(claim: Claim, case: Case, unit: str) -> str:
    return f"{case.label} {formatting.case_figure(case.measured, unit)}"


def _describe_outcome(claim: Claim, case: Case, unit: str) -> str:
    ratio = case.measured if unit == "x" else 1.0 + case.measured / 100.0
    return (
        f"{case.label} {formatting.case_figure(case.measured, unit)}: {_outcome(ratio, _tie(claim))}, "
        f"claimed {case.detail.expected}"
    )


FORMS = {
    "up-to": Form(
        "the best case must reach the claimed figure; the spread is shown",
        _up_to_fields,
        _judge_up_to,
        _decide_up_to,
        _claimed_line,
    ),
    "each": Form(
        "every case must reach its own claimed figure",
        _needs_claimed,
        _judge_each,
        partial(_decide_every_case, describe=_describe_each, understated=True),
        _no_line,
    ),
    "lead": Form(
        "the subject ahead in every case, beyond tie_within percent if given",
        lambda claim: None,
        _judge_lead,
        partial(_decide_every_case, describe=_describe_lead),
        _level_line,
    ),
    "outcomes": Form(
        "lead, tie or trail as expected in each case (a tie within tie_within percent)",
        _outcomes_fields,
        _judge_outcomes,
        partial(_decide_every_case, describe=_describe_outcome),
        _level_line,
    ),
    "within": Form(
        "every subject result within 'within' percent of its counterpart",
        _within_fields,
        _judge_within,
        _decide_within,
        _within_line,
        counterparts=True,
    ),
}
ONE_PER_CASE = ("subject", "baseline")


def _one_per_case(claim: Claim) -> tuple[str, ...]:
    """A ratio takes one subject and one baseline result per case; ``within`` takes every subject
    result, each against its own counterpart (the best baseline result that matches it)."""
    form = FORMS.get(claim.get("form")) if isinstance(claim.get("form"), str) else None
    return () if form is not None and form.counterparts else ONE_PER_CASE


SPEC = kinds.KindSpec(
    name="ratio",
    description="a ratio between two systems (or sets of results), scenario by scenario",
    required=(
        kinds.BENCHMARK,
        kinds.SUBJECT,
        kinds.Field(
            "baseline", "a selector of the results compared with, or a list of selectors with a label each"
        ),
        kinds.Field("form", "how the ratio is judged", {name: form.meaning for name, form in FORMS.items()}),
    ),
    optional=(
        kinds.SCENARIOS,
        kinds.Field(
            "claimed",
            "the claimed ratio: a number, {scenario: number} or {baseline label: {scenario: number}}",
        ),
        kinds.Field(
            "unit", "how the ratio is stated", {"x": "times (the default)", "%": "a lead in percent"}
        ),
        kinds.Field(
            "prefer", "whose result the baseline is: its own best, else the best partner's (a selector)"
        ),
        kinds.Field("outcomes", "for an outcomes ratio: {baseline label: {scenario: lead, tie or trail}}"),
        kinds.Field("tie_within", "the claim's own definition of a tie, in percent (a lead must beat it)"),
        kinds.Field(
            "within", "for a within ratio: the allowed gap in percent, or a quantifier ('a few percent')"
        ),
        kinds.Field(
            "match_on", "for a within ratio: what a result and its counterpart share (gpus, system ...)"
        ),
        kinds.Field(
            "measure",
            "what is compared",
            {"total": "the systems' results (the default)", "per-gpu": "the results per GPU"},
        ),
        kinds.TOLERANCE,
        kinds.DIVISION,
        kinds.Field(
            "only_where_both", "only the cases with results on both sides count (where a comparison exists)"
        ),
    ),
    example={
        "id": "acme-ratio",
        "title": "Up to 2x the baseline",
        "statement": "Acme's system delivers up to twice the throughput of Other's on gpt-oss-120b.",
        "kind": "ratio",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "Acme-B300"},
        "baseline": {"organization": "Other", "system": "Other-H200"},
        "form": "up-to",
        "claimed": 2.0,
        "unit": "x",
    },
    detail=RatioCase,
    selectors=("subject",),
    one_per_case=ONE_PER_CASE,
    each=("subject",),
    sums=("subject", "baseline"),
    one_per_case_in=_one_per_case,
    columns=(
        *kinds.CASE_COLUMNS[:4],
        kinds.Column("Compared with", "detail.compared", missing="—"),
        kinds.Column("Baseline chosen as", "detail.baseline_chosen"),
    ),
    tables={
        "comparisons": kinds.Table(
            "Each comparison: the results on both sides, and the best of the baseline's class by any submitter",
            (
                ("Case", "case"),
                ("Claim's result", "subject"),
                ("Its result", "subject_result"),
                ("Compared with", "baseline"),
                ("Their result", "baseline_result"),
                ("Units", "units"),
                ("Baseline chosen as", "chosen_as"),
                ("Measured", "measured"),
                ("Claimed", "claimed"),
                ("Baseline's class", "class"),
                ("Best of that class by any submitter", "best_of_class"),
                ("Measured against it", "measured_vs_best_of_class"),
            ),
        )
    },
)


def validate(claim: Claim) -> None:
    form = FORMS.get(claim.get("form")) if isinstance(claim.get("form"), str) else None
    if form is None:
        kinds.fail(claim, "form", f"unknown form {claim.get('form')!r}; a ratio is one of {', '.join(FORMS)}")
    form.fields(claim)
    if claim.get("unit", "x") not in ("x", "%"):
        kinds.fail(claim, "unit", "a ratio is in x (times) or % (lead in percent)")
    if claim.get("measure", "total") not in ("total", "per-gpu"):
        kinds.fail(claim, "measure", "a ratio compares total results or per-GPU results")
    for label, selector in _baselines(claim):
        validate_selector({k: v for k, v in selector.items()}, f"{claim.where}: field baseline.{label}")
    if claim.get("prefer") is not None:
        validate_selector(claim.get("prefer"), f"{claim.where}: field prefer")


def _pairs(claim: Claim, subject: pd.DataFrame, baseline: Baseline, benchmark: str, scenario: str):
    """The (subject, baseline, how chosen) pairs of one case; several subjects for a form that
    takes counterparts (``within``) and for a subject that says ``combine: each``."""
    prefer = claim.get("prefer")
    subject_rows = subject[(subject["benchmark"] == benchmark) & (subject["scenario"] == scenario)]
    base = baseline.rows[(baseline.rows["benchmark"] == benchmark) & (baseline.rows["scenario"] == scenario)]
    if FORMS[claim.get("form")].counterparts:
        keys = list(claim.get("match_on") or [])
        found = []
        for _, row in subject_rows.sort_values("location").iterrows():
            match = base
            for key in keys:
                column = {"gpus": "total_accelerators"}.get(key, key)
                match = match[match[column] == row[column]]
            match = match[match["location"] != row["location"]]
            chosen_row, how = _choose(match, prefer)
            found.append((row, chosen_row, how))
        return found
    case = f"{benchmark} {scenario}"
    role = "baseline" if baseline.label == "baseline" else f"baseline {baseline.label}"
    chosen_base = _choose(base, prefer, baseline.selector, role, claim, case)
    if (claim.get("subject") or {}).get("combine") == "each" and not subject_rows.empty:
        return [(row, *chosen_base) for _, row in subject_rows.sort_values("location").iterrows()]
    return [(pick(subject_rows, claim.get("subject"), "subject", claim, case), *chosen_base)]


@dataclass(frozen=True)
class Baseline:
    """One baseline of a ratio claim: its label and selector, its results, and its class."""

    label: str
    selector: dict
    rows: pd.DataFrame
    class_rows: pd.DataFrame  # every result of the baseline's class, by any submitter
    class_name: str
    rival: bool  # another vendor's than the claimant's


@dataclass
class Found:
    """What a ratio check gathers, baseline by baseline, before it decides."""

    cases: list = field(default_factory=list)
    used: list = field(default_factory=list)  # frames of the results used
    missing: list = field(default_factory=list)  # what a selector did not find
    table: list = field(default_factory=list)  # the comparisons table, a dict per measured case
    rivals: list = field(default_factory=list)  # (case label, holds against the best of the class, it)


def check(claim: Claim, data: Data):
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return cannot_check(
            claim,
            f"The results the claim is about are not in the data: {subject_missing}.",
            missing=[subject_missing],
        )
    found = Found()
    vendor = data.announcement(claim).vendor
    for label, selector in _baselines(claim):
        base_rows, base_missing = select_for(data, claim, selector, f"baseline {label}")
        if base_missing:
            found.missing.append(base_missing)
            continue
        class_selector = _class_selector(selector, base_rows)
        class_rows, _ = select_for(data, claim, class_selector, f"class of baseline {label}")
        baseline = Baseline(
            label,
            selector,
            base_rows,
            class_rows,
            class_name(class_selector),
            bool(set(base_rows["vendor"]) - {vendor}),
        )
        _compare(claim, data, subject, baseline, found)
    return _decide(claim, found)


def _compare(claim: Claim, data: Data, subject: pd.DataFrame, baseline: Baseline, found: Found) -> None:
    """The cases of one baseline, benchmark by benchmark and scenario by scenario."""
    for benchmark in benchmarks_of(claim):
        in_benchmark = subject[subject["benchmark"] == benchmark]
        for scenario in scenarios_of(claim, in_benchmark["scenario"]):
            case_label = scenario if baseline.label == "baseline" else f"{baseline.label} · {scenario}"
            if len(benchmarks_of(claim)) > 1:
                case_label = f"{data.reference.display_name(benchmark)} · {case_label}"
            in_case = subject[(subject["benchmark"] == benchmark) & (subject["scenario"] == scenario)]
            for subject_row, base_row, how in _pairs(claim, subject, baseline, benchmark, scenario):
                if not _comparable(claim, subject_row, base_row):
                    why = _unmeasured(claim, baseline, scenario, subject_row, base_row)
                    if why is not None:
                        unit = claim.get("unit", "x")
                        found.cases.append(Case(case_label, scenario, None, None, unit, None, detail=why))
                    continue
                label = _case_label(claim, case_label, subject_row, in_case)
                _measure(claim, data, baseline, label, scenario, (subject_row, base_row, how), found)


def _unmeasured(claim: Claim, baseline: Baseline, scenario: str, subject_row, base_row) -> RatioCase | None:
    """Why a pair has nothing to measure, as the case that shows it; None when the claim leaves
    such a case out ("where a direct comparison exists": a case with one side missing)."""
    if subject_row is None or base_row is None:
        if bool(claim.get("only_where_both")) or FORMS[claim.get("form")].counterparts:
            return None
        side = "the subject" if subject_row is None else f"{baseline.label}"
        return RatioCase(note=f"no result of {side} in {scenario}")
    if subject_row["units"] != base_row["units"]:
        return RatioCase(note=f"different units ({subject_row['units']} and {base_row['units']})")
    return RatioCase(note="a result without GPUs: no per-GPU figure")


def _comparable(claim: Claim, subject_row, base_row) -> bool:
    """Whether a pair has a ratio: both results there, in the same units, and (per GPU) with GPUs."""
    if subject_row is None or base_row is None or subject_row["units"] != base_row["units"]:
        return False
    return _ratio(subject_row, base_row, claim.get("measure", "total")) is not None


def _case_label(claim: Claim, label: str, subject_row: pd.Series, in_case: pd.DataFrame) -> str:
    """A case's label; with several subject results in it, each result's system too."""
    if not FORMS[claim.get("form")].counterparts and (claim.get("subject") or {}).get("combine") != "each":
        return label
    return each_label(label, subject_row, in_case)


def _measure(
    claim: Claim, data: Data, baseline: Baseline, label: str, scenario: str, pair: tuple, found
) -> None:
    """One measured case, of a pair (subject result, baseline result, how the baseline was chosen):
    the ratio judged under the claim's form, against the best of the baseline's class too, with
    the figures a reader expects beside it."""
    subject_row, base_row, how = pair
    form = FORMS[claim.get("form")]
    unit = claim.get("unit", "x")
    ratio = _ratio(subject_row, base_row, claim.get("measure", "total"))
    measured = _measured(ratio, unit)
    claimed, holds = form.judge(claim, measured, ratio, baseline.label, scenario)
    crossed = across_divisions(subject_row["division"], base_row["division"])
    if crossed:
        holds = None
    best_any, against_best = _best_of_class(claim, baseline, label, scenario, subject_row, found)
    rival_best = (
        best_rival(data, subject_row, data.announcement(claim).vendor)
        if baseline.rival and not form.counterparts
        else None
    )
    detail = RatioCase(
        cross_division=crossed,
        baseline=label_of(base_row),
        baseline_chosen=how,
        subject_result=float(subject_row["result"]),
        baseline_result=float(base_row["result"]),
        units=str(subject_row["units"]),
        metric=str(subject_row["metric"]),
        higher_is_better=bool(subject_row["higher_is_better"]),
        metric_change=metric_change(subject_row["result"], base_row["result"]),
        subject_gpus=int(subject_row["total_accelerators"]),
        baseline_gpus=int(base_row["total_accelerators"]),
        expected=(claim.get("outcomes") or {}).get(baseline.label, {}).get(scenario),
        inferred_against_measured=_inferred_side(subject_row, base_row),
        per_gpu_ratio=_ratio(subject_row, base_row, "per-gpu")
        if bool(subject_row["higher_is_better"])
        else None,
        per_watt_ratio=_per_watt_ratio(subject_row, base_row),
        best_class=baseline.class_name,
        best_any=None if best_any is None else label_of(best_any),
        measured_vs_best_any=against_best,
        **_rival_fields(subject_row, base_row, rival_best),
    )
    evidence = (subject_row["location"], base_row["location"])
    selected = chosen("subject", subject_row) + chosen("baseline", base_row)
    found.cases.append(
        Case(label, scenario, measured, claimed, unit, holds, evidence, selected=selected, detail=detail)
    )
    found.used.append(pd.DataFrame([subject_row, base_row]))
    found.table.append(_comparison(label, subject_row, base_row, how, detail, measured, claimed))


def _best_of_class(claim: Claim, baseline: Baseline, label: str, scenario: str, subject_row, found: Found):
    """The best result of the baseline's class by any submitter in the case, and the ratio
    against it; where the baseline is a rival's, whether the claim holds against it too.
    (A form that takes counterparts compares each result with its own: no best of the class.)"""
    form = FORMS[claim.get("form")]
    if form.counterparts:
        return None, None
    rows = baseline.class_rows
    best_any = best_row(
        rows[
            (rows["benchmark"] == subject_row["benchmark"])
            & (rows["scenario"] == scenario)
            & (rows["location"] != subject_row["location"])
        ]
    )
    if best_any is None:
        return None, None
    best_ratio = _ratio(subject_row, best_any, claim.get("measure", "total"))
    if best_ratio is None:  # the best of the class has no GPUs to count per GPU
        return best_any, None
    against_best = _measured(best_ratio, claim.get("unit", "x"))
    if baseline.rival:
        _, best_holds = form.judge(claim, against_best, best_ratio, baseline.label, scenario)
        found.rivals.append((label, best_holds, best_any))
    return best_any, against_best


def _rival_fields(subject_row: pd.Series, base_row: pd.Series, rival_best: pd.Series | None) -> dict:
    """The best rival result at the claimant's size, as RatioCase fields."""
    if rival_best is None:
        return {}
    return {
        "best_rival": label_of(rival_best),
        "best_rival_family": str(rival_best["family"]),
        "best_rival_is_baseline": rival_best["location"] == base_row["location"],
        "vs_best_rival": 100.0 * (_ratio(subject_row, rival_best, "total") - 1.0),
    }


def _comparison(label: str, subject_row, base_row, how: str, detail: RatioCase, measured, claimed) -> dict:
    """One row of the comparisons table."""
    return {
        "case": label,
        "subject": label_of(subject_row),
        "subject_result": subject_row["result"],
        "baseline": label_of(base_row),
        "baseline_result": base_row["result"],
        "units": subject_row["units"],
        "chosen_as": how,
        "measured": measured,
        "claimed": claimed,
        "class": detail.best_class,
        "best_of_class": detail.best_any,
        "measured_vs_best_of_class": detail.measured_vs_best_any,
    }


def _decide(claim: Claim, found: Found):
    """The verdict on the cases found: the claim's form decides on the measured cases within one
    division, with the caveats and notes of sizes, power, missing cases and rivals."""
    unit = claim.get("unit", "x")
    rows = rows_of(found.used)
    tables = {"comparisons": pd.DataFrame(found.table)}
    measured_cases = [case for case in found.cases if case.measured is not None]
    if not measured_cases:
        reason = (
            "No case has results on both sides"
            + (f": {'; '.join(found.missing)}" if found.missing else "")
            + "."
        )
        return cannot_check(claim, reason, missing=found.missing, tables=tables, rows=rows)
    codes, notes = _caveats(claim, found, measured_cases)
    crossing = [case for case in measured_cases if case.detail.cross_division]
    spread = ", ".join(f"{case.label} {formatting.case_figure(case.measured, unit)}" for case in crossing)
    gathered = Outcome(
        CANNOT_BE_CHECKED,
        "",
        cases=tuple(found.cases),
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        missing=tuple(found.missing),
    )
    across, measured_cases = within_divisions(claim, measured_cases, spread, gathered)
    if across is not None:
        return across
    verdict, reason, deciding = FORMS[claim.get("form")].decide(claim, unit, measured_cases, codes)
    if verdict == SUPPORTED and found.rivals:
        _against_rivals(found.rivals, measured_cases, unit, codes, notes)
    return finish(
        claim,
        replace(
            gathered,
            verdict=verdict,
            reason=reason,
            deciding=deciding,
            context=tuple(context_notes(measured_cases, unit)),
        ),
    )


def _caveats(claim: Claim, found: Found, measured_cases: list[Case]) -> tuple[set, list]:
    """The caveat codes and notes the cases imply: a derived metric, board power, sizes that
    differ, cases missing, a best partner standing in, results of the other division."""
    codes, notes = {"derived-metric"}, []
    if any(case.detail.per_watt_ratio is not None for case in measured_cases):
        codes.add("board-power-spec")
    if any(case.detail.subject_gpus != case.detail.baseline_gpus for case in measured_cases):
        codes.add("different-size")
    if len(measured_cases) < len(found.cases) or found.missing:
        codes.add("incomplete-data")
        absent = [f"{case.label} ({case.detail.note})" for case in found.cases if case.measured is None]
        if absent:
            notes.append(f"Not measurable: {'; '.join(absent)}")
    partnered = sorted(
        {case.label for case in measured_cases if case.detail.baseline_chosen == "best partner"}
    )
    if partnered:
        prefer = claim.get("prefer")
        owner = next(iter(prefer.values())) if prefer else ""
        notes.append(
            f"{owner} has no result of its own in {', '.join(partnered)}; the best partner's result stands in, "
            "as the claim's method says"
        )
    crossing = [case for case in measured_cases if case.detail.cross_division]
    if crossing:
        codes.add("cross-division")
        notes.append(
            "Set against a result of the other division, not judged: " + ", ".join(c.label for c in crossing)
        )
    return codes, notes


def _against_rivals(rivals: list, measured_cases: list[Case], unit: str, codes: set, notes: list) -> None:
    """A supported claim against a rival's baseline that does not hold against the best result of
    the baseline's class by any submitter: flagged (not-best-rival), the cases named."""
    failing = [(label, best) for label, holds, best in rivals if holds is False]
    if not failing:
        return
    codes.add("not-best-rival")
    by_label = {case.label: case for case in measured_cases}
    listed = "; ".join(
        f"{label}: {formatting.case_figure(by_label[label].detail.measured_vs_best_any, unit)} against {label_of(best)}"
        f" (the best {by_label[label].detail.best_class} result)"
        + (
            f", short of the claimed {formatting.case_figure(by_label[label].claimed, unit)}"
            if by_label[label].claimed is not None
            else ""
        )
        for label, best in failing
    )
    notes.append(
        f"Against the best result of the baseline's class by any submitter the claim does not hold in {listed}"
    )


def charts(check, data: Data) -> list:
    """A bar per measured case, a dashed line where the claim's form puts its figure."""
    bars = tuple(
        kinds.Bar(case.label, case.measured, case.claimed, case.reaches, str(case.detail.compared))
        for case in check.cases
        if case.measured is not None
    )
    if not bars:
        return []
    unit = check.claim.unit or "x"
    line, label = FORMS[check.claim.get("form")].line(check.claim, unit)
    return [
        kinds.CaseBars(
            bars,
            check.claim.get("title") or check.claim.statement,
            f"Bar chart of the measured {'ratio' if unit == 'x' else 'lead in percent'} in each case "
            f"of the claim {check.claim.id}; a dashed line marks the {label} figure.",
            unit,
            line,
            label,
        )
    ]


def metric_change(new: float, old: float) -> float:
    """The signed change of the metric itself, in percent: a latency that fell from 27.38 s to
    16.12 s is -41.1%, however large the speedup."""
    return 100.0 * (float(new) / float(old) - 1.0)


def best_rival(data: Data, subject: pd.Series, claimant_vendor: str) -> pd.Series | None:
    """The best result of the subject's benchmark, scenario, division and size by a system of
    another vendor than the claimant's, on any accelerator: what an "ahead of" card must show."""
    results = data.results
    same = results[
        (results["benchmark"] == subject["benchmark"])
        & (results["scenario"] == subject["scenario"])
        & (results["division"] == subject["division"])
        & (results["total_accelerators"] == subject["total_accelerators"])
        & (results["vendor"].astype(str) != str(claimant_vendor))
    ]
    return best_row(same)


def _inferred_side(subject: pd.Series, base: pd.Series) -> str | None:
    """The side whose result is inferred when the other is measured (None when both are alike)."""
    if bool(subject["inferred"]) == bool(base["inferred"]):
        return None
    return label_of(subject) if bool(subject["inferred"]) else label_of(base)


def context_notes(cases: list[Case], unit: str) -> list[str]:
    """What a reader of a comparison expects beside the figure: an inferred result set against a
    measured one, the per-GPU figure where the sizes differ, the change of a lower-is-better
    metric, and the best rival result at the claimant's size."""
    notes = []
    by_side: dict[str, list[str]] = {}
    for case in cases:
        if case.detail.inferred_against_measured:
            by_side.setdefault(case.detail.inferred_against_measured, []).append(case.label)
    if by_side:
        notes.append(
            "The ratio sets an inferred result against a measured one: "
            + "; ".join(f"{side} is inferred in {', '.join(labels)}" for side, labels in by_side.items())
        )
    sized = [
        case
        for case in cases
        if case.detail.subject_gpus != case.detail.baseline_gpus and case.detail.per_gpu_ratio is not None
    ]
    if sized:
        notes.append(
            "Per GPU, beside the whole systems (they differ in size): "
            + "; ".join(
                f"{case.label} {formatting.case_figure(_measured(case.detail.per_gpu_ratio, unit), unit)}"
                for case in sized
            )
        )
    lower = [case for case in cases if case.detail.higher_is_better is False]
    if lower:
        notes.append(
            "On a lower-is-better metric the gain is a speedup and a fall of the metric: "
            + "; ".join(
                f"{case.label} {formatting.gain(_ratio_of(case, unit), case.detail.metric_change, case.detail.metric, False)}"
                f" ({formatting.result(case.detail.subject_result, case.detail.units)} against "
                f"{formatting.result(case.detail.baseline_result, case.detail.units)})"
                for case in lower
            )
        )
    rivals = [case for case in cases if case.detail.best_rival]
    if rivals:
        notes.append(
            "The best result of another vendor's system at the claimant's size, on any accelerator: "
            + "; ".join(
                f"{case.label} "
                + (
                    "the baseline itself"
                    if case.detail.best_rival_is_baseline
                    else f"{case.detail.best_rival}, {case.detail.best_rival_family}"
                )
                + f", the claimant's result {formatting.signed_percent(case.detail.vs_best_rival)} against it"
                for case in rivals
            )
        )
    return notes


def _ratio_of(case: Case, unit: str) -> float:
    return case.measured if unit == "x" else 1.0 + case.measured / 100.0


def _per_watt_ratio(subject: pd.Series, base: pd.Series) -> float | None:
    if not bool(subject["higher_is_better"]):
        return None
    mine = per_watt(subject["result"], int(subject["total_accelerators"]), subject["gpu_watts"])
    theirs = per_watt(base["result"], int(base["total_accelerators"]), base["gpu_watts"])
    return mine / theirs if mine and theirs else None
