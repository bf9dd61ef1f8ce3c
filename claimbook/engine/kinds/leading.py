"""Kind ``leading``: a claim of leadership or a record ("leading performance", "the top PCIe
result", "the largest submission ever", "leading scaling efficiency").

Metrics: ``result`` (the subject's result against every other result of the field, per
benchmark and scenario, as a whole system and per GPU), ``gpus`` (system size) and
``efficiency`` (a scaling pair against every other scaling pair, under each definition of the
field). Each reading of the claim (a measure, a definition) holds when the subject leads in every
case it has a rival in; the claim is supported when every reading holds, supported with caveats
when some do, and not supported when none does. ``scope: history`` also sets the subject against
the earlier-round figures the book has, and says which rounds it lacks. A lead is judged within
the division of the subject's result: Open and Closed results are not compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import select, with_defaults
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Check,
    Data,
    Outcome,
    SelectionError,
    benchmarks_of,
    cannot_check,
    chosen,
    finish,
    label_of,
    rows_of,
    scenarios_of,
    select_for,
    several,
)
from claimbook.engine.efficiency import pair_label, scaling_pairs
from claimbook.engine.kinds.scaling import (
    DEFAULT_SUPERLINEAR_MARGIN,
    LARGE,
    SMALL,
    SUPERLINEAR_MARGIN,
    configurations,
    superlinear,
)
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED
from claimbook.inputs.earlier import round_order

MEASURES = ("total", "per-gpu")
MEASURE_NAMES = {"total": "as a whole system", "per-gpu": "per GPU"}
# Fields every metric takes: the subject, where to look, and what a part inherits from its parent.
SHARED = ("subject", "metric", "benchmark", "scenarios", "division", "claimed", "unit", "tolerance")
SAME_MEASURE_NOTE = (
    "Results of different benchmarks are not the same measure (a token of a small model costs less "
    "than a token of a large one); MLCommons compares results only within one benchmark and "
    "scenario, so the book checks that reading too"
)


@dataclass(frozen=True)
class Metric:
    """What a leadership claim compares (its ``metric``): the fields it takes beyond ``SHARED``,
    its own validation, the selectors that take one result per case, its check and its charts."""

    name: str
    meaning: str
    fields: tuple[str, ...]
    check: Callable[[Claim, Data], Check]
    validate: Callable[[Claim], None]
    one_per_case: Callable[[Claim], tuple[str, ...]]
    charts: Callable[[Check, Data], list]


@dataclass(frozen=True)
class LeadCase(CaseDetail):
    """A case of a leadership claim: who leads, the best other (a result, a system or a pair)
    with both figures in the case's units, and the per-GPU figures beside whole systems."""

    leader: str = "none"  # "none": no rival in the case
    next: str | None = None
    subject: str | None = None
    subject_value: float | None = None
    next_value: float | None = None
    units: str = ""
    subject_per_gpu: float | None = None
    next_per_gpu: float | None = None
    note: str = ""


def metric_of(claim: Claim) -> Metric | None:
    """The claim's metric (None for one the table has not: ``validate`` refuses it)."""
    name = claim.get("metric")
    return METRICS.get(name) if isinstance(name, str) else None


def one_per_case(claim: Claim) -> tuple[str, ...]:
    """A leadership claim takes one subject result per benchmark and scenario it names (its
    best, if it says so), or one scaling pair; a size record or a claim over all benchmarks
    takes the subject's best by definition."""
    metric = metric_of(claim)
    return metric.one_per_case(claim) if metric else ()


def metrics_with(name: str) -> list[str]:
    """The metrics that take a field."""
    return [metric.name for metric in METRICS.values() if name in metric.fields]


def validate(claim: Claim) -> None:
    metric = metric_of(claim)
    if metric is None:
        kinds.fail(claim, "metric", f"a leadership claim compares one of {', '.join(METRICS)}")
    for name in claim.fields:
        if name in SPEC.field_names() and name not in SHARED and name not in metric.fields:
            kinds.fail(
                claim,
                name,
                f"a field of a leading claim of metric {' or '.join(metrics_with(name))}, not of metric "
                f"{metric.name} ({metric.meaning}), which takes {', '.join(metric.fields)}",
            )
    metric.validate(claim)


def check(claim: Claim, data: Data):
    return metric_of(claim).check(claim, data)


