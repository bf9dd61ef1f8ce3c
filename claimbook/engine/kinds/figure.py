"""Kind ``figure``: a figure the claim states for one system ("0.65 videos per second").

A stated figure holds when it is the published value at the precision it is stated with (the
published value rounds or truncates to it; "2.90" keeps its two decimals). Otherwise the reason
gives the signed gap in percent; a claim more favourable than the data is not supported, a claim
less favourable than the data is supported with the caveat that it understates. A figure said
with another word ("at least", "under", "about" ...) is read by the claim's quantifier, the same
way in every kind, on every scenario it names (or its best, ``cases: best``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from claimbook.claims.drafting import Drafting, Proposal
from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import ambiguity, kinds, quantifiers
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Data,
    benchmarks_of,
    cannot_check,
    chosen,
    each_label,
    label_of,
    where,
)
from claimbook.engine.kinds._skeleton import Measuring, missing_said
from claimbook.engine.verdict import gap_percent, matches


@dataclass(frozen=True)
class FigureCase(CaseDetail):
    """A figure case: the gap of the claimed figure to the published one, or why there is none."""

    gap_percent: float = 0.0  # claimed against published, signed (0 where it is the figure as stated)
    note: str = ""
    judgment: object = None  # the quantifier's judgment of the case (quantifiers.Judgment)
    higher_is_better: bool = True


# Proposed by ``draft`` for any figure no other kind is proposed for.
DRAFTING = Drafting(
    proposals=(Proposal(80, lambda s, f: True, "a stated result or figure"),), todos=("subject",)
)


SPEC = kinds.KindSpec(
    name="figure",
    drafting=DRAFTING,
    description="a figure stated for one system",
    required=(
        kinds.BENCHMARK,
        kinds.SUBJECT,
        kinds.Field("scenarios", "the scenarios the figure is stated for"),
        kinds.CLAIMED,
    ),
    optional=(
        kinds.Field("unit", "the unit the figure is stated in, as the claim words it"),
        *kinds.FIGURE_FIELDS,
        kinds.DIVISION,
        kinds.Field("scale", 'the claimed figure\'s unit in result units, e.g. 1000000 for "million"'),
    ),
    example={
        "id": "acme-figure",
        "title": "0.65 videos per second",
        "statement": "Acme's system generates 0.65 videos per second on WAN 2.2.",
        "kind": "figure",
        "benchmark": "wan-2.2-t2v-a14b",
        "subject": {"organization": "Acme", "system": "Acme-B300"},
        "scenarios": ["Offline"],
        "claimed": 0.65,
        "unit": "videos/s",
    },
    detail=FigureCase,
    selectors=("subject",),
    one_per_case=("subject",),
    each=("subject",),
    sums=("subject",),
    columns=(
        kinds.Column("Case", "label"),
        kinds.Column("Published", "measured"),
        kinds.Column("Claimed", "claimed"),
        kinds.Column("Gap (%)", "detail.gap_percent"),
        kinds.Column("Holds", "reaches", kinds.HOLDS),
        kinds.Column("Note", "detail.note", missing="—"),
    ),
    tables={
        "same_figure": kinds.Table(
            "Every published result that is the claimed figure at the precision stated",
            tuple(
                (name, name) for name in ("organization", "system", "scenario", "result", "units", "claimed")
            ),
        )
    },
)


def validate(claim: Claim) -> None:
    scale = claim.get("scale", 1)
    if not isinstance(scale, (int, float)) or scale <= 0:
        kinds.fail(claim, "scale", 'the claimed figure\'s unit in result units, e.g. 1000000 for "million"')
    kinds.check_scenario_figures(claim)
    kinds.check_figures(claim)


def _scaled(claim: Claim, row: pd.Series) -> float:
    """A published result in the claimed figure's unit (``scale``)."""
    return float(row["result"]) / float(claim.get("scale", 1))


