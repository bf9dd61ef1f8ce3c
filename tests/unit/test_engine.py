"""The editorial standard, one test per rule, on small worlds made through the real ingest."""

from pathlib import Path

import pytest

from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS
from tests.helpers.enginekit import check, result, world


def ratio_claim(**fields):
    return {
        "id": "fast",
        "statement": "Acme is faster.",
        "kind": "ratio",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "new"},
        "baseline": {"organization": "Acme", "system": "old"},
        **fields,
    }


def two_systems(new=(300.0, 200.0, 100.0), old=(100.0, 100.0, 100.0), **extra):
    rows = []
    for scenario, value in zip(("Offline", "Server", "Interactive"), new):
        rows.append(result("Acme", "new", scenario, value, **extra))
    for scenario, value in zip(("Offline", "Server", "Interactive"), old):
        rows.append(result("Acme", "old", scenario, value))
    return rows


# -- "up to" is judged on the best case; the range and the deciding case are shown ------------
def test_up_to_is_judged_on_the_best_case_and_shows_the_spread(tmp_path):
    data = world(tmp_path, two_systems(), [ratio_claim(form="figure", quantifier="up-to", claimed=3)])
    result_ = check(data, "fast")
    assert result_.verdict == SUPPORTED_WITH_CAVEATS
    assert "best-case-only" in result_.caveats
    assert result_.deciding == "Offline"
    assert result_.measured_range() == "1–3x, deciding: Offline"


def test_up_to_not_reached_is_not_supported(tmp_path):
    data = world(
        tmp_path,
        two_systems(new=(240.0, 200.0, 150.0)),
        [ratio_claim(form="figure", quantifier="up-to", claimed=3)],
    )
    assert check(data, "fast").verdict == NOT_SUPPORTED


# -- a stated figure holds at the precision it is stated with ------------------------------------
@pytest.mark.parametrize(
    "measured, claimed, verdict",
    [
        (374.0, 3.7, SUPPORTED),  # 3.74 rounds to 3.7
        (257.0, 2.5, SUPPORTED),  # 2.57 truncates to 2.5
        (381.0, 3.7, SUPPORTED_WITH_CAVEATS),  # the data show more: the claim understates
        (350.0, 3.7, NOT_SUPPORTED),
    ],
)
def test_up_to_figures_match_at_their_precision(tmp_path, measured, claimed, verdict):
    data = world(
        tmp_path,
        two_systems(new=(measured, 10.0, 10.0), old=(100.0, 100.0, 100.0)),
        [ratio_claim(form="figure", quantifier="up-to", claimed=claimed, scenarios=["Offline"])],
    )
    assert check(data, "fast").verdict == verdict


def _video_figure(unit: str) -> dict:
    """Acme's rack at 5.7 (in ``unit``) per video, WAN 2.2 SingleStream: a figure claim."""
    return {
        "id": "figure",
        "statement": f"5.7 {unit} per video.",
        "kind": "figure",
        "benchmark": "wan-2.2-t2v-a14b",
        "subject": {"organization": "Acme", "system": "rack"},
        "scenarios": ["SingleStream"],
        "claimed": 5.7,
        "unit": unit,
    }


def test_a_stated_figure_off_by_more_than_its_precision_gives_the_signed_gap(tmp_path):
    rows = [result("Acme", "rack", "SingleStream", 5.81, model="wan-2.2-t2v-a14b", units="Latency (s)")]
    result_ = check(world(tmp_path, rows, [_video_figure("s")]), "figure")
    assert result_.verdict == NOT_SUPPORTED
    assert "1.9% below it, in the claimant's favour" in result_.reason


@pytest.mark.parametrize(
    "unit, units, holds",
    [
        ("s", "Latency (s)", True),
        ("videos/s", "Samples/s", True),  # a claim words its rate as it likes
        ("ms", "Latency (s)", False),  # a thousandth of the figure
        ("ms", "Tokens/s", False),  # a duration against a throughput
        ("tokens/s", "Latency (s)", False),  # a rate against a latency
    ],
)
def test_a_stated_figure_in_a_unit_its_result_cannot_be_in_is_not_measured(tmp_path, unit, units, holds):
    """The figure and the result agree in every case; only the claim's unit differs, and a unit
    that cannot be the result's leaves the case unmeasured, saying both units."""
    rows = [result("Acme", "rack", "SingleStream", 5.7, model="wan-2.2-t2v-a14b", units=units)]
    result_ = check(world(tmp_path, rows, [_video_figure(unit)]), "figure")
    if holds:
        assert result_.verdict == SUPPORTED
    else:
        assert result_.verdict == CANNOT_BE_CHECKED and result_.cases[0].measured is None
        said = f"the claim states its figure in {unit}, the published result is in {units}"
        assert (
            said in result_.cases[0].detail.note
            and f"No case is measured: SingleStream: {said}." in result_.reason
        )


def test_a_tolerance_decides_the_verdict_and_every_case_alike(tmp_path):
    from claimbook.engine import scorecard

    data = world(
        tmp_path,
        two_systems(new=(374.0, 190.0, 180.0)),
        [ratio_claim(form="figure", quantifier="up-to", claimed=3.7, tolerance=0.55)],
    )
    result_ = check(data, "fast")
    rows = scorecard.rows_for(result_, "test")
    assert all(row["reaches_claim"] for row in rows)  # 1.9x is within 55% of 3.7x: every case reaches it
    assert "best-case-only" not in result_.caveats and result_.verdict == SUPPORTED


# -- an unnamed baseline is read the natural way; rivals never support a claim ----------------------
def single_node_world(tmp_path, own_throughput, own_latency):
    rows = [
        result(
            "Acme",
            "rack",
            "Offline",
            0.9,
            gpus=72,
            nodes=18,
            model="wan-2.2-t2v-a14b",
            units="Samples/s",
            accelerator="NVIDIA GB300",
        ),
        result(
            "Acme",
            "rack",
            "SingleStream",
            6.0,
            gpus=72,
            nodes=18,
            model="wan-2.2-t2v-a14b",
            units="Latency (s)",
            accelerator="NVIDIA GB300",
        ),
        result("Acme", "node", "Offline", own_throughput, model="wan-2.2-t2v-a14b", units="Samples/s"),
        result("Acme", "node", "SingleStream", own_latency, model="wan-2.2-t2v-a14b", units="Latency (s)"),
        result(
            "Rival",
            "node",
            "Offline",
            0.1,
            model="wan-2.2-t2v-a14b",
            units="Samples/s",
            accelerator="AMD Instinct MI355X 288GB HBM3e",
        ),
        result(
            "Rival",
            "node",
            "SingleStream",
            45.0,
            model="wan-2.2-t2v-a14b",
            units="Latency (s)",
            accelerator="AMD Instinct MI355X 288GB HBM3e",
        ),
    ]
    common = {
        "kind": "unnamed-baseline",
        "benchmark": "wan-2.2-t2v-a14b",
        "subject": {"organization": "Acme", "system": "rack"},
        "candidates": {"nodes": 1},
        "sentence": "one-node",
        "measure": "whole-system",
    }
    claims = [
        {"id": "throughput-9x", "statement": "9x a node.", "scenario": "Offline", "claimed": 9, **common},
        {
            "id": "latency-7.5x",
            "statement": "7.5x lower latency.",
            "scenario": "SingleStream",
            "claimed": 7.5,
            **common,
        },
    ]
    return world(tmp_path, rows, claims)


