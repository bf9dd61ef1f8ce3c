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

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import select, with_defaults
from claimbook.common import formatting
from claimbook.engine.core import (
    Case,
    Data,
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
from claimbook.engine.kinds.scaling import DEFAULT_SUPERLINEAR_MARGIN, configurations, superlinear
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED
from claimbook.inputs.earlier import round_order

KIND = "leading"
REQUIRED = ("subject", "metric")
OPTIONAL = (
    "field",
    "benchmark",
    "scenarios",
    "measures",
    "scope",
    "units",
    "definitions",
    "small",
    "large",
    "superlinear_margin",
    "division",
    "claimed",
    "unit",
    "tolerance",
)
SELECTORS = ("subject", "field", "small", "large")
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ("subject", "small", "large")
EACH = ()
SUMS = ()
METRICS = ("result", "gpus", "efficiency")
MEASURES = ("total", "per-gpu")


def one_per_case(claim: Claim) -> tuple[str, ...]:
    """A leadership claim takes one subject result per benchmark and scenario it names (its
    best, if it says so), or one scaling pair; a size record or a claim over all benchmarks
    takes the subject's best by definition."""
    if claim.get("metric") == "result" and claim.get("benchmark"):
        return ("subject",)
    return ("small", "large") if claim.get("metric") == "efficiency" else ()


def validate(claim: Claim, fail) -> None:
    metric = claim.get("metric")
    if metric not in METRICS:
        fail("metric", f"a leadership claim compares one of {', '.join(METRICS)}")
    for measure in claim.get("measures") or ["total"]:
        if measure not in MEASURES:
            fail("measures", f"unknown measure {measure!r}; use {', '.join(MEASURES)}")
    if claim.get("scope", "round") not in ("round", "history"):
        fail("scope", "round (this round only) or history (earlier rounds too)")
    if metric == "efficiency":
        for name in ("small", "large", "definitions"):
            if not claim.get(name):
                fail(name, "a leading-efficiency claim names its pair (small, large) and its definitions")
        for index, definition in enumerate(claim.get("definitions")):
            if (
                not isinstance(definition, dict)
                or not definition.get("label")
                or not ("beyond_gpus" in definition or definition.get("scale_out"))
            ):
                fail(
                    f"definitions[{index}]",
                    "each definition has a label and beyond_gpus: N or scale_out: true",
                )


def check(claim: Claim, data: Data):
    return {"result": _check_result, "gpus": _check_gpus, "efficiency": _check_efficiency}[
        claim.get("metric")
    ](claim, data)


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
    summary = []
    for name, found in judged.items():
        if not found:
            summary.append(f"{name}: no rival")
            continue
        led = [case for case in found if case.reaches]
        trailing = [case for case in found if not case.reaches]
        text = f"{name}: leads in {len(led)} of {formatting.plural(len(found), 'case')}"
        only = found[0]
        if len(found) == 1 and led and only.extra.get("next") and only.measured is not None:
            if only.unit == "%":  # an efficiency: both figures, not a ratio of them
                text += (
                    f" ({formatting.quantity(only.measured, '%')} against {formatting.quantity(only.extra['next_value'], '%')}, "
                    f"{only.extra['next']})"
                )
            else:
                text += f" ({formatting.times(only.measured)} the next best, {only.extra['next']})"
        if trailing:
            text += " (behind in " + "; ".join(
                f"{case.label}, {case.extra['leader']} ahead" for case in trailing[:4]
            )
            text += (f" and {len(trailing) - 4} more" if len(trailing) > 4 else "") + ")"
        summary.append(text)
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
    return finish(
        claim,
        verdict,
        "; ".join(summary) + ".",
        cases=cases,
        deciding=deciding,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        summary=short,
        context=context_notes,
    )


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


def _check_result(claim: Claim, data: Data):
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return cannot_check(
            claim, f"The subject is not in the data: {subject_missing}.", missing_texts=[subject_missing]
        )
    field = _field(data, claim, subject)
    if claim.get("units"):
        subject = subject[subject["units"] == claim.get("units")]
        field = field[field["units"] == claim.get("units")]
    benchmarks = benchmarks_of(claim) or [None]
    readings: dict[str, list[Case]] = {}
    used, table = [], []
    measure_names = {"total": "as a whole system", "per-gpu": "per GPU"}
    for measure in claim.get("measures") or ["total"]:
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
                rivals = rivals[
                    rivals["division"] == best_own["division"]
                ]  # a lead is judged within a division
                label = " · ".join(
                    part
                    for part in (
                        measure_names[measure] if len(claim.get("measures") or []) > 1 else "",
                        data.reference.display_name(benchmark) if benchmark and len(benchmarks) > 1 else "",
                        scenario or "",
                    )
                    if part
                ) or f"all {claim.get('units') or ''} results".replace("  ", " ")
                if rivals.empty:
                    cases.append(
                        Case(
                            label,
                            scenario or "",
                            None,
                            None,
                            "x",
                            None,
                            (best_own["location"],),
                            {"leader": "none", "note": "no rival"},
                            chosen("subject", best_own),
                        )
                    )
                    continue
                top = _best(rivals, measure)
                value, rival_value = _value(best_own, measure), _value(top, measure)
                higher = bool(best_own["higher_is_better"])
                leads = value > rival_value if higher else value < rival_value
                margin = value / rival_value if higher else rival_value / value
                cases.append(
                    Case(
                        label,
                        scenario or "",
                        margin,
                        None,
                        "x",
                        leads,
                        (best_own["location"], top["location"]),
                        {
                            "leader": label_of(top) if not leads else label_of(best_own),
                            "subject": label_of(best_own),
                            "next": label_of(top),
                            "subject_value": value,
                            "next_value": rival_value,
                            "units": best_own["units"] + (" per GPU" if measure == "per-gpu" else ""),
                            "subject_per_gpu": _value(best_own, "per-gpu"),
                            "next_per_gpu": _value(top, "per-gpu"),
                        },
                        chosen("subject", best_own) + chosen("rival", top),
                    )
                )
                used.append(pd.DataFrame([best_own, top]))
                table.append(
                    {
                        "case": label,
                        "subject": label_of(best_own),
                        "subject_value": value,
                        "best_other": label_of(top),
                        "best_other_value": rival_value,
                        "units": cases[-1].extra["units"],
                        "leads": leads,
                        "subject_per_gpu": _value(best_own, "per-gpu"),
                        "best_other_per_gpu": _value(top, "per-gpu"),
                    }
                )
        readings[measure_names[measure]] = cases
    codes, notes = set(), []
    if "per-gpu" in (claim.get("measures") or []):
        codes.add("derived-metric")
    if benchmarks == [None]:
        readings["within its own benchmark and scenario"] = _own_benchmark(data, subject, field, used, table)
    context = []
    if "per-gpu" not in (claim.get("measures") or ["total"]):
        context = [per_gpu_context(readings)] if per_gpu_context(readings) else []
        if context:
            codes.add("derived-metric")
        notes.append(
            "Results of different benchmarks are not the same measure (a token of a small model costs less "
            "than a token of a large one); MLCommons compares results only within one benchmark and "
            "scenario, so the book checks that reading too"
        )
    history_cases = (
        _history(claim, data, subject, benchmarks, codes, notes) if claim.get("scope") == "history" else []
    )
    if history_cases:
        readings["against the earlier rounds the book has"] = history_cases
    rows = rows_of(used)
    return _verdict(
        claim, readings, rows, codes, notes, {"leaders": pd.DataFrame(table)}, context_notes=context
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
    if rivals.empty:
        return [
            Case(
                label,
                best_own["scenario"],
                None,
                None,
                "x",
                None,
                (best_own["location"],),
                {"leader": "none"},
            )
        ]
    top = _best(rivals, "total")
    higher = bool(best_own["higher_is_better"])
    leads = best_own["result"] > top["result"] if higher else best_own["result"] < top["result"]
    margin = best_own["result"] / top["result"] if higher else top["result"] / best_own["result"]
    used.append(pd.DataFrame([best_own, top]))
    table.append(
        {
            "case": label,
            "subject": label_of(best_own),
            "subject_value": float(best_own["result"]),
            "best_other": label_of(top),
            "best_other_value": float(top["result"]),
            "units": best_own["units"],
            "leads": bool(leads),
            "subject_per_gpu": _value(best_own, "per-gpu"),
            "best_other_per_gpu": _value(top, "per-gpu"),
        }
    )
    return [
        Case(
            label,
            best_own["scenario"],
            margin,
            None,
            "x",
            leads,
            (best_own["location"], top["location"]),
            {
                "leader": label_of(top) if not leads else label_of(best_own),
                "next": label_of(top),
                "subject_value": float(best_own["result"]),
                "next_value": float(top["result"]),
                "units": best_own["units"],
                "subject_per_gpu": _value(best_own, "per-gpu"),
                "next_per_gpu": _value(top, "per-gpu"),
            },
        )
    ]


def per_gpu_context(readings: dict[str, list[Case]]) -> str:
    """Per-GPU figures beside the whole-system ones of a record or leadership read as whole
    systems: shown for context, never deciding."""
    shown = [
        case
        for cases in readings.values()
        for case in cases
        if case.extra.get("subject_per_gpu") is not None and case.extra.get("next_per_gpu") is not None
    ]
    if not shown:
        return ""
    return "Per GPU, beside the whole systems (context, not deciding): " + "; ".join(
        f"{case.label}: {formatting.quantity(case.extra['subject_per_gpu'], '')} against {formatting.quantity(case.extra['next_per_gpu'], '')} "
        f"{case.extra.get('units', '')} per GPU ({formatting.times(case.extra['subject_per_gpu'] / case.extra['next_per_gpu'])})"
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


def _missing_rounds(data: Data) -> tuple[list[str], list[str]]:
    """The earlier rounds the book has in full (a results summary) and those it has only some
    results of."""
    present = sorted(
        set(data.earlier[data.earlier["source_type"] == "mlperf-summary"]["round"]), key=round_order
    )
    partial = sorted(set(data.earlier["round"]) - set(present), key=round_order)
    return present, partial


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
    full, partial = _missing_rounds(data)
    codes.add("incomplete-data")
    notes.append(
        f"For rounds before {current_round} the book has "
        + (f"full results of {', '.join(full)} and " if full else "no full results file, only ")
        + (f"partial figures of {', '.join(partial)}" if partial else "no figures")
        + '; earlier rounds are not in the book, so "ever" is checked only that far'
    )
    best_own = _best(subject, "total")
    if earlier.empty:
        return [
            Case("earlier rounds", "", None, None, "x", None, (best_own["location"],), {"leader": "none"})
        ]
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
            {
                "leader": where if not leads else label_of(best_own),
                "next": where,
                "subject_value": value,
                "next_value": rival,
                "units": best_own["units"],
            },
        )
    ]


def _check_gpus(claim: Claim, data: Data):
    subject, subject_missing = select_for(data, claim, claim.get("subject"), "subject")
    if subject_missing:
        return cannot_check(
            claim, f"The subject is not in the data: {subject_missing}.", missing_texts=[subject_missing]
        )
    field = _field(data, claim, subject)
    biggest = subject.sort_values(["total_accelerators", "location"], ascending=[False, True]).iloc[0]
    others = field[
        ~field["organization"].eq(biggest["organization"]) | ~field["system"].eq(biggest["system"])
    ]
    cases, codes, notes = [], set(), []
    if not others.empty:
        top = others.sort_values(["total_accelerators", "location"], ascending=[False, True]).iloc[0]
        leads = int(biggest["total_accelerators"]) > int(top["total_accelerators"])
        cases.append(
            Case(
                f"{biggest['round']}",
                "",
                biggest["total_accelerators"] / top["total_accelerators"],
                None,
                "x",
                leads,
                (biggest["location"], top["location"]),
                {
                    "leader": label_of(top) if not leads else label_of(biggest),
                    "next": label_of(top),
                    "subject_value": int(biggest["total_accelerators"]),
                    "next_value": int(top["total_accelerators"]),
                    "units": "GPUs",
                },
            )
        )
    readings = {"this round": cases}
    if claim.get("scope") == "history":
        earlier = data.earlier[
            (data.earlier["round"] != biggest["round"]) & data.earlier["total_accelerators"].notna()
        ]
        full, partial = _missing_rounds(data)
        codes.add("incomplete-data")
        notes.append(
            f"For rounds before {biggest['round']} the book has "
            + (f"full results of {', '.join(full)} and " if full else "no full results file, only ")
            + (f"partial figures of {', '.join(partial)}" if partial else "no figures")
            + '; "history" is checked only that far'
        )
        if not earlier.empty:
            top = earlier.sort_values("total_accelerators", ascending=False, kind="stable").iloc[0]
            leads = int(biggest["total_accelerators"]) > int(top["total_accelerators"])
            where = f"{top['organization']} {top['system']} ({top['round']}, {top['source_type']})"
            if top["source_type"] == "vendor-announcement":
                codes.add("vendor-source")
            readings["earlier rounds the book has"] = [
                Case(
                    "earlier rounds",
                    "",
                    biggest["total_accelerators"] / float(top["total_accelerators"]),
                    None,
                    "x",
                    leads,
                    (biggest["location"],),
                    {
                        "leader": where if not leads else label_of(biggest),
                        "next": where,
                        "subject_value": int(biggest["total_accelerators"]),
                        "next_value": int(top["total_accelerators"]),
                        "units": "GPUs",
                    },
                )
            ]
    rows = rows_of([subject[subject["location"] == biggest["location"]]])
    sizes = (
        field.groupby(["organization", "system"], as_index=False)["total_accelerators"]
        .max()
        .sort_values("total_accelerators", ascending=False)
        .head(10)
    )
    return _verdict(claim, readings, rows, codes, notes, {"largest_systems": sizes})


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
                locations = set(mine["large_location"]) | set(mine["small_location"])
                both = pd.concat(
                    [large[large["location"].isin(locations)], small[small["location"].isin(locations)]]
                )
                raise SelectionError(several(claim, "small and large", both, f"the {scenario} scaling pair"))
            mine = mine.iloc[0]
            theirs = field[field["scenario"] == scenario].sort_values(
                ["efficiency", "large_location"], ascending=[False, True]
            )
            label = f"{definition['label']} · {scenario}"
            if theirs.empty:
                case = Case(
                    label, scenario, None, None, "%", None, (mine["large_location"],), {"leader": "none"}
                )
            else:
                top = theirs.iloc[0]
                leads = mine["efficiency_percent"] >= top["efficiency_percent"]
                case = Case(
                    label,
                    scenario,
                    float(mine["efficiency_percent"]),
                    None,
                    "%",
                    leads,
                    (mine["large_location"], mine["small_location"], top["large_location"]),
                    {
                        "leader": pair_label(top)
                        + f" at {formatting.quantity(top['efficiency_percent'], '%')}"
                        if not leads
                        else pair_label(mine),
                        "next": pair_label(top),
                        "next_value": float(top["efficiency_percent"]),
                        "subject_value": float(mine["efficiency_percent"]),
                        "units": "% efficiency",
                    },
                )
            if scenario in named:
                cases.append(case)
            else:
                context.append(
                    Case(case.label, case.scenario, case.measured, None, "%", None, case.evidence, case.extra)
                )
                if case.reaches is False:
                    codes.add("best-case-only")
                    notes.append(
                        f"In {scenario}, which the claim does not name, {case.extra['leader']} leads under "
                        f'"{definition["label"]}" ({pair_label(own[own["scenario"] == scenario].iloc[0])} at '
                        f"{formatting.quantity(case.measured, '%')})"
                    )
        readings[definition["label"]] = cases
    beaten_by_flagged = [
        row
        for _, row in flagged.iterrows()
        if row["scenario"] in named
        and row["efficiency_percent"]
        > float(own[own["scenario"] == row["scenario"]]["efficiency_percent"].max())
    ]
    if beaten_by_flagged:
        codes.add("superlinear-baseline")
    if not flagged.empty:
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
