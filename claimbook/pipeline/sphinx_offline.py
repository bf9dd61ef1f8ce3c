"""A Sphinx extension that keeps the built book offline: free of scripts it does not use, and
with the chart library it does use.

jupyter-book always loads sphinx-thebe, which declares a CDN address for live code cells
and, on some pages, declares it twice (a console error). This book runs no code in the
browser, so its pages carry no thebe script at all.

The pages load vega, vega-lite and vega-embed from one local script (``claimbook.pipeline.assets``).
``claimbook build`` puts it in the staged book's ``_static``; a plain ``jupyter-book build .``
of the project has none there (it is made, not committed), so the extension writes it into the
site when the site lacks it.
"""

from __future__ import annotations

from pathlib import Path

from claimbook.pipeline.assets import VEGA_BUNDLE


def _is_thebe(script) -> bool:
    filename = getattr(script, "filename", None) or ""
    body = (getattr(script, "attributes", None) or {}).get("body", "")
    return "thebe" in filename or "THEBE_JS_URL" in body


def _drop_thebe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [script for script in scripts if not _is_thebe(script)]


def _ship_vega(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    if not (static / VEGA_BUNDLE).is_file():
        from claimbook.pipeline.assets import write_vega_bundle

        write_vega_bundle(static)


# The theme's templates compiled once, not by every jupyter-book process (a third of a second of
# a build that writes one page): kept beside Sphinx's own saved environment. Jinja names each
# entry by its template's source digest, so a changed template is compiled again.
JINJA_CACHE = "claimbook-jinja"


def _keep_compiled_templates(app):
    templates = getattr(app.builder, "templates", None)
    environment = getattr(templates, "environment", None)
    if environment is None or app.builder.format != "html":
        return
    from jinja2 import FileSystemBytecodeCache

    folder = Path(app.doctreedir) / JINJA_CACHE
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("builder-inited", _keep_compiled_templates)
    # Page titles from the registries are text in the theme's templates too (claimbook.present.sphinx_text).
    app.setup_extension("claimbook.present.sphinx_text")
    # The front page's ledger is left out of the search index (claimbook.present.sphinx_unindexed).
    app.setup_extension("claimbook.present.sphinx_unindexed")
    # A rebuild's site is the site a build from nothing makes (claimbook.pipeline.sphinx_same_site).
    app.setup_extension("claimbook.pipeline.sphinx_same_site")
    app.connect("build-finished", _ship_vega)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
