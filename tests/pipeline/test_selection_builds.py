"""Selections through real builds: a round with a system published twice, without one, re-spelt,
or missing a claim's items, built with ``--results``; a heterogeneous cluster's claim written as
YAML in a copy of the project, built, and its figures recomputed from the published rows with
the csv module."""

from __future__ import annotations

import csv
import json

import pytest

from claimbook import engine
from claimbook.engine import scorecard
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT, SHARED_SUMMARY, project_copy, run_copy
from tests.helpers.selections import (
    CLUSTER,
    HETEROGENEOUS,
    MI300X_NODE,
    MI355X_NODE,
    data_of,
    duplicated,
    respelt,
    without_rubin,
)
from tests.helpers.summaries import summary_from_tidy


def test_the_duplicated_system_build_stops_with_exit_2(tmp_path, committed_results):
    summary = summary_from_tidy(duplicated(committed_results), tmp_path / "summary.csv")
    done = in_process(
        "build", "--no-html", "--only", "rubin-leading-debut", "--results", summary, "--out", tmp_path / "out"
    )
    one_error_line(done, "field subject", "match in", code=2, among_others=True)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_subject_never_moves_to_another_organization(tmp_path, committed_results):
    summary = summary_from_tidy(without_rubin(committed_results), tmp_path / "summary.csv")
    out = tmp_path / "out"
    done = in_process(
        "build", "--no-html", "--only", "rubin-leading-debut", "--results", summary, "--out", out
    )
    one_error_line(done, "another organization's system", code=1, among_others=True)
    assert "drift: 1 claim(s)" in done.stderr and "Nebius VR200-NVL72_aarch64x36" in done.stderr
    assert not (out / "book").exists(), "a refused build wrote the book"


