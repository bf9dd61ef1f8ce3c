import math

import pandas as pd
import pytest

from claimbook.inputs.ingest import (
    IngestError,
    gpu_watts_from_notes,
    ingest,
    system_from_location,
    write_tidy,
)
from claimbook.inputs.schema import TIDY_COLUMNS
from tests.helpers.project import ROOT, SHARED_SUMMARY
from tests.helpers.summaries import CURRENT_LAYOUT, OLDER_LAYOUT, summary_row, write_summary


def test_current_layout_is_tidied(tmp_path):
    path = write_summary(
        tmp_path / "summary.csv",
        [
            summary_row(Scenario="offline", Result="720000"),
            summary_row(Scenario="Server", Result="600000", Units="Tokens/s"),
            summary_row(Scenario="SingleStream", Result="5.8", Units="Latency (s)", Model="wan-2.2-t2v-a14b"),
        ],
    )
    table = ingest(path, "v6.1")
    assert list(table.columns) == list(TIDY_COLUMNS)
    offline = table[table["scenario"] == "Offline"].iloc[0]
    assert offline["system"] == "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
    assert offline["total_accelerators"] == 72
    assert offline["per_accelerator"] == pytest.approx(10000.0)
    assert offline["gpu_watts"] == 1400.0
    assert offline["higher_is_better"]
    latency = table[table["scenario"] == "SingleStream"].iloc[0]
    assert latency["metric"] == "latency" and not latency["higher_is_better"]
    assert math.isnan(latency["per_accelerator"])  # no per-GPU rate for a latency


def test_older_layout_derives_total_accelerators(tmp_path):
    row = summary_row(number_of_nodes="2", accelerators_per_node="8", version="v5.0")
    path = write_summary(tmp_path / "old.csv", [row], OLDER_LAYOUT)
    table = ingest(path)
    assert table["total_accelerators"].tolist() == [16]
    assert table["round"].tolist() == ["v5.0"]  # taken from the version column
    assert table["result_id"].tolist() == [""]


def test_older_layout_without_optional_columns_at_all(tmp_path):
    layout = [
        name
        for name in OLDER_LAYOUT
        if name not in ("MlperfModel", "framework", "inferred", "notes", "version")
    ]
    path = write_summary(tmp_path / "minimal.csv", [summary_row()], layout)
    table = ingest(path, "v4.1")
    assert table["gpu_watts"].isna().all()
    assert table["mlperf_model"].tolist() == ["deepseek-r1"]


def test_cpu_only_systems_have_no_per_accelerator_rate(tmp_path):
    row = summary_row(
        accelerators_per_node="0", total_accelerators="0", number_of_nodes="1", accelerator_model_name="N/A"
    )
    table = ingest(write_summary(tmp_path / "cpu.csv", [row]), "v6.1")
    assert table["total_accelerators"].tolist() == [0]
    assert table["per_accelerator"].isna().all()


@pytest.mark.parametrize(
    "override, message",
    [
        ({"Result": "fast"}, "line 2: Result is 'fast', not a number"),
        ({"Result": ""}, "line 2: Result is '', not a number"),
        ({"Result": "0"}, "line 2: Result is '0'; a result must be a finite number above zero"),
        ({"Result": "-3.5"}, "line 2: Result is '-3.5'"),
        ({"Result": "nan"}, "line 2: Result is 'nan'"),
        ({"Result": "inf"}, "line 2: Result is 'inf'"),
        ({"Scenario": "Batch"}, "line 2: unknown Scenario 'Batch'"),
        ({"Units": "Furlongs/s"}, "line 2: unknown Units 'Furlongs/s'"),
        ({"number_of_nodes": "two"}, "line 2: number_of_nodes is 'two', not a whole number"),
        ({"accelerators_per_node": "-4"}, "line 2: accelerators_per_node is -4, which is negative"),
        (
            {"total_accelerators": "70"},
            "line 2: total_accelerators is 70 but number_of_nodes x accelerators_per_node is 18 x 4 = 72",
        ),
        ({"Location": "somewhere"}, "line 2: Location 'somewhere' is not a result's folder"),
        ({"Organization": ""}, "line 2: Organization is empty"),
        (
            {"has_power": "yes"},
            "line 2: has_power is 'yes'; a flag is 1, 0, True or False (True, true or TRUE alike) or empty",
        ),
        (
            {"inferred": "maybe"},
            "line 2: inferred is 'maybe'; a flag is 1, 0, True or False (True, true or TRUE alike) or empty",
        ),
    ],
)
def test_each_bad_value_is_rejected_naming_the_line(tmp_path, override, message):
    path = write_summary(tmp_path / "bad.csv", [summary_row(**override)])
    with pytest.raises(IngestError) as error:
        ingest(path, "v6.1")
    assert str(error.value).startswith(str(path))
    assert message in str(error.value)


def test_missing_required_column_is_named(tmp_path):
    layout = [name for name in CURRENT_LAYOUT if name != "Units"]
    path = write_summary(tmp_path / "nounits.csv", [summary_row()], layout)
    with pytest.raises(IngestError, match=r"missing required column\(s\) Units"):
        ingest(path, "v6.1")


def test_duplicate_results_are_rejected(tmp_path):
    path = write_summary(tmp_path / "dup.csv", [summary_row(), summary_row(Result="2000")])
    with pytest.raises(
        IngestError, match=r"dup.csv, line 3: duplicate result for Acme, closed, .*first at line 2"
    ):
        ingest(path, "v6.1")