def test_an_unnamed_baseline_is_the_claimants_own_system_first(tmp_path):
    data = single_node_world(
        tmp_path, own_throughput=0.1, own_latency=45.0
    )  # the own node gives both 9x and 7.5x
    for claim_id in ("throughput-9x", "latency-7.5x"):
        result_ = check(data, claim_id)
        assert result_.verdict == SUPPORTED_WITH_CAVEATS and "unnamed-baseline" in result_.caveats
        assert "Acme node" in result_.reason


def test_a_match_only_among_rivals_never_supports_a_claim(tmp_path):
    data = single_node_world(
        tmp_path, own_throughput=0.3, own_latency=18.0
    )  # own node: 3x and 3x; the rival: 9x and 7.5x
    for claim_id in ("throughput-9x", "latency-7.5x"):
        result_ = check(data, claim_id)
        assert result_.verdict == NOT_SUPPORTED
        assert any("Rivals' systems that give" in note for note in result_.notes)
        assert any("never supports a claim" in note for note in result_.notes)


def test_the_figures_of_one_sentence_are_judged_against_one_baseline(tmp_path):
    data = single_node_world(tmp_path, own_throughput=0.1, own_latency=18.0)
    throughput, latency = check(data, "throughput-9x"), check(data, "latency-7.5x")
    assert throughput.cases[0].detail.baseline == latency.cases[0].detail.baseline
    assert (throughput.verdict, latency.verdict) == (SUPPORTED_WITH_CAVEATS, NOT_SUPPORTED)


# -- scaling above linear is flagged and never leads ----------------------------------------------
def test_pairs_above_linear_never_lead(tmp_path):
    rows = [
        result("Acme", "one", "Offline", 100.0, gpus=72, nodes=18, accelerator="NVIDIA GB300"),
        result("Acme", "four", "Offline", 396.0, gpus=288, nodes=72, accelerator="NVIDIA GB300"),
        result("Other", "small", "Offline", 10.0, gpus=4, nodes=1, accelerator="NVIDIA GB300"),
        result(
            "Other", "big", "Offline", 300.0, gpus=72, nodes=18, accelerator="NVIDIA GB300"
        ),  # 167%: a weak small one
    ]
    claim = {
        "id": "leading",
        "statement": "Leading scaling.",
        "kind": "leading",
        "metric": "efficiency",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "subject": {"organization": "Acme"},
        "small": {"organization": "Acme", "system": "one"},
        "large": {"organization": "Acme", "system": "four"},
        "definitions": [{"label": "any scale-out", "scale_out": True}],
    }
    result_ = check(world(tmp_path, rows, [claim]), "leading")
    assert result_.verdict == CANNOT_BE_CHECKED  # the only rival is above linear, so there is no rival left
    assert "superlinear-baseline" in result_.caveats


def _pair_claim(**extra) -> dict:
    """Acme's scaling claim of 100% from its system "small" to "big" on gpt-oss-120b Offline."""
    return {
        "id": "scaling",
        "statement": "Scales.",
        "kind": "scaling",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "claimed": 100,
        "small": {"organization": "Acme", "system": "small"},
        "large": {"organization": "Acme", "system": "big"},
        **extra,
    }


def test_a_scaling_claim_flags_its_own_pair_above_linear(tmp_path):
    rows = [
        result("Acme", "small", "Offline", 10.0, gpus=4, accelerator="NVIDIA GB300"),
        result("Acme", "big", "Offline", 200.0, gpus=72, nodes=18, accelerator="NVIDIA GB300"),
    ]
    result_ = check(world(tmp_path, rows, [_pair_claim()]), "scaling")
    assert "superlinear-baseline" in result_.caveats and result_.verdict == SUPPORTED_WITH_CAVEATS


def test_a_scaling_pair_is_of_one_suite(tmp_path):
    """MLPerf's datacenter and edge suites are separate benchmarks: one submitter's edge result on
    one GPU and datacenter results on two and four GPUs make one pair, of the datacenter ones."""
    from claimbook.engine.efficiency import scaling_pairs

    rows = [
        result("Acme", "desk", "Offline", 10.0, gpus=1, SystemType="edge"),
        result("Acme", "pair", "Offline", 150.0, gpus=2, SystemType="datacenter"),
        result("Acme", "quad", "Offline", 290.0, gpus=4, SystemType="datacenter"),
    ]
    pairs = scaling_pairs(world(tmp_path, rows, [_pair_claim()]).results)
    assert list(zip(pairs["small_system"], pairs["large_system"])) == [("pair", "quad")]
    assert pairs["efficiency"].tolist() == [pytest.approx(290.0 / 150.0 / 2)]


@pytest.mark.parametrize(
    "models, small_units, large_units, said",
    [
        # Two units of one model and scenario are refused as the results are read; two spellings
        # of one benchmark's model are not one model, so each may be in a unit of its own.
        (("llama3.1-8b", "llama3_1-8b"), "Tokens/s", "Samples/s", "different units (Tokens/s and Samples/s)"),
        (("gpt-oss-120b",) * 2, "Latency (ms)", "Latency (ms)", "a latency (Latency (ms)), not a throughput"),
    ],
)
def test_a_scaling_pair_of_unlike_results_gives_no_efficiency(
    tmp_path, models, small_units, large_units, said
):
    """An efficiency is of two throughputs in one unit: a pair whose results are not (a results
    file edited, or a latency) is unmeasured and says why, never "supported" on the figures."""
    small, large = models
    rows = [
        result(
            "Acme",
            "small",
            "Offline",
            10.0,
            gpus=8,
            accelerator="NVIDIA GB300",
            units=small_units,
            model=small,
        ),
        result(
            "Acme",
            "big",
            "Offline",
            90.0,
            gpus=72,
            nodes=9,
            accelerator="NVIDIA GB300",
            units=large_units,
            model=large,
        ),
    ]
    from claimbook.engine.efficiency import scaling_pairs

    benchmark = "llama3.1-8b" if small.startswith("llama") else small
    data = world(tmp_path, rows, [_pair_claim(quantifier="up-to", benchmark=benchmark)])
    result_ = check(data, "scaling")
    assert result_.verdict == CANNOT_BE_CHECKED
    assert said in result_.reason and result_.reason.startswith("In Offline the ")
    assert scaling_pairs(data.results).empty  # nor a pair of the field's (leading efficiency)
    (case,) = [case for case in result_.cases if case.scenario == "Offline"]
    assert case.measured is None and said in case.detail.note


@pytest.mark.parametrize(
    "kind, fields",
    [
        ("scaling", {"scenarios": ["Offline"], "small": {"system": "small"}, "large": {"system": "big"}}),
        ("round-gain", {"subject": {"system": "big"}, "from_round": "v6.0"}),
        ("figure", {"scenarios": ["Offline"], "subject": {"system": "big"}}),
    ],
)
def test_a_figure_for_a_scenario_the_claim_does_not_name_is_a_registry_error(tmp_path, kind, fields):
    """{Offline: 94.9, Batch: 94.6}: the second figure would never be read, and the claim judged
    on the first alone; the registry names it instead."""
    from claimbook.claims.registry import RegistryError

    claim = {
        "id": "two-figures",
        "statement": "Two figures.",
        "kind": kind,
        "benchmark": "gpt-oss-120b",
        "claimed": {"Offline": 94.9, "Batch": 94.6},
        **fields,
    }
    rows = [result("Acme", "big", "Offline", 10.0)]
    with pytest.raises(
        RegistryError, match="field claimed: figures for scenarios the claim does not name: Batch"
    ):
        world(tmp_path, rows, [claim])


