"""Results across rounds: the current round and earlier ones in one table, with the strength of
each figure's source.

Earlier rounds come as a full MLCommons summary (ingested like the current round: primary
evidence, system identified), as a partial table of figures each with a ``source_type``
(``data/mlperf/earlier_rounds.csv``), or as figures an announcement states for an earlier round
(written in its registry, entered here as vendor figures: the weakest evidence).
"""

from __future__ import annotations

import itertools
import math
import os
import re
from pathlib import Path

import pandas as pd

from claimbook.common import identifiers
from claimbook.common.formatting import count
from claimbook.common.paths import resolve_path
from claimbook.inputs.csvfile import IngestError, check_looks_like_csv, read_header, read_records, read_table
from claimbook.inputs.ingest import positive_result
from claimbook.inputs.results import load_results
from claimbook.inputs.rules import MAX_COUNT
from claimbook.inputs.schema import SCENARIO_BY_LOWER, TIDY_COLUMNS, UNITS

# Strongest first. A full summary row is the round's own published result, identified by system.
SOURCE_TYPES = {
    "mlperf-summary": "the round's published results file",
    "mlperf-log": "the round's own log",
    "mlperf-log-secondary": "a log figure as compiled by a third party",
    "vendor-announcement": "a vendor's announcement",
}
EARLIER_COLUMNS = (
    "version",
    "organization",
    "platform",
    "model",
    "scenario",
    "result",
    "units",
    "total_accelerators",
    "result_id",
    "source_type",
    "source",
)
EARLIER_OPTIONAL = ("division",)
ROUND_COLUMNS = (
    "round",
    "organization",
    "system",
    "model",
    "scenario",
    "result",
    "units",
    "higher_is_better",
    "total_accelerators",
    "division",
    "result_id",
    "source_type",
    "source",
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
    return _typed(pd.DataFrame(rows, columns=list(ROUND_COLUMNS)))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame["total_accelerators"] = frame["total_accelerators"].astype("Int64")
    frame["higher_is_better"] = frame["higher_is_better"].astype(bool)
    frame["result"] = frame["result"].astype(float)
    for column in (
        "round",
        "organization",
        "system",
        "model",
        "scenario",
        "units",
        "division",
        "result_id",
        "source_type",
        "source",
    ):
        frame[column] = frame[column].fillna("").astype(str)
    return frame[list(ROUND_COLUMNS)]


def _refuse_unsafe_text(where: str, text: dict) -> None:
    for column, value in text.items():
        character = identifiers.unsafe_character(value or "")
        if character:
            raise IngestError(
                f"{where}: {column} holds the character {character} (a control or bidirectional-override "
                "character); text in a results table may not"
            )


def _earlier_row(where: str, text: dict) -> dict:
    for column in ("version", "organization", "model", "source_type"):
        if not text[column]:
            raise IngestError(f"{where}: {column} is empty")
    _refuse_unsafe_text(where, text)
    if not identifiers.is_round(text["version"]):
        raise IngestError(f"{where}: the round {text['version'][:40]!r} is not {identifiers.ROUND_RULE}")
    scenario = SCENARIO_BY_LOWER.get(text["scenario"].lower())
    if scenario is None:
        raise IngestError(f"{where}: unknown scenario {text['scenario']!r}")
    if text["units"] not in UNITS:
        raise IngestError(
            f"{where}: unknown units {text['units']!r}; the book understands {', '.join(UNITS)}"
        )
    if text["source_type"] not in SOURCE_TYPES:
        raise IngestError(
            f"{where}: unknown source_type {text['source_type']!r}; known: {', '.join(SOURCE_TYPES)}"
        )
    division = text.get("division", "").lower()
    if division not in ("", "closed", "open"):
        raise IngestError(f"{where}: division is {text['division']!r}; use closed, open or leave it empty")
    result = positive_result(where, text["result"], "result")
    gpus = None
    if text["total_accelerators"]:
        given = text["total_accelerators"]
        if not given.isascii() or not given.isdigit() or not 0 < int(given) <= MAX_COUNT:
            raise IngestError(
                f"{where}: total_accelerators is {given[:40]!r}, not a whole number from 1 to {count(MAX_COUNT)}"
            )
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
        "division": division,
        "result_id": text["result_id"],
        "source_type": text["source_type"],
        "source": text["source"],
    }


