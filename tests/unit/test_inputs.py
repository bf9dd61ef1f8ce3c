"""Every kind of bad input file, through the real command line: ``ingest`` and ``diff`` exit with
code 2 and one line ``error: FILE...: what the file looks like``, never a traceback.

Each input is built in a temporary folder; ingest writes (if at all) only into that folder.
"""

import codecs
import csv
import gzip
import io
import re

import pytest

from claimbook.inputs.csvfile import read_head, sniff
from tests.helpers.clirun import as_subprocess, in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT, SHARED_SUMMARY
from tests.helpers.summaries import CURRENT_LAYOUT, summary_row, write_summary

COMMITTED = ROOT / "data" / "mlperf" / "v6.1.csv"


# In this process (a subprocess costs a second of imports); the Latin-1 case runs the real
# `python -m claimbook`, to prove the entry point reports the same way.
claimbook = in_process


def raw_rows():
    # The notes hold a comma, so the CSV quotes them: a file cut inside them ends mid-quote.
    return [
        summary_row(Scenario=scenario, notes="NVIDIA GB300, 1400W TGP Per GPU")
        for scenario in ("Offline", "Server")
    ]


def raw_summary(tmp_path) -> bytes:
    return write_summary(tmp_path / "source.csv", raw_rows()).read_bytes()


def separated_by(delimiter):
    def build(tmp_path):
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CURRENT_LAYOUT, delimiter=delimiter, lineterminator="\n")
        writer.writeheader()
        writer.writerows(raw_rows())
        return out.getvalue().encode("utf-8")

    return build


def cut_inside_last_quote(data: bytes) -> bytes:
    """The file up to a few characters into the last quoted field: a download cut off mid-record."""
    closing = data.rindex(b'"')
    return data[: data.rindex(b'"', 0, closing) + 5]


HTML_PAGE = (
    b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Page not found &middot; GitHub'
    b"</title></head><body><h1>404</h1></body></html>\n"
)

# name -> what the file holds; the same files serve as raw input (ingest) and tidy input (diff).
COMMON = {
    "empty": lambda tmp_path: b"",
    "whitespace-only": lambda tmp_path: b"  \n\t\n\n",
    "gzip": lambda tmp_path: gzip.compress(raw_summary(tmp_path)),
    "png": lambda tmp_path: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "non-text bytes": lambda tmp_path: bytes(0x80 + (index * 37) % 0x80 for index in range(3000)),
    "html page": lambda tmp_path: HTML_PAGE,
    "semicolon csv": separated_by(";"),
    "tab csv": separated_by("\t"),
    "utf-16": lambda tmp_path: raw_summary(tmp_path).decode("utf-8").encode("utf-16"),
    "latin-1": lambda tmp_path: (
        raw_summary(tmp_path).decode("utf-8").replace("Acme", "Acmé").encode("latin-1")
    ),
}
PHRASES = {
    "empty": "the file is empty (0 bytes)",
    "whitespace-only": "the file is empty (only whitespace)",
    "gzip": "gzip-compressed file, not a CSV",
    "png": "PNG image, not a CSV",
    "non-text bytes": "binary file (mostly bytes that are not text), not a CSV",
    "html page": "HTML page (title 'Page not found · GitHub'), not a CSV",
    "semicolon csv": "semicolon-separated",
    "tab csv": "tab-separated",
    "utf-16": "UTF-16 text, not UTF-8; re-save it as UTF-8",
    "latin-1": "Latin-1 or Windows-1252 encoded; re-save it as UTF-8",
}

INGEST_CASES = {
    **COMMON,
    "truncated csv": lambda tmp_path: cut_inside_last_quote(raw_summary(tmp_path)),
    "tidy table": lambda tmp_path: COMMITTED.read_bytes(),
}
INGEST_PHRASES = {
    **PHRASES,
    "truncated csv": "the file ends inside a quoted field begun on this line; it looks truncated",
    "tidy table": "this is a tidy table made by ingest; pass the raw summary.csv",
}

DIFF_CASES = {
    **COMMON,
    "truncated csv": lambda tmp_path: cut_inside_last_quote(COMMITTED.read_bytes()),
    "raw summary": raw_summary,
    "other table": lambda tmp_path: (ROOT / "data" / "prices" / "gpu_hour_prices.csv").read_bytes(),
    "bad value": lambda tmp_path: COMMITTED.read_bytes().replace(b",1,8,8,", b",1,eight,8,", 1),
}
DIFF_PHRASES = {
    **PHRASES,
    "truncated csv": "the file ends inside a quoted field begun on this line; it looks truncated",
    "raw summary": "this is a raw MLCommons summary; run `python -m claimbook ingest",
    "other table": "not a tidy results table, missing column(s) round, organization",
    "bad value": "accelerators_per_node is 'eight', not a whole number",
}