@pytest.mark.parametrize("from_round", ["v6.1", "v7.0"])
def test_a_gain_from_a_round_not_before_the_claims_own_is_a_registry_error(tmp_path, from_round):
    """No figure of such a round can be earlier than the claim's: the registry says so before a
    build, rather than the card saying no result was found."""
    from claimbook.engine import audit

    claim = {
        "id": "gain",
        "statement": "A gain.",
        "kind": "round-gain",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "big"},
        "from_round": from_round,
        "claimed": 1.5,
    }
    data = world(tmp_path, [result("Acme", "big", "Offline", 10.0)], [claim])
    (found,) = audit(data.registry.claim("gain"), data)
    assert found.endswith(
        f"claim gain: field from_round: {from_round} is not a round before the claim's own (v6.1); "
        "a gain is from an earlier round"
    )
    earlier = {**claim, "from_round": "v6.0"}
    data = world(tmp_path, [result("Acme", "big", "Offline", 10.0)], [earlier])
    assert audit(data.registry.claim("gain"), data) == []


# -- a mismatch in a detail the claim names rules out plain "supported" -----------------------------
def test_a_detail_mismatch_rules_out_plain_supported(tmp_path):
    rows = [
        result(
            "Acme",
            "edge",
            "SingleStream",
            1.5,
            gpus=1,
            model="qwen3.6-27b",
            units="Latency (s)",
            framework="TensorRT 10.16",
        )
    ]
    claim = {
        "id": "edge",
        "statement": "Edge results with Edge-LLM.",
        "kind": "presence",
        "rows": {"organization": "Acme", "benchmark": "qwen3.6-27b"},
        "detail": {"framework": "Edge-LLM"},
    }
    result_ = check(world(tmp_path, rows, [claim]), "edge")
    assert result_.verdict == SUPPORTED_WITH_CAVEATS and "detail-mismatch" in result_.caveats


# -- compound claims are split; the claim is as strong as its weakest part --------------------------
def test_a_compound_claim_is_as_strong_as_its_weakest_part(tmp_path):
    rows = two_systems()
    claim = {
        "id": "both",
        "statement": "Faster and cheaper.",
        "kind": "compound",
        "parts": [
            {
                **ratio_claim(form="figure", quantifier="up-to", claimed=3, scenarios=["Offline"]),
                "id": "both.faster",
                "statement": "Faster.",
            },
            {"id": "both.cheaper", "statement": "Cheaper.", "kind": "not-checkable", "reason": "No prices."},
        ],
    }
    result_ = check(world(tmp_path, rows, [claim]), "both")
    assert [part.verdict for part in result_.parts] == [SUPPORTED, CANNOT_BE_CHECKED]
    assert result_.verdict == CANNOT_BE_CHECKED


# -- caveats come from the rows used, never typed ---------------------------------------------------
def test_caveats_are_computed_from_the_rows_used(tmp_path):
    rows = two_systems(new=(300.0, 300.0, 300.0), Availability="preview", Division="open", inferred="1")
    rows = [  # both sides Open: a comparison within one division (each Location an Open folder)
        {**row, "Division": "open", "Location": row["Location"].replace("./closed/", "./open/", 1)}
        for row in rows
    ]
    result_ = check(
        world(tmp_path, rows, [ratio_claim(form="figure", quantifier="up-to", claimed=3, division="any")]),
        "fast",
    )
    assert {"preview", "open-division", "inferred"} <= set(result_.caveats)
    assert result_.verdict == SUPPORTED_WITH_CAVEATS
    assert any("preview category" in note for note in result_.notes)


def test_a_caveat_the_claim_states_is_shown_but_not_held_against_it(tmp_path):
    rows = two_systems(new=(300.0, 300.0, 300.0), Availability="preview")
    result_ = check(
        world(
            tmp_path,
            rows,
            [ratio_claim(form="figure", quantifier="up-to", claimed=3, acknowledges=["preview"])],
        ),
        "fast",
    )
    assert "preview" in result_.caveats and result_.acknowledged == ("preview",)
    assert result_.verdict == SUPPORTED


def test_a_comparison_of_different_sizes_says_so(tmp_path):
    from claimbook.engine.core import SizeError

    rows = [
        result("Acme", "new", "Offline", 300.0, gpus=16, nodes=2),
        result("Acme", "old", "Offline", 100.0),
    ]
    unsaid = ratio_claim(form="figure", quantifier="up-to", claimed=3)
    with pytest.raises(
        SizeError,
        match=r"field measure: the two sides differ in size in gpt-oss-120b Offline \(Acme new \(16 GPUs\) against Acme old \(8 GPUs\)\)",
    ):
        check(world(tmp_path, rows, [unsaid]), "fast")
    (tmp_path / "said").mkdir()
    whole = check(world(tmp_path / "said", rows, [{**unsaid, "measure": "whole-system"}]), "fast")
    assert "different-size" in whole.caveats and whole.cases[0].measured == pytest.approx(3.0)
    assert any(
        note.startswith("Per GPU, beside the whole systems") and "1.50x" in note for note in whole.context
    )
    (tmp_path / "per-gpu").mkdir()
    per_gpu = check(world(tmp_path / "per-gpu", rows, [{**unsaid, "measure": "per-gpu"}]), "fast")
    assert per_gpu.cases[0].measured == pytest.approx(1.5) and per_gpu.verdict == NOT_SUPPORTED


# -- a comparison is checked as stated and against the best rival result by anyone -----------------
def rival_rows(partner_best: float):
    amd = "AMD Instinct MI355X 288GB HBM3e"
    return [
        result("Acme", "mi", "Offline", 120.0, accelerator=amd),
        result("NVIDIA", "own", "Offline", 100.0),
        result("Partner", "fast", "Offline", partner_best),
    ]


@pytest.mark.parametrize("partner_best, flagged", [(110.0, False), (125.0, True)])
def test_the_rivals_own_result_then_the_best_by_anyone(tmp_path, partner_best, flagged):
    claim = {
        "id": "lead",
        "statement": "Ahead of B300.",
        "kind": "ratio",
        "form": "lead",
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "mi"},
        "baseline": {"family": "NVIDIA B300", "gpus": 8},
        "prefer": {"organization": "NVIDIA"},
    }
    data = world(tmp_path, rival_rows(partner_best), [claim], {"vendor": "AMD"})
    result_ = check(data, "lead")
    assert result_.cases[0].detail.baseline.startswith("NVIDIA own")
    assert result_.cases[0].measured == pytest.approx(20.0)
    assert ("not-best-rival" in result_.caveats) is flagged


def test_the_best_partner_stands_in_when_the_rival_has_no_result(tmp_path):
    rows = [
        result("Acme", "mi", "Offline", 120.0, accelerator="AMD Instinct MI355X 288GB HBM3e"),
        result("Partner", "a", "Offline", 90.0),
        result("Partner", "b", "Offline", 100.0),
    ]
    claim = {
        "id": "lead",
        "statement": "Ahead of B300.",
        "kind": "ratio",
        "form": "lead",
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "mi"},
        "baseline": {"family": "NVIDIA B300", "gpus": 8},
        "prefer": {"organization": "NVIDIA"},
    }
    result_ = check(world(tmp_path, rows, [claim], {"vendor": "AMD"}), "lead")
    assert result_.cases[0].detail.baseline_chosen == "best partner"
    assert result_.cases[0].detail.baseline.startswith("Partner b")


