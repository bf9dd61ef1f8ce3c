"""Every piece of the book's HTML is written by an autoescaping template (issue 44, item 2):
hostile text given to any value of any template shows as text, escaped with the book's own
entities (``blocks.escape``), never as markup, and never runs as a template; and no f-string of
``claimbook/present`` writes a tag around a value any more (the few left are listed, with why)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import jinja2
import pytest
from jinja2 import meta

from claimbook.present import blocks, charts, templating

HOSTILE = (
    "<script>alert(1)</script>",
    '"onmouseover="alert(1)',
    "' onload='alert(1)",
    "&amp; &lt;b&gt;",
    "{{ 7*7 }}",
    "{% raw %}x{% endraw %}",
    "</td></tr></table><img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "Gründlich — 5× ✔",
)
BENIGN = "benign"
TEMPLATES = sorted(path.name for pattern in ("*.html", "*.js") for path in templating.TEMPLATES.glob(pattern))
# The kinds of sentence the citation writes (blocks.citation): each is given the hostile value.
SENTENCES = ("round", "source", "published ids", "cited ids", "announcement", "derived", "trademark")


class Value:
    """A value of a template's context: its text, and the same as any attribute, item or pair."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Value(self.text)

    def __getitem__(self, key):
        return Value(self.text)

    def __iter__(self):
        return iter((Value(self.text), Value(self.text)))


def _renderings(name: str, text: str) -> list[str]:
    """What template ``name`` writes with every value it takes set to ``text``: its page, and
    each of its macros called."""
    environment = templating.ENVIRONMENT
    source = environment.loader.get_source(environment, name)[0]
    template = environment.get_template(name)
    # (the environment's own names, ``newline`` and Jinja's, are no values a caller gives)
    names = meta.find_undeclared_variables(environment.parse(source)) - set(environment.globals)
    context = {variable: Value(text) for variable in names}
    if "sentences" in context:
        context["sentences"] = [(kind, Value(text)) for kind in SENTENCES]
    written = [template.render(**context)]
    module = template.make_module(context)
    for macro in vars(module).values():
        if isinstance(macro, jinja2.runtime.Macro):
            written.append(str(macro(*(Value(text) for _ in macro.arguments))))
    return written


@pytest.mark.parametrize("name", TEMPLATES)
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_every_value_of_every_template_is_shown_escaped(name, text):
    benign = _renderings(name, BENIGN)
    for written, expected in zip(_renderings(name, text), benign, strict=True):
        # No script but the template's own (a chart's, chart.html).
        assert written.count("<script") == expected.count("<script")
        assert "onerror=" not in written.replace("onerror=alert", "")
        # Where the benign value was, the hostile one is, escaped by ``blocks.escape``: nothing of
        # it is markup, no quote ends an attribute, and ``{{ 7*7 }}`` is text, never 49.
        assert written.replace(blocks.escape(text), BENIGN) == expected, (name, written)
        assert _values_in_tags_are_quoted(written, blocks.escape(text)), (name, written)


def _values_in_tags_are_quoted(written: str, value: str) -> bool:
    """Each time ``value`` is written inside a tag, it is inside an attribute's double quotes (an
    unquoted attribute ends at a space, and the rest of the value would be attributes of its own)."""
    for match in re.finditer(re.escape(value), written):
        before = written[: match.start()]
        opened = before.rfind("<")
        if opened > before.rfind(">") and before[opened:].count('"') % 2 == 0:
            return False
    return True


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_writes_its_values(name):
    """(The test above sees each template write something of the values it is given.)"""
    assert any(BENIGN in written for written in _renderings(name, BENIGN)), name


def test_the_environment_escapes_as_blocks_escape_does():
    for text in ("<>&\"'`", "a\nb\rc", "Grüße — ✔ 5×", "&amp;", 42, None):
        assert templating.render_string("{{ value }}", value=text) == blocks.escape(text)
        assert templating.render_string("{{ value|e }}", value=text) == blocks.escape(text)
    assert blocks.escape("'\"") == "&#x27;&quot;"  # html.escape's entities, not MarkupSafe's
    marked = templating.trusted("<b>x</b>")
    assert templating.render_string("{{ value }}", value=marked) == "<b>x</b>"


def test_an_undefined_value_is_an_error_never_empty():
    with pytest.raises(jinja2.UndefinedError):
        templating.render("card.html")


# The f-strings of claimbook/present that may still put a value inside a tag, by module and
# function, and why.
LEFT = {
    # A MyST role's target in angle brackets (``{download}`CSV <path>```), not HTML.
    ("markdown_pages.py", "front_page"),
    # The plain-text twin of a chart ("<chart: title>"), not HTML.
    ("charts.py", "_render"),
}
_TAG = re.compile(r"</?[A-Za-z]")


def _tagged_f_strings() -> set[tuple[str, str]]:
    found = set()
    for path in sorted((Path(blocks.__file__).parent).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.JoinedStr) and any(
                    isinstance(part, ast.FormattedValue) for part in node.values
                ):
                    text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
                    if _TAG.search(text):
                        found.add((path.name, function.name))
    return found


def test_no_f_string_of_present_writes_a_tag_around_a_value_but_those_listed():
    found = _tagged_f_strings()
    assert found <= LEFT, f"write these with a template (claimbook/present/templates): {sorted(found - LEFT)}"
    assert LEFT <= found, f"no longer an f-string of HTML; take it off LEFT: {sorted(LEFT - found)}"


@pytest.mark.parametrize("text", HOSTILE + ("x\u2028y\u2029<!-- z",))
def test_hostile_text_in_a_chart_s_title_column_and_cell_is_escaped(text):
    """A chart's templates (chart.html, chart.js, chart_data.html) given hostile text where the
    data puts it: the element's label and the table escape it, and the spec's JSON in the script
    can neither close the script nor open a comment, and still reads as the same text."""
    records = [{text: text, "n": 1.0}, {text: "benign", "n": 2.0}]
    spec = {"title": text, "description": text, "datasets": {"d": records}}
    written = charts.embed_html(spec) + "\n" + charts.data_table_html(spec)
    script = written[written.index("<script") : written.index("</script>")]
    assert written.count("<script") == 1 and written.count("</script>") == 1
    assert "<!--" not in written and "\u2028" not in script and "\u2029" not in script
    payload = re.search(r"var spec = (.*);\n", script).group(1)
    assert json.loads(payload) == spec
    label = re.search(r'aria-label="([^"]*)"', written).group(1)
    assert label == blocks.escape(f"{text} {text}")
    table = written[written.index("<details") :].replace("<wbr>", "")  # (break points, after "/")
    assert table.count(blocks.escape(text)) == 2 and text not in table.replace(blocks.escape(text), "")
    assert _values_in_tags_are_quoted(written, blocks.escape(text))
