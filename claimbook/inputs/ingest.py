"""A raw MLCommons results summary -> the tidy results table under ``data/mlperf/``.

Reads every shape MLCommons publishes a round in, told apart by content: ``summary.csv`` in the
current column layout and the older one (no ``total_accelerators``, ``design_power_watts`` or
``PrivateID``), and the JSON ``summary_results.json`` (v5.1; ``claimbook.inputs.summary_json``
maps its fields to the CSV's columns). It validates every row, and derives what the book
needs: the system folder, total accelerators, throughput per accelerator and the GPU power
stated in the free-text notes. The notes themselves are not copied.
"""

from __future__ import annotations

import functools
import math
import os
import re
from pathlib import Path

import pandas as pd

from claimbook.common import identifiers
from claimbook.common.files import write_atomically
from claimbook.inputs import rules, summary_json

# IngestError lives with the CSV reader, which raises it too; it stays importable from here.
from claimbook.inputs.csvfile import RAW, IngestError, kind_problem, read_head, read_rows
from claimbook.inputs.schema import (
    FLAG_FALSE,
    FLAG_TRUE,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    RESULT_KEY,
    SCENARIO_BY_LOWER,
    SCENARIOS,
    TIDY_COLUMNS,
    UNITS,
)

# "1400W TGP Per GPU", "B300 TGP 1100W", "1200 W GPU power limit": a wattage counts as GPU
# power only when TGP or "power" stands close to it, so chassis names like "dg5W" do not.
_WATTS = re.compile(r"(?<![\w.])(\d{2,5})\s?W\b")
_POWER_WORDS = re.compile(r"TGP|power", re.IGNORECASE)
_POWER_CONTEXT_CHARS = 40


@functools.lru_cache(maxsize=4096)  # a submitter repeats one note on every result of a system
def gpu_watts_from_notes(notes: str) -> float | None:
    """The per-GPU power a submitter states in its notes, or None if absent or ambiguous."""
    found = set()
    for match in _WATTS.finditer(notes or ""):
        start = max(0, match.start() - _POWER_CONTEXT_CHARS)
        context = notes[start : match.end() + _POWER_CONTEXT_CHARS]
        if _POWER_WORDS.search(context) and int(match.group(1)) > 0:  # "00W" states no power
            found.add(float(match.group(1)))
    # Two different wattages in one note (e.g. a mixed system) cannot be attributed safely.
    return found.pop() if len(found) == 1 else None


def system_from_location(location: str) -> str | None:
    """The system folder of a result, ``./closed/ORG/results/SYSTEM/MODEL/SCENARIO/...``; None
    for a Location that is not a result's folder (``rules.location_parts``: anchored, no ``..``)."""
    parts = rules.location_parts(location or "")
    return parts[rules.SYSTEM_SEGMENT] if parts else None


def _check_columns(path: Path, header: list[str]) -> None:
    wrong_kind = kind_problem(header, RAW, path)
    if wrong_kind:
        raise IngestError(wrong_kind)
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if len(missing) == len(REQUIRED_COLUMNS):
        raise IngestError(
            f"{path}: not an MLCommons summary.csv: none of its columns "
            f"({', '.join(REQUIRED_COLUMNS)}) is in the header"
        )
    if missing:
        raise IngestError(
            f"{path}: missing required column(s) {', '.join(missing)}; "
            f"an MLCommons summary.csv has {', '.join(REQUIRED_COLUMNS)}"
        )
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        raise IngestError(f"{path}: column(s) {', '.join(duplicated)} appear more than once")


# One definition of a whole number and of a number, shared by the row-by-row rules (which
# word the errors) and the column-wise pass (which makes large files fast).
WHOLE_NUMBER = r"\d{1,9}"
NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)"
_WHOLE = re.compile(WHOLE_NUMBER)
_NEGATIVE = re.compile(r"-\d+")
_NUMBER = re.compile(NUMBER, re.IGNORECASE)


def _whole_number(where: str, column: str, text: str) -> int:
    text = text.strip()
    if _NEGATIVE.fullmatch(text):
        raise IngestError(f"{where}: {column} is {text}, which is negative")
    if not _WHOLE.fullmatch(text):
        raise IngestError(f"{where}: {column} is {text!r}, not a whole number")
    return int(text)


def _flag(where: str, column: str, text: str) -> bool:
    """A summary's flag (``FLAG_TRUE``/``FLAG_FALSE``); another value is an error, never false."""
    if text not in FLAG_TRUE + FLAG_FALSE:
        raise IngestError(
            f"{where}: {column} is {text[:40]!r}; a flag is 1, 0, True or False (True, true or TRUE alike) or empty"
        )
    return text in FLAG_TRUE