def test_a_tie_uses_the_claims_own_definition(tmp_path):
    rows = [
        result("Acme", "mi", "Offline", 102.0, accelerator="AMD Instinct MI355X 288GB HBM3e"),
        result("Acme", "mi", "Server", 96.0, accelerator="AMD Instinct MI355X 288GB HBM3e"),
        result("NVIDIA", "own", "Offline", 100.0),
        result("NVIDIA", "own", "Server", 100.0),
    ]
    claim = {
        "id": "ties",
        "statement": "Ties.",
        "kind": "ratio",
        "form": "outcomes",
        "tie_within": 3,
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "mi"},
        "baseline": [{"label": "B300", "family": "NVIDIA B300", "gpus": 8}],
        "outcomes": {"B300": {"Offline": "tie", "Server": "tie"}},
    }
    result_ = check(world(tmp_path, rows, [claim], {"vendor": "AMD"}), "ties")
    assert result_.verdict == NOT_SUPPORTED  # Server is 4% behind: a trail, not a tie
    assert "B300 · Server -4.0% against NVIDIA own (8 GPUs): trail, claimed tie" in result_.reason


# -- what a selection does not find is said, with the closest names -----------------------------
def test_a_missing_system_cannot_be_checked_and_names_the_closest(tmp_path):
    data = world(
        tmp_path,
        two_systems(),
        [
            ratio_claim(
                form="figure",
                quantifier="up-to",
                claimed=3,
                subject={"organization": "Acme", "system": "neww"},
            )
        ],
    )
    result_ = check(data, "fast")
    assert result_.verdict == CANNOT_BE_CHECKED
    assert "system='neww'" in result_.reason and "new" in result_.missing[0]


# -- counts and presences -----------------------------------------------------------------------
def test_a_partner_counts_through_its_strongest_results(tmp_path):
    rows = [result("Alpha", "x", "Offline", 1.0), result("Beta", "y", "Offline", 1.0, Division="open")]
    claim = {
        "id": "partners",
        "statement": "Two partners.",
        "kind": "presence",
        "count": "organization",
        "claimed": 2,
        "division": "any",
        "rows": {"vendor": "NVIDIA"},
        "named": {"Alpha Inc": "Alpha", "Beta Ltd": "Beta"},
    }
    result_ = check(world(tmp_path, rows, [claim]), "partners")
    assert result_.verdict == SUPPORTED_WITH_CAVEATS and result_.caveats == ("open-division",)
    assert any("Open-division results used: Beta y (8 GPUs, NVIDIA B300)" in note for note in result_.notes)


def test_a_count_that_depends_on_a_definition_says_so(tmp_path):
    rows = [result("Alpha", "x", "Offline", 1.0, nodes=2, gpus=8), result("Beta", "y", "Offline", 1.0)]
    claim = {
        "id": "multi",
        "statement": "Two multi-node partners.",
        "kind": "presence",
        "count": "organization",
        "claimed": 2,
        "rows": {"nodes": {"min": 2}},
        "named": ["Alpha", "Beta"],
        "definitions": [{"label": "more than one node", "nodes": {"min": 2}}, {"label": "any size"}],
    }
    result_ = check(world(tmp_path, rows, [claim]), "multi")
    assert result_.verdict == NOT_SUPPORTED and "definition-dependent" in result_.caveats
    assert any("only if one counts any size" in note for note in result_.notes)


def gain_claim(claimed: float, **stated) -> dict:
    """A round gain on gpt-oss-120b Offline against a v6.0 figure of 100 the announcement states."""
    return {
        "id": "gain",
        "statement": f"{claimed:g}% faster than v6.0.",
        "kind": "round-gain",
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "from_round": "v6.0",
        "claimed": {"Offline": claimed},
        "subject": {"organization": "Acme", "system": "node"},
        "stated": {"round": "v6.0", "figures": {"Offline": 100.0}, "gpus": 8, "units": "Tokens/s", **stated},
    }


def test_a_vendor_figure_of_an_earlier_round_is_weaker_evidence(tmp_path):
    rows = [result("Acme", "node", "Offline", 128.0)]
    claim = gain_claim(28)
    result_ = check(world(tmp_path, rows, [claim]), "gain")
    assert result_.verdict == SUPPORTED_WITH_CAVEATS and "vendor-source" in result_.caveats
    assert result_.cases[0].measured == pytest.approx(28.0)


# -- judgment rules (book/method.md, "Judgment rules") ----------------------------------------------
def test_a_compound_claim_follows_its_core_and_a_detail_is_a_caveat(tmp_path):
    rows = two_systems()
    faster = {
        **ratio_claim(form="figure", quantifier="up-to", claimed=3, scenarios=["Offline"]),
        "id": "both.faster",
    }
    claim = {
        "id": "both",
        "statement": "Faster, in our fifth round.",
        "kind": "compound",
        "decision": "The speed is the claim; the round count is a detail.",
        "parts": [
            {**faster, "statement": "Faster."},
            {
                "id": "both.fifth",
                "statement": "Fifth round.",
                "kind": "not-checkable",
                "reason": "No rounds.",
                "role": "detail",
            },
        ],
    }
    result_ = check(world(tmp_path, rows, [claim]), "both")
    assert [part.verdict for part in result_.parts] == [SUPPORTED, CANNOT_BE_CHECKED]
    assert result_.verdict == SUPPORTED_WITH_CAVEATS and "detail-unsettled" in result_.caveats
    from claimbook.present import blocks

    card = blocks.card(result_)
    assert (
        "A detail:" in card and "Why the book decided so:" in card and "the round count is a detail" in card
    )
    # the core still decides: a core part that fails fails the claim, whatever its details do
    slower = {**faster, "claimed": 4}
    claim["parts"][0] = {**slower, "statement": "Faster."}
    (tmp_path / "again").mkdir()
    assert check(world(tmp_path / "again", rows, [claim]), "both").verdict == NOT_SUPPORTED


def test_a_role_is_core_or_detail_and_only_for_a_part(tmp_path):
    from claimbook.claims.registry import RegistryError

    claim = {**ratio_claim(form="figure", quantifier="up-to", claimed=3), "role": "detail"}
    with pytest.raises(RegistryError, match="field role"):
        world(tmp_path, two_systems(), [claim])


@pytest.mark.parametrize(
    "partner, verdict, caveat",
    [
        (96.0, SUPPORTED, None),  # -4%: within "a few percent" (5%), the one reading: no caveat
        (94.6, SUPPORTED_WITH_CAVEATS, "near-bound"),  # -5.4%: beyond 5% by less than its precision
        (93.8, NOT_SUPPORTED, None),  # -6.2%: beyond by more than a point
    ],
)
def test_a_vague_quantifier_has_one_reading_and_a_near_miss_is_a_caveat(tmp_path, partner, verdict, caveat):
    rows = [result("Acme", "own", "Offline", 100.0), result("Partner", "theirs", "Offline", partner)]
    claim = {
        "id": "close",
        "statement": "Partners within a few percent of Acme.",
        "kind": "ratio",
        "form": "counterparts",
        "quantifier": "a-few-percent",
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Partner"},
        "baseline": {"organization": "Acme"},
        "match_on": ["gpus"],
    }
    result_ = check(world(tmp_path, rows, [claim]), "close")
    assert result_.verdict == verdict
    if caveat:
        assert caveat in result_.caveats
    assert '"within a few percent" of its counterpart' in result_.reason
    assert any(
        note.startswith('Read as "within a few percent"') and "every case must hold" in note
        for note in result_.context
    )
    if caveat == "near-bound":
        assert "0.40 points beyond" in result_.reason  # the margin, on the card


