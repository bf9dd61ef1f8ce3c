"""Raw MLCommons ``summary.csv`` -> the tidy results table under ``data/mlperf/``.

Reads both the current column layout and the older one (no ``total_accelerators``,
``design_power_watts`` or ``PrivateID``), validates every row, and derives what the book
needs: the system folder, total accelerators, throughput per accelerator and the GPU power
stated in the free-text notes. The notes themselves are not copied.
"""

from __future__ import annotations

import csv
import math
import os
import re
import tempfile
from pathlib import Path

import pandas as pd

from claimbook.schema import (
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    RESULT_KEY,
    SCENARIO_BY_LOWER,
    SCENARIOS,
    TIDY_COLUMNS,
    UNITS,
)


class IngestError(ValueError):
    """A results file that cannot be turned into the tidy table; the message says where."""


# "1400W TGP Per GPU", "B300 TGP 1100W", "1200 W GPU power limit": a wattage counts as GPU
# power only when TGP or "power" stands close to it, so chassis names like "dg5W" do not.
_WATTS = re.compile(r"(?<![\w.])(\d{2,5})\s?W\b")
_POWER_WORDS = re.compile(r"TGP|power", re.IGNORECASE)
_POWER_CONTEXT_CHARS = 40
_LOCATION = re.compile(r"(?:^|/)results/([^/]+)/")


def gpu_watts_from_notes(notes: str) -> float | None:
    """The per-GPU power a submitter states in its notes, or None if absent or ambiguous."""
    found = set()
    for match in _WATTS.finditer(notes or ""):
        start = max(0, match.start() - _POWER_CONTEXT_CHARS)
        context = notes[start : match.end() + _POWER_CONTEXT_CHARS]
        if _POWER_WORDS.search(context):
            found.add(float(match.group(1)))
    # Two different wattages in one note (e.g. a mixed system) cannot be attributed safely.
    return found.pop() if len(found) == 1 else None


def system_from_location(location: str) -> str | None:
    """The system folder of a result, ``./closed/ORG/results/SYSTEM/MODEL/SCENARIO/...``."""
    match = _LOCATION.search(location or "")
    return match.group(1) if match else None