def _published(claim: Claim, row: pd.Series) -> str:
    return formatting.result(_scaled(claim, row), claim.unit or "")


def same_figure(data: Data, claim: Claim, benchmark: str, scenario: str, claimed) -> pd.DataFrame:
    """Every published result of the benchmark and scenario that is the claimed figure as stated."""
    rows = where(data.results, benchmark=benchmark, scenario=scenario)
    scale = float(claim.get("scale", 1))
    return rows[
        [matches(value / scale, claimed.value, claim.tolerance, claimed.decimals) for value in rows["result"]]
    ]


@dataclass
class Found(kinds.Findings):
    """What a figure check gathers, scenario by scenario, before it decides."""

    same: list = field(default_factory=list)  # frames of the results that are the figure as stated


class _Figure(Measuring):
    findings = Found
    absent = "The system the figure is about is not in the data"

    def gather(self, claim: Claim, data: Data, subject, found) -> None:
        benchmark = benchmarks_of(claim)[0]
        for scenario in claim.get("scenarios"):
            _scenario(claim, data, subject, (benchmark, scenario), found)
        found.context.extend(_left_out(claim, data, benchmark))

    def tables(self, claim: Claim, found) -> dict:
        return {"same_figure": pd.concat(found.same) if found.same else pd.DataFrame()}

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict):
        conflicts = [f"{case.label}: {case.detail.note}" for case in found.cases if _in_other_unit(case)]
        if conflicts:
            reason = f"No case is measured: {'; '.join(conflicts)}."
            return cannot_check(claim, reason, cases=tuple(found.cases), tables=tables, missing=found.missing)
        scenarios = "scenario" if len(found.cases) == 1 else "scenarios"
        reason = f"The system has no published result in the {scenarios} the claim names"
        return cannot_check(claim, reason + missing_said(found) + ".", tables=tables, missing=found.missing)

    def better(self, case):
        return case.measured if case.detail.higher_is_better else -case.measured


def _scenario(claim: Claim, data: Data, subject, at: tuple, found) -> None:
    """The cases of one scenario: the subject's result (each of them, for ``combine: each``)."""
    benchmark, scenario = at
    each = (claim.get("subject") or {}).get("combine") == "each"
    claimed = quantifiers.figure_for(claim, scenario)
    rows = where(subject, benchmark=benchmark, scenario=scenario)
    picked = kinds.subject_results(claim, rows, f"{benchmark} {scenario}")
    if len(picked) == 1 and picked[0] is None and claimed is not None:
        found.missing.append(kinds.looked_for(data, claim, "subject", benchmark=benchmark, scenario=scenario))
    for row in picked:
        label = each_label(scenario, row, rows) if each else scenario
        _figure_case(claim, data, (benchmark, scenario, label), claimed, row, found)
        if row is not None:
            _context(claim, data, found, (scenario, label), claimed, row, rows)


def _sentence(claim: Claim, at: tuple, measured: float, claimed, judged: tuple) -> str:
    """A case's sentence of the reason, at (scenario, row): the published result against the
    claimed figure; at its precision for a precise reading (``judged``: the judgment, and whether
    the figure is the result at the precision stated), else as the claim's quantifier reads it."""
    (scenario, row), (judgment, exact) = at, judged
    reading, higher = quantifiers.read(claim), bool(row["higher_is_better"])
    published = f"The published {scenario} result of {label_of(row)} is "
    if exact and reading.rule.precise:
        published += formatting.beside_claimed(measured, claimed.decimals, claim.unit)
        return f"{published}, which is the claimed {claimed.text()} at the precision stated"
    published += formatting.quantity(measured, claim.unit)
    if reading.rule.precise:
        gap = gap_percent(claimed.value, measured)
        favour = (gap > 0) == higher
        return (
            f"{published}; the claimed {claimed.text()} is {formatting.percent(abs(gap))} {'above' if gap > 0 else 'below'} "
            f"it, {'in the claimant' if favour else 'against the claimant'}'s favour"
        )
    return (
        f"{published}; read as {reading.spoken(claimed, claim.unit)} it "
        f"{'holds' if judgment.holds else 'does not hold'} ({formatting.signed_percent(gap_percent(measured, claimed.value))} "
        f"against {claimed.text(claim.unit)})"
    )


