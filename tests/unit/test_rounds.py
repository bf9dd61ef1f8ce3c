"""The book holds rounds: a claim is judged on its announcement's round, whatever else is held;
a registry of a round the book lacks, or a --results file of another round, is one line naming
the rounds. Generic over the rounds the book holds (``data/mlperf/vX.Y.csv``): no code per round."""

import csv
import json

import pandas as pd
import pytest
import yaml

from claimbook.common.paths import held_rounds
from claimbook.inputs.results import load_results
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT

HELD = held_rounds(ROOT / "data" / "mlperf")
needs_two = pytest.mark.skipif(len(HELD) < 2, reason="the book holds one round")


def largest_result(round_name: str):
    """The round's largest throughput result of its most common benchmark (the best of its system
    there, so what a figure claim of it selects): a figure claim's
    subject, read from the tidy table (an independent reading, not the engine's)."""
    from claimbook.inputs.reference import annotate, load_reference

    table = annotate(load_results(HELD[round_name]), load_reference(ROOT / "data" / "reference"))
    throughput = table[(table["metric"] == "throughput") & table["benchmark"].notna()]
    benchmark = throughput["benchmark"].value_counts().index[0]
    return throughput[throughput["benchmark"] == benchmark].sort_values("result", kind="stable").iloc[-1]


def _data_with(results, registry_file):
    """The book's data with ``results`` as its round's table and ``registry_file`` beside its registries."""
    from claimbook.engine.context import load_data

    return load_data(
        str(results),
        reference_dir=str(ROOT / "data" / "reference"),
        registry_dir=str(ROOT / "data" / "claims"),
        chapters_file=str(ROOT / "data" / "chapters.yaml"),
        result_ids_path=str(ROOT / "data" / "result_ids.csv"),
        sources_path=str(ROOT / "data" / "mlperf" / "sources.csv"),
        registry_file=registry_file,
    )


def registry_of(path, round_name: str, row) -> object:
    """A one-claim registry of ``round_name`` whose claim states ``row``'s figure as published."""
    document = {
        "announcement": {
            "id": f"test-{round_name}",
            "title": f"A test announcement of {round_name}",
            "publisher": "Test",
            "claimant": row["organization"],
            "vendor": row["organization"],
            "date": "2030-01-01",
            "round": round_name,
            "source_url": "https://example.org/",
            "source_label": "a test",
            "results_retrieved": "2030-01-01",
            "division": "any",
        },
        "claims": [
            {
                "id": f"test-{round_name.replace('.', '')}-figure",
                "title": "A published figure",
                "statement": "The system reaches its published figure.",
                "kind": "figure",
                "claimed": {str(row["scenario"]): float(row["result"])},
                "scenarios": [str(row["scenario"])],
                "division": "any",
                "benchmark": str(row["benchmark"]),
                "subject": {
                    "organization": str(row["organization"]),
                    "system": str(row["system"]),
                    "combine": "best",
                },
            }
        ],
    }
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


@needs_two
@pytest.mark.parametrize("round_name", list(HELD))
def test_a_registry_is_judged_on_its_own_round_without_results(round_name, tmp_path):
    row = largest_result(round_name)
    path = registry_of(tmp_path / f"test-{round_name}.yaml", round_name, row)
    done = in_process("check", "--registry", path, "--json")
    assert done.returncode == 0, done.stderr
    (report,) = json.loads(done.stdout)
    assert [item["location"] for item in report["results"]] == [row["location"]]
    assert report["rows"][0]["measured"] == pytest.approx(float(row["result"]))


def test_a_registry_of_a_round_the_book_lacks_names_the_rounds_it_holds(tmp_path):
    some = next(iter(HELD))
    row = largest_result(some)
    absent = "v99.9"
    path = registry_of(tmp_path / "test-absent.yaml", absent, row)
    done = in_process("check", "--registry", path)
    one_error_line(done, absent, *HELD, code=2, among_others=True)


@needs_two
def test_a_results_file_of_another_round_than_the_registry_is_an_error_naming_both(tmp_path):
    from tests.helpers.summaries import summary_from_tidy

    first, second = list(HELD)[:2]
    path = registry_of(tmp_path / "test.yaml", first, largest_result(first))
    other = summary_from_tidy(load_results(HELD[second]).head(3), tmp_path / "summary.csv")
    done = in_process("check", "--registry", path, "--results", other, "--round", second)
    one_error_line(done, f"round {first}", f"round {second}", code=2, among_others=True)


