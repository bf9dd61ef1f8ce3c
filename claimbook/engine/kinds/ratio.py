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

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine.compare import per_watt, speedup
from claimbook.engine.core import (
    Case,
    Data,
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
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED, matches, quantifier, reaches

KIND = "ratio"
REQUIRED = ("benchmark", "subject", "baseline", "form")
OPTIONAL = (
    "scenarios",
    "claimed",
    "unit",
    "prefer",
    "outcomes",
    "tie_within",
    "within",
    "match_on",
    "measure",
    "tolerance",
    "division",
    "only_where_both",
)
SELECTORS = ("subject",)
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ("subject", "baseline")
EACH = ("subject",)
SUMS = ("subject", "baseline")
FORMS = ("up-to", "each", "lead", "outcomes", "within")
OUTCOMES = ("lead", "tie", "trail")


def one_per_case(claim: Claim) -> tuple[str, ...]:
    """A ratio takes one subject and one baseline result per case; ``within`` takes every subject
    result, each against its own counterpart (the best baseline result that matches it)."""
    return () if claim.get("form") == "within" else ONE_PER_CASE


def validate(claim: Claim, fail) -> None:
    form = claim.get("form")
    if form not in FORMS:
        fail("form", f"unknown form {form!r}; a ratio is one of {', '.join(FORMS)}")
    if form in ("up-to", "each") and claim.claimed is None:
        fail("claimed", f"a ratio of form {form} needs the claimed figure")
    if form == "up-to" and not isinstance(claim.claimed, (int, float)):
        fail("claimed", "an up-to ratio has one figure")
    if form == "outcomes":
        outcomes = claim.get("outcomes")
        if not isinstance(outcomes, dict) or not outcomes:
            fail("outcomes", "expected {baseline label: {scenario: lead|tie|trail}}")
        for label, cases in outcomes.items():
            if not isinstance(cases, dict) or not all(value in OUTCOMES for value in cases.values()):
                fail(f"outcomes.{label}", f"expected {{scenario: {'|'.join(OUTCOMES)}}}")
        if claim.get("tie_within") is None:
            fail("tie_within", "an outcomes ratio needs the claim's definition of a tie, in percent")
    if form == "within":
        within = claim.get("within")
        if within is None:
            fail("within", "a within ratio needs the allowed gap, in percent, or a quantifier")
        if isinstance(within, str):
            try:
                quantifier(within)
            except ValueError as exc:
                fail("within", str(exc))
        elif isinstance(within, bool) or not isinstance(within, (int, float)) or within < 0:
            fail("within", "the allowed gap in percent (a number), or a quantifier such as 'a few percent'")
    if claim.get("unit", "x") not in ("x", "%"):
        fail("unit", "a ratio is in x (times) or % (lead in percent)")
    if claim.get("measure", "total") not in ("total", "per-gpu"):
        fail("measure", "a ratio compares total results or per-GPU results")
    from claimbook.claims.selectors import validate as validate_selector

    for label, selector in _baselines(claim):
        validate_selector({k: v for k, v in selector.items()}, f"{claim.where}: field baseline.{label}")
    if claim.get("prefer") is not None:
        validate_selector(claim.get("prefer"), f"{claim.where}: field prefer")


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


def _value(row: pd.Series, measure: str) -> float:
    return (
        float(row["result"]) / int(row["total_accelerators"])
        if measure == "per-gpu"
        else float(row["result"])
    )


def _measured(ratio: float, unit: str) -> float:
    return ratio if unit == "x" else 100.0 * (ratio - 1.0)


def _ratio(subject: pd.Series, base: pd.Series, measure: str) -> float:
    return speedup(_value(subject, measure), _value(base, measure), bool(subject["higher_is_better"]))


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


def _judge_case(claim: Claim, form: str, measured: float, ratio: float, label: str, scenario: str):
    """(claimed figure, reaches) of one case under the claim's form."""
    tolerance = claim.tolerance
    if form == "up-to":
        claimed = float(claim.claimed)
        return claimed, reaches(measured, claimed, tolerance)
    if form == "each":
        claimed = claimed_for(claim, label, scenario) if label != "baseline" else claimed_for(claim, scenario)
        if claimed is None and isinstance(claim.claimed, dict) and isinstance(claim.claimed.get(label), dict):
            value = claim.claimed[label].get(scenario)
            claimed = None if value is None else float(value)
        return claimed, (None if claimed is None else reaches(measured, claimed, tolerance))
    tie = float(claim.get("tie_within") or 0.0) / 100.0
    if form == "lead":
        return None, ratio > 1.0 + tie
    if form == "outcomes":
        expected = (claim.get("outcomes") or {}).get(label, {}).get(scenario)
        if expected is None:
            return None, None
        return None, _outcome(ratio, tie) == expected
    if form == "within":
        bound, precision, _ = within_reading(claim)
        return bound, abs(ratio - 1.0) * 100.0 - bound < precision or abs(ratio - 1.0) * 100.0 <= bound
    raise ValueError(form)


def within_reading(claim: Claim) -> tuple[float, float, str]:
    """The bound of a "within" claim in percent, the precision it is stated with (a miss by less
    is a caveat), and how the book reads it."""
    value = claim.get("within")
    if isinstance(value, str):
        reading = quantifier(value)
        return reading.high, reading.precision, f'"{reading.phrase}" read as {reading.meaning}'
    return float(value), 0.0, f"within {formatting.stated(float(value), '%')}"


def _outcome(ratio: float, tie: float) -> str:
    if ratio > 1.0 + tie:
        return "lead"
    if ratio < 1.0 - tie:
        return "trail"
    return "tie"


def _pairs(
    claim: Claim,
    subject: pd.DataFrame,
    base_rows: pd.DataFrame,
    prefer,
    label: str,
    benchmark: str,
    scenario: str,
    selector: dict | None = None,
):
    """The (subject, baseline, how chosen) pairs of one case; several subjects for ``within`` and
    for a subject that says ``combine: each``."""
    subject_rows = subject[(subject["benchmark"] == benchmark) & (subject["scenario"] == scenario)]
    base = base_rows[(base_rows["benchmark"] == benchmark) & (base_rows["scenario"] == scenario)]
    if claim.get("form") == "within":
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
    role = "baseline" if label == "baseline" else f"baseline {label}"
    baseline = _choose(base, prefer, selector, role, claim, case)
    if (claim.get("subject") or {}).get("combine") == "each" and not subject_rows.empty:
        return [(row, *baseline) for _, row in subject_rows.sort_values("location").iterrows()]
    return [(pick(subject_rows, claim.get("subject"), "subject", claim, case), *baseline)]


def check(claim: Claim, data: Data):
    form = claim.get("form")
    unit = claim.get("unit", "x")
    measure = claim.get("measure", "total")
    prefer = claim.get("prefer")
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return cannot_check(
            claim,
            f"The results the claim is about are not in the data: {subject_missing}.",
            missing_texts=[subject_missing],
        )
    announcement = data.announcement(claim)
    cases, used, missing_texts, notes, table = [], [], [], [], []
    # "where a direct comparison exists": a case with one side missing is outside the claim.
    only_where_both = bool(claim.get("only_where_both")) or form == "within"
    rival_cases = []  # (case label, holds against the best of the class by anyone)
    for label, selector in _baselines(claim):
        base_rows, base_missing = select_for(data, claim, selector, f"baseline {label}")
        if base_missing:
            missing_texts.append(base_missing)
            continue
        class_selector = _class_selector(selector, base_rows)
        class_rows, _ = select_for(data, claim, class_selector, f"class of baseline {label}")
        best_class = class_name(class_selector)
        rival = set(base_rows["vendor"]) - {announcement.vendor}
        for benchmark in benchmarks_of(claim):
            in_benchmark = subject[subject["benchmark"] == benchmark]
            for scenario in scenarios_of(claim, in_benchmark["scenario"]):
                case_label = scenario if label == "baseline" else f"{label} · {scenario}"
                if len(benchmarks_of(claim)) > 1:
                    case_label = f"{data.reference.display_name(benchmark)} · {case_label}"
                pairs = _pairs(claim, subject, base_rows, prefer, label, benchmark, scenario, selector)
                for subject_row, base_row, how in pairs:
                    if subject_row is None or base_row is None:
                        if only_where_both:
                            continue
                        side = "the subject" if subject_row is None else f"{label}"
                        cases.append(
                            Case(
                                case_label,
                                scenario,
                                None,
                                None,
                                unit,
                                None,
                                extra={"note": f"no result of {side} in {scenario}"},
                            )
                        )
                        continue
                    if subject_row["units"] != base_row["units"]:
                        cases.append(
                            Case(
                                case_label,
                                scenario,
                                None,
                                None,
                                unit,
                                None,
                                extra={
                                    "note": f"different units ({subject_row['units']} and {base_row['units']})"
                                },
                            )
                        )
                        continue
                    this_label = (
                        case_label
                        if form != "within" and (claim.get("subject") or {}).get("combine") != "each"
                        else each_label(
                            case_label,
                            subject_row,
                            subject[(subject["benchmark"] == benchmark) & (subject["scenario"] == scenario)],
                        )
                    )
                    ratio = _ratio(subject_row, base_row, measure)
                    measured = _measured(ratio, unit)
                    claimed, holds = _judge_case(claim, form, measured, ratio, label, scenario)
                    crossed = across_divisions(subject_row["division"], base_row["division"])
                    if crossed:
                        holds = None
                    # "within" compares each result with its own counterpart; a best of the class means nothing there.
                    best_any = (
                        None
                        if form == "within"
                        else best_row(
                            class_rows[
                                (class_rows["benchmark"] == benchmark)
                                & (class_rows["scenario"] == scenario)
                                & (class_rows["location"] != subject_row["location"])
                            ]
                        )
                    )
                    against_best = None
                    if best_any is not None:
                        best_ratio = _ratio(subject_row, best_any, measure)
                        against_best = _measured(best_ratio, unit)
                        if rival and form != "within":
                            _, best_holds = _judge_case(
                                claim, form, against_best, best_ratio, label, scenario
                            )
                            rival_cases.append((this_label, best_holds, best_any))
                    rival_best = (
                        best_rival(data, subject_row, announcement.vendor)
                        if rival and form != "within"
                        else None
                    )
                    extra = {
                        "higher_is_better": bool(subject_row["higher_is_better"]),
                        "metric": str(subject_row["metric"]),
                        "metric_change": metric_change(subject_row["result"], base_row["result"]),
                        "subject_result": float(subject_row["result"]),
                        "baseline_result": float(base_row["result"]),
                        "units": str(subject_row["units"]),
                        "inferred_against_measured": _inferred_side(subject_row, base_row),
                        "best_rival": None if rival_best is None else label_of(rival_best),
                        "best_rival_family": None if rival_best is None else str(rival_best["family"]),
                        "best_rival_is_baseline": rival_best is not None
                        and rival_best["location"] == base_row["location"],
                        "vs_best_rival": None
                        if rival_best is None
                        else 100.0 * (_ratio(subject_row, rival_best, "total") - 1.0),
                        "baseline": label_of(base_row),
                        "baseline_chosen": how,
                        "subject_gpus": int(subject_row["total_accelerators"]),
                        "baseline_gpus": int(base_row["total_accelerators"]),
                        "expected": (claim.get("outcomes") or {}).get(label, {}).get(scenario),
                        "measured_vs_best_any": against_best,
                        "best_any": None if best_any is None else label_of(best_any),
                        "best_class": best_class,
                        "per_gpu_ratio": _ratio(subject_row, base_row, "per-gpu")
                        if bool(subject_row["higher_is_better"])
                        else None,
                        "per_watt_ratio": _per_watt_ratio(subject_row, base_row),
                        "cross_division": crossed,
                    }
                    cases.append(
                        Case(
                            this_label,
                            scenario,
                            measured,
                            claimed,
                            unit,
                            holds,
                            (subject_row["location"], base_row["location"]),
                            extra,
                            chosen("subject", subject_row) + chosen("baseline", base_row),
                        )
                    )
                    used.append(pd.DataFrame([subject_row, base_row]))
                    table.append(
                        {
                            "case": this_label,
                            "subject": label_of(subject_row),
                            "subject_result": subject_row["result"],
                            "baseline": label_of(base_row),
                            "baseline_result": base_row["result"],
                            "units": subject_row["units"],
                            "chosen_as": how,
                            "measured": measured,
                            "claimed": claimed,
                            "class": best_class,
                            "best_of_class": None if best_any is None else label_of(best_any),
                            "measured_vs_best_of_class": against_best,
                        }
                    )
    rows = rows_of(used)
    tables = {"comparisons": pd.DataFrame(table)}
    measured_cases = [case for case in cases if case.measured is not None]
    if not measured_cases:
        reason = (
            "No case has results on both sides"
            + (f": {'; '.join(missing_texts)}" if missing_texts else "")
            + "."
        )
        return cannot_check(claim, reason, missing_texts=missing_texts, tables=tables, rows=rows)
    codes = {"derived-metric"}
    if any(case.extra.get("per_watt_ratio") is not None for case in measured_cases):
        codes.add("board-power-spec")
    if any(case.extra["subject_gpus"] != case.extra["baseline_gpus"] for case in measured_cases):
        codes.add("different-size")
    if len(measured_cases) < len(cases) or missing_texts:
        codes.add("incomplete-data")
        absent = [f"{case.label} ({case.extra.get('note')})" for case in cases if case.measured is None]
        if absent:
            notes.append(f"Not measurable: {'; '.join(absent)}")
    if any(case.extra.get("baseline_chosen") == "best partner" for case in measured_cases):
        owner = next(iter(prefer.values())) if prefer else ""
        which = sorted(
            {case.label for case in measured_cases if case.extra.get("baseline_chosen") == "best partner"}
        )
        notes.append(
            f"{owner} has no result of its own in {', '.join(which)}; the best partner's result stands in, "
            "as the claim's method says"
        )
    crossing = [case for case in measured_cases if case.extra.get("cross_division")]
    if crossing:
        codes.add("cross-division")
        notes.append(
            "Set against a result of the other division, not judged: " + ", ".join(c.label for c in crossing)
        )
    spread = ", ".join(f"{case.label} {formatting.case_figure(case.measured, unit)}" for case in crossing)
    across, measured_cases = within_divisions(
        claim,
        measured_cases,
        spread,
        cases=cases,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        missing_texts=missing_texts,
    )
    if across is not None:
        return across
    verdict, reason, deciding = _verdict(claim, form, unit, measured_cases, codes)
    if verdict == SUPPORTED and rival_cases:
        failing = [(label, best) for label, holds, best in rival_cases if holds is False]
        if failing:
            codes.add("not-best-rival")
            by_label = {case.label: case for case in measured_cases}
            listed = "; ".join(
                f"{label}: {formatting.case_figure(by_label[label].extra['measured_vs_best_any'], unit)} against {label_of(best)}"
                f" (the best {by_label[label].extra['best_class']} result)"
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
    return finish(
        claim,
        verdict,
        reason,
        cases=cases,
        deciding=deciding,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        missing_texts=missing_texts,
        context=context_notes(measured_cases, unit),
    )


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
        if case.extra.get("inferred_against_measured"):
            by_side.setdefault(case.extra["inferred_against_measured"], []).append(case.label)
    if by_side:
        notes.append(
            "The ratio sets an inferred result against a measured one: "
            + "; ".join(f"{side} is inferred in {', '.join(labels)}" for side, labels in by_side.items())
        )
    sized = [
        case
        for case in cases
        if case.extra.get("subject_gpus") != case.extra.get("baseline_gpus")
        and case.extra.get("per_gpu_ratio") is not None
    ]
    if sized:
        notes.append(
            "Per GPU, beside the whole systems (they differ in size): "
            + "; ".join(
                f"{case.label} {formatting.case_figure(_measured(case.extra['per_gpu_ratio'], unit), unit)}"
                for case in sized
            )
        )
    lower = [case for case in cases if case.extra.get("higher_is_better") is False]
    if lower:
        notes.append(
            "On a lower-is-better metric the gain is a speedup and a fall of the metric: "
            + "; ".join(
                f"{case.label} {formatting.gain(_ratio_of(case, unit), case.extra['metric_change'], case.extra['metric'], False)}"
                f" ({formatting.result(case.extra['subject_result'], case.extra['units'])} against "
                f"{formatting.result(case.extra['baseline_result'], case.extra['units'])})"
                for case in lower
            )
        )
    rivals = [case for case in cases if case.extra.get("best_rival")]
    if rivals:
        notes.append(
            "The best result of another vendor's system at the claimant's size, on any accelerator: "
            + "; ".join(
                f"{case.label} "
                + (
                    "the baseline itself"
                    if case.extra["best_rival_is_baseline"]
                    else f"{case.extra['best_rival']}, {case.extra['best_rival_family']}"
                )
                + f", the claimant's result {formatting.signed_percent(case.extra['vs_best_rival'])} against it"
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


def _verdict(claim: Claim, form: str, unit: str, cases: list[Case], codes: set) -> tuple[str, str, str]:
    """Base verdict, reason and deciding case of a ratio claim."""
    if form == "up-to":
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
    judged = [case for case in cases if case.reaches is not None]
    if not judged:
        return NOT_SUPPORTED, "No case has an expectation the data can test.", cases[0].label
    if form == "within":
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
    failing = [case for case in judged if not case.reaches]
    described = "; ".join(_describe(claim, form, case, unit) for case in judged)
    if failing:
        worst = failing[0]
        return (
            NOT_SUPPORTED,
            f"Not every case holds ({len(failing)} of {len(judged)} fail{'s' if len(failing) == 1 else ''}): {described}.",
            worst.label,
        )
    if form == "each" and any(
        case.claimed is not None and not matches(case.measured, case.claimed, claim.tolerance)
        for case in judged
    ):
        codes.add("understated")
    deciding = min(judged, key=lambda case: (case.measured, case.label))
    return SUPPORTED, f"Every case holds: {described}.", deciding.label


def _describe(claim: Claim, form: str, case: Case, unit: str) -> str:
    measured = formatting.case_figure(case.measured, unit)
    if form == "each":
        return f"{case.label} {measured} (claimed {formatting.stated(case.claimed, unit)})"
    if form == "lead":
        return f"{case.label} {measured}"
    if form == "outcomes":
        tie = float(claim.get("tie_within") or 0.0)
        ratio = case.measured if unit == "x" else 1.0 + case.measured / 100.0
        return (
            f"{case.label} {measured}: {_outcome(ratio, tie / 100.0)}, claimed {case.extra.get('expected')}"
        )
    if form == "within":
        return f"{case.label} {measured}"
    return f"{case.label} {measured}"
