"""Cells of a CSV the book offers for download, made safe to open in a spreadsheet.

A spreadsheet evaluates a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and a tab or a
carriage return before one) as a formula: a published name such as ``=HYPERLINK(...)`` would run
as one on the reader's machine (OWASP's "CSV injection"). Such a cell is written with a ``'``
before it, which spreadsheets show as text and drop. Only text is changed: a plain number (a
negative result, a signed gap such as ``-12.5%``) is a number to a spreadsheet, never a formula,
and is written as it is; numeric columns are never touched. The tidy tables in ``data/`` keep their
values: only the downloads are written this way.
"""

from __future__ import annotations

import re

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A number as a spreadsheet reads one: a sign, digits, a fraction, an exponent, a percent sign.
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?")


def safe_cell(value):
    """``value`` with a ``'`` before it if it is text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_frame(frame):
    """A copy of ``frame`` whose text cells are ``safe_cell``'s (its number columns as they are)."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    safe = frame.copy()
    for column in safe.columns:
        values = safe[column]
        if not (is_numeric_dtype(values) or is_bool_dtype(values)):  # text (object or string)
            safe[column] = values.map(safe_cell)
    return safe


def safe_rows(rows: list[list[str]]) -> list[list[str]]:
    """Rows of text (a CSV read as it is), each cell ``safe_cell``'s."""
    return [[safe_cell(cell) for cell in row] for row in rows]
