"""MLCommons' JSON summary (v5.1's ``summary_results.json``): read as published, told from a CSV
by its content, checked against an independent reading of the raw file."""

import json

import pytest

from claimbook.inputs.ingest import IngestError, ingest, ingest_warnings, write_tidy
from tests.helpers.project import ROOT
from tests.helpers.summaries import summary_row, write_summary

SHARED_JSON = ROOT.parent / "shared" / "mlperf" / "v5.1" / "summary_results.json"
needs_shared = pytest.mark.skipif(
    not SHARED_JSON.is_file(), reason="the official v5.1 summary is not beside this clone (../shared)"
)


def json_result(**values) -> dict:
    """One result as the JSON summary writes it (the fields of ``summary_row``'s default)."""
    result = {
        "ID": "5.1-0001",
        "Submitter": "Acme",
        "Availability": "available",
        "Category": "closed",
        "Suite": "datacenter",
        "System": "Acme GB300-NVL72_GB300-288GB_aarch64x72_TRT",
        "Platform": "GB300-NVL72_GB300-288GB_aarch64x72_TRT",
        "UsedModel": "deepseek-r1",
        "Model": "deepseek-r1",
        "Scenario": "Offline",
        "Nodes": 18,
        "a#": 4,
        "Accelerator": "NVIDIA GB300",
        "Location": "closed/Acme/results/GB300-NVL72_GB300-288GB_aarch64x72_TRT/deepseek-r1/Offline",
        "Software": "TensorRT",
        "Notes": "1400W TGP Per GPU",
        "version": "v6.1",
        "inferred": 0,
        "weight_data_types": "fp4",
        "Performance_Result": 1000.0,
        "Performance_Units": "Tokens/s",
    }
    result.update(values)
    return result


def write_json(path, results) -> object:
    path.write_text(json.dumps(results), encoding="utf-8")
    return path


def test_the_json_and_the_csv_of_the_same_results_give_the_same_table(tmp_path):
    results = [json_result(), json_result(ID="5.1-0002", Scenario="Server", Performance_Result=900.0)]
    results[1]["Location"] = results[1]["Location"].replace("Offline", "Server")
    from_json = ingest(write_json(tmp_path / "summary_results.json", results))
    rows = [
        summary_row(PrivateID="5.1-0001"),
        summary_row(Scenario="Server", Result="900.0", PrivateID="5.1-0002"),
    ]
    from_csv = ingest(write_summary(tmp_path / "summary.csv", rows))
    assert from_json.equals(from_csv)
    assert list(from_json["result_id"]) == ["5.1-0001", "5.1-0002"]
    assert list(from_json["total_accelerators"]) == [72, 72]  # 18 nodes x a# 4 per node


def test_content_not_the_name_tells_the_shape(tmp_path):
    named_csv = write_json(tmp_path / "summary.csv", [json_result()])
    assert len(ingest(named_csv)) == 1
    named_json = write_summary(tmp_path / "summary_results.json", [summary_row()])
    assert len(ingest(named_json)) == 1


def test_cpu_only_and_zero_accelerator_results_are_kept_and_the_latter_named(tmp_path):
    results = [
        json_result(ID="5.1-0003", Accelerator="", **{"a#": ""}),
        json_result(ID="5.1-0004", Scenario="Server", Accelerator="Acme iGPU", **{"a#": 0}),
    ]
    results[1]["Location"] = results[1]["Location"].replace("Offline", "Server")
    path = write_json(tmp_path / "summary_results.json", results)
    table = ingest(path)
    assert list(table["total_accelerators"]) == [0, 0]
    assert table["per_accelerator"].isna().all()
    warnings = ingest_warnings(table, path)
    assert len(warnings) == 1
    assert "'Acme iGPU'" in warnings[0] and "1 result " in warnings[0] and str(path) in warnings[0]


BAD_JSON = {
    "an object, not a list": ({"results": []}, "this is JSON holding an object, not a list of results"),
    "an empty list": ([], "the JSON list holds no results"),
    "a list of numbers": ([1, 2], "result 1: a number, not an object"),
    "Nodes as a list": ([json_result(Nodes=[18])], "result 1 (ID '5.1-0001'): field 'Nodes' is a list"),
    "a result as text": (
        [json_result(Performance_Result="1000")],
        "result 1 (ID '5.1-0001'): field 'Performance_Result' is text \"1000\"; it must be a number",
    ),
    "a count as true": ([json_result(**{"a#": True})], "field 'a#' is a true/false true"),
    "no Location": (
        [{key: value for key, value in json_result().items() if key != "Location"}],
        "result 1 (ID '5.1-0001'): no field 'Location'",
    ),
    "a negative a#": ([json_result(**{"a#": -4})], "result 1 (ID '5.1-0001'): a# is -4, which is negative"),
    "an unknown unit": (
        [json_result(Performance_Units="Frames/s")],
        "result 1 (ID '5.1-0001'): unknown Performance_Units 'Frames/s'",
    ),
}


