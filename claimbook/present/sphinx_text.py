"""A Sphinx extension that keeps page titles text in every place the theme prints them.

sphinx-book-theme puts each page's title, as plain text (``title.astext()``), unescaped into the
heading of its print layout; a title from a registry (``<script>...``) would become markup there
on every page whose navigation names it. The title is escaped here, after the theme set it.
"""

from __future__ import annotations

import html

ESCAPED = ("pagetitle", "page_description")


def _escape_titles(app, pagename, templatename, context, doctree):
    for key in ESCAPED:
        if isinstance(context.get(key), str):
            context[key] = html.escape(context[key])


def setup(app):
    # After the theme's own handler (priority 500), which sets these from the page's text.
    app.connect("html-page-context", _escape_titles, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
