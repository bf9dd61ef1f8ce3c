"""Every kind of bad input file, through the real command line: ``ingest`` and ``diff`` exit with
code 2 and one line ``error: FILE...: what the file looks like``, never a traceback.

Each input is built in a temporary folder; ingest writes (if at all) only into that folder.
"""

import codecs
import csv
import gzip
import io

import pytest
from clirun import as_subprocess, in_process
from conftest import ROOT, SHARED_SUMMARY
from summaries import CURRENT_LAYOUT, summary_row, write_summary

from claimbook.csvfile import read_head, sniff

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


def assert_one_line_error(done, path, phrase):
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert lines[0].startswith(f"error: {path}"), lines[0]
    assert phrase in lines[0], lines[0]
    assert done.stdout == ""


@pytest.mark.parametrize("case", list(INGEST_CASES))
def test_ingest_names_what_a_bad_file_is(tmp_path, case):
    path = tmp_path / f"{case.replace(' ', '-')}.csv"
    path.write_bytes(INGEST_CASES[case](tmp_path))
    out = tmp_path / "out" / "tidy.csv"
    done = claimbook("ingest", path, "--out", out)
    assert_one_line_error(done, path, INGEST_PHRASES[case])
    assert not out.parent.exists()


@pytest.mark.parametrize("case", list(DIFF_CASES))
@pytest.mark.parametrize("side", ["new", "old"])
def test_diff_names_what_a_bad_file_is(tmp_path, case, side):
    path = tmp_path / f"{case.replace(' ', '-')}.csv"
    path.write_bytes(DIFF_CASES[case](tmp_path))
    pair = (COMMITTED, path) if side == "new" else (path, COMMITTED)
    assert_one_line_error(claimbook("diff", *pair), path, DIFF_PHRASES[case])


def test_diff_of_a_missing_file(tmp_path):
    absent = tmp_path / "absent.csv"
    assert_one_line_error(claimbook("diff", COMMITTED, absent), absent, "no such results table")


def test_the_latin_1_line_is_named(tmp_path):
    rows = [summary_row(), summary_row(Scenario="Server", Organization="Acmé")]
    path = tmp_path / "latin.csv"
    path.write_bytes(write_summary(tmp_path / "utf8.csv", rows).read_text().encode("latin-1"))
    done = as_subprocess("ingest", path, "--out", tmp_path / "out.csv")
    assert_one_line_error(done, f"{path}, line 3", "not UTF-8 text (byte 0xe9)")


def test_a_bad_byte_beyond_the_first_look_is_named_with_its_line(tmp_path):
    rows = [summary_row(system=f"S{number}") for number in range(300)]
    rows[-1]["Organization"] = "Acmé"
    rows[-1]["Location"] = rows[-1]["Location"].replace("/Acme/", "/Acmé/")
    text = write_summary(tmp_path / "utf8.csv", rows).read_text()
    assert len(text.encode()) > 65536  # past what is looked at before parsing
    path = tmp_path / "latin.csv"
    path.write_bytes(text.encode("latin-1"))
    done = claimbook("ingest", path, "--out", tmp_path / "out.csv")
    assert_one_line_error(done, f"{path}, line 301", "not UTF-8 text (byte 0xe9)")


def test_a_record_cut_off_mid_line_is_called_truncated(tmp_path):
    data = raw_summary(tmp_path)
    path = tmp_path / "cut.csv"
    path.write_bytes(data[: data.rindex(b",Acme ") + 4])  # the last record, a few fields in, no line end
    done = claimbook("ingest", path, "--out", tmp_path / "out.csv")
    assert_one_line_error(done, f"{path}, line 3", "of 31 fields and no line end; it looks truncated")


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
    assert_one_line_error(claimbook("ingest", path, "--out", tmp_path / "out.csv"), path, phrase)


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
