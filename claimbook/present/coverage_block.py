"""What an announcement's chapter says of the fact-check's coverage: how many statements the book
judges as claims, how many it sets aside, and each one set aside with the registry's reason
(``set_aside: [{text, why}]``), so a reader sees what the book did not check and why.
"""

from __future__ import annotations

from claimbook.common import formatting
from claimbook.present import blocks


def coverage_html(announcement, judged: int) -> str:
    """One paragraph and, if any, the list of statements set aside; every text escaped."""
    aside = announcement.set_aside
    said = (
        f"<p><strong>Coverage:</strong> the book judges {formatting.plural(judged, 'claim')} of this "
        f"announcement and sets {formatting.plural(len(aside), 'statement')} aside"
        + (":" if aside else ".")
        + " <code>claimbook coverage</code> checks every figure of the announcement's text against them.</p>"
    )
    if not aside:
        return said
    items = "".join(
        f"<li>{blocks.escape(text)} <em>Why not judged:</em> {blocks.escape(why)}</li>" for text, why in aside
    )
    return f'{said}<ul class="claimbook-set-aside">{items}</ul>'
