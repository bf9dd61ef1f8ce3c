"""The book's reviewed reference tables (``data/reference/``): accelerator families and
benchmarks.

A results file names one accelerator in several ways ("NVIDIA B300-SXM-270GB", "Nvidia
B300-SXM-270GB") and one benchmark in two ("llama3.1-8b", "llama3_1-8b"). The tables say, line
by line and with a note where it is a judgement, which names are one family or one benchmark,
who makes each accelerator, its form factor, and the one colour and shape it has in every chart
of the book. Nothing here guesses: an accelerator no line names stays its own family.

A family line ``names`` its accelerator as words found in the published text whatever its case,
spacing and punctuation (``claimbook.inputs.names``): ``Vera Rubin|VR200`` (either name), ``H200 &
MI350X`` (both, a mixed system), ``=N/A`` (the whole text). The first line that names it wins, so
mixed systems come first. A re-spelling of a name ("VeraRubin", "vera-rubin") is the same family.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pandas as pd

from claimbook.common import identifiers
from claimbook.common.paths import resolve_path
from claimbook.inputs.csvfile import IngestError, read_table
from claimbook.inputs.names import contains_name, squash

REFERENCE_DIR = "data/reference"
ACCELERATOR_COLUMNS = ("names", "family", "short_name", "vendor", "form_factor", "colour", "shape", "note")
BENCHMARK_COLUMNS = ("model", "benchmark", "display_name", "categories", "note")
# Marks for families no reviewed line covers: a strong colour and a shape no reviewed family
# uses, under the accelerator's published name (a pale grey one was all but invisible beside
# the reviewed families' marks).
UNLISTED_COLOUR = "#E7298A"
UNLISTED_SHAPE = "arrow"


@dataclass(frozen=True)
class Family:
    name: str
    vendor: str
    form_factor: str
    colour: str
    shape: str
    listed: bool = True  # False: no reviewed line names it (it is its own family)


class Reference:
    def __init__(self, accelerators: pd.DataFrame, benchmarks: pd.DataFrame):
        self.accelerators = accelerators
        self.benchmarks = benchmarks
        self._families: dict[str, Family] = {}
        self._categories: dict[str, tuple[str, ...]] = {}
        self._benchmark_lines: dict[str, dict] = {}  # column -> {value: its first line}
        self._lines: list[tuple[str, Family]] | None = None
        self._short_names: dict[str, str] | None = None

    def family(self, accelerator: str) -> Family:
        if accelerator not in self._families:
            if self._lines is None:  # the family lines, taken from the table once
                self._lines = _family_lines(self.accelerators)
            self._families[accelerator] = _family(self._lines, accelerator)
        return self._families[accelerator]

    def benchmark(self, model: str) -> str:
        return self._benchmark_row(model)["benchmark"]

    def benchmark_of(self, model: str, mlperf_model: str = "") -> str:
        """A result's benchmark: its model's line, else its MLPerf model's (an open-division
        variant, "efficientnet-int8-lite0" of "resnet"), else the model as published."""
        if self._first_row("model", model) is None and self._first_row("model", mlperf_model) is not None:
            return self.benchmark(mlperf_model)
        return self.benchmark(model)

    def has_model(self, model: str, mlperf_model: str = "") -> bool:
        """Whether the benchmarks table has a line for the model (or for its MLPerf model)."""
        return (
            self._first_row("model", model) is not None or self._first_row("model", mlperf_model) is not None
        )

    def is_listed(self, accelerator: str) -> bool:
        """Whether a reviewed line names the accelerator (else it is its own family, unreviewed)."""
        return self.family(accelerator).listed

    def display_name(self, benchmark: str) -> str:
        row = self._first_row("benchmark", benchmark)
        return str(row["display_name"]) if row is not None else benchmark

    def categories(self, benchmark: str) -> tuple[str, ...]:
        if benchmark not in self._categories:  # asked once per result row: looked up once per benchmark
            row = self._first_row("benchmark", benchmark)
            self._categories[benchmark] = (
                ()
                if row is None
                else tuple(part.strip() for part in str(row["categories"]).split(";") if part.strip())
            )
        return self._categories[benchmark]

    def _benchmark_row(self, model: str) -> dict:
        row = self._first_row("model", model)
        return dict(row) if row is not None else {"benchmark": model, "display_name": model, "categories": ""}

    def _first_row(self, column: str, value) -> dict | None:
        """The first line of the benchmarks table whose ``column`` is ``value``, or None."""
        if column not in self._benchmark_lines:  # a page asks for every case: each column indexed once
            lines: dict = {}
            for row in self.benchmarks.to_dict("records"):
                lines.setdefault(row[column], row)
            self._benchmark_lines[column] = lines
        return self._benchmark_lines[column].get(value)

    def families(self) -> pd.DataFrame:
        """One row per reviewed family: its short name (for charts), vendor, form factor, colour
        and shape."""
        return self.accelerators.drop_duplicates("family")[
            ["family", "short_name", "vendor", "form_factor", "colour", "shape"]
        ]

    def short_name(self, family: str) -> str:
        """The name a chart's legend gives a family (the full one is in its tooltip)."""
        if self._short_names is None:  # asked for every row a chart draws: the table read once
            self._short_names = {}
            for name, short in zip(self.accelerators["family"], self.accelerators["short_name"], strict=True):
                self._short_names.setdefault(name, str(short))
        return self._short_names.get(family, family)


