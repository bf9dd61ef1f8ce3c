"""The unit tier runs no build (CONTRIBUTING.md): a test of ``tests/unit/`` or ``tests/book/`` that
runs ``claimbook build`` lives in ``tests/pipeline/`` or carries ``@pytest.mark.build``, so that
``make test-quick`` stays the quick loop it says it is."""

from __future__ import annotations

import ast
import itertools

from tests.helpers.project import ROOT

UNIT_FOLDERS = (ROOT / "tests" / "unit", ROOT / "tests" / "book")
# The helpers that run the command line, and where in their arguments the command's name is.
COMMAND_AT = {"in_process": 0, "as_subprocess": 0, "in_copy": 1, "run_copy": 1}


def _runs_a_build(node: ast.AST) -> bool:
    """A call of a helper that runs ``build``, or a command line written out ("claimbook", "build")."""
    if isinstance(node, (ast.List, ast.Tuple)):
        words = [item.value if isinstance(item, ast.Constant) else None for item in node.elts]
        return any(pair == ("claimbook", "build") for pair in itertools.pairwise(words))
    if not isinstance(node, ast.Call):
        return False
    call = node
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if name == "build_book":
        return True
    at = COMMAND_AT.get(name)
    if at is None or len(call.args) <= at:
        return False
    command = call.args[at]
    return isinstance(command, ast.Constant) and command.value == "build"


def _marked_build(function: ast.FunctionDef) -> bool:
    return any(
        ast.unparse(decorator.func if isinstance(decorator, ast.Call) else decorator) == "pytest.mark.build"
        for decorator in function.decorator_list
    )


def unmarked_builds(source: str) -> list[str]:
    """The test functions of a module's ``source`` that run a build without the build marker."""
    return [
        node.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test")
        and not _marked_build(node)
        and any(_runs_a_build(inner) for inner in ast.walk(node))
    ]


def test_no_unit_test_runs_a_build_unmarked():
    found = [
        f"{path.relative_to(ROOT)}: {name} runs a build: move it to tests/pipeline/ or mark it build"
        for folder in UNIT_FOLDERS
        for path in sorted(folder.glob("test_*.py"))
        for name in unmarked_builds(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_a_build_and_its_marker():
    source = """
import pytest

def test_builds(tmp_path):
    done = in_process("build", "--no-html", "--out", tmp_path)

def test_builds_a_copy(tmp_path):
    run_copy(tmp_path, "build", "--strict")

def test_checks():
    in_process("check", "--json")

def test_builds_in_a_process(tmp_path):
    subprocess.run([sys.executable, "-m", "claimbook", "build", "--out", str(tmp_path)])

@pytest.mark.build
def test_marked(tmp_path):
    in_process("build", "--out", tmp_path)
"""
    assert unmarked_builds(source) == ["test_builds", "test_builds_a_copy", "test_builds_in_a_process"]
