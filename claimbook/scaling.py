"""Scaling efficiency: how much of the added hardware shows up as added throughput."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.verdict import Verdict, judge_figure, judge_leading, matches_claim

# A scaling pair: the same submitter running the same benchmark and scenario on the same
# accelerator, in the same division, at two different GPU counts.
PAIR_KEY = ("organization", "division", "accelerator", "model", "scenario")
PAIR_COLUMNS = (
    *PAIR_KEY,
    "units",
    "small_system",
    "small_gpus",
    "small_nodes",
    "small_result",
    "large_system",
    "large_gpus",
    "large_nodes",
    "large_result",
    "gpu_ratio",
    "throughput_ratio",
    "efficiency",
    "small_per_gpu",
    "large_per_gpu",
    "small_location",
    "large_location",
)


def scaling_efficiency(large_result: float, large_gpus: int, small_result: float, small_gpus: int) -> float:
    """(throughput at N GPUs / throughput at N0 GPUs) / (N / N0); 1.0 is perfectly linear."""
    if min(large_result, small_result) <= 0 or min(large_gpus, small_gpus) <= 0:
        raise ValueError("scaling efficiency needs positive results and GPU counts")
    return (large_result / small_result) / (large_gpus / small_gpus)


def scaling_pairs(results: pd.DataFrame) -> pd.DataFrame:
    """Every scaling pair in a tidy results table, smaller configuration first.

    Only throughput results on at least one accelerator count; an empty frame (with the
    columns) when the table has no pair.
    """
    eligible = results[(results["metric"] == "throughput") & (results["total_accelerators"] > 0)]
    pairs = []
    for key, group in eligible.groupby(list(PAIR_KEY), sort=True):
        if group["total_accelerators"].nunique() < 2:
            continue
        ordered = group.sort_values(["total_accelerators", "location"])
        for _, small in ordered.iterrows():
            for _, large in ordered.iterrows():
                if large["total_accelerators"] <= small["total_accelerators"]:
                    continue
                pairs.append(
                    {
                        **dict(zip(PAIR_KEY, key)),
                        "units": large["units"],
                        "small_system": small["system"],
                        "small_gpus": int(small["total_accelerators"]),
                        "small_nodes": int(small["nodes"]),
                        "small_result": small["result"],
                        "large_system": large["system"],
                        "large_gpus": int(large["total_accelerators"]),
                        "large_nodes": int(large["nodes"]),
                        "large_result": large["result"],
                        "gpu_ratio": large["total_accelerators"] / small["total_accelerators"],
                        "throughput_ratio": large["result"] / small["result"],
                        "efficiency": scaling_efficiency(
                            large["result"], large["total_accelerators"], small["result"], small["total_accelerators"]
                        ),
                        "small_per_gpu": small["per_accelerator"],
                        "large_per_gpu": large["per_accelerator"],
                        "small_location": small["location"],
                        "large_location": large["location"],
                    }
                )
    return pd.DataFrame(pairs, columns=list(PAIR_COLUMNS))


def find_pair(pairs: pd.DataFrame, organization: str, model: str, small_system: str, large_system: str) -> pd.DataFrame:
    """The pairs (one per scenario) of one submitter's two configurations; empty if none."""
    return pairs[
        (pairs["organization"] == organization)
        & (pairs["model"] == model)
        & (pairs["small_system"] == small_system)
        & (pairs["large_system"] == large_system)
    ]


def comparison_sets(pairs: pd.DataFrame, rack_gpus: int) -> dict[str, pd.DataFrame]:
    """The pairs a claim of "leading" scaling efficiency is measured against, under two
    definitions: scaling beyond one rack (the larger configuration has more than
    ``rack_gpus`` GPUs), and any scale-out across nodes (the larger configuration has more
    nodes than the smaller)."""
    return {
        f"beyond one rack (more than {rack_gpus} GPUs)": pairs[pairs["large_gpus"] > rack_gpus],
        "any scale-out across nodes": pairs[pairs["large_nodes"] > pairs["small_nodes"]],
    }


def leader(pairs: pd.DataFrame) -> pd.Series | None:
    """The pair with the highest efficiency (ties: first by provenance), or None."""
    if pairs.empty:
        return None
    ordered = pairs.sort_values(["efficiency", "large_location"], ascending=[False, True])
    return ordered.iloc[0]


@dataclass(frozen=True)
class ScalingCheck:
    pairs: pd.DataFrame  # the claim's own pair, one row per scenario
    all_pairs: pd.DataFrame  # every scaling pair of the round
    efficiency_verdict: Verdict
    leading_verdict: Verdict
    leaders: dict  # definition -> the best other pair in the claim's scenario, or None