def names_accelerator(names: str, accelerator: str) -> bool:
    """Whether a family line's ``names`` name the published ``accelerator`` text: one of its
    alternatives (``|``), each a name or several that must all be there (``&``), or ``=NAME``
    for the whole text."""
    for alternative in names.split("|"):
        wanted = [part.strip() for part in alternative.split("&")]
        if all(
            (squash(part[1:]) == squash(accelerator))
            if part.startswith("=")
            else contains_name(accelerator, part)
            for part in wanted
        ):
            return True
    return False


def _family_lines(accelerators: pd.DataFrame) -> list[tuple[str, Family]]:
    """Each family line's ``names`` and the family it gives, in the table's order."""
    columns = ("names", "family", "vendor", "form_factor", "colour", "shape")
    return [
        (names, Family(*values))
        for names, *values in zip(*(accelerators[column] for column in columns), strict=True)
    ]


def _family(lines: list[tuple[str, Family]], accelerator: str) -> Family:
    for names, family in lines:
        if names_accelerator(names, accelerator):
            return family
    words = accelerator.split()
    return Family(
        accelerator,
        words[0] if words else "unknown",
        "unknown",
        UNLISTED_COLOUR,
        UNLISTED_SHAPE,
        listed=False,
    )


def _read(path: Path, what: str, columns, items: str) -> pd.DataFrame:
    records = read_table(path, what, columns, items)
    rows = []
    for line, record in records:
        values = {name: (record.get(name) or "").strip() for name in columns}
        empty = [name for name in columns if name != "note" and not values[name]]
        if empty and not (what == "accelerator families" and empty == ["note"]):
            raise IngestError(f"{path}, line {line}: {', '.join(empty)} is empty")
        rows.append(values)
    return pd.DataFrame(rows, columns=list(columns))


def load_reference(directory: str | os.PathLike = REFERENCE_DIR) -> Reference:
    """Both reviewed tables; a malformed line is an error naming the file and the line."""
    folder = resolve_path(directory)
    accelerators = _read(folder / "accelerators.csv", "accelerator families", ACCELERATOR_COLUMNS, "families")
    for line, names in enumerate(accelerators["names"], start=2):
        empty = [
            part
            for part in names.split("|")
            for name in part.split("&")
            if not squash(name) and name.strip() != "="
        ]
        if empty:
            raise IngestError(
                f"{folder / 'accelerators.csv'}, line {line}: names {names!r} has an empty name "
                "(names are separated by | or &; =NAME is the whole text, a lone = an empty one)"
            )
    pairs = accelerators.drop_duplicates("family")[["colour", "shape"]]
    if pairs.duplicated().any():
        raise IngestError(f"{folder / 'accelerators.csv'}: two families share one colour and shape")
    benchmarks = _read(folder / "benchmarks.csv", "benchmarks", BENCHMARK_COLUMNS, "benchmarks")
    return Reference(accelerators, benchmarks)


def vendors_of(reference: Reference, accelerator: str) -> str:
    """Every vendor whose GPUs a system has, ";"-joined: one for most systems, each vendor of a
    system that mixes accelerators ("NVIDIA H200 + AMD MI350X" is "AMD;NVIDIA"), so that a
    partner running a vendor's GPUs is counted from every system it submits."""
    family = reference.family(accelerator)
    parts = [part for part in re.split(r"\s+\+\s+|\s+and\s+", str(accelerator)) if part.strip()]
    if len(parts) < 2:
        return family.vendor
    vendors = {reference.family(part).vendor for part in parts}
    known = set(reference.accelerators["vendor"]) - {"mixed"}
    found = sorted(vendors & known)
    return ";".join(found) if found else family.vendor


def annotate(results: pd.DataFrame, reference: Reference) -> pd.DataFrame:
    """The results with the reviewed names beside the published ones: ``family``, ``vendor``,
    ``form_factor`` of the accelerator, every vendor whose GPUs the system has (``vendors``) and
    the canonical ``benchmark`` of the model."""
    families = {name: reference.family(name) for name in set(results["accelerator"])}
    vendors = {name: vendors_of(reference, name) for name in set(results["accelerator"])}
    mlperf = results["mlperf_model"] if "mlperf_model" in results else results["model"]
    pairs = list(zip(results["model"], mlperf))
    benchmarks = {pair: reference.benchmark_of(*pair) for pair in set(pairs)}
    annotated = results.assign(
        family=results["accelerator"].map(lambda name: families[name].name),
        vendor=results["accelerator"].map(lambda name: families[name].vendor),
        vendors=results["accelerator"].map(vendors),
        form_factor=results["accelerator"].map(lambda name: families[name].form_factor),
        benchmark=[benchmarks[pair] for pair in pairs],
    )
    return as_one_block(annotated)