def test_a_quantifier_without_a_reading_is_an_error(tmp_path):
    from claimbook.claims.registry import RegistryError

    claim = {**ratio_claim(form="counterparts", quantifier="roughly"), "unit": "%"}
    with pytest.raises(
        RegistryError, match="field quantifier: unknown quantifier 'roughly'; the book reads up-to"
    ):
        world(tmp_path, two_systems(), [claim])


def test_nearly_has_the_one_reading_of_the_method_page():
    from claimbook.engine.quantifiers import RULES, bounds

    assert bounds("nearly", 2.0) == pytest.approx((1.6, 2.0))
    assert bounds("about", 10.0) == pytest.approx((9.5, 10.5))
    method = (Path(__file__).resolve().parents[2] / "book" / "method.md").read_text(encoding="utf-8")
    for rule in RULES.values():  # the method page states every reading the engine applies
        assert f"`{rule.word}`" in method and rule.meaning in method


def test_a_gain_from_the_other_division_is_shown_but_not_judged(tmp_path):
    rows = [result("Acme", "node", "Offline", 170.0)]
    claim = gain_claim(70, division="open")
    result_ = check(world(tmp_path, rows, [claim]), "gain")
    assert result_.verdict == CANNOT_BE_CHECKED
    assert {"cross-division", "open-division"} <= set(result_.caveats)
    assert result_.cases[0].measured == pytest.approx(70.0) and result_.cases[0].reaches is None


def test_a_ratio_across_divisions_is_shown_but_not_judged(tmp_path):
    rows = two_systems(new=(300.0, 300.0, 300.0), Division="open")
    result_ = check(
        world(tmp_path, rows, [ratio_claim(form="figure", quantifier="up-to", claimed=3, division="any")]),
        "fast",
    )
    assert result_.verdict == CANNOT_BE_CHECKED and "cross-division" in result_.caveats
    assert [case.measured for case in result_.cases] == pytest.approx([3.0, 3.0, 3.0])


def test_a_claim_that_names_no_benchmark_holds_where_it_applies(tmp_path):
    rows = [
        result("Acme", "rack", "Offline", 10.0, model="deepseek-r1", weight_data_types="fp4"),
        result("Acme", "rack", "Offline", 10.0, model="qwen3-vl-235b-a22b", weight_data_types="bf16"),
    ]
    items = [
        {"label": "DeepSeek-R1 in fp4", "organization": "Acme", "benchmark": "deepseek-r1", "weights": "fp4"},
        {
            "label": "Qwen3-VL in fp4",
            "organization": "Acme",
            "benchmark": "qwen3-vl-235b-a22b",
            "weights": "fp4",
        },
    ]
    every = {"id": "every", "statement": "fp4 on every benchmark.", "kind": "presence", "items": items}
    some = {**every, "id": "some", "statement": "fp4 weights.", "holds_if": "any"}
    data = world(tmp_path, rows, [every, some])
    assert check(data, "every").verdict == NOT_SUPPORTED
    result_ = check(data, "some")
    assert result_.verdict == SUPPORTED and [case.reaches for case in result_.cases] == [True, False]


def test_a_headline_without_a_scenario_shows_the_others_as_its_spread(tmp_path):
    rows = [
        result("Acme", "one", "Offline", 100.0, gpus=8),
        result("Acme", "one", "Server", 100.0, gpus=8),
        result("Acme", "four", "Offline", 396.0, gpus=32, nodes=4),
        result("Acme", "four", "Server", 340.0, gpus=32, nodes=4),
    ]
    claim = {
        "id": "scales",
        "statement": "99% scaling.",
        "kind": "scaling",
        "claimed": 99,
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "small": {"organization": "Acme", "system": "one"},
        "large": {"organization": "Acme", "system": "four"},
    }
    result_ = check(world(tmp_path, rows, [claim]), "scales")
    # Server, which the claim does not name, falls short of its figure: a caveat, never deciding
    assert result_.verdict == SUPPORTED_WITH_CAVEATS and "other-scenarios" in result_.caveats
    assert (
        'In Server, which the claim does not name, the same pair scales at 85%, short of "99%"'
        in result_.reason
    )
    assert result_.measured_range() == "85–99%: Offline 99% (claimed), Server 85% (not named by the claim)"


def entries_claim(figures, **fields):
    return {
        "id": "table",
        "statement": "Our scores.",
        "kind": "stated-figures",
        "entries": [
            {"label": "6.1-0001", "subject": {"organization": "Acme", "system": "node"}, "figures": figures}
        ],
        **fields,
    }


@pytest.mark.parametrize(
    "published, stated, verdict",
    [
        (12198.8, "12,198.80", SUPPORTED),  # the published result, at the two decimals written
        (12198.83, "12,198.80", SUPPORTED_WITH_CAVEATS),  # text keeps its zeros: 12198.83 is not 12,198.80
        (12198.83, 12198.80, SUPPORTED),  # a number keeps only the decimals its value has: 12198.8
        (12100.0, "12,198.80", NOT_SUPPORTED),  # more than published: not supported
    ],
)
def test_stated_figures_are_checked_row_by_row_at_their_precision(tmp_path, published, stated, verdict):
    rows = [
        result("Acme", "node", "Server", published, model="dlrm-v3", units="Queries/s"),
        result("Acme", "node", "Offline", 13027.7, model="dlrm-v3", units="Samples/s"),
    ]
    claim = entries_claim({"dlrm-v3": {"Server": stated, "Offline": "13,027.70"}})
    result_ = check(world(tmp_path, rows, [claim]), "table")
    assert result_.verdict == verdict
    assert len(result_.cases) == 2 and len(result_.tables["every_row"]) == 2  # one card, every row
    if verdict == SUPPORTED_WITH_CAVEATS:
        assert "understated" in result_.caveats


def test_a_stated_figure_without_a_result_is_shown_and_flagged(tmp_path):
    rows = [result("Acme", "node", "Offline", 100.0)]
    claim = entries_claim({"gpt-oss-120b": {"Offline": "100", "Server": "90"}})
    result_ = check(world(tmp_path, rows, [claim]), "table")
    assert result_.verdict == SUPPORTED_WITH_CAVEATS and "incomplete-data" in result_.caveats
    assert "no published result" in result_.reason


