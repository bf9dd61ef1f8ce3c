"""The kind contract (claimbook/engine/kinds/__init__.py): every kind module exports a complete
spec, its example validates, and a kind module is found by being in the package."""

from __future__ import annotations

import dataclasses
import importlib
import sys

import pytest

from claimbook import engine
from claimbook.claims import fields as claim_fields
from claimbook.claims.registry import RegistryError, _claim
from claimbook.engine import kinds
from claimbook.engine.core import CaseDetail
from claimbook.present import scaffold

MOVED = sorted(engine.KINDS)


def test_every_module_of_the_package_is_a_kind():
    names = {module.__name__.rsplit(".", 1)[1] for module in kinds.modules(kinds)}
    assert names == {module.__name__.rsplit(".", 1)[1] for module in engine.KINDS.values()}
    assert set(engine.KINDS) == set(engine.SPECS)


@pytest.mark.parametrize("name", MOVED)
def test_a_kind_module_keeps_the_contract(name):
    module = engine.KINDS[name]
    assert kinds.problems(module) == []
    spec = module.SPEC
    assert spec.name == name
    assert dataclasses.is_dataclass(spec.detail) and issubclass(spec.detail, CaseDetail)
    # A field of a kind is not one every claim has (a claim lists it once).
    assert not set(spec.field_names()) & set(claim_fields.NAMES)


@pytest.mark.parametrize("name", MOVED)
def test_the_example_of_each_kind_validates(name):
    spec = engine.SPECS[name]
    claim = _claim(
        spec.example,
        scaffold.EXAMPLE_FILE,
        0,
        scaffold._example_announcement(),
        validate=engine.validate_claim,
    )
    assert claim.kind == name
    for item in spec.required:
        assert item.name in spec.example, f"the example of {name} lacks its required field {item.name}"


@pytest.mark.parametrize("name", MOVED)
def test_a_field_of_a_kind_with_allowed_values_rejects_others(name):
    """An enumerated field's values are the ones the kind accepts: the example with another value fails."""
    spec = engine.SPECS[name]
    for item in spec.fields:
        if item.values and isinstance(spec.example.get(item.name), str):
            wrong = {**spec.example, item.name: "no-such-value"}
            with pytest.raises(RegistryError, match=f"field {item.name}"):
                _claim(
                    wrong,
                    scaffold.EXAMPLE_FILE,
                    0,
                    scaffold._example_announcement(),
                    validate=engine.validate_claim,
                )


def test_problems_names_what_a_module_lacks():
    module = type(sys)("claimbook_fake_kind")
    assert kinds.problems(module) == ["claimbook_fake_kind: no SPEC (a KindSpec)"]
    module.__doc__ = "A fake."
    module.SPEC = kinds.KindSpec(
        name="fake",
        description="a fake kind",
        required=(kinds.Field("benchmark", ""),),
        optional=(),
        example={"kind": "other"},
        detail=dict,
        selectors=("subject",),
    )
    found = kinds.problems(module)
    assert any("no function check" in text for text in found)
    assert any("field benchmark has no meaning" in text for text in found)
    assert any("selectors names 'subject'" in text for text in found)
    assert any("not a CaseDetail" in text for text in found)
    assert any("not a fake claim" in text for text in found)


FAKE_KIND = '''"""A fake kind: a figure nobody checks."""

from dataclasses import dataclass

from claimbook.engine import core, kinds


@dataclass(frozen=True)
class FakeCase(core.CaseDetail):
    note: str = ""


SPEC = kinds.KindSpec(
    name="fake",
    description="a fake kind, found by being in its package",
    required=(kinds.Field("claimed", "the figure"),),
    optional=(kinds.Field("mode", "how", {"plain": "as it is"}),),
    example={"id": "x-fake", "statement": "A fake.", "kind": "fake", "claimed": 1},
    detail=FakeCase,
)


def validate(claim):
    pass


def check(claim, data):
    return core.finish(claim, core.Outcome(core.CANNOT_BE_CHECKED, "fake"))


def charts(check, data):
    return []
'''


def test_a_kind_module_in_a_package_is_discovered(tmp_path, monkeypatch):
    package = tmp_path / "fakekinds"
    package.mkdir()
    (package / "__init__.py").write_text('"""Fake kinds."""\n')
    (package / "fake.py").write_text(FAKE_KIND)
    (package / "_helper.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = kinds.discover(importlib.import_module("fakekinds"))
    assert list(found) == ["fake"]
    assert kinds.problems(found["fake"]) == []
    sys.modules.pop("fakekinds.fake", None)
    sys.modules.pop("fakekinds", None)


def test_two_modules_of_one_kind_are_refused(tmp_path, monkeypatch):
    package = tmp_path / "twicekinds"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "one.py").write_text(FAKE_KIND)
    (package / "two.py").write_text(FAKE_KIND)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="already"):
        kinds.discover(importlib.import_module("twicekinds"))
    for name in ("twicekinds.one", "twicekinds.two", "twicekinds"):
        sys.modules.pop(name, None)


def test_the_fields_every_claim_has_are_listed_once():
    """The registry keeps the held fields on the Claim; the engine allows all of them on any kind."""
    from claimbook.claims import registry

    assert not hasattr(registry, "COMMON_FIELDS")
    assert not hasattr(engine, "COMMON") and not hasattr(engine, "KIND_DESCRIPTIONS")
    assert set(claim_fields.HELD) <= set(claim_fields.NAMES)
    assert all(item.meaning for item in claim_fields.COMMON)


def test_every_chart_a_kind_may_ask_for_has_a_renderer():
    from claimbook.present import claim_pages

    assert set(claim_pages.RENDERERS) == set(kinds.CHARTS)