def unlisted(results: pd.DataFrame, reference: Reference) -> list[str]:
    """One warning for each accelerator and each benchmark of ``results`` that the reviewed
    tables lack, with how many results it has: charts show such an accelerator under its
    published name, and such a benchmark under its model's."""
    warnings = []
    for accelerator, found in sorted(results["accelerator"].value_counts().items()):
        if not reference.is_listed(str(accelerator)):
            warnings.append(
                f"warning: accelerator {str(accelerator)[:120]!r} ({found} result{'' if found == 1 else 's'}) "
                f"has no line in {REFERENCE_DIR}/accelerators.csv: it is its own family, shown under its "
                "published name"
            )
    mlperf = results["mlperf_model"] if "mlperf_model" in results else results["model"]
    unknown = pd.Series(
        [model for model, other in zip(results["model"], mlperf) if not reference.has_model(model, other)],
        dtype=object,
    )
    for model, found in sorted(unknown.value_counts().items()):
        warnings.append(
            f"warning: benchmark {str(model)[:120]!r} ({found} result{'' if found == 1 else 's'}) has no line "
            f"in {REFERENCE_DIR}/benchmarks.csv: it is its own benchmark, shown under its published name"
        )
    return warnings


def as_one_block(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its text columns held as Python strings in one block (the same values):
    every selection takes its rows from each block, and one block of text instead of one
    array per text column makes the checks' thousands of selections about three times
    cheaper."""
    text = {name: object for name, dtype in frame.dtypes.items() if isinstance(dtype, pd.StringDtype)}
    return frame.astype(text).copy() if text else frame.copy()


RESULT_ID_COLUMNS = ("id", "round", "organization", "system", "division", "benchmarks", "stated_by", "note")
SOURCE_COLUMNS = ("round", "repository", "file", "commit", "sha256", "published")
RESULT_ID = re.compile(r"^\d+\.\d+-\d{4}$")


def load_result_ids(path: str | os.PathLike = "data/result_ids.csv") -> pd.DataFrame:
    """The result IDs announcements cite, each with the system it names and who states it."""
    path = resolve_path(path)
    rows = []
    for line, record in read_table(path, "result ID table", RESULT_ID_COLUMNS, "IDs"):
        values = {name: (record.get(name) or "").strip() for name in RESULT_ID_COLUMNS}
        if not RESULT_ID.match(values["id"]):
            raise IngestError(f"{path}, line {line}: id {values['id']!r} is not of the form 6.1-0106")
        for name in ("round", "organization", "stated_by"):
            if not values[name]:
                raise IngestError(f"{path}, line {line}: {name} is empty")
        rows.append(values)
    return pd.DataFrame(rows, columns=list(RESULT_ID_COLUMNS))


def load_sources(path: str | os.PathLike = "data/mlperf/sources.csv") -> dict[str, dict]:
    """Where each round's results come from: repository, file, commit, checksum, publication date."""
    path = resolve_path(path)
    found, lines = {}, {}
    for line, record in read_table(path, "results source table", SOURCE_COLUMNS, "rounds"):
        values = {name: (record.get(name) or "").strip() for name in SOURCE_COLUMNS}
        _check_source(f"{path}, line {line}", values)
        if values["round"] in found:  # a second line would silently replace the first
            raise IngestError(
                f"{path}, line {line}: {values['round']} has a line already (line {lines[values['round']]}); "
                "keep one line per round"
            )
        found[values["round"]] = values
        lines[values["round"]] = line
    return found


# What each column of sources.csv must look like: a citation prints them as they are.
_SOURCE_RULES = {
    "repository": (
        re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*"),
        "OWNER/NAME, e.g. mlcommons/inference_results_v6.1",
    ),
    "file": (re.compile(r"[\w-][\w.-]*(?:/[\w-][\w.-]*)*"), "a file of the repository, e.g. summary.csv"),
    "commit": (re.compile(r"[0-9a-f]{40}"), "a commit's 40 hexadecimal digits"),
    "sha256": (re.compile(r"[0-9a-f]{64}"), "the file's SHA-256 in 64 hexadecimal digits"),
}


def _check_source(where: str, values: dict) -> None:
    """One line of sources.csv as a citation may print it; IngestError naming the line if not."""
    for column, value in values.items():
        character = identifiers.unsafe_character(value)
        if character:
            raise IngestError(f"{where}: {column} holds the character {character} (a control character)")
    if not identifiers.is_round(values["round"]):
        raise IngestError(f"{where}: the round {values['round'][:40]!r} is not {identifiers.ROUND_RULE}")
    for column, (rule, said) in _SOURCE_RULES.items():
        if not rule.fullmatch(values[column]):
            raise IngestError(f"{where}: {column} {values[column][:80]!r} is not {said}")
    try:
        datetime.strptime(values["published"], "%d %B %Y")
    except ValueError:
        raise IngestError(
            f"{where}: published {values['published'][:40]!r} is not a date such as 16 September 2026"
        ) from None
