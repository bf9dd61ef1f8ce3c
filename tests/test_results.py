import pytest
from summaries import summary_row, write_summary

from claimbook.ingest import ingest, write_tidy
from claimbook.results import ResultsError, SelectionError, best_per_scenario, load_results, select, select_one


@pytest.fixture
def small(tmp_path):
    rows = [
        summary_row(Organization="Acme", Scenario="Offline", Result="100"),
        summary_row(Organization="Acme", Scenario="Server", Result="80"),
        summary_row(Organization="Beta", Scenario="Offline", Result="120"),
        summary_row(Organization="Beta", Scenario="Server", Result="70"),
        summary_row(Organization="Acme", Scenario="SingleStream", Result="6.0", Units="Latency (s)", Model="wan"),
        summary_row(Organization="Beta", Scenario="SingleStream", Result="5.5", Units="Latency (s)", Model="wan"),
    ]
    path = write_tidy(ingest(write_summary(tmp_path / "s.csv", rows), "v6.1"), tmp_path / "tidy.csv")
    return load_results(path)


def test_select_by_several_criteria(small):
    rows = select(small, organization="Acme", model="deepseek-r1", scenario=["Offline", "Server"])
    assert sorted(rows["result"]) == [80.0, 100.0]


def test_missing_selection_names_what_was_asked_and_what_exists(small):
    with pytest.raises(SelectionError) as error:
        select(small, organization="Acme", model="deepseek-r1", system="VR-NVL72")
    message = str(error.value)
    assert "system='VR-NVL72'" in message
    assert "model='deepseek-r1', organization='Acme'" in message
    assert "GB300-NVL72_GB300-288GB_aarch64x72_TRT" in message


def test_ambiguous_selection_lists_the_candidates(small):
    with pytest.raises(SelectionError, match=r"2 results match .* expected one: \./closed/Acme/.*; \./closed/Beta/"):
        select_one(small, model="deepseek-r1", scenario="Offline")


def test_unknown_criterion_is_a_type_error(small):
    with pytest.raises(TypeError, match="cannot select on colour"):
        select(small, colour="green")


def test_best_per_scenario_respects_direction(small):
    best = best_per_scenario(small, ["Offline", "Server", "Interactive"], model="deepseek-r1")
    assert best["organization"].tolist() == ["Beta", "Acme"]  # Interactive has no result: left out
    latency = best_per_scenario(small, ["SingleStream"], model="wan")
    assert latency["result"].tolist() == [5.5]  # lower latency is better


def test_load_results_rejects_other_tables(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ResultsError, match="not a tidy results table, missing column"):
        load_results(other)
    with pytest.raises(ResultsError, match="no such results table"):
        load_results(tmp_path / "absent.csv")


def test_committed_table_round_trips(committed_results):
    assert committed_results["total_accelerators"].dtype == "int64"
    assert committed_results["higher_is_better"].dtype == bool
    assert committed_results["gpu_watts"].isna().any() and committed_results["gpu_watts"].notna().any()
