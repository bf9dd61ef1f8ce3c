"""Short functions (issue 18): none in the package runs over about a screen. A longer one is doing
several things, and is split where it does (``claimbook.pipeline.book`` and its steps, for example).

Every layer is held to it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "claimbook"

LIMIT = 60  # lines of a function, its signature, docstring and nested functions included
# The layers held to the limit, and "" for the top-level modules and "cli" for the command line.
CHECKED = ("", "cli", "common", "inputs", "claims", "engine", "present", "pipeline")


def long_functions(package: Path = PACKAGE, limit: int = LIMIT) -> list[tuple[str, str, int]]:
    """(module path, function, lines) for every function or method of the package over ``limit``
    lines, the nested ones counted within their function and on their own."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found.append((path.relative_to(package).as_posix(), node.name, lines))
    return found


def _layer(module: str) -> str:
    parts = module.split("/")
    return parts[0] if len(parts) > 1 else ""


def test_no_function_in_the_checked_folders_is_long():
    long = [
        f"claimbook/{module}: {name} has {lines} lines (at most {LIMIT})"
        for module, name, lines in long_functions()
        if _layer(module) in CHECKED
    ]
    assert not long, "\n".join(long)


def test_the_check_sees_a_long_function(tmp_path):
    module = tmp_path / "claimbook" / "pipeline" / "long.py"
    module.parent.mkdir(parents=True)
    body = "\n".join(f"    x{number} = {number}" for number in range(LIMIT))
    module.write_text(f"def short():\n    return 1\n\n\ndef long():\n{body}\n    return x0\n")
    assert long_functions(tmp_path / "claimbook") == [("pipeline/long.py", "long", LIMIT + 2)]
    assert _layer("pipeline/long.py") in CHECKED and _layer("cli/build.py") in CHECKED
    assert _layer("quickcheck.py") in CHECKED