def test_missing_items_are_cannot_be_checked_and_listed_at_once(tmp_path, committed_results):
    """Both items of rubin-frameworks lose their results: the claim is cannot be checked (not
    "not supported"), both items are named in one build, and --strict makes it exit 1."""
    table = committed_results[~committed_results["accelerator"].str.contains("Rubin|VR200")]
    data = data_of(table)
    check = engine.check(data.registry.claim("rubin-frameworks"), data)
    assert check.verdict == "cannot be checked" and len(check.missing) == 2
    assert all(case.reaches is None for case in check.cases)
    summary = summary_from_tidy(table, tmp_path / "summary.csv")
    done = in_process(
        "build", "--no-html", "--only", "rubin-frameworks", "--results", summary, "--out", tmp_path / "a"
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: page")]
    assert len(warnings) == 2 and all("claim rubin-frameworks cannot be checked" in line for line in warnings)
    assert {
        "--param rubin-frameworks.items.0.family=NAME",
        "--param rubin-frameworks.items.1.family=NAME",
    } <= {"--param " + line.split("--param ", 1)[1].split()[0] for line in warnings}, warnings
    rows = json.loads((tmp_path / "a" / "book" / "generated" / "scorecard.json").read_text())
    assert {row["verdict"] for row in rows if row["claim"] == "rubin-frameworks"} == {"cannot be checked"}
    ledger = (tmp_path / "a" / "book" / "generated" / "front.md").read_text(encoding="utf-8")
    assert 'data-verdict="cannot be checked"' in ledger.split('id="ledger-rubin-frameworks"')[1][:300]
    strict = in_process(
        "build",
        "--no-html",
        "--strict",
        "--only",
        "rubin-frameworks",
        "--results",
        summary,
        "--out",
        tmp_path / "b",
    )
    assert strict.returncode == 1 and "--strict" in strict.stderr, strict.stderr


def test_a_respelt_file_builds_strictly_without_drift(tmp_path, committed_results):
    summary = summary_from_tidy(respelt(committed_results), tmp_path / "summary.csv")
    out = tmp_path / "out"
    done = in_process(
        "build",
        "--no-html",
        "--strict",
        "--only",
        "rubin-leading-debut",
        "--only",
        "rubin-frameworks",
        "--results",
        summary,
        "--out",
        out,
    )
    assert done.returncode == 0, done.stderr
    assert "drift" not in done.stderr and "warning: page" not in done.stderr, done.stderr
    rows = json.loads((out / "book" / "generated" / "scorecard.json").read_text())
    assert {row["verdict"] for row in rows} == {"supported with caveats"}
    subjects = {
        scorecard.parse_selection(text)["organization"]
        for row in rows
        if row["claim"] == "rubin-leading-debut"
        for text in row["selected"]
        if text.startswith("subject")
    }
    assert subjects == {"NVIDIA", "Nebius"}  # the best Vera Rubin result of each case, as committed


RAW_COLUMNS = {  # field -> (column of the official summary, column of the committed tidy table)
    "organization": ("Organization", "organization"),
    "model": ("Model", "model"),
    "scenario": ("Scenario", "scenario"),
    "division": ("Division", "division"),
    "result": ("Result", "result"),
    "gpus": ("total_accelerators", "total_accelerators"),
    "location": ("Location", "location"),
}


def raw_rows() -> list[dict]:
    """The published rows, read with the csv module: the official summary where it is here,
    else the committed tidy table (the same numbers)."""
    official = SHARED_SUMMARY.is_file()
    path = SHARED_SUMMARY if official else ROOT / "data" / "mlperf" / "v6.1.csv"
    with open(path, newline="", encoding="utf-8") as stream:
        rows = [
            {field: row[names[0 if official else 1]] for field, names in RAW_COLUMNS.items()}
            for row in csv.DictReader(stream)
        ]
    for row in rows:  # the system is its folder in Location
        row.update(system=row["location"].split("/results/")[1].split("/")[0], result=float(row["result"]))
        row["gpus"] = int(row["gpus"])
    return rows


def expected_efficiency(scenario: str) -> float:
    """100 x cluster result / (2 x MI355X node + 2 x MI300X node), GPUs equal (32 = 2x8 + 2x8)."""

    def one(organization, system):
        found = [
            row
            for row in raw_rows()
            if (row["organization"], row["system"], row["model"], row["scenario"], row["division"])
            == (organization, system, "gpt-oss-120b", scenario, "closed")
        ]
        assert len(found) == 1, (organization, system, scenario, found)
        return found[0]

    cluster, big, old = one("Dell_MangoBoost", CLUSTER), one(*MI355X_NODE), one(*MI300X_NODE)
    assert cluster["gpus"] == 2 * big["gpus"] + 2 * old["gpus"] == 32
    return 100.0 * cluster["result"] / (2 * big["result"] + 2 * old["result"])


def test_the_heterogeneous_cluster_claim_written_as_yaml(tmp_path):
    offline, server = expected_efficiency("Offline"), expected_efficiency("Server")
    assert round(offline, 1) == 97.0 and round(server, 1) == 93.9  # the figures computed by hand
    project = project_copy(tmp_path / "project")
    registry = project / "data" / "claims" / "amd-v6.1.yaml"
    registry.write_text(
        registry.read_text(encoding="utf-8").rstrip("\n") + "\n" + HETEROGENEOUS, encoding="utf-8"
    )
    out = tmp_path / "out"
    done = run_copy(
        project, "build", "--no-html", "--out", out, "--only", "dell-mangoboost-heterogeneous-scaling"
    )
    assert done.returncode == 0, done.stderr
    rows = {
        row["scenario"]: row
        for row in json.loads((out / "book" / "generated" / "scorecard.json").read_text())
    }
    assert rows["Offline"]["measured"] == pytest.approx(offline, rel=1e-9)
    assert rows["Server"]["measured"] == pytest.approx(server, rel=1e-9)
    assert rows["Offline"]["verdict"] == "supported"  # 97.0% is the claimed 97; 93.9% rounds to 94
    assert any(
        text.startswith(f"small ×2 | {MI355X_NODE[0]} | {MI355X_NODE[1]} | ")
        for text in rows["Server"]["selected"]
    )
    assert any(
        text.startswith(f"small ×2 | {MI300X_NODE[0]} | {MI300X_NODE[1]} | ")
        for text in rows["Server"]["selected"]
    )
    assert any(
        text.startswith(f"large | Dell_MangoBoost | {CLUSTER} | ") for text in rows["Server"]["selected"]
    )
