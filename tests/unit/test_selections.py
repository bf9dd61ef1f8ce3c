"""A claim always means the same results: names that survive a re-spelling, selections that are
explicit and recorded, drift that is loud, one rule for what is missing.

Every input here is derived from the committed tidy table (so the tests run on a fresh clone):
a copy that only re-spells one accelerator's name, one that publishes a system twice, one
without a system. Expected figures are recomputed here from the rows with plain arithmetic.
"""

from __future__ import annotations

import csv
import json

import pytest

from claimbook import engine
from claimbook.claims.selectors import missing, select
from claimbook.engine import drift, scorecard
from claimbook.engine.core import SelectionError
from claimbook.engine.touched import touched_claims
from claimbook.inputs.diff import diff_results, format_diff, result_changes
from claimbook.inputs.names import contains_name, squash
from claimbook.inputs.reference import load_reference
from tests.helpers.project import ROOT, SHARED_SUMMARY
from tests.helpers.selections import HETEROGENEOUS, RUBIN, data_of, duplicated, respelt, without_rubin

RUBIN_NAME = "NVIDIA Vera Rubin NVL72 (72x VR-288GB_aarch64)"
COMMITTED_CARD = ROOT / "book" / "generated" / "scorecard.json"
COMPARED = ("verdict", "measured", "claimed", "reaches_claim", "caveats", "evidence", "range")


# ---------------------------------------------------------------------------------------------
# Derived inputs
# ---------------------------------------------------------------------------------------------


def card_of(data) -> dict[tuple[str, str], dict]:
    rows = []
    for claim in data.registry.claims:
        rows += scorecard.rows_for(engine.check(claim, data), claim.chapter or claim.announcement)
    return {(row["claim"], row["scenario"]): row for row in scorecard.normalise(rows)}


@pytest.fixture(scope="module")
def committed_card():
    return card_of(data_of(None))


# ---------------------------------------------------------------------------------------------
# Names that survive a rename
# ---------------------------------------------------------------------------------------------


def test_names_ignore_case_spacing_and_punctuation():
    assert squash("Vera Rubin") == squash("VeraRubin") == squash("vera-rubin")
    for text in ("NVIDIA Vera Rubin", "NVIDIA VeraRubin", "nvidia vera-rubin", "NVIDIA VERA_RUBIN NVL72"):
        assert contains_name(text, "Vera Rubin"), text
    assert contains_name("NVIDIA B200-SXM-180GB", "B200")
    assert not contains_name("NVIDIA GB200", "B200")  # whole words only
    reference = load_reference(ROOT / "data" / "reference")
    for spelling in ("NVIDIA Vera Rubin", "NVIDIA VeraRubin", "nvidia vera-rubin", "NVIDIA VR200"):
        assert reference.family(spelling).name == "NVIDIA Vera Rubin", spelling
    assert reference.family("NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e").name == (
        "NVIDIA H200 + AMD MI350X"
    )
    assert reference.family("N/A").name == "CPU only"


def test_a_system_by_its_id_its_systemname_or_its_result_folder(committed_results):
    data = data_of(committed_results)
    rack = data.results[(data.results["organization"] == "NVIDIA") & (data.results["system"] == RUBIN)]
    assert len(rack) == 6
    for name in (
        RUBIN,
        RUBIN.lower().replace("_", " "),
        RUBIN_NAME,
        f"./closed/NVIDIA/results/{RUBIN}",
    ):
        chosen = select(data.results, {"organization": "nvidia", "system": name})
        assert sorted(chosen["location"]) == sorted(rack["location"]), name