def charts(check, data: Data) -> list:
    return metric_of(check.claim).charts(check, data)


def _validate_scope(claim: Claim) -> None:
    if claim.get("scope", "round") not in ("round", "history"):
        kinds.fail(claim, "scope", "round (this round only) or history (earlier rounds too)")


def _validate_result(claim: Claim) -> None:
    for measure in claim.get("measures") or ["total"]:
        if measure not in MEASURES:
            kinds.fail(claim, "measures", f"unknown measure {measure!r}; use {', '.join(MEASURES)}")
    _validate_scope(claim)


def _validate_efficiency(claim: Claim) -> None:
    for name in ("small", "large", "definitions", "benchmark"):
        if not claim.get(name):
            kinds.fail(
                claim,
                name,
                "a leading-efficiency claim names its benchmark, its pair (small, large) and its definitions",
            )
    for index, definition in enumerate(claim.get("definitions")):
        if (
            not isinstance(definition, dict)
            or not definition.get("label")
            or not ("beyond_gpus" in definition or definition.get("scale_out"))
        ):
            kinds.fail(
                claim,
                f"definitions[{index}]",
                "each definition has a label and beyond_gpus: N or scale_out: true",
            )


# -- the verdict every metric shares --------------------------------------------------------


def _verdict(
    claim: Claim,
    readings: dict[str, list[Case]],
    rows,
    codes: set,
    notes: list,
    tables: dict,
    context=(),
    context_notes=(),
):
    """Judge each reading (all of its cases with a rival must lead), then the claim."""
    judged = {name: [case for case in cases if case.reaches is not None] for name, cases in readings.items()}
    cases = [case for cases in readings.values() for case in cases] + list(context)
    if not any(judged.values()):
        return cannot_check(
            claim,
            "The subject has no rival in any case the claim covers, so leadership cannot be judged.",
            rows=rows,
            tables=tables,
            codes=codes,
        )
    holding = [name for name, found in judged.items() if found and all(case.reaches for case in found)]
    summary = [_reading_text(name, found) for name, found in judged.items()]
    alone = [case for found in readings.values() for case in found if case.reaches is None]
    if alone:
        # Where no one else ran, the subject leads trivially: said, not counted.
        notes.append("No rival in " + ", ".join(dict.fromkeys(case.label for case in alone)))
    if len(holding) == len([name for name in judged if judged[name]]):
        verdict = SUPPORTED
    elif holding:
        verdict = SUPPORTED
        codes.add("definition-dependent")
    else:
        verdict = NOT_SUPPORTED
    failing = [case for found in judged.values() for case in found if not case.reaches]
    deciding = (failing or [case for found in judged.values() for case in found])[0].label
    short = "; ".join(
        f"{name}: leads in {sum(case.reaches for case in found)} of {len(found)}"
        for name, found in judged.items()
        if found
    )
    outcome = Outcome(
        verdict,
        "; ".join(summary) + ".",
        cases=tuple(cases),
        deciding=deciding,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        summary=short,
        context=context_notes,
    )
    return finish(claim, outcome)


def _reading_text(name: str, found: list[Case]) -> str:
    """One reading in the reason: in how many of its cases the subject leads, by how much where
    there is one case, and who is ahead where it trails."""
    if not found:
        return f"{name}: no rival"
    led = [case for case in found if case.reaches]
    trailing = [case for case in found if not case.reaches]
    text = f"{name}: leads in {len(led)} of {formatting.plural(len(found), 'case')}"
    only = found[0]
    if len(found) == 1 and led and only.detail.next and only.measured is not None:
        if only.unit == "%":  # an efficiency: both figures, not a ratio of them
            text += (
                f" ({formatting.quantity(only.measured, '%')} against {formatting.quantity(only.detail.next_value, '%')}, "
                f"{only.detail.next})"
            )
        else:
            text += f" ({formatting.times(only.measured)} the next best, {only.detail.next})"
    if trailing:
        text += " (behind in " + "; ".join(
            f"{case.label}, {case.detail.leader} ahead" for case in trailing[:4]
        )
        text += (f" and {len(trailing) - 4} more" if len(trailing) > 4 else "") + ")"
    return text


