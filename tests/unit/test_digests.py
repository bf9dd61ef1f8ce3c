"""What a page depends on: the modules of the package its template imports, found by reading only
their import statements, must be those a parse of every whole module finds."""

from __future__ import annotations

import ast

import pytest

from claimbook.pipeline import digests
from tests.helpers.project import ROOT


def _whole_parse(source: str, package: str) -> set[str]:
    """An independent reading: every import node of the module parsed whole."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


MODULES = sorted((ROOT / "claimbook").rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[path.relative_to(ROOT).as_posix() for path in MODULES])
def test_import_statements_find_what_a_whole_parse_finds(path):
    source = path.read_text(encoding="utf-8")
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    whole = _whole_parse(source, package)
    scanned = digests._imports(source, package, fast=True)
    assert whole <= scanned  # a name more (one in a string) only adds a dependency
    ours = {name for name in scanned if digests._module_file(name)}
    assert ours == {name for name in whole if digests._module_file(name)}


def test_import_statements_over_several_lines_and_in_functions():
    source = (
        "from claimbook.engine import (\n"
        "    core,  # (the engine)\n"
        "    kinds,\n"
        ")\n"
        "import claimbook.common.paths as paths, \\\n"
        "    claimbook.common.files\n"
        "def f():\n"
        "    from .formatting import percent  # a bracket ( in a comment\n"
        "    return 1\n"
        "text = 'from x'\n"
    )
    found = digests._imports(source, "claimbook.common", fast=True)
    assert {
        "claimbook.engine.core",
        "claimbook.engine.kinds",
        "claimbook.common.paths",
        "claimbook.common.files",
        "claimbook.common.formatting.percent",
    } <= found
    assert found >= _whole_parse(source, "claimbook.common")


def test_a_fetched_file_in_the_ignored_raw_folder_leaves_the_assembly_digest_as_it_was(tmp_path):
    """``claimbook fetch`` writes data/raw/ROUND/ (ignored by git): the book holds a round once it
    is ingested, so a fetched file changes nothing the committed cache records; data does."""
    from claimbook.pipeline.cache import assembly_digest

    (tmp_path / "_config.yml").write_text("title: x\n", encoding="utf-8")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text("# x\n", encoding="utf-8")
    (tmp_path / "data" / "mlperf").mkdir(parents=True)
    (tmp_path / "data" / "mlperf" / "v6.1.csv").write_text("round\nv6.1\n", encoding="utf-8")
    before = assembly_digest(tmp_path, {}, {})
    fetched = tmp_path / "data" / "raw" / "v6.1" / "summary.csv"
    fetched.parent.mkdir(parents=True)
    fetched.write_text("Organization,Result,Location\n", encoding="utf-8")
    assert assembly_digest(tmp_path, {}, {}) == before
    (tmp_path / "data" / "mlperf" / "v5.1.csv").write_text("round\nv5.1\n", encoding="utf-8")
    assert assembly_digest(tmp_path, {}, {}) != before


def test_another_version_of_what_writes_the_site_changes_the_assembly_digest(tmp_path, monkeypatch):
    """A plain rebuild answers "nothing changed" only for the very book: Sphinx, the theme or
    another part of the site's software installed at another version is not that book."""
    from claimbook.pipeline import jupyterbook
    from claimbook.pipeline.cache import assembly_digest

    (tmp_path / "_config.yml").write_text("title: x\n", encoding="utf-8")
    (tmp_path / "book").mkdir()
    before = assembly_digest(tmp_path, {}, {})
    assert assembly_digest(tmp_path, {}, {}) == before
    software = jupyterbook.site_software()
    monkeypatch.setattr(jupyterbook, "site_software", lambda: software.replace("sphinx==", "sphinx==0."))
    assert assembly_digest(tmp_path, {}, {}) != before


def test_a_page_depends_on_the_html_templates_its_modules_write_with(tmp_path, monkeypatch):
    """The templates of ``claimbook.present.templating`` are read as a page runs: an edit of one
    changes the digest of every page whose code writes HTML with them."""
    modules = digests.template_modules(ROOT / "notebooks" / "claim.ipynb")
    assert "claimbook.present.templating" in modules
    key = "claimbook.present.templating templates"
    assert key in digests.modules_digest(modules)
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "table.html").write_text("<table></table>", encoding="utf-8")
    monkeypatch.setattr(digests, "READS", {"claimbook.present.templating": folder})
    before = digests.modules_digest(modules)[key]
    (folder / "table.html").write_text("<table class=x></table>", encoding="utf-8")
    assert digests.modules_digest(modules)[key] != before
