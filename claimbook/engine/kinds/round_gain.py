"""Kind ``round-gain``: one system's gain from an earlier round to the current one.

The current figure is the system's published result; the earlier one comes from the cross-round
table, the strongest source first. The claimed gain is read by the claim's quantifier ("up to
1.6x": ``quantifier: up-to``, the best scenario reaching it; a figure per scenario: each at its
precision). A figure the announcement itself states for the earlier round
(its ``stated`` block) is evidence of the weakest kind and is flagged as a vendor figure; an
earlier figure from another division is flagged too. An earlier figure that names no system
cannot be set against a result of a named system. A gain from a figure of the other division
(Open against Closed) is shown but not judged: MLCommons does not compare the divisions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from claimbook.claims.drafting import Drafting, Proposal
from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import core, kinds, quantifiers
from claimbook.engine.compare import metric_change
from claimbook.engine.core import Case, CaseDetail, Data, where
from claimbook.engine.kinds import multiple_unit
from claimbook.engine.kinds._skeleton import Comparing
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, matches
from claimbook.inputs.earlier import SOURCE_TYPES, UNSPECIFIED_SYSTEM, round_order

PUBLISHED_SUMMARY = "mlperf-summary"  # of SOURCE_TYPES: the round's own results file


@dataclass(frozen=True)
class GainCase(CaseDetail):
    """One scenario's gain: the earlier and the current result, where the earlier one comes
    from; for a scenario with nothing to measure, why."""

    note: str = ""
    cross_division: bool = False
    from_result: float | None = None
    to_result: float | None = None
    speedup: float | None = None
    metric_change: float | None = None  # the metric's own signed change, in percent
    metric: str = ""
    higher_is_better: bool | None = None
    units: str = ""
    from_source: str = ""  # the kind of source of the earlier figure (SOURCE_TYPES)
    from_division: str = ""
    judgment: object = None  # the quantifier's judgment of the case (quantifiers.Judgment)


def _decide_gain(claim: Claim, unit: str, cases: list[Case], codes: set, spread: str):
    """The claimed gain read by the claim's quantifier: the best scenario, or every one."""
    reading = quantifiers.read(claim)
    judged = [case for case in cases if case.detail.judgment is not None]
    decision = quantifiers.decide(reading, [(case, case.detail.judgment) for case in judged])
    if decision is None:
        return CANNOT_BE_CHECKED, f"No scenario has a claimed figure: {spread}.", cases[0].label
    codes.update(decision.codes)
    if reading.cases == quantifiers.BEST:
        best = decision.deciding
        said = reading.spoken(quantifiers.figure_for(claim, best.scenario), unit)
        if not decision.holds:
            return NOT_SUPPORTED, f"No scenario reaches {said}: {spread}.", best.label
        return SUPPORTED, f"The best case, {best.label}, reaches {said}: {spread}.", best.label
    listed = ", ".join(
        f"{case.label} {formatting.case_figure(case.measured, unit)}"
        + ("" if case.detail.higher_is_better else f", that is {_speedup_text(case)}")
        + f" (claimed {quantifiers.figure_for(claim, case.scenario).text(unit)})"
        for case in judged
    )
    lead = (
        "Not every scenario reaches its figure" if decision.failing else "Every scenario reaches its figure"
    )
    return (NOT_SUPPORTED if decision.failing else SUPPORTED), f"{lead}: {listed}.", decision.deciding.label


# Proposed by ``draft`` for a multiple or a percentage in a sentence that names an earlier round
# (the first round it names is the one the gain is from), or speaks of one ("the previous round":
# its from_round stays a TODO).
DRAFTING = Drafting(
    proposals=(
        Proposal(
            30,
            lambda s, f: f.unit in ("x", "%") and (bool(s.rounds) or s.unnamed_earlier_round),
            "a gain over an earlier round",
        ),
    ),
    todos=("from_round", "subject"),
    fill=lambda s, f, results: {"from_round": s.rounds[0]} if s.rounds else {},
)