@pytest.mark.parametrize("case", list(BAD_JSON), ids=list(BAD_JSON))
def test_a_bad_json_summary_is_one_line_naming_the_file_the_result_and_the_field(case, tmp_path):
    content, message = BAD_JSON[case]
    path = write_json(tmp_path / "summary_results.json", content)
    with pytest.raises(IngestError) as raised:
        ingest(path)
    text = str(raised.value)
    assert "\n" not in text and text.startswith(str(path)) and message in text, text


def test_broken_json_names_the_line(tmp_path):
    path = tmp_path / "summary_results.json"
    path.write_text('[\n{"ID": "5.1-0001",\n', encoding="utf-8")
    with pytest.raises(IngestError, match=r"line 3: not readable as JSON"):
        ingest(path)


@pytest.mark.parametrize(
    "text, why",
    [
        ('[{"a#": ' + "9" * 5000 + "}]", "a number too long to read"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
    ids=["a 5000-digit number", "nested 100,000 deep"],
)
def test_json_python_cannot_read_is_one_line(tmp_path, text, why):
    path = tmp_path / "summary.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(IngestError) as raised:
        ingest(path)
    assert str(raised.value) == f"{path}: not readable as JSON ({why})"


def test_a_file_of_neither_shape_is_named(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some words\nand more words\n", encoding="utf-8")
    with pytest.raises(IngestError) as raised:
        ingest(path)
    assert str(raised.value).startswith(str(path)) and "\n" not in str(raised.value)


@needs_shared
def test_every_official_v51_result_is_kept_as_the_raw_file_says(tmp_path):
    raw = json.loads(SHARED_JSON.read_text(encoding="utf-8"))
    table = ingest(SHARED_JSON)
    assert len(table) == len(raw)
    by_id_and_location = {
        ("./" + item["Location"] + "/performance/run_1"): item for item in raw
    }  # an independent reading: the result's folder as the CSV of v6.1 writes it
    assert set(table["location"]) == set(by_id_and_location)
    for row in table.itertuples():
        item = by_id_and_location[row.location]
        per_node = int(item["a#"] or 0)
        assert row.result_id == item["ID"] and row.model == item["UsedModel"]
        assert row.total_accelerators == item["Nodes"] * per_node
        assert row.result == item["Performance_Result"] and row.units == item["Performance_Units"]
        assert row.has_power == item["has_power"]  # MLPerf's measured power: 24 results of v5.1
    zero_named = [item for item in raw if not item["a#"] and item["Accelerator"]]
    warnings = ingest_warnings(table, SHARED_JSON)
    assert len(warnings) == len({item["Accelerator"] for item in zero_named})
    assert all(item["Accelerator"] in " ".join(warnings) for item in zero_named)


@needs_shared
def test_committed_v51_table_is_what_ingest_makes_of_the_official_file(tmp_path):
    fresh = write_tidy(ingest(SHARED_JSON), tmp_path / "v5.1.csv")
    assert fresh.read_bytes() == (ROOT / "data" / "mlperf" / "v5.1.csv").read_bytes()


def test_the_tidy_reader_given_the_json_summary_says_to_ingest_it(tmp_path):
    from claimbook.inputs.results import ResultsError, load_results

    path = write_json(tmp_path / "summary_results.json", [json_result()])
    path.write_text(json.dumps([json_result()], indent=2), encoding="utf-8")  # as published: indented
    with pytest.raises((ResultsError, IngestError)) as raised:
        load_results(path)
    assert "MLCommons' JSON results summary; run `python -m claimbook ingest`" in str(raised.value)


@pytest.mark.parametrize("field", ["has_power", "inferred"])
def test_a_flag_of_another_type_is_refused_naming_it(field, tmp_path):
    path = write_json(tmp_path / "summary_results.json", [json_result(**{field: "yes"})])
    with pytest.raises(IngestError) as error:
        ingest(path)
    assert f"field '{field}' is" in str(error.value) and "0, 1, true or false" in str(error.value)
    flagged = ingest(write_json(tmp_path / "flagged.json", [json_result(**{field: True})]))
    assert flagged[field].tolist() == [True]


def test_the_how_to_page_documents_every_field_the_column_map_reads():
    from claimbook.inputs.summary_json import COLUMN_MAP

    page = (ROOT / "book" / "howto.md").read_text(encoding="utf-8")
    undocumented = [
        field for field, (column, _, _) in COLUMN_MAP.items() if f"| `{field}` | `{column}` |" not in page
    ]
    assert not undocumented, f"book/howto.md's column map lacks {undocumented}"


def test_a_field_written_twice_in_a_result_is_refused_naming_it(tmp_path):
    text = json.dumps([json_result()])
    twice = text.replace(
        '"Performance_Result": 1000.0', '"Performance_Result": 1000.0, "Performance_Result": 9000.0'
    )
    path = tmp_path / "summary_results.json"
    path.write_text(twice, encoding="utf-8")
    with pytest.raises(IngestError) as raised:
        ingest(path)
    assert str(raised.value) == (
        f"{path}, result 1 (ID '5.1-0001'): field 'Performance_Result' is written twice; which one is the "
        "result's is not for the book to guess"
    )
    assert "\n" not in str(raised.value)
    nested = tmp_path / "object.json"
    nested.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(IngestError, match="this is JSON holding an object, not a list"):
        ingest(nested)
