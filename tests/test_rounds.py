import csv

import pytest
from summaries import OLDER_LAYOUT, summary_row, write_summary

from claimbook.ingest import IngestError, ingest, write_tidy
from claimbook.rounds import (
    EARLIER_COLUMNS,
    check_round_gain,
    combine_rounds,
    from_tidy,
    gains,
    gains_over_rounds,
    ingest_earlier,
    load_round_table,
    round_order,
    same_system,
)
from claimbook.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED_WITH_CAVEATS
from conftest import ROOT, SHARED_SUMMARY

SYSTEM = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
QWEN = "qwen3-vl-235b-a22b"


def earlier_row(**values):
    row = dict(version="v6.0", organization="NVIDIA", platform=SYSTEM, model="deepseek-r1", scenario="Offline",
               result="600000", units="Tokens/s", total_accelerators="72", result_id="", source_type="mlperf-log", source="log")
    row.update(values)
    return row


def write_earlier(path, rows):
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=EARLIER_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_round_order():
    assert sorted(["v6.1", "v10.0", "v5.1", "v6.0"], key=round_order) == ["v5.1", "v6.0", "v6.1", "v10.0"]


def test_committed_earlier_table_is_what_ingest_makes(tmp_path):
    shared = SHARED_SUMMARY.parent.parent / "previous_rounds.csv"
    if not shared.is_file():
        pytest.skip("the earlier-round table is not beside this clone (../shared)")
    fresh = write_tidy(ingest_earlier(shared), tmp_path / "earlier.csv")
    assert fresh.read_bytes() == (ROOT / "data" / "mlperf" / "earlier_rounds.csv").read_bytes()


@pytest.mark.parametrize(
    "override, message",
    [
        ({"result": "lots"}, "line 2: result is 'lots', not a number"),
        ({"result": "-1"}, "line 2: result is '-1'"),
        ({"source_type": "rumour"}, "line 2: unknown source_type 'rumour'"),
        ({"units": "videos"}, "line 2: unknown units 'videos'"),
        ({"scenario": "Batch"}, "line 2: unknown scenario 'Batch'"),
        ({"total_accelerators": "many"}, "line 2: total_accelerators is 'many'"),
        ({"version": ""}, "line 2: version is empty"),
    ],
)
def test_earlier_table_rejects_bad_rows(tmp_path, override, message):
    with pytest.raises(IngestError, match=message):
        ingest_earlier(write_earlier(tmp_path / "e.csv", [earlier_row(**override)]))