SPEC = kinds.KindSpec(
    name="round-gain",
    drafting=DRAFTING,
    description="one system's gain from an earlier round to the current one",
    required=(
        kinds.BENCHMARK,
        kinds.SUBJECT,
        kinds.Field("from_round", "the earlier round the gain is from (v5.1 ...)"),
        kinds.Field(
            "claimed",
            'the claimed gain, as written ("2.90" keeps its precision): a number, or {scenario: number}',
        ),
    ),
    optional=(
        *kinds.FIGURE_FIELDS,
        kinds.SCENARIOS,
        kinds.Field(
            "unit", "how the gain is stated", {"x": "times (the default)", "%": "an improvement in percent"}
        ),
        kinds.Field(
            "stated",
            "the earlier figures the announcement itself states: {round, figures: {scenario: value}, ...}",
        ),
        kinds.Field(
            "stated_current",
            "the current figures the announcement states, {scenario: value}, checked against the published ones",
        ),
        kinds.Field("earlier", "whose earlier result it is, where not the subject's: {organization, system}"),
        kinds.DIVISION,
    ),
    example={
        "id": "acme-round-gain",
        "title": "1.5x since the last round",
        "statement": "Acme's system is 1.5 times as fast on gpt-oss-120b as in the previous round.",
        "kind": "round-gain",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "Acme-B300"},
        "from_round": "v6.0",
        "quantifier": "up-to",
        "claimed": 1.5,
    },
    detail=GainCase,
    selectors=("subject",),
    one_per_case=("subject",),
    columns=(
        *kinds.CASE_COLUMNS[:4],
        kinds.Column("Earlier", "detail.from_result"),
        kinds.Column("Now", "detail.to_result"),
        kinds.Column("Units", "detail.units"),
        kinds.Column("Note", "detail.note", missing="—"),
    ),
    tables={
        "gains": kinds.Table("The gain, scenario by scenario", omit=("from_source", "to_source")),
        "headline_figures": kinds.Table(
            "Earlier figures that name no system",
            tuple(
                (name, name)
                for name in ("round", "organization", "system", "scenario", "result", "units", "source_type")
            ),
        ),
    },
)


def audit(claim: Claim, data: Data) -> list[str]:
    """A gain from a round that is not before the claim's own: no figure could ever be found."""
    own, earlier = data.announcement(claim).round, str(claim.get("from_round"))
    if round_order(earlier) < round_order(own):
        return []
    said = f"{earlier[:20]} is not a round before the claim's own ({own}); a gain is from an earlier round"
    return [f"{claim.where}: field from_round: {said}"]


def validate(claim: Claim) -> None:
    kinds.check_scenario_figures(claim, named_only=False)
    kinds.check_figures(claim)
    if multiple_unit(claim) not in ("x", "%"):
        kinds.fail(claim, "unit", "a gain is in x (times) or % (improvement in percent)")
    stated = claim.get("stated")
    if stated is not None:
        if (
            not isinstance(stated, dict)
            or not stated.get("round")
            or not isinstance(stated.get("figures"), dict)
        ):
            kinds.fail(
                claim,
                "stated",
                "expected {round, figures: {scenario: value}, result_id, division, gpus, units}",
            )
        for scenario, value in stated["figures"].items():
            if not isinstance(value, (int, float)) or value <= 0:
                kinds.fail(claim, f"stated.figures.{scenario}", "a stated figure is a positive number")
    current = claim.get("stated_current")
    if current is not None and (
        not isinstance(current, dict)
        or not all(
            isinstance(value, (int, float)) and not isinstance(value, bool) for value in current.values()
        )
    ):
        kinds.fail(
            claim, "stated_current", "the current round's figures the announcement states: {scenario: value}"
        )