def test_benchmarks_listed_for_a_result_id_must_have_results(tmp_path):
    from dataclasses import replace

    import pandas as pd

    rows = [result("Acme", "node", "Offline", 100.0), result("Acme", "node", "Offline", 9.0, model="dlrm-v3")]
    claim = {"id": "listed", "statement": "Our entries.", "kind": "stated-figures", "listed": "result-ids"}
    data = world(tmp_path, rows, [claim])
    columns = ["id", "round", "organization", "system", "division", "benchmarks", "stated_by", "note"]
    ids = pd.DataFrame(
        [
            [
                "6.1-0001",
                "v6.1",
                "Acme",
                "node",
                "closed",
                "gpt-oss-120b;dlrm-v3;deepseek-r1",
                "acme-v6.1",
                "",
            ],
            ["6.1-0002", "v6.1", "Acme", "", "closed", "gpt-oss-120b", "acme-v6.1", ""],
        ],
        columns=columns,
    )
    result_ = check(replace(data, result_ids=ids), "listed")
    assert result_.verdict == NOT_SUPPORTED and result_.deciding == "6.1-0001 · DeepSeek-R1"
    assert [case.reaches for case in result_.cases] == [True, True, False, None]
    assert "incomplete-data" in result_.caveats


def test_a_first_of_an_accelerator_family_looks_for_its_systems_earlier(tmp_path):
    from dataclasses import replace

    import pandas as pd

    from claimbook.inputs.earlier import ROUND_COLUMNS

    rows = [result("Acme", "rack", "Offline", 10.0, accelerator="NVIDIA GB300")]
    claim = {
        "id": "first",
        "statement": "Our first GB300 results.",
        "kind": "presence",
        "rows": {"family": "NVIDIA GB300"},
        "history": True,
    }
    data = world(tmp_path, rows, [claim])
    # an earlier figure of the system "rack", which the round places among the GB300 systems
    earlier = pd.DataFrame(
        [
            [
                "v6.0",
                "Other",
                "rack",
                "gpt-oss-120b",
                "Offline",
                5.0,
                "Tokens/s",
                True,
                8,
                "closed",
                "",
                "mlperf-log",
                "log",
            ]
        ],
        columns=list(ROUND_COLUMNS),
    )
    # no earlier round at all: the first holds on what the book has, with "incomplete data"
    assert check(replace(data, earlier=earlier.iloc[0:0]), "first").verdict == SUPPORTED_WITH_CAVEATS
    result_ = check(replace(data, earlier=earlier), "first")
    assert result_.verdict == NOT_SUPPORTED  # an earlier round has a system of the same family


def test_a_stated_figure_that_is_not_a_number_names_its_row(tmp_path):
    from claimbook.claims.registry import RegistryError

    claim = entries_claim({"dlrm-v3": {"Server": "about 12k"}})
    with pytest.raises(RegistryError, match=r"claim table: field entries\[0\]\.figures\.dlrm-v3\.Server"):
        world(tmp_path, [result("Acme", "node", "Server", 1.0)], [claim])


def test_a_lead_is_judged_within_the_division_of_the_result(tmp_path):
    rows = [
        result("Acme", "fast", "Offline", 100.0),
        result("Other", "closed", "Offline", 90.0),
        result("Other", "open", "Offline", 150.0, Division="open"),
    ]
    claim = {
        "id": "lead",
        "statement": "The top result.",
        "kind": "leading",
        "metric": "result",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme"},
        "field": {},
        "division": "any",
    }
    result_ = check(world(tmp_path, rows, [claim]), "lead")
    assert result_.verdict == SUPPORTED  # the Open result is not its rival
    assert result_.cases[0].detail.next == "Other closed (8 GPUs)"


# -- comparisons and context (the method page's "Comparisons and context") -----------------------
GB300 = "NVIDIA GB300"
MI355X = "AMD Instinct MI355X 288GB HBM3e"


def test_the_best_of_a_class_named_by_its_system_is_of_that_accelerator_and_size(tmp_path):
    rows = [
        result("Acme", "new", "Offline", 300.0, gpus=72, nodes=18, accelerator=GB300),
        result("Acme", "rack", "Offline", 100.0, gpus=72, nodes=18, accelerator=GB300),
        result("Partner", "rack", "Offline", 150.0, gpus=72, nodes=18, accelerator=GB300),
        result("Partner", "small", "Offline", 10.0, gpus=8, accelerator=GB300),
        result("Big", "cluster", "Offline", 600.0, gpus=512, nodes=64, accelerator=MI355X),
    ]
    claim = ratio_claim(
        form="figure",
        quantifier="up-to",
        claimed=3,
        subject={"organization": "Acme", "system": "new"},
        scenarios=["Offline"],
    )
    claim["baseline"] = {"organization": "Acme", "system": "rack"}
    case = check(world(tmp_path, rows, [claim]), "fast").cases[0]
    assert case.detail.best_any.startswith("Partner rack")  # not the 512-GPU cluster
    assert case.detail.measured_vs_best_any == pytest.approx(2.0)
    assert case.detail.best_class == "NVIDIA GB300, 72 GPUs"


def record_claim(**fields):
    return {
        "id": "record",
        "statement": "The highest throughput.",
        "kind": "leading",
        "metric": "result",
        "measures": ["whole-system"],
        "units": "Tokens/s",
        "subject": {
            "organization": "Crux",
            "system": "gpt",
            "benchmark": "gpt-oss-120b",
            "scenario": "Offline",
        },
        "field": {},
        **fields,
    }


def test_a_record_is_set_against_another_system_not_the_same_hardware_renamed(tmp_path):
    rows = [
        result("Crux", "gpt", "Offline", 5000.0, gpus=512, nodes=64, accelerator=MI355X),
        result("Crux", "ds", "Offline", 4000.0, gpus=512, nodes=64, accelerator=MI355X, model="deepseek-r1"),
        result(
            "NVIDIA", "big", "Offline", 2500.0, gpus=288, nodes=72, accelerator=GB300, model="deepseek-r1"
        ),
    ]
    result_ = check(world(tmp_path, rows, [record_claim()], {"vendor": "AMD"}), "record")
    whole = result_.cases[0]
    assert whole.detail.next.startswith("NVIDIA big")
    assert whole.measured == pytest.approx(2.0)
    assert "2.00x the next best other submitter, NVIDIA big" in result_.reason


def test_a_leadership_read_as_whole_systems_shows_per_gpu_figures_beside_them(tmp_path):
    rows = [
        result("Crux", "gpt", "Offline", 5120.0, gpus=512, nodes=64, accelerator=MI355X),
        result("NVIDIA", "big", "Offline", 2880.0, gpus=288, nodes=72, accelerator=GB300),
    ]
    result_ = check(world(tmp_path, rows, [record_claim()], {"vendor": "AMD"}), "record")
    note = next(note for note in result_.context if note.startswith("Per GPU"))
    assert "10 against 10 Tokens/s per GPU (1.00x)" in note
    assert "derived-metric" in result_.caveats and result_.verdict == SUPPORTED


def latency_rows(new: float, old: float):
    wan = {"model": "wan-2.2-t2v-a14b", "units": "Latency (s)"}
    return [
        result("Acme", "mi", "SingleStream", new, accelerator=MI355X, **wan),
        result("NVIDIA", "own", "SingleStream", old, **wan),
    ]


def test_a_gain_on_a_lower_is_better_metric_is_a_speedup_and_a_fall_of_the_metric(tmp_path):
    claim = {
        "id": "gain",
        "statement": "A 70% faster video than v6.0.",
        "kind": "round-gain",
        "unit": "%",
        "benchmark": "wan-2.2-t2v-a14b",
        "from_round": "v6.0",
        "claimed": {"SingleStream": 70},
        "scenarios": ["SingleStream"],
        "subject": {"organization": "Acme", "system": "mi"},
        "stated": {"round": "v6.0", "figures": {"SingleStream": 27.38}, "gpus": 8, "units": "Latency (s)"},
    }
    rows = latency_rows(16.124, 20.0)[:1]
    result_ = check(world(tmp_path, rows, [claim], {"vendor": "AMD"}), "gain")
    case = result_.cases[0]
    assert case.detail.speedup == pytest.approx(27.38 / 16.124)
    assert case.detail.metric_change == pytest.approx(100 * (16.124 / 27.38 - 1))
    assert "1.70x as fast, latency -41.1% (27.38 s → 16.12 s)" in result_.reason
    assert "1.70x as fast, latency -41.1%" in result_.measured_range()


