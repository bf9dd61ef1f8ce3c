"""The metrics ``result`` and ``gpus`` of a leadership claim: the subject's result, or its size,
against every other of the field (and the earlier rounds the book has)."""

from __future__ import annotations

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import select, with_defaults
from claimbook.common import formatting
from claimbook.engine import ambiguity, kinds
from claimbook.engine.core import (
    Case,
    Data,
    SelectionError,
    SizeError,
    benchmarks_of,
    cannot_check,
    gpus_said,
    label_of,
    scenarios_of,
    several,
    sizes_differ,
    where,
)
from claimbook.engine.kinds._leading_common import (
    MEASURE_NAMES,
    SAME_MEASURE_NOTE,
    LeadCase,
    best_of,
    field_of,
    lead,
    lead_case,
    rounds_note,
    verdict_of,
)
from claimbook.inputs.rules import location_parts


def validate_scope(claim: Claim) -> None:
    if claim.get("scope", "round") not in ("round", "history"):
        kinds.fail(claim, "scope", "round (this round only) or history (earlier rounds too)")


def validate_result(claim: Claim) -> None:
    measures = claim.get("measures")
    if measures is not None and (not isinstance(measures, list) or not measures):
        kinds.fail(claim, "measures", f"a list of the readings of the lead: {', '.join(kinds.MEASURES)}")
    for measure in measures or []:
        if measure not in kinds.MEASURES:
            kinds.fail(claim, "measures", f"unknown measure {measure!r}; use {', '.join(kinds.MEASURES)}")
    units = claim.get("units")
    if units is not None and (not isinstance(units, str) or not units.strip()):
        kinds.fail(
            claim, "units", "the units of the results it compares, as the results name them (Tokens/s)"
        )
    validate_scope(claim)


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
        dtype=bool,  # (a field that selects nothing: an empty mask, never a list of columns)
    )
    return field[~mine]


def _subject_and_field(claim: Claim, data: Data):
    """The subject's results and its field (only the results in the claim's ``units``, where it
    names them), or the check that says the subject is not in the data."""
    subject, refused = kinds.selected_subject(claim, data, "The subject is not in the data")
    if refused:
        return None, None, refused
    field = _field(data, claim, subject)
    units = claim.get("units")
    if units:
        if not (subject["units"] == units).any():
            said = f"no result of the subject is in {units} (its results: {', '.join(sorted(set(subject['units'])))})"
            return None, None, cannot_check(claim, f"The data has no such result: {said}.", missing=[said])
        subject = subject[subject["units"] == units]
        field = field[field["units"] == units]
    return subject, field, None


def _cells(claim: Claim, subject: pd.DataFrame, field: pd.DataFrame, benchmark):
    """The subject's results and the field's in each scenario of a benchmark the claim names
    (over all results, for a claim that names no benchmark): (scenario, own, rivals)."""
    mine = subject if benchmark is None else where(subject, benchmark=benchmark)
    theirs = field if benchmark is None else where(field, benchmark=benchmark)
    for scenario in scenarios_of(claim, mine["scenario"]) if benchmark is not None else [None]:
        if scenario is None:
            yield scenario, mine, theirs
        else:
            yield scenario, where(mine, scenario=scenario), where(theirs, scenario=scenario)


def check_result(claim: Claim, data: Data):
    problems = size_problems(claim, data)
    if problems:
        raise SizeError(problems[0])
    subject, field, missing = _subject_and_field(claim, data)
    if missing is not None:
        return missing
    benchmarks = benchmarks_of(claim) or [None]
    measures = claim.get("measures") or ["whole-system"]
    found = kinds.Findings(codes={"derived-metric"} if "per-gpu" in measures else set())
    readings = {
        MEASURE_NAMES[measure]: _measure_cases(claim, data, (subject, field), (benchmarks, measure), found)
        for measure in measures
    }
    if benchmarks == [None]:
        readings["within its own benchmark and scenario"] = _own_benchmark(data, subject, field, found)
    if "per-gpu" not in measures:
        beside = per_gpu_context(readings)
        if beside:
            found.context.insert(0, beside)
            found.codes.add("derived-metric")
        if benchmarks == [None]:  # a reading over several benchmarks: the note says why the other
            found.notes.append(SAME_MEASURE_NOTE)
    if claim.get("scope") == "history":
        readings["against the earlier rounds the book has"] = _history(
            claim, data, subject, benchmarks, found
        )
    return verdict_of(claim, readings, found, {"leaders": pd.DataFrame(found.table)})