def _earlier_rows(data: Data, claim: Claim, current: pd.Series, scenario: str) -> pd.DataFrame:
    if data.earlier.empty:
        return data.earlier
    organization = (claim.get("earlier") or {}).get("organization", current["organization"])
    rows = where(
        data.earlier, round=str(claim.get("from_round")), organization=organization, scenario=scenario
    )
    return rows[rows["model"].map(data.reference.benchmark) == current["benchmark"]]


@dataclass
class Found(kinds.Findings):
    """What a round-gain check gathers, scenario by scenario, before it decides."""

    headlines: list = field(default_factory=list)  # earlier figures that name no system


class _RoundGain(Comparing):
    absent = "The system is not in the current round's data"
    findings = Found

    def gather(self, claim: Claim, data: Data, subject, found) -> None:
        benchmark = core.benchmarks_of(claim)[0]
        subject = subject[subject["benchmark"] == benchmark]
        for scenario in core.scenarios_of(claim, subject["scenario"]):
            _scenario(claim, data, subject, (benchmark, scenario), found)
        _check_stated_current(claim, subject, found.codes, found.notes)

    def tables(self, claim: Claim, found) -> dict:
        known = pd.concat(found.headlines) if found.headlines else pd.DataFrame()
        return {"gains": pd.DataFrame(found.table), "headline_figures": known}

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict):
        return _no_earlier(claim, found, tables)

    def spread(self, claim: Claim, judged: list) -> str:
        return _spread(judged, self.unit(claim))

    def summary(self, claim: Claim, found, judged: list) -> str:
        # A gain on a lower-is-better metric is a speedup and a fall of the metric, never a rise.
        unit = self.unit(claim)
        return "; ".join(
            f"{case.label} {formatting.case_figure(case.measured, unit)}: {_speedup_text(case)}"
            for case in judged
            if not case.detail.higher_is_better
        )

    def judge(self, claim: Claim, found, judged: list, codes: set, notes: list) -> tuple[str, str, str]:
        unit = self.unit(claim)
        return _decide_gain(claim, unit, judged, codes, _spread(found.measured(), unit))


def _spread(cases: list, unit: str) -> str:
    """Each case's gain, the results it is from ("Offline 1.60x (10 → 16 tokens/s)")."""
    return ", ".join(
        f"{case.label} {formatting.case_figure(case.measured, unit)} ({formatting.quantity(case.detail.from_result)} → "
        f"{formatting.quantity(case.detail.to_result)} {case.detail.units})"
        if case.detail.higher_is_better
        else f"{case.label} {formatting.case_figure(case.measured, unit)}, that is {_speedup_text(case)}"
        for case in cases
    )


def _scenario(claim: Claim, data: Data, subject, at: tuple, found) -> None:
    """One scenario's case: the subject's current result against its earlier figure."""
    benchmark, scenario = at
    claimed = quantifiers.figure_for(claim, scenario)
    in_scenario = subject[subject["scenario"] == scenario]
    current = core.pick(in_scenario, claim.get("subject"), "subject", claim, f"{benchmark} {scenario}")
    if current is None:
        found.missing.append(kinds.looked_for(data, claim, "subject", benchmark=benchmark, scenario=scenario))
        earlier = f"no {scenario} result now"
    else:
        earlier = _earlier(claim, data, current, scenario, found)
    if isinstance(earlier, str):  # why the scenario has nothing to measure
        detail = GainCase(note=earlier)
        found.cases.append(kinds.unmeasured(scenario, scenario, claimed, multiple_unit(claim), detail))
        return
    _measure(claim, scenario, claimed, current, earlier, found)
    _cite_earlier(data, earlier[0], found)


def _cite_earlier(data: Data, earlier: pd.Series, found: Found) -> None:
    """An earlier figure from a round the book holds in full is a published result as the current
    one is: its row is among the results used, so the page cites it and links its folder."""
    if earlier["source_type"] != PUBLISHED_SUMMARY or data.rounds is None:
        return
    if str(earlier["round"]) not in data.rounds.names:
        return
    table = data.rounds.table(str(earlier["round"]))
    row = table[table["location"] == earlier["source"]]
    if not row.empty:
        found.used.append(row.iloc[:1])


