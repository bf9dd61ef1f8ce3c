"""The templates are papermill-native: one cell tagged ``parameters`` holding flat, typed
parameters, one a line with a comment (``name: type = literal  # help``), every one of them passed
by name to the one call that opens the page's data (``open_chapter`` / ``open_claim_page``); the
build passes each page exactly the parameters its template declares; the data inputs every page
reads (``PAGE_INPUTS``) are declared by every template with the same defaults."""

import ast
import json

import pytest

from claimbook.common.errors import UsageError
from claimbook.engine.context import PAGE_INPUTS, page_parameters
from claimbook.pipeline.execute import cell_id
from claimbook.pipeline.plan import Job, check_declared, committed_plan, declared_parameters
from tests.helpers.project import ROOT

TEMPLATES = sorted((ROOT / "notebooks").glob("*.ipynb"))
OPENERS = {"open_chapter", "open_claim_page"}


def code_cells(template):
    notebook = json.loads(template.read_text(encoding="utf-8"))
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def parameters_cell(template) -> str:
    tagged = [cell for cell in code_cells(template) if "parameters" in cell["metadata"].get("tags", [])]
    assert len(tagged) == 1, f"{template.name}: {len(tagged)} cells tagged parameters"
    return "".join(tagged[0]["source"])


def calls(source: str) -> list[ast.Call]:
    return [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]


def called_name(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_every_parameter_is_flat_typed_literal_and_commented_on_its_line(template):
    source = parameters_cell(template)
    body = ast.parse(source).body
    assert body, f"{template.name}: no parameters"
    lines = source.splitlines()
    for node in body:
        assert isinstance(node, ast.AnnAssign), f"{template.name}: line {node.lineno} has no type"
        assert node.lineno == node.end_lineno, f"{template.name}: {node.target.id} spans lines"
        ast.literal_eval(node.value)  # a default papermill can show and the build can replace
        line = lines[node.lineno - 1]
        help_text = line.partition("  # ")[2]
        assert help_text.strip(), f"{template.name}: {node.target.id} has no one-line help"
        # papermill's reader takes a line with two '=' for no parameter at all
        assert line.count("=") == 1, f"{template.name}: {node.target.id}: '=' in its value or help"


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_every_template_declares_the_data_inputs_with_the_book_s_defaults(template):
    declared = declared_parameters(template)
    for name, default in PAGE_INPUTS.items():
        assert declared.get(name) == default, (template.name, name, declared.get(name))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_a_template_opens_its_data_once_passing_every_parameter_by_name(template):
    source = "\n".join("".join(cell["source"]) for cell in code_cells(template))
    found = calls(source)
    opened = [call for call in found if called_name(call) in OPENERS]
    assert len(opened) == 1, f"{template.name}: opens its data {len(opened)} times"
    passed = {keyword.arg: keyword.value for keyword in opened[0].keywords}
    positional = [arg.id for arg in opened[0].args if isinstance(arg, ast.Name)]
    declared = set(declared_parameters(template))
    assert set(passed) | set(positional) == declared, (
        template.name,
        declared ^ (set(passed) | set(positional)),
    )
    assert all(isinstance(value, ast.Name) and value.id == name for name, value in passed.items())
    assert not [call for call in found if called_name(call) in ("load_data", "page_data")]
    for call in found:
        if called_name(call) == "method":
            assert not call.args and not call.keywords, f"{template.name}: the method cell copies parameters"


def test_a_chapter_template_opens_its_own_chapter():
    pages, _ = committed_plan(ROOT)
    for job in pages:
        source = "\n".join("".join(cell["source"]) for cell in code_cells(ROOT / job.template))
        opened = next(call for call in calls(source) if called_name(call) in OPENERS)
        if called_name(opened) == "open_chapter":
            assert ast.literal_eval(opened.args[0]) == job.name


def test_the_build_gives_every_page_exactly_what_its_template_declares():
    """Every parameter a template declares is given by the build (a page built reads exactly
    what its parameters say, nothing from the package's defaults), and nothing else."""
    pages, _ = committed_plan(ROOT)
    for job in pages:
        assert set(job.parameters) == set(declared_parameters(ROOT / job.template)), job.name
        assert page_parameters(job.parameters) == {**job.parameters}, job.name


def test_a_parameter_the_template_does_not_declare_is_refused_naming_it():
    chapter = Job("scaling", "notebooks/scaling.ipynb", {"claim_ids": [], "tolerence": 1}, None, ())
    with pytest.raises(UsageError, match=r"data/chapters.yaml: chapter scaling: parameter tolerence"):
        check_declared(ROOT, [chapter])
    claim = Job("acme/x", "notebooks/claim.ipynb", {"claim_id": "x", "colour": "red"}, None, ("x",))
    with pytest.raises(UsageError, match=r"notebooks/claim.ipynb: a claim's page: parameter colour"):
        check_declared(ROOT, [claim])


@pytest.mark.parametrize(
    "given, named",
    [
        ({"earlier_paths": "data/mlperf/earlier_rounds.csv"}, "earlier_paths: a list of paths"),
        ({"overrides": "[]"}, "overrides: a mapping"),
        ({"results_path": 61}, "results_path: a path, not int"),
        ({"registry_dir": ""}, "registry_dir: a path"),
    ],
)
def test_a_data_input_of_the_wrong_kind_is_one_line_naming_it(given, named):
    with pytest.raises(UsageError, match=named) as raised:
        page_parameters(given)
    assert "\n" not in str(raised.value)


def test_cell_ids_are_unique_across_the_book_and_valid():
    """Every cell of every committed page has an id no other cell of the book has (every
    claim's page comes from one template), of the form nbformat allows."""
    import re

    seen = {}
    for path in sorted((ROOT / "book" / "generated").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", cell["id"]), (path.name, cell["id"])
            assert cell["id"] not in seen, (path.name, seen.get(cell["id"]), cell["id"])
            seen[cell["id"]] = path.name
    names = ["a_b", "a/b", "a.b", "x" * 70, "x" * 70 + "y", "amd-v6.1/" + "z" * 80]
    ids = [cell_id(name, index) for name in names for index in (0, 1, 12)]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", found) for found in ids), ids