@needs_two
def test_for_claim_gives_each_claim_its_own_rounds_results():
    from claimbook.engine.context import book_data

    data = book_data(ROOT)
    for claim in data.registry.all_claims():
        own = data.for_claim(claim).results
        assert set(own["round"]) == {data.announcement(claim).round}


@needs_two
def test_each_page_is_planned_on_its_claims_round(tmp_path):
    from claimbook.engine import load_registry
    from claimbook.pipeline.plan import plan

    first = next(iter(HELD))
    also = registry_of(tmp_path / f"test-{first}.yaml", first, largest_result(first))
    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml", also=also)
    jobs = plan(registry)
    for job in jobs:
        rounds = {registry.announcements[registry.claim(claim).announcement].round for claim in job.claims}
        if len(rounds) == 1:
            assert job.parameters["results_path"] == f"data/mlperf/{rounds.pop()}.csv", job.name
    assert any(job.parameters["results_path"] == f"data/mlperf/{first}.csv" for job in jobs)


def test_an_out_book_gets_every_round_the_book_holds(tmp_path):
    from claimbook.pipeline.staging import copy_sources

    copy_sources(ROOT, tmp_path, with_data=True)
    assert sorted(held_rounds(tmp_path / "data" / "mlperf")) == sorted(HELD)


def test_a_page_given_the_json_summary_reads_it_as_the_committed_round():
    import pandas as pd

    from claimbook.engine.context import read_results
    from tests.unit.test_ingest_json import SHARED_JSON

    if not SHARED_JSON.is_file():
        pytest.skip("the official v5.1 summary is not beside this clone (../shared)")
    pd.testing.assert_frame_equal(read_results(str(SHARED_JSON)), load_results(HELD["v5.1"]))


@pytest.mark.parametrize("round_name", list(HELD))
def test_a_citation_gives_the_result_ids_a_summary_carries(round_name):
    from claimbook.engine.context import book_data
    from claimbook.present import blocks

    data = book_data(ROOT)
    table = data.rounds.table(round_name)
    rows = table.head(3)
    text = blocks.citation(rows, None, data.sources)
    ids = [value for value in rows["result_id"] if isinstance(value, str) and value]
    assert all(value in text for value in ids)
    assert ("carries no ID" in text) is False or not ids


def test_a_synthetic_third_round_is_held_and_judged_as_its_own(tmp_path):
    """A renamed copy of a real round, written here: the book holds it beside the others, a
    registry of it is judged on it alone, and the others' claims on their own."""
    from claimbook.engine import check
    from claimbook.inputs.ingest import write_tidy

    folder = tmp_path / "data" / "mlperf"
    folder.mkdir(parents=True)
    for path in HELD.values():
        (folder / path.name).write_bytes(path.read_bytes())
    real = list(HELD)[-1]
    synthetic = "v10.0"  # after v6.1 by version, before it by spelling
    table = load_results(HELD[real])
    table["round"] = synthetic
    write_tidy(table, folder / f"{synthetic}.csv")
    assert list(held_rounds(folder)) == [*HELD, synthetic]  # ordered by version, not by name

    registry = registry_of(tmp_path / f"test-{synthetic}.yaml", synthetic, largest_result(real))
    data = _data_with(folder / f"{real}.csv", registry)
    assert data.rounds.names == [*HELD, synthetic]
    for claim in data.registry.claims:
        judged = check(claim, data)
        if judged.rows is not None and not judged.rows.empty:
            assert set(judged.rows["round"]) == {data.announcement(claim).round}, claim.id


@needs_two
def test_a_page_where_rounds_meet_depends_on_every_held_round(tmp_path):
    from claimbook.engine import load_registry
    from claimbook.pipeline.plan import _rounds_read, plan

    first = next(iter(HELD))
    also = registry_of(tmp_path / f"test-{first}.yaml", first, largest_result(first))
    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml", also=also)
    jobs = plan(registry)
    spanning = [
        job
        for job in jobs
        if len({p["announcement"]["round"] for p in job.digest_claims if "announcement" in p}) > 1
    ]
    assert spanning  # a page that reads every claim (where the announcements meet)
    for job in spanning:
        (entry,) = _rounds_read(ROOT, job)
        assert sorted(entry["rounds held"]) == sorted(HELD)
    single = [job for job in jobs if job not in spanning]
    assert all(_rounds_read(ROOT, job) == [] for job in single)