def _earlier(claim: Claim, data: Data, current: pd.Series, scenario: str, found: Found):
    """The earlier figure of the same system (the table is ordered strongest source first) and the
    other sources of it; where there is none, why."""
    from_round = str(claim.get("from_round"))
    candidates = _earlier_rows(data, claim, current, scenario)
    system = (claim.get("earlier") or {}).get("system") or current["system"]
    named = candidates[candidates["system"] == system]
    sized = named[named["total_accelerators"].notna()] if not named.empty else named
    headline = candidates[
        (candidates["system"] == UNSPECIFIED_SYSTEM) | candidates["total_accelerators"].isna()
    ]
    found.headlines.append(headline)
    if named.empty:
        return f"no {from_round} figure of {system}" + (
            "; only figures without a system size" if not headline.empty else ""
        )
    earlier = (sized if not sized.empty else named).iloc[0]
    if current["units"] != earlier["units"]:
        return f"{from_round} in {earlier['units']}, now {current['units']}"
    return earlier, named.drop(index=earlier.name)


def _other_source(from_round: str, scenario: str, earlier: pd.Series, other: pd.Series) -> str:
    """A sentence on another source of the earlier figure: whether it agrees."""
    agree = (
        "agrees"
        if matches(other["result"], earlier["result"]) or abs(other["result"] / earlier["result"] - 1) < 1e-9
        else "differs"
    )
    return (
        f"The {from_round} {scenario} figure {formatting.quantity(earlier['result'])} ({SOURCE_TYPES[earlier['source_type']]}"
        f"{', ID ' + earlier['result_id'] if earlier['result_id'] else ''}) {agree} with "
        f"{formatting.quantity(other['result'])} from {SOURCE_TYPES[other['source_type']]}"
        f"{' (ID ' + other['result_id'] + ')' if other['result_id'] else ''}"
        + (
            "; the two give different result IDs for it"
            if earlier["result_id"] and other["result_id"] and earlier["result_id"] != other["result_id"]
            else ""
        )
    )


def _measure(claim: Claim, scenario: str, claimed, current: pd.Series, earlier: tuple, found: Found) -> None:
    """One measured scenario: the gain, the caveats its earlier figure brings (``earlier``: the
    figure and its other sources, and whether they agree), its table row."""
    earlier, others = earlier
    from_round = str(claim.get("from_round"))
    higher = bool(current["higher_is_better"])
    gain = current["result"] / earlier["result"] if higher else earlier["result"] / current["result"]
    unit = multiple_unit(claim)
    measured = kinds.in_unit(gain, unit)
    crossed = core.across_divisions(earlier["division"], current["division"])
    judgment = (
        None if claimed is None or crossed else quantifiers.judge(quantifiers.read(claim), measured, claimed)
    )
    _earlier_caveats(from_round, scenario, (current, earlier, others), crossed, found)
    change = metric_change(current["result"], earlier["result"])
    detail = GainCase(
        from_result=float(earlier["result"]),
        to_result=float(current["result"]),
        speedup=gain,
        metric_change=change,
        metric=str(current["metric"]),
        higher_is_better=higher,
        units=current["units"],
        from_source=earlier["source_type"],
        from_division=earlier["division"],
        cross_division=crossed,
        judgment=judgment,
    )
    evidence, selected = (current["location"],), core.chosen("subject", current)
    value, holds = getattr(claimed, "value", None), getattr(judgment, "holds", None)
    found.cases.append(Case(scenario, scenario, measured, value, unit, holds, evidence, selected, detail))
    found.used.append(pd.DataFrame([current]))
    found.table.append(
        {
            "scenario": scenario,
            "from_round": from_round,
            "to_round": current["round"],
            "from_result": earlier["result"],
            "to_result": current["result"],
            "units": current["units"],
            "gain": gain,
            "change_percent": change,
            "evidence": earlier["source_type"],
            # Each figure's kind of source, as inputs.earlier.round_to_round gives them (the chart
            # marks each point by its own): this round's figure is its published summary.
            "from_source": earlier["source_type"],
            "to_source": PUBLISHED_SUMMARY,
        }
    )


