"""Kind ``scaling``: the scaling efficiency of one submitter's two configurations.

Efficiency = (throughput ratio) / (GPU ratio). The figure is judged in the scenarios the claim
names, read by its quantifier ("99%" at its precision, "95% or better" with no rounding in its
favour); the other scenarios of the same pair are shown beside it. A pair above 100% (plus
``superlinear_margin`` points) is flagged: it says the smaller configuration was weak, not that
the larger one scales well. A pair whose two results are of different divisions is shown but not
judged. A headline that names no scenario is judged on the one its announcement names for it;
the other scenarios of the pair are the spread on the card, and one that falls short of the
claimed figure is a caveat, shown with other submitters' pairs of the same step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from claimbook.claims.drafting import Drafting, Proposal
from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.core import (
    ACROSS_DIVISIONS,
    Case,
    CaseDetail,
    Data,
    across_divisions,
    benchmarks_of,
    cannot_check,
    chosen,
    label_of,
    pick,
    select_for,
    where,
)
from claimbook.engine.efficiency import pair_label, pair_row, scaling_efficiency, scaling_pairs
from claimbook.engine.kinds._skeleton import Measuring
from claimbook.engine.verdict import gap_percent
from claimbook.inputs.schema import SCENARIOS

DEFAULT_SUPERLINEAR_MARGIN = 1.0  # percentage points above 100% that still count as linear
# The fields of a scaling pair (a leadership claim of scaling efficiency names one too).
SMALL = kinds.Field("small", "a selector of the smaller configuration's results")
LARGE = kinds.Field("large", "a selector of the larger configuration's results (the same submitter's)")
SUPERLINEAR_MARGIN = kinds.Field(
    "superlinear_margin",
    f"points above 100% efficiency that still count as linear ({formatting.stated(DEFAULT_SUPERLINEAR_MARGIN)} unless it says)",
)


@dataclass(frozen=True)
class ScalingCase(CaseDetail):
    """A scenario of the pair: its two configurations and the ratios its efficiency is made of
    (or why it has none), and whether they are of different divisions (shown, not judged)."""

    small: str | None = None
    large: str | None = None
    throughput_ratio: float | None = None
    gpu_ratio: float | None = None
    note: str = ""
    cross_division: bool = False
    judgment: object = None  # the quantifier's judgment of the case (quantifiers.Judgment)


_SCALING_WORDS = re.compile(r"\bscal(?:ing|ed|es|e)\b", re.IGNORECASE)
# Proposed by ``draft`` for a percentage said of scaling.
DRAFTING = Drafting(
    proposals=(
        Proposal(
            20, lambda s, f: f.unit == "%" and bool(_SCALING_WORDS.search(s.text)), "a scaling efficiency"
        ),
    ),
    todos=("small", "large"),
)


SPEC = kinds.KindSpec(
    name="scaling",
    drafting=DRAFTING,
    description="the scaling efficiency of one submitter's two configurations",
    required=(
        kinds.BENCHMARK,
        SMALL,
        LARGE,
        kinds.Field(
            "scenarios", "the scenarios the efficiency is claimed for (the pair's others are shown beside)"
        ),
        kinds.Field("claimed", "the claimed efficiency in percent, or {scenario: percent}"),
    ),
    optional=(
        kinds.Field("unit", "the unit of the claimed figure, as the claim words it (%)"),
        *kinds.FIGURE_FIELDS,
        kinds.DIVISION,
        SUPERLINEAR_MARGIN,
    ),
    example={
        "id": "acme-scaling",
        "title": "99% scaling from one rack to four",
        "statement": "Acme's four racks deliver 99% of four times one rack's throughput.",
        "kind": "scaling",
        "benchmark": "deepseek-r1",
        "small": {"organization": "Acme", "system": "Acme-rack-x72"},
        "large": {"organization": "Acme", "system": "Acme-four-racks-x288"},
        "scenarios": ["Offline"],
        "claimed": 99,
        "unit": "%",
    },
    detail=ScalingCase,
    selectors=("small", "large"),
    one_per_case=("small", "large"),
    sums=("small", "large"),
    columns=(
        kinds.Column("Scenario", "label"),
        kinds.Column("Smaller", "detail.small", missing="—"),
        kinds.Column("Larger", "detail.large", missing="—"),
        kinds.Column("Throughput ratio", "detail.throughput_ratio"),
        kinds.Column("GPU ratio", "detail.gpu_ratio"),
        kinds.Column("Efficiency (%)", "measured"),
        kinds.Column("Claimed (%)", "claimed"),
        kinds.Column("Holds", "reaches", {True: "yes", False: "no", None: "not claimed"}),
    ),
)


def validate(claim: Claim) -> None:
    if claim.claimed is None or isinstance(claim.claimed, list):
        kinds.fail(claim, "claimed", "the claimed efficiency in percent, or {scenario: percent}")
    kinds.check_scenario_figures(claim)
    kinds.check_figures(claim)


def superlinear(efficiency_percent: float, margin: float = DEFAULT_SUPERLINEAR_MARGIN) -> bool:
    return efficiency_percent > 100.0 + margin


def margin_of(claim: Claim) -> float:
    """The points above 100% efficiency a claim still counts as linear (``superlinear_margin``)."""
    return float(claim.get("superlinear_margin", DEFAULT_SUPERLINEAR_MARGIN))


# The two configurations of a pair: the claim's field, and what it is in words.
SIDES = (("small", "smaller configuration"), ("large", "larger configuration"))


def configurations(claim: Claim, data: Data):
    """The rows of the claim's smaller and larger configurations (of its first benchmark), or
    the check that says which of them the data lacks."""
    benchmark = {"benchmark": benchmarks_of(claim)[0]}
    selected = [select_for(data, claim, claim.get(name), said, benchmark) for name, said in SIDES]
    missing_texts = [why for _, why in selected if why]
    if missing_texts:
        reason = f"A configuration of the pair is not in the data: {'; '.join(missing_texts)}."
        return None, None, cannot_check(claim, reason, missing=missing_texts)
    return selected[0][0], selected[1][0], None


def _picked(claim: Claim, sides: tuple, scenario: str, case: str) -> tuple:
    """The smaller and the larger configuration's result in a scenario (None where one has none)."""
    return tuple(
        pick(rows[rows["scenario"] == scenario], claim.get(name), name, claim, case)
        for rows, (name, _) in zip(sides, SIDES)
    )


