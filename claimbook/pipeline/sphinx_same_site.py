"""A Sphinx extension that makes a rebuild's site the site a build from nothing makes.

Two things of myst-nb's and Sphinx's own made them differ:

- myst-nb copies its style sheet into the site only once every page is written
  (``build-finished``), and Sphinx adds a checksum to a style sheet's address (``?v=``) only where
  the file is in the site as a page is written: a first build's pages had none, the pages a
  rebuild rewrote had one. The style sheet is put in place as the builder starts, by myst-nb's
  own function.
- Sphinx's search index kept a word no page holds any more (a rewritten page's words are taken
  out of the index and its new text put in, the emptied words staying, listed with no page) where
  a first build never had it: emptied words go before the index is written.

``claimbook_same_site``, a value of Sphinx's configuration that names this behaviour's version,
makes a site built before it be rewritten whole once (a changed value rewrites every page).
"""

from __future__ import annotations

from pathlib import Path

VERSION = 1


def _style_sheet_first(app):
    """myst-nb's style sheet in the site before any page is written (only for HTML)."""
    if app.builder is None or app.builder.format != "html" or "myst_nb" not in app.extensions:
        return
    from myst_nb.sphinx_ext import add_global_html_resources

    (Path(app.builder.outdir) / "_static").mkdir(parents=True, exist_ok=True)
    add_global_html_resources(app, None)


def _without_emptied_words(app):
    """The search index without the words no page holds (``html-collect-pages`` comes after
    every page is indexed and before the index is written); no page of its own."""
    indexer = getattr(app.builder, "indexer", None)
    if indexer is not None and app.env is not None:
        prune_with_a_set(indexer)
        indexer.prune(app.env.all_docs)  # (as Sphinx does before writing it: pages gone, gone)
        for mapping in (getattr(indexer, "_mapping", {}), getattr(indexer, "_title_mapping", {})):
            for word in [word for word, pages in mapping.items() if not pages]:
                del mapping[word]
    return []


def prune_with_a_set(indexer) -> None:
    """``indexer.prune(pages)`` with the pages as a set, this call and Sphinx's own before it
    writes the index: Sphinx gives its dict of documents, and a word's pages intersected with a
    dict walk the whole dict, once per word (0.06 s of a build at 366 claims); with a set, the
    word's own pages. The same pages are kept."""
    prune = type(indexer).prune
    indexer.prune = lambda pages: prune(indexer, pages if isinstance(pages, (set, frozenset)) else set(pages))


def setup(app):
    app.add_config_value("claimbook_same_site", VERSION, "html")
    app.connect("builder-inited", _style_sheet_first)
    app.connect("html-collect-pages", _without_emptied_words)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