@pytest.mark.parametrize("case", list(INGEST_CASES))
def test_ingest_names_what_a_bad_file_is(tmp_path, case):
    path = tmp_path / f"{case.replace(' ', '-')}.csv"
    path.write_bytes(INGEST_CASES[case](tmp_path))
    out = tmp_path / "out" / "tidy.csv"
    done = claimbook("ingest", path, "--out", out)
    one_error_line(done, INGEST_PHRASES[case], code=2, starts=f"error: {path}", stdout="")
    assert not out.parent.exists()


@pytest.mark.parametrize("case", list(DIFF_CASES))
@pytest.mark.parametrize("side", ["new", "old"])
def test_diff_names_what_a_bad_file_is(tmp_path, case, side):
    path = tmp_path / f"{case.replace(' ', '-')}.csv"
    path.write_bytes(DIFF_CASES[case](tmp_path))
    pair = (COMMITTED, path) if side == "new" else (path, COMMITTED)
    one_error_line(claimbook("diff", *pair), DIFF_PHRASES[case], code=2, starts=f"error: {path}", stdout="")


def test_diff_of_two_rounds_tables_is_refused_naming_both():
    """Each round's results are new submissions, not changed results: a diff of them would list
    every system's result of both as "changed" and the claims of both rounds as touched."""
    older, newer = ROOT / "data" / "mlperf" / "v5.1.csv", ROOT / "data" / "mlperf" / "v6.1.csv"
    line = one_error_line(
        claimbook("diff", older, newer),
        "holds v5.1 and",
        "v6.1: diff compares two versions of one round's",
        code=2,
    )
    assert str(older) in line and str(newer) in line


def test_diff_of_a_missing_file(tmp_path):
    absent = tmp_path / "absent.csv"
    one_error_line(
        claimbook("diff", COMMITTED, absent),
        "no such file (a tidy results table",
        code=2,
        starts=f"error: {absent}",
        stdout="",
    )


def test_the_latin_1_line_is_named(tmp_path):
    rows = [summary_row(), summary_row(Scenario="Server", Organization="Acmé")]
    path = tmp_path / "latin.csv"
    path.write_bytes(write_summary(tmp_path / "utf8.csv", rows).read_text().encode("latin-1"))
    done = as_subprocess("ingest", path, "--out", tmp_path / "out.csv")
    one_error_line(done, "not UTF-8 text (byte 0xe9)", code=2, starts=f"error: {path}, line 3", stdout="")


def test_a_bad_byte_beyond_the_first_look_is_named_with_its_line(tmp_path):
    rows = [summary_row(system=f"S{number}") for number in range(300)]
    rows[-1]["Organization"] = "Acmé"
    rows[-1]["Location"] = rows[-1]["Location"].replace("/Acme/", "/Acmé/")
    text = write_summary(tmp_path / "utf8.csv", rows).read_text()
    assert len(text.encode()) > 65536  # past what is looked at before parsing
    path = tmp_path / "latin.csv"
    path.write_bytes(text.encode("latin-1"))
    done = claimbook("ingest", path, "--out", tmp_path / "out.csv")
    one_error_line(done, "not UTF-8 text (byte 0xe9)", code=2, starts=f"error: {path}, line 301", stdout="")


def test_a_record_cut_off_mid_line_is_called_truncated(tmp_path):
    data = raw_summary(tmp_path)
    path = tmp_path / "cut.csv"
    path.write_bytes(data[: data.rindex(b",Acme ") + 4])  # the last record, a few fields in, no line end
    done = claimbook("ingest", path, "--out", tmp_path / "out.csv")
    one_error_line(
        done,
        "of 31 fields and no line end; it looks truncated",
        code=2,
        starts=f"error: {path}, line 3",
        stdout="",
    )


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("404: Not Found", "HTTP error message ('404: Not Found')"),
        ('{"message": "Not Found"}\n', "this is JSON"),
        ("<?xml version='1.0'?><Error><Code>NoSuchKey</Code></Error>", "XML or other markup"),
    ],
)
def test_error_bodies_served_instead_of_a_csv(tmp_path, text, phrase):
    path = tmp_path / "body.csv"
    path.write_text(text)
    one_error_line(
        claimbook("ingest", path, "--out", tmp_path / "out.csv"),
        phrase,
        code=2,
        starts=f"error: {path}",
        stdout="",
    )