@pytest.mark.skipif(not SHARED_SUMMARY.is_file(), reason="the official summary.csv (../shared) is not here")
def test_the_book_s_system_id_is_mlcommons_platform():
    """The book's id is the system's folder in Location, which is MLCommons' Platform, so a
    selector naming the Platform names the id."""
    with open(SHARED_SUMMARY, newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert rows
    for row in rows:
        assert row["Location"].split("/results/")[1].split("/")[0] == row["Platform"], row["Location"]


def test_a_failed_selection_names_the_field_that_emptied_it(committed_results):
    results = data_of(committed_results).results
    # Both values exist, not together: the organization is the wrong one (MI350P is Dell_AMD's).
    why = missing(results, {"organization": "Dell", "family": "AMD MI350P", "division": "closed"})
    assert why.field == "organization" and why.together and why.closest == ("Dell_AMD",), why
    # A name no result has: the closest real names.
    why = missing(results, {"organization": "NVIDA", "family": "NVIDIA Vera Rubin"})
    assert why.field == "organization" and "NVIDIA" in why.closest, why
    why = missing(results, {"family": "vera-rubin"})
    assert why.field == "family" and why.closest[0] == "NVIDIA Vera Rubin", why


def test_a_respelt_accelerator_leaves_every_verdict_and_figure_unchanged(committed_results, committed_card):
    card = card_of(data_of(respelt(committed_results)))
    assert set(card) == set(committed_card)
    for key, row in committed_card.items():
        for name in (*COMPARED, "selected"):
            assert card[key][name] == row[name], (key, name, row[name], card[key][name])
    if COMMITTED_CARD.is_file():  # and the committed book says the same
        for row in json.loads(COMMITTED_CARD.read_text(encoding="utf-8")):
            built = card[(row["claim"], row["scenario"])]
            assert built["verdict"] == row["verdict"] and built["measured"] == pytest.approx(row["measured"])


@pytest.mark.skipif(not SHARED_SUMMARY.is_file(), reason="the official summary.csv (../shared) is not here")
def test_the_official_file_respelt_in_three_text_columns_changes_nothing(tmp_path, committed_card):
    """The corrected file of the issue, rebuilt from the official one: "Vera Rubin" re-spelt in
    SystemName, accelerator_model_name and notes of NVIDIA's six rows, nothing else."""
    from claimbook.inputs.ingest import ingest

    with open(SHARED_SUMMARY, newline="", encoding="utf-8") as stream:
        reader = csv.DictReader(stream)
        header, rows = reader.fieldnames, list(reader)
    changed = 0
    for row in rows:
        if row["Organization"] == "NVIDIA" and "Vera Rubin" in row["accelerator_model_name"]:
            for column in ("SystemName", "accelerator_model_name", "notes"):
                row[column] = row[column].replace("Vera Rubin", "VeraRubin")
            changed += 1
    assert changed == 6
    respelt_file = tmp_path / "summary.csv"
    with open(respelt_file, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=header, quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
    card = card_of(data_of(ingest(respelt_file, "v6.1")))
    assert set(card) == set(committed_card)
    for key, row in committed_card.items():
        for name in (*COMPARED, "selected"):
            assert card[key][name] == row[name], (key, name)


def test_combine_each_gives_one_case_per_match(committed_results):
    """``combine: each``: every match is a case of its own, named by its system (and division)."""
    from dataclasses import replace

    data = data_of(committed_results)
    claim = data.registry.claim("amd-dlrm-vs-b200-v60.stated-figures")
    each = replace(claim, fields={**claim.fields, "subject": {**claim.fields["subject"], "combine": "each"}})
    check = engine.check(each, data)
    labels = [case.label for case in check.cases]
    assert labels == [
        "Server · AMD 8xMI355X_2xEPYC_9575F, closed",
        "Server · AMD 8xMI355X_2xEPYC_9575F, open",
        "Offline · AMD 8xMI355X_2xEPYC_9575F, closed",
        "Offline · AMD 8xMI355X_2xEPYC_9575F, open",
    ]
    rows = data.results[(data.results["organization"] == "AMD") & (data.results["benchmark"] == "dlrm-v3")]
    for case in check.cases:
        division = case.label.rsplit(", ", 1)[1]
        published = rows[
            (rows["system"] == "8xMI355X_2xEPYC_9575F")
            & (rows["scenario"] == case.scenario)
            & (rows["division"] == division)
        ]["result"]
        assert case.measured == pytest.approx(float(published.iloc[0]))
    # Only the published open-division figures are the stated ones: each reading is shown.
    assert [case.reaches for case in check.cases] == [False, True, False, True]
    assert check.verdict == "not supported"


def test_diff_reports_a_rename_and_the_claims_it_touches(committed_results):
    renamed = respelt(committed_results)
    registry = data_of(committed_results).registry
    touched = touched_claims(
        registry, load_reference(ROOT / "data" / "reference"), committed_results, renamed
    )
    table = diff_results(committed_results, renamed, touched=touched)
    assert len(table) == 6 and set(table["status"]) == {"changed"}
    assert set(table["fields"]) == {"system_name, accelerator"}
    claims = {name for cell in table["claims"] for name in cell.split(", ")}
    assert {"rubin-leading-debut", "rubin-frameworks", "rubin-qwen3vl-3.7x"} <= claims
    # Only the claims that read v6.1: a v5.1 claim selecting alike is no claim of these tables.
    of_v51 = {
        claim.id
        for claim in registry.all_claims()
        if registry.announcements[claim.announcement].round == "v5.1"
    }
    every = {name for ids in touched.values() for name in ids}
    assert of_v51 and not every & of_v51, sorted(every & of_v51)
    text = format_diff(table)
    assert "accelerator: 'NVIDIA Vera Rubin' -> 'NVIDIA VeraRubin' (6 results)" in text
    assert "rubin-leading-debut" in text.splitlines()[-1]
    said = result_changes(committed_results, renamed)
    assert said.startswith("0 results changed, 0 new, 0 removed; 6 more with other fields changed"), said


# ---------------------------------------------------------------------------------------------
# Every selection explicit: several matches are an error unless the claim says how they combine
# ---------------------------------------------------------------------------------------------


def test_a_system_published_twice_is_a_registry_error_naming_both(committed_results):
    data = data_of(duplicated(committed_results))
    claim = data.registry.claim("rubin-qwen3vl-3.7x")
    found = engine.audit(claim, data)
    assert found and "field subject" in found[0] and "claim rubin-qwen3vl-3.7x" in found[0]
    assert RUBIN in found[0] and RUBIN.replace("_TRT", "-TRT") in found[0] and "combine: best" in found[0]
    with pytest.raises(SelectionError):
        engine.check(claim, data)
    # A claim that says how several combine still checks: the best of the family, named.
    leading = engine.check(data.registry.claim("rubin-leading-debut"), data)
    assert leading.verdict == "supported with caveats"


# ---------------------------------------------------------------------------------------------
# Drift is loud
# ---------------------------------------------------------------------------------------------


def test_drift_names_each_claim_whose_subject_or_baseline_moved(committed_results, committed_card):
    moved = card_of(data_of(without_rubin(committed_results)))
    found = {item.claim: item for item in drift.compare(list(committed_card.values()), list(moved.values()))}
    # The rack's own claims lose their subject; the family claim's subject moves to Nebius's rack.
    assert {"rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x", "rubin-leading-debut"} <= set(found)
    assert found["rubin-leading-debut"].switched, found["rubin-leading-debut"]
    assert "Nebius VR200-NVL72_aarch64x36" in found["rubin-leading-debut"].text()
    assert not found["rubin-qwen3vl-3.7x"].switched
    # Other values of the same results are not drift.
    assert not drift.compare(list(committed_card.values()), list(committed_card.values()))


# ---------------------------------------------------------------------------------------------
# A heterogeneous cluster against the sum of its single-node results, written as YAML
# ---------------------------------------------------------------------------------------------


def test_a_selector_matching_both_single_nodes_is_refused(tmp_path):
    """The analyst's first try: one selector for both kinds of node, which the engine used to
    take as one node times four. Now a registry error that names the matches."""
    claims = tmp_path / "claims"
    claims.mkdir()
    text = (ROOT / "data" / "claims" / "amd-v6.1.yaml").read_text(encoding="utf-8").rstrip("\n")
    wrong = HETEROGENEOUS.split("    small:")[0] + (
        "    small: {organization: [Dell_MangoBoost, MangoBoost], nodes: 1, family: [AMD MI355X, AMD MI300X]}\n"
    )
    (claims / "amd-v6.1.yaml").write_text(text + "\n" + wrong, encoding="utf-8")
    data = data_of(None, registry_dir=str(claims))
    found = engine.audit(data.registry.claim("dell-mangoboost-heterogeneous-scaling"), data)
    assert found and "field small" in found[0], found
    for system in ("XE9785 ", "XE9785L", "8xMI300X_2xEPYC_9534"):
        assert system in found[0], found[0]
