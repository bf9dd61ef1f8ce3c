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


def _registry():
    from claimbook.engine import load_registry
    from tests.helpers.project import ROOT

    return load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")


def _with_claim(registry, claim):
    """``registry`` with its claim of ``claim``'s id replaced by ``claim``."""
    from dataclasses import replace

    return replace(registry, claims=tuple(claim if item.id == claim.id else item for item in registry.claims))


def test_a_figure_one_claim_states_of_an_earlier_round_is_in_every_page_s_digest_and_every_check_s_key():
    """The book joins what claims state of earlier rounds to the earlier rounds' results, which a
    check that looks back reads, whichever claim states them: another figure stated by one
    claim is another digest for every page (the meeting page's reading base too), and another
    key for every claim's check in the cache."""
    from dataclasses import replace
    from types import SimpleNamespace

    from claimbook.engine import check_cache
    from claimbook.pipeline.plan import page_digests, plan, reading_bases
    from tests.helpers.project import ROOT

    registry = _registry()
    stating = next(claim for claim in registry.claims if claim.get("stated"))
    stated = dict(stating.get("stated"))
    stated["figures"] = {name: float(value) * 2 for name, value in stated["figures"].items()}
    edited = _with_claim(registry, replace(stating, fields={**stating.fields, "stated": stated}))
    pages, again = plan(registry), plan(edited)
    before, after = page_digests(ROOT, ROOT, pages), page_digests(ROOT, ROOT, again)
    assert len(before) > 10 and all(before[name] != after[name] for name in before)
    bases = reading_bases(ROOT, ROOT, pages)
    assert bases and all(bases[name] != reading_bases(ROOT, ROOT, again)[name] for name in bases)
    other = next(claim for claim in registry.claims if claim.id != stating.id)
    keys = [
        check_cache.entry_key(other, SimpleNamespace(registry=held), inputs="the same files")
        for held in (registry, edited)
    ]
    assert keys[0] != keys[1]


def test_where_a_claim_s_card_is_belongs_to_its_digest_and_to_what_the_meeting_page_reads():
    """A claim moved into a narrative chapter has its card there: the pages that link it link
    there, so its digest changes and so does what the meeting page reads of it."""
    from dataclasses import replace

    from claimbook.pipeline.plan import claim_payload

    registry = _registry()
    claim = next(claim for claim in registry.claims if registry.has_page(claim))
    chapter = next(name for name in registry.chapters if registry.chapter_claims(name))
    moved = _with_claim(registry, replace(claim, chapter=chapter))
    assert registry.card_page(claim) == f"{claim.announcement}/{claim.id}"
    assert moved.card_page(moved.claim(claim.id)) == chapter
    assert claim_payload(claim, registry) != claim_payload(moved.claim(claim.id), moved)
    text_only = next(
        claim for claim in registry.claims if claim.chapter is None and not registry.has_page(claim)
    )
    assert registry.card_page(text_only) == text_only.announcement
    parent = next(claim for claim in registry.claims if claim.parts)
    assert {registry.card_page(part) for part in parent.parts} == {registry.card_page(parent)}


@pytest.mark.parametrize(
    "written, reused",
    [
        ('{"cells": [{"outputs": [{"data": {"application/vnd.claimbook.readings+json": []}}]}]}', True),
        ('{"cells": [', False),  # cut short
        ("[1, 2]", False),  # not a notebook
        (b"\xff\xfe", False),  # not text
    ],
)
def test_a_page_whose_last_run_cannot_be_read_runs_and_is_written_anew(tmp_path, written, reused):
    """``settle`` on a round with no claim: a last run that recorded it read none is reused (said
    in one line); one that cannot be read runs, whatever is wrong with it, and never stops the
    build with a traceback."""
    from types import SimpleNamespace

    from claimbook.pipeline.rereading import settle
    from claimbook.pipeline.staging import Staged

    generated = tmp_path / "book" / "generated"
    generated.mkdir(parents=True)
    page = generated / "reads-all.ipynb"
    page.write_bytes(written if isinstance(written, bytes) else written.encode())
    job = ("reads-all", None, page, {}, tmp_path, "notebooks/reads-all.ipynb", None)
    staged = Staged(tmp_path, tmp_path, "data/mlperf/v6.1.csv", [], {}, [job], frozenset({"reads-all"}))
    said: list[str] = []
    registry = SimpleNamespace(claims=(), announcements={})
    loaded = SimpleNamespace(data=SimpleNamespace(registry=registry, round="v6.1"))
    settled, checks = settle(SimpleNamespace(only=(), report=said.append), staged, loaded)
    assert checks == {} and not settled.rereadable
    assert settled.to_run == ([] if reused else [job])
    assert page.exists() is reused  # (a page that runs is written anew, never in place)
    assert said == (["reusing reads-all: what it reads of each claim did not change"] if reused else [])