def _lead_case(
    label: str,
    scenario: str,
    own: pd.Series,
    rivals: pd.DataFrame,
    measure: str,
    used: list,
    table: list,
    *,
    selected: bool,
) -> Case:
    """The subject's best result against the best of ``rivals`` (none: a case with no rival),
    its pair added to ``used`` and its row to the leaders ``table``. ``selected``: the case
    records the results it stands on (a reading of the claim, not the context one)."""
    if rivals.empty:
        return Case(
            label,
            scenario,
            None,
            None,
            "x",
            None,
            (own["location"],),
            selected=chosen("subject", own) if selected else (),
            detail=LeadCase(note="no rival"),
        )
    top = _best(rivals, measure)
    value, rival_value = _value(own, measure), _value(top, measure)
    higher = bool(own["higher_is_better"])
    leads = value > rival_value if higher else value < rival_value
    units = own["units"] + (" per GPU" if measure == "per-gpu" else "")
    used.append(pd.DataFrame([own, top]))
    table.append(_leaders_row(label, own, top, measure, leads))
    return Case(
        label,
        scenario,
        value / rival_value if higher else rival_value / value,
        None,
        "x",
        leads,
        (own["location"], top["location"]),
        selected=chosen("subject", own) + chosen("rival", top) if selected else (),
        detail=LeadCase(
            leader=label_of(top) if not leads else label_of(own),
            next=label_of(top),
            subject=label_of(own),
            subject_value=value,
            next_value=rival_value,
            units=units,
            subject_per_gpu=_value(own, "per-gpu"),
            next_per_gpu=_value(top, "per-gpu"),
        ),
    )


def _leaders_row(label: str, own: pd.Series, top: pd.Series, measure: str, leads: bool) -> dict:
    """A row of the leaders table: the subject's best and the best other, in the case's measure."""
    return {
        "case": label,
        "subject": label_of(own),
        "subject_value": _value(own, measure),
        "best_other": label_of(top),
        "best_other_value": _value(top, measure),
        "units": own["units"] + (" per GPU" if measure == "per-gpu" else ""),
        "leads": leads,
        "subject_per_gpu": _value(own, "per-gpu"),
        "best_other_per_gpu": _value(top, "per-gpu"),
    }


# -- metric result: the subject's result against every other result of the field -------------


def _field(data: Data, claim: Claim, subject: pd.DataFrame) -> pd.DataFrame:
    """Everything the subject is measured against: the field's results, less the subject's own
    systems (a system's other scenarios are not its rivals) and less the same hardware under
    another name (the same submitter's system of the same accelerator and size: Crusoe's 512
    MI355X run on another benchmark is not another system). A record is set against another
    system."""
    defaults = {"division": claim.get("division", "closed")}
    field = select(data.results, with_defaults(claim.get("field") or {}, defaults))
    own = set(zip(subject["organization"], subject["system"]))
    hardware = set(zip(subject["organization"], subject["family"], subject["total_accelerators"]))
    mine = pd.Series(
        [
            (org, system) in own or (org, family, gpus) in hardware
            for org, system, family, gpus in zip(
                field["organization"], field["system"], field["family"], field["total_accelerators"]
            )
        ],
        index=field.index,
    )
    return field[~mine]


def _subject_and_field(claim: Claim, data: Data):
    """The subject's results and its field, or the check that says the subject is not in the data."""
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return (
            None,
            None,
            cannot_check(
                claim, f"The subject is not in the data: {subject_missing}.", missing=[subject_missing]
            ),
        )
    return subject, _field(data, claim, subject), None


def _check_result(claim: Claim, data: Data):
    subject, field, missing = _subject_and_field(claim, data)
    if missing is not None:
        return missing
    if claim.get("units"):
        subject = subject[subject["units"] == claim.get("units")]
        field = field[field["units"] == claim.get("units")]
    benchmarks = benchmarks_of(claim) or [None]
    measures = claim.get("measures") or ["total"]
    used, table = [], []
    readings = {
        MEASURE_NAMES[measure]: _measure_cases(claim, data, subject, field, benchmarks, measure, used, table)
        for measure in measures
    }
    codes, notes = set(), []
    if "per-gpu" in (claim.get("measures") or []):
        codes.add("derived-metric")
    if benchmarks == [None]:
        readings["within its own benchmark and scenario"] = _own_benchmark(data, subject, field, used, table)
    context = []
    if "per-gpu" not in measures:
        context = [per_gpu_context(readings)] if per_gpu_context(readings) else []
        if context:
            codes.add("derived-metric")
        notes.append(SAME_MEASURE_NOTE)
    history_cases = (
        _history(claim, data, subject, benchmarks, codes, notes) if claim.get("scope") == "history" else []
    )
    if history_cases:
        readings["against the earlier rounds the book has"] = history_cases
    return _verdict(
        claim, readings, rows_of(used), codes, notes, {"leaders": pd.DataFrame(table)}, context_notes=context
    )


