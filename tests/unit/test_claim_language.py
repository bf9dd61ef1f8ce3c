"""The claim language for what the book cannot have: a baseline in a round it holds no results
of, or one never published, is named on the card with the rounds the book holds, and the
published side is shown as context (the ratios between its sizes derived here from the rows the
test builds); and the table of contents gives each round its part, newest first."""

from __future__ import annotations

import pytest
import yaml

from claimbook import engine
from claimbook.claims.registry import RegistryError
from claimbook.engine.verdict import CANNOT_BE_CHECKED, SUPPORTED
from tests.helpers.enginekit import check, result, world


def rows():
    return [
        result("Acme", "one-node", "Offline", 1000.0, gpus=8),
        result("Acme", "four-node", "Offline", 3700.0, gpus=32, nodes=4),
        result("Acme", "eight-node", "Offline", 7000.0, gpus=64, nodes=8),
    ]


def unpublished(**fields) -> dict:
    return {
        "id": "acme-internal",
        "statement": "Four nodes give 3.9x an internal single node.",
        "kind": "not-checkable",
        "claimed": 3.9,
        "unit": "x",
        "reason": "The baseline is internal.",
        "evidence": {"organization": "Acme"},
        **fields,
    }


def test_a_baseline_never_published_is_named_and_the_published_sizes_are_context(tmp_path):
    data = world(
        tmp_path, rows(), [unpublished(missing={"published": False, "what": "Acme's internal node"})]
    )
    outcome = check(data, "acme-internal")
    assert outcome.verdict == CANNOT_BE_CHECKED
    assert outcome.reason.startswith("It needs Acme's internal node, which is not published")
    context = " ".join(outcome.context)
    # 3700 / 1000 and 7000 / 1000, each larger size against the smallest
    assert f"32 GPUs give {3700 / 1000:.2f}x" in context
    assert f"64 GPUs give {7000 / 1000:.2f}x the 8-GPU result" in context


def test_a_baseline_in_a_round_the_book_lacks_names_the_round_its_id_and_the_rounds_held(tmp_path):
    missing = {"round": "v5.0", "result_id": "5.0-0054", "what": "the v5.0 four-node result"}
    data = world(tmp_path, rows(), [unpublished(missing=missing)])
    outcome = check(data, "acme-internal")
    assert outcome.verdict == CANNOT_BE_CHECKED
    held = sorted(set(data.results["round"]))
    assert held == ["v6.1"]
    assert (
        "It needs the v5.0 four-node result (5.0-0054), a result of v5.0: the book holds no results "
        f"of v5.0, only of {held[0]}." in outcome.reason
    )


def test_a_round_the_book_holds_is_never_called_missing(tmp_path):
    data = world(tmp_path, rows(), [unpublished(missing={"round": "v6.1", "what": "a result of this round"})])
    problems = engine.audit(data.registry.claim("acme-internal"), data)
    assert problems and "the book holds the results of v6.1" in problems[0]


@pytest.mark.parametrize(
    ("missing", "words"),
    [
        ({"round": "v5.0"}, "what"),
        ({"what": "x"}, "either `round`"),
        ({"what": "x", "round": "v5.0", "published": False}, "either `round`"),
        ({"what": "x", "published": True}, "either `round`"),
        ({"what": "x", "published": False, "result_id": "5.0-1"}, "belongs to a `round`"),
        ({"what": "x", "round": "v5.0", "where": "y"}, "unknown key 'where'"),
    ],
)
def test_what_is_missing_must_be_said_one_way(tmp_path, missing, words):
    with pytest.raises(RegistryError, match="field missing") as raised:
        world(tmp_path, rows(), [unpublished(missing=missing)])
    assert words in str(raised.value)


