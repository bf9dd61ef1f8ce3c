"""What an independent reading of ten built pages would not sign (issue 40's last step), each a
test on data the test builds: a latency has no per-GPU figure, a "behind" names every pair
ahead, a lead says which system stands for its subject where that varies, a count names its
division and submitters, a citation cites each round of its rows, and the page where the
announcements meet says when each was published."""

from __future__ import annotations

import pandas as pd

from claimbook.engine.compare import per_gpu
from claimbook.engine.crossref import round_announcements
from claimbook.present import blocks
from tests.helpers.enginekit import check, result, world

NVL72 = "NVIDIA GB300"


def test_a_latency_has_no_per_gpu_figure(tmp_path):
    assert per_gpu(100.0, 8, True) == 12.5
    assert per_gpu(100.0, 0, True) is None
    assert per_gpu(5.8, 72, False) is None  # a time is not shared out among GPUs
    rows = [
        result(
            "Acme",
            "Rack-72",
            "SingleStream",
            5.8,
            gpus=72,
            nodes=18,
            accelerator=NVL72,
            units="Latency (s)",
            model="wan-2.2-t2v-a14b",
        ),
        result("Acme", "Node-8", "SingleStream", 18.0, gpus=8, units="Latency (s)", model="wan-2.2-t2v-a14b"),
    ]
    claim = {
        "id": "lower-latency",
        "statement": "Three times lower latency than a single node.",
        "kind": "unnamed-baseline",
        "claimed": 3,
        "unit": "x",
        "benchmark": "wan-2.2-t2v-a14b",
        "scenario": "SingleStream",
        "subject": {"organization": "Acme", "system": "Rack-72"},
        "candidates": {"nodes": 1},
        "measure": "whole-system",
    }
    found = check(world(tmp_path, rows, [claim]), "lower-latency")
    per_gpu_lines = [line for line in found.context if line.startswith("Per GPU")]
    assert per_gpu_lines and all("none, since a latency is a time" in line for line in per_gpu_lines)
    # The old reading spread the latency over the GPUs: 3.1x times 72/8 = 27.9x, never shown.
    assert not any("27." in line or "28." in line for line in per_gpu_lines)


def _pair(organization: str, model: str, small: float, large: float, small_gpus=4, large_gpus=72) -> list:
    return [
        result(
            organization,
            f"{model}-{small_gpus}",
            "Offline",
            small,
            gpus=small_gpus,
            nodes=small_gpus // 4,
            accelerator=NVL72,
            model=model,
        ),
        result(
            organization,
            f"{model}-{large_gpus}",
            "Offline",
            large,
            gpus=large_gpus,
            nodes=large_gpus // 4,
            accelerator=NVL72,
            model=model,
        ),
    ]


def test_a_scaling_lead_behind_names_every_pair_ahead(tmp_path):
    ratio = 72 / 4
    rows = (
        _pair("Acme", "deepseek-r1", 100.0, 100.0 * ratio * 0.95)  # the claim's pair: 95%
        + _pair("Bolt", "gpt-oss-120b", 100.0, 100.0 * ratio * 0.99)
        + _pair("Core", "llama2-70b-99.9", 100.0, 100.0 * ratio * 0.98)
        + _pair("Dash", "gpt-oss-120b", 50.0, 50.0 * ratio * 0.97)
        + _pair("Echo", "gpt-oss-120b", 10.0, 10.0 * ratio * 0.90)  # behind the claim's pair
    )
    claim = {
        "id": "leading-scaling",
        "statement": "The most efficient scale-out of the round.",
        "kind": "leading",
        "metric": "efficiency",
        "benchmark": "deepseek-r1",
        "scenarios": ["Offline"],
        "subject": {"organization": "Acme"},
        "small": {"organization": "Acme", "system": "deepseek-r1-4"},
        "large": {"organization": "Acme", "system": "deepseek-r1-72"},
        "definitions": [{"label": "any scale-out across nodes", "scale_out": True}],
    }
    reason = check(world(tmp_path, rows, [claim]), "leading-scaling").reason
    behind = reason[reason.index("behind in") :]
    for organization in ("Bolt", "Core", "Dash"):
        assert organization in behind, reason
    assert "Echo" not in behind
    assert behind.index("Bolt") < behind.index("Core") < behind.index("Dash")  # best first


def test_a_lead_names_the_system_that_stands_for_its_subject_where_it_varies(tmp_path):
    rows = [
        result("Acme", "Rack-72", "Offline", 720.0, gpus=72, nodes=18, accelerator=NVL72),
        result("Acme", "Rack-72", "Server", 500.0, gpus=72, nodes=18, accelerator=NVL72),
        result("Partner", "Half-36", "Server", 300.0, gpus=36, nodes=9, accelerator=NVL72),
        result("Rival", "Node-8", "Offline", 40.0, gpus=8),
        result("Rival", "Node-8", "Server", 30.0, gpus=8),
    ]
    claim = {
        "id": "family-leads",
        "statement": "GB300 leads per GPU.",
        "kind": "leading",
        "metric": "result",
        "measures": ["per-gpu"],
        "benchmark": "gpt-oss-120b",
        "subject": {"family": NVL72, "combine": "best"},
        "field": {},
    }
    reason = check(world(tmp_path, rows, [claim]), "family-leads").reason
    # Per GPU, Server's best GB300 is the partner's 36-GPU system (8.33 against 6.94): said so.
    assert "the subject's best system" in reason, reason
    assert "Partner Half-36 (36 GPUs) in Server" in reason, reason
    assert "Acme Rack-72 (72 GPUs) in Offline" in reason, reason
    # Each case's margin over the next best, with the field it is the best of.
    assert reason.count("the next best") == 2, reason