def _measure_cases(
    claim: Claim, data: Data, subject, field, benchmarks, measure: str, used: list, table: list
) -> list[Case]:
    """One measure's cases: the subject's best against the field's best in each benchmark and
    scenario the claim names (or over all results, for a claim that names no benchmark)."""
    cases = []
    for benchmark in benchmarks:
        mine = subject if benchmark is None else subject[subject["benchmark"] == benchmark]
        theirs = field if benchmark is None else field[field["benchmark"] == benchmark]
        scenarios = scenarios_of(claim, mine["scenario"]) if benchmark is not None else [None]
        for scenario in scenarios:
            own = mine if scenario is None else mine[mine["scenario"] == scenario]
            rivals = theirs if scenario is None else theirs[theirs["scenario"] == scenario]
            rivals = rivals[rivals["metric"] == "throughput"] if measure == "per-gpu" else rivals
            if own.empty:
                continue
            if (
                benchmark is not None
                and len(own) > 1
                and (claim.get("subject") or {}).get("combine") not in ("best", "each")
            ):
                raise SelectionError(several(claim, "subject", own, f"{benchmark} {scenario}"))
            best_own = _best(own, measure)
            rivals = rivals[rivals["division"] == best_own["division"]]  # a lead is judged within a division
            label = _case_label(claim, data, measure, benchmark, scenario, benchmarks)
            cases.append(
                _lead_case(label, scenario or "", best_own, rivals, measure, used, table, selected=True)
            )
    return cases


def _case_label(claim: Claim, data: Data, measure: str, benchmark, scenario, benchmarks) -> str:
    parts = (
        MEASURE_NAMES[measure] if len(claim.get("measures") or []) > 1 else "",
        data.reference.display_name(benchmark) if benchmark and len(benchmarks) > 1 else "",
        scenario or "",
    )
    return " · ".join(part for part in parts if part) or f"all {claim.get('units') or ''} results".replace(
        "  ", " "
    )


def _own_benchmark(
    data: Data, subject: pd.DataFrame, field: pd.DataFrame, used: list, table: list
) -> list[Case]:
    """The subject's best result against the best other result of its own benchmark and scenario."""
    best_own = _best(subject, "total")
    rivals = field[
        (field["benchmark"] == best_own["benchmark"])
        & (field["scenario"] == best_own["scenario"])
        & (field["division"] == best_own["division"])
    ]
    label = f"{data.reference.display_name(best_own['benchmark'])} · {best_own['scenario']}"
    return [_lead_case(label, best_own["scenario"], best_own, rivals, "total", used, table, selected=False)]


def per_gpu_context(readings: dict[str, list[Case]]) -> str:
    """Per-GPU figures beside the whole-system ones of a record or leadership read as whole
    systems: shown for context, never deciding."""
    shown = [
        case
        for cases in readings.values()
        for case in cases
        if case.detail.subject_per_gpu is not None and case.detail.next_per_gpu is not None
    ]
    if not shown:
        return ""
    return "Per GPU, beside the whole systems (context, not deciding): " + "; ".join(
        f"{case.label}: {formatting.quantity(case.detail.subject_per_gpu, '')} against {formatting.quantity(case.detail.next_per_gpu, '')} "
        f"{case.detail.units} per GPU ({formatting.times(case.detail.subject_per_gpu / case.detail.next_per_gpu)})"
        for case in shown
    )


def _value(row: pd.Series, measure: str) -> float:
    return (
        float(row["result"]) / int(row["total_accelerators"])
        if measure == "per-gpu"
        else float(row["result"])
    )