def _left_out(claim: Claim, data: Data, benchmark: str) -> list[str]:
    """What the subject's selector leaves out that its words may cover (the same company's joint
    submissions, systems mixing its family with another), with their published figures and
    whether each would hold (shown, not judged)."""
    where = {"benchmark": benchmark, "scenario": list(claim.get("scenarios"))}
    subject = claim.get("subject") or {}
    notes = []
    for finder, named_by, what in kinds.LEFT_OUT:
        rows = finder(data, claim, subject, where)
        if not rows.empty:
            notes.append(kinds.left_out_note(subject, named_by, what, _figures(claim, rows)))
    return notes


def _figures(claim: Claim, rows: pd.DataFrame) -> str:
    reading = quantifiers.read(claim)
    listed = []
    for _, row in rows.iterrows():
        claimed = quantifiers.figure_for(claim, row["scenario"])
        judgment = quantifiers.judge(
            reading, _scaled(claim, row), claimed, claim.unit, bool(row["higher_is_better"])
        )
        listed.append(
            f"{label_of(row)} {row['scenario']} {_published(claim, row)}"
            + kinds.would_hold(None if judgment is None else judgment.holds)
        )
    return "; ".join(listed)


def _context(claim: Claim, data: Data, found, at: tuple, claimed, row, rows: pd.DataFrame) -> None:
    """What the card shows beside a case: another system of the vendor that is the figure (for
    a miss), the same system's result in the other division (for a claim of either division),
    and a close second behind a chosen best."""
    scenario, label = at
    if found.cases[-1].reaches is False:  # a miss: does the figure belong to another system of the vendor?
        other = same_vendor_match(claim, row, scenario, claimed, found.same[-1])
        if other:
            found.context.append(other)
    if claim.get("division") == "any":
        found.context.extend(_other_division(claim, data, row, label))
    if (claim.get("subject") or {}).get("combine") == "best":
        second = ambiguity.close_second(rows, row)
        if second is not None:
            found.context.append(kinds.second_note(label, row, *second))


def _other_division(claim: Claim, data: Data, row: pd.Series, label: str) -> list[str]:
    """The same system's published result of the other division, beside the one the figure is:
    a claim that does not say its division is shown both."""
    same = where(
        data.results, **{name: row[name] for name in ("organization", "system", "benchmark", "scenario")}
    )
    return [
        f"In {label} the figure is the {row['division'].capitalize()}-division result "
        f"({_published(claim, row)}); the same system's "
        f"{item['division'].capitalize()}-division result is {_published(claim, item)}"
        for _, item in same[same["division"] != row["division"]]
        .sort_values("location", kind="stable")
        .iterrows()
    ]


check = _Figure().check


def charts(check, data: Data) -> list:
    """Every published result of the benchmark and scenario, the claim's system drawn large and
    the claimed figure (in result units) a dashed line: one chart per measured case."""
    made = []
    benchmark = benchmarks_of(check.claim)[0]
    scale = float(check.claim.get("scale", 1))
    for case in check.cases:
        if case.measured is None:
            continue
        rows = where(data.results, benchmark=benchmark, scenario=case.scenario)
        rows = rows[rows["division"] == check.rows["division"].iloc[0]] if not check.rows.empty else rows
        made.append(
            kinds.ResultDots(
                rows,
                "result",
                f"{data.reference.display_name(benchmark)}, {case.scenario}: every published result",
                f"Dot plot of every {case.scenario} result on {benchmark}; the claim's system is drawn large and a dashed "
                "line marks the claimed figure.",
                highlight=case.evidence,
                claimed=case.claimed * scale if case.claimed is not None else None,
            )
        )
    return made


