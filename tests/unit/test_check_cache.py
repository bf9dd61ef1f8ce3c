"""The checks kept between processes (claimbook.engine.check_cache): a check taken from the cache
is the check made again, for every claim of the book; an entry is found only for the very same
inputs; nothing but an entry signed with this user's key is ever unpickled."""

from __future__ import annotations

import os
import pickle
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from claimbook import engine
from claimbook.common.paths import CACHE_VARIABLE, PROJECT_ROOT
from claimbook.engine import check_cache, scorecard
from claimbook.engine.context import book_data

ROOT = PROJECT_ROOT


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.delenv(check_cache.SWITCH, raising=False)
    return tmp_path / "cache" / check_cache.FOLDER


def _checks(claims, data) -> dict:
    """``{claim id: check}``, each from the cache where an entry holds it, else checked and kept."""
    return check_cache.kept(claims, data, "check", lambda claim: engine.check(claim, data))


def _seen(check) -> tuple:
    """What a page shows of a check: its scorecard rows, reason, caveats, notes and context."""
    return (
        scorecard.rows_for(check, "chapter"),
        check.verdict,
        check.reason,
        check.caveats,
        check.notes,
        check.context,
        None if check.rows is None else (check.rows.to_csv(), tuple(map(str, check.rows.dtypes))),
        sorted(check.tables),
    )


def test_every_claim_taken_from_the_cache_is_the_claim_checked_again(cache):
    data = book_data(ROOT)
    claims = list(data.registry.claims)
    first = _checks(claims, data)  # checked, and kept
    assert len(list(cache.glob(f"*{check_cache.SUFFIX}"))) == len(
        {check_cache.entry_key(c, data) for c in claims}
    )
    again = _checks(claims, book_data(ROOT))  # a new process's data: every one from the cache
    for claim in claims:
        fresh = engine.check(claim, data)
        assert _seen(again[claim.id]) == _seen(fresh) == _seen(first[claim.id]), claim.id


def test_what_the_meeting_page_takes_from_the_cache_is_what_checking_again_gives(cache):
    from claimbook.engine import crossref

    first = crossref.round_checks(book_data(ROOT))  # checked, and kept
    assert len(list(cache.glob(f"*{check_cache.SUFFIX}"))) == len(first)
    data = book_data(ROOT)
    again = crossref.round_checks(data)  # a new process's data: every one from the cache
    assert set(again) == set(first) and again
    for claim_id, kept in again.items():
        fresh = crossref.seen(engine.check(data.registry.claim(claim_id), data), data.registry)
        for taken, made in zip((*kept.leaves, *kept.sided), (*fresh.leaves, *fresh.sided), strict=True):
            assert (
                taken.claim_id,
                taken.announcement,
                taken.title,
                taken.verdict,
                taken.measured,
                taken.locations,
            ) == (
                made.claim_id,
                made.announcement,
                made.title,
                made.verdict,
                made.measured,
                made.locations,
            ), claim_id
            assert taken.cases == made.cases, claim_id
            assert (taken.rows is None) == (made.rows is None), claim_id
            if made.rows is not None:
                assert taken.rows.to_csv() == made.rows.to_csv(), claim_id
                assert list(map(str, taken.rows.dtypes)) == list(map(str, made.rows.dtypes)), claim_id
        assert crossref.reading(kept) == crossref.reading(fresh), claim_id  # what the page records of it


def test_an_entry_is_found_only_for_the_same_claim_and_the_same_bytes(cache, tmp_path):
    data = book_data(ROOT)
    claim = data.registry.claims[0]
    key = check_cache.entry_key(claim, data)
    assert check_cache.entry_key(claim, book_data(ROOT)) == key
    # One field of the claim edited: another key.
    edited = replace(claim, fields=dict(claim.fields, title=f"{claim.get('title')} (edited)"))
    assert check_cache.entry_key(edited, data) != key
    # One byte more in a reference table of a copy of the book: another key than the copy's.
    copy = tmp_path / "book"
    shutil.copytree(ROOT / "data", copy / "data")
    before = book_data(copy)
    before_key = check_cache.entry_key(before.registry.claim(claim.id), before)
    table = next((copy / "data" / "reference").glob("*.csv"))
    table.write_bytes(table.read_bytes() + b"\n")
    after = book_data(copy)
    assert check_cache.entry_key(after.registry.claim(claim.id), after) != before_key
    # Every round the book holds is among the inputs, v5.1 as much as v6.1.
    assert {Path(path).name for path in data.inputs} >= {"v5.1.csv", "v6.1.csv"}


def test_an_entry_not_signed_with_this_users_key_is_never_unpickled(cache, tmp_path):
    data = book_data(ROOT)
    claim = data.registry.claims[0]
    _checks([claim], data)
    entry = cache / f"{check_cache.entry_key(claim, data)}{check_cache.SUFFIX}"
    assert entry.is_file()
    marker = tmp_path / "ran"

    class Payload:  # what a planted file would run when unpickled
        def __reduce__(self):
            return (Path.touch, (marker,))

    planted = pickle.dumps(Payload())
    for blob in (planted, b"\0" * 32 + planted, entry.read_bytes()[:32] + planted):
        entry.write_bytes(blob)
        found = _checks([claim], data)[claim.id]
        assert not marker.exists()
        assert _seen(found) == _seen(engine.check(claim, data))
        # ... and the entry is replaced by a signed one.
        assert entry.read_bytes() != blob