def from_tidy(tidy: pd.DataFrame) -> pd.DataFrame:
    """A full round's tidy table in the cross-round layout (primary evidence)."""
    frame = tidy.assign(source_type="mlperf-summary", source=tidy["location"])
    return _typed(frame[list(ROUND_COLUMNS)])


def load_round_table(path: str | os.PathLike) -> pd.DataFrame:
    """A tidy round table or an ingested earlier-round table, in the cross-round layout."""
    path = resolve_path(path)
    if not path.is_file():
        raise IngestError(f"{path}: no such table of results")
    check_looks_like_csv(path, "table of results")  # empty, binary, not UTF-8: one line naming it
    header = read_header(path, "table of results")
    if all(name in header for name in TIDY_COLUMNS) or "location" in header:  # a round's own table
        return from_tidy(load_results(path))
    missing = [name for name in ROUND_COLUMNS if name not in header and name != "division"]
    if missing:
        raise IngestError(
            f"{path}: neither a tidy results table nor an earlier-round table (missing {', '.join(missing)})"
        )
    return _ingested_table(path)


def _ingested_table(path: Path) -> pd.DataFrame:
    """An earlier-round table as ``ingest_earlier`` wrote it, each row held to the rules it was
    written by (an edited table's ``inf``, round or direction is named with its line)."""
    _, records = read_records(path, "earlier-round table")
    rows = []
    for line, record in records:
        where = f"{path}, line {line}"
        text = {key: (value or "").strip() for key, value in record.items() if key is not None}
        text.setdefault("division", "")
        row = _earlier_row(where, {**text, "version": text["round"], "platform": text["system"]})
        if text["higher_is_better"] != str(row["higher_is_better"]):
            raise IngestError(
                f"{where}: higher_is_better is {text['higher_is_better'][:20]!r}, but {row['units']} is "
                f"{'higher' if row['higher_is_better'] else 'lower'}-is-better ({row['higher_is_better']})"
            )
        rows.append(row)
    return _typed(pd.DataFrame(rows, columns=list(ROUND_COLUMNS)))


def announced_figures(registry) -> pd.DataFrame:
    """The earlier-round figures announcements state (a round-gain claim's ``stated`` block),
    as rows of the cross-round table with the vendor's announcement as their source."""
    rows = []
    for item in registry.announced():  # (what it reads of the registry: ``Registry.announced``)
        stated, subject = item["stated"], item["subject"]
        units = stated.get("units", "Tokens/s")
        for scenario, value in (stated.get("figures") or {}).items():
            rows.append(
                {
                    "round": str(stated["round"]),
                    "organization": subject.get("organization", item["claimant"]),
                    "system": stated.get("system") or subject.get("system") or UNSPECIFIED_SYSTEM,
                    "model": item["benchmark"],
                    "scenario": scenario,
                    "result": float(value),
                    "units": units,
                    "higher_is_better": UNITS[units][1],
                    "total_accelerators": stated.get("gpus"),
                    "division": str(stated.get("division") or ""),
                    "result_id": str(stated.get("result_id") or ""),
                    "source_type": "vendor-announcement",
                    "source": item["source"],
                }
            )
    frame = pd.DataFrame(rows, columns=list(ROUND_COLUMNS))
    frame = frame.drop_duplicates(["round", "organization", "system", "model", "scenario", "result"])
    return _typed(frame)


