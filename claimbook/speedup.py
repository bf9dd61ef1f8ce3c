"""Checking an "up to X times faster" claim of one system over another."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.compare import scenario_ratios
from claimbook.results import best_per_scenario, select
from claimbook.verdict import (
    Verdict,
    availability_caveat,
    judge_up_to,
    matches_claim,
    shortfall_caveat,
)


@dataclass(frozen=True)
class SpeedupCheck:
    claim_id: str
    model: str
    claimed: float
    evidence: pd.DataFrame  # the exact tidy rows used
    ratios: pd.DataFrame  # new system over the submitter's own baseline, per scenario
    ratios_best_any: pd.DataFrame  # new system over the best baseline-class result by anyone
    verdict: Verdict


def _one_per_scenario(rows: pd.DataFrame, scenarios) -> pd.DataFrame:
    """The rows in scenario order; two results of one system in one scenario are an error."""
    picked = []
    for scenario in scenarios:
        found = rows[rows["scenario"] == scenario]
        if len(found) > 1:
            raise LookupError(f"{len(found)} results in {scenario}: {'; '.join(found['location'])}")
        picked.extend(row for _, row in found.iterrows())
    return pd.DataFrame(picked, columns=rows.columns)


def check_speedup(
    results: pd.DataFrame,
    *,
    claim_id: str,
    model: str,
    claimed: float,
    organization: str,
    new_system: str,
    baseline_system: str,
    baseline_accelerator: str,
    baseline_gpus: int,
    scenarios,
    division: str = "closed",
    tolerance: float = 0.0,
) -> SpeedupCheck:
    """Recompute an "up to X" speedup claim in every scenario both systems published."""
    scenarios = list(scenarios)
    common = {"model": model, "division": division, "scenario": scenarios}
    new = _one_per_scenario(select(results, organization=organization, system=new_system, **common), scenarios)
    baseline = _one_per_scenario(
        select(results, organization=organization, system=baseline_system, **common), scenarios
    )
    best_any = best_per_scenario(
        results,
        scenarios,
        model=model,
        division=division,
        accelerator=baseline_accelerator,
        total_accelerators=baseline_gpus,
    )
    ratios = scenario_ratios(new, baseline)
    ratios_best_any = scenario_ratios(new, best_any)

    measured = dict(zip(ratios["scenario"], ratios["ratio"]))
    caveats = [
        availability_caveat(dict(zip(new["system"], new["availability"]))),
        shortfall_caveat(claimed, measured, tolerance=tolerance),
    ]
    against_any = dict(zip(ratios_best_any["scenario"], ratios_best_any["ratio"]))
    if against_any:
        best_any_case = max(against_any, key=lambda case: (against_any[case], case))
        best_any_value = against_any[best_any_case]
        if not (matches_claim(best_any_value, claimed, tolerance) or best_any_value > claimed):
            caveats.append(
                f"Against the best {baseline_accelerator} result by any submitter the best case is "
                f"{best_any_value:.2f}x ({best_any_case}), short of {claimed:g}x"
            )
    verdict = judge_up_to(claimed, measured, tolerance=tolerance, caveats=tuple(c for c in caveats if c))
    evidence = pd.concat([new, baseline], ignore_index=True)
    return SpeedupCheck(claim_id, model, claimed, evidence, ratios, ratios_best_any, verdict)


def scorecard_rows(check: SpeedupCheck, chapter: str) -> list[dict]:
    """One scorecard row per scenario of a speedup check."""
    best_any = dict(zip(check.ratios_best_any["scenario"], check.ratios_best_any["ratio"]))
    rows = []
    for _, item in check.ratios.iterrows():
        reaches = matches_claim(item["ratio"], check.claimed) or item["ratio"] > check.claimed
        rows.append(
            {
                "claim": check.claim_id,
                "chapter": chapter,
                "scenario": item["scenario"],
                "claimed": check.claimed,
                "measured": item["ratio"],
                "unit": "x",
                "verdict": check.verdict.verdict,
                "reaches_claim": bool(reaches),
                "measured_vs_best_any": best_any.get(item["scenario"]),
                "per_gpu_ratio": item["per_gpu_ratio"],
                "per_watt_ratio": item["per_watt_ratio"],
                "reason": check.verdict.text(),
                "evidence": f"{item['new_location']} vs {item['baseline_location']}",
            }
        )
    return rows


def spread_table(checks: list[SpeedupCheck]) -> pd.DataFrame:
    """Every scenario of every check side by side: the spread behind the "up to"."""
    frames = []
    for check in checks:
        table = check.ratios[["scenario", "ratio", "per_gpu_ratio", "per_watt_ratio"]].copy()
        best = check.ratios_best_any[["scenario", "ratio", "baseline_organization"]].rename(
            columns={"ratio": "ratio_vs_best_any", "baseline_organization": "best_any_submitter"}
        )
        table = table.merge(best, on="scenario", how="left")
        table.insert(0, "claimed", check.claimed)
        table.insert(0, "model", check.model)
        table.insert(0, "claim", check.claim_id)
        frames.append(table)
    return pd.concat(frames, ignore_index=True)