@needs_two
def test_results_of_another_round_than_the_claims_say_so_naming_both(tmp_path):
    from claimbook.engine.context import book_data
    from tests.helpers.summaries import summary_from_tidy

    data = book_data(ROOT)
    claim = data.registry.claims[0]
    own = data.announcement(claim).round
    other = next(name for name in HELD if name != own)
    path = summary_from_tidy(load_results(HELD[other]).head(3), tmp_path / "summary.csv")
    done = in_process("check", claim.id, "--results", path, "--round", other)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "the results given hold round" in line]
    assert f"round {other}" in line and f"1 claim of {own} judged on their own round" in line, line


@pytest.mark.parametrize("round_name", list(HELD))
def test_a_round_its_version_column_contradicts_relabels_nothing(round_name, tmp_path):
    """``--round`` labels a summary whose version column does not say its round; given against
    the column (the whole file's, or one row's), it is refused in one line, before anything."""
    import csv

    from claimbook.inputs.ingest import IngestError, ingest
    from tests.helpers.summaries import summary_from_tidy

    path = summary_from_tidy(load_results(HELD[round_name]).head(3), tmp_path / "summary.csv")
    assert set(ingest(path, round_name)["round"]) == {round_name}  # the file's own round: read
    other = "v99.9"
    done = in_process("check", "--results", path, "--round", other)
    one_error_line(done, f"--round {other}", f"gives {round_name}", "never relabelled", code=2)
    with open(path, newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    rows[1]["version"] = other  # one row of another round among the file's
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for given in (round_name, other):
        with pytest.raises(IngestError, match="never relabelled"):
            ingest(path, given)


@pytest.mark.parametrize("round_name", list(HELD))
def test_a_rounds_table_holds_only_its_rounds_results(round_name, tmp_path):
    """``data/mlperf/ROUND.csv`` edited to hold a row of another round is refused, naming the line."""
    from claimbook.inputs.results import ResultsError

    table = load_results(HELD[round_name])
    table.loc[2, "round"] = "v99.9"
    path = tmp_path / f"{round_name}.csv"
    table.to_csv(path, index=False)
    with pytest.raises(ResultsError, match=rf"line 4: round 'v99.9' in the table of round {round_name}"):
        load_results(path)
    table.to_csv(tmp_path / "renamed.csv", index=False)  # a table of no round's name: read as it is
    assert len(load_results(tmp_path / "renamed.csv")) == len(table)


@pytest.mark.parametrize(
    "column, value, said",
    [
        ("result", "inf", "result is 'inf'; a result must be a finite number above zero"),
        ("result", "-3", "result is '-3'; a result must be a finite number above zero"),
        ("round", "six", "the round 'six' is not of the form vMAJOR.MINOR"),
        ("units", "Furlongs/s", "unknown units 'Furlongs/s'"),
        ("higher_is_better", "False", "higher_is_better is 'False', but Tokens/s is higher-is-better (True)"),
        ("total_accelerators", "0", "total_accelerators is '0', not a whole number from 1 to 1,000,000"),
        ("organization", "NVIDIA\x1b[31m", "organization holds the character \\x1b (a control"),
        ("system", "GB300\u202e", "system holds the character \\u202e"),
        ("total_accelerators", "9" * 20, "total_accelerators is '99999999999999999999', not a whole number"),
    ],
)
def test_an_edited_earlier_round_table_is_held_to_the_rules_it_was_written_by(column, value, said, tmp_path):
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.earlier import load_round_table

    committed = ROOT / "data" / "mlperf" / "earlier_rounds.csv"
    with committed.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    rows[1][column] = value
    edited = tmp_path / "earlier_rounds.csv"
    with edited.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(IngestError) as raised:
        load_round_table(edited)
    assert str(raised.value).startswith(f"{edited}, line 3: {said}"), str(raised.value)


def test_a_rounds_table_of_an_older_ingest_says_to_ingest_again(tmp_path):
    from claimbook.inputs.earlier import load_round_table
    from claimbook.inputs.results import ResultsError

    table = pd.read_csv(ROOT / "data" / "mlperf" / "v6.1.csv", dtype=str, keep_default_na=False)
    older = tmp_path / "v6.1.csv"
    table.drop(columns=["has_power"]).to_csv(older, index=False)
    with pytest.raises(ResultsError) as raised:
        load_round_table(older)
    assert str(raised.value) == (
        f"{older}: not a tidy results table, missing column(s) has_power (a table an older ingest wrote: "
        "ingest the round's summary again)"
    )


@pytest.mark.parametrize("content, said", [(b"", "the file is empty"), (b"\xff\xfe\x00b", "not UTF-8")])
def test_an_unreadable_earlier_round_table_is_named(tmp_path, content, said):
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.earlier import load_round_table

    table = tmp_path / "earlier_rounds.csv"
    table.write_bytes(content)
    with pytest.raises(IngestError) as raised:
        load_round_table(table)
    assert str(raised.value).startswith(f"{table}: ") and said in str(raised.value), str(raised.value)


def test_the_round_line_names_the_claims_of_later_rounds_that_look_back_on_the_file():
    """A file of v6.0 given in place of the book's: the v6.1 claims whose from_round is v6.0 meet
    it, and the line says so (it said every v6.1 claim was judged on committed results alone)."""
    from claimbook.engine import load_registry
    from claimbook.engine.context import results_round_line

    registry = load_registry()
    looking_back = sorted(
        claim.id
        for claim in registry.claims
        if any(part.get("from_round") == "v6.0" for part in (claim, *claim.parts))
    )
    assert looking_back, "the registries have no claim from v6.0"
    line = results_round_line(registry, "v6.0")
    assert f"({len(looking_back)} of them also on the v6.0 results given, their from_round: " in line, line
    assert "also on the" not in results_round_line(registry, "v5.1")


def test_a_gain_from_a_round_held_in_full_cites_the_earlier_result_too(tmp_path):
    """A round-gain from a round the book holds in full stands on two published results: the page
    cites both rounds' results (it cited the current one only)."""
    from claimbook.engine import check
    from claimbook.inputs.ingest import write_tidy

    folder = tmp_path / "data" / "mlperf"
    folder.mkdir(parents=True)
    for path in HELD.values():
        (folder / path.name).write_bytes(path.read_bytes())
    real, later = list(HELD)[-1], "v10.0"
    row = largest_result(real)
    table = load_results(HELD[real])
    table["round"] = later
    table["result"] = table["result"] * 1.5
    table["per_accelerator"] = table["per_accelerator"] * 1.5
    write_tidy(table, folder / f"{later}.csv")
    path = registry_of(tmp_path / f"test-{later}.yaml", later, row)
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    claim = document["claims"][0]
    for name in ("claimed", "scenarios", "division"):
        claim.pop(name)
    claim.update({"kind": "round-gain", "from_round": real, "claimed": 1.5, "quantifier": "exactly"})
    claim["subject"].pop("combine")
    claim["scenarios"] = [str(row["scenario"])]
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    data = _data_with(folder / f"{later}.csv", path)
    gain = next(
        item for item in data.registry.claims if item.kind == "round-gain" and item.id.startswith("test-")
    )
    judged = check(gain, data)
    assert judged.verdict.startswith("supported"), judged.reason
    assert set(judged.rows["round"]) == {later, real}, judged.rows[["round", "location"]]
    assert set(judged.rows["location"]) == {row["location"]}  # the same folder in both rounds


def test_ingest_of_a_round_without_a_source_says_where_to_record_it(tmp_path):
    from tests.helpers.clirun import in_copy
    from tests.helpers.project import project_copy
    from tests.helpers.summaries import summary_row, write_summary

    copy = project_copy(tmp_path / "project")
    summary = write_summary(tmp_path / "summary.csv", [summary_row(version="v9.9")])
    done = in_copy(copy, "ingest", summary)
    assert done.returncode == 0, done.stderr
    assert (copy / "data" / "mlperf" / "v9.9.csv").is_file()
    assert "has no line for v9.9: its pages will say that no source of its results is recorded" in done.stderr
    known = write_summary(tmp_path / "known.csv", [summary_row(version="v6.1")])
    again = in_copy(copy, "ingest", known, "--out", tmp_path / "out.csv")
    assert again.returncode == 0 and "has no line" not in again.stderr, again.stderr