def _best(rows: pd.DataFrame, measure: str) -> pd.Series:
    ordered = (
        rows[rows["total_accelerators"] > 0].sort_values("location", kind="stable")
        if measure == "per-gpu"
        else rows.sort_values("location", kind="stable")
    )
    values = ordered["result"] / ordered["total_accelerators"] if measure == "per-gpu" else ordered["result"]
    higher = bool(ordered["higher_is_better"].iloc[0])
    return ordered.loc[values.idxmax() if higher else values.idxmin()]


# -- scope history: the earlier rounds the book has ------------------------------------------


def _missing_rounds(data: Data) -> tuple[list[str], list[str]]:
    """The earlier rounds the book has in full (a results summary) and those it has only some
    results of."""
    present = sorted(
        set(data.earlier[data.earlier["source_type"] == "mlperf-summary"]["round"]), key=round_order
    )
    partial = sorted(set(data.earlier["round"]) - set(present), key=round_order)
    return present, partial


def _rounds_note(data: Data, current_round: str, tail: str) -> str:
    """What the book has of the rounds before ``current_round``, and so how far back it checks."""
    full, partial = _missing_rounds(data)
    return (
        f"For rounds before {current_round} the book has "
        + (f"full results of {', '.join(full)} and " if full else "no full results file, only ")
        + (f"partial figures of {', '.join(partial)}" if partial else "no figures")
        + tail
    )


def _history(
    claim: Claim, data: Data, subject: pd.DataFrame, benchmarks, codes: set, notes: list
) -> list[Case]:
    """The subject against the best earlier-round figure the book has of the same kind."""
    earlier = data.earlier
    current_round = str(subject["round"].iloc[0])
    earlier = earlier[earlier["round"] != current_round]
    if claim.get("units"):
        earlier = earlier[earlier["units"] == claim.get("units")]
    if benchmarks and benchmarks[0] is not None:
        earlier = earlier[earlier["model"].map(data.reference.benchmark).isin(benchmarks)]
    codes.add("incomplete-data")
    notes.append(
        _rounds_note(
            data, current_round, '; earlier rounds are not in the book, so "ever" is checked only that far'
        )
    )
    best_own = _best(subject, "total")
    if earlier.empty:
        return [Case("earlier rounds", "", None, None, "x", None, (best_own["location"],), detail=LeadCase())]
    top = earlier.sort_values(
        "result", ascending=not bool(earlier["higher_is_better"].iloc[0]), kind="stable"
    ).iloc[0]
    value, rival = float(best_own["result"]), float(top["result"])
    leads = value > rival
    where = f"{top['organization']} {top['system']} ({top['round']}, {top['model']} {top['scenario']}, {top['source_type']})"
    if top["source_type"] == "vendor-announcement":
        codes.add("vendor-source")
    return [
        Case(
            "earlier rounds",
            "",
            value / rival,
            None,
            "x",
            leads,
            (best_own["location"],),
            detail=LeadCase(
                leader=where if not leads else label_of(best_own),
                next=where,
                subject_value=value,
                next_value=rival,
                units=best_own["units"],
            ),
        )
    ]


# -- metric gpus: the size of the subject's largest system ------------------------------------


def _check_gpus(claim: Claim, data: Data):
    subject, field, missing = _subject_and_field(claim, data)
    if missing is not None:
        return missing
    biggest = subject.sort_values(["total_accelerators", "location"], ascending=[False, True]).iloc[0]
    others = field[
        ~field["organization"].eq(biggest["organization"]) | ~field["system"].eq(biggest["system"])
    ]
    codes, notes = set(), []
    cases = []
    if not others.empty:
        top = others.sort_values(["total_accelerators", "location"], ascending=[False, True]).iloc[0]
        cases.append(
            _size_case(
                f"{biggest['round']}", biggest, top, label_of(top), (biggest["location"], top["location"])
            )
        )
    readings = {"this round": cases}
    if claim.get("scope") == "history":
        readings.update(_gpus_history(data, biggest, codes, notes))
    rows = rows_of([subject[subject["location"] == biggest["location"]]])
    sizes = (
        field.groupby(["organization", "system"], as_index=False)["total_accelerators"]
        .max()
        .sort_values("total_accelerators", ascending=False)
        .head(10)
    )
    return _verdict(claim, readings, rows, codes, notes, {"largest_systems": sizes})