def test_utf_8_with_a_byte_order_mark_is_fine(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(codecs.BOM_UTF8 + raw_summary(tmp_path))
    done = claimbook("ingest", path, "--out", tmp_path / "out.csv")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "path", sorted((ROOT / "data").rglob("*.csv")) + [SHARED_SUMMARY], ids=lambda path: path.name
)
def test_real_tables_pass_the_first_look(path):
    """No false alarm on the project's own tables or the official summary."""
    if not path.is_file():
        pytest.skip("the official summary is not beside this clone (../shared)")
    assert sniff(*read_head(path, "table")) is None


@pytest.mark.parametrize(
    "head, found",
    [
        (b"a,b\n1,2\n", None),
        (
            b"Organization;Result;Location\n",
            "semicolon-separated (the header is one field with 2 semicolons)",
        ),
        (b"a|b|c\n", "pipe-separated"),
        (b"a\x00b\x00,\x00c\x00\n\x00", "UTF-16 text (without a byte order mark)"),
        (codecs.BOM_UTF32_LE + "a,b\n".encode("utf-32-le"), "UTF-32 text"),
        (b"PK\x03\x04rest", "zip archive (or an Excel workbook)"),
        (b"a,b\n1,\x1b\x01\x02\x03\x04\x05\n", "binary file"),
        ("a,b\n1,é\n".encode("cp1252"), "not UTF-8 text (byte 0xe9)"),
    ],
)
def test_sniff(head, found):
    result = sniff(head, True)
    assert (result is None) if found is None else found in result[1]


# ---------------------------------------------------------------------------------------------
# Hostile or broken registries: each mistake is one line naming the file and the field, and
# nothing a registry says can name a path outside its folder, run in a page or exhaust memory.

AMD = ROOT / "data" / "claims" / "amd-v6.1.yaml"
LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + n)}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 9)}]\n" for n in range(8)
)


def _swap(old: str, new: str):
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return change


# case: (how the AMD registry's text changes, what the one line says)
REGISTRY_CASES = {
    "announcement id with ../": (
        _swap("  id: amd-v6.1\n", "  id: ../../../../README\n"),
        "field announcement.id",
    ),
    "announcement id of 300 characters": (
        _swap("  id: amd-v6.1\n", f"  id: {'a' * 300}\n"),
        "at most 80 characters",
    ),
    "announcement id with a newline": (
        _swap("  id: amd-v6.1\n", '  id: "amd\\nx"\n'),
        "field announcement.id",
    ),
    "claim id with ../": (_swap("  - id: amd-gptoss-scaling-72\n", "  - id: ../../x\n"), "field id"),
    "round that is a path": (_swap("  round: v6.1\n", "  round: ../../x\n"), "field announcement.round"),
    "date that is no date": (
        _swap('  date: "2026-09-17"\n', "  date: not-a-date\n"),
        "field announcement.date",
    ),
    "date not in the calendar": (_swap('  date: "2026-09-17"\n', '  date: "2026-02-30"\n'), "not a day"),
    "javascript: link": (
        _swap(
            "  source_url: https://rocm.blogs.amd.com/\n",
            "  source_url: 'javascript:alert(document.domain)'\n",
        ),
        "field announcement.source_url: a link must be an http or https address",
    ),
    "data: link": (
        _swap(
            "  source_url: https://rocm.blogs.amd.com/\n",
            "  source_url: 'data:text/html,<script>1</script>'\n",
        ),
        "http or https",
    ),
    "relative link": (
        _swap("  source_url: https://rocm.blogs.amd.com/\n", "  source_url: /etc/passwd\n"),
        "http or https",
    ),
    "title that is a mapping": (
        _swap("  title: AMD's MLPerf Inference v6.1 technical post\n", "  title: {a: b}\n"),
        "field announcement.title: expected text",
    ),
    "self-referencing alias": (
        _swap('    unit: "%"\n', "    unit: &u [*u]\n"),
        "the alias *u is inside its own anchor",
    ),
    "billion laughs in the header": (
        _swap(
            "  division: closed\n",
            "  division: closed\n" + "".join("  " + line + "\n" for line in LAUGHS.splitlines()),
        ),
        "its aliases expand to more than 1,000,000 values",
    ),
    "claimed NaN": (
        _swap("    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: .nan\n"),
        "field claimed: nan is not a finite number",
    ),
    "claimed infinite": (
        _swap("    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: .inf\n"),
        "not a finite number",
    ),
    "claimed text in a mapping": (
        _swap("    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: {Offline: abc, Server: 94.6}\n"),
        "field claimed.Offline: expected a number",
    ),
    "claimed of 400 digits": (
        _swap("    claimed: {Offline: 94.9, Server: 94.6}\n", f"    claimed: {'9' * 400}\n"),
        "field claimed: 99999999999999999999... is not a sensible figure",
    ),
    "claimed of 5,000 digits": (
        _swap("    claimed: {Offline: 94.9, Server: 94.6}\n", f"    claimed: {'9' * 5000}\n"),
        "not readable as YAML (a number too long to read)",
    ),
    "claimed true": (
        _swap("    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: true\n"),
        "field claimed: expected a number",
    ),
    "scale NaN": (
        _swap("        scale: 1000000\n", "        scale: .nan\n"),
        "field scale: nan is not a finite number",
    ),
}


