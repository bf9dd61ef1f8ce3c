"""Kind ``scaling``: the scaling efficiency of one submitter's two configurations.

Efficiency = (throughput ratio) / (GPU ratio). The figure is judged like a stated figure in the
scenarios the claim names; the other scenarios of the same pair are shown beside it. A pair
above 100% (plus ``superlinear_margin`` points) is flagged: it says the smaller configuration was
weak, not that the larger one scales well. A pair whose two results are of different divisions
is shown but not judged. A headline that names no scenario is judged on the one its announcement
names for it; the other scenarios of the pair are the spread on the card.
"""

from __future__ import annotations

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine.core import (
    ACROSS_DIVISIONS,
    Case,
    Data,
    across_divisions,
    benchmarks_of,
    cannot_check,
    chosen,
    claimed_for,
    finish,
    label_of,
    pick,
    select_for,
)
from claimbook.engine.efficiency import scaling_efficiency
from claimbook.engine.verdict import (
    CANNOT_BE_CHECKED,
    NOT_SUPPORTED,
    SUPPORTED,
    gap_percent,
    matches,
    reaches,
)
from claimbook.inputs.schema import SCENARIOS

KIND = "scaling"
REQUIRED = ("benchmark", "small", "large", "scenarios", "claimed")
OPTIONAL = ("unit", "tolerance", "division", "superlinear_margin")
SELECTORS = ("small", "large")
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ("small", "large")
EACH = ()
SUMS = ("small", "large")
DEFAULT_SUPERLINEAR_MARGIN = 1.0  # percentage points above 100% that still count as linear


def validate(claim: Claim, fail) -> None:
    if not isinstance(claim.claimed, (int, float, dict)):
        fail("claimed", "the claimed efficiency in percent, or {scenario: percent}")


def superlinear(efficiency_percent: float, margin: float = DEFAULT_SUPERLINEAR_MARGIN) -> bool:
    return efficiency_percent > 100.0 + margin


def configurations(claim: Claim, data: Data):
    """The rows of the claim's smaller and larger configurations (of its first benchmark), or
    the check that says which of them the data lacks."""
    benchmark = benchmarks_of(claim)[0]
    small, small_missing = select_for(
        data, claim, claim.get("small"), "smaller configuration", {"benchmark": benchmark}
    )
    large, large_missing = select_for(
        data, claim, claim.get("large"), "larger configuration", {"benchmark": benchmark}
    )
    missing_texts = [text for text in (small_missing, large_missing) if text]
    if missing_texts:
        return (
            None,
            None,
            cannot_check(
                claim,
                f"A configuration of the pair is not in the data: {'; '.join(missing_texts)}.",
                missing_texts=missing_texts,
            ),
        )
    return small, large, None


def check(claim: Claim, data: Data):
    small, large, missing = configurations(claim, data)
    if missing is not None:
        return missing
    margin = float(claim.get("superlinear_margin", DEFAULT_SUPERLINEAR_MARGIN))
    named = list(claim.get("scenarios"))
    present = [name for name in SCENARIOS if name in set(small["scenario"]) & set(large["scenario"])]
    cases, used, sentences, codes, failing = [], [], [], {"derived-metric"}, 0
    benchmark = benchmarks_of(claim)[0]
    for scenario in named + [name for name in present if name not in named]:
        case = f"{benchmark} {scenario}"
        little = pick(small[small["scenario"] == scenario], claim.get("small"), "small", claim, case)
        big = pick(large[large["scenario"] == scenario], claim.get("large"), "large", claim, case)
        claimed = claimed_for(claim, scenario) if scenario in named else None
        if little is None or big is None:
            cases.append(
                Case(
                    scenario,
                    scenario,
                    None,
                    claimed,
                    "%",
                    None,
                    extra={
                        "note": f"no {'smaller' if little is None else 'larger'} configuration in {scenario}"
                    },
                )
            )
            continue
        efficiency = 100.0 * scaling_efficiency(
            big["result"], int(big["total_accelerators"]), little["result"], int(little["total_accelerators"])
        )
        crossed = across_divisions(little["division"], big["division"])
        holds = None if claimed is None or crossed else reaches(efficiency, claimed, claim.tolerance)
        extra = {
            "small": label_of(little),
            "large": label_of(big),
            "throughput_ratio": big["result"] / little["result"],
            "gpu_ratio": big["total_accelerators"] / little["total_accelerators"],
        }
        cases.append(
            Case(
                scenario,
                scenario,
                efficiency,
                claimed,
                "%",
                holds,
                (big["location"], little["location"]),
                extra,
                chosen("large", big) + chosen("small", little),
            )
        )
        used.append(pd.DataFrame([little, big]))
        if crossed and claimed is not None:
            codes.add("cross-division")
            sentences.append(
                f"In {scenario} the pair's results are of different divisions ({formatting.quantity(efficiency, '%')}, not judged)"
            )
            cases[-1] = Case(
                scenario,
                scenario,
                efficiency,
                claimed,
                "%",
                None,
                cases[-1].evidence,
                {**extra, "cross_division": True},
            )
            continue
        if claimed is None:
            continue
        if superlinear(efficiency, margin):
            codes.add("superlinear-baseline")
        if matches(efficiency, claimed, claim.tolerance):
            sentences.append(
                f"In {scenario}, {label_of(big)} over {label_of(little)} scales at {formatting.quantity(efficiency, '%')}, "
                f"which is the claimed {formatting.stated(claimed, '%')}"
            )
        else:
            sentences.append(
                f"In {scenario} the efficiency is {formatting.quantity(efficiency, '%')}; the claimed {formatting.stated(claimed, '%')} is "
                f"{formatting.signed_percent(gap_percent(claimed, efficiency))} from it"
            )
            if holds:
                codes.add("understated")
            else:
                failing += 1
    context = [case for case in cases if case.claimed is None and case.measured is not None]
    if context:
        sentences.append(
            "Other scenarios of the same pair, which the claim does not name: "
            + ", ".join(f"{case.label} {formatting.quantity(case.measured, '%')}" for case in context)
        )
    judged = [
        case
        for case in cases
        if case.claimed is not None and case.measured is not None and not case.extra.get("cross_division")
    ]
    rows = pd.concat(used) if used else pd.DataFrame()
    if not judged and any(case.extra.get("cross_division") for case in cases):
        return finish(
            claim,
            CANNOT_BE_CHECKED,
            ". ".join(sentences) + f". {ACROSS_DIVISIONS}.",
            cases=cases,
            rows=rows,
            codes=codes,
        )
    if not judged:
        return cannot_check(claim, "The pair has no result in the scenario the claim names.", rows=rows)
    if any(case.claimed is not None and case.measured is None for case in cases):
        codes.add("incomplete-data")
    verdict = NOT_SUPPORTED if failing else SUPPORTED
    deciding = next((case.label for case in judged if not case.reaches), judged[0].label)
    return finish(
        claim, verdict, ". ".join(sentences) + ".", cases=cases, deciding=deciding, rows=rows, codes=codes
    )