def in_division(claim: Claim, data: Data) -> pd.DataFrame:
    """The results of the claim's division (every result for ``division: any``)."""
    division = claim.get("division", "closed")
    return data.results if division == "any" else data.results[data.results["division"] == division]


@dataclass
class _Findings(kinds.Findings):
    """What the scenarios of a pair add up to, scenario by scenario."""

    pairs: list = field(default_factory=list)  # the claim's own pairs, as scaling_pairs rows (sums too)
    unlike: list = field(default_factory=list)  # named scenarios whose two results give no efficiency


class _Scaling(Measuring):
    findings = _Findings

    def gather(self, claim: Claim, data: Data, subject, found):
        found.codes.add("derived-metric")
        small, large, missing = configurations(claim, data)
        if missing is not None:
            return missing
        margin = margin_of(claim)
        named = list(claim.get("scenarios"))
        present = [name for name in SCENARIOS if name in set(small["scenario"]) & set(large["scenario"])]
        for scenario in named + [name for name in present if name not in named]:
            _pair_case(claim, data, (small, large), scenario, scenario in named, margin, found)
        _unnamed(found, _other_scenarios(claim, data, found))
        return None

    def judged(self, claim: Claim, found) -> list:
        return [
            case
            for case in found.cases
            if case.claimed is not None and case.measured is not None and not case.detail.cross_division
        ]

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict):
        rows = found.rows()
        if any(case.detail.cross_division for case in found.cases):
            reason = ". ".join(found.sentences) + f". {ACROSS_DIVISIONS}."
            return cannot_check(claim, reason, cases=tuple(found.cases), rows=rows, codes=found.codes)
        if found.unlike:  # results in it, but none an efficiency can be made of: shown
            reason = ". ".join(found.unlike) + "."
            return cannot_check(claim, reason, cases=tuple(found.cases), rows=rows, missing=found.missing)
        reason = "The pair has no result in the scenario the claim names."
        return cannot_check(claim, reason, rows=rows, missing=found.missing)

    def caveats(self, claim: Claim, data: Data, found, judged: list) -> tuple[set, list]:
        if any(case.claimed is not None and case.measured is None for case in found.cases):
            found.codes.add("incomplete-data")
        return found.codes, found.notes

    def unit(self, claim: Claim) -> str:
        return "%"