def same_vendor_match(claim: Claim, row: pd.Series, scenario: str, claimed, matching: pd.DataFrame) -> str:
    """For a stated figure that misses: the other systems of the same vendor, in the same round,
    division, benchmark and scenario, whose published result is the claimed figure as stated
    (``matching``: every one of the benchmark and scenario). Context for the reader (the figure
    may belong to another system), never support: the claim names its system."""
    matching = matching[
        (matching["vendor"].astype(str) == str(row["vendor"]))
        & (matching["division"] == row["division"])
        & (matching["location"] != row["location"])
    ].sort_values("location", kind="stable")
    if matching.empty:
        return ""
    listed = "; ".join(
        f"{label_of(other)}, {other['family']}, at {_published(claim, other)}"
        for _, other in matching.iterrows()
    )
    return (
        f"For context, not support: the claimed {claimed.text()} is the published {scenario} result of another "
        f"{row['vendor']} system in the round, {listed}; the claim names {label_of(row)}, at {_published(claim, row)}"
    )


# A claim's unit words a figure as it likes ("videos/s" of a result in Samples/s), but a rate is
# never a latency's figure, nor a duration a throughput's, nor seconds milliseconds: the unit of
# a latency result each duration word stands for.
DURATIONS = {"s": "Latency (s)", "sec": "Latency (s)", "seconds": "Latency (s)", "ms": "Latency (ms)"}
DURATIONS |= {"milliseconds": "Latency (ms)"}


def unit_conflict(claim: Claim, row) -> str:
    """Why the claim's unit cannot be the unit of ``row``'s result ("" where it can): a rate
    against a latency, a duration against a throughput or another duration; a claim that gives
    its ``scale`` says how its unit relates to the result's, and is taken at its word."""
    unit = str(claim.unit or "").strip()
    if not unit or claim.get("scale") is not None:
        return ""
    said, units = unit.lower(), str(row["units"])
    duration = DURATIONS.get(said)
    if (duration and duration != units) or (said.endswith("/s") and units.startswith("Latency")):
        return f"{IN_OTHER_UNIT} {unit}, the published result is in {units}"
    return ""


IN_OTHER_UNIT = "the claim states its figure in"


def _in_other_unit(case) -> bool:
    return case.detail.note.startswith(IN_OTHER_UNIT)


def _figure_case(claim: Claim, data: Data, at: tuple, claimed, row, found: Found) -> None:
    """One case of a figure claim, at (benchmark, scenario, label): the published result against
    the claimed figure, read by the claim's quantifier."""
    benchmark, scenario, label = at
    conflict = unit_conflict(claim, row) if row is not None else ""
    if row is None or claimed is None or conflict:
        note = conflict or f"no published {scenario} result of the system"
        found.cases.append(kinds.unmeasured(label, scenario, claimed, claim.unit, FigureCase(note=note)))
        return
    measured = _scaled(claim, row)
    higher = bool(row["higher_is_better"])
    judgment = quantifiers.judge(quantifiers.read(claim), measured, claimed, claim.unit, higher)
    exact = matches(measured, claimed.value, claim.tolerance, claimed.decimals)
    found.sentences.append(_sentence(claim, (scenario, row), measured, claimed, (judgment, exact)))
    detail = FigureCase(
        gap_percent=0.0 if exact else gap_percent(claimed.value, measured),
        judgment=judgment,
        higher_is_better=higher,
    )
    evidence, selected = (row["location"],), chosen("subject", row)
    found.cases.append(
        Case(label, scenario, measured, claimed.value, claim.unit, judgment.holds, evidence, selected, detail)
    )
    found.used.append(pd.DataFrame([row]))
    found.same.append(same_figure(data, claim, benchmark, scenario, claimed).assign(claimed=claimed.value))
