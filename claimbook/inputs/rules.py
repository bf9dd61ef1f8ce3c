"""The rules every result the book judges keeps, checked in one place on a tidy table: by
``ingest`` as it makes the table from a results summary, and by ``load_results`` whenever a tidy
table is read (a tidy table is an input too: someone may have edited it).

A value that passes these is one the engine can judge without an exception (a property test
fuzzes the official summary to hold that):

* a result is a finite number from ``MIN_RESULT`` to ``MAX_RESULT`` (a figure of 1e30, 1e-30 or
  5e-324 used to reach the verdicts, where a per-GPU figure underflowed to 0 or a rounding
  overflowed Decimal's precision);
* a system has at least one node, and a count of accelerators of at most ``MAX_COUNT``, and the
  total is nodes times accelerators per node. A system with no accelerator is kept: its host
  processors run the benchmark (accelerator "N/A" or empty), or MLCommons publishes a count of 0
  beside a named one (an integrated GPU); ``zero_accelerator_warnings`` names the latter, and
  neither has a per-accelerator figure;
* units, metric and direction agree (``higher_is_better`` follows the units), scenarios are
  MLPerf's, and the per-accelerator figure is the result over the total;
* text carries no control or bidirectional-override characters (an ESC sequence would act on
  the terminal of anyone running ``check``; an override shows a name in another order);
* one result per key (who ran what on which system), and one per ``Location``: a Location names
  a result, and a claim cites results by it;
* a ``Location`` is a result's folder in MLCommons' results repository, anchored:
  ``DIVISION/ORGANIZATION/results/SYSTEM/MODEL/SCENARIO``, then what lies below it, with or
  without ``./`` before it (summary.csv writes ``./...performance/run_1``, the JSON summary of
  earlier rounds neither); no segment is empty, ``.`` or ``..``, none holds a backslash, and it
  is not absolute. The book links each result to that folder: a ``..`` segment would lead a
  reader's browser to another repository (a spoofed provenance).
"""

from __future__ import annotations

import math
import re

import pandas as pd

from claimbook.common.formatting import count, data_value, plural, significant
from claimbook.common.identifiers import ROUND, ROUND_RULE, UNSAFE_TEXT, unsafe_character
from claimbook.inputs.schema import RESULT_KEY, SCENARIOS, TIDY_COLUMNS, UNITS

MIN_RESULT = 1e-4  # the smallest published result is about 0.014 (video samples per second)
MAX_RESULT = 1e10  # the largest is about 6 million tokens per second
MAX_COUNT = 1_000_000  # nodes, accelerators per node, and their product
CPU_ONLY = ("", "n/a", "none")  # accelerator names of a system whose host processors run it
# The columns of the tidy table that hold text (every one but its numbers and flags).
NOT_TEXT = (
    "nodes",
    "accelerators_per_node",
    "total_accelerators",
    "result",
    "higher_is_better",
    "per_accelerator",
    "gpu_watts",
    "has_power",
    "inferred",
)
TEXT_COLUMNS = tuple(name for name in TIDY_COLUMNS if name not in NOT_TEXT)

# A segment of a result's path: a plain name (never ``.`` or ``..``, no slash or backslash).
_SEGMENT = r"(?!\.\.?(?:/|$))[^/\\]+"
LOCATION = re.compile(
    rf"(?:\./)?{_SEGMENT}/{_SEGMENT}/results/{_SEGMENT}/{_SEGMENT}/{_SEGMENT}(?:/{_SEGMENT})*"
)
LOCATION_SHAPE = "DIVISION/ORGANIZATION/results/SYSTEM/MODEL/SCENARIO, then what lies below it"
MAX_LOCATION = 1000  # the longest published Location is about 120 characters
SYSTEM_SEGMENT = 3  # the system folder's place among a Location's segments