def pair_label(pair: pd.Series) -> str:
    """ "Azure deepseek-r1, 72->288 NVIDIA GB200" """
    return f"{pair['organization']} {pair['model']}, {pair['small_gpus']}->{pair['large_gpus']} {pair['accelerator']}"


def check_scaling(
    results: pd.DataFrame,
    *,
    organization: str,
    model: str,
    small_system: str,
    large_system: str,
    claimed_percent: float,
    claim_scenario: str,
    rack_gpus: int,
    division: str = "closed",
    tolerance: float = 0.0,
) -> ScalingCheck:
    """Recompute a scaling-efficiency claim and the claim that it leads its division."""
    all_pairs = scaling_pairs(results[results["division"] == division])
    own = find_pair(all_pairs, organization, model, small_system, large_system)
    if own.empty:
        raise LookupError(
            f"no scaling pair of {organization} {model} from {small_system} to {large_system}; "
            f"{organization}'s pairs on {model}: "
            + (", ".join(sorted(set(all_pairs.loc[(all_pairs.organization == organization) & (all_pairs.model == model), "large_system"]))) or "none")
        )
    by_scenario = own.set_index("scenario")
    other_scenarios = [s for s in by_scenario.index if s != claim_scenario]
    caveats = tuple(
        f"In {scenario} the same configurations reach {100 * by_scenario.loc[scenario, 'efficiency']:.1f}%"
        for scenario in other_scenarios
    )
    measured = 100 * by_scenario.loc[claim_scenario, "efficiency"] if claim_scenario in by_scenario.index else None
    efficiency_verdict = judge_figure(
        claimed_percent, measured, "%", tolerance, caveats, what=f"the {claim_scenario} scaling efficiency"
    )

    # Rivals are other submissions: pairs that scale up to the claim's own large configuration
    # (the same racks measured from another starting size) are not competitors.
    in_scenario = all_pairs[all_pairs["scenario"] == claim_scenario]
    rivals_only = in_scenario[~in_scenario["large_location"].isin(set(own["large_location"]))]
    leaders = {definition: leader(field) for definition, field in comparison_sets(rivals_only, rack_gpus).items()}
    leading_verdict = judge_leading(
        pair_label(by_scenario.reset_index().iloc[0]),
        measured if measured is not None else float("nan"),
        {name: None if best is None else (pair_label(best), 100 * best["efficiency"]) for name, best in leaders.items()},
    )
    return ScalingCheck(own, all_pairs, efficiency_verdict, leading_verdict, leaders)


def scaling_scorecard_rows(check: ScalingCheck, efficiency_claim: str, leading_claim: str, claimed_percent: float, claim_scenario: str, chapter: str) -> list[dict]:
    """Scorecard rows: the efficiency in every scenario of the pair, and the leading claim."""
    rows = []
    for _, pair in check.pairs.iterrows():
        measured = 100 * pair["efficiency"]
        rows.append(
            {
                "claim": efficiency_claim,
                "chapter": chapter,
                "scenario": pair["scenario"],
                "claimed": claimed_percent,
                "measured": measured,
                "unit": "%",
                "verdict": check.efficiency_verdict.verdict,
                "reaches_claim": bool(matches_claim(measured, claimed_percent) or measured > claimed_percent),
                "reason": check.efficiency_verdict.text(),
                "evidence": f"{pair['large_location']} vs {pair['small_location']}",
            }
        )
    own = check.pairs.set_index("scenario")
    if claim_scenario in own.index:
        rows.append(
            {
                "claim": leading_claim,
                "chapter": chapter,
                "scenario": claim_scenario,
                "claimed": None,
                "measured": 100 * own.loc[claim_scenario, "efficiency"],
                "unit": "%",
                "verdict": check.leading_verdict.verdict,
                "reason": check.leading_verdict.text(),
                "evidence": "; ".join(
                    f"{name}: {best['large_location']}" for name, best in check.leaders.items() if best is not None
                ),
            }
        )
    return rows


def pair_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Scaling pairs as readers see them: sizes, results, per-GPU rates, efficiency in %."""
    table = pairs[
        ["organization", "model", "scenario", "accelerator", "small_gpus", "large_gpus", "small_result",
         "large_result", "small_per_gpu", "large_per_gpu"]
    ].copy()
    table["efficiency_percent"] = 100 * pairs["efficiency"]
    return table


def leaders_table(check: ScalingCheck) -> pd.DataFrame:
    """The best rival pair under each definition of the field."""
    rows = []
    for definition, best in check.leaders.items():
        rows.append(
            {
                "definition": definition,
                "leader": "no other pair" if best is None else pair_label(best),
                "efficiency_percent": None if best is None else 100 * best["efficiency"],
            }
        )
    return pd.DataFrame(rows, columns=["definition", "leader", "efficiency_percent"])
