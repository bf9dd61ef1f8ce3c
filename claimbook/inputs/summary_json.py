"""MLCommons' JSON results summary (``summary_results.json``, v5.1) read as the rows of a
``summary.csv``, so that one set of rules (``claimbook.inputs.ingest``) tidies both.

The JSON is a list with one object a result, under other names than the CSV's. ``COLUMN_MAP``
is the one map from its fields to the CSV's columns (documented in book/howto.md); a field
the book does not use is not read. Two fields differ in meaning as well as in name:

* ``a#`` is the accelerators PER NODE (an NVL72 rack is 18 nodes x 4); empty means none;
* ``Location`` is the result folder without ``./`` and without ``performance/run_1``: it is
  written as the CSV writes it (``./closed/ORG/results/SYSTEM/MODEL/SCENARIO/performance/run_1``)
  so that every round's Locations have one shape and every provenance link reaches the folder.

A file is told to be JSON by its content (its first character is ``[`` or ``{``), never by its
name. Every error is one line naming the file, the result (its position and ID) and the field.
"""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path

from claimbook.common.safe_read import InputError, read_text
from claimbook.inputs.csvfile import IngestError

MAX_BYTES = 256 * 1024 * 1024  # v5.1's summary is 2.2 MB; this leaves a hundred times that
TEXT, COUNT, NUMBER, FLAG = "text", "count", "number", "flag"
# JSON field -> (the summary.csv column it stands for, the type it must have, required).
COLUMN_MAP = {
    "Submitter": ("Organization", TEXT, True),
    "Availability": ("Availability", TEXT, True),
    "Category": ("Division", TEXT, True),
    "Suite": ("SystemType", TEXT, True),
    "System": ("SystemName", TEXT, True),
    "UsedModel": ("Model", TEXT, True),
    "Model": ("MlperfModel", TEXT, True),
    "Scenario": ("Scenario", TEXT, True),
    "Nodes": ("number_of_nodes", COUNT, True),
    "a#": ("accelerators_per_node", COUNT, True),
    "Accelerator": ("accelerator_model_name", TEXT, True),
    "Location": ("Location", TEXT, True),
    "ID": ("PrivateID", TEXT, True),
    "Performance_Result": ("Result", NUMBER, True),
    "Performance_Units": ("Units", TEXT, True),
    "version": ("version", TEXT, True),
    "Software": ("framework", TEXT, False),
    "Notes": ("notes", TEXT, False),
    "inferred": ("inferred", FLAG, False),
    "has_power": ("has_power", FLAG, False),
    "weight_data_types": ("weight_data_types", TEXT, False),
}
# The JSON's name of each summary.csv column, to word errors in the file's own names.
JSON_NAME = {column: field for field, (column, _, _) in COLUMN_MAP.items()}
HEADER = [column for column, _, _ in COLUMN_MAP.values()]
RESULT_FOLDER_TAIL = "/performance/run_1"
_WANTED = {TEXT: "text", COUNT: "a whole number", NUMBER: "a number", FLAG: "0, 1, true or false"}


def looks_like_json(head: bytes) -> bool:
    """Whether a file's first bytes start a JSON array or object (after a BOM and blanks)."""
    return head.removeprefix(codecs.BOM_UTF8).lstrip()[:1] in (b"[", b"{")


def normalised_location(location: str) -> str:
    """A result folder written as every round's tidy table writes it (see the module's note)."""
    location = location.strip()
    if not location:
        return location
    if not location.startswith(("./", "/")):  # an absolute path is left for the rules to refuse
        location = "./" + location
    if not location.rstrip("/").endswith(RESULT_FOLDER_TAIL):
        location = location.rstrip("/") + RESULT_FOLDER_TAIL
    return location