def test_earlier_table_missing_column(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("version,organization\nv6.0,NVIDIA\n")
    with pytest.raises(IngestError, match="missing required column"):
        ingest_earlier(path)


def test_gains_use_the_weaker_source_and_direction(tmp_path):
    rounds = ingest_earlier(write_earlier(tmp_path / "e.csv", [
        earlier_row(version="v6.0", result="500", source_type="mlperf-log"),
        earlier_row(version="v6.1", result="800", source_type="mlperf-log-secondary"),
        earlier_row(version="v6.0", scenario="SingleStream", units="Latency (s)", result="10"),
        earlier_row(version="v6.1", scenario="SingleStream", units="Latency (s)", result="5"),
    ]))
    table = gains(rounds, "v6.0", "v6.1").set_index("scenario")
    assert table.loc["Offline", "gain"] == 1.6 and table.loc["Offline", "evidence"] == "mlperf-log-secondary"
    assert table.loc["SingleStream", "gain"] == 2.0  # half the latency is twice as good


def test_combine_prefers_the_stronger_source(tmp_path, committed_results):
    duplicate = ingest_earlier(write_earlier(tmp_path / "e.csv", [
        earlier_row(version="v6.1", result="1", source_type="vendor-announcement")
    ]))
    rounds = combine_rounds([from_tidy(committed_results), duplicate])
    row = same_system(rounds, "NVIDIA", SYSTEM, "deepseek-r1", ["Offline"])
    assert list(row.source_type) == ["mlperf-summary"] and list(row.result) == [679740.0]


def test_shipped_data_cannot_check_the_qwen_claim_and_says_why():
    rounds = combine_rounds([load_round_table("data/mlperf/v6.1.csv"), load_round_table("data/mlperf/earlier_rounds.csv")])
    check = check_round_gain(rounds, claim_id="software-gains-1.6x", organization="NVIDIA", system=SYSTEM, model=QWEN,
                             claimed=1.6, from_round="v6.0", to_round="v6.1", scenarios=["Offline", "Server", "Interactive"])
    assert check.verdict.verdict == CANNOT_BE_CHECKED
    assert "No system-identified v6.0 result" in check.verdict.reason and "Offline 79 Samples/s" in check.verdict.reason
    context = gains_over_rounds(same_system(rounds, "NVIDIA", SYSTEM, "deepseek-r1", ["Offline", "Server", "Interactive"]))
    assert [(g.from_round, g.to_round, g.scenario) for g in context.itertuples()] == [
        ("v5.1", "v6.0", "Offline"), ("v5.1", "v6.0", "Server"),
        ("v6.0", "v6.1", "Offline"), ("v6.0", "v6.1", "Server"), ("v6.0", "v6.1", "Interactive"),
    ]
    offline = context[(context.to_round == "v6.1") & (context.scenario == "Offline")].iloc[0]
    assert offline.gain == pytest.approx(679740.0 / 647076.0)


def earlier_summary(tmp_path, offline, server, interactive):
    """A small v6.0 summary in the older layout holding the claimed rack's Qwen3-VL results."""
    rows = [
        summary_row(Organization="NVIDIA", system=SYSTEM, Model=QWEN, Scenario=scenario, Result=str(value),
                    Units=units, version="v6.0")
        for scenario, value, units in (("Offline", offline, "Samples/s"), ("Server", server, "Queries/s"), ("Interactive", interactive, "Queries/s"))
    ]
    path = write_summary(tmp_path / "v6.0-summary.csv", rows, OLDER_LAYOUT)
    return write_tidy(ingest(path), tmp_path / "v6.0.csv")


def test_a_full_earlier_summary_gives_a_primary_verdict(tmp_path):
    v60 = earlier_summary(tmp_path, offline=1000.0, server=1100.0, interactive=218.0)  # Interactive 349.29/218 = 1.60x
    rounds = combine_rounds([load_round_table("data/mlperf/v6.1.csv"), load_round_table(v60)])
    check = check_round_gain(rounds, claim_id="software-gains-1.6x", organization="NVIDIA", system=SYSTEM, model=QWEN,
                             claimed=1.6, from_round="v6.0", to_round="v6.1", scenarios=["Offline", "Server", "Interactive"])
    assert set(check.gains.evidence) == {"mlperf-summary"}
    assert check.verdict.verdict == SUPPORTED_WITH_CAVEATS  # reached in Interactive only
    assert "Only Interactive reaches 1.6x" in check.verdict.text()
    slower = earlier_summary(tmp_path, offline=1000.0, server=1100.0, interactive=300.0)
    rounds = combine_rounds([load_round_table("data/mlperf/v6.1.csv"), load_round_table(slower)])
    check = check_round_gain(rounds, claim_id="software-gains-1.6x", organization="NVIDIA", system=SYSTEM, model=QWEN,
                             claimed=1.6, from_round="v6.0", to_round="v6.1", scenarios=["Offline", "Server", "Interactive"])
    assert check.verdict.verdict == NOT_SUPPORTED


def test_the_chapter_gives_the_primary_verdict_from_a_user_summary(tmp_path):
    """The notebook itself, run with an earlier round's full summary added to its inputs."""
    from claimbook import scorecard
    from claimbook.claims import load_registry
    from claimbook.execute import execute_chapter

    v60 = earlier_summary(tmp_path, offline=1250.0, server=1150.0, interactive=218.3)
    registry = load_registry()
    parameters = registry.chapter_parameters("software_gains")
    parameters["earlier_paths"] = [*parameters["earlier_paths"], str(v60)]
    chapter = registry.chapters["software_gains"]
    output = execute_chapter("software_gains", ROOT / chapter.template, tmp_path / "out.ipynb", parameters, ROOT, chapter.template)
    rows = scorecard.collect(output)
    assert [row["scenario"] for row in rows] == ["Offline", "Server", "Interactive"]
    assert all(row["verdict"] == SUPPORTED_WITH_CAVEATS and "mlperf-summary" in row["evidence"] for row in rows)
    assert rows[2]["measured"] == pytest.approx(349.2921988473666 / 218.3)