def location_parts(location) -> tuple[str, ...] | None:
    """The segments of a result's ``Location`` (``./`` before it dropped), each checked: the
    only parts a link to the result is built from; None for a Location that breaks the rule."""
    text = str(location)
    if len(text) > MAX_LOCATION or not LOCATION.fullmatch(text):
        return None
    return tuple(text.removeprefix("./").split("/"))


def location_problem(location) -> str | None:
    """Why ``location`` is not a result's folder (None if it is), said as a result's rule is."""
    text = str(location)
    if location_parts(text) is not None:
        return None
    segments = text.removeprefix("./").split("/")
    if "\\" in text:
        reason = "holds a backslash"
    elif text.startswith("/"):
        reason = "is an absolute path"
    elif any(segment in (".", "..") for segment in segments):
        reason = f"has a {'..' if '..' in segments else '.'!r} segment, which leaves the result's folder"
    elif "" in segments:
        reason = "has an empty segment"
    elif len(text) > MAX_LOCATION:
        reason = f"is longer than {count(MAX_LOCATION)} characters"
    else:
        reason = f"is not a result's folder ({LOCATION_SHAPE}, with or without ./ before it)"
    return f"{text[:200]!r} {reason}; a Location names a result's folder in MLCommons' results repository"


def zero_accelerator_warnings(table: pd.DataFrame, path) -> list[str]:
    """One line per accelerator that results name while counting 0 of them: kept as published
    (an integrated GPU), with no per-accelerator figure."""
    named = ~table["accelerator"].astype(str).str.strip().str.lower().isin(CPU_ONLY)
    rows = table[(table["total_accelerators"] == 0) & named]
    return [
        (
            f"{path}: warning: {plural(len(group), 'result')} of {', '.join(sorted(set(group['system'])))} "
            f"name the accelerator {accelerator!r} but count 0 accelerators; kept as published, with no "
            "per-accelerator figure"
        )
        for accelerator, group in rows.groupby("accelerator", sort=True)
    ]


def first_problem(table: pd.DataFrame, path, line, names: dict[str, str] | None = None) -> str | None:
    """What is wrong with the first row of ``table`` that breaks a rule, starting with where it
    is ("FILE, line N": ``line(position)`` says the line of a row), naming columns as ``names``
    maps them (a raw summary's own names); None if every row keeps every rule. The repeat of a
    key or a Location is named at its second row, with the line of the first."""
    names = names or {}
    found = [problem for check in _CHECKS if (problem := check(table, names)) is not None]
    if not found:
        return None
    position, message = min(found, key=lambda problem: problem[0])[:2]
    other = [problem[2] for problem in found if problem[0] == position and len(problem) > 2]
    if other:
        message = message.replace("{other}", line(other[0]))
    return f"{path}, {line(position)}: {message}"


def _first(mask: pd.Series) -> int | None:
    positions = mask.to_numpy().nonzero()[0]
    return int(positions[0]) if len(positions) else None


