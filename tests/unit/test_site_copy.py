"""What of Sphinx's output the published site holds (claimbook.pipeline.jupyterbook.copy_site):
everything but the theme's translation catalogs, which no page or script reads."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest
import yaml

from claimbook.pipeline import jupyterbook
from tests.helpers.project import ROOT

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


def test_the_site_is_made_again_when_the_book_s_sphinx_extensions_change(tmp_path):
    """The site's stamp covers the staged sources and the code of the book's Sphinx extensions
    (``*/sphinx_*.py`` of the package), and nothing else of the package."""
    book = tmp_path / "book"
    (book / "book").mkdir(parents=True)
    for name, text in (
        ("_config.yml", "title: t\n"),
        ("_toc.yml", "root: book/index\n"),
        ("book/index.md", "# i\n"),
    ):
        (book / name).write_text(text)
    package = tmp_path / "package"
    (package / "present").mkdir(parents=True)
    extension, other = package / "present" / "sphinx_thing.py", package / "present" / "blocks.py"
    extension.write_text("A = 1\n")
    other.write_text("B = 1\n")
    first = jupyterbook.site_digest(book, package)
    other.write_text("B = 2\n")
    assert jupyterbook.site_digest(book, package) == first
    extension.write_text("A = 2\n")
    second = jupyterbook.site_digest(book, package)
    assert second != first
    (book / "book" / "index.md").write_text("# j\n")
    assert jupyterbook.site_digest(book, package) not in (first, second)
    # Every extension of the package the book's configuration loads, and those it sets up, is one.
    found = {
        path.relative_to(jupyterbook.PACKAGE.parent).with_suffix("").as_posix().replace("/", ".")
        for path in jupyterbook.PACKAGE.glob("*/sphinx_*.py")
    }
    configured = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["extra_extensions"]
    offline = (jupyterbook.PACKAGE / "pipeline" / "sphinx_offline.py").read_text()
    loaded = {*configured, *re.findall(r'setup_extension\("(claimbook\.[\w.]+)"\)', offline)}
    assert len(loaded) >= 4 and loaded <= found, sorted(loaded - found)


def test_the_site_stamp_names_the_versions_of_what_writes_the_site(tmp_path, monkeypatch):
    """``site_software`` gives the version importlib.metadata gives of each distribution listed;
    every Sphinx extension jupyter-book loads for the book's configuration is listed (or the
    book's own); another version makes another stamp."""
    from importlib import metadata

    from jupyter_book.config import get_final_config

    said = dict(item.split("==") for item in jupyterbook.site_software().split()[1:])
    expected = {
        re.sub(r"[-_.]+", "_", name).lower(): metadata.version(name)
        for name in jupyterbook.SITE_DISTRIBUTIONS
    }
    assert said == expected
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    final, _ = get_final_config(user_yaml=config, cli_config={"latex_individualpages": False}, sourcedir=ROOT)
    providers = metadata.packages_distributions()
    listed = {name.lower().replace("_", "-") for name in jupyterbook.SITE_DISTRIBUTIONS}
    for extension in final["extensions"]:
        names = {name.lower().replace("_", "-") for name in providers.get(extension.split(".")[0], [])}
        assert names & (listed | {"claimbook"}), f"{extension} ({names}) is not in SITE_DISTRIBUTIONS"
    book = tmp_path / "book"
    (book / "book").mkdir(parents=True)
    (book / "book" / "index.md").write_text("# i\n")
    first = jupyterbook.site_digest(book)
    monkeypatch.setattr(jupyterbook, "site_software", lambda: "3.11.7 sphinx==0.0")
    assert jupyterbook.site_digest(book) != first