def _earlier_caveats(from_round: str, scenario: str, figures: tuple, crossed: bool, found: Found) -> None:
    """The caveats a scenario's earlier figure brings (``figures``: the current result, the
    earlier figure, the earlier figure's other sources), and whether its other sources agree."""
    current, earlier, others = figures
    if earlier["source_type"] == "vendor-announcement":
        found.codes.add("vendor-source")
    if pd.isna(earlier["total_accelerators"]):
        found.codes.add("no-system-size")
    if crossed:
        found.codes.update({"open-division", "cross-division"})
        found.notes.append(
            f"The {from_round} {scenario} figure is from the {earlier['division'].capitalize()} division, "
            f"the {current['round']} one from the {current['division'].capitalize()} division"
        )
    for _, other in others.iterrows():
        found.notes.append(_other_source(from_round, scenario, earlier, other))


check = _RoundGain().check


def _no_earlier(claim: Claim, found: Found, tables: dict):
    """No scenario has an earlier figure of the same system: cannot be checked, the headline
    figures known for the benchmark named (``tables``' headline figures)."""
    known = tables["headline_figures"]
    from_round = str(claim.get("from_round"))
    reason = (
        f"No {from_round} result of the same system is in the data the book has "
        f"({'; '.join(case.label + ': ' + case.detail.note for case in found.cases)})."
    )
    if not known.empty:
        listed = "; ".join(
            f"{row.scenario} {formatting.quantity(row.result, row.units)}" for row in known.itertuples()
        )
        reason += (
            f" The {from_round} figures known for this benchmark are headline numbers without a system "
            f"({listed}); they cannot be set against the result of a named system."
        )
        found.codes.add("no-system-size")
    return core.cannot_check(claim, reason, tables=tables, codes=found.codes, missing=found.missing)


def charts(check, data: Data) -> list:
    """The system's result round to round, per scenario."""
    gains = check.tables.get("gains")
    if gains is None or gains.empty:
        return []
    return [
        kinds.RoundLines(
            gains,
            "The same system, round to round",
            "Line chart of the system's result in the earlier round and in this one, per scenario; "
            "the point's shape says where the earlier figure comes from.",
        )
    ]


def _check_stated_current(claim: Claim, subject: pd.DataFrame, codes: set, notes: list) -> None:
    """The current-round figures the announcement states should be the published ones."""
    stated = claim.get("stated_current") or {}
    wrong = []
    for scenario, value in stated.items():
        row = core.best_row(subject[subject["scenario"] == scenario])
        if row is not None and not matches(float(row["result"]), float(value)):
            wrong.append(
                f"{scenario}: stated {formatting.quantity(float(value))}, published {formatting.quantity(float(row['result']))}"
            )
    if wrong:
        codes.add("detail-mismatch")
        notes.append(
            "The current-round figures the announcement states differ from the published ones ("
            + "; ".join(wrong)
            + ")"
        )
    elif stated:
        notes.append(
            f"The current-round figures the announcement states are the published ones ({', '.join(stated)})"
        )


def _speedup_text(case: Case) -> str:
    """ "1.70x as fast, latency -41.1% (27.4 s → 16.1 s)" """
    detail = case.detail
    return (
        formatting.gain(detail.speedup, detail.metric_change, detail.metric, False)
        + f" ({formatting.result(detail.from_result, detail.units)} → {formatting.result(detail.to_result, detail.units)})"
    )
