"""Reading the CSV tables the book takes as input, and saying plainly what a file is when it
is not one.

Before a file is parsed, its first bytes are looked at: an empty file, a binary one (an
archive, an image), an HTML page served in place of a CSV, a table separated by semicolons or
tabs, or text that is not UTF-8 each get one line naming the file and what it looks like,
instead of whatever the CSV parser would make of them ("line 24: 3 fields where the header
has 1"). A record cut off at the end of the file (a truncated download) is named as such. An
error says what a file looks like, never what it holds (a path given by mistake may name a
file of secrets): an HTML page's title and an HTTP status line aside, which say which page a
server sent.
"""

from __future__ import annotations

import codecs
import csv
import html
import io
import re
from collections import Counter
from pathlib import Path


class IngestError(ValueError):
    """An input file that cannot be turned into the book's tables; the message starts with the
    file and says where and what is wrong. (Re-exported by ``claimbook.inputs.ingest``.)"""


class TruncatedError(IngestError):
    """A file whose last record is cut off: it ends inside a quoted field or mid-line."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


HEAD_BYTES = 64 * 1024  # enough for the header and many records of any summary

# File signatures of formats people save or download by mistake.
_SIGNATURES = (
    (b"\x1f\x8b", "a gzip-compressed file, not a CSV; decompress it first"),
    (b"PK\x03\x04", "a zip archive (or an Excel workbook), not a CSV; extract it or export the sheet as CSV"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image, not a CSV"),
    (b"\xff\xd8\xff", "a JPEG image, not a CSV"),
    (b"GIF8", "a GIF image, not a CSV"),
    (b"%PDF-", "a PDF document, not a CSV"),
    (b"BZh", "a bzip2-compressed file, not a CSV; decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file, not a CSV; decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive, not a CSV"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an old-style Excel or Office file, not a CSV; export the sheet as CSV",
    ),
    (b"SQLite format 3\x00", "an SQLite database, not a CSV"),
    (b"PAR1", "a Parquet file, not a CSV"),
)
_BYTE_ORDER_MARKS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v")
_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "pipe"}
_HTTP_ERROR = re.compile(r"(?:HTTP/[\d.]+ )?[1-5]\d\d:? [A-Za-z][A-Za-z .'-]{0,60}")
_TITLE = re.compile(r"<title[^>]*>\s*([^<]{1,80}?)\s*</title>", re.IGNORECASE)

# Columns that mark a table as the tidy table ``ingest`` writes, or as a raw MLCommons summary.
_TIDY_MARKERS = ("round", "organization", "system", "per_accelerator", "location")
_RAW_MARKERS = ("Organization", "Result", "Location")
RAW, TIDY = "raw", "tidy"


def where(path, line: int | None = None) -> str:
    """The start of an error message: the file, and the line when known."""
    return f"{path}, line {line}" if line is not None else f"{path}"


def read_head(path: Path, what: str) -> tuple[bytes, bool]:
    """The first ``HEAD_BYTES`` of the file, and whether that is the whole file."""
    from claimbook.common.safe_read import InputError, check_regular

    try:
        check_regular(path, str(path), what)  # a FIFO would block, /dev/zero never end
    except InputError as exc:
        raise IngestError(str(exc)) from None
    try:
        with open(path, "rb") as stream:
            head = stream.read(HEAD_BYTES + 1)
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the {what} ({exc.strerror})") from exc
    return head[:HEAD_BYTES], len(head) <= HEAD_BYTES


def _empty(head: bytes, whole: bool) -> str | None:
    if not head:
        return "the file is empty (0 bytes)"
    if whole and not head.removeprefix(codecs.BOM_UTF8).strip():
        return "the file is empty (only whitespace)"
    return None


def _wide_encoding(head: bytes) -> str | None:
    for mark, name in _BYTE_ORDER_MARKS:
        if head.startswith(mark):
            return f"the file is {name} text, not UTF-8; re-save it as UTF-8"
    # UTF-16 without a mark: ASCII text with a NUL beside every character.
    sample = head[:4096]
    if len(sample) >= 8:
        even, odd = sample[0::2], sample[1::2]
        for nuls, text in ((even, odd), (odd, even)):
            if nuls.count(0) > 0.9 * len(nuls) and text.count(0) < 0.1 * len(text):
                return "the file is UTF-16 text (without a byte order mark), not UTF-8; re-save it as UTF-8"
    return None


def _binary(head: bytes) -> str | None:
    for signature, description in _SIGNATURES:
        if head.startswith(signature):
            return f"this is {description}"
    controls = sum(1 for byte in head[:4096] if byte < 0x20 and byte not in _TEXT_CONTROLS or byte == 0x7F)
    if 0 in head or controls > 0.05 * min(len(head), 4096):
        return "this is a binary file (it has control bytes that text does not), not a CSV"
    return None


def _not_utf8(head: bytes, whole: bool) -> tuple[int | None, str] | None:
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=whole)
    except UnicodeDecodeError as exc:
        high = sum(1 for byte in head[:4096] if byte >= 0x80)
        if high > 0.3 * min(len(head), 4096):
            return None, "this is a binary file (mostly bytes that are not text), not a CSV"
        line = head[: exc.start].count(b"\n") + 1
        return line, _encoding_advice(head[exc.start])
    return None


def _encoding_advice(byte: int) -> str:
    return (
        f"not UTF-8 text (byte 0x{byte:02x}); the file seems to be Latin-1 or Windows-1252 encoded; "
        "re-save it as UTF-8"
    )


def _markup(text: str) -> str | None:
    start = text.lstrip().lower()
    if start.startswith("<"):
        opening = start[:4096]
        if any(tag in opening for tag in ("<!doctype html", "<html", "<head", "<body")):
            title = _TITLE.search(text[:8192])
            named = f" (title {html.unescape(title.group(1))!r})" if title else ""
            return f"this is an HTML page{named}, not a CSV; the server may have sent an error or login page"
        return "this is XML or other markup, not a CSV"
    squeezed = "".join(start[:64].split())
    if squeezed.startswith(("{", "[{", '["')):
        if '"performance_result"' in start[:HEAD_BYTES]:  # MLCommons' JSON summary (v5.1)
            return "this is JSON, not a CSV: MLCommons' JSON results summary; run `python -m claimbook ingest` on it first"
        return "this is JSON, not a CSV"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) <= 3 and _HTTP_ERROR.fullmatch(lines[0]):
        return f"this is an HTTP error message ({lines[0]!r}), not a CSV"
    return None


def _delimiter(text: str) -> str | None:
    try:
        header = next(csv.reader(io.StringIO(text)), [])
    except csv.Error:
        return None
    if len(header) != 1:
        return None
    counts = {mark: header[0].count(mark) for mark in _DELIMITERS}
    mark = max(counts, key=counts.get)
    if counts[mark] == 0:
        return None
    name = _DELIMITERS[mark]
    return (
        f"this looks {name}-separated (the header is one field with {counts[mark]} {name}s); "
        "save it with commas as the separator"
    )


def sniff(head: bytes, whole: bool) -> tuple[int | None, str] | None:
    """What the file is, if not a comma-separated UTF-8 text table: (line or None, description).

    ``head`` is the start of the file; ``whole`` says it is all of it. Checks go from the
    bytes (empty, encoding, binary) to the text (markup, separator).
    """
    for check in (_empty(head, whole), _wide_encoding(head), _binary(head)):
        if check:
            return None, check
    undecodable = _not_utf8(head, whole)
    if undecodable:
        return undecodable
    text = codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=whole)
    for check in (_markup(text), _delimiter(text)):
        if check:
            return None, check
    return None


def check_looks_like_csv(path: Path, what: str) -> None:
    """Raise an IngestError naming the file and what it looks like, if it is not a CSV table."""
    found = sniff(*read_head(path, what))
    if found:
        line, description = found
        raise IngestError(f"{where(path, line)}: {description}")


def read_header(path: Path, what: str) -> list[str]:
    """The column names of a CSV file that ``check_looks_like_csv`` let through."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as stream:
            return [name.strip() for name in next(csv.reader(stream), [])]
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the {what} ({exc.strerror})") from exc
    except (csv.Error, UnicodeDecodeError) as exc:
        raise IngestError(f"{path}, line 1: not a readable CSV header ({exc})") from exc


