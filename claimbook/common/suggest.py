"""Close names for a name that is not known: what a one-line error offers instead."""

from __future__ import annotations

import difflib


def close_names(wanted: str, known, n: int = 5) -> list[str]:
    """The known names nearest to ``wanted`` (spelling first, then names containing it)."""
    known = list(dict.fromkeys(str(name) for name in known))
    close = difflib.get_close_matches(wanted, known, n=n, cutoff=0.5)
    close += [name for name in known if wanted and wanted in name and name not in close]
    return close[:n]


def closest_hint(wanted: str, known, what: str) -> str:
    """ "; close claims: a, b" when some are close, else how many there are."""
    close = close_names(wanted, known)
    return f"; close {what}: {', '.join(close)}" if close else ""
