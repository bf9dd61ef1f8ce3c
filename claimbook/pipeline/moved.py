"""What moved against the committed scorecard, for a build: the table it ends with, and the page
of an ``--out`` book ("What changed against the published book")."""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

from claimbook.common.paths import CHANGES_PAGE, RESULTS

PAGE = CHANGES_PAGE  # book/generated/changes.md


def what_moved(request, loaded, committed: list[dict], rows: list[dict], drifts) -> list:
    """The claims of ``rows`` whose verdict or deciding figure differs from ``committed``."""
    from claimbook.engine import moves
    from claimbook.inputs.results import load_results

    new = loaded.data.results
    old = new
    if loaded.table is not None and (request.root / RESULTS).is_file():
        old = load_results(request.root / RESULTS)
    from claimbook.inputs.renames import detect

    return moves.compare(committed, rows, old, new, drifts, detect(old, new) if old is not new else None)


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

    source = (loaded.data.sources or {}).get(Path(RESULTS).stem) or {}  # the committed round's
    published = {
        "file": f"{source.get('repository', '')} {source.get('file', '')}".strip() or str(RESULTS),
        "sha256": source.get("sha256", ""),
        "date": source.get("published", ""),
    }
    return changes_page(found, published, _file_record(Path(request.results)))
