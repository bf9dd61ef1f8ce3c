import json

import pytest

from claimbook import scorecard
from claimbook.claims import load_registry
from conftest import ROOT

ROW = {"claim": "c", "chapter": "ch", "scenario": "Offline", "claimed": 2.5, "measured": float("nan"), "unit": "x", "verdict": "supported", "evidence": "./closed/x"}


def test_normalise_fills_columns_and_cleans_numbers():
    (row,) = scorecard.normalise([ROW])
    assert list(row) == list(scorecard.COLUMNS)
    assert row["measured"] is None and row["reason"] is None


def test_rows_must_be_complete_and_in_the_vocabulary():
    with pytest.raises(scorecard.ScorecardError, match="missing evidence"):
        scorecard.normalise([{key: value for key, value in ROW.items() if key != "evidence"}])
    with pytest.raises(scorecard.ScorecardError, match="unknown verdict 'probably'"):
        scorecard.normalise([{**ROW, "verdict": "probably"}])


def test_uncheckable_claims_carry_their_reason():
    rows = scorecard.uncheckable_rows(load_registry())
    assert {row["claim"] for row in rows} >= {"agentx-30x", "post-submission-gains", "nvlink-packet-rate"}
    assert all(row["verdict"] == "cannot be checked" and row["reason"] for row in rows)


def test_write_gives_the_same_rows_as_json_and_csv(tmp_path):
    json_path, csv_path = scorecard.write([ROW, {**ROW, "scenario": "Server", "measured": 2.6}], tmp_path)
    assert [row["scenario"] for row in json.loads(json_path.read_text())] == ["Offline", "Server"]
    assert csv_path.read_text().splitlines()[0].split(",")[:4] == ["claim", "chapter", "scenario", "claimed"]


def test_committed_scorecard_is_what_the_executed_chapters_recorded():
    collected = scorecard.collect(ROOT / "book" / "claims" / "rubin_speedup.ipynb")
    committed = json.loads((ROOT / "book" / "scorecard.json").read_text())
    assert committed[: len(collected)] == json.loads(json.dumps(collected))
    assert {row["claim"] for row in collected} == {"rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x"}


def test_publish_records_rows_under_the_book_mime_type(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    published = []
    shell.display_pub.publish = lambda data, **kwargs: published.append(data)
    scorecard.publish([ROW])
    assert published[0][scorecard.MIME_TYPE][0]["claim"] == "c"
    assert "text/plain" in published[0]