def registry_folder(tmp_path, text: str) -> tuple:
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "amd-v6.1.yaml").write_text(text, encoding="utf-8")
    return folder, tmp_path / "no-chapters.yaml"


def one_registry_error(folder, chapters, *phrases) -> str:
    from claimbook.claims.registry import RegistryError
    from claimbook.engine import load_registry

    with pytest.raises(RegistryError) as raised:
        load_registry(folder, chapters)
    message = str(raised.value)
    assert "\n" not in message, message
    assert message.startswith(str(folder / "amd-v6.1.yaml")), message
    for phrase in phrases:
        assert phrase in message, message
    assert len(message) < 400, message
    return message


@pytest.mark.parametrize("case", list(REGISTRY_CASES))
def test_a_hostile_registry_is_one_line(tmp_path, case):
    change, phrase = REGISTRY_CASES[case]
    folder, chapters = registry_folder(tmp_path, change(AMD.read_text(encoding="utf-8")))
    one_registry_error(folder, chapters, phrase)


@pytest.mark.parametrize("written", ["2:1", "0:7", "0x7", "0b111"])
def test_a_number_yaml_1_1_reads_in_another_base_is_the_text_it_is(tmp_path, written):
    """YAML 1.1 reads "2:1" as sexagesimal (121), "0x7" and "0b111" as hexadecimal and binary:
    a claimed count so written is refused naming its field, never judged as that number; "010"
    is the text it is, which a figure reads as ten (YAML 1.1 read eight)."""
    from claimbook.common.safe_read import load_yaml
    from claimbook.engine import quantifiers

    text = _swap("        claimed: 7\n", f"        claimed: {written}\n")(AMD.read_text(encoding="utf-8"))
    folder, chapters = registry_folder(tmp_path, text)
    one_registry_error(folder, chapters, "field claimed: ")
    loaded = load_yaml(f"a: {written}\nb: 010\nc: 1_000\nd: -2.50\n", "test")
    assert loaded == {"a": written, "b": "010", "c": 1000, "d": -2.5}
    assert quantifiers.figure(loaded["b"]).value == 10


def test_an_unquoted_date_is_read_as_the_text_it_is(tmp_path):
    text = _swap('  date: "2026-09-17"\n', "  date: 2026-09-17\n")(AMD.read_text(encoding="utf-8"))
    text = _swap('  results_retrieved: "2026-09-16"\n', "  results_retrieved: 2026-09-16\n")(text)
    from claimbook.engine import load_registry

    registry = load_registry(*registry_folder(tmp_path, text))
    announcement = registry.announcements["amd-v6.1"]
    assert (announcement.date, announcement.results_retrieved) == ("2026-09-17", "2026-09-16")


def test_a_registry_that_is_a_link_to_dev_zero(tmp_path):
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "amd-v6.1.yaml").symlink_to("/dev/zero")
    one_registry_error(folder, tmp_path / "none.yaml", "not a regular file (a device)")


def _no_hang(seconds: int = 10):
    """Fail (instead of hanging the suite) if the block takes longer than ``seconds``."""
    import signal

    def alarm(signum, frame):
        raise AssertionError(f"took longer than {seconds} s: a read that blocks")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    return signal


