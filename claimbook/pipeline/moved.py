"""What moved against the committed scorecard, for a build: the table it ends with, and the page
of an ``--out`` book ("What changed against the published book")."""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

from claimbook.common.paths import CHANGES_PAGE, RESULTS, round_results_path

PAGE = CHANGES_PAGE  # book/generated/changes.md


def what_moved(request, loaded, committed: list[dict], rows: list[dict], drifts) -> list:
    """The claims of ``rows`` whose verdict or deciding figure differs from ``committed``."""
    from claimbook.engine import moves
    from claimbook.inputs.results import load_results

    new = loaded.data.results
    old = new
    # Within a round: the other results against the committed table of the round they hold.
    committed_round = request.root / round_results_path(_round_of(loaded))
    if loaded.table is not None and committed_round.is_file():
        old = load_results(committed_round)
    from claimbook.inputs.renames import detect

    return moves.compare(committed, rows, old, new, drifts, detect(old, new) if old is not new else None)


def _round_of(loaded) -> str:
    """The round of the results a build was given (``--results``), else the book's default."""
    table = loaded.table if loaded.table is not None else loaded.data.results
    return str(table["round"].iloc[0]) if len(table) else Path(RESULTS).stem


def _file_record(path: Path) -> dict:
    data = path.read_bytes()
    when = datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.UTC)
    return {
        "file": path.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "date": when.date().isoformat() + " (the file's date)",
    }


def page_text(request, loaded, found) -> str | None:
    """The page of an --out book from other results (None for any other book)."""
    if not request.to_out or loaded.table is None:
        return None
    from claimbook.present.changes_page import changes_page

    round_name = _round_of(loaded)
    source = (loaded.data.sources or {}).get(round_name) or {}  # the committed round's
    published = {
        "file": f"{source.get('repository', '')} {source.get('file', '')}".strip()
        or round_results_path(round_name),
        "sha256": source.get("sha256", ""),
        "date": source.get("published", ""),
    }
    return changes_page(found, published, dated(_file_record(Path(request.results)), published))


def dated(given: dict, published: dict) -> dict:
    """The given results file's record, dated as the published file where it is that file byte
    for byte (a copy's own time says when it was copied, not when the results came out)."""
    if published.get("sha256") and given["sha256"] == published["sha256"] and published.get("date"):
        return {**given, "date": f"{published['date']} (the published file's: the same bytes)"}
    return given
