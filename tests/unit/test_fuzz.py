"""Single-field edits of the official summary: each gives verdicts or one error line, never a
traceback; and every value ingest accepts is one the engine judges without an exception.

The edits are made on a copy of ``/work/shared/mlperf/v6.1/summary.csv`` (skipped with a reason
where it is absent), on rows the claims stand on, picked deterministically: zero, negative, huge,
tiny and empty numbers, empty text, control and bidirectional-override characters, and a
Location copied from another row. Each edited file goes through ``claimbook check --results``
in this process (``claimbook.cli.main``), checking the claims that stand on the edited row. The
property test then draws values (seeded) around and inside the bounds ingest keeps, and judges
every claim the edited row touches with the engine directly, so that an exception would surface.
"""

from __future__ import annotations

import csv
import json
import random

import pytest

from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT, SHARED_SUMMARY

pytestmark = pytest.mark.skipif(
    not SHARED_SUMMARY.is_file(), reason=f"the official summary is not here ({SHARED_SUMMARY})"
)

NUMBERS = ("Result", "number_of_nodes", "accelerators_per_node", "total_accelerators")
TEXTS = (
    "Organization",
    "SystemName",
    "accelerator_model_name",
    "Model",
    "Scenario",
    "Units",
    "Division",
    "Availability",
    "Location",
)
NUMBER_EDITS = {
    "zero": "0",
    "negative": "-1",
    "huge": "1e30",
    "tiny": "1e-30",
    "denormal": "5e-324",
    "empty": "",
}
TEXT_EDITS = {"empty": "", "control": "\x1b[2J\x1b[31m{}", "bidi": "\u202e{}", "zero-width": "{}\u200b"}
ROWS = 3  # the rows edited: each edit is made on one of them, in turn


def _raw():
    with open(SHARED_SUMMARY, newline="", encoding="utf-8") as stream:
        reader = csv.DictReader(stream)
        return reader.fieldnames, list(reader)


def _claims_by_location() -> dict[str, list[str]]:
    """The claims (top-level ids) whose committed scorecard cites each result."""
    rows = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for row in rows:
        claim = row["part_of"] or row["claim"]
        for text in row.get("selected") or []:
            location = text.rsplit(" | ", 1)[-1]
            if claim not in found.setdefault(location, []):
                found[location].append(claim)
    return found


def _chosen_rows(rows: list[dict], by_location: dict) -> list[int]:
    """Rows the most claims stand on (ties by Location): an edit there reaches verdicts."""
    cited = sorted(
        (index for index, row in enumerate(rows) if row["Location"] in by_location),
        key=lambda index: (-len(by_location[rows[index]["Location"]]), rows[index]["Location"]),
    )
    return cited[:ROWS]


def _cases():
    edits = [(field, name, value) for field in NUMBERS for name, value in NUMBER_EDITS.items()]
    edits += [(field, name, value) for field in TEXTS for name, value in TEXT_EDITS.items()]
    edits += [("Location", "duplicated", None)]
    # Every edit on every chosen row would be four hundred builds' worth of checks; each edit on
    # two rows in turn is a hundred and twenty.
    return [
        (field, name, value, (index + turn) % ROWS)
        for turn in range(2)
        for index, (field, name, value) in enumerate(edits)
    ]


CASES = _cases()


@pytest.fixture(scope="module")
def official():
    header, rows = _raw()
    by_location = _claims_by_location()
    return header, rows, by_location, _chosen_rows(rows, by_location)


def _edited(official, field, value, which, tmp_path):
    header, rows, by_location, chosen = official
    rows = [dict(row) for row in rows]
    target = rows[chosen[which]]
    claims = by_location[target["Location"]]
    if value is None:  # the Location of another chosen row
        target[field] = rows[chosen[(which + 1) % ROWS]]["Location"]
    else:
        target[field] = value.format(target[field]) if "{}" in value else value
    path = tmp_path / "summary.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return path, claims


@pytest.mark.parametrize(
    "field, name, value, which",
    CASES,
    ids=[f"{field}-{name}-row{which}" for field, name, _, which in CASES],
)
def test_a_single_field_edit_gives_verdicts_or_one_error_line(official, field, name, value, which, tmp_path):
    path, claims = _edited(official, field, value, which, tmp_path)
    done = in_process("check", "--results", path, *claims)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1, 2), done.stderr
    if done.returncode == 0:
        assert not errors and done.stdout.strip(), done.stderr
        assert "\x1b" not in done.stdout and "\u202e" not in done.stdout, (
            "raw control text reached the terminal"
        )
    elif done.returncode == 2:
        one_error_line(done)  # bad input: one line
    else:  # a subject moved to another organization's system: the drift list, then the error
        error = one_error_line(done, "another organization's system", among_others=True)
        assert done.stderr.rstrip("\n").splitlines()[-1] == error, done.stderr


# The values drawn for the property test: the bounds ingest keeps, just inside and outside them,
# and values drawn log-uniformly across and beyond them (seeded: the same every run).
def _drawn(seed: int = 29) -> list[tuple[str, str]]:
    from claimbook.inputs.rules import MAX_COUNT, MAX_RESULT, MIN_RESULT

    draw = random.Random(seed)
    results = [MIN_RESULT, MAX_RESULT, MIN_RESULT * 0.999, MAX_RESULT * 1.001]
    results += [10 ** draw.uniform(-12, 16) for _ in range(8)]
    values = [("Result", repr(value)) for value in results]
    values += [("accelerators_per_node", str(count)) for count in (1, 3, MAX_COUNT, MAX_COUNT + 1)]
    return values


DRAWN = _drawn()


@pytest.mark.parametrize("field, value", DRAWN, ids=[f"{field}={value}" for field, value in DRAWN])
def test_every_value_ingest_accepts_is_one_the_engine_judges(official, field, value, tmp_path):
    from claimbook import engine
    from claimbook.common.errors import UsageError
    from claimbook.engine.verdict import VERDICTS
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.ingest import ingest_as_read
    from claimbook.pipeline.load import checked_data

    header, rows, by_location, chosen = official
    edits = [(field, value)]
    if field == "accelerators_per_node":  # the stated total follows, or ingest refuses the row
        edits.append(("total_accelerators", ""))
    rows = [dict(row) for row in rows]
    target = rows[chosen[0]]
    for name, text in edits:
        target[name] = text
    path = tmp_path / "summary.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    try:
        table = ingest_as_read(path)
    except IngestError as exc:  # refused: one line naming the row
        assert "\n" not in str(exc) and f"line {chosen[0] + 2}" in str(exc), exc
        return
    try:
        data = checked_data(ROOT, table)
    except UsageError as exc:  # a registry error these results make (a selection): one line
        assert "\n" not in str(exc), exc
        return
    for claim_id in by_location[target["Location"]]:
        check = engine.check(data.registry.claim(claim_id), data)  # no exception
        assert check.verdict in VERDICTS, (claim_id, check.verdict)