def test_a_registry_that_is_a_fifo_does_not_block(tmp_path):
    import os

    folder = tmp_path / "claims"
    folder.mkdir()
    os.mkfifo(folder / "amd-v6.1.yaml")
    signal = _no_hang()
    try:
        one_registry_error(folder, tmp_path / "none.yaml", "not a regular file (a named pipe)")
    finally:
        signal.alarm(0)


def test_a_registry_too_large_to_be_one(tmp_path):
    from claimbook.common.safe_read import MAX_TEXT

    text = AMD.read_text(encoding="utf-8") + "# " + "x" * MAX_TEXT + "\n"
    one_registry_error(*registry_folder(tmp_path, text), f"at most {MAX_TEXT:,} bytes")


def test_a_summary_that_is_a_fifo_or_a_device(tmp_path):
    import os

    fifo = tmp_path / "summary.csv"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.csv"
    zero.symlink_to("/dev/zero")
    signal = _no_hang()
    try:
        for path, kind in ((fifo, "a named pipe"), (zero, "a device")):
            out = tmp_path / "out" / "tidy.csv"
            done = claimbook("ingest", path, "--out", out)
            one_error_line(done, f"not a regular file ({kind})", code=2, starts=f"error: {path}", stdout="")
            assert not out.parent.exists()
    finally:
        signal.alarm(0)


def test_a_version_column_that_is_a_path(tmp_path):
    """The round a summary names in its version column names files: a path is refused."""
    path = write_summary(tmp_path / "summary.csv", [summary_row(version="../../data/mlperf/v6.1")])
    done = claimbook("ingest", path)
    one_error_line(
        done,
        "its version column gives the round '../../data/mlperf/v6.1'",
        code=2,
        starts=f"error: {path}",
        stdout="",
    )


@pytest.mark.parametrize(
    "template", ["../../../tmp/evil.ipynb", "/tmp/evil.ipynb", "notebooks/../x.ipynb", "x.py"]
)
def test_a_chapter_template_is_a_notebook_of_the_project(tmp_path, template):
    from claimbook.claims.registry import RegistryError
    from claimbook.engine import load_registry

    chapters = tmp_path / "chapters.yaml"
    chapters.write_text(f"economics: {{title: Economics, template: {template!r}}}\n", encoding="utf-8")
    with pytest.raises(RegistryError) as raised:
        load_registry(ROOT / "data" / "claims", chapters)
    assert str(raised.value).startswith(f"{chapters}: chapter economics: field template: a notebook of"), (
        raised.value
    )


# -- the reviewed reference tables cover every round the book holds ---------------------------


def _committed_rounds():
    return sorted((ROOT / "data" / "mlperf").glob("v*.csv"))


@pytest.mark.parametrize("path", _committed_rounds(), ids=lambda path: path.stem)
def test_every_accelerator_and_benchmark_of_each_round_held_has_a_reviewed_line(path):
    from claimbook.inputs.reference import load_reference, unlisted
    from claimbook.inputs.results import load_results

    reference = load_reference(ROOT / "data" / "reference")
    table = load_results(path)
    assert unlisted(table, reference) == []
    for accelerator in set(table["accelerator"]):
        family = reference.family(accelerator)
        assert family.listed and family.vendor and family.form_factor, accelerator


def test_an_unknown_accelerator_and_benchmark_are_one_warning_each_with_their_count(tmp_path):
    from claimbook.inputs.ingest import ingest
    from claimbook.inputs.reference import load_reference, unlisted

    rows = [
        summary_row(
            system=f"sys{index}", accelerator_model_name="Acme Tensor X9", Model="acme-bench", MlperfModel=""
        )
        for index in range(3)
    ]
    table = ingest(write_summary(tmp_path / "summary.csv", rows), "v6.1")
    said = unlisted(table, load_reference(ROOT / "data" / "reference"))
    assert len(said) == 2, said
    assert "'Acme Tensor X9' (3 results)" in said[0] and "accelerators.csv" in said[0]
    assert "'acme-bench' (3 results)" in said[1] and "benchmarks.csv" in said[1]


def test_an_open_division_variant_is_counted_under_its_mlperf_benchmark():
    import pandas as pd

    from claimbook.inputs.reference import annotate, load_reference

    results = pd.DataFrame(
        {
            "accelerator": ["N/A", "N/A"],
            "model": ["efficientnet-int8-lite0", "llama3_1-8b"],
            "mlperf_model": ["resnet", "llama3.1-8b"],
        }
    )
    annotated = annotate(results, load_reference(ROOT / "data" / "reference"))
    assert annotated["benchmark"].tolist() == ["resnet50", "llama3.1-8b"]