def test_the_table_of_contents_gives_each_round_its_part_newest_first(tmp_path):
    from claimbook.engine import load_registry
    from claimbook.present.markdown_pages import toc

    folder = tmp_path / "claims"
    folder.mkdir()
    for name, round_name in (("old-v5.1", "v5.1"), ("new-v6.1", "v6.1"), ("other-v6.1", "v6.1")):
        header = {
            "id": name,
            "title": name,
            "publisher": "Acme",
            "claimant": "Acme",
            "vendor": "NVIDIA",
            "date": "2026-09-17",
            "round": round_name,
        }
        claim = {"id": f"{name}-a", "statement": "A claim.", "kind": "not-checkable", "reason": "None."}
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"announcement": header, "claims": [claim]}))
    (tmp_path / "chapters.yaml").write_text("{}\n")
    registry = load_registry(folder, tmp_path / "chapters.yaml")
    parts = yaml.safe_load(toc(registry, [], set(), []))["parts"]
    assert [part["caption"] for part in parts] == [
        "The v6.1 announcements",
        "The v5.1 announcements",
        "Method",
    ]
    assert [chapter["file"].rsplit("/", 1)[-1] for chapter in parts[0]["chapters"]] == sorted(
        ["new-v6.1", "other-v6.1"], key=list(registry.announcements).index
    )
    assert [chapter["file"].rsplit("/", 1)[-1] for chapter in parts[1]["chapters"]] == ["old-v5.1"]


def uncontested_rows():
    return [
        result("Acme", "box", "Offline", 500.0, model="gpt-oss-120b"),
        result("Beta", "rig", "Offline", 400.0, model="gpt-oss-120b"),
        result("Acme", "box", "Offline", 50.0, model="dlrm-v3", units="Samples/s"),
        result("Acme", "box", "Offline", 70.0, model="whisper", units="Samples/s"),
    ]


def record(claim_id: str, benchmarks: list[str]) -> dict:
    return {
        "id": claim_id,
        "statement": "Acme's box holds the record.",
        "kind": "leading",
        "metric": "result",
        "measures": ["whole-system"],
        "benchmark": benchmarks,
        "subject": {"organization": "Acme", "system": "box"},
        "field": {},
    }


def test_uncontested_cases_are_shown_and_never_decide_a_record(tmp_path):
    data = world(
        tmp_path, uncontested_rows(), [record("acme-record", ["gpt-oss-120b", "dlrm-v3", "whisper"])]
    )
    outcome = check(data, "acme-record")
    judged = [case for case in outcome.cases if case.reaches is not None]
    assert [case.measured for case in judged] == [500.0 / 400.0]  # the one contested benchmark
    assert outcome.verdict == SUPPORTED
    alone = [case.label for case in outcome.cases if case.detail.uncontested]
    assert len(alone) == 2
    assert f"Uncontested: no other submitter on {', '.join(alone)}." in outcome.notes


def test_a_part_with_only_uncontested_cases_does_not_decide_its_compound(tmp_path):
    claim = {
        "id": "acme-records",
        "statement": "Acme holds the records.",
        "kind": "compound",
        "parts": [
            record("acme-records.contested", ["gpt-oss-120b"]),
            record("acme-records.alone", ["dlrm-v3", "whisper"]),
        ],
    }
    data = world(tmp_path, uncontested_rows(), [claim])
    outcome = check(data, "acme-records")
    alone = next(part for part in outcome.parts if part.claim.id.endswith("alone"))
    assert alone.verdict == CANNOT_BE_CHECKED and alone.reason.startswith(
        "Uncontested: no other submitter on"
    )
    # the same cases as one claim above: supported on the contested one, the others shown
    assert outcome.verdict == SUPPORTED
    assert "alone (uncontested, not deciding): cannot be checked." in outcome.reason
    (tmp_path / "single").mkdir()
    single = world(tmp_path / "single", uncontested_rows(), [record("acme-alone", ["dlrm-v3"])])
    assert check(single, "acme-alone").verdict == CANNOT_BE_CHECKED  # every case uncontested


def test_a_first_in_the_earliest_round_held_says_it_cannot_search_further_back(tmp_path):
    first = {
        "id": "acme-first",
        "statement": "Acme's first results on gpt-oss-120b.",
        "kind": "presence",
        "rows": {"organization": "Acme", "benchmark": "gpt-oss-120b"},
        "history": True,
    }
    data = world(tmp_path, rows(), [first])
    assert data.earlier.empty or (data.earlier["round"] >= "v6.1").all()  # nothing before the round
    outcome = check(data, "acme-first")
    assert outcome.verdict == "supported with caveats" and "incomplete-data" in outcome.caveats
    assert (
        "The book holds no result of a round before v6.1, so it cannot search further back." in outcome.notes
    )
