"""The one Jinja2 environment every piece of the book's HTML is written with: cards, badges,
tables, citations and the pages' HTML blocks, each a template in ``templates/``.

Escaping is the template's, never the caller's: the environment autoescapes every value it
writes (``{{ value }}``) with ``escape`` (``html.escape``'s entities, a backtick as ``&#96;`` and
no newline, so no value starts a line of Markdown), and a value is written as markup only when it
is ``Markup``: what another template wrote (``trusted``). An undefined name is an error, never an
empty string (``StrictUndefined``).

Templates are written one element or so a line, indented as the markup nests; the loader joins
the lines, dropping each line's indentation and its newline, so what a template writes is one
line, as a Markdown HTML block needs: a space wanted between two pieces is written inside a line,
or as ``{{ " " }}`` where a long sentence goes on over the next line, and a line break the output
keeps as ``{{ newline }}``. A script's template (``*.js``) keeps its lines as written: a script's
meaning can hang on them, and its reader reads them so. JSON in a script is written by
``script_json``, never by ``{{ }}``'s HTML escaping.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import jinja2
from markupsafe import Markup

TEMPLATES = Path(__file__).resolve().parent / "templates"


def escape(text) -> str:
    """HTML-escaped text, safe in an element or an attribute; no newline starts a Markdown line."""
    return html.escape(str(text)).replace("`", "&#96;").replace("\r", " ").replace("\n", " ")


def trusted(markup: str) -> Markup:
    """Markup written by a template of this environment (or by ``escape``), to be written as it is."""
    return Markup(markup)


def _escaped(value) -> Markup:
    """A value as a template writes it: markup as it is, anything else escaped by ``escape``."""
    return value if hasattr(value, "__html__") else Markup(escape(value))


def script_json(value) -> Markup:
    """``value`` as JSON to write inside a ``<script>``: keys sorted, no spaces, every ``<`` (and
    the two line separators old parsers end a string at) as a ``\\u`` escape, so no text of the
    data can close the script (``</script>``) or open a comment (``<!--``) in it."""
    payload = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(payload.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


class _JoinedLines(jinja2.FileSystemLoader):
    """Templates from ``templates/``, each line's indentation and newline dropped (but a script's)."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        if template.endswith(".js"):
            return source, filename, uptodate
        return "".join(line.lstrip() for line in source.splitlines()), filename, uptodate


ENVIRONMENT = jinja2.Environment(
    loader=_JoinedLines(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    finalize=_escaped,
)
# ``|e`` says what every ``{{ }}`` does already, with the same entities (MarkupSafe's own differ).
ENVIRONMENT.filters["e"] = ENVIRONMENT.filters["escape"] = _escaped
# ``|lines``: text escaped with its lines kept, for a ``<pre>`` (``html.escape`` alone).
ENVIRONMENT.filters["lines"] = lambda value: Markup(html.escape(str(value)))
# A line break a template writes (its own are dropped by the loader).
ENVIRONMENT.globals["newline"] = Markup("\n")


def compile_all() -> None:
    """Every template compiled into the environment, once: the kernels' fork server does it
    before it forks them (claimbook.pipeline.kernels), so that each page only renders."""
    for path in sorted(TEMPLATES.glob("*.html")) + sorted(TEMPLATES.glob("*.js")):
        ENVIRONMENT.get_template(path.name)


def render(name: str, **context) -> str:
    """The template ``name`` of ``templates/`` written with ``context``."""
    return ENVIRONMENT.get_template(name).render(**context)


def macro(name: str, function: str):
    """A macro of a template, to call from Python (it returns ``Markup``)."""
    return getattr(ENVIRONMENT.get_template(name).module, function)


def macros(name: str):
    """A template's macros, by name, to call from Python (each returns ``Markup``)."""
    return ENVIRONMENT.get_template(name).module


def render_string(source: str, **context) -> str:
    """``source``, a template given as text (the tests'), written with ``context``."""
    return ENVIRONMENT.from_string(source).render(**context)
