import pytest
from summaries import summary_row, tidy_from_rows

from claimbook.baselines import judge_unnamed_baseline, single_node_candidates, systems_matching
from claimbook.figures import baseline_scorecard_row, check_figure, check_gains_over_single_node, figure_scorecard_row
from claimbook.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS

WAN = "wan-2.2-t2v-a14b"


def video(organization, system, gpus, nodes, offline=None, latency=None):
    rows = []
    common = dict(Organization=organization, system=system, Model=WAN, number_of_nodes=str(nodes),
                  accelerators_per_node=str(gpus // nodes), total_accelerators=str(gpus))
    if offline is not None:
        rows.append(summary_row(Scenario="Offline", Result=str(offline), Units="Samples/s", **common))
    if latency is not None:
        rows.append(summary_row(Scenario="SingleStream", Result=str(latency), Units="Latency (s)", **common))
    return rows


@pytest.fixture
def wan(tmp_path):
    return tidy_from_rows(
        tmp_path,
        video("Acme", "Rack72", 72, 18, offline=0.66, latency=5.81)
        + video("Acme", "Node8", 8, 1, offline=0.0733, latency=20.0)  # 9.0x throughput, 3.44x latency
        + video("Beta", "Node8", 8, 1, offline=0.05, latency=43.6)  # 13.2x, 7.50x
        + video("Beta", "Rack72b", 72, 18, offline=0.5, latency=5.73)  # multi-node: not a candidate
        + video("Gamma", "OnlyLatency", 4, 1, latency=30.0),
    )


def figures(wan):
    kwargs = dict(organization="Acme", system="Rack72", model=WAN)
    return (
        check_figure(wan, claim_id="tp", scenario="Offline", claimed=0.65, unit="samples/s", **kwargs),
        check_figure(wan, claim_id="lat", scenario="SingleStream", claimed=5.7, unit="s", **kwargs),
    )


def test_figures_and_whose_they_are(wan):
    throughput, latency = figures(wan)
    assert throughput.verdict.verdict == NOT_SUPPORTED  # 0.66 is not 0.65
    assert latency.verdict.verdict == NOT_SUPPORTED
    assert "instead the published result of Beta Rack72b (5.73 s)" in latency.verdict.text()
    assert list(systems_matching(wan, WAN, "SingleStream", 5.7)["system"]) == ["Rack72b"]


def test_a_matching_figure_is_supported_and_notes_others(wan):
    changed = wan.copy()
    changed.loc[(changed.system == "Rack72") & (changed.scenario == "SingleStream"), "result"] = 5.74
    _, latency = figures(changed)
    assert latency.verdict.verdict == SUPPORTED
    assert "also the published result of Beta Rack72b" in latency.verdict.text()
    assert figure_scorecard_row(latency, "wan")["reaches_claim"]


def test_candidates_are_every_single_node_with_both_ratios(wan):
    throughput, latency = figures(wan)
    candidates = single_node_candidates(
        wan, model=WAN, throughput_scenario="Offline", latency_scenario="SingleStream",
        system_throughput=throughput.row["result"], system_latency=latency.row["result"], exclude=("Acme", "Rack72"),
    )
    assert sorted(zip(candidates.organization, candidates.system)) == [("Acme", "Node8"), ("Beta", "Node8"), ("Gamma", "OnlyLatency")]
    gamma = candidates.set_index("organization").loc["Gamma"]
    assert gamma.throughput_ratio != gamma.throughput_ratio  # NaN: no Offline result
    assert gamma.latency_ratio == pytest.approx(30.0 / 5.81)


def test_gains_search_reports_reproducing_and_closest(wan):
    throughput, latency = figures(wan)
    candidates, tp_gain, lat_gain = check_gains_over_single_node(
        wan, throughput=throughput, latency=latency, model=WAN, division="closed",
        throughput_claim=("9x", 9.0), latency_claim=("7.5x", 7.5),
    )
    assert tp_gain.verdict.verdict == SUPPORTED_WITH_CAVEATS
    assert list(tp_gain.reproducing.organization) == ["Acme"]
    assert lat_gain.verdict.verdict == SUPPORTED_WITH_CAVEATS
    assert list(lat_gain.reproducing.organization) == ["Beta"]
    assert "No single node reproduces both gains at once" in tp_gain.verdict.text()
    row = baseline_scorecard_row(lat_gain, "SingleStream", "wan")
    assert row["measured"] == pytest.approx(43.6 / 5.81) and "Beta Node8" in row["evidence"]


def test_no_candidate_reproduces(wan):
    candidates = single_node_candidates(
        wan, model=WAN, throughput_scenario="Offline", latency_scenario="SingleStream",
        system_throughput=0.66, system_latency=5.81,
    )
    verdict, reproducing, closest = judge_unnamed_baseline(candidates, "throughput_ratio", 20.0, "the gain")
    assert verdict.verdict == NOT_SUPPORTED and reproducing.empty
    assert closest["organization"] == "Beta"  # 13.2x is nearest 20x


def test_no_baseline_at_all(wan):
    racks_only = wan[wan.nodes > 1]
    candidates = single_node_candidates(
        racks_only, model=WAN, throughput_scenario="Offline", latency_scenario="SingleStream",
        system_throughput=0.66, system_latency=5.81,
    )
    assert candidates.empty
    verdict, reproducing, closest = judge_unnamed_baseline(candidates, "throughput_ratio", 9.0, "the gain")
    assert verdict.verdict == CANNOT_BE_CHECKED and closest is None


def test_committed_wan_figures(committed_results):
    rows = committed_results[(committed_results.model == WAN) & (committed_results.organization == "NVIDIA")
                             & (committed_results.system == "GB300-NVL72_GB300-288GB_aarch64x72_TRT")].set_index("scenario")
    kwargs = dict(organization="NVIDIA", system="GB300-NVL72_GB300-288GB_aarch64x72_TRT", model=WAN)
    latency = check_figure(committed_results, claim_id="lat", scenario="SingleStream", claimed=5.7, unit="s", **kwargs)
    assert latency.row["result"] == rows.loc["SingleStream", "result"]
    assert latency.verdict.verdict == NOT_SUPPORTED  # 5.81 s is not 5.7 s