def test_line_numbers_count_multiline_fields(tmp_path):
    path = write_summary(
        tmp_path / "multiline.csv",
        [summary_row(notes="first line\nsecond line"), summary_row(Scenario="Server", Result="zero")],
    )
    with pytest.raises(IngestError, match=r"multiline.csv, line 4: Result is 'zero'"):
        ingest(path, "v6.1")


def test_empty_and_header_only_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(IngestError, match="the file is empty"):
        ingest(empty, "v6.1")
    header_only = write_summary(tmp_path / "header.csv", [])
    with pytest.raises(IngestError, match="header but no results"):
        ingest(header_only, "v6.1")


def test_ragged_row_and_missing_file(tmp_path):
    ragged = tmp_path / "ragged.csv"
    ragged.write_text(",".join(CURRENT_LAYOUT) + "\nAcme,available\n")
    with pytest.raises(IngestError, match=r"ragged.csv, line 2: 2 fields where the header has 31"):
        ingest(ragged, "v6.1")
    with pytest.raises(IngestError, match="cannot read the results file"):
        ingest(tmp_path / "absent.csv", "v6.1")


def test_a_summary_of_several_rounds_is_refused_and_never_relabelled(tmp_path):
    path = write_summary(
        tmp_path / "mixed.csv", [summary_row(version="v6.0"), summary_row(Scenario="Server", version="v6.1")]
    )
    with pytest.raises(IngestError, match=r"version column gives several rounds \(v6.0, v6.1\)"):
        ingest(path)
    with pytest.raises(IngestError, match=r"--round v6.1 but its version column gives v6.0"):
        ingest(path, "v6.1")
    unlabelled = write_summary(tmp_path / "none.csv", [summary_row(version="")])
    with pytest.raises(IngestError, match=r"cannot tell the round .*found: none.*pass --round"):
        ingest(unlabelled)
    assert ingest(unlabelled, "v6.1")["round"].unique().tolist() == ["v6.1"]  # what --round is for


@pytest.mark.parametrize(
    "notes, watts",
    [
        ("NVIDIA GB300 NVL72, 1400W TGP Per GPU", 1400.0),
        ("8x B300 TGP 1100W", 1100.0),
        ("HPE; 1200 W GPU power limit. Two replicas", 1200.0),
        ("8 attached GPUs with 600 W power limit each", 600.0),
        ("ManyCoreSoft dg5W (SKU2-T1) chassis", None),
        ("a 1600W power supply and 1000W TGP per GPU", None),  # two wattages: ambiguous
        ("", None),
        ("00W TGP per GPU", None),  # no power stated: a 0 W board would divide by zero
    ],
)
def test_gpu_watts_from_notes(notes, watts):
    assert gpu_watts_from_notes(notes) == watts


def test_system_from_location():
    assert (
        system_from_location("./closed/NVIDIA/results/VR-NVL72_x72/deepseek-r1/Offline/performance/run_1")
        == "VR-NVL72_x72"
    )
    assert system_from_location("closed/NVIDIA/measurements/x") is None


def test_write_tidy_is_atomic_and_leaves_no_temporary(tmp_path):
    frame = ingest(write_summary(tmp_path / "s.csv", [summary_row()]), "v6.1")
    out = write_tidy(frame, tmp_path / "out" / "v6.1.csv")
    assert out.read_text().startswith("round,organization,")
    assert [path.name for path in out.parent.iterdir()] == ["v6.1.csv"]


def test_write_tidy_gives_the_file_the_umask_mode(tmp_path):
    import os
    import stat

    frame = ingest(write_summary(tmp_path / "s.csv", [summary_row()]), "v6.1")
    old = os.umask(0o022)
    try:
        out = write_tidy(frame, tmp_path / "new" / "v6.1.csv")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # not mkstemp's 0o600
    assert stat.S_IMODE(out.parent.stat().st_mode) == 0o755


def test_ingest_error_is_one_class_wherever_it_is_imported_from():
    import claimbook.inputs.csvfile

    assert IngestError is claimbook.inputs.csvfile.IngestError


def test_notes_are_not_copied(committed_results):
    assert "notes" not in committed_results.columns
    assert not committed_results["framework"].str.contains("TGP").any()


@pytest.mark.skipif(
    not SHARED_SUMMARY.is_file(), reason="the official summary is not beside this clone (../shared)"
)
def test_committed_table_is_what_ingest_makes_of_the_official_file(tmp_path):
    fresh = write_tidy(ingest(SHARED_SUMMARY, "v6.1"), tmp_path / "v6.1.csv")
    assert fresh.read_bytes() == (ROOT / "data" / "mlperf" / "v6.1.csv").read_bytes()


def test_committed_table_facts(committed_results):
    assert len(committed_results) == 492
    assert set(committed_results["scenario"]) <= {
        "Offline",
        "Server",
        "Interactive",
        "SingleStream",
        "MultiStream",
    }
    rubin = committed_results[committed_results["system"] == "VR-NVL72_VR-288GB_aarch64x72_TRT"]
    assert set(rubin["availability"]) == {"preview"} and set(rubin["gpu_watts"]) == {2300.0}
    assert (committed_results["location"].str.startswith("./")).all()
    pd.testing.assert_series_equal(
        committed_results["total_accelerators"],
        committed_results["nodes"] * committed_results["accelerators_per_node"],
        check_names=False,
    )


@pytest.mark.parametrize(
    "written, read", [("True", True), ("1", True), ("False", False), ("0", False), ("", False)]
)
def test_the_power_flag_is_read_in_each_spelling(tmp_path, written, read):
    table = ingest(write_summary(tmp_path / "summary.csv", [summary_row(has_power=written)]), "v6.1")
    assert table["has_power"].tolist() == [read]
