"""A page that reads every claim, run again only where what it read changed
(claimbook.pipeline.rereading): what counts as reading the same, and what a cache may hold."""

from __future__ import annotations

import pytest

from claimbook.pipeline.cache import READINGS, reading_bases_of
from claimbook.pipeline.rereading import _reads_the_same

RECORDED = [{"claim": "a", "reading": "1"}, {"claim": "b", "reading": "2"}, {"claim": "c", "reading": "3"}]


@pytest.mark.parametrize(
    "of_round, read, same",
    [
        (["a", "b", "c"], {}, True),  # no claim checked now: every page reused, every input the same
        (["a", "b", "c"], {"b": "2"}, True),  # a claim checked again reads the same
        (["a", "b", "c"], {"b": "2", "z": "9"}, True),  # (a claim of another round: not read)
        (["a", "b", "c"], {"b": "changed"}, False),
        (["a", "c", "b"], {}, False),  # the claims in another order: the meetings list them so
        (["a", "b"], {}, False),  # a claim gone
        (["a", "b", "c", "d"], {"d": "4"}, False),  # a claim added
    ],
)
def test_a_page_reads_the_same_only_with_the_same_claims_in_the_same_order_read_alike(of_round, read, same):
    assert _reads_the_same(RECORDED, of_round, read.get) is same


@pytest.mark.parametrize(
    "recorded",
    [
        [["a", "1"], {"claim": "b", "reading": "2"}, {"claim": "c", "reading": "3"}],
        [{"claim": "a"}, {"claim": "b", "reading": "2"}, {"claim": "c", "reading": "3"}],
        [{"claim": "a", "reading": 1}, {"claim": "b", "reading": "2"}, {"claim": "c", "reading": "3"}],
        [{"reading": "1"}, {"claim": "b", "reading": "2"}, {"claim": "c", "reading": "3"}],
        [],
    ],
)
def test_a_record_the_page_does_not_make_never_counts_as_the_same(recorded):
    """(Read from a notebook: any JSON.)"""
    assert _reads_the_same(recorded, ["a", "b", "c"], {}.get) is False


@pytest.mark.parametrize(
    "cache, bases",
    [
        ({"pages": {}}, {}),
        ({"pages": {}, READINGS: {"where_they_meet": "abc"}}, {"where_they_meet": "abc"}),
        ({"pages": {}, READINGS: ["where_they_meet"]}, {}),
        ({"pages": {}, READINGS: {"where_they_meet": 1}}, {}),
        ({"pages": {}, READINGS: None}, {}),
    ],
)
def test_the_reading_bases_of_a_cache_are_those_of_its_own_shape(cache, bases):
    assert reading_bases_of(cache) == bases


def test_the_claims_are_read_in_the_page_s_order_up_to_the_first_that_differs():
    """Each claim asked costs a check: none is asked once one differs."""
    asked = []

    def reading_of(claim):
        asked.append(claim)
        return {"b": "changed"}.get(claim, "1" if claim == "a" else None)

    assert _reads_the_same(RECORDED, ["a", "b", "c"], reading_of) is False
    assert asked == ["a", "b"]