def _size_case(label: str, biggest: pd.Series, top: pd.Series, rival: str, evidence: tuple) -> Case:
    """The subject's largest system against the largest other (``rival`` names it)."""
    leads = int(biggest["total_accelerators"]) > int(top["total_accelerators"])
    return Case(
        label,
        "",
        biggest["total_accelerators"] / float(top["total_accelerators"]),
        None,
        "x",
        leads,
        evidence,
        detail=LeadCase(
            leader=rival if not leads else label_of(biggest),
            next=rival,
            subject_value=int(biggest["total_accelerators"]),
            next_value=int(top["total_accelerators"]),
            units="GPUs",
        ),
    )


def _gpus_history(data: Data, biggest: pd.Series, codes: set, notes: list) -> dict[str, list[Case]]:
    """The subject's largest system against the largest the earlier rounds the book has."""
    earlier = data.earlier[
        (data.earlier["round"] != biggest["round"]) & data.earlier["total_accelerators"].notna()
    ]
    codes.add("incomplete-data")
    notes.append(_rounds_note(data, biggest["round"], '; "history" is checked only that far'))
    if earlier.empty:
        return {}
    top = earlier.sort_values("total_accelerators", ascending=False, kind="stable").iloc[0]
    where = f"{top['organization']} {top['system']} ({top['round']}, {top['source_type']})"
    if top["source_type"] == "vendor-announcement":
        codes.add("vendor-source")
    return {
        "earlier rounds the book has": [
            _size_case("earlier rounds", biggest, top, where, (biggest["location"],))
        ]
    }


# -- metric efficiency: a scaling pair against every other scaling pair ------------------------


def _check_efficiency(claim: Claim, data: Data):
    small, large, missing = configurations(claim, data)
    if missing is not None:
        return missing
    margin = float(claim.get("superlinear_margin", DEFAULT_SUPERLINEAR_MARGIN))
    division = claim.get("division", "closed")
    pairs = scaling_pairs(
        data.results if division == "any" else data.results[data.results["division"] == division]
    )
    pairs = pairs.assign(efficiency_percent=100 * pairs["efficiency"])
    own = pairs[
        pairs["small_location"].isin(set(small["location"]))
        & pairs["large_location"].isin(set(large["location"]))
    ]
    if own.empty:
        return cannot_check(claim, "The two configurations do not form a scaling pair in the data.")
    # Other submissions only: the same racks measured from another starting size are not rivals.
    rivals = pairs[~pairs["large_location"].isin(set(large["location"]))]
    flagged = rivals[[superlinear(value, margin) for value in rivals["efficiency_percent"]]]
    eligible = rivals.drop(flagged.index)
    named = list(claim.get("scenarios") or own["scenario"])
    readings, context, codes, notes = {}, [], {"derived-metric"}, []
    for definition in claim.get("definitions"):
        readings[definition["label"]] = _definition_cases(
            claim, definition, eligible, own, (small, large), named, context, codes, notes
        )
    _flagged(flagged, own, named, margin, codes, notes)
    rows = rows_of(
        [
            small[small["location"].isin(set(own["small_location"]))],
            large[large["location"].isin(set(own["large_location"]))],
        ]
    )
    tables = {
        "pairs": pairs.assign(
            superlinear=[superlinear(value, margin) for value in pairs["efficiency_percent"]],
            own=pairs.index.isin(own.index),
        )
    }
    return _verdict(claim, readings, rows, codes, notes, tables, context)


def _definition_cases(
    claim: Claim,
    definition: dict,
    eligible,
    own,
    configurations,
    named,
    context: list,
    codes: set,
    notes: list,
) -> list[Case]:
    """One definition's cases: the claim's pair against the best eligible pair of each scenario;
    a scenario the claim does not name goes to ``context`` (a caveat where the pair trails there)."""
    if "beyond_gpus" in definition:
        field = eligible[eligible["large_gpus"] > int(definition["beyond_gpus"])]
    else:
        field = eligible[eligible["large_nodes"] > eligible["small_nodes"]]
    cases = []
    for scenario in list(dict.fromkeys(list(named) + list(own["scenario"]))):
        mine = own[own["scenario"] == scenario]
        if mine.empty:
            continue
        if len(mine) > 1:
            raise SelectionError(_several_pairs(claim, mine, configurations, scenario))
        mine = mine.iloc[0]
        case = _efficiency_case(
            f"{definition['label']} · {scenario}", scenario, mine, field[field["scenario"] == scenario]
        )
        if scenario in named:
            cases.append(case)
            continue
        context.append(replace(case, reaches=None))
        if case.reaches is False:
            codes.add("best-case-only")
            notes.append(
                f"In {scenario}, which the claim does not name, {case.detail.leader} leads under "
                f'"{definition["label"]}" ({pair_label(mine)} at {formatting.quantity(case.measured, "%")})'
            )
    return cases


