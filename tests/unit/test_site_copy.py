"""What of Sphinx's output the published site holds (claimbook.pipeline.jupyterbook.copy_site):
everything but the theme's translation catalogs, which no page or script reads."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from claimbook.pipeline import jupyterbook

THEME = (
    Path(importlib.util.find_spec("sphinx_book_theme").origin).parent
    / "theme"
    / "sphinx_book_theme"
    / "static"
    / "locales"
)


@pytest.fixture
def site(tmp_path):
    """A small site as Sphinx writes it: a page, a static file, the theme's catalogs."""
    html = tmp_path / "work" / "_build" / "html"
    (html / "_static").mkdir(parents=True)
    (html / "index.html").write_text("<p>page</p>")
    (html / "_static" / "claimbook.css").write_text("p {}")
    shutil.copytree(THEME, html / "_static" / "locales")
    return html


def _published(site, tmp_path) -> list[str]:
    target = tmp_path / "staged-html"
    jupyterbook.copy_site(site, target, tmp_path / "work", "stamp", None)
    return sorted(path.relative_to(target).as_posix() for path in target.rglob("*"))


def test_the_theme_s_catalogs_are_not_published_and_everything_else_is(site, tmp_path):
    assert len(list(THEME.rglob("*.mo"))) > 10  # (the installed theme ships them)
    published = _published(site, tmp_path)
    assert "index.html" in published and "_static/claimbook.css" in published
    assert not any(name.startswith("_static/locales") for name in published)


def test_a_book_s_own_file_among_them_keeps_the_folder_published(site, tmp_path):
    (site / "_static" / "locales" / "own.txt").write_text("the book's")
    published = _published(site, tmp_path)
    assert "_static/locales/own.txt" in published
    theirs = sorted(path.relative_to(THEME.parent).as_posix() for path in THEME.rglob("*"))
    assert set(theirs) <= {name.removeprefix("_static/") for name in published}
