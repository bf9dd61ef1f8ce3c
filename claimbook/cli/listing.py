"""``list``: the claims, their announcements and their current verdicts, from a book's scorecard."""

from __future__ import annotations

import json
from pathlib import Path

from claimbook.common.errors import UsageError
from claimbook.common.identifiers import terminal_text
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, PROJECT_ROOT


def add_commands(commands) -> None:
    list_cmd = commands.add_parser("list", help="the claims, their announcements and their current verdicts")
    list_cmd.add_argument("--book", type=Path, help="a book built with --out (default: the committed book)")


def _run_list(args) -> int:
    from claimbook.engine import load_registry

    book = (args.book or PROJECT_ROOT) / BOOK_DIR / GENERATED_DIR / "scorecard.json"
    if not book.is_file():
        raise UsageError(f"{book}: no scorecard yet; run `python -m claimbook build` first")
    for entry in _ledger(book, load_registry()):
        claim = entry["claim"]
        print(
            terminal_text(
                f"{claim.id:40} {claim.announcement:12} {entry['verdict']:24} {entry['range'] or ''}"
            )
        )
    return 0


def _ledger(book: Path, registry) -> list[dict]:
    """The ledger of a book's scorecard (a file someone may have edited: every value it shows is
    checked to be what a build writes, else one line saying it is not a scorecard)."""
    from dataclasses import replace

    from claimbook.common.safe_read import read_text
    from claimbook.engine.verdict import VERDICTS
    from claimbook.present.markdown_pages import ledger_entries

    try:
        rows = json.loads(read_text(book, str(book), "scorecard", limit=256 * 1024 * 1024))
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise ValueError("not a list of rows")
        for number, row in enumerate(rows, 1):
            if row.get("verdict") not in VERDICTS:
                raise ValueError(
                    f"row {number}: verdict {terminal_text(repr(row.get('verdict')))[:60]} is not a verdict"
                )
            if not isinstance(row.get("claim"), str) or not isinstance(row.get("range") or "", str):
                raise TypeError(f"row {number}: its claim and range are not text")
        present = {row["claim"] for row in rows}
        shown = replace(registry, claims=tuple(claim for claim in registry.claims if claim.id in present))
        return ledger_entries(rows, shown)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        detail = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise UsageError(
            f"{book}: not a scorecard this book can read ({terminal_text(detail)}); rebuild it with "
            "`python -m claimbook build`"
        ) from None