def _result(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    values = table["result"].astype(float)
    bad = ~values.between(MIN_RESULT, MAX_RESULT) | values.isna()
    position = _first(bad)
    if position is None:
        return None
    value = float(values.iloc[position])
    shown = repr(value) if not math.isfinite(value) else data_value(value)
    if MAX_RESULT < value < 1e18:  # in whole digits: 1e+10 would read as the bound itself
        shown = count(int(value))
    return position, (
        f"{names.get('result', 'result')} is {shown}; a result must be a finite number from "
        f"{significant(MIN_RESULT, 1)} to {count(int(MAX_RESULT))}"
    )


def _counts(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    nodes, per_node, total = (
        table[name] for name in ("nodes", "accelerators_per_node", "total_accelerators")
    )
    problems = [
        (
            nodes < 1,
            lambda row: f"{names.get('nodes', 'nodes')} is {row['nodes']}; a system has at least one node",
        ),
        (
            (nodes > MAX_COUNT) | (per_node > MAX_COUNT) | (per_node < 0) | (total > MAX_COUNT),
            lambda row: (
                f"{row['nodes']} node(s) of {row['accelerators_per_node']} accelerator(s) each is not a "
                f"system's size (at most {count(MAX_COUNT)} of each, and in all)"
            ),
        ),
        (
            total != nodes * per_node,
            lambda row: (
                f"{names.get('total_accelerators', 'total_accelerators')} is {row['total_accelerators']} "
                f"but {row['nodes']} node(s) x {row['accelerators_per_node']} is {row['nodes'] * row['accelerators_per_node']}"
            ),
        ),
    ]
    return _earliest(table, problems)


def _earliest(table: pd.DataFrame, problems) -> tuple[int, str] | None:
    found = [(position, word) for mask, word in problems if (position := _first(mask)) is not None]
    if not found:
        return None
    position, word = min(found, key=lambda item: item[0])
    return position, word(table.iloc[position])


def _vocabulary(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    units = table["units"].astype(str)
    expected_metric = units.map(lambda unit: UNITS.get(unit, (None, None))[0])
    expected_direction = units.map(lambda unit: UNITS.get(unit, (None, None))[1])
    problems = [
        (
            ~units.isin(list(UNITS)),
            lambda row: f"unknown units {row['units']!r}; the book understands {', '.join(UNITS)}",
        ),
        (~table["scenario"].isin(SCENARIOS), lambda row: f"unknown scenario {row['scenario']!r}"),
    ]
    if "metric" in table and "higher_is_better" in table:  # a tidy table's own columns
        problems += [
            (
                table["metric"].astype(str) != expected_metric,
                lambda row: f"metric is {row['metric']!r} but {row['units']} is {UNITS[row['units']][0]}",
            ),
            (
                table["higher_is_better"].astype(bool) != expected_direction.astype(bool),
                lambda row: (
                    f"higher_is_better is {row['higher_is_better']} but {row['units']} is "
                    + ("better higher" if UNITS[row["units"]][1] else "better lower")
                ),
            ),
        ]
    return _earliest(table, problems)


def _per_accelerator(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    if "per_accelerator" not in table:
        return None
    throughput = (table["metric"] == "throughput") & (table["total_accelerators"] > 0)
    expected = (table["result"] / table["total_accelerators"].where(throughput)).astype(float)
    given = table["per_accelerator"].astype(float)
    agree = (given.isna() & expected.isna()) | ((given - expected).abs() <= 1e-9 * expected.abs())
    return _earliest(
        table,
        [
            (
                ~agree.fillna(False),
                lambda row: (
                    f"per_accelerator is {row['per_accelerator']} but the result over the total is "
                    + (
                        data_value(row["result"] / row["total_accelerators"])
                        if row["metric"] == "throughput" and row["total_accelerators"]
                        else "none (not a throughput of accelerators)"
                    )
                ),
            )
        ],
    )


def _text(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    columns = [column for column in TEXT_COLUMNS if column in table]
    # One search of all the text first (joined by spaces, which are safe): a table without such
    # a character, as every table but a damaged or crafted one is, needs no search per column.
    if not UNSAFE_TEXT.search(" ".join(" ".join(table[column].astype(str)) for column in columns)):
        return None
    found = []
    for column in columns:
        values = table[column].astype(str)
        position = _first(values.str.contains(UNSAFE_TEXT, regex=True))
        if position is not None:
            character = unsafe_character(values.iloc[position])
            found.append(
                (
                    position,
                    (
                        f"{names.get(column, column)} holds the character {character} (a control or "
                        "bidirectional-override character); text in a results file may not"
                    ),
                )
            )
    return min(found, key=lambda item: item[0]) if found else None


def _repeated(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    key = list(RESULT_KEY)
    found = []
    twice = table.duplicated(key, keep="first")
    position = _first(twice)
    if position is not None:
        row = table.iloc[position]
        first = _first((table[key] == row[key]).all(axis=1))
        found.append(
            (
                position,
                f"duplicate result for {', '.join(str(row[name]) for name in key)} (first at {{other}})",
                first,
            )
        )
    again = table.duplicated("location", keep="first")
    position = _first(again)
    if position is not None:
        location = table["location"].iloc[position]
        first = _first(table["location"] == location)
        found.append(
            (
                position,
                (
                    f"{names.get('location', 'location')} {location!r} is also that of {{other}}; a "
                    "Location names one result"
                ),
                first,
            )
        )
    return min(found, key=lambda item: item[0]) if found else None


def _required(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    problems = [
        (
            ~table["round"].astype(str).str.fullmatch(ROUND.pattern),
            lambda row: f"{names.get('round', 'round')} {str(row['round'])[:40]!r} is not {ROUND_RULE}",
        )
    ]
    for column in ("organization", "division", "availability", "model", "system", "location"):
        problems.append(
            (
                table[column].astype(str).str.strip() == "",
                lambda row, column=column: f"{names.get(column, column)} is empty",
            )
        )
    return _earliest(table, problems)


def _location(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    locations = table["location"].astype(str)
    position = _first(~locations.str.fullmatch(LOCATION.pattern) | (locations.str.len() > MAX_LOCATION))
    if position is None:
        return None
    return position, f"{names.get('location', 'location')} {location_problem(locations.iloc[position])}"


MAX_GPU_WATTS = 100_000  # a stated board power per GPU (the largest stated is about 1,400 W)


def _gpu_watts(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    """A stated GPU power, where there is one, a finite number of watts above 0 (every per-watt
    and energy figure divides by it)."""
    if "gpu_watts" not in table:
        return None
    watts = table["gpu_watts"].astype(float)
    wrong = watts.notna() & ~((watts > 0) & (watts <= MAX_GPU_WATTS))
    return _earliest(
        table,
        [
            (
                wrong,
                lambda row: (
                    f"gpu_watts is {row['gpu_watts']}; a stated GPU power is above 0 and at most "
                    f"{count(MAX_GPU_WATTS)} W, or empty"
                ),
            )
        ],
    )


# The segments of a Location that name what its row says (their place among the segments): a
# Location is the result's own folder, never another result's (MLCommons' are, letter case aside).
LOCATION_NAMES = (("division", 0), ("organization", 1), ("model", 4), ("scenario", 5))


def _location_agrees(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    segments = table["location"].astype(str).str.removeprefix("./").str.split("/")
    problems = []
    for column, place in LOCATION_NAMES:
        said = segments.str[place].str.lower()
        problems.append(
            (
                said.notna() & (said != table[column].astype(str).str.lower()),
                lambda row, column=column, place=place: (
                    f"{names.get('location', 'location')} {str(row['location'])[:200]!r} is the folder of "
                    f"{column} {str(row['location']).removeprefix('./').split('/')[place]!r}, not of the "
                    f"row's {names.get(column, column)} {row[column]!r}; a Location names the result's own folder"
                ),
            )
        )
    return _earliest(table, problems)


def _one_unit(table: pd.DataFrame, names: dict) -> tuple[int, str] | None:
    """Every result of one model and scenario in one unit: a figure in another unit would be set
    against them (a ratio, a rank) as if it were in theirs."""
    first = table.groupby(["model", "scenario"], sort=False)["units"].transform("first")
    position = _first(table["units"].astype(str) != first.astype(str))
    if position is None:
        return None
    row = table.iloc[position]
    same = (table["model"] == row["model"]) & (table["scenario"] == row["scenario"])
    said = (
        f"{names.get('units', 'units')} {row['units']!r}, where the result of {row['model']} "
        f"{row['scenario']} at {{other}} is in {first.iloc[position]!r}; one model's scenario is measured in one unit"
    )
    return position, said, _first(same)


_CHECKS = (
    _text,
    _required,
    _location,
    _location_agrees,
    _vocabulary,
    _one_unit,
    _result,
    _counts,
    _per_accelerator,
    _gpu_watts,
    _repeated,
)