def read_json_rows(path: Path) -> tuple[list[str], list[list[str]], list[str]]:
    """The summary as ``read_rows`` gives a CSV: the CSV's header, each result's fields as text,
    and where each result is ("result N (ID ...)"), for the errors."""
    try:
        # Read what the file holds, not a buffer of MAX_BYTES (a read allocates what it may take).
        size = os.stat(path).st_size
    except OSError:
        size = MAX_BYTES
    limit = MAX_BYTES if size >= MAX_BYTES else size + 1
    try:
        text = read_text(path, str(path), "results file", limit).removeprefix("\ufeff")
    except InputError as exc:
        raise IngestError(str(exc)) from None
    try:
        results = json.loads(text, object_pairs_hook=_Fields)
    except json.JSONDecodeError as exc:
        raise IngestError(f"{path}, line {exc.lineno}: not readable as JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # a number of thousands of digits; nesting too deep
        why = "nested too deeply" if isinstance(exc, RecursionError) else "a number too long to read"
        raise IngestError(f"{path}: not readable as JSON ({why})") from None
    if not isinstance(results, list):
        raise IngestError(
            f"{path}: this is JSON holding {_type_name(results)}, not a list of results (MLCommons' JSON "
            "summary is a list with one object a result)"
        )
    if not results:
        raise IngestError(f"{path}: the JSON list holds no results")
    rows, places = [], []
    for number, result in enumerate(results, start=1):
        place = _place(number, result)
        if not isinstance(result, dict):
            raise IngestError(f"{path}, {place}: {_type_name(result)}, not an object of a result's fields")
        if result.repeated:
            raise IngestError(
                f"{path}, {place}: field {result.repeated[0][:80]!r} is written twice; which one is the "
                "result's is not for the book to guess"
            )
        rows.append([_field_text(path, place, result, field) for field in COLUMN_MAP])
        places.append(place)
    return HEADER, rows, places


class _Fields(dict):
    """A JSON object's fields, and the names it writes more than once (JSON readers keep the
    last one silently; a summary's result must say each field once)."""

    def __init__(self, pairs):
        super().__init__(pairs)
        self.repeated = [] if len(self) == len(pairs) else _repeated(pairs)


def _repeated(pairs) -> list[str]:
    seen, repeated = set(), []
    for key, _ in pairs:
        if key in seen:
            repeated.append(key)
        seen.add(key)
    return repeated


def _place(number: int, result) -> str:
    identifier = result.get("ID") if isinstance(result, dict) else None
    if isinstance(identifier, str) and identifier.strip() and len(identifier) <= 40:
        return f"result {number} (ID {identifier.strip()!r})"
    return f"result {number}"


def _field_text(path: Path, place: str, result: dict, field: str) -> str:
    column, kind, required = COLUMN_MAP[field]
    if field not in result:
        if required:
            raise IngestError(f"{path}, {place}: no field {field!r}; every result of the summary has it")
        return ""
    value = result[field]
    if value is None:
        return ""
    text = _as_text(value, kind)
    if text is None:
        raise IngestError(
            f"{path}, {place}: field {field!r} is {_type_name(value)} {_shown(value)}; it must be {_WANTED[kind]}"
        )
    if column == "Location":
        return normalised_location(text)
    # An empty a# is how the summary writes "no accelerators" (a CPU-only system).
    return "0" if column == "accelerators_per_node" and not text else text


def _as_text(value, kind: str) -> str | None:
    """A field's value as the CSV would write it, or None if it is not of the field's type."""
    if kind == TEXT:
        return value if isinstance(value, str) else None
    if kind == FLAG:
        if isinstance(value, bool):
            return "1" if value else "0"
        return str(value) if value in (0, 1) and isinstance(value, int) else None
    if isinstance(value, bool):
        return None
    if kind == COUNT:
        if isinstance(value, int):
            return str(value)
        # A count written as text is read too (the summary writes "" for no accelerators).
        return (
            value.strip()
            if isinstance(value, str) and (not value.strip() or value.strip().isdigit())
            else None
        )
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    return None


def _type_name(value) -> str:
    names = {_Fields: "an object", dict: "an object", list: "a list", str: "text", bool: "a true/false"}
    return names.get(type(value), "null" if value is None else "a number")


def _shown(value) -> str:
    shown = json.dumps(value, ensure_ascii=True)
    return shown if len(shown) <= 40 else shown[:37] + "..."