check = _Scaling().check


def _pair_case(
    claim: Claim, data: Data, sides: tuple, scenario: str, named: bool, margin: float, found
) -> None:
    """One scenario of the pair: measured where both configurations have a result in it."""
    benchmark = benchmarks_of(claim)[0]
    little, big = _picked(claim, sides, scenario, f"{benchmark} {scenario}")
    claimed = quantifiers.figure_for(claim, scenario) if named else None
    if little is None or big is None:
        note = f"no {'smaller' if little is None else 'larger'} configuration in {scenario}"
        role = "small" if little is None else "large"
        why = kinds.looked_for(data, claim, role, benchmark=benchmark, scenario=scenario)
        if why and named:
            found.missing.append(why)
    else:
        note = _not_comparable(little, big)  # an efficiency of two throughputs only, in one unit
        if note and named:
            found.unlike.append(f"In {scenario} {note}")
    if note:
        found.cases.append(kinds.unmeasured(scenario, scenario, claimed, "%", ScalingCase(note=note)))
        return
    _scenario(claim, found, scenario, little, big, claimed, margin)


def _not_comparable(little: pd.Series, big: pd.Series) -> str:
    """Why the two results give no scaling efficiency (a latency, or two units), or ""."""
    if little["units"] != big["units"]:
        return f"the two results are in different units ({little['units']} and {big['units']}): no efficiency"
    if not (bool(little["higher_is_better"]) and bool(big["higher_is_better"])):
        return f"the results are a latency ({little['units']}), not a throughput: no efficiency"
    return ""


def _scenario(claim: Claim, findings: _Findings, scenario: str, little, big, claimed, margin: float) -> None:
    """One scenario of the pair: its efficiency, judged against the claimed figure where the
    claim names the scenario and both results are of one division."""
    efficiency = 100.0 * scaling_efficiency(
        big["result"], int(big["total_accelerators"]), little["result"], int(little["total_accelerators"])
    )
    crossed = across_divisions(little["division"], big["division"])
    reading = quantifiers.read(claim)
    judgment = None if claimed is None or crossed else quantifiers.judge(reading, efficiency, claimed, "%")
    crossing = crossed and claimed is not None  # shown, not judged
    detail = ScalingCase(
        small=label_of(little),
        large=label_of(big),
        throughput_ratio=big["result"] / little["result"],
        gpu_ratio=big["total_accelerators"] / little["total_accelerators"],
        cross_division=crossing,
        judgment=judgment,
    )
    evidence = (big["location"], little["location"])
    selected = () if crossing else chosen("large", big) + chosen("small", little)
    value, holds = getattr(claimed, "value", None), getattr(judgment, "holds", None)
    findings.used.append(pd.DataFrame([little, big]))
    findings.pairs.append(pair_row(little, big))
    findings.cases.append(Case(scenario, scenario, efficiency, value, "%", holds, evidence, selected, detail))
    if crossing:
        findings.codes.add("cross-division")
        findings.sentences.append(
            f"In {scenario} the pair's results are of different divisions ({formatting.quantity(efficiency, '%')}, not judged)"
        )
    if claimed is None or crossing:
        return
    if superlinear(efficiency, margin):
        findings.codes.add("superlinear-baseline")
    if judgment.exact and reading.rule.precise:
        findings.sentences.append(
            f"In {scenario}, {label_of(big)} over {label_of(little)} scales at {formatting.quantity(efficiency, '%')}, "
            f"which is the claimed {claimed.text('%')}"
        )
        return
    findings.sentences.append(
        f"In {scenario} the efficiency is {formatting.quantity(efficiency, '%')}; {reading.spoken(claimed, '%')} is "
        f"{formatting.signed_percent(gap_percent(claimed.value, efficiency))} from it"
        + ("" if reading.rule.precise else f", and {'holds' if judgment.holds else 'does not hold'}")
    )