def test_a_count_names_its_division_and_its_submitters(tmp_path):
    rows = [
        result(
            "Acme", "Node-8", "Offline", 100.0, accelerator="AMD Instinct MI355X 288GB HBM3e", model="dlrm-v3"
        ),
        result(
            "Partner_Acme",
            "Node-8b",
            "Offline",
            90.0,
            accelerator="AMD Instinct MI355X 288GB HBM3e",
            model="dlrm-v3",
        ),
        result(
            "Acme",
            "Node-8",
            "Server",
            80.0,
            accelerator="AMD Instinct MI355X 288GB HBM3e",
            model="dlrm-v3",
            Division="open",
        ),
    ]
    claim = {
        "id": "only-amd",
        "statement": "Only AMD GPUs ran DLRM-v3.",
        "kind": "presence",
        "count": "vendor",
        "only": ["AMD"],
        "rows": {"benchmark": "dlrm-v3"},
    }
    reason = check(world(tmp_path, rows, [claim]), "only-amd").reason
    assert "All 2 such results in the Closed division" in reason, reason
    assert "from 2 submitters: Acme, Partner_Acme" in reason, reason


def test_a_citation_cites_every_round_of_its_rows():
    def rows(round_name: str, division: str) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "round": [round_name],
                "division": [division],
                "scenario": ["Offline"],
                "benchmark": ["llama2-70b-99"],
                "organization": ["AMD"],
                "system": ["8xMI355X"],
            }
        )

    sources = {
        "v6.1": {"repository": "mlcommons/inference_results_v6.1", "file": "summary.csv", "commit": "a" * 40},
        "v5.1": {
            "repository": "mlcommons/inference_results_v5.1",
            "file": "summary_results.json",
            "commit": "b" * 40,
        },
    }
    text = blocks.citation(pd.concat([rows("v5.1", "open"), rows("v6.1", "closed")]), None, sources)
    assert "MLPerf® Inference v6.1, Closed division" in text
    assert "MLPerf® Inference v5.1, Open division" in text
    assert "inference_results_v5.1" in text and "summary_results.json" in text
    assert text.index("v6.1") < text.index("v5.1")  # the newest round first
    # A round ingested without a line of its own in sources.csv is said so, never cited from another.
    newer = pd.concat([rows("v7.0", "closed"), rows("v6.1", "closed")])
    text = blocks.citation(newer, None, sources)
    v70 = text[text.index("MLPerf® Inference v7.0") : text.index("MLPerf® Inference v6.1")]
    assert "No source of the v7.0 results is recorded" in v70 and "an address the book has not checked" in v70
    assert "Results from MLCommons'" not in v70 and "inference_results_v6.1" not in v70


def test_a_result_id_of_a_system_in_two_divisions_says_its_division():
    ids = pd.DataFrame(
        {
            "id": ["6.1-0003", "6.1-0109"],
            "round": ["v6.1", "v6.1"],
            "organization": ["AMD", "AMD"],
            "system": ["8xMI355X", "8xMI355X"],
            "division": ["closed", "open"],
            "benchmarks": ["dlrm-v3", "dlrm-v3"],
            "stated_by": ["amd-v6.1", "amd-v6.1"],
            "note": ["", ""],
        }
    )
    rows = pd.DataFrame(
        {
            "round": ["v6.1", "v6.1"],
            "organization": ["AMD", "AMD"],
            "system": ["8xMI355X"] * 2,
            "division": ["closed", "open"],
        }
    )
    cited = [text for found in blocks.ids_for(ids, rows, with_system=True) for text in found]
    assert any("6.1-0003 (AMD 8xMI355X, Closed division" in text for text in cited), cited
    assert any("6.1-0109 (AMD 8xMI355X, Open division" in text for text in cited), cited
    # Who inferred what, said once: the book's own notes (data/result_ids.csv) start so.
    ids["note"] = [f"{blocks.INFERRED_SYSTEM}: matched", f"{blocks.INFERRED_DIVISION}: its figures"]
    cited = [text for found in blocks.ids_for(ids, rows, with_system=True) for text in found]
    assert cited == [
        "6.1-0003 (AMD 8xMI355X, Closed division, system inferred by this book; the ID as cited by amd-v6.1)",
        "6.1-0109 (AMD 8xMI355X, Open division, the division inferred by this book; the ID as cited by amd-v6.1)",
    ], cited


