"""Results across rounds: one table for the current round and earlier ones, with the
strength of each figure's source, and the gains of one system from round to round.

Earlier rounds come either as a full MLCommons summary (ingested like the current round:
primary, system-identified evidence) or as a partial table of figures, each with a
``source_type`` saying where it comes from.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from claimbook.csvfile import IngestError, read_table
from claimbook.ingest import positive_result
from claimbook.results import load_results, resolve_path
from claimbook.schema import SCENARIO_BY_LOWER, SCENARIOS, TIDY_COLUMNS, UNITS
from claimbook.verdict import (
    CANNOT_BE_CHECKED,
    Verdict,
    judge_up_to,
    matches_claim,
    shortfall_caveat,
    with_unit,
)

# Strongest first. A full summary row is the round's own published result, identified by system.
SOURCE_TYPES = {
    "mlperf-summary": "the round's published results file",
    "mlperf-log": "the round's own log",
    "mlperf-log-secondary": "a log figure as compiled by a third party",
    "vendor-announcement": "a vendor headline number, system size unstated",
}
EARLIER_COLUMNS = (
    "version", "organization", "platform", "model", "scenario", "result", "units",
    "total_accelerators", "result_id", "source_type", "source",
)
ROUND_COLUMNS = (
    "round", "organization", "system", "model", "scenario", "result", "units", "higher_is_better",
    "total_accelerators", "result_id", "source_type", "source",
)
UNSPECIFIED_SYSTEM = "unspecified"


def round_order(round_name: str) -> tuple:
    """Sort key for round labels: v5.1 < v6.0 < v6.1 < v10.0."""
    return tuple(int(part) for part in re.findall(r"\d+", round_name)) or (math.inf,)


def ingest_earlier(path: str | os.PathLike) -> pd.DataFrame:
    """Validate a partial table of earlier-round figures; raises IngestError naming the line."""
    path = Path(path)
    records = read_table(path, "earlier-round table", EARLIER_COLUMNS, "figures")
    rows = [
        _earlier_row(f"{path}, line {line}", {key: (value or "").strip() for key, value in record.items()})
        for line, record in records
    ]
    frame = pd.DataFrame(rows, columns=list(ROUND_COLUMNS))
    frame["total_accelerators"] = frame["total_accelerators"].astype("Int64")
    return frame


def _earlier_row(where: str, text: dict) -> dict:
    for column in ("version", "organization", "model", "source_type"):
        if not text[column]:
            raise IngestError(f"{where}: {column} is empty")
    scenario = SCENARIO_BY_LOWER.get(text["scenario"].lower())
    if scenario is None:
        raise IngestError(f"{where}: unknown scenario {text['scenario']!r}")
    if text["units"] not in UNITS:
        raise IngestError(f"{where}: unknown units {text['units']!r}; the book understands {', '.join(UNITS)}")
    if text["source_type"] not in SOURCE_TYPES:
        raise IngestError(f"{where}: unknown source_type {text['source_type']!r}; known: {', '.join(SOURCE_TYPES)}")
    result = positive_result(where, text["result"], "result")
    gpus = None
    if text["total_accelerators"]:
        if not text["total_accelerators"].isdigit() or int(text["total_accelerators"]) == 0:
            raise IngestError(f"{where}: total_accelerators is {text['total_accelerators']!r}, not a positive whole number")
        gpus = int(text["total_accelerators"])
    return {
        "round": text["version"],
        "organization": text["organization"],
        "system": text["platform"] or UNSPECIFIED_SYSTEM,
        "model": text["model"],
        "scenario": scenario,
        "result": result,
        "units": text["units"],
        "higher_is_better": UNITS[text["units"]][1],
        "total_accelerators": gpus,
        "result_id": text["result_id"],
        "source_type": text["source_type"],
        "source": text["source"],
    }


def from_tidy(tidy: pd.DataFrame) -> pd.DataFrame:
    """A full round's tidy table in the cross-round layout (primary evidence)."""
    frame = tidy.assign(source_type="mlperf-summary", source=tidy["location"])
    frame = frame[list(ROUND_COLUMNS)].copy()
    frame["total_accelerators"] = frame["total_accelerators"].astype("Int64")
    return frame