def combine_rounds(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One cross-round table, ordered by round, submitter, system, benchmark, scenario and
    strength of source (strongest first). Figures of one result from several sources all stay:
    a check takes the strongest and can say whether the others agree."""
    frames = [frame for frame in frames if frame is not None and not frame.empty]
    if not frames:
        return _typed(pd.DataFrame(columns=list(ROUND_COLUMNS)))
    frame = pd.concat(frames, ignore_index=True)
    strength = {name: rank for rank, name in enumerate(SOURCE_TYPES)}
    frame = frame.assign(_strength=frame["source_type"].map(strength), _order=frame["round"].map(round_order))
    frame = frame.sort_values(
        ["_order", "organization", "system", "model", "scenario", "_strength"], kind="stable"
    )
    return frame.drop(columns=["_strength", "_order"]).reset_index(drop=True)


def before_round(earlier: pd.DataFrame, held: dict, round_name: str | None) -> pd.DataFrame:
    """What a claim of ``round_name`` looks back on: the figures of rounds before it (never of a
    later one: v6.0 is not earlier than v5.1), and every round the book holds in full before it
    (``held``: ``{round: its tidy table}``) as that round's published results. Those supersede a
    weaker source's figure of the same result: the check takes the strongest, which comes first."""
    if round_name is None:
        return earlier
    order = round_order(round_name)
    kept = earlier[[round_order(str(name)) < order for name in earlier["round"]]]
    full = [from_tidy(table) for name, table in held.items() if round_order(name) < order and len(table)]
    return combine_rounds([*full, kept])


def source_types_table() -> pd.DataFrame:
    """The kinds of source a figure can have, strongest first."""
    return pd.DataFrame({"source_type": list(SOURCE_TYPES), "meaning": list(SOURCE_TYPES.values())})


def current_rows(data, organization: str, system: str, benchmark: str) -> pd.DataFrame:
    """One system's published results of the current round on one benchmark."""
    return data.results[
        (data.results["organization"] == organization)
        & (data.results["system"] == system)
        & (data.results["benchmark"] == benchmark)
    ]


def system_history(data, organization: str, system: str, benchmark: str) -> pd.DataFrame:
    """One system's figures on one benchmark in every round the book has: the current round's
    published results and the earlier-round table, strongest source first within a round."""
    current = current_rows(data, organization, system, benchmark)
    earlier = data.earlier[
        (data.earlier["organization"] == organization)
        & (data.earlier["system"] == system)
        & (data.earlier["model"].map(data.reference.benchmark) == benchmark)
    ]
    # A round held in full may have the system in the other division too (an open entry of the
    # same folder name): the history stays in the current results' division.
    divisions = set(current["division"]) | {""}
    earlier = earlier[earlier["division"].isin(divisions)] if not current.empty else earlier
    frame = combine_rounds(
        [from_tidy(current.drop(columns=["family", "vendor", "form_factor", "benchmark"])), earlier]
    )
    return frame.drop_duplicates(["round", "scenario"], keep="first").reset_index(drop=True)


def round_to_round(history: pd.DataFrame) -> pd.DataFrame:
    """The gain from each round to the next one the system has, per scenario, with the weaker of
    the two figures' sources as the evidence it rests on, and each figure's own source."""
    order = list(SOURCE_TYPES)
    rounds = sorted(set(history["round"]), key=round_order)
    rows = []
    for before, after in itertools.pairwise(rounds):
        for scenario in sorted(set(history["scenario"])):
            old = history[(history["round"] == before) & (history["scenario"] == scenario)]
            new = history[(history["round"] == after) & (history["scenario"] == scenario)]
            if old.empty or new.empty or old["units"].iloc[0] != new["units"].iloc[0]:
                continue
            old, new = old.iloc[0], new.iloc[0]
            gain = new["result"] / old["result"] if new["higher_is_better"] else old["result"] / new["result"]
            weaker = max(old["source_type"], new["source_type"], key=order.index)
            rows.append(
                {
                    "scenario": scenario,
                    "from_round": before,
                    "to_round": after,
                    "from_result": old["result"],
                    "to_result": new["result"],
                    "units": new["units"],
                    "gain": gain,
                    # the metric's own signed change: a latency that fell is negative
                    "change_percent": 100.0 * (new["result"] / old["result"] - 1.0),
                    "evidence": weaker,
                    "from_source": old["source_type"],
                    "to_source": new["source_type"],
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "scenario",
            "from_round",
            "to_round",
            "from_result",
            "to_result",
            "units",
            "gain",
            "change_percent",
            "evidence",
            "from_source",
            "to_source",
        ],
    )