def header_kind(header) -> str | None:
    """``TIDY`` for the table ``ingest`` writes, ``RAW`` for an MLCommons summary, else None."""
    columns = set(header)
    if all(name in columns for name in _TIDY_MARKERS):
        return TIDY
    if all(name in columns for name in _RAW_MARKERS):
        return RAW
    return None


def kind_problem(header, expected: str, path) -> str | None:
    """The message for a tidy table where a raw summary is expected, or the reverse."""
    found = header_kind(header)
    if found == expected or found is None:
        return None
    if found == TIDY:
        return f"{path}: this is a tidy table made by ingest; pass the raw summary.csv"
    return f"{path}: this is a raw MLCommons summary; run `python -m claimbook ingest {path}` first"


class _Lines:
    """The lines of a text file for ``csv.reader``, remembering the last one and whether the end
    was reached: a record returned after the end was reached ran into it inside a quoted field."""

    def __init__(self, stream):
        self._lines = iter(stream)
        self.last = ""
        self.ended = False

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line = next(self._lines, None)
        if line is None:
            self.ended = True
            raise StopIteration
        self.last = line
        return line

    def record_cut_off(self) -> bool:
        """The record just read ends inside a quoted field at the end of the file."""
        return self.ended

    def line_cut_off(self) -> bool:
        """The record just read is the last line and has no line end."""
        return not self.last.endswith(("\n", "\r"))