def load_round_table(path: str | os.PathLike) -> pd.DataFrame:
    """A tidy round table or an ingested earlier-round table, in the cross-round layout."""
    path = resolve_path(path)
    header = pd.read_csv(path, nrows=0).columns
    if all(name in header for name in TIDY_COLUMNS):
        return from_tidy(load_results(path))
    missing = [name for name in ROUND_COLUMNS if name not in header]
    if missing:
        raise IngestError(f"{path}: neither a tidy results table nor an earlier-round table (missing {', '.join(missing)})")
    frame = pd.read_csv(path, keep_default_na=False, na_values={"total_accelerators": [""]},
                        dtype={"result_id": "string", "source": "string", "round": "string", "system": "string"})
    frame["total_accelerators"] = frame["total_accelerators"].astype("Int64")
    frame["higher_is_better"] = frame["higher_is_better"].astype(bool)
    return frame[list(ROUND_COLUMNS)]


def combine_rounds(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One cross-round table; where two sources give the same system's figure in one round,
    the stronger source wins."""
    frame = pd.concat(frames, ignore_index=True)
    strength = {name: rank for rank, name in enumerate(SOURCE_TYPES)}
    frame = frame.assign(_strength=frame["source_type"].map(strength), _order=frame["round"].map(round_order))
    frame = frame.sort_values(["_order", "organization", "system", "model", "scenario", "_strength"], kind="stable")
    key = ["round", "organization", "system", "model", "scenario"]
    identified = frame["system"] != UNSPECIFIED_SYSTEM
    deduplicated = pd.concat([frame[identified].drop_duplicates(key, keep="first"), frame[~identified]])
    deduplicated = deduplicated.sort_values(["_order", "organization", "system", "model", "scenario", "_strength"], kind="stable")
    return deduplicated.drop(columns=["_strength", "_order"]).reset_index(drop=True)


def same_system(rounds: pd.DataFrame, organization: str, system: str, model: str, scenarios) -> pd.DataFrame:
    """The system's figures on ``model`` in every round that has them."""
    rows = rounds[
        (rounds["organization"] == organization)
        & (rounds["system"] == system)
        & (rounds["model"] == model)
        & (rounds["scenario"].isin(list(scenarios)))
    ]
    order = {name: index for index, name in enumerate(SCENARIOS)}
    return rows.sort_values(
        ["round", "scenario"], key=lambda column: column.map(round_order if column.name == "round" else order.get)
    )


def headline_figures(rounds: pd.DataFrame, organization: str, model: str, round_name: str) -> pd.DataFrame:
    """Figures of a round that name no system: known, but not comparable system to system."""
    return rounds[
        (rounds["organization"] == organization)
        & (rounds["model"] == model)
        & (rounds["round"] == round_name)
        & ((rounds["system"] == UNSPECIFIED_SYSTEM) | rounds["total_accelerators"].isna())
    ]


def weaker_source(first: str, second: str) -> str:
    order = list(SOURCE_TYPES)
    return first if order.index(first) >= order.index(second) else second


def gains(rows: pd.DataFrame, from_round: str, to_round: str) -> pd.DataFrame:
    """The gain of one system from ``from_round`` to ``to_round`` in each scenario both have,
    with the weaker of the two sources as the evidence it rests on."""
    before = rows[rows["round"] == from_round].set_index("scenario")
    after = rows[rows["round"] == to_round].set_index("scenario")
    table = []
    for scenario in [name for name in SCENARIOS if name in after.index]:
        if scenario not in before.index:
            continue
        old, new = before.loc[scenario], after.loc[scenario]
        if old["units"] != new["units"]:
            raise ValueError(f"{scenario}: {from_round} is in {old['units']} but {to_round} in {new['units']}")
        ratio = new["result"] / old["result"] if new["higher_is_better"] else old["result"] / new["result"]
        table.append(
            {
                "scenario": scenario,
                "from_round": from_round,
                "to_round": to_round,
                "from_result": old["result"],
                "to_result": new["result"],
                "units": new["units"],
                "gain": ratio,
                "evidence": weaker_source(old["source_type"], new["source_type"]),
                "from_source": old["source"],
                "to_source": new["source"],
            }
        )
    return pd.DataFrame(
        table,
        columns=["scenario", "from_round", "to_round", "from_result", "to_result", "units", "gain", "evidence", "from_source", "to_source"],
    )


@dataclass(frozen=True)
class RoundGainCheck:
    claim_id: str
    model: str
    claimed: float
    rows: pd.DataFrame  # the system's figures in every round
    gains: pd.DataFrame  # from_round -> to_round, per scenario
    headlines: pd.DataFrame  # earlier figures that name no system
    verdict: Verdict


def check_round_gain(
    rounds: pd.DataFrame, *, claim_id: str, organization: str, system: str, model: str, claimed: float,
    from_round: str, to_round: str, scenarios, tolerance: float = 0.0,
) -> RoundGainCheck:
    """Recompute "up to X over the previous round" for one system, or say why it cannot be."""
    rows = same_system(rounds, organization, system, model, scenarios)
    table = gains(rows, from_round, to_round)
    headlines = headline_figures(rounds, organization, model, from_round)
    if table.empty:
        present = ", ".join(sorted(set(rows["round"]), key=round_order)) or "none"
        reason = (
            f"No system-identified {from_round} result of {organization} {system} on {model} is in the data "
            f"(rounds with this system: {present})."
        )
        if not headlines.empty:
            listed = "; ".join(
                f"{item.scenario} {with_unit(item.result, item.units)}" for item in headlines.itertuples()
            )
            reason += (
                f" The {from_round} figures known for {model} are headline numbers without a system size "
                f"({listed}); they cannot be set against a result of a named system."
            )
        return RoundGainCheck(claim_id, model, claimed, rows, table, headlines, Verdict(CANNOT_BE_CHECKED, reason))
    measured = dict(zip(table["scenario"], table["gain"]))
    weakest = max(table["evidence"], key=list(SOURCE_TYPES).index)
    caveats = [shortfall_caveat(claimed, measured, tolerance=tolerance)]
    if weakest != "mlperf-summary":
        caveats.append(f"The comparison rests on {SOURCE_TYPES[weakest]}, not on a published results file")
    verdict = judge_up_to(claimed, measured, tolerance=tolerance, caveats=tuple(c for c in caveats if c))
    return RoundGainCheck(claim_id, model, claimed, rows, table, headlines, verdict)


def round_gain_scorecard_rows(check: RoundGainCheck, chapter: str) -> list[dict]:
    if check.gains.empty:
        return [
            {
                "claim": check.claim_id, "chapter": chapter, "scenario": "", "claimed": check.claimed,
                "measured": None, "unit": "x", "verdict": check.verdict.verdict, "reaches_claim": False,
                "reason": check.verdict.text(), "evidence": "; ".join(check.headlines["source"]),
            }
        ]
    return [
        {
            "claim": check.claim_id, "chapter": chapter, "scenario": item.scenario, "claimed": check.claimed,
            "measured": item.gain, "unit": "x", "verdict": check.verdict.verdict,
            "reaches_claim": bool(matches_claim(item.gain, check.claimed) or item.gain > check.claimed),
            "reason": check.verdict.text(), "evidence": f"{item.to_source} vs {item.from_source} ({item.evidence})",
        }
        for item in check.gains.itertuples()
    ]


def gains_over_rounds(rows: pd.DataFrame) -> pd.DataFrame:
    """The gain from each round to the next one the system has, per scenario."""
    ordered = sorted(set(rows["round"]), key=round_order)
    frames = [gains(rows, before, after) for before, after in zip(ordered, ordered[1:])]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return gains(rows.iloc[0:0], "", "")
    return pd.concat(frames, ignore_index=True)


def source_types_table() -> pd.DataFrame:
    """The kinds of source a figure can have, strongest first."""
    return pd.DataFrame({"source_type": list(SOURCE_TYPES), "meaning": list(SOURCE_TYPES.values())})