def test_a_chart_marks_an_accelerator_without_a_family_visibly_under_its_published_name():
    from claimbook.inputs.reference import load_reference
    from claimbook.present.charts import family_scales

    reference = load_reference(ROOT / "data" / "reference")
    published = "Acme Tensor X9 64GB"
    colours, shapes = family_scales(reference, [reference.short_name("NVIDIA H200"), published])
    domain, colour_range = list(colours.domain), list(colours.range)
    assert published in domain
    colour = colour_range[domain.index(published)]
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    assert max(red, green, blue) - min(red, green, blue) > 80, colour  # a colour, not a pale grey
    reviewed = set(zip(reference.families()["colour"], reference.families()["shape"]))
    assert (colour, list(shapes.range)[domain.index(published)]) not in reviewed


def test_a_claim_looks_back_on_earlier_rounds_only_and_a_held_summary_supersedes_weaker_sources():
    from claimbook.inputs.earlier import before_round, load_round_table
    from claimbook.inputs.results import load_results

    partial = load_round_table(ROOT / "data" / "mlperf" / "earlier_rounds.csv")
    held = {path.stem: load_results(path) for path in _committed_rounds()}
    assert "v5.1" in held and "v5.1" in set(partial["round"]), "the test needs v5.1 in both"
    # A v5.1 claim has nothing earlier in the book: v6.0's figures are later, not earlier.
    assert before_round(partial, held, "v5.1").empty
    looked_back = before_round(partial, held, "v6.1")
    assert set(looked_back["round"]) == {"v5.1", "v6.0"}
    # Every v5.1 figure the partial table gives from a weaker source is a result of the held
    # summary: its strongest figure (the first) is now the summary's, with the summary's value.
    summary = held["v5.1"].set_index(["organization", "system", "model", "scenario"])["result"]
    weaker = partial[partial["round"] == "v5.1"]
    assert not weaker.empty
    for _, row in weaker.iterrows():
        key = (row["organization"], row["system"], row["model"], row["scenario"])
        same = looked_back[
            (looked_back["round"] == "v5.1")
            & (looked_back[["organization", "system", "model", "scenario"]].apply(tuple, axis=1) == key)
        ]
        assert same["source_type"].iloc[0] == "mlperf-summary", key
        assert same["result"].iloc[0] == summary.loc[key], key


def test_each_round_s_claims_look_back_on_the_rounds_before_theirs_only():
    """A v6.1 claim sees the v5.1 summary the book holds as published evidence; a claim of v5.1
    (its announcement's round) sees no v6.0 figure as earlier."""
    from dataclasses import replace

    from claimbook.engine.context import book_data

    data = book_data(ROOT)
    claim = next(claim for claim in data.registry.claims if data.announcement(claim).round == "v6.1")
    own = data.for_claim(claim).earlier
    assert "mlperf-summary" in set(own.loc[own["round"] == "v5.1", "source_type"])
    assert "v6.1" not in set(own["round"])
    announcement = replace(data.announcement(claim), round="v5.1")
    registry = replace(
        data.registry, announcements={**data.registry.announcements, claim.announcement: announcement}
    )
    older = replace(data, registry=registry).for_claim(claim)
    assert set(older.results["round"]) == {"v5.1"}
    assert older.earlier.empty, sorted(set(older.earlier["round"]))


def test_the_software_gains_history_shows_a_held_round_s_figures_as_published_evidence():
    """The chapter's round-to-round history of a rack takes a round the book holds in full (v5.1)
    from its summary, not from the third parties previous_rounds.csv quotes."""
    from claimbook.engine.context import book_data
    from claimbook.inputs.earlier import system_history
    from claimbook.inputs.results import load_results

    data = book_data(ROOT)
    held = load_results(ROOT / "data" / "mlperf" / "v5.1.csv")
    checked = []
    for claim in data.registry.all_claims():
        subject = claim.get("subject") or {}
        if claim.kind != "round-gain" or not isinstance(subject.get("system"), str):
            continue
        judged = data.for_claim(claim)
        mine = judged.results[
            (judged.results["organization"] == subject["organization"])
            & (judged.results["system"] == subject["system"])
        ]
        published = held[
            (held["organization"] == subject["organization"])
            & (held["system"] == subject["system"])
            & held["division"].isin(set(mine["division"]))
        ]
        for benchmark in sorted(
            set(published["mlperf_model"].map(judged.reference.benchmark)) & set(mine["benchmark"])
        ):
            history = system_history(judged, subject["organization"], subject["system"], benchmark)
            for row in history[history["round"] == "v5.1"].itertuples():
                assert row.source_type == "mlperf-summary", (claim.id, benchmark, row.scenario)
                same = published[
                    (published["scenario"] == row.scenario) & (published["result"] == row.result)
                ]
                assert not same.empty, (claim.id, benchmark, row.scenario)  # the summary's, as published
                checked.append(claim.id)
    assert checked, "no round-gain claim has a v5.1 figure in its history"


