"""The identifiers that come from data or the command line and may name a file: a claim's or an
announcement's id, a round, a date. Each has one fixed pattern, checked where it enters (the
registry, the command line, a results file's ``version`` column), so none can become a path
that leaves its folder (``../README``) or a name the file system refuses (300 characters).
"""

from __future__ import annotations

import datetime
import re

MAX_ID = 80  # an id is part of a file name; well under a file system's 255 bytes
ID = re.compile(r"[a-z0-9][a-z0-9.\-]*")
ROUND = re.compile(r"v\d{1,3}\.\d{1,3}")  # v6.1: also the name of the round's folder
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Control characters (newlines included) never belong in a one-line field of a registry.
CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")
# What makes text misleading or active on a terminal or a page: control characters (C0, DEL, C1:
# ESC begins a terminal's commands) and the bidirectional embeddings, overrides and isolates
# (text shown in another order than it is read). Refused in results files, shown escaped where
# text of unknown origin reaches a terminal.
UNSAFE_TEXT = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

ID_RULE = (
    f"lower-case letters, digits, '-' and '.', starting with a letter or digit, at most {MAX_ID} characters"
)
ROUND_RULE = "of the form vMAJOR.MINOR (e.g. v6.1)"
DATE_RULE = "a date YYYY-MM-DD"


def id_problem(value) -> str | None:
    """What is wrong with ``value`` as an id (None if nothing)."""
    if not isinstance(value, str) or not value:
        return f"expected an id ({ID_RULE}), got {value!r}"
    if len(value) > MAX_ID or not ID.fullmatch(value) or ".." in value:
        shown = value if len(value) <= MAX_ID else value[:MAX_ID] + "..."
        return f"use {ID_RULE}, got {shown!r}"
    return None


def is_round(value) -> bool:
    return isinstance(value, str) and ROUND.fullmatch(value) is not None


def date_problem(value) -> str | None:
    """What is wrong with ``value`` as a date (None if nothing): it must be a real day."""
    if not isinstance(value, str) or not DATE.fullmatch(value):
        return f"expected {DATE_RULE}, got {value!r}"
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return f"{value!r} is not a day of the calendar"
    return None


def has_control(text: str) -> bool:
    return CONTROL.search(text) is not None


def unsafe_character(text: str) -> str | None:
    """The first control or bidirectional-override character of ``text``, escaped (``'\\x1b'``),
    or None."""
    found = UNSAFE_TEXT.search(text)
    return None if found is None else _escape(found)


def terminal_text(text) -> str:
    """``text`` as a terminal may print it: control and bidirectional-override characters as
    escapes (``\\x1b[31m`` stays visible and inert)."""
    return UNSAFE_TEXT.sub(_escape, str(text))


def _escape(match: re.Match) -> str:
    character = match.group(0)
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