def read_records(path: Path, what: str = "results file") -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and (first line number, record) pairs of a CSV file; blank lines skipped."""
    try:
        handle = open(path, newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the {what} ({exc.strerror})") from exc
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise IngestError(f"{path}: the file is empty; expected an MLCommons summary.csv") from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise IngestError(f"{path}, line 1: not a readable CSV header ({exc})") from exc
        header = [name.strip() for name in header]
        records = []
        line = reader.line_num
        try:
            for values in reader:
                first_line = line + 1
                line = reader.line_num
                if not any(value.strip() for value in values):
                    continue
                if len(values) != len(header):
                    raise IngestError(
                        f"{path}, line {first_line}: {len(values)} fields where the header has {len(header)}"
                    )
                records.append((first_line, dict(zip(header, values))))
        except (csv.Error, UnicodeDecodeError) as exc:
            raise IngestError(f"{path}, line {line + 1}: not readable as CSV ({exc})") from exc
    return header, records


def _check_columns(path: Path, header: list[str]) -> None:
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise IngestError(
            f"{path}: missing required column(s) {', '.join(missing)}; "
            f"an MLCommons summary.csv has {', '.join(REQUIRED_COLUMNS)}"
        )
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        raise IngestError(f"{path}: column(s) {', '.join(duplicated)} appear more than once")


def _whole_number(where: str, column: str, text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise IngestError(f"{where}: {column} is {text!r}, not a whole number") from None
    if value < 0:
        raise IngestError(f"{where}: {column} is {value}, which is negative")
    return value


def positive_result(where: str, text: str, column: str = "Result") -> float:
    """A result: a finite number above zero (NaN, infinities, zero and negatives are errors)."""
    try:
        value = float(text.strip())
    except ValueError:
        raise IngestError(f"{where}: {column} is {text!r}, not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise IngestError(f"{where}: {column} is {text.strip()!r}; a result must be a finite number above zero")
    return value


def _tidy_row(where: str, record: dict[str, str], round_name: str) -> dict[str, object]:
    text = {key: (value or "").strip() for key, value in record.items()}
    scenario = SCENARIO_BY_LOWER.get(text["Scenario"].lower())
    if scenario is None:
        raise IngestError(
            f"{where}: unknown Scenario {text['Scenario']!r}; known scenarios are {', '.join(SCENARIOS)}"
        )
    units = text["Units"]
    if units not in UNITS:
        raise IngestError(f"{where}: unknown Units {units!r}; the book understands {', '.join(UNITS)}")
    metric, higher_is_better = UNITS[units]
    result = positive_result(where, text["Result"])

    nodes = _whole_number(where, "number_of_nodes", text["number_of_nodes"])
    per_node = _whole_number(where, "accelerators_per_node", text["accelerators_per_node"])
    total = nodes * per_node
    if text.get("total_accelerators"):
        stated = _whole_number(where, "total_accelerators", text["total_accelerators"])
        if stated != total:
            raise IngestError(
                f"{where}: total_accelerators is {stated} but number_of_nodes x accelerators_per_node "
                f"is {nodes} x {per_node} = {total}"
            )

    system = system_from_location(text["Location"])
    if system is None:
        raise IngestError(
            f"{where}: Location {text['Location']!r} does not name a system folder "
            "(expected ./DIVISION/ORGANIZATION/results/SYSTEM/MODEL/SCENARIO/...)"
        )
    for column in ("Organization", "Division", "Availability", "Model"):
        if not text[column]:
            raise IngestError(f"{where}: {column} is empty")

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
        "gpu_watts": gpu_watts_from_notes(record.get("notes", "")),
        "framework": text.get("framework", ""),
        "inferred": text.get("inferred", "") in ("1", "True", "true"),
        "result_id": text.get("PrivateID", ""),
        "location": text["Location"],
    }


def _round_from_versions(path: Path, records: list[tuple[int, dict[str, str]]]) -> str:
    versions = sorted({record.get("version", "").strip() for _, record in records} - {""})
    if len(versions) != 1:
        found = ", ".join(versions) if versions else "none"
        raise IngestError(f"{path}: cannot tell the round from the version column (found: {found}); pass --round")
    return versions[0]


def ingest(path: str | os.PathLike, round_name: str | None = None) -> pd.DataFrame:
    """Read, validate and tidy an MLCommons summary.csv; raises IngestError naming the row."""
    path = Path(path)
    header, records = read_records(path)
    _check_columns(path, header)
    if not records:
        raise IngestError(f"{path}: the file has a header but no results")
    if round_name is None:
        round_name = _round_from_versions(path, records)
    rows = []
    seen: dict[tuple, int] = {}
    for line, record in records:
        row = _tidy_row(f"{path}, line {line}", record, round_name)
        key = tuple(row[name] for name in RESULT_KEY)
        if key in seen:
            raise IngestError(
                f"{path}, line {line}: duplicate result for {', '.join(map(str, key))} (first at line {seen[key]})"
            )
        seen[key] = line
        rows.append(row)
    return to_tidy_frame(rows)


def to_tidy_frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    """A DataFrame with the tidy columns, in order, with stable dtypes."""
    frame = pd.DataFrame(rows, columns=list(TIDY_COLUMNS))
    frame["per_accelerator"] = frame["per_accelerator"].astype("float64")
    frame["gpu_watts"] = frame["gpu_watts"].astype("float64")
    return frame.sort_values(list(RESULT_KEY), kind="stable").reset_index(drop=True)


def write_tidy(frame: pd.DataFrame, out_path: str | os.PathLike) -> Path:
    """Write the tidy table atomically: a failed write never leaves half a file behind."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=out_path.parent, prefix=f".{out_path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as stream:
            frame.to_csv(stream, index=False, lineterminator="\n")
        os.replace(temp_name, out_path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return out_path