def test_an_ahead_of_card_shows_the_best_rival_at_the_claimants_size(tmp_path):
    rows = [
        result("Acme", "mi", "Offline", 100.0, gpus=72, nodes=9, accelerator=MI355X),
        result("NVIDIA", "gb200", "Offline", 90.0, gpus=72, nodes=18, accelerator="NVIDIA GB200"),
        result("Cloud", "gb300", "Offline", 125.0, gpus=72, nodes=18, accelerator=GB300),
        result("Cloud", "gb300x8", "Offline", 500.0, gpus=8, accelerator=GB300),  # another size
    ]
    claim = {
        "id": "lead",
        "statement": "Ahead of GB200 NVL72.",
        "kind": "ratio",
        "form": "lead",
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "mi"},
        "baseline": {"family": "NVIDIA GB200", "gpus": 72},
        "prefer": {"organization": "NVIDIA"},
    }
    result_ = check(world(tmp_path, rows, [claim], {"vendor": "AMD"}), "lead")
    case = result_.cases[0]
    assert case.detail.best_rival.startswith("Cloud gb300 ")
    assert case.detail.vs_best_rival == pytest.approx(-20.0)
    assert any("the claimant's result -20.0% against it" in note for note in result_.context)
    assert result_.verdict == SUPPORTED  # a faster rival of another class is context: it never decides


def test_a_ratio_of_an_inferred_result_against_a_measured_one_says_so(tmp_path):
    rows = two_systems()
    rows[0]["inferred"] = "1"  # Acme new, Offline
    result_ = check(
        world(tmp_path, rows, [ratio_claim(form="figure", quantifier="up-to", claimed=3)]), "fast"
    )
    note = next(note for note in result_.context if "inferred result against a measured one" in note)
    assert "Acme new (8 GPUs) is inferred in Offline" in note and "Server" not in note


def test_a_missed_figure_equal_to_another_system_of_the_vendor_is_context_not_support(tmp_path):
    wan = {"model": "wan-2.2-t2v-a14b", "units": "Latency (s)"}
    rows = [
        result("Acme", "gb300", "SingleStream", 5.81, accelerator=GB300, **wan),
        result("Acme", "gb200", "SingleStream", 5.73, accelerator="NVIDIA GB200", **wan),
        result("Other", "mi", "SingleStream", 5.70, accelerator=MI355X, **wan),
    ]
    claim = {
        "id": "latency",
        "statement": "5.7 s per video.",
        "kind": "figure",
        "benchmark": "wan-2.2-t2v-a14b",
        "subject": {"organization": "Acme", "system": "gb300"},
        "scenarios": ["SingleStream"],
        "claimed": 5.7,
        "unit": "s",
    }
    result_ = check(world(tmp_path, rows, [claim]), "latency")
    assert result_.verdict == NOT_SUPPORTED
    note = next(note for note in result_.context if note.startswith("For context, not support"))
    assert "Acme gb200 (8 GPUs), NVIDIA GB200, at 5.73 s" in note and "Other mi" not in note


def test_a_partner_counts_from_a_system_mixing_two_vendors_gpus(tmp_path):
    mixed = "NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e"
    rows = [
        result("Alpha", "x", "Offline", 1.0, accelerator=MI355X),
        result("Mixer", "both", "Offline", 1.0, accelerator=mixed),
        result("Greenonly", "y", "Offline", 1.0),
    ]
    claim = {
        "id": "partners",
        "statement": "One partner on AMD GPUs.",
        "kind": "presence",
        "count": "organization",
        "claimed": 1,
        "unit": "partners",
        "rows": {"vendor": "AMD"},
        "named": ["Alpha"],
    }
    only = {
        "id": "only",
        "statement": "Only AMD and NVIDIA GPUs.",
        "kind": "presence",
        "count": "vendor",
        "only": ["AMD", "NVIDIA"],
        "rows": {},
    }
    data = world(tmp_path, rows, [claim, only], {"vendor": "AMD"})
    result_ = check(data, "partners")
    assert result_.verdict == SUPPORTED
    assert "The data also has 1 organization the claim does not name: Mixer." in result_.notes
    assert check(data, "only").verdict == SUPPORTED  # the mixed system is AMD and NVIDIA, not a third vendor


def test_counts_agree_with_their_nouns(tmp_path):
    rows = [result(name, "x", "Offline", 1.0) for name in ("Alpha", "Beta", "Gamma")]
    claim = {
        "id": "partners",
        "statement": "One partner.",
        "kind": "presence",
        "count": "organization",
        "rows": {"vendor": "NVIDIA"},
        "named": ["Alpha"],
    }
    result_ = check(world(tmp_path, rows, [claim]), "partners")
    text = " ".join([result_.reason, *result_.notes])
    assert "2 organizations the claim does not name" in text and "(s)" not in text


def test_the_no_chart_sentence_follows_from_the_pages_evidence(tmp_path):
    from claimbook.present.claim_pages import no_chart_sentence

    rows = [result("Acme", "x", "Offline", 1.0, weight_data_types="fp4")]
    claims = [
        {
            "id": "weights",
            "statement": "fp4 weights.",
            "kind": "presence",
            "items": [{"label": "fp4", "organization": "Acme", "weights": "fp4"}],
        },
        {
            "id": "future",
            "statement": "A future benchmark.",
            "kind": "not-checkable",
            "reason": "Not yet run.",
        },
    ]
    data = world(tmp_path, rows, claims)
    assert no_chart_sentence(check(data, "future")) == "No chart: no published result measures this claim."
    sentence = no_chart_sentence(check(data, "weights"))
    assert (
        "no published result measures" not in sentence and "the 1 published result it rests on is" in sentence
    )


def test_a_ratio_s_baselines_are_read_in_the_claim_s_order_and_the_first_error_is_said(tmp_path):
    """A claim with two baselines, the first of another size (no ``measure``), the second matching
    two results: the error is the first baseline's, as the claim reads; each baseline is selected
    once the one before it was compared."""
    from claimbook.engine.core import SelectionError, SizeError

    rows = [
        result("Acme", "new", "Offline", 300.0),
        result("Acme", "big", "Offline", 100.0, gpus=16, nodes=2),
        result("Other", "a", "Offline", 90.0),
        result("Other", "b", "Offline", 80.0),
    ]
    baselines = [
        {"label": "Big", "organization": "Acme", "system": "big"},
        {
            "label": "O",
            "sum": [{"organization": "Other", "count": 1}],
        },  # one of two: refused as it is selected
    ]
    claim = ratio_claim(form="lead", unit="%", baseline=baselines)
    with pytest.raises(
        SizeError, match=r"field measure: the two sides differ in size in gpt-oss-120b Offline"
    ):
        check(world(tmp_path, rows, [claim]), "fast")
    (tmp_path / "other-first").mkdir()
    second_first = ratio_claim(form="lead", unit="%", baseline=baselines[::-1])
    with pytest.raises(SelectionError, match=r"field baseline.sum\[0\]: 2 results match"):
        check(world(tmp_path / "other-first", rows, [second_first]), "fast")


