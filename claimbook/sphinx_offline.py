"""A Sphinx extension that keeps the built book free of scripts it does not use.

jupyter-book always loads sphinx-thebe, which declares a CDN address for live code cells
and, on some pages, declares it twice (a console error). This book runs no code in the
browser, so its pages carry no thebe script at all.
"""

from __future__ import annotations


def _is_thebe(script) -> bool:
    filename = getattr(script, "filename", None) or ""
    body = (getattr(script, "attributes", None) or {}).get("body", "")
    return "thebe" in filename or "THEBE_JS_URL" in body


def _drop_thebe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [script for script in scripts if not _is_thebe(script)]


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    # Page titles from the registries are text in the theme's templates too (claimbook.sphinx_text).
    app.setup_extension("claimbook.sphinx_text")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
