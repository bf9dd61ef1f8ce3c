"""Where the announcements meet (claimbook.engine.crossref): what the page keeps of each check,
and an order of meetings and sides that is the same in every process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from claimbook import engine
from claimbook.engine import crossref
from claimbook.engine.context import book_data
from claimbook.inputs.schema import CITED_COLUMNS
from claimbook.present import blocks
from tests.helpers.project import ROOT


@pytest.fixture(scope="module")
def data():
    return book_data(ROOT)


def _of_round(data) -> list:
    return [
        claim
        for claim in data.registry.claims
        if data.registry.announcements[claim.announcement].round == data.round
    ]


def test_what_the_page_keeps_of_a_check_is_what_it_reads(data):
    """Each part the page reads, its claim, verdict, figures and results in the check's own
    order; the cases and rows only of the parts that set a subject against a baseline."""
    sided_seen = 0
    for claim in _of_round(data):
        check = engine.check(claim, data)
        seen = crossref.seen(check, data.registry)
        parts = check.parts or (check,)
        with_rows = [part for part in parts if part.rows is not None and not part.rows.empty]
        sided = [part for part in with_rows if any(case.detail.sides for case in part.cases)]
        assert [leaf.claim_id for leaf in seen.sided] == [part.claim.id for part in sided]
        for leaf, part in zip(seen.sided, sided):
            assert leaf.cases == tuple(crossref.SidedCase.of(case) for case in part.cases)
            assert leaf.rows.equals(part.rows[[name for name in CITED_COLUMNS if name in part.rows.columns]])
            sided_seen += 1
        assert {leaf.claim_id for leaf in seen.leaves} <= {part.claim.id for part in with_rows}
        for leaf in (*seen.leaves, *seen.sided):
            part = next(part for part in parts if part.claim.id == leaf.claim_id)
            assert (leaf.announcement, leaf.title, leaf.card) == (
                part.claim.announcement,
                crossref.claim_title(part.claim, data.registry),
                data.registry.card_page(part.claim),
            )
            assert (leaf.verdict, leaf.measured) == (part.verdict, part.measured_range())
            assert leaf.locations == tuple(dict.fromkeys(part.rows["location"]))
    assert sided_seen, "no claim of the round sets a subject against a baseline: nothing was compared"


def _crossing_checks(data) -> dict:
    """A claim of one announcement resting on four results of one benchmark and scenario, listed
    last first, then four claims of another announcement resting on one of them each: the other
    announcement's claims are listed in the order the first claim uses the results (a set of
    Locations would list them in an order of the process's string hashes)."""
    rows = data.results[data.results["division"] == "closed"]
    benchmark, scenario = rows.groupby(["benchmark", "scenario"]).size().idxmax()
    locations = list(rows[(rows["benchmark"] == benchmark) & (rows["scenario"] == scenario)]["location"])[:4]
    by_announcement: dict = {}
    for claim in _of_round(data):
        by_announcement.setdefault(claim.announcement, []).append(claim)
    first, other = list(by_announcement.values())[:2]
    assert len(locations) == 4 and len(other) >= 4, (locations, other)

    def seen(claim, used) -> crossref.Seen:
        leaf = crossref.Leaf(
            claim.id, claim.announcement, claim.statement, "card", "supported", "", tuple(used)
        )
        return crossref.Seen((leaf,), ())

    checks = {first[0].id: seen(first[0], reversed(locations))}
    checks.update({claim.id: seen(claim, [location]) for claim, location in zip(other, locations)})
    return checks


def _sides_in_order() -> str:
    """The sides of the crossing meeting, and what the page records of each claim it reads."""
    data = book_data(ROOT)
    meetings = crossref.meeting_points(_crossing_checks(data), data)
    sides = "\n".join(crossref.sides_table(meeting, data.registry).to_csv() for meeting in meetings)
    checks = {claim.id: crossref.seen(engine.check(claim, data), data.registry) for claim in _of_round(data)}
    return sides + "\n" + repr(crossref.readings(checks))


