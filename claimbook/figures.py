"""Checking the stated figures of one system (a throughput, a latency) and its claimed gains
over an unnamed single node."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.baselines import judge_unnamed_baseline, label, single_node_candidates, systems_matching
from claimbook.results import select_one
from claimbook.verdict import Verdict, judge_figure, with_unit


@dataclass(frozen=True)
class FigureCheck:
    claim_id: str
    scenario: str
    claimed: float
    unit: str
    row: pd.Series  # the system's published result
    matching: pd.DataFrame  # every result of the benchmark that is the claimed figure
    verdict: Verdict


@dataclass(frozen=True)
class BaselineCheck:
    claim_id: str
    claimed: float
    ratio_column: str
    reproducing: pd.DataFrame
    closest: pd.Series | None
    verdict: Verdict


def _matching_notes(matching: pd.DataFrame, row: pd.Series, unit: str) -> tuple[str, ...]:
    """Whose published results the claimed figure also (or instead) is."""
    others = matching[matching["location"] != row["location"]]
    if others.empty:
        return ()
    listed = "; ".join(
        f"{item.organization} {item.system} ({with_unit(item.result, unit)})" for item in others.itertuples()
    )
    how = "also" if row["location"] in set(matching["location"]) else "instead"
    return (f"The claimed figure is {how} the published result of {listed}",)


def check_figure(
    results: pd.DataFrame, *, claim_id: str, organization: str, system: str, model: str, scenario: str,
    claimed: float, unit: str, division: str = "closed", tolerance: float = 0.0,
) -> FigureCheck:
    """Is the system's published result in ``scenario`` the claimed figure, and whose is it?"""
    row = select_one(results, organization=organization, system=system, model=model, scenario=scenario, division=division)
    matching = systems_matching(results[results["division"] == division], model, scenario, claimed, tolerance)
    # Whose else the figure is informs the reader; it does not weaken a figure that matches.
    verdict = judge_figure(
        claimed, row["result"], unit, tolerance,
        what=f"the {scenario} result of {organization} {system}", notes=_matching_notes(matching, row, unit),
    )
    return FigureCheck(claim_id, scenario, claimed, unit, row, matching, verdict)


def check_gains_over_single_node(
    results: pd.DataFrame, *, throughput: FigureCheck, latency: FigureCheck, model: str, division: str,
    throughput_claim: tuple[str, float], latency_claim: tuple[str, float], tolerance: float = 0.0,
) -> tuple[pd.DataFrame, BaselineCheck, BaselineCheck]:
    """Every single-node candidate with both ratios, and a verdict for each claimed gain."""
    candidates = single_node_candidates(
        results[results["division"] == division],
        model=model,
        throughput_scenario=throughput.scenario,
        latency_scenario=latency.scenario,
        system_throughput=throughput.row["result"],
        system_latency=latency.row["result"],
        exclude=(throughput.row["organization"], throughput.row["system"]),
    )
    checks = []
    for (claim_id, claimed), column, what in (
        (throughput_claim, "throughput_ratio", "the throughput gain over a single node"),
        (latency_claim, "latency_ratio", "the latency gain over a single node"),
    ):
        verdict, reproducing, closest = judge_unnamed_baseline(candidates, column, claimed, what, tolerance)
        checks.append(BaselineCheck(claim_id, claimed, column, reproducing, closest, verdict))
    both = set(checks[0].reproducing["system"] + "|" + checks[0].reproducing["organization"]) & set(
        checks[1].reproducing["system"] + "|" + checks[1].reproducing["organization"]
    )
    if not both and not checks[0].reproducing.empty and not checks[1].reproducing.empty:
        note = "No single node reproduces both gains at once"
        checks = [BaselineCheck(c.claim_id, c.claimed, c.ratio_column, c.reproducing, c.closest,
                                Verdict(c.verdict.verdict, c.verdict.reason, (*c.verdict.caveats, note))) for c in checks]
    return candidates, checks[0], checks[1]


def figure_scorecard_row(check: FigureCheck, chapter: str) -> dict:
    return {
        "claim": check.claim_id,
        "chapter": chapter,
        "scenario": check.scenario,
        "claimed": check.claimed,
        "measured": check.row["result"],
        "unit": check.unit,
        "verdict": check.verdict.verdict,
        "reaches_claim": check.verdict.verdict.startswith("supported"),
        "reason": check.verdict.text(),
        "evidence": check.row["location"],
    }


def baseline_scorecard_row(check: BaselineCheck, scenario: str, chapter: str) -> dict:
    shown = check.reproducing.iloc[0] if not check.reproducing.empty else check.closest
    location_column = "throughput_location" if check.ratio_column == "throughput_ratio" else "latency_location"
    return {
        "claim": check.claim_id,
        "chapter": chapter,
        "scenario": scenario,
        "claimed": check.claimed,
        "measured": None if shown is None else shown[check.ratio_column],
        "unit": "x",
        "verdict": check.verdict.verdict,
        "reaches_claim": not check.reproducing.empty,
        "reason": check.verdict.text(),
        "evidence": "" if shown is None else f"against {label(shown)}: {shown[location_column]}",
    }


def figure_table(checks: list[FigureCheck]) -> pd.DataFrame:
    """Each stated figure, the system's published result, and whose results it matches."""
    return pd.DataFrame(
        [
            {
                "claim": check.claim_id,
                "scenario": check.scenario,
                "claimed": check.claimed,
                "result": check.row["result"],
                "units": check.row["units"],
                "verdict": check.verdict.verdict,
                "matching_results": "; ".join(
                    f"{item.organization} {item.system} ({item.result:.3g})" for item in check.matching.itertuples()
                ) or "none",
            }
            for check in checks
        ]
    )


def candidates_table(candidates: pd.DataFrame) -> pd.DataFrame:
    """Single-node candidates as readers see them."""
    return candidates[
        ["organization", "system", "accelerator", "total_accelerators", "throughput", "latency",
         "throughput_ratio", "latency_ratio"]
    ].sort_values("throughput_ratio", na_position="last", kind="stable")
