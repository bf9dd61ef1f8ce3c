import json

import pytest

from claimbook.claims import load_registry
from claimbook.ledger import claim_ledger, decisive_row, ledger_markdown, verdict_counts
from conftest import ROOT


def test_decisive_row():
    rows = [
        {"measured": 1.8, "claimed": 3.7, "reaches_claim": False},
        {"measured": 3.74, "claimed": 3.7, "reaches_claim": True},
    ]
    assert decisive_row(rows)["measured"] == 3.74
    closest = [{"measured": 7.2, "claimed": 7.5, "reaches_claim": False}, {"measured": 2.0, "claimed": 7.5, "reaches_claim": False}]
    assert decisive_row(closest)["measured"] == 7.2
    assert decisive_row([{"measured": None, "claimed": 1, "verdict": "x"}])["verdict"] == "x"


def test_every_claim_has_a_verdict_in_the_committed_scorecard():
    registry = load_registry()
    rows = json.loads((ROOT / "book" / "scorecard.json").read_text())
    ledger = claim_ledger(rows, registry)
    assert list(ledger.claim) == [claim.id for claim in registry.claims]
    counts = verdict_counts(ledger)
    assert sum(counts.values()) == len(registry.claims)
    for claim_id in ("agentx-30x", "post-submission-gains", "nvlink-packet-rate"):
        assert ledger.set_index("claim").loc[claim_id, "verdict"] == "cannot be checked"


def test_a_claim_without_verdict_is_an_error():
    registry = load_registry()
    rows = json.loads((ROOT / "book" / "scorecard.json").read_text())
    with pytest.raises(ValueError, match="no verdict in the scorecard for claim.* rubin-dsr1-2.5x"):
        claim_ledger([row for row in rows if row["claim"] != "rubin-dsr1-2.5x"], registry)


def test_ledger_page_is_generated_and_escaped():
    registry = load_registry()
    rows = json.loads((ROOT / "book" / "scorecard.json").read_text())
    rows = [{**row, "reason": "<script>alert(1)</script>"} if row["claim"] == rows[0]["claim"] else row for row in rows]
    page = ledger_markdown(claim_ledger(rows, registry), {"rubin_speedup": "R"}, "v6.1", {"title": "<b>T</b>"})
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "&lt;b&gt;T&lt;/b&gt;" in page
    assert "{download}`CSV <scorecard.csv>`" in page
    assert 'href="https://github.com/mlcommons/inference_results_v6.1/tree/main/closed/NVIDIA/results/' in page


def test_committed_ledger_is_current():
    from claimbook.ledger import write_ledger
    import tempfile
    from pathlib import Path

    registry = load_registry()
    rows = json.loads((ROOT / "book" / "scorecard.json").read_text())
    with tempfile.TemporaryDirectory() as folder:
        path = write_ledger(rows, registry, "v6.1", Path(folder) / "ledger.md")
        assert path.read_text() == (ROOT / "book" / "ledger.md").read_text()