def _first_non_utf8(path: Path) -> tuple[int, int]:
    """The line and value of the first byte that is not UTF-8 (only called once one exists)."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data[: exc.start].count(b"\n") + 1, data[exc.start]
    return 1, 0


def _truncated(path: Path, line: int, detail: str) -> TruncatedError:
    return TruncatedError(f"{path}, line {line}: {detail}; it looks truncated (cut off mid-record)", line)


def read_rows(path: Path, what: str = "results file") -> tuple[list[str], list[list[str]], list[int]]:
    """The header, the records as lists of fields, and the first line of each record.

    Blank records are skipped. A file that is not a CSV text table, a record with a different
    number of fields than the header, a record cut off at the end of the file, or bytes that
    are not UTF-8 are errors naming the file (and the line).
    """
    path = Path(path)
    check_looks_like_csv(path, what)
    with _open_text(path, what) as handle:
        lines = _Lines(handle)
        reader = csv.reader(lines)
        try:
            header = _header(path, lines, reader)
            rows, starts = _records(path, lines, reader, header)
        except StopIteration:
            raise IngestError(f"{path}: the file is empty") from None
        except UnicodeDecodeError:
            bad_line, byte = _first_non_utf8(path)
            raise IngestError(f"{path}, line {bad_line}: {_encoding_advice(byte)}") from None
        except csv.Error as exc:  # in the header: records' own are worded by _records
            raise _unreadable(path, 0, exc) from exc
    return header, rows, starts


def _open_text(path: Path, what: str):
    """The file opened as UTF-8 text (a byte-order mark dropped), or the IngestError saying why
    it cannot be read."""
    try:
        return open(path, newline="", encoding="utf-8-sig")  # closed by the caller's `with`
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the {what} ({exc.strerror})") from exc


def _header(path: Path, lines: _Lines, reader) -> list[str]:
    """The header's names, stripped; a header cut off inside a quoted field is an error."""
    header = [name.strip() for name in next(reader)]
    if lines.record_cut_off():
        raise _truncated(path, 1, "the file ends inside a quoted field of the header")
    return header


def _records(path: Path, lines: _Lines, reader, header: list[str]) -> tuple[list[list[str]], list[int]]:
    """The records after the header, blank ones skipped, and the first line of each; a record
    cut off at the end of the file or of another width than the header is an error."""
    width = len(header)
    rows, starts = [], []
    line = reader.line_num
    try:
        for values in reader:
            first_line = line + 1
            line = reader.line_num
            if lines.record_cut_off():
                raise _truncated(path, first_line, "the file ends inside a quoted field begun on this line")
            if len(values) != width:
                if not any(value.strip() for value in values):
                    continue
                if lines.line_cut_off():
                    raise _truncated(
                        path,
                        first_line,
                        f"the last record has {len(values)} of {width} fields and no line end",
                    )
                raise IngestError(f"{path}, line {first_line}: {_width_mismatch(len(values), header)}")
            if not any(values) and not any(value.strip() for value in values):
                continue
            rows.append(values)
            starts.append(first_line)
    except csv.Error as exc:
        raise _unreadable(path, line, exc) from exc
    return rows, starts


def _unreadable(path: Path, line: int, exc: csv.Error) -> IngestError:
    """The error for a record the csv module cannot read, after the record that ends on ``line``."""
    return IngestError(f"{path}, line {line + 1}: not readable as CSV ({exc})")


def _width_mismatch(count: int, header: list[str]) -> str:
    if len(header) == 1:
        return (
            f"{count} fields where the header has 1 (its first line is one field); "
            "the file does not look like a comma-separated table"
        )
    return f"{count} fields where the header has {len(header)}"


def read_records(
    path: Path, what: str = "results file"
) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and (first line number, record as a dict) pairs of a CSV file."""
    header, rows, lines = read_rows(path, what)
    return header, [(line, dict(zip(header, values))) for line, values in zip(lines, rows)]


def read_table(path: Path, what: str, required, items: str) -> list[tuple[int, dict[str, str]]]:
    """The records of a small CSV table that must have the ``required`` columns and at least
    one row of ``items``; each record with its first line, for error messages."""
    header, records = read_records(path, what)
    missing = [name for name in required if name not in header]
    if missing:
        raise IngestError(f"{path}: missing required column(s) {', '.join(missing)}")
    if not records:
        raise IngestError(f"{path}: the file has a header but no {items}")
    return records


def row_changes(old: bytes, new: bytes) -> str:
    """What replacing a CSV table ``old`` by ``new`` changes, by whole rows (a changed row
    counts as one removed and one added)."""
    old_rows, new_rows = _rows_of(old), _rows_of(new)
    if old_rows[:1] != new_rows[:1]:
        return f"the columns differ; {len(new_rows) - 1} rows would replace {max(len(old_rows) - 1, 0)}"
    before, after = Counter(map(tuple, old_rows[1:])), Counter(map(tuple, new_rows[1:]))
    added, removed = sum((after - before).values()), sum((before - after).values())
    kept = sum((before & after).values())
    return (
        f"{added} row{'' if added == 1 else 's'} added, {removed} removed, {kept} kept "
        "(a changed row counts as removed and added)"
    )


def _rows_of(data: bytes) -> list[list[str]]:
    text = data.decode("utf-8-sig", errors="replace")
    try:
        return [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    except csv.Error:
        return [[line] for line in text.splitlines() if line]