def test_a_citation_of_the_cited_columns_is_the_citation_of_the_whole_rows(data):
    """The page keeps only ``CITED_COLUMNS`` of the results it cites: the citation must read
    nothing else (the round's results, each claim's, with and without result IDs)."""
    frames = [data.results, *(engine.check(claim, data).rows for claim in _of_round(data))]
    frames = [frame for frame in frames if frame is not None and not frame.empty]
    assert len(frames) > 10
    for frame in frames:
        for result_ids in (data.result_ids, None):
            whole = blocks.citation(frame, None, data.sources or {}, result_ids=result_ids)
            assert (
                blocks.citation(crossref.cited(frame), None, data.sources or {}, result_ids=result_ids)
                == whole
            )
    # and a citation reads each of them: without one, some citation above would differ
    for name in ("round", "division", "scenario", "benchmark", "organization", "system"):
        narrower = [column for column in CITED_COLUMNS if column != name]
        with pytest.raises(KeyError):
            blocks.citation(data.results[narrower], None, data.sources or {}, result_ids=data.result_ids)


def test_the_sides_of_a_meeting_are_listed_alike_whatever_the_process_s_hashes(data):
    """The page lists the same meeting's claims in the same order in every kernel: three
    processes with other string hashes give the same tables, the order the claims are checked in;
    and record the same reading of each claim (the build compares it with its own)."""
    listed = []
    for seed in ("1", "2", "3"):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from tests.unit.test_where_they_meet import _sides_in_order as s; print(s())",
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        listed.append(done.stdout)
    assert listed[0] == listed[1] == listed[2]
    here = crossref.meeting_points(_crossing_checks(data), data)
    assert len(here) == 1
    order = [leaf.claim_id for leaves in here[0].sides.values() for leaf in leaves]
    first, *others = list(_crossing_checks(data))
    assert order == [first, *reversed(others)], order


def _changed(value):
    """Another value of the same kind as ``value`` (a string, a number, a tuple, a table)."""
    if isinstance(value, str):
        return value + " (changed)"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, tuple):
        return (*value, "changed")
    if hasattr(value, "iloc"):  # a table: one row fewer
        return value.iloc[:-1]
    return "changed"  # (None, or a figure the kind computes)


def test_a_reading_holds_everything_the_page_reads_of_a_claim(data):
    """The digest the page records of a claim changes with any field of any leaf it reads, and
    of any case it compares; it is the same for the same reading."""
    import dataclasses

    sided = changed = 0
    for claim in _of_round(data):
        seen = crossref.seen(engine.check(claim, data), data.registry)
        assert crossref.reading(seen) == crossref.reading(
            crossref.seen(engine.check(claim, data), data.registry)
        )
        for group in ("leaves", "sided"):
            for index, leaf in enumerate(getattr(seen, group)):
                variants = [
                    dataclasses.replace(leaf, **{field.name: _changed(getattr(leaf, field.name))})
                    for field in dataclasses.fields(leaf)
                    if field.name not in ("cases", "rows") or group == "sided"
                ]
                for case_index, case in enumerate(leaf.cases):
                    sided += 1
                    for field in dataclasses.fields(case):
                        cases = list(leaf.cases)
                        cases[case_index] = dataclasses.replace(
                            case, **{field.name: _changed(getattr(case, field.name))}
                        )
                        variants.append(dataclasses.replace(leaf, cases=tuple(cases)))
                for variant in variants:
                    leaves = list(getattr(seen, group))
                    leaves[index] = variant
                    other = dataclasses.replace(seen, **{group: tuple(leaves)})
                    assert crossref.reading(other) != crossref.reading(seen), (claim.id, variant)
                    changed += 1
    assert sided and changed > 100


def test_a_reading_refuses_a_value_it_cannot_hold_whole():
    leaf = crossref.Leaf("a", "acme", "A claim", "acme/a", "supported", "", frozenset({"x", "y"}))
    with pytest.raises(TypeError, match="frozenset"):
        crossref.reading(crossref.Seen((leaf,), ()))
