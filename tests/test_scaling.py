import pytest
from summaries import rack, tidy_from_rows

from claimbook.scaling import check_scaling, comparison_sets, leader, scaling_efficiency, scaling_pairs
from claimbook.verdict import NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS


def test_scaling_efficiency():
    assert scaling_efficiency(400.0, 288, 100.0, 72) == 1.0
    assert scaling_efficiency(396.0, 288, 100.0, 72) == pytest.approx(0.99)
    with pytest.raises(ValueError):
        scaling_efficiency(1.0, 0, 1.0, 72)


@pytest.fixture
def field(tmp_path):
    return tidy_from_rows(
        tmp_path,
        [
            rack("Acme", 72, "Offline", 100.0),
            rack("Acme", 288, "Offline", 398.0),
            rack("Acme", 72, "Server", 80.0),
            rack("Acme", 288, "Server", 240.0),
            rack("Beta", 72, "Offline", 50.0),
            rack("Beta", 288, "Offline", 190.0),  # 95%
            rack("Gamma", 4, "Offline", 10.0),
            rack("Gamma", 8, "Offline", 21.0),  # 105%, within one node... no: 2 nodes
            rack("Solo", 8, "Offline", 10.0),  # no partner: no pair
            rack("Acme", 72, "SingleStream", 5.0, Units="Latency (s)", Model="wan"),
            rack("Acme", 288, "SingleStream", 4.0, Units="Latency (s)", Model="wan"),  # latency: never a pair
        ],
    )


def test_pair_search_finds_every_pair_and_nothing_else(field):
    pairs = scaling_pairs(field)
    assert sorted(zip(pairs.organization, pairs.scenario, pairs.small_gpus, pairs.large_gpus)) == [
        ("Acme", "Offline", 72, 288), ("Acme", "Server", 72, 288), ("Beta", "Offline", 72, 288), ("Gamma", "Offline", 4, 8),
    ]
    assert pairs.set_index(["organization", "scenario"]).loc[("Acme", "Server"), "efficiency"] == pytest.approx(0.75)


def test_no_pair_gives_an_empty_table_with_columns(field):
    pairs = scaling_pairs(field[field.organization == "Solo"])
    assert pairs.empty and "efficiency" in pairs.columns
    assert leader(pairs) is None


def test_comparison_sets(field):
    sets = comparison_sets(scaling_pairs(field), rack_gpus=72)
    beyond, scale_out = sets.values()
    assert set(beyond.organization) == {"Acme", "Beta"}
    assert set(scale_out.organization) == {"Acme", "Beta", "Gamma"}


def check(field, **overrides):
    arguments = dict(
        organization="Acme", model="deepseek-r1", small_system="GB300_x72", large_system="GB300_x288",
        claimed_percent=99, claim_scenario="Offline", rack_gpus=72,
    )
    return check_scaling(field, **{**arguments, **overrides})


def test_efficiency_and_leading_verdicts(field):
    result = check(field)
    assert result.efficiency_verdict.verdict == SUPPORTED_WITH_CAVEATS  # 99.5%; Server 75% is a caveat
    assert "In Server the same configurations reach 75.0%" in result.efficiency_verdict.text()
    # Leads Beta beyond one rack, but Gamma's 4->8 scale-out is 105%.
    assert result.leading_verdict.verdict == SUPPORTED_WITH_CAVEATS
    assert "Gamma" in result.leading_verdict.text()


def test_leading_without_rivals_anywhere(field):
    alone = field[field.organization == "Acme"]
    result = check(alone)
    assert result.leading_verdict.verdict == "cannot be checked"


def test_changed_result_changes_both_verdicts(field):
    slower = field.copy()
    slower.loc[(slower.organization == "Acme") & (slower.total_accelerators == 288) & (slower.scenario == "Offline"), "result"] = 360.0
    result = check(slower)
    assert result.efficiency_verdict.verdict == NOT_SUPPORTED  # 90%
    assert result.leading_verdict.verdict == NOT_SUPPORTED  # Beta's 95% and Gamma's 105% lead


def test_only_scenario_without_caveats(field):
    result = check(field[field.scenario == "Offline"])
    assert result.efficiency_verdict.verdict == SUPPORTED


def test_missing_pair_names_what_exists(field):
    with pytest.raises(LookupError, match="no scaling pair of Acme deepseek-r1 from GB300_x72 to GB300_x999"):
        check(field, large_system="GB300_x999")


def test_committed_data_independent_recomputation(committed_results):
    rows = committed_results[(committed_results.organization == "NVIDIA") & (committed_results.model == "deepseek-r1")]
    one = rows[rows.system == "GB300-NVL72_GB300-288GB_aarch64x72_TRT"].set_index("scenario").result
    four = rows[rows.system == "GB300-NVL72_GB300-288GB_aarch64x288_TRT"].set_index("scenario").result
    result = check(
        committed_results, organization="NVIDIA", small_system="GB300-NVL72_GB300-288GB_aarch64x72_TRT",
        large_system="GB300-NVL72_GB300-288GB_aarch64x288_TRT",
    )
    for item in result.pairs.itertuples():
        assert item.efficiency == pytest.approx(four[item.scenario] / one[item.scenario] / 4, rel=1e-12)
    assert result.efficiency_verdict.verdict == SUPPORTED_WITH_CAVEATS
