"""What a ratio's card shows beside its figures, computed from the rows: an inferred result set
against a measured one, the per-GPU figure where the sizes differ, the change of a
lower-is-better metric, the best rival at the claimant's size, and what the claim's selectors
leave out (results without a counterpart, the same company's joint submissions, a close second
behind a chosen best)."""

from __future__ import annotations

import pandas as pd

from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.compare import per_gpu, per_watt, speedup
from claimbook.engine.core import Case, Data, benchmarks_of, best_row, label_of, where


def value(row: pd.Series, measure: str) -> float | None:
    """The figure compared; None per GPU for a result without GPUs (a CPU-only system) or of
    a latency (``compare.per_gpu``)."""
    if measure != "per-gpu":
        return float(row["result"])
    return per_gpu(row["result"], row["total_accelerators"], bool(row["higher_is_better"]))


def no_per_gpu_reason(*rows: pd.Series) -> str:
    """Why ``value`` gives no per-GPU figure for one of ``rows``."""
    if any(not bool(row["higher_is_better"]) for row in rows):
        return "since a latency is a time, not a throughput its GPUs share"
    return "since a system without accelerators has no per-GPU figure"


def ratio_of(subject: pd.Series, base: pd.Series, measure: str) -> float | None:
    new, old = value(subject, measure), value(base, measure)
    return None if new is None or old is None else speedup(new, old, bool(subject["higher_is_better"]))


def rival_fields(data: Data, claimant_vendor: str, subject_row: pd.Series, base_row: pd.Series) -> dict:
    """The best result of the subject's benchmark, scenario, division and size by a system of
    another vendor than the claimant's, on any accelerator (what an "ahead of" card must show),
    as RatioCase fields."""
    same = where(
        data.results,
        **{name: subject_row[name] for name in ("benchmark", "scenario", "division", "total_accelerators")},
    )
    rival = best_row(same[same["vendor"].astype(str) != str(claimant_vendor)])
    if rival is None:
        return {}
    return {
        "best_rival": label_of(rival),
        "best_rival_family": str(rival["family"]),
        "best_rival_is_baseline": rival["location"] == base_row["location"],
        "vs_best_rival": 100.0 * (ratio_of(subject_row, rival, "whole-system") - 1.0),
    }


def inferred_side(subject: pd.Series, base: pd.Series) -> str | None:
    """The side whose result is inferred when the other is measured (None when both are alike)."""
    if bool(subject["inferred"]) == bool(base["inferred"]):
        return None
    return label_of(subject) if bool(subject["inferred"]) else label_of(base)


def per_watt_ratio(subject: pd.Series, base: pd.Series) -> float | None:
    if not bool(subject["higher_is_better"]):
        return None
    mine = per_watt(subject["result"], int(subject["total_accelerators"]), subject["gpu_watts"])
    theirs = per_watt(base["result"], int(base["total_accelerators"]), base["gpu_watts"])
    return mine / theirs if mine and theirs else None


def _inferred_note(cases: list[Case]) -> list[str]:
    by_side: dict[str, list[str]] = {}
    for case in cases:
        if case.detail.inferred_against_measured:
            by_side.setdefault(case.detail.inferred_against_measured, []).append(case.label)
    if not by_side:
        return []
    return [
        "The ratio sets an inferred result against a measured one: "
        + "; ".join(f"{side} is inferred in {', '.join(labels)}" for side, labels in by_side.items())
    ]