def size_problems(claim: Claim, data: Data) -> list[str]:
    """A lead whose subject and best rival differ in size, where the claim does not say how it
    compares them (``measures``): the registry error naming the sizes."""
    if claim.get("measures"):
        return []
    subject, field, missing = _subject_and_field(claim, data)
    if missing is not None:
        return []
    for benchmark in benchmarks_of(claim) or [None]:
        for scenario, own, rivals in _cells(claim, subject, field, benchmark):
            if own.empty:
                continue
            best_own = best_of(own, "whole-system")
            rivals = where(rivals, division=best_own["division"])
            top = best_of(rivals, "whole-system") if not rivals.empty else None
            if top is not None and int(top["total_accelerators"]) != int(best_own["total_accelerators"]):
                case = " ".join(str(part) for part in (benchmark, scenario) if part) or "all its results"
                sides = f"{label_of(best_own)} against {label_of(top)}"
                return [
                    str(sizes_differ(claim, "measures", case, sides)).replace(
                        "measures: whole-system or per-gpu", "measures: [whole-system] or [per-gpu] (or both)"
                    )
                ]
    return []


def _measure_cases(claim: Claim, data: Data, sides: tuple, what: tuple, found: kinds.Findings) -> list[Case]:
    """One measure's cases: the subject's best against the field's best in each benchmark and
    scenario the claim names (or over all results, for a claim that names no benchmark); where
    the subject has no result in one, what its selector looked for (``found.missing``)."""
    (subject, field), (benchmarks, measure) = sides, what
    cases, combine = [], (claim.get("subject") or {}).get("combine")
    for benchmark in benchmarks:
        if benchmark is not None and where(subject, benchmark=benchmark).empty:
            found.missing.append(kinds.looked_for(data, claim, "subject", benchmark=benchmark))
        for scenario, own, rivals in _cells(claim, subject, field, benchmark):
            rivals = where(rivals, metric="throughput") if measure == "per-gpu" else rivals
            if own.empty:
                found.missing.append(
                    kinds.looked_for(data, claim, "subject", benchmark=benchmark, scenario=scenario)
                )
                continue
            if benchmark is not None and len(own) > 1 and combine not in ("best", "each"):
                raise SelectionError(several(claim, "subject", own, f"{benchmark} {scenario}"))
            best_own = best_of(own, measure)
            rivals = where(rivals, division=best_own["division"])  # a lead is judged within a division
            label = _case_label(claim, data, measure, benchmark, scenario, benchmarks)
            cases.append(lead_case(label, scenario or "", best_own, rivals, measure, found, selected=True))
            second = ambiguity.close_second(own, best_own) if measure == "whole-system" else None
            if second is not None and combine == "best":
                found.context.append(kinds.second_note(label, best_own, second[0], second[1]))
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
    data: Data, subject: pd.DataFrame, field: pd.DataFrame, found: kinds.Findings
) -> list[Case]:
    """The subject's best result against the best other result of its own benchmark and scenario."""
    best_own = best_of(subject, "whole-system")
    rivals = field[
        (field["benchmark"] == best_own["benchmark"])
        & (field["scenario"] == best_own["scenario"])
        & (field["division"] == best_own["division"])
    ]
    label = f"{data.reference.display_name(best_own['benchmark'])} · {best_own['scenario']}"
    return [lead_case(label, best_own["scenario"], best_own, rivals, "whole-system", found, selected=False)]


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


def _published(earlier: pd.Series) -> tuple[str, ...]:
    """An earlier figure's folder where it is a published result of a round the book holds (its
    source is the Location): cited and linked as every other result a case uses."""
    source = str(earlier.get("source") or "") if earlier.get("source_type") == "mlperf-summary" else ""
    return (source,) if location_parts(source) is not None else ()


def _history(
    claim: Claim, data: Data, subject: pd.DataFrame, benchmarks, found: kinds.Findings
) -> list[Case]:
    """The subject against the best earlier-round figure the book has of the same kind."""
    earlier = data.earlier
    current_round = str(subject["round"].iloc[0])
    earlier = earlier[earlier["round"] != current_round]
    if claim.get("units"):
        earlier = earlier[earlier["units"] == claim.get("units")]
    if benchmarks and benchmarks[0] is not None:
        earlier = earlier[earlier["model"].map(data.reference.benchmark).isin(benchmarks)]
    tail = '; earlier rounds are not in the book, so "ever" is checked only that far'
    top = _earlier_best(data, earlier, current_round, "result", (tail, found))
    best_own = best_of(subject, "whole-system")
    if top is None:
        return [lead("earlier rounds", "", (None, "x", None), (best_own["location"],), LeadCase())]
    value, rival = float(best_own["result"]), float(top["result"])
    return [
        _lead_against(
            "earlier rounds",
            (value / rival, value, rival),
            (label_of(best_own), _earlier_name(top, f"{top['model']} {top['scenario']}")),
            (best_own["location"],) + _published(top),
            (best_own["units"], "result of the earlier rounds"),
        )
    ]


