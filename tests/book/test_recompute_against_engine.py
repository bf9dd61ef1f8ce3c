"""The independent recomputations set beside the package, and the proof that they are independent.

``test_recompute.py`` and ``test_recompute_v51.py`` work out every figure and verdict with pandas
or the standard library alone and compare them with the committed scorecard: they import nothing
of ``claimbook``, which the checks at the end of this file hold them to (their own imports, those
of the test helpers they use, and a fresh interpreter that imports them). What compares the
recomputation with the package's own results, where a page shows what the engine computes beyond
the scorecard, is here.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.project import ROOT
from tests.book.test_recompute import SOURCE, efficiency_field, load

# The modules that recompute on their own: nothing of the package may be imported by them.
INDEPENDENT = ("tests.book.test_recompute", "tests.book.test_recompute_v51")


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return load(SOURCE)


def test_the_chapter_lists_the_superlinear_pairs_it_left_out(data):
    """The scaling chapter's table of pairs above linear (from the engine) is the independently
    computed set, highest first."""
    from claimbook import engine
    from claimbook.engine.context import load_data
    from claimbook.present.claim_pages import superlinear_pairs

    _, flagged = efficiency_field(data)
    book = load_data(
        str(ROOT / "data" / "mlperf" / "v6.1.csv"),
        [str(ROOT / "data" / "mlperf" / "earlier_rounds.csv")],
        str(ROOT / "data" / "reference"),
        str(ROOT / "data" / "claims"),
        str(ROOT / "data" / "chapters.yaml"),
    )
    shown = superlinear_pairs(engine.check(book.registry.claim("scaling-leading-efficiency"), book))
    assert list(shown["efficiency_percent"]) == sorted(shown["efficiency_percent"], reverse=True)
    key = ["organization", "benchmark", "scenario", "small_gpus", "large_gpus"]
    mine = sorted(
        (*(row[k] for k in key), round(row["efficiency_percent"], 6)) for _, row in shown.iterrows()
    )
    theirs = sorted(
        (
            row["organization"],
            row["benchmark"],
            row["scenario"],
            row["gpus_s"],
            row["gpus_l"],
            round(row["efficiency"], 6),
        )
        for _, row in flagged.iterrows()
    )
    assert len(mine) == 15 and mine == theirs


def _module_file(name: str) -> Path | None:
    """The file of the project's module ``name`` (a module of ``tests``), or None for another."""
    if name.split(".")[0] != "tests":
        return None
    path = ROOT.joinpath(*name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _imports(path: Path, name: str) -> set[str]:
    """Every module an import statement of ``path`` (the module ``name``) names, those inside its
    functions too, with the packages that hold them."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            named.add(module)
            named.update(f"{module}.{alias.name}" for alias in node.names)  # a module of a package
    return named | {
        ".".join(module.split(".")[:end]) for module in named for end in range(1, module.count(".") + 1)
    }


def _imported_by(start: str) -> dict[str, str]:
    """Every module ``start`` imports, directly or through the project's test modules it imports:
    {module: the project module whose import statement names it}."""
    found, queue = {}, [start]
    while queue:
        name = queue.pop()
        path = _module_file(name)
        for module in sorted(_imports(path, name)):
            if module not in found and module != start:
                found[module] = name
                if _module_file(module) is not None and _module_file(module).is_file():
                    queue.append(module)
    return found


@pytest.mark.parametrize("module", INDEPENDENT)
def test_the_recomputation_imports_nothing_of_the_package(module):
    """No import statement of the module, or of a test module or helper it imports, names
    ``claimbook``: its figures and verdicts are worked out without the code they check."""
    found = _imported_by(module)
    assert _module_file(module).is_file() and found, module
    of_the_package = sorted(
        f"{name} (in {by})" for name, by in found.items() if name.split(".")[0] == "claimbook"
    )
    assert not of_the_package, f"{module} imports the package: {of_the_package}"


def test_the_import_check_sees_the_imports_inside_functions():
    """The check above would see this module's imports of the package, made inside a test."""
    found = _imported_by("tests.book.test_recompute_against_engine")
    assert {"claimbook", "claimbook.engine.context", "claimbook.present.claim_pages"} <= set(found), found


def test_the_recomputation_imports_nothing_of_the_package_when_it_runs():
    """A fresh interpreter that imports both modules has imported no module of ``claimbook``
    (an import made while they load, by whatever means, counts too)."""
    code = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in INDEPENDENT)
        + "print(sorted(name for name in sys.modules if name.split('.')[0] == 'claimbook'))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "[]", f"importing {', '.join(INDEPENDENT)} imported {done.stdout.strip()}"