def _several_pairs(claim: Claim, mine: pd.DataFrame, configurations, scenario: str) -> str:
    small, large = configurations
    locations = set(mine["large_location"]) | set(mine["small_location"])
    both = pd.concat([large[large["location"].isin(locations)], small[small["location"].isin(locations)]])
    return several(claim, "small and large", both, f"the {scenario} scaling pair")


def _efficiency_case(label: str, scenario: str, mine: pd.Series, theirs: pd.DataFrame) -> Case:
    """The claim's pair against the most efficient of ``theirs`` (none: a case with no rival)."""
    theirs = theirs.sort_values(["efficiency", "large_location"], ascending=[False, True])
    if theirs.empty:
        return Case(label, scenario, None, None, "%", None, (mine["large_location"],), detail=LeadCase())
    top = theirs.iloc[0]
    leads = mine["efficiency_percent"] >= top["efficiency_percent"]
    return Case(
        label,
        scenario,
        float(mine["efficiency_percent"]),
        None,
        "%",
        leads,
        (mine["large_location"], mine["small_location"], top["large_location"]),
        detail=LeadCase(
            leader=pair_label(top) + f" at {formatting.quantity(top['efficiency_percent'], '%')}"
            if not leads
            else pair_label(mine),
            next=pair_label(top),
            next_value=float(top["efficiency_percent"]),
            subject_value=float(mine["efficiency_percent"]),
            units="% efficiency",
        ),
    )


def _flagged(flagged: pd.DataFrame, own: pd.DataFrame, named, margin: float, codes: set, notes: list) -> None:
    """Pairs above linear (plus the margin), left out of the field: said, and a caveat where one
    would beat the claim's pair in a scenario it names."""
    beaten_by_flagged = [
        row
        for _, row in flagged.iterrows()
        if row["scenario"] in named
        and row["efficiency_percent"]
        > float(own[own["scenario"] == row["scenario"]]["efficiency_percent"].max())
    ]
    if beaten_by_flagged:
        codes.add("superlinear-baseline")
    if flagged.empty:
        return
    highest = flagged.sort_values("efficiency_percent", ascending=False, kind="stable").head(3)
    notes.append(
        f"{formatting.plural(len(flagged), 'pair')} above {formatting.stated(100 + margin, '%')} efficiency {'is' if len(flagged) == 1 else 'are'} "
        "shown but left out of the field"
        + (f"; the highest {len(highest)}: " if len(flagged) > len(highest) else ": ")
        + "; ".join(
            f"{pair_label(row)} {row['scenario']} {formatting.quantity(row['efficiency_percent'], '%')}"
            for _, row in highest.iterrows()
        )
    )


# -- the charts of each metric ----------------------------------------------------------------


def _lead_bars(check, data: Data) -> list:
    """A bar per case: the subject's best over the best other (above 1: ahead)."""
    bars = tuple(
        kinds.Bar(
            case.label, case.measured, case.claimed, case.reaches, str(case.detail.next or case.detail.note)
        )
        for case in check.cases
        if case.measured is not None
    )
    if not bars:
        return []
    return [
        kinds.CaseBars(
            bars,
            "How far ahead of the best other result",
            "Bar chart: for each case, the claim's best result divided by the best other result "
            "(above 1 means ahead); the dashed line marks level.",
            "x",
            1.0,
            "level",
        )
    ]


def _efficiency_scatters(check, data: Data) -> list:
    """Every scaling pair's efficiency in each scenario of the claim, its own pair drawn large."""
    pairs = check.tables.get("pairs")
    if pairs is None or pairs.empty:
        return []
    own = pairs[pairs["own"]]
    scenarios = list(dict.fromkeys(case.scenario for case in check.cases if case.scenario))
    return [
        kinds.EfficiencyScatter(
            pairs,
            scenario,
            f"Scaling efficiency of every pair, {scenario}",
            "Scatter plot of every scaling pair's efficiency against the larger configuration's "
            "GPU count; the claim's pair is drawn large.",
            highlight=list(zip(own["small_location"], own["large_location"])),
        )
        for scenario in scenarios
    ]


