"""Generic tests: every claim of every registry, the project's own and any an analyst adds, with no
code per claim. Each reads the committed book (its scorecard, pages and ledger) and the registry:

- every claim has scorecard rows, one verdict, and a verdict its figures and caveats agree with;
- a claim made of parts is as strong as its weakest core part;
- its page exists, carries its verdict, lists every result its cases cite and names the round;
- the ledger and its announcement's page show it.

``claimbook check`` equals the page for every claim (``test_check``), and nbval re-runs every
executed page (``make test``). A test copying the project with a new registry runs these on it
(``test_new_registry``).
"""

from __future__ import annotations

import json
import re

import pytest

from claimbook.engine import SPECS, load_registry
from claimbook.engine.verdict import (
    CANNOT_BE_CHECKED,
    NOT_SUPPORTED,
    SUPPORTED,
    SUPPORTED_WITH_CAVEATS,
    VERDICTS,
)
from tests.helpers.project import ROOT

GENERATED = ROOT / "book" / "generated"
ROWS = json.loads((GENERATED / "scorecard.json").read_text(encoding="utf-8"))
REGISTRY = load_registry()
CLAIMS = [claim.id for claim in REGISTRY.all_claims()]
TOP = [claim.id for claim in REGISTRY.claims]
# Caveats that label a figure (ours, a stated wattage) and never qualify a verdict.
LABEL_ONLY = {"derived-metric", "board-power-spec"}


def rows_of(claim_id: str) -> list[dict]:
    return [row for row in ROWS if row["claim"] == claim_id]


def qualifying(row: dict) -> set[str]:
    """The caveats that qualify a verdict: not a label, not one the claim itself states."""
    return set(row["caveats"]) - set(row["acknowledged"]) - LABEL_ONLY


def test_every_claim_of_every_registry_is_in_the_scorecard():
    assert {row["claim"] for row in ROWS} == set(CLAIMS)


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_the_verdict_agrees_with_the_figures_and_the_caveats(claim_id):
    claim, rows = REGISTRY.claim(claim_id), rows_of(claim_id)
    verdicts = {row["verdict"] for row in rows}
    assert len(verdicts) == 1 and verdicts <= set(VERDICTS), verdicts
    verdict = verdicts.pop()
    if claim.parts:
        return  # its parts' verdicts decide it: the next test
    for row in rows:  # a case judged against the claim has a figure to judge
        assert row["reaches_claim"] is None or row["measured"] is not None, row["scenario"]
    deciding = [row["reaches_claim"] for row in rows if row["deciding"]] or [
        row["reaches_claim"] for row in rows
    ]
    caveats = qualifying(rows[0])
    if verdict == SUPPORTED:
        assert all(reach is True for reach in deciding) and not caveats, (deciding, caveats)
    elif verdict == SUPPORTED_WITH_CAVEATS:
        assert caveats and any(row["reaches_claim"] for row in rows), (deciding, caveats)
    elif verdict == NOT_SUPPORTED:
        assert False in deciding, deciding
    else:
        assert True not in deciding, deciding
    if not SPECS[claim.kind].checked:  # a kind that records a claim without checking it
        assert verdict == CANNOT_BE_CHECKED


STRENGTH = (NOT_SUPPORTED, CANNOT_BE_CHECKED, SUPPORTED_WITH_CAVEATS, SUPPORTED)  # weakest first


@pytest.mark.parametrize("claim_id", [claim.id for claim in REGISTRY.all_claims() if claim.parts])
def test_a_claim_of_parts_is_as_strong_as_its_weakest_core_part(claim_id):
    claim = REGISTRY.claim(claim_id)
    core = [rows_of(part.id)[0]["verdict"] for part in claim.parts if part.get("role", "core") == "core"]
    details = [rows_of(part.id)[0]["verdict"] for part in claim.parts if part.get("role", "core") == "detail"]
    expected = min(core, key=STRENGTH.index) if core else CANNOT_BE_CHECKED
    if expected == SUPPORTED and any(verdict in (NOT_SUPPORTED, CANNOT_BE_CHECKED) for verdict in details):
        expected = SUPPORTED_WITH_CAVEATS
    assert rows_of(claim_id)[0]["verdict"] == expected


def page_of(claim) -> str | None:
    """The text of the executed page a claim is shown on (its chapter's, or its own), if any."""
    path = GENERATED / (
        f"{claim.chapter}.ipynb" if claim.chapter else f"{claim.announcement}/{claim.id}.ipynb"
    )
    return path.read_text(encoding="utf-8") if path.is_file() else None


@pytest.mark.parametrize("claim_id", TOP)
def test_the_page_shows_the_claim_its_verdict_and_cites_every_result_used(claim_id):
    claim = REGISTRY.claim(claim_id)
    own = [row for row in ROWS if claim_id in (row["claim"], row["part_of"])]
    announcement = REGISTRY.announcements[claim.announcement]
    ledger = (GENERATED / "front.md").read_text(encoding="utf-8")
    entry = ledger.split(f'id="ledger-{claim_id}"')
    assert len(entry) == 2, "the ledger shows each claim once"
    assert f'data-verdict="{own[0]["verdict"]}"' in entry[1][:400]
    assert claim_id in (GENERATED / f"{claim.announcement}.md").read_text(encoding="utf-8")
    evidence = {text for row in own for text in (row["evidence"] or "").split("; ") if text}
    page = page_of(claim)
    if page is None:
        assert not evidence, f"{claim_id} cites results but has no page"
        return
    assert own[0]["verdict"] in page
    for location in evidence:
        assert location.lstrip("./") in page, location
    if evidence:
        round_number = re.escape(announcement.round.lstrip("v"))
        assert re.search(rf"MLPerf® Inference v{round_number}, (Closed|Open)", page), (
            "no citation of the round"
        )


def _tidy_by_location() -> dict[str, dict[str, dict]]:
    """Each round's results by Location (one Location may name a result in two rounds)."""
    import csv

    found = {}
    for path in sorted((ROOT / "data" / "mlperf").glob("v*.csv")):
        with open(path, newline="", encoding="utf-8") as stream:
            found[path.stem] = {row["location"]: row for row in csv.DictReader(stream)}
    return found


TIDY = _tidy_by_location()


def _cited(location: str, round_name: str) -> dict | None:
    """The result a row cites: of the claim's own round, else of the one other round that has it."""
    if location in TIDY.get(round_name, {}):
        return TIDY[round_name][location]
    others = [rows[location] for rows in TIDY.values() if location in rows]
    return others[0] if len(others) == 1 else None


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_a_row_s_division_and_availability_describe_every_result_it_cites(claim_id):
    """The scorecard says of each row the divisions and availabilities of its results: of every
    result its evidence lists, none left out (a count cited a preview result while its row said
    "available" only)."""
    round_name = REGISTRY.announcements[REGISTRY.claim(claim_id).announcement].round
    for row in rows_of(claim_id):
        locations = [location for text in (row["evidence"] or "").split("; ") for location in text.split(" + ")]
        cited = [result for location in locations if (result := _cited(location, round_name))]
        assert {result["division"] for result in cited} <= set(row["division"]), row["scenario"]
        assert {result["availability"] for result in cited} <= set(row["availability"]), row["scenario"]
