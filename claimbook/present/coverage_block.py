"""What an announcement's chapter says of the fact-check's coverage: how many statements the book
judges as claims, how many it sets aside, and each one set aside with the registry's reason
(``set_aside: [{text, why}]``), so a reader sees what the book did not check and why.
"""

from __future__ import annotations

from claimbook.common import formatting
from claimbook.present.templating import render


def coverage_html(announcement, judged: int, statements: tuple[int, int] | None = None) -> str:
    """One paragraph and, if any, the list of statements set aside; every text escaped.
    ``statements``: (judged or set aside, all) of the announcement's sentences, as ``claimbook
    coverage --record`` last counted them."""
    aside = announcement.set_aside
    counted = None
    if statements is not None:
        done, total = statements
        counted = {"done": formatting.count(done), "total": formatting.plural(total, "statement")}
    return render(
        "coverage.html",
        judged=formatting.plural(judged, "claim"),
        aside_count=formatting.plural(len(aside), "statement"),
        aside=list(aside),
        counted=counted,
    )
