"""What an announcement's chapter says of the fact-check's coverage: how many statements the book
judges as claims, how many it sets aside, and each one set aside with the registry's reason
(``set_aside: [{text, why}]``), so a reader sees what the book did not check and why.
"""

from __future__ import annotations

from claimbook.common import formatting
from claimbook.present import blocks


def coverage_html(announcement, judged: int, statements: tuple[int, int] | None = None) -> str:
    """One paragraph and, if any, the list of statements set aside; every text escaped.
    ``statements``: (judged or set aside, all) of the announcement's sentences, as ``claimbook
    coverage --record`` last counted them."""
    aside = announcement.set_aside
    count = ""
    if statements is not None:
        done, total = statements
        count = (
            f" <strong>{formatting.count(done)} of {formatting.plural(total, 'statement')} judged or set "
            "aside</strong> (every sentence of the announcement, counted by <code>claimbook coverage</code>)."
        )
    said = (
        f"<p><strong>Coverage:</strong> the book judges {formatting.plural(judged, 'claim')} of this "
        f"announcement and sets {formatting.plural(len(aside), 'statement')} aside"
        + (":" if aside and not count else ".")
        + count
        + " <code>claimbook coverage</code> checks every figure and every sentence of the announcement's text "
        "against them" + (". Set aside, with the reason:" if aside and count else ".") + "</p>"
    )
    if not aside:
        return said
    items = "".join(
        f"<li>{blocks.escape(text)} <em>Why not judged:</em> {blocks.escape(why)}</li>" for text, why in aside
    )
    return f'{said}<ul class="claimbook-set-aside">{items}</ul>'