def _one_subject_per_case(claim: Claim) -> tuple[str, ...]:
    return ("subject",) if claim.get("benchmark") else ()


METRICS = {
    metric.name: metric
    for metric in (
        Metric(
            "result",
            "the subject's result against every other result of the field, as a whole system or per GPU",
            ("field", "measures", "scope", "units"),
            _check_result,
            _validate_result,
            _one_subject_per_case,
            _lead_bars,
        ),
        Metric(
            "gpus",
            "the size of the subject's largest system against every other system",
            ("field", "scope"),
            _check_gpus,
            _validate_scope,
            lambda claim: (),
            _lead_bars,
        ),
        Metric(
            "efficiency",
            "a scaling pair's efficiency against every other scaling pair, under each definition",
            ("small", "large", "definitions", "superlinear_margin"),
            _check_efficiency,
            _validate_efficiency,
            lambda claim: ("small", "large"),
            _efficiency_scatters,
        ),
    )
}


def _of_metrics(item: kinds.Field) -> kinds.Field:
    """A field only some metrics take, its meaning saying which."""
    if item.name in SHARED:
        return item
    return replace(item, meaning=f"{item.meaning} (metric {' or '.join(metrics_with(item.name))})")


SPEC = kinds.KindSpec(
    name="leading",
    description="a leadership or record claim (per system, per GPU, size, scaling efficiency)",
    required=(
        kinds.Field("subject", "a selector of the results of the system said to lead"),
        kinds.Field(
            "metric", "what the subject leads in", {name: metric.meaning for name, metric in METRICS.items()}
        ),
    ),
    optional=tuple(
        _of_metrics(item)
        for item in (
            kinds.Field(
                "field", "a selector of the results it is set against (every result of its division)"
            ),
            kinds.BENCHMARK,
            kinds.SCENARIOS,
            kinds.Field(
                "measures",
                "the readings of the lead",
                {"total": "as a whole system (the default)", "per-gpu": "per GPU (throughput results only)"},
            ),
            kinds.Field(
                "scope",
                "how far back the lead is claimed",
                {"round": "this round only (the default)", "history": "the earlier rounds the book has too"},
            ),
            kinds.Field("units", "only results in these units (Tokens/s, Samples/s ...)"),
            kinds.Field(
                "definitions",
                'the readings of "leading" scaling: each a label and beyond_gpus: N or scale_out: true',
            ),
            SMALL,
            LARGE,
            SUPERLINEAR_MARGIN,
            kinds.DIVISION,
            kinds.Field("claimed", "a figure the claim states beside its lead (recorded, not judged)"),
            kinds.Field("unit", "the unit of the claimed figure, as the claim words it"),
            kinds.Field("tolerance", "inherited from a parent claim; a lead is not judged against a figure"),
        )
    ),
    example={
        "id": "acme-leads",
        "title": "The top result on DeepSeek-R1",
        "statement": "Acme's rack has the top DeepSeek-R1 result, as a whole system and per GPU.",
        "kind": "leading",
        "metric": "result",
        "subject": {"organization": "Acme", "system": "Acme-rack-x72"},
        "benchmark": "deepseek-r1",
        "measures": ["total", "per-gpu"],
    },
    detail=LeadCase,
    selectors=("subject", "field", "small", "large"),
    one_per_case=("subject", "small", "large"),
    one_per_case_in=one_per_case,
    columns=(
        kinds.Column("Case", "label"),
        kinds.Column("The claim's", "detail.subject_value"),
        kinds.Column("Best other", "detail.next", missing="—"),
        kinds.Column("Its value", "detail.next_value"),
        kinds.Column("Units", "detail.units"),
        kinds.Column("Leads", "reaches", kinds.HOLDS),
    ),
    tables={
        "leaders": kinds.Table("The claim's best result and the best other result, case by case"),
        "largest_systems": kinds.Table("The largest systems in the round"),
        "pairs": kinds.Table("Pairs of results (first 40)", omit_suffix="location", head=40),
    },
)