def test_a_folder_others_may_write_to_is_not_used(cache):
    data = book_data(ROOT)
    claim = data.registry.claims[0]
    cache.mkdir(parents=True)
    os.chmod(cache, 0o777)
    _checks([claim], data)
    assert list(cache.iterdir()) == []
    os.chmod(cache, 0o700)
    (cache / check_cache.KEY_FILE).write_bytes(b"k" * 32)
    os.chmod(cache / check_cache.KEY_FILE, 0o644)  # a key others can read signs nothing
    _checks([claim], data)
    assert sorted(path.name for path in cache.iterdir()) == [check_cache.KEY_FILE]


def test_off_switch_and_data_read_from_no_files(cache, monkeypatch):
    data = book_data(ROOT)
    claim = data.registry.claims[0]
    monkeypatch.setenv(check_cache.SWITCH, "0")
    _checks([claim], data)
    assert not cache.exists()
    monkeypatch.delenv(check_cache.SWITCH)
    in_memory = book_data(ROOT, table=data.results)  # a table given in memory: not the files'
    assert in_memory.inputs == ()
    _checks([claim], in_memory)
    assert not cache.exists()


def test_pruning_removes_the_least_recently_used_entries_and_nothing_else(cache, monkeypatch):
    monkeypatch.setattr(check_cache, "MAX_ENTRIES", 4)
    monkeypatch.setattr(check_cache, "KEPT_AFTER_PRUNING", 2)
    cache.mkdir(parents=True)
    entries = [cache / f"{index:064x}{check_cache.SUFFIX}" for index in range(6)]
    for age, entry in enumerate(entries):
        entry.write_bytes(b"x")
        os.utime(entry, ns=(age * 10**9, age * 10**9))
    mine = cache / "notes.txt"
    mine.write_text("someone's file")
    check_cache._prune(cache)
    assert sorted(path.name for path in cache.iterdir()) == sorted(
        [mine.name, entries[4].name, entries[5].name]
    )


def test_only_a_run_that_wrote_an_entry_prunes(cache, monkeypatch):
    data = book_data(ROOT)
    claims = list(data.registry.claims[:3])
    pruned = []
    monkeypatch.setattr(check_cache, "_prune", pruned.append)
    _checks(claims, data)  # each entry written
    assert pruned == [cache]
    _checks(claims, data)  # each entry read
    assert len(pruned) == 1


@pytest.mark.parametrize(
    "name, entry",
    [
        ("ab" * 32 + ".check", True),
        ("AB" * 32 + ".check", False),
        ("ab" * 32 + ".check.tmp", False),
        ("ab" * 31 + ".check", False),
        ("xy" * 32 + ".check", False),
        (".writing-abc.check", False),
        ("ab" * 32 + ".checks", False),
    ],
)
def test_an_entry_is_named_by_a_digest_and_the_suffix(name, entry):
    assert check_cache._is_entry(name) is entry


@pytest.mark.build
def test_an_incremental_build_that_takes_the_other_claims_from_the_cache_is_a_cold_build(
    cache, tmp_path, monkeypatch
):
    """The page that reads every claim, after one claim's edit: executed with every other claim's
    check taken from the cache, it is byte for byte the page a cold build with no cache makes."""
    from tests.helpers.clirun import in_process

    warm, cold = tmp_path / "warm", tmp_path / "cold"
    change = "wan-latency-5.7s.claimed=5.8"
    page = Path("book", "generated", "where_they_meet.ipynb")
    first = in_process("build", "--no-html", "--force", "--out", warm, "--only", "where_they_meet")
    assert first.returncode == 0 and "executed where_they_meet" in first.stderr, first.stderr
    kept = set(cache.glob(f"*{check_cache.SUFFIX}"))
    assert len(kept) > len(book_data(ROOT).registry.claims) // 2  # the round's checks, kept
    edited = in_process("build", "--no-html", "--out", warm, "--only", "where_they_meet", "--param", change)
    assert edited.returncode == 0 and "executed where_they_meet" in edited.stderr, edited.stderr
    # Only the changed claim was checked again: its check, and the build's audit of it.
    assert len(set(cache.glob(f"*{check_cache.SUFFIX}")) - kept) <= 2
    monkeypatch.setenv(check_cache.SWITCH, "0")
    fresh = in_process(
        "build", "--no-html", "--force", "--out", cold, "--only", "where_they_meet", "--param", change
    )
    assert fresh.returncode == 0 and "executed where_they_meet" in fresh.stderr, fresh.stderr
    assert (warm / page).read_bytes() == (cold / page).read_bytes()
    assert (warm / page).read_bytes() != (ROOT / page).read_bytes()  # the edit shows on the page
    for name in ("scorecard.json", "scorecard.csv"):
        assert (warm / page.parent / name).read_bytes() == (cold / page.parent / name).read_bytes()
