"""The templates take one input: a cell tagged ``parameters`` that assigns one literal mapping,
``parameters``, which the build replaces whole; the data is loaded one way (``open_chapter`` /
``open_claim_page``), and the method cell reads the parameters itself."""

import ast
import json

import pytest
from conftest import ROOT

from claimbook.engine.context import page_parameters
from claimbook.pipeline.execute import PAGE_PARAMETERS
from claimbook.pipeline.plan import committed_plan

TEMPLATES = sorted((ROOT / "notebooks").glob("*.ipynb"))
OPENERS = {"open_chapter", "open_claim_page"}


def code_cells(template):
    notebook = json.loads(template.read_text(encoding="utf-8"))
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def calls(source: str) -> list[ast.Call]:
    return [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]


def called_name(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_a_template_s_one_input_is_one_literal_mapping(template):
    tagged = [cell for cell in code_cells(template) if "parameters" in cell["metadata"].get("tags", [])]
    assert len(tagged) == 1, f"{template.name}: {len(tagged)} cells tagged parameters"
    body = ast.parse("".join(tagged[0]["source"])).body
    assert len(body) == 1 and isinstance(body[0], ast.Assign), f"{template.name}: more than one statement"
    assert [target.id for target in body[0].targets] == [PAGE_PARAMETERS]
    assert isinstance(ast.literal_eval(body[0].value), dict)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_a_template_loads_its_data_one_way_and_its_method_reads_the_parameters(template):
    source = "\n".join("".join(cell["source"]) for cell in code_cells(template))
    found = calls(source)
    opened = [call for call in found if called_name(call) in OPENERS]
    assert len(opened) == 1, f"{template.name}: opens its data {len(opened)} times"
    assert opened[0].args[-1].id == PAGE_PARAMETERS
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


def test_the_build_gives_every_page_all_it_reads_and_the_template_s_own_names():
    """The mapping the build injects needs nothing from the package's defaults (a page built
    reads exactly what its parameters say), and holds every name its template's defaults give."""
    pages, _ = committed_plan(ROOT)
    for job in pages:
        depth = "../" * (job.name.count("/") + 1)
        assert page_parameters(job.parameters, depth) == job.parameters, job.name
        assert job.parameters["book_root"] == depth
        cell = next(
            c for c in code_cells(ROOT / job.template) if "parameters" in c["metadata"].get("tags", [])
        )
        defaults = ast.literal_eval(ast.parse("".join(cell["source"])).body[0].value)
        assert set(defaults) <= set(job.parameters), (job.name, set(defaults) - set(job.parameters))