@pytest.fixture(scope="module")
def committed():
    from claimbook.engine.context import load_data
    from tests.helpers.project import ROOT

    return load_data(
        str(ROOT / "data" / "mlperf" / "v6.1.csv"),
        [str(ROOT / "data" / "mlperf" / "earlier_rounds.csv")],
        str(ROOT / "data" / "reference"),
        str(ROOT / "data" / "claims"),
        str(ROOT / "data" / "chapters.yaml"),
        result_ids_path=str(ROOT / "data" / "result_ids.csv"),
    )


def test_each_moved_kind_presents_its_checks_through_its_spec(committed):
    """On the committed registry: every claim of a moved kind gives a case detail of its kind's
    class, chart specs of the vocabulary, a case table in its spec's columns, and a caption from
    its spec for each context table it leaves."""
    from claimbook.present import claim_pages

    seen = set()
    for claim in committed.registry.all_claims():
        module = engine.KINDS.get(claim.kind)
        if claim.parts or module is None:
            continue
        seen.add(claim.kind)
        check = engine.check(claim, committed)
        assert all(isinstance(case.detail, module.SPEC.detail) for case in check.cases), claim.id
        assert all(isinstance(chart, kinds.CHARTS) for chart in module.charts(check, committed)), claim.id
        table = claim_pages.case_table(check)
        assert list(table.columns) == [column.heading for column in module.SPEC.columns]
        assert len(table) == len(check.cases)
        for name, frame in check.tables.items():
            if frame is not None and not frame.empty:
                assert name in module.SPEC.tables, f"{claim.id}: table {name} has no caption in the spec"
                shown, caption = claim_pages.context_table(frame, module.SPEC.tables[name])
                assert caption and len(shown) <= len(frame)
    assert seen == set(MOVED)


@pytest.mark.parametrize("name", MOVED)
def test_every_kind_refuses_a_field_it_does_not_have(name):
    """A field a kind does not have is a registry error naming it and the kind's fields: never
    accepted and ignored."""
    spec = engine.SPECS[name]
    wrong = {**spec.example, "speedup": 2}
    with pytest.raises(RegistryError, match=f"field speedup: not a field of an? {name} claim; it has "):
        _claim(
            wrong, scaffold.EXAMPLE_FILE, 0, scaffold._example_announcement(), validate=engine.validate_claim
        )


# A field each kind has but does not use for the example's form, mode or quantifier: the error
# names the field, the kind and what the field is for.
UNUSED = {
    "figure": ("within", 5, "within is for quantifier: within"),
    "leading": ("definitions", [{"label": "x", "beyond_gpus": 8}], "definitions is for metric efficiency"),
    "presence": ("history", True, "history is for mode rows"),
    "ratio": ("match_on", ["gpus"], "match_on is for form counterparts"),
    "round-gain": ("tolerance", 0.01, None),  # (used: its example's up-to reads at a precision)
    "scaling": ("within", 5, "within is for quantifier: within"),
    "unnamed-baseline": ("within", 5, "within is for quantifier: within"),
    "stated-figures": ("listed", "result-ids", None),  # (a mode of its own: refused by the kind)
    "not-checkable": ("claimed", 1, None),  # (recorded: every not-checkable claim may state it)
}


@pytest.mark.parametrize("name", MOVED)
def test_a_field_the_claims_form_does_not_use_is_refused_saying_what_it_is_for(name):
    field, value, says = UNUSED[name]
    entry = {**engine.SPECS[name].example, field: value}
    if says is None:
        return  # this kind's example uses the field: nothing to refuse
    with pytest.raises(RegistryError, match=f"field {field}: an? {name} claim .*does not use it; {says}"):
        _claim(
            entry, scaffold.EXAMPLE_FILE, 0, scaffold._example_announcement(), validate=engine.validate_claim
        )


def test_every_kind_module_is_under_700_lines():
    from pathlib import Path

    folder = Path(kinds.__file__).parent
    long = {path.name: len(path.read_text().splitlines()) for path in folder.glob("*.py")}
    assert all(lines <= 700 for lines in long.values()), long


def test_no_module_outside_the_kinds_branches_on_a_kinds_name():
    """What code elsewhere needs of a kind it asks the kind's spec or case detail: a kind's name
    compared with anything (a claim's kind, a variable, a row's field) outside the kinds' modules
    is a kind's logic out of its module. The package is read, and the tests that hold for every
    claim (they must hold for a kind added tomorrow too)."""
    import ast
    from pathlib import Path

    package = Path(engine.__file__).parents[1]
    names = set(engine.KINDS) | {engine.PARENT_KIND}
    read = [path for path in sorted(package.rglob("*.py")) if "engine/kinds" not in path.as_posix()]
    read += [Path(__file__).parents[1] / name for name in GENERIC_TESTS]
    found = []
    for path in read:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and _strings_compared(node) & names:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert not found, found


# The tests that hold for every claim of every registry, whatever its kind.
GENERIC_TESTS = ("book/test_every_claim.py",)


def _strings_compared(node) -> set[str]:
    """The texts a comparison compares with (``x == "ratio"``, ``x in ("ratio", "figure")``)."""
    import ast

    texts = set()
    for operand in (node.left, *node.comparators):
        items = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
        texts |= {
            item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)
        }
    return texts


def test_a_kind_leaves_to_the_analyst_only_fields_it_has():
    """What a kind's draft leaves to the analyst (``TODO``) and what the text fills are fields of
    that kind: a draft never holds a field its kind would refuse."""
    for name, drafting in engine.DRAFTING.items():
        spec = engine.SPECS[name]
        unknown = [field for field in drafting.todos if spec.field(field) is None]
        assert not unknown, (name, unknown)
        assert drafting.proposals or drafting.superlatives, name