def test_where_the_announcements_meet_says_when_each_was_published(tmp_path):
    rows = [result("Acme", "Node-8", "Offline", 100.0)]
    claim = {
        "id": "c",
        "statement": "A claim.",
        "kind": "figure",
        "claimed": {"Offline": 100},
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "subject": {"organization": "Acme"},
    }
    data = world(tmp_path, rows, [claim])
    text = round_announcements(data)
    assert "1 announcement of MLPerf Inference v6.1: Acme's post (Acme, 2026-09-17)." == text
    assert "same day" not in text


def test_a_figure_beside_its_claim_shows_how_it_rounds():
    from claimbook.common import formatting

    assert formatting.beside_claimed(0.6546111, 2, "samples/s") == "0.6546 samples/s"  # not "0.655"
    assert formatting.beside_claimed(18.04, 0, "x") == formatting.quantity(18.04, "x")
    assert formatting.beside_claimed(16194.4, 2, "queries/s") == "16,194.40 queries/s"  # not "16,194"


def test_a_lead_names_the_result_it_is_set_against(tmp_path):
    rows = [
        result("Acme", "Node-8", "Offline", 110.0, accelerator="AMD Instinct MI325X 256GB HBM3E"),
        result("Rival", "H200-a", "Offline", 100.0, accelerator="NVIDIA H200-SXM-141GB"),
        result("Other", "H200-b", "Offline", 90.0, accelerator="NVIDIA H200-SXM-141GB"),
    ]
    claim = {
        "id": "lead-h200",
        "statement": "Acme leads the H200.",
        "kind": "ratio",
        "form": "lead",
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "subject": {"organization": "Acme"},
        "baseline": {"family": "NVIDIA H200", "combine": "best"},
    }
    reason = check(world(tmp_path, rows, [claim]), "lead-h200").reason
    assert "Offline +10.0% against Rival H200-a (8 GPUs)" in reason, reason


def test_an_open_result_is_flagged_with_its_accelerator():
    from claimbook.engine.caveats import explain_rows

    rows = pd.DataFrame(
        {
            "organization": ["AMD", "AMD"],
            "system": ["8xGPU", "8xGPU"],
            "total_accelerators": [8, 8],
            "division": ["closed", "open"],
            "availability": ["available", "available"],
            "family": ["AMD MI325X", "AMD MI355X"],
            "inferred": [False, False],
        }
    )
    assert explain_rows(rows, {"open-division"}) == [
        "Open-division results used: AMD 8xGPU (8 GPUs, AMD MI355X)"
    ]


def test_a_part_in_a_table_is_named_by_its_parents_title(tmp_path):
    from claimbook.engine.crossref import claim_title

    rows = [result("Acme", "Node-8", "Offline", 100.0)]
    claim = {
        "id": "whole",
        "title": "The whole claim",
        "statement": "A claim of two parts.",
        "kind": "compound",
        "benchmark": "gpt-oss-120b",
        "parts": [
            {
                "id": "whole.figure",
                "statement": "A long sentence that is not a title.",
                "kind": "figure",
                "claimed": {"Offline": 100},
                "scenarios": ["Offline"],
                "subject": {"organization": "Acme"},
            },
        ],
    }
    registry = world(tmp_path, rows, [claim]).registry
    assert claim_title(registry.claim("whole.figure"), registry) == "The whole claim (part figure)"
    assert claim_title(registry.claim("whole"), registry) == "The whole claim"


def test_a_list_of_results_gives_each_system_its_own_scenarios(tmp_path):
    rows = [
        result("Acme", "Rack-72", scenario, 100.0, gpus=72, nodes=18, accelerator=NVL72)
        for scenario in ("Offline", "Server", "Interactive")
    ] + [result("Partner", "Half-36", "Offline", 50.0, gpus=36, nodes=9, accelerator=NVL72)]
    claim = {
        "id": "present",
        "statement": "GB300 results were submitted.",
        "kind": "presence",
        "rows": {"family": NVL72, "benchmark": "gpt-oss-120b"},
    }
    reason = check(world(tmp_path, rows, [claim]), "present").reason
    # The partner ran Offline alone: never listed under the scenarios of the other system.
    assert "Partner Half-36 (36 GPUs) on gpt-oss-120b (Offline)" in reason, reason
    assert "Acme Rack-72 (72 GPUs) on gpt-oss-120b (Interactive, Offline, Server)" in reason, reason


def test_the_measured_line_beside_a_stated_figure_shows_how_it_rounds(tmp_path):
    rows = [
        result(
            "Acme", "Rack-72", "Offline", 0.6546111, gpus=72, nodes=18, accelerator=NVL72, units="Samples/s"
        )
    ]
    claim = {
        "id": "videos",
        "statement": "0.65 videos a second.",
        "kind": "figure",
        "claimed": {"Offline": 0.65},
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "subject": {"organization": "Acme"},
    }
    found = check(world(tmp_path, rows, [claim]), "videos")
    assert found.measured_range().startswith("0.6546"), found.measured_range()  # not "0.655" beside 0.65
