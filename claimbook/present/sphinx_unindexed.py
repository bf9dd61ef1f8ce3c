"""A Sphinx extension that leaves the front page's ledger out of the search index.

Each line of the ledger repeats its claim's card (the claim, the finding, the results it rests
on) inside a closed ``<details>``. Indexed, a search for a system, a benchmark or a word of a
finding listed the front page, where the word stays hidden until the reader opens the right
line; the claim's card, which shows it, is found anyway. Sphinx reads the text of every raw HTML
block into its index, stemming each word each time the page changes: at 366 claims, about a
tenth of a second of every build that changes a claim. The ledger's blocks become a node that
writes the same HTML and holds no text the index reads.
"""

from __future__ import annotations

from docutils import nodes

# How a ledger's block opens: ``markdown_pages.html_block`` around ``templates/ledger.html``.
LEDGER_OPENING = '<div class="claimbook-block">\n<ul class="claimbook-ledger"'


class unindexed_html(nodes.General, nodes.Element):  # (named as docutils names its nodes)
    """HTML written as it is, kept in an attribute: no child text for the index to read."""


def is_ledger(node: nodes.Node) -> bool:
    """Whether ``node`` is a block of raw HTML that holds a ledger."""
    return (
        isinstance(node, nodes.raw)
        and "html" in node.get("format", "").split()
        and node.astext().startswith(LEDGER_OPENING)
    )


def leave_ledgers_out(app, doctree: nodes.document) -> None:
    """Every ledger of a page read, made an ``unindexed_html`` node with the same HTML."""
    for node in list(doctree.findall(is_ledger)):
        node.replace_self(unindexed_html(html=node.astext()))


def _write_html(translator, node: unindexed_html) -> None:
    translator.body.append(node["html"])  # (as docutils writes a raw HTML block with no class)
    raise nodes.SkipNode


def _leave_out(translator, node: unindexed_html) -> None:
    raise nodes.SkipNode  # (a builder of another format drops raw HTML too)


def setup(app):
    others = {name: (_leave_out, None) for name in ("latex", "text", "man", "texinfo")}
    app.add_node(unindexed_html, html=(_write_html, None), **others)
    app.connect("doctree-read", leave_ledgers_out)
    # A saved environment from before this extension holds the ledger as raw HTML: read again.
    return {"env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}
