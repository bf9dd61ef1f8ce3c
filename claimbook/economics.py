"""Cost and energy per token, and what a speedup is worth in price."""

from __future__ import annotations

import numpy as np
import pandas as pd

from claimbook import records
from claimbook.verdict import CANNOT_BE_CHECKED, Verdict

SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 1_000_000
COST_COLUMNS = (
    "organization", "system", "accelerator", "model", "scenario", "availability", "total_accelerators",
    "tokens_per_second", "price_provider", "price_kind", "usd_per_gpu_hour", "usd_per_million_tokens",
    "gpu_watts", "joules_per_token", "location",
)


def usd_per_million_tokens(gpus: int, usd_per_gpu_hour: float, tokens_per_second: float) -> float:
    """(system price per hour x 10^6) / (tokens per second x 3600), system price = GPUs x GPU price."""
    if gpus <= 0 or usd_per_gpu_hour <= 0 or tokens_per_second <= 0:
        raise ValueError("GPUs, price and throughput must be positive")
    return gpus * usd_per_gpu_hour * TOKENS_PER_MILLION / (tokens_per_second * SECONDS_PER_HOUR)


def joules_per_token(gpus: int, gpu_watts: float, tokens_per_second: float) -> float | None:
    """GPU board power only: GPUs x watts / tokens per second (None where power is not stated)."""
    if gpus <= 0 or tokens_per_second <= 0 or pd.isna(gpu_watts) or gpu_watts <= 0:
        return None
    return gpus * gpu_watts / tokens_per_second


def cost_table(results: pd.DataFrame, chosen_prices: pd.DataFrame) -> pd.DataFrame:
    """Cost per million output tokens and energy per token of every token-throughput result
    whose accelerator has a price."""
    tokens = results[(results["units"] == "Tokens/s") & (results["total_accelerators"] > 0)]
    priced = tokens.merge(chosen_prices, on="accelerator", how="inner")
    rows = []
    for item in priced.itertuples():
        rows.append(
            {
                "organization": item.organization, "system": item.system, "accelerator": item.accelerator,
                "model": item.model, "scenario": item.scenario, "availability": item.availability,
                "total_accelerators": item.total_accelerators, "tokens_per_second": item.result,
                "price_provider": item.provider, "price_kind": item.pricing, "usd_per_gpu_hour": item.usd_per_gpu_hour,
                "usd_per_million_tokens": usd_per_million_tokens(item.total_accelerators, item.usd_per_gpu_hour, item.result),
                "gpu_watts": item.gpu_watts,
                "joules_per_token": joules_per_token(item.total_accelerators, item.gpu_watts, item.result),
                "location": item.location,
            }
        )
    table = pd.DataFrame(rows, columns=list(COST_COLUMNS))
    table["joules_per_token"] = table["joules_per_token"].astype("float64")
    return table.sort_values(["model", "scenario", "usd_per_million_tokens", "location"], kind="stable").reset_index(drop=True)


def break_even_price(new: pd.Series, baseline: pd.Series, baseline_usd_per_gpu_hour: float) -> float:
    """The new system's price per GPU-hour at which its cost per token equals the baseline's."""
    return baseline_usd_per_gpu_hour * (new["result"] / baseline["result"]) * (
        baseline["total_accelerators"] / new["total_accelerators"]
    )


def break_even_table(new_rows: pd.DataFrame, baseline_rows: pd.DataFrame, baseline_usd_per_gpu_hour: float,
                     new_usd_per_gpu_hour: float) -> pd.DataFrame:
    """Per model and scenario: the break-even price of the new system and whether the assumed
    price is below it (i.e. whether the new system lowers the cost per token)."""
    merged = new_rows.merge(baseline_rows, on=["model", "scenario"], suffixes=("_new", "_baseline"))
    rows = []
    for _, item in merged.iterrows():
        new = pd.Series({"result": item["result_new"], "total_accelerators": item["total_accelerators_new"]})
        base = pd.Series({"result": item["result_baseline"], "total_accelerators": item["total_accelerators_baseline"]})
        price = break_even_price(new, base, baseline_usd_per_gpu_hour)
        rows.append(
            {
                "model": item["model"], "scenario": item["scenario"], "speedup": item["result_new"] / item["result_baseline"],
                "baseline_usd_per_gpu_hour": baseline_usd_per_gpu_hour, "break_even_usd_per_gpu_hour": price,
                "assumed_usd_per_gpu_hour": new_usd_per_gpu_hour, "lowers_cost_at_assumed_price": new_usd_per_gpu_hour < price,
            }
        )
    return pd.DataFrame(rows)


def sensitivity(rows: pd.DataFrame, prices: np.ndarray) -> pd.DataFrame:
    """Cost per million tokens of each system and scenario over a range of GPU-hour prices."""
    frames = []
    for item in rows.itertuples():
        frames.append(
            pd.DataFrame(
                {
                    "system": f"{item.organization} {item.system}", "model": item.model, "scenario": item.scenario,
                    "usd_per_gpu_hour": prices,
                    "usd_per_million_tokens": [usd_per_million_tokens(item.total_accelerators, p, item.result) for p in prices],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def judge_cost_claim(break_even: pd.DataFrame, new_name: str, baseline_name: str) -> Verdict:
    """ "Lower cost per token" needs the new system's price, which no one publishes: the
    verdict says so, and gives the price below which the claim would hold."""
    if break_even.empty:
        return Verdict(CANNOT_BE_CHECKED, "No scenario has results of both systems.")
    listed = "; ".join(
        f"{item.model} {item.scenario}: below {item.break_even_usd_per_gpu_hour:.2f} USD per GPU-hour"
        for item in break_even.itertuples()
    )
    baseline_price = break_even["baseline_usd_per_gpu_hour"].iloc[0]
    return Verdict(
        CANNOT_BE_CHECKED,
        f"There is no public price for {new_name} (nor for {baseline_name}). With {baseline_name} at the assumed "
        f"{baseline_price:.2f} USD per GPU-hour, {new_name} gives a lower cost per token only if it is priced "
        f"{listed}.",
    )


def publish_costs(table: pd.DataFrame) -> None:
    """Record the cost table for the build, which writes it to ``book/costs.csv``."""
    records.publish(
        "costs", table.to_dict("records"), COST_COLUMNS,
        ("organization", "system", "model", "scenario", "usd_per_million_tokens"),
    )


def cost_claim_rows(claim_id: str, chapter: str, break_even: pd.DataFrame, verdict: Verdict, evidence: str) -> list[dict]:
    """Scorecard rows of the cost claim: the break-even price in each benchmark and scenario."""
    return [
        {
            "claim": claim_id, "chapter": chapter, "scenario": f"{item.model} {item.scenario}", "claimed": None,
            "measured": item.break_even_usd_per_gpu_hour, "unit": "USD per GPU-hour (break-even)",
            "verdict": verdict.verdict, "reason": verdict.text(), "evidence": evidence,
        }
        for item in break_even.itertuples()
    ]