def _earlier_best(data: Data, earlier: pd.DataFrame, current_round: str, column: str, said: tuple):
    """The best figure in ``column`` of the earlier rounds the book has (None: it has none),
    with what ``said`` gathers (the note's tail, the findings): how far back the book checks,
    and where the figure is only a vendor's."""
    tail, found = said
    found.codes.add("incomplete-data")
    found.notes.append(rounds_note(data, current_round, tail))
    if earlier.empty:
        return None
    lower = column == "result" and not bool(earlier["higher_is_better"].iloc[0])
    top = earlier.sort_values(column, ascending=lower, kind="stable").iloc[0]
    if top["source_type"] == "vendor-announcement":
        found.codes.add("vendor-source")
    return top


def _earlier_name(top: pd.Series, *what: str) -> str:
    """An earlier figure's system, its size, its round, what it measured and its source."""
    said = ", ".join((str(top["round"]), *what, str(top["source_type"])))
    return f"{top['organization']} {top['system']} ({gpus_said(top)}; {said})"


# -- metric gpus: the size of the subject's largest system ------------------------------------


def check_gpus(claim: Claim, data: Data):
    subject, field, missing = _subject_and_field(claim, data)
    if missing is not None:
        return missing
    biggest = subject.sort_values(["total_accelerators", "location"], ascending=[False, True]).iloc[0]
    others = field[
        ~field["organization"].eq(biggest["organization"]) | ~field["system"].eq(biggest["system"])
    ]
    found = kinds.Findings(used=[subject[subject["location"] == biggest["location"]]])
    cases = []
    if not others.empty:
        top = others.sort_values(["total_accelerators", "location"], ascending=[False, True]).iloc[0]
        cases.append(
            _size_case(
                f"{biggest['round']}",
                biggest,
                top,
                label_of(top),
                (biggest["location"], top["location"]),
                field_of(biggest, others),
            )
        )
    readings = {"this round": cases}
    if claim.get("scope") == "history":
        readings.update(_gpus_history(data, biggest, found))
    sizes = (
        field.groupby(["organization", "system"], as_index=False)["total_accelerators"]
        .max()
        .sort_values("total_accelerators", ascending=False)
        .head(10)
    )
    return verdict_of(claim, readings, found, {"largest_systems": sizes})


def _size_case(
    label: str, biggest: pd.Series, top: pd.Series, rival: str, evidence: tuple, field: str
) -> Case:
    """The subject's largest system against the largest other (``rival`` names it, ``field``
    says what the others are)."""
    measured = biggest["total_accelerators"] / float(top["total_accelerators"])
    sizes = (int(biggest["total_accelerators"]), int(top["total_accelerators"]))
    return _lead_against(label, (measured, *sizes), (label_of(biggest), rival), evidence, ("GPUs", field))


def _lead_against(label: str, figures: tuple, names: tuple, evidence: tuple, what: tuple) -> Case:
    """A case of the subject against one other: ``figures`` (the measured multiple, the
    subject's value, the other's), ``names`` (the subject's, the other's), ``what`` (the
    values' units, what the other is); the subject leads where its value is the greater."""
    (measured, value, other_value), (own, other), (units, field) = figures, names, what
    leads = value > other_value
    detail = LeadCase(
        leader=other if not leads else own,
        next=other,
        subject_value=value,
        next_value=other_value,
        units=units,
        field=field,
    )
    return lead(label, "", (measured, "x", leads), evidence, detail)


def _gpus_history(data: Data, biggest: pd.Series, found: kinds.Findings) -> dict[str, list[Case]]:
    """The subject's largest system against the largest the earlier rounds the book has."""
    earlier = data.earlier[
        (data.earlier["round"] != biggest["round"]) & data.earlier["total_accelerators"].notna()
    ]
    tail = '; "history" is checked only that far'
    top = _earlier_best(data, earlier, biggest["round"], "total_accelerators", (tail, found))
    if top is None:
        return {}
    return {
        "earlier rounds the book has": [
            _size_case(
                "earlier rounds",
                biggest,
                top,
                _earlier_name(top),
                (biggest["location"],) + _published(top),
                "system of the earlier rounds",
            )
        ]
    }