def test_each_step_of_a_history_names_the_source_of_both_its_figures():
    from claimbook.engine.context import book_data
    from claimbook.inputs.earlier import round_to_round, system_history

    data = book_data(ROOT)
    steps = 0
    for claim in data.registry.all_claims():
        subject = claim.get("subject") or {}
        if claim.kind != "round-gain" or not isinstance(subject.get("system"), str):
            continue
        judged = data.for_claim(claim)
        for benchmark in sorted(set(judged.results["benchmark"])):
            history = system_history(judged, subject["organization"], subject["system"], benchmark)
            source = {(row.round, row.scenario): row.source_type for row in history.itertuples()}
            for step in round_to_round(history).itertuples():
                assert step.from_source == source[(step.from_round, step.scenario)]
                assert step.to_source == source[(step.to_round, step.scenario)]
                steps += 1
    assert steps


SOURCES_HEADER = "round,repository,file,commit,sha256,published\n"
GOOD_SOURCE = f"v6.1,mlcommons/inference_results_v6.1,summary.csv,{'a' * 40},{'b' * 64},16 September 2026\n"


@pytest.mark.parametrize(
    ("line", "phrase"),
    [
        (GOOD_SOURCE.replace("v6.1,", "6.1,", 1), "the round '6.1' is not of the form vMAJOR.MINOR"),
        (GOOD_SOURCE.replace("mlcommons/inference_results_v6.1", "inference results"), "repository"),
        (GOOD_SOURCE.replace("summary.csv", "../summary.csv"), "file '../summary.csv' is not a file"),
        (GOOD_SOURCE.replace("a" * 40, "a" * 12), "commit's 40 hexadecimal digits"),
        (GOOD_SOURCE.replace("b" * 64, "B" * 64), "SHA-256 in 64 hexadecimal digits"),
        (GOOD_SOURCE.replace("16 September 2026", "2026-09-16"), "published '2026-09-16' is not a date"),
        (GOOD_SOURCE.replace("summary.csv", "summary\x1b.csv"), "file holds the character \\x1b"),
        (GOOD_SOURCE + GOOD_SOURCE, "line 3: v6.1 has a line already (line 2)"),
    ],
)
def test_a_broken_line_of_the_sources_table_is_refused_naming_it(tmp_path, line, phrase):
    """sources.csv is what each citation prints of a round's source: a line a citation could not
    print truly is refused where it is, never half read (a second line of a round replaced the first)."""
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.reference import load_sources

    table = tmp_path / "sources.csv"
    table.write_text(SOURCES_HEADER + line, encoding="utf-8")
    with pytest.raises(IngestError, match=re.escape(phrase)) as refused:
        load_sources(table)
    assert str(refused.value).startswith(f"{table}, line ")
    table.write_text(SOURCES_HEADER + GOOD_SOURCE, encoding="utf-8")
    assert load_sources(table)["v6.1"]["commit"] == "a" * 40


def test_a_broken_sources_table_stops_check_and_build_in_one_line(tmp_path):
    from tests.helpers.clirun import in_copy
    from tests.helpers.project import project_copy

    copy = project_copy(tmp_path / "project")
    table = copy / "data" / "mlperf" / "sources.csv"
    table.write_text(
        table.read_text(encoding="utf-8").replace("16 September 2026", "someday"), encoding="utf-8"
    )
    for command in (("check", "amd-wan-vs-b300"), ("build", "--out", str(tmp_path / "out"))):
        one_error_line(in_copy(copy, *command), "published 'someday' is not a date", code=2, starts="error: ")
    assert not (tmp_path / "out").exists()
