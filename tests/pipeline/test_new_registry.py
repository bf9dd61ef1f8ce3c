"""An analyst adds an announcement as data and nothing else: a copy of the project with a new
registry of several kinds builds with ``make book`` (strict), and the suite's generic tests, the
recomputation of the project's own claims and nbval on the new pages pass in that copy, with no
code written for its claims."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.analyst_registry import ANALYST_ID, ANALYST_REGISTRY, SINGLE_ID, SINGLE_REGISTRY
from tests.helpers.project import ROOT, project_copy

# The generic tests, and those that name the project's own claims (they must not fail because
# another registry exists).
SUITE = (
    "tests/book/test_every_claim.py",
    "tests/unit/test_check.py::test_check_gives_the_scorecard_of_the_built_pages_for_every_claim",
    "tests/book/test_recompute.py",
    "tests/book/test_recompute_against_engine.py",
    "tests/pipeline/test_parts.py::test_the_committed_registries_load_and_name_every_required_claim",
    "tests/pipeline/test_parts.py::test_the_toc_lists_every_page",
    "tests/pipeline/test_project.py::test_the_committed_toc_is_current_and_lists_every_page",
    "tests/unit/test_coverage.py::test_the_committed_registries_cover_their_set_asides_on_their_pages",
)


def _run(copy: Path, command: list[str]):
    """A command run in the copy, with the copy's own package."""
    hidden = ("CLAIMBOOK_BOOK_ROOT", "PYTEST_ADDOPTS")
    env = {key: value for key, value in os.environ.items() if key not in hidden}
    env["PYTHONPATH"] = str(copy)
    return subprocess.run(
        command, cwd=copy, env=env, capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture(scope="module")
def analysts_project(tmp_path_factory) -> Path:
    """The project copied, a new registry added, and ``make book`` run in it (with this
    environment's Python: the copy's environment is taken as set up)."""
    copy = project_copy(tmp_path_factory.mktemp("analyst") / "project")
    shutil.copytree(
        ROOT / "tests", copy / "tests", dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    (copy / "data" / "claims" / f"{ANALYST_ID}.yaml").write_text(ANALYST_REGISTRY.lstrip(), encoding="utf-8")
    # And one of a single claim and a single statement set aside (its pages count in ones).
    (copy / "data" / "claims" / f"{SINGLE_ID}.yaml").write_text(SINGLE_REGISTRY.lstrip(), encoding="utf-8")
    (copy / ".venv").mkdir()
    (copy / ".venv" / ".installed").touch()  # newer than the pins: make takes the environment as set up
    done = _run(copy, ["make", "-s", "book", f"PY={sys.executable}"])
    assert done.returncode == 0, f"make book failed in the copy:\n{done.stderr[-4000:]}"
    assert "warning" not in done.stderr, done.stderr
    return copy


def test_a_new_registry_builds_and_passes_the_generic_tests(analysts_project):
    copy = analysts_project
    rows = json.loads((copy / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8"))
    verdicts = {row["claim"]: row["verdict"] for row in rows if row["announcement"] == ANALYST_ID}
    # Several kinds, and every verdict but "supported with caveats" among them.
    assert {"supported", "not supported", "cannot be checked"} <= set(verdicts.values()), verdicts
    pages = sorted((copy / "book" / "generated" / ANALYST_ID).glob("*.ipynb"))
    assert len(pages) >= 4, pages
    single = (copy / "book" / "generated" / f"{SINGLE_ID}.md").read_text(encoding="utf-8")
    assert "judges 1 claim of this announcement and sets 1 statement aside" in single
    pages += sorted((copy / "book" / "generated" / SINGLE_ID).glob("*.ipynb"))
    assert (copy / "_build" / "html" / "book" / "generated" / f"{ANALYST_ID}.html").is_file()
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *SUITE]
    done = _run(copy, [*pytest, "--nbval", *(str(page.relative_to(copy)) for page in pages)])
    assert done.returncode == 0, f"the suite failed in the copy:\n{done.stdout[-6000:]}"
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