def test_a_lead_in_units_the_subject_has_no_result_in_cannot_be_checked(tmp_path):
    """``units`` the subject's results are not in: "cannot be checked", saying which units it has;
    ``units`` that are not text: a registry error naming the field."""
    from claimbook.claims.registry import RegistryError
    from claimbook.engine.verdict import CANNOT_BE_CHECKED

    rows = [result("Acme", "new", "Offline", 300.0), result("Other", "a", "Offline", 90.0)]
    claim = {
        "id": "lead",
        "statement": "Acme leads.",
        "kind": "leading",
        "metric": "result",
        "measures": ["whole-system"],
        "units": "Samples/s",
        "subject": {
            "organization": "Acme",
            "system": "new",
            "benchmark": "gpt-oss-120b",
            "scenario": "Offline",
        },
        "field": {},
    }
    found = check(world(tmp_path, rows, [claim]), "lead")
    assert found.verdict == CANNOT_BE_CHECKED
    assert found.missing == ("no result of the subject is in Samples/s (its results: Tokens/s)",), (
        found.missing
    )
    for index, units in enumerate((5, "", ["Tokens/s"])):
        (tmp_path / str(index)).mkdir()
        with pytest.raises(
            RegistryError, match=r"claim lead: field units: the units of the results it compares"
        ):
            world(tmp_path / str(index), rows, [{**claim, "units": units}])


# -- fields of the wrong shape are registry errors, never a crash in the check ---------------------
_SAID = {"id": "c", "statement": "x", "benchmark": "gpt-oss-120b"}
_PAIR = {
    "subject": {"organization": "Acme", "system": "new"},
    "baseline": {"organization": "Acme", "system": "old"},
}
_COUNTERPARTS = {
    **_SAID,
    "kind": "ratio",
    "form": "counterparts",
    "claimed": 1.0,
    "quantifier": "within",
    "within": 5,
    "unit": "%",
    "subject": {"organization": "Acme", "system": "new"},
    "baseline": {"organization": "Acme"},
}
_COUNT = {
    "id": "c",
    "statement": "x",
    "kind": "presence",
    "count": "organization",
    "rows": {"benchmark": "gpt-oss-120b"},
}


@pytest.mark.parametrize(
    "claim, field",
    [
        ({**_SAID, **_PAIR, "kind": "ratio", "form": "lead", "unit": "%", "benchmark": 5}, "benchmark"),
        ({**_SAID, **_PAIR, "kind": "ratio", "form": "lead", "unit": "%", "benchmark": []}, "benchmark"),
        ({**_COUNTERPARTS, "match_on": {"family": 1}}, "match_on"),
        ({**_COUNTERPARTS, "match_on": ["colour"]}, "match_on"),
        ({**_COUNT, "claimed": 2, "definitions": "every submitter"}, "definitions"),
        ({**_COUNT, "claimed": 2, "definitions": [{"scenario": "Offline"}]}, "definitions"),
        (
            {
                **_SAID,
                "kind": "round-gain",
                "from_round": "v6.0",
                "subject": {"organization": "Acme", "system": "new"},
            }
            | {"claimed": 1.5, "stated_current": [1, 2]},
            "stated_current",
        ),
        # a name where a list is read (it was read letter by letter), a count that is no count
        ({**_COUNT, "claimed": 2, "named": "Acme"}, "named"),
        ({**_COUNT, "claimed": 2, "named": 12}, "named"),
        ({**_COUNT, "claimed": 2, "named": {"Acme": {"a": 1}}}, "named"),
        ({**_COUNT, "claimed": {"Offline": 7}}, "claimed"),
        ({**_COUNT, "claimed": -7}, "claimed"),
        ({**_COUNT, "claimed": 2.5}, "claimed"),
        ({**_COUNT, "claimed": True}, "claimed"),
        ({**_COUNT, "claimed": 2, "detail": 12}, "detail"),
        ({**_COUNT, "claimed": 2, "acknowledges": 12}, "acknowledges"),
        ({**_COUNT, "claimed": 2, "division": 12}, "division"),
        ({**_COUNT, "claimed": 2, "unit": {"x": [1]}}, "unit"),
        ({**_COUNTERPARTS, "quantifier": []}, "quantifier"),
        ({**_COUNTERPARTS, "cases": ["every"]}, "cases"),
        # a claimed figure no case would ever read, a scenario the data never names
        ({**_SAID, **_PAIR, "kind": "ratio", "form": "figure", "claimed": {"Ofline": 2}}, "claimed"),
        (
            {**_SAID, **_PAIR, "kind": "ratio", "form": "figure", "scenarios": ["Offline"]}
            | {"claimed": {"Offline": 2, "Server": 3}},
            "claimed",
        ),
        (
            {
                **_SAID,
                **_PAIR,
                "kind": "ratio",
                "form": "figure",
                "claimed": 2,
                "scenarios": ["Singlestream"],
            },
            "scenarios",
        ),
        ({**_SAID, **_PAIR, "kind": "ratio", "form": "lead", "unit": "%", "tie_within": True}, "tie_within"),
        ({**_SAID, **_PAIR, "kind": "ratio", "form": "lead", "unit": "%", "tie_within": "3%"}, "tie_within"),
    ],
)
def test_a_field_of_the_wrong_shape_is_a_registry_error_naming_it(tmp_path, claim, field):
    from claimbook.claims.registry import RegistryError

    with pytest.raises(RegistryError, match=rf"claim c: field {field}: "):
        world(tmp_path, two_systems(), [claim])


def test_a_preferred_baseline_is_read_as_a_selector_and_an_empty_field_leaves_a_lead_unjudged(tmp_path):
    """``prefer`` takes the selector's words (``gpus``, not a column of that name); a leadership
    field that selects nothing leaves the lead uncontested: "cannot be checked", no crash."""
    from claimbook.engine.verdict import CANNOT_BE_CHECKED

    rows = [
        result("Acme", "new", "Offline", 300.0),
        result("Acme", "old", "Offline", 150.0, gpus=16, nodes=2),
        result("Acme", "eight", "Offline", 100.0),
    ]
    claim = {**_SAID, "kind": "ratio", "form": "figure", "claimed": 3, "quantifier": "up-to"}
    claim |= {"subject": {"organization": "Acme", "system": "new"}}
    claim |= {"baseline": {"organization": "Acme", "system": ["old", "eight"]}}
    preferred = check(
        world(tmp_path, rows, [{**claim, "prefer": {"gpus": 8}, "measure": "whole-system"}]), "c"
    )
    assert preferred.cases[0].detail.baseline_chosen == "own" and preferred.cases[
        0
    ].measured == pytest.approx(3.0)
    lead = {"id": "c", "statement": "x", "kind": "leading", "metric": "result", "measures": ["whole-system"]}
    lead |= {
        "subject": {
            "organization": "Acme",
            "system": "new",
            "benchmark": "gpt-oss-120b",
            "scenario": "Offline",
        }
    }
    (tmp_path / "lead").mkdir()
    found = check(world(tmp_path / "lead", rows, [{**lead, "field": {"organization": "Nobody"}}]), "c")
    assert found.verdict == CANNOT_BE_CHECKED and "Uncontested" in found.reason, found.reason
