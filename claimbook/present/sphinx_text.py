"""A Sphinx extension that keeps page titles text in every place the theme prints them.

sphinx-book-theme puts each page's title, as plain text (``title.astext()``), unescaped into the
heading of its print layout; a title from a registry (``<script>...``) would become markup there
on every page whose navigation names it. The title is escaped here, after the theme set it.

Sphinx's search page does the same with the section titles of its index (``searchindex.js``'s
``alltitles``, kept as plain text and shown through ``innerHTML``): a result of a search for a
registry's title would run its markup. They are escaped before the index is written.
"""

from __future__ import annotations

import html

ESCAPED = ("pagetitle", "page_description")


def _escape_titles(app, pagename, templatename, context, doctree):
    for key in ESCAPED:
        if isinstance(context.get(key), str):
            context[key] = html.escape(context[key])


def _as_text(title: str) -> str:
    # Escaped once, however often: the index of an incremental build keeps the titles of the
    # pages it did not write from the index it wrote before (escaped already).
    return html.escape(html.unescape(title), quote=False)  # (quotes are text inside an element)


def _escape_search_titles(app):
    """The titles the search index shows, escaped (``html-collect-pages`` comes after every page
    is indexed and before the index is written); no page of its own."""
    indexer = getattr(app.builder, "indexer", None)
    if indexer is not None:
        titles = getattr(indexer, "_titles", {})
        for docname, title in titles.items():
            titles[docname] = _as_text(title)
        sections = getattr(indexer, "_all_titles", {})
        for docname, found in sections.items():
            sections[docname] = [(_as_text(title), anchor) for title, anchor in found]
    return []


def setup(app):
    # After the theme's own handler (priority 500), which sets these from the page's text.
    app.connect("html-page-context", _escape_titles, priority=950)
    app.connect("html-collect-pages", _escape_search_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