def context_notes(cases: list[Case], unit: str, measure: str = "whole-system") -> list[str]:
    """What a reader of a comparison expects beside the figure: an inferred result set against a
    measured one, the per-GPU figure where the sizes differ (whole systems compared), the change
    of a lower-is-better metric, and the best rival result at the claimant's size."""
    notes = _inferred_note(cases)
    sized = [
        case
        for case in cases
        if case.detail.subject_gpus != case.detail.baseline_gpus and case.detail.per_gpu_ratio is not None
    ]
    if sized and measure != "per-gpu":
        notes.append(
            "Per GPU, beside the whole systems (they differ in size): "
            + "; ".join(
                f"{case.label} {formatting.case_figure(kinds.in_unit(case.detail.per_gpu_ratio, unit), unit)}"
                for case in sized
            )
        )
    lower = [case for case in cases if case.detail.higher_is_better is False]
    if lower:
        notes.append(
            "On a lower-is-better metric the gain is a speedup and a fall of the metric: "
            + "; ".join(
                f"{case.label} {formatting.gain(kinds.as_ratio(case.measured, unit), case.detail.metric_change, case.detail.metric, False)}"
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


def left_out_note(left_out: list[tuple], keys: list[str]) -> str:
    """Subject results without a counterpart sharing ``keys``: named, by system, with their cases."""
    if not left_out:
        return ""
    by_system: dict[str, list[str]] = {}
    for label, case in left_out:
        by_system.setdefault(label, []).append(case.split(" ")[0])  # its benchmarks, once each
    return (
        f"Left out, no baseline result with the same {' and '.join(keys) or 'benchmark and scenario'}: "
        + "; ".join(f"{label} ({', '.join(dict.fromkeys(cases))})" for label, cases in by_system.items())
    )


def class_selector(selector: dict, base_rows: pd.DataFrame) -> dict:
    """The class a baseline belongs to: its selector without who submitted it, and the accelerator
    and system size of the baseline's results where the selector names a system instead (the best
    "GB300 NVL72 result of any submitter" is a 72-GPU GB300 result, not any result at all)."""
    found = {name: value for name, value in selector.items() if name not in ("organization", "system")}
    if "family" not in found and "accelerator" not in found:
        found["family"] = sorted(set(base_rows["family"].astype(str)))
    if "gpus" not in found and "nodes" not in found:
        found["gpus"] = sorted({int(gpus) for gpus in base_rows["total_accelerators"]})
    return found


def class_name(selector: dict) -> str:
    """A class in words, for a column or a sentence: "NVIDIA GB300, 72 GPUs"."""
    families = selector.get("family") or selector.get("accelerator") or []
    families = [families] if isinstance(families, str) else list(families)
    gpus = selector.get("gpus")
    gpus = [gpus] if isinstance(gpus, int) else (gpus if isinstance(gpus, list) else [])
    size = f"{' or '.join(map(str, gpus))} GPU{'' if gpus == [1] else 's'}" if gpus else ""
    return ", ".join(part for part in (" or ".join(map(str, families)), size) if part) or "any result"


def comparison(label: str, subject_row, base_row, how: str, detail, measured, claimed) -> dict:
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


def against_rivals(rivals: list, measured_cases: list[Case], unit: str, codes: set, notes: list) -> None:
    """A supported claim against a rival's baseline that does not hold against the best result of
    the baseline's class by any submitter: flagged (not-best-rival), the cases named."""
    by_label = {case.label: case for case in measured_cases}
    failing = [(by_label[label], best) for label, holds, best in rivals if holds is False]
    if not failing:
        return
    codes.add("not-best-rival")
    listed = "; ".join(
        f"{case.label}: {formatting.case_figure(case.detail.measured_vs_best_any, unit)} against {label_of(best)}"
        f" (the best {case.detail.best_class} result)"
        + (
            ""
            if case.claimed is None
            else f", short of the claimed {case.detail.claimed_text or formatting.stated(case.claimed, unit)}"
        )
        for case, best in failing
    )
    notes.append(
        f"Against the best result of the baseline's class by any submitter the claim does not hold in {listed}"
    )


def caveats_of(claim, data: Data, found, measured_cases: list[Case]) -> tuple[set, list]:
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
            found.missing.extend(_absent_subject(claim, data, found))
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


def _absent_subject(claim, data: Data, found) -> list[str]:
    """What the subject's selector looked for in the cases the claim names where it has no result."""
    named = claim.get("scenarios") or []
    absent = [
        case.scenario
        for case in found.cases
        if case.measured is None
        and case.detail.note.startswith("no result of the subject")
        and case.scenario in named
    ]
    texts = [
        kinds.looked_for(data, claim, "subject", benchmark=benchmark, scenario=scenario)
        for scenario in absent
        for benchmark in benchmarks_of(claim)
    ]
    return list(dict.fromkeys(text for text in texts if text))