def positive_result(where: str, text: str, column: str = "Result") -> float:
    """A result: a finite number above zero (NaN, infinities, zero and negatives are errors)."""
    if not _NUMBER.fullmatch(text.strip()):
        raise IngestError(f"{where}: {column} is {text!r}, not a number")
    value = float(text.strip())
    if not math.isfinite(value) or value <= 0:
        raise IngestError(
            f"{where}: {column} is {text.strip()!r}; a result must be a finite number above zero"
        )
    return value


# The raw summary's name of each tidy column, for the rules' errors (``claimbook.inputs.rules``).
RAW_NAMES = {
    "round": "version",
    "organization": "Organization",
    "division": "Division",
    "availability": "Availability",
    "system_type": "SystemType",
    "system": "Location's system folder",
    "system_name": "SystemName",
    "accelerator": "accelerator_model_name",
    "nodes": "number_of_nodes",
    "accelerators_per_node": "accelerators_per_node",
    "total_accelerators": "total_accelerators",
    "model": "Model",
    "mlperf_model": "MlperfModel",
    "scenario": "Scenario",
    "result": "Result",
    "units": "Units",
    "has_power": "has_power",
    "framework": "framework",
    "weight_data_types": "weight_data_types",
    "result_id": "PrivateID",
    "location": "Location",
}
# The raw columns a tidy row is made from (the notes are read only for the GPU power).
FLAG_COLUMNS = ("inferred", "has_power")
_FLAGS = frozenset(FLAG_TRUE + FLAG_FALSE)
_USED_COLUMNS = (*REQUIRED_COLUMNS, *(name for name in OPTIONAL_COLUMNS if name != "notes"))


def _accelerators(where: str, text: dict[str, str], name) -> tuple[int, int, int]:
    """Nodes, accelerators per node and their product, which a stated total must equal."""
    nodes = _whole_number(where, name("number_of_nodes"), text["number_of_nodes"])
    per_node = _whole_number(where, name("accelerators_per_node"), text["accelerators_per_node"])
    total = nodes * per_node
    if text.get("total_accelerators"):
        stated = _whole_number(where, "total_accelerators", text["total_accelerators"])
        if stated != total:
            raise IngestError(
                f"{where}: total_accelerators is {stated} but number_of_nodes x accelerators_per_node "
                f"is {nodes} x {per_node} = {total}"
            )
    return nodes, per_node, total


def _scenario_and_units(where: str, text: dict[str, str], name) -> tuple[str, str]:
    """The scenario (by its canonical spelling) and the units, each one the book knows."""
    scenario = SCENARIO_BY_LOWER.get(text["Scenario"].lower())
    if scenario is None:
        raise IngestError(
            f"{where}: unknown {name('Scenario')} {text['Scenario']!r}; known scenarios are {', '.join(SCENARIOS)}"
        )
    units = text["Units"]
    if units not in UNITS:
        raise IngestError(
            f"{where}: unknown {name('Units')} {units!r}; the book understands {', '.join(UNITS)}"
        )
    return scenario, units


def _system(where: str, text: dict[str, str], name) -> str:
    """The system's folder name, from the location, once the fields that say whose result it
    is and of what are known to be filled in."""
    for column in ("Organization", "Division", "Availability", "Model"):
        if not text[column]:
            raise IngestError(f"{where}: {name(column)} is empty")
    system = system_from_location(text["Location"])
    if system is None:
        raise IngestError(f"{where}: {name('Location')} {rules.location_problem(text['Location'])}")
    return system


def _tidy_row(
    where: str, record: dict[str, str], round_name: str, names: dict[str, str] | None = None
) -> dict[str, object]:
    """One record tidied, or the IngestError its first broken rule words (``names``: the
    file's own name of a summary.csv column, for a summary of another shape)."""

    def name(column: str) -> str:
        return (names or {}).get(column, column)

    text = {key: (record.get(key) or "").strip() for key in _USED_COLUMNS}
    scenario, units = _scenario_and_units(where, text, name)
    metric, higher_is_better = UNITS[units]
    result = positive_result(where, text["Result"], name("Result"))
    nodes, per_node, total = _accelerators(where, text, name)
    system = _system(where, text, name)
    inferred, has_power = (_flag(where, name(column), text.get(column, "")) for column in FLAG_COLUMNS)

    throughput_per_accelerator = result / total if metric == "throughput" and total > 0 else None
    return {
        "round": round_name,
        "organization": text["Organization"],
        "division": text["Division"].lower(),
        "availability": text["Availability"].lower(),
        "system_type": text["SystemType"],
        "system": system,
        "system_name": text["SystemName"],
        "accelerator": text["accelerator_model_name"],
        "nodes": nodes,
        "accelerators_per_node": per_node,
        "total_accelerators": total,
        "model": text["Model"],
        "mlperf_model": text.get("MlperfModel", "") or text["Model"],
        "scenario": scenario,
        "result": result,
        "units": units,
        "metric": metric,
        "higher_is_better": higher_is_better,
        "per_accelerator": throughput_per_accelerator,
        "gpu_watts": gpu_watts_from_notes(record.get("notes") or ""),
        "has_power": has_power,
        "framework": text.get("framework", ""),
        "weight_data_types": text.get("weight_data_types", ""),
        "inferred": inferred,
        "result_id": text.get("PrivateID", ""),
        "location": text["Location"],
    }


