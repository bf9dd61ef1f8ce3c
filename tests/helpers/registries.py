"""Registries written by an attacker: every text field a registry has carries a script, an
element with an event handler, a ``javascript:`` link, Markdown and MyST markup that would start
a block, a role, a directive or math. The claims themselves are sound (a copy of AMD's scaling
claim), so the book builds and shows them.
"""

from __future__ import annotations

import json

from tests.helpers.summaries import IMAGE, JAVASCRIPT_LINK, SCRIPT, SVG

EVIL_ID = "evil-v6.1"
EVIL_CLAIM = "evil-scaling"
EVIL_TEXT_CLAIM = "evil-words"
# Markup that would work in MyST Markdown if it reached a page unescaped.
MARKDOWN = (
    f"[a link]({JAVASCRIPT_LINK}) ![image](x) {{raw}}`html` $x^2$ **bold** <iframe "
    f'src="{JAVASCRIPT_LINK}"></iframe>'
)
FENCE = "\n```{raw} html\n<script>window.__pwned=9</script>\n```\n:::{raw} html\n<b onload=window.__pwned=10>\n:::\n"
HOSTILE = f"{SCRIPT}{IMAGE}{SVG} {MARKDOWN}"
# A text each hostile field holds, with a marker of its own, so a test can say which one leaked.
FIELDS = (
    "title",
    "publisher",
    "claimant",
    "source_label",
    "note",
    "claim_title",
    "statement",
    "claim_note",
    "reason",
)


def text(field: str) -> str:
    return f"{field.upper()}-MARK {HOSTILE}"


def _quoted(value: str) -> str:
    return json.dumps(value)  # JSON strings are YAML strings


def evil_registry(
    source_url: str = 'https://example.org/post?q=<script>window.__pwned=8</script>&x="y',
) -> str:
    """A registry whose every text field is hostile. Its date sorts it first, so its claims are
    the examples the how-to page shows too."""
    return f"""\
announcement:
  id: {EVIL_ID}
  title: {_quoted(text("title") + FENCE)}
  publisher: {_quoted(text("publisher"))}
  claimant: AMD
  vendor: AMD
  date: "2026-01-01"
  round: v6.1
  source_url: {_quoted(source_url)}
  source_label: {_quoted(text("source_label"))}
  results_retrieved: "2026-01-01"
  division: closed
  result_ids: [{_quoted(SCRIPT)}]
  note: {_quoted(text("note") + FENCE)}
claims:
  - id: {EVIL_CLAIM}
    title: {_quoted(text("claim_title") + FENCE)}
    statement: {_quoted(text("statement") + FENCE)}
    note: {_quoted(text("claim_note") + FENCE)}
    kind: scaling
    claimed: {{Offline: 94.9, Server: 94.6}}
    unit: "%"
    benchmark: gpt-oss-120b
    scenarios: [Offline, Server]
    small: {{organization: AMD, system: 8xMI355X_2xEPYC_9575F}}
    large: {{organization: AMD, system: 9x8xMI355X_2xEPYC_9575F}}
    result_ids: [{_quoted(IMAGE)}]
  - id: {EVIL_TEXT_CLAIM}
    title: {_quoted(text("claim_title") + FENCE)}
    statement: {_quoted(text("statement") + FENCE)}
    kind: not-checkable
    reason: {_quoted(text("reason") + FENCE)}
"""
