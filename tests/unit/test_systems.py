"""``claimbook systems``: the systems a search picks, counted again from the tidy table with the
csv module (not through the selectors the command uses), and each printed selector picking its
system's rows and no others."""

from __future__ import annotations

import csv

import pytest
import yaml

from claimbook.claims.selectors import select
from claimbook.inputs.reference import annotate, load_reference
from claimbook.inputs.results import load_results
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT

TABLE = ROOT / "data" / "mlperf" / "v6.1.csv"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    with TABLE.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


@pytest.fixture(scope="module")
def results():
    return annotate(load_results(TABLE), load_reference(ROOT / "data" / "reference"))


def _printed(*args) -> list[tuple[dict, str]]:
    """The systems a run prints: (selector, the rest of the line)."""
    done = in_process("systems", *args)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    printed = []
    for line in lines:
        selector, _, rest = line.partition("  # ")
        printed.append((yaml.safe_load(selector), rest))
    return printed


def _keys(printed) -> set[tuple[str, str, str]]:
    return {(s["organization"], s["system"], s.get("division", "closed")) for s, _ in printed}


def _expected(rows, keep) -> set[tuple[str, str, str]]:
    return {(row["organization"], row["system"], row["division"]) for row in rows if keep(row)}


def test_an_organization_lists_every_system_it_submitted(rows):
    printed = _printed("--organization", "amd")  # names match whatever their case
    assert _keys(printed) == _expected(rows, lambda row: row["organization"] == "AMD")
    assert len(printed) >= 3


def test_family_benchmark_and_gpu_range_together(rows):
    printed = _printed("--family", "AMD MI355X", "--benchmark", "gpt-oss-120b", "--gpus", "72-1000")
    expected = _expected(
        rows,
        lambda row: (
            "MI355X" in row["accelerator"]
            and "MI300X" not in row["accelerator"]
            and row["model"] == "gpt-oss-120b"
            and int(row["total_accelerators"]) >= 72
        ),
    )
    assert _keys(printed) == expected and expected


def test_scenario_division_and_exact_gpus(rows):
    printed = _printed("--scenario", "SingleStream", "--gpus", "8", "--division", "closed")
    expected = _expected(
        rows,
        lambda row: (
            row["scenario"] == "SingleStream"
            and row["total_accelerators"] == "8"
            and row["division"] == "closed"
        ),
    )
    assert _keys(printed) == expected and expected


def test_an_open_division_system_says_so_in_its_selector(rows):
    printed = _printed("--division", "open")
    expected = _expected(rows, lambda row: row["division"] == "open")
    assert _keys(printed) == expected and expected
    assert all(selector["division"] == "open" for selector, _ in printed)


def test_each_selector_picks_its_system_and_no_other(rows, results):
    for selector, rest in _printed("--vendor", "AMD"):
        picked = select(results, {"division": "closed", **selector})
        counted = [
            row
            for row in rows
            if row["organization"] == selector["organization"]
            and row["system"] == selector["system"]
            and row["division"] == selector.get("division", "closed")
        ]
        assert len(picked) == len(counted) > 0, selector
        assert f"{counted[0]['total_accelerators']} GPU" in rest


def test_a_search_that_finds_nothing_names_the_closest_values():
    done = in_process("systems", "--family", "MI355")
    assert done.returncode == 1 and done.stdout == ""
    assert "no system matches" in done.stderr and "AMD MI355X" in done.stderr


def test_a_bad_gpu_count_is_one_line():
    done = in_process("systems", "--gpus", "eight")
    one_error_line(done, "--gpus", code=2)


def test_systems_searches_the_newest_round_the_book_holds_and_names_it(tmp_path):
    """An analyst drafting the next round's announcement looks up its systems: without --round,
    the newest round the book holds, named where nothing matches."""
    import pandas as pd

    from tests.helpers.clirun import in_copy
    from tests.helpers.project import project_copy

    copy = project_copy(tmp_path / "project")
    table = pd.read_csv(copy / "data" / "mlperf" / "v6.1.csv", dtype=str, keep_default_na=False)
    table["round"] = "v9.9"
    table.loc[0, "organization"] = "Newco"
    table.loc[0, "location"] = table.loc[0, "location"].replace(
        f"/{table.loc[1, 'organization']}/", "/Newco/", 1
    )  # (a Location names its organization's folder)
    table.to_csv(copy / "data" / "mlperf" / "v9.9.csv", index=False)
    found = in_copy(copy, "systems", "--organization", "Newco")
    assert found.returncode == 0 and "Newco" in found.stdout, found.stderr
    none = in_copy(copy, "systems", "--organization", "Nobody")
    assert none.returncode == 1
    assert "no system matches in v9.9: " in none.stderr and "(v5.1, v6.1)" in none.stderr, none.stderr


@pytest.mark.parametrize("round_name", ["v5.1", "v6.1"])
def test_results_that_lack_a_system_of_the_book_s_own_round_miss_a_result_not_a_typo(tmp_path, round_name):
    """Results given for a round (``--results``) that lack a system a claim names, which the
    book's own table of that round has: the claims still check (that claim's cases find nothing),
    where every check of the book stopped on "unknown system"."""
    from claimbook.engine import load_registry
    from tests.helpers.summaries import summary_from_tidy

    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    table = load_results(ROOT / "data" / "mlperf" / f"{round_name}.csv")
    claims = [c for c in registry.all_claims() if registry.announcements[c.announcement].round == round_name]
    named = {
        str(selector["system"])
        for claim in claims
        for selector in claim.fields.values()
        if isinstance(selector, dict) and isinstance(selector.get("system"), str)
    }
    system = min(named & set(table["system"]))
    summary = summary_from_tidy(table[table["system"] != system], tmp_path / "summary.csv")
    other = next(claim.id for claim in claims if system not in str(claim.fields) and not claim.parts)
    done = in_process("check", "--results", summary, other)
    assert done.returncode == 0, done.stderr
    assert "unknown system" not in done.stderr