def _validity(columns: dict[str, list[str]], count: int) -> tuple[list[bool], dict[str, list]]:
    """Which records pass every rule of ``_tidy_row``, column by column, and the parsed values."""
    scenario = [SCENARIO_BY_LOWER.get(value.lower()) for value in columns["Scenario"]]
    result = [float(value) if _NUMBER.fullmatch(value) else math.nan for value in columns["Result"]]
    nodes = [int(value) if _WHOLE.fullmatch(value) else -1 for value in columns["number_of_nodes"]]
    per_node = [int(value) if _WHOLE.fullmatch(value) else -1 for value in columns["accelerators_per_node"]]
    total = [a * b for a, b in zip(nodes, per_node)]
    stated = [
        int(value) if _WHOLE.fullmatch(value) else (None if value == "" else -1)
        for value in columns["total_accelerators"]
    ]
    system = [system_from_location(value) for value in columns["Location"]]
    required = list(zip(*(columns[name] for name in ("Organization", "Division", "Availability", "Model"))))
    flags = list(zip(*(columns[name] for name in FLAG_COLUMNS)))
    valid = [
        scenario[i] is not None
        and columns["Units"][i] in UNITS
        and math.isfinite(result[i])
        and result[i] > 0
        and nodes[i] >= 0
        and per_node[i] >= 0
        and (stated[i] is None or stated[i] == total[i])
        and system[i] is not None
        and all(required[i])
        and all(flag in _FLAGS for flag in flags[i])
        for i in range(count)
    ]
    return valid, {
        "scenario": scenario,
        "result": result,
        "nodes": nodes,
        "per_node": per_node,
        "total": total,
        "system": system,
    }


def ingest(path: str | os.PathLike, round_name: str | None = None) -> pd.DataFrame:
    """Read, validate and tidy an MLCommons summary (CSV or JSON); raises IngestError naming the row.

    The rules are those of ``_tidy_row``. They are applied column by column for speed; the
    first record that breaks one goes through ``_tidy_row``, which words the error.
    """
    path = Path(path)
    if round_name is not None and not identifiers.is_round(round_name):
        # A round names files (data/mlperf/ROUND.csv): nothing else may pass.
        raise IngestError(f"--round {str(round_name)[:80]!r}: a round is {identifiers.ROUND_RULE}")
    header, rows, places, names = read_summary(path)
    column = _column_reader(header, rows)
    columns = {name: column(name) for name in _USED_COLUMNS}
    if round_name is None:
        round_name = _round_of(path, column("version"), names.get("version", "version"))
    else:
        _round_agrees(path, round_name, column("version"), names.get("version", "version"))
    valid, values = _validity(columns, len(rows))
    if not all(valid):
        position = valid.index(False)
        where = f"{path}, {places[position]}"
        _tidy_row(where, dict(zip(header, rows[position])), round_name, names)
        raise IngestError(
            f"{where}: the record breaks a rule of the results format"
        )  # the two passes disagree
    tidy = _tidy_table(columns, values, column("notes", strip=False), round_name)
    shown = {tidy_name: names.get(raw, raw) for tidy_name, raw in RAW_NAMES.items()}
    problem = rules.first_problem(tidy, path, lambda position: places[position], shown)
    if problem:
        raise IngestError(problem)
    return tidy.sort_values(list(RESULT_KEY), kind="stable").reset_index(drop=True)


def read_summary(path: Path) -> tuple[list[str], list[list[str]], list[str], dict[str, str]]:
    """A summary of any published shape as summary.csv's header and records, where each record
    is ("line N", "result N (ID ...)") and the file's own name of each column it renames."""
    if summary_json.looks_like_json(read_head(path, "results file")[0]):
        header, rows, places = summary_json.read_json_rows(path)
        return header, rows, places, summary_json.JSON_NAME
    header, rows, lines = read_rows(path)
    _check_columns(path, header)
    if not rows:
        raise IngestError(f"{path}: the file has a header but no results")
    return header, rows, [f"line {line}" for line in lines], {}


def _column_reader(header: list[str], rows: list[list[str]]):
    """``column(name, strip=True)``: a raw column's values, one per row (empty if it is absent)."""
    position_of = {name: index for index, name in enumerate(header)}

    def column(name: str, strip: bool = True) -> list[str]:
        if name not in position_of:
            return [""] * len(rows)
        index = position_of[name]
        return [row[index].strip() for row in rows] if strip else [row[index] for row in rows]

    return column


