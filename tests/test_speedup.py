import pytest

from claimbook.claims import load_registry
from claimbook.results import SelectionError
from claimbook.speedup import check_speedup, scorecard_rows, spread_table
from claimbook.verdict import NOT_SUPPORTED, SUPPORTED_WITH_CAVEATS

RUBIN = load_registry().chapter_parameters("rubin_speedup")


def rubin_check(results, claim_id, **overrides):
    claim = RUBIN["claims"][claim_id]
    arguments = {
        name: RUBIN[name]
        for name in ("organization", "new_system", "baseline_system", "baseline_accelerator", "baseline_gpus", "scenarios", "division", "tolerance")
    }
    arguments.update(overrides)
    return check_speedup(results, claim_id=claim_id, model=claim["benchmark"], claimed=claim["claimed"], **arguments)


def independent_ratio(results, model, scenario):
    """The ratio straight from the tidy rows, without the package's selection or comparison."""
    def result(system):
        rows = results[
            (results.organization == "NVIDIA") & (results.system == system)
            & (results.model == model) & (results.scenario == scenario)
        ]
        assert len(rows) == 1
        return float(rows.result.iloc[0])

    return result(RUBIN["new_system"]) / result(RUBIN["baseline_system"])


@pytest.mark.parametrize("claim_id", ["rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x"])
def test_every_scenario_matches_an_independent_recomputation(committed_results, claim_id):
    check = rubin_check(committed_results, claim_id)
    assert check.ratios["scenario"].tolist() == ["Offline", "Server", "Interactive"]
    for item in check.ratios.itertuples():
        assert item.ratio == pytest.approx(independent_ratio(committed_results, check.model, item.scenario), rel=1e-12)
    assert len(check.evidence) == 6


def test_published_verdicts_and_their_reasons(committed_results):
    qwen = rubin_check(committed_results, "rubin-qwen3vl-3.7x")
    assert qwen.verdict.verdict == SUPPORTED_WITH_CAVEATS
    assert "(Interactive)" in qwen.verdict.reason
    assert any("preview" in caveat for caveat in qwen.verdict.caveats)
    assert any(caveat.startswith("Only Interactive reaches 3.7x") for caveat in qwen.verdict.caveats)


def test_changing_a_result_changes_the_verdict(committed_results):
    changed = committed_results.copy()
    interactive = (changed.system == RUBIN["new_system"]) & (changed.model == "qwen3-vl-235b-a22b") & (changed.scenario == "Interactive")
    changed.loc[interactive, "result"] = changed.loc[interactive, "result"] * 0.5
    check = rubin_check(changed, "rubin-qwen3vl-3.7x")
    assert check.verdict.verdict == NOT_SUPPORTED
    assert check.ratios.set_index("scenario").loc["Interactive", "ratio"] == pytest.approx(
        0.5 * independent_ratio(committed_results, "qwen3-vl-235b-a22b", "Interactive")
    )


def test_best_baseline_by_any_submitter_is_compared_too(committed_results):
    check = rubin_check(committed_results, "rubin-dsr1-2.5x")
    best = check.ratios_best_any.set_index("scenario")
    own = check.ratios.set_index("scenario")
    assert (best["ratio"] <= own["ratio"] + 1e-12).all()  # the best GB300 rack is at least as fast as NVIDIA's own
    assert best.loc["Interactive", "baseline_organization"] == "Azure"


def test_missing_system_is_a_selection_error(committed_results):
    with pytest.raises(SelectionError, match="no result with system='VR-NVL144'"):
        rubin_check(committed_results, "rubin-dsr1-2.5x", new_system="VR-NVL144")


def test_scorecard_rows_and_spread(committed_results):
    checks = [rubin_check(committed_results, claim_id) for claim_id in RUBIN["claims"]]
    rows = [row for check in checks for row in scorecard_rows(check, "rubin_speedup")]
    assert len(rows) == 6
    assert {row["verdict"] for row in rows} == {SUPPORTED_WITH_CAVEATS}
    assert sum(row["reaches_claim"] for row in rows) == 2
    assert all(" vs ./closed/NVIDIA/results/GB300" in row["evidence"] for row in rows)
    spread = spread_table(checks)
    assert list(spread["claim"].unique()) == list(RUBIN["claims"])
    assert spread["best_any_submitter"].notna().all()
