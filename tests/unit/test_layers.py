"""The package is laid out along the data flow, and no import runs upward: a module imports only
from its own layer and the layers below it (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "claimbook"

# Lowest first. A top-level module or the cli package (the command line) is the highest layer.
LAYERS = ["common", "inputs", "claims", "engine", "present", "pipeline"]
TOP = len(LAYERS)


def _layer(module: str) -> int:
    """The layer of ``claimbook.X...``: the index of its first package, TOP for a top-level module."""
    parts = module.split(".")
    assert parts[0] == "claimbook", module
    if len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return TOP


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every claimbook import in the file, lazy ones inside functions included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import; name the module in full"
            if node.module and node.module.split(".")[0] == "claimbook":
                if node.module == "claimbook":
                    found.extend((node.lineno, f"claimbook.{alias.name}") for alias in node.names)
                else:
                    found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend(
                (node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "claimbook"
            )
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_sits_in_a_layer_or_is_a_command():
    top_level = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert top_level == ["__init__.py", "__main__.py", "quickcheck.py"], top_level
    folders = sorted(path.name for path in PACKAGE.iterdir() if path.is_dir() and path.name != "__pycache__")
    assert folders == sorted([*LAYERS, "cli"]), folders


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_import_runs_upward(path):
    own = _layer(_module_name(path))
    upward = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: imports {module} ({LAYERS[_layer(module)] if _layer(module) < TOP else 'command line'}) from layer {LAYERS[own] if own < TOP else 'command line'}"
        for line, module in _imports(path)
        if _layer(module) > own
    ]
    assert not upward, "\n".join(upward)


def test_the_check_finds_an_upward_import(tmp_path):
    """The rule is not vacuous: a module of the inputs layer importing the engine is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from claimbook.engine.core import Data\n")
    assert [(_layer(module)) for _, module in _imports(bad)] == [LAYERS.index("engine")]
    assert _layer("claimbook.inputs.fetch") < _layer("claimbook.engine.core")
    assert _layer("claimbook.cli") == TOP and _layer("claimbook.cli.build") == TOP