def _round_of(path: Path, versions: list[str], column: str = "version") -> str:
    """The round a summary's version column gives, when it gives exactly one that is a round."""
    found = sorted(set(versions) - {""})
    if not found:
        raise IngestError(
            f"{path}: cannot tell the round from the {column} column (found: none); pass --round"
        )
    if len(found) > 1:
        listed = ", ".join(value[:20] for value in found[:5])
        raise IngestError(
            f"{path}: its {column} column gives several rounds ({listed}); a summary is one round's "
            "results (give each round's file on its own)"
        )
    if not identifiers.is_round(found[0]):
        raise IngestError(
            f"{path}: its {column} column gives the round {found[0][:80]!r}, which is not "
            f"{identifiers.ROUND_RULE}; pass --round"
        )
    return found[0]


def _round_agrees(path: Path, round_name: str, versions: list[str], column: str = "version") -> None:
    """``--round`` labels a summary whose version column does not say its round; it never
    relabels rows the column gives to another round (a claim is judged on its own round's results)."""
    other = sorted(set(versions) - {"", round_name})
    if other:
        listed = ", ".join(value[:20] for value in other[:5])
        raise IngestError(
            f"{path}: --round {round_name} but its {column} column gives {listed}; a file's results "
            f"are never relabelled as another round's (leave out --round, or pass the file of {round_name})"
        )


def _tidy_table(columns: dict[str, list[str]], values: dict[str, list], notes: list[str], round_name: str):
    """The tidy table of records that passed ``_validity`` (``values``: what it parsed)."""
    units = columns["Units"]
    metric = [UNITS[unit][0] for unit in units]
    total, result = values["total"], values["result"]
    model, mlperf_model = columns["Model"], columns["MlperfModel"]
    watts_by_note = {note: gpu_watts_from_notes(note) for note in set(notes)}
    return pd.DataFrame(
        {
            "round": [round_name] * len(units),
            "organization": columns["Organization"],
            "division": [value.lower() for value in columns["Division"]],
            "availability": [value.lower() for value in columns["Availability"]],
            "system_type": columns["SystemType"],
            "system": values["system"],
            "system_name": columns["SystemName"],
            "accelerator": columns["accelerator_model_name"],
            "nodes": values["nodes"],
            "accelerators_per_node": values["per_node"],
            "total_accelerators": total,
            "model": model,
            "mlperf_model": [mlperf or plain for mlperf, plain in zip(mlperf_model, model)],
            "scenario": values["scenario"],
            "result": result,
            "units": units,
            "metric": metric,
            "higher_is_better": [UNITS[unit][1] for unit in units],
            "per_accelerator": [
                value / gpus if kind == "throughput" and gpus > 0 else math.nan
                for value, gpus, kind in zip(result, total, metric)
            ],
            "gpu_watts": [
                watts_by_note[note] if watts_by_note[note] is not None else math.nan for note in notes
            ],
            "has_power": [value in FLAG_TRUE for value in columns["has_power"]],
            "framework": columns["framework"],
            "weight_data_types": columns["weight_data_types"],
            "inferred": [value in FLAG_TRUE for value in columns["inferred"]],
            "result_id": columns["PrivateID"],
            "location": columns["Location"],
        },
        columns=list(TIDY_COLUMNS),
    )


def ingest_warnings(table: pd.DataFrame, path) -> list[str]:
    """What a summary holds that the book keeps but a reader should know of, one line each."""
    return rules.zero_accelerator_warnings(table, path)


def ingest_as_read(path: str | os.PathLike, round_name: str | None = None) -> pd.DataFrame:
    """A summary.csv ingested, as a page reads it back from its tidy file (the same types):
    what a build or ``claimbook check`` with ``--results`` works on."""
    import tempfile

    from claimbook.inputs.results import load_results

    table = ingest(path, round_name)
    with tempfile.TemporaryDirectory() as folder:
        return load_results(write_tidy(table, Path(folder) / "results.csv"))


def tidy_csv(frame: pd.DataFrame) -> bytes:
    """The bytes ``write_tidy`` writes for a table: UTF-8, LF line ends, no index."""
    return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")


def write_tidy(frame: pd.DataFrame, out_path: str | os.PathLike) -> Path:
    """Write the tidy table atomically (a failed write never leaves half a file behind), with
    the mode a new file gets under the user's umask."""
    return write_atomically(Path(out_path), tidy_csv(frame))


def summary_versions(path: str | os.PathLike) -> set[str]:
    """The rounds a summary's ``version`` column names (empty if it has none)."""
    header, rows, _, _ = read_summary(Path(path))
    if "version" not in header:
        return set()
    index = header.index("version")
    return {row[index].strip() for row in rows} - {""}