def _other_scenarios(claim: Claim, data: Data, findings: _Findings) -> set[str]:
    """Scenarios of the pair the claim does not name that fall short of its one figure: a caveat,
    with the pairs of other submitters on the same step (the same two GPU counts) beside them;
    the scenarios said."""
    figures = quantifiers.figures_in(claim.claimed)
    if len(figures) != 1:
        return set()
    reading = quantifiers.read(claim)
    short = [
        case
        for case in findings.cases
        if case.claimed is None
        and case.measured is not None
        and not case.detail.cross_division
        and not quantifiers.judge(reading, case.measured, figures[0], "%").holds
    ]
    if short:
        findings.codes.add("other-scenarios")
    results = in_division(claim, data)
    for case in short:
        own = next(pair for pair in findings.pairs if pair["scenario"] == case.scenario)
        sizes = {"small_gpus": own["small_gpus"], "large_gpus": own["large_gpus"]}
        step = where(results, benchmark=own["benchmark"], scenario=case.scenario)
        pairs = scaling_pairs(step[step["total_accelerators"].isin(list(sizes.values()))])  # (a few results)
        same_step = where(pairs, benchmark=own["benchmark"], scenario=case.scenario, **sizes)
        others = "; ".join(
            f"{pair_label(pair)} {formatting.quantity(100 * pair['efficiency'], '%')}"
            for _, pair in same_step.sort_values("large_location").iterrows()
            if pair["large_location"] != own["large_location"]
        )
        said = f"on the same step ({own['small_gpus']} to {own['large_gpus']} GPUs)"
        findings.sentences.append(
            f"In {case.scenario}, which the claim does not name, the same pair scales at "
            f"{formatting.quantity(case.measured, '%')}, short of {reading.spoken(figures[0], '%')}"
            + (
                f"; other submitters' pairs {said} in {case.scenario}: {others}"
                if others
                else f"; no other submitter has a pair {said}"
            )
        )
    return {case.label for case in short}


def _unnamed(findings: _Findings, said: set[str]) -> None:
    """The reason's last sentence: the pair's figures in the scenarios the claim does not name
    (those not ``said`` already, short of its figure)."""
    context = [
        case
        for case in findings.cases
        if case.claimed is None and case.measured is not None and case.label not in said
    ]
    if context:
        findings.sentences.append(
            "Other scenarios of the same pair, which the claim does not name: "
            + ", ".join(f"{case.label} {formatting.quantity(case.measured, '%')}" for case in context)
        )


def _own_pairs(claim: Claim, data: Data) -> list[dict]:
    """The claim's own pair in each scenario, as ``scaling_pairs`` rows (a summed one too)."""
    small, large, missing = configurations(claim, data)
    if missing is not None:
        return []
    return [
        pair_row(*_picked(claim, (small, large), scenario, scenario))
        for scenario in sorted(set(small["scenario"]) & set(large["scenario"]))
    ]


def charts(check, data: Data) -> list:
    """Every scaling pair's efficiency in each scenario the claim states a figure for, the
    claim's own pair drawn large (a pair of summed results too, its counts in its systems)."""
    pairs = scaling_pairs(in_division(check.claim, data))
    own = _own_pairs(check.claim, data)
    known = set(zip(pairs["small_location"], pairs["large_location"]))
    added = [pair for pair in own if (pair["small_location"], pair["large_location"]) not in known]
    if added:
        pairs = pd.concat([pairs, pd.DataFrame(added, columns=pairs.columns)], ignore_index=True)
    return [
        kinds.EfficiencyScatter(
            pairs,
            case.scenario,
            f"Scaling efficiency of every scaling pair, {case.scenario}",
            "Scatter plot: each point is one submitter's pair of configurations on one benchmark; the claim's pair "
            "is drawn large (a pair of summed results with its counts); the dashed line is linear scaling.",
            highlight=[(case.evidence[1], case.evidence[0])],
        )
        for case in check.cases
        if case.claimed is not None and case.measured is not None
    ]
