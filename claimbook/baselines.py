"""Finding what a claim was compared against when the announcement does not say.

A claim such as "9x the throughput of a single node" names no node. Rather than pick one,
the book lists every candidate in the data, the ratio the claimed system achieves against
each, and which of them (if any) reproduce the claimed figure.
"""

from __future__ import annotations

import pandas as pd

from claimbook.compare import speedup
from claimbook.verdict import Verdict, judge_figure, matches_claim

CANDIDATE_COLUMNS = (
    "organization",
    "system",
    "accelerator",
    "total_accelerators",
    "throughput",
    "throughput_units",
    "latency",
    "latency_units",
    "throughput_ratio",
    "latency_ratio",
    "throughput_location",
    "latency_location",
)


def systems_matching(results: pd.DataFrame, model: str, scenario: str, claimed: float, tolerance: float = 0.0) -> pd.DataFrame:
    """Every published result on ``model`` in ``scenario`` that is the claimed figure."""
    rows = results[(results["model"] == model) & (results["scenario"] == scenario)]
    return rows[[matches_claim(value, claimed, tolerance) for value in rows["result"]]]


def single_node_candidates(
    results: pd.DataFrame,
    *,
    model: str,
    throughput_scenario: str,
    latency_scenario: str,
    system_throughput: float,
    system_latency: float,
    exclude: tuple[str, str] | None = None,
) -> pd.DataFrame:
    """Every single-node system on ``model`` with the ratios the claimed system achieves
    against it: throughput (system / node) and latency (node / system, lower is better).

    A node that published only one of the two scenarios appears with the other ratio empty.
    ``exclude`` is the claimed system's own (organization, system). Empty when none exist.
    """
    rows = results[(results["model"] == model) & (results["nodes"] == 1)]
    if exclude is not None:
        rows = rows[~((rows["organization"] == exclude[0]) & (rows["system"] == exclude[1]))]
    candidates = []
    for (organization, system), group in rows.groupby(["organization", "system"], sort=True):
        by_scenario = group.set_index("scenario")
        throughput = by_scenario.loc[throughput_scenario] if throughput_scenario in by_scenario.index else None
        latency = by_scenario.loc[latency_scenario] if latency_scenario in by_scenario.index else None
        if throughput is None and latency is None:
            continue
        first = group.iloc[0]
        candidates.append(
            {
                "organization": organization,
                "system": system,
                "accelerator": first["accelerator"],
                "total_accelerators": int(first["total_accelerators"]),
                "throughput": None if throughput is None else throughput["result"],
                "throughput_units": None if throughput is None else throughput["units"],
                "latency": None if latency is None else latency["result"],
                "latency_units": None if latency is None else latency["units"],
                "throughput_ratio": None if throughput is None else speedup(system_throughput, throughput["result"], True),
                "latency_ratio": None if latency is None else speedup(system_latency, latency["result"], False),
                "throughput_location": None if throughput is None else throughput["location"],
                "latency_location": None if latency is None else latency["location"],
            }
        )
    frame = pd.DataFrame(candidates, columns=list(CANDIDATE_COLUMNS))
    for column in ("throughput", "latency", "throughput_ratio", "latency_ratio"):
        frame[column] = frame[column].astype("float64")
    return frame


def label(candidate: pd.Series) -> str:
    return f"{candidate['organization']} {candidate['system']} ({candidate['total_accelerators']}x {candidate['accelerator']})"


def judge_unnamed_baseline(
    candidates: pd.DataFrame, ratio_column: str, claimed: float, what: str, tolerance: float = 0.0
) -> tuple[Verdict, pd.DataFrame, pd.Series | None]:
    """Judge "Nx better than an unnamed baseline" against every candidate.

    Returns the verdict, the candidates that reproduce the figure, and the closest candidate
    (smallest relative distance from the claim), which the chapter shows either way.
    """
    usable = candidates[candidates[ratio_column].notna()]
    if usable.empty:
        return judge_figure(claimed, None, "x", what=what), usable, None
    reproducing = usable[[matches_claim(value, claimed, tolerance) for value in usable[ratio_column]]]
    distance = (usable[ratio_column] - claimed).abs() / claimed
    closest = usable.loc[distance.sort_values(kind="stable").index[0]]
    if reproducing.empty:
        verdict = judge_figure(claimed, closest[ratio_column], "x", tolerance, what=f"{what} against the closest candidate, {label(closest)},")
        return verdict, reproducing, closest
    names = "; ".join(f"{label(row)}: {row[ratio_column]:.2f}x" for _, row in reproducing.iterrows())
    verdict = Verdict(
        "supported with caveats",
        f"{len(reproducing)} of {len(usable)} single-node candidates reproduce {claimed:g}x ({names}).",
        ("The announcement does not name the node, so the figure holds only against these",),
    )
    return verdict, reproducing, closest
