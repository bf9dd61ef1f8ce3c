"""The chart bundle (vega, vega-lite and vega-embed in one local script): made once per machine
by vl-convert's bundler (seconds), then copied from the cache into every book; a cached file
that is not a whole bundle for these versions, or not a regular file, is never used."""

from __future__ import annotations

import os

import pytest
import vl_convert

from claimbook.pipeline import assets


@pytest.fixture
def bundler(monkeypatch, tmp_path):
    """vl-convert's bundler counted (and made instant), the cache in a folder of the test's own."""
    calls = []

    def bundle(vl_version):
        calls.append(vl_version)
        return f"/* the bundle for vega-lite {vl_version} */"

    monkeypatch.setattr(vl_convert, "javascript_bundle", bundle)
    monkeypatch.setenv(assets.CACHE_VARIABLE, str(tmp_path / "cache"))
    return calls


def test_the_bundle_is_made_once_and_copied_into_every_book(bundler, tmp_path):
    first = assets.write_vega_bundle(tmp_path / "one")
    second = assets.write_vega_bundle(tmp_path / "two")
    assert len(bundler) == 1
    assert first.read_bytes() == second.read_bytes()
    text = first.read_text()
    assert text.startswith("/* vega ") and text.splitlines()[1] == "(function () {"
    assert text.endswith("})();\n") and "the bundle for vega-lite" in text
    assert [path.name for path in (tmp_path / "cache").iterdir()] == [
        next((tmp_path / "cache").glob("vega-*.js")).name
    ]  # no temporary file left


@pytest.mark.parametrize("damage", ["truncated", "other versions", "a link", "a folder"])
def test_a_cached_file_that_is_no_whole_bundle_is_made_again(bundler, tmp_path, damage):
    assets.write_vega_bundle(tmp_path / "one")
    cached = next((tmp_path / "cache").glob("vega-*.js"))
    text = cached.read_text()
    cached.unlink()
    if damage == "truncated":
        cached.write_text(text[: len(text) // 2])
    elif damage == "other versions":
        cached.write_text(text.replace("/* vega ", "/* vega 0.0.1 ", 1))
    elif damage == "a link":
        elsewhere = tmp_path / "elsewhere.js"
        elsewhere.write_text(text)
        os.symlink(elsewhere, cached)
    else:
        cached.mkdir()
    made = assets.write_vega_bundle(tmp_path / "two")
    assert len(bundler) == 2
    assert made.read_text() == text
    if damage != "a folder":  # a folder in its place is left as it is, and the book made anyway
        assert assets._whole_bundle(cached, text.splitlines(keepends=True)[0]) == text


def test_a_cache_that_cannot_be_written_still_gives_the_book_its_bundle(bundler, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be\n")
    monkeypatch.setenv(assets.CACHE_VARIABLE, str(blocked))
    made = assets.write_vega_bundle(tmp_path / "book")
    assert made.read_text().endswith("})();\n") and len(bundler) == 1
    assert blocked.read_text() == "a file where the cache folder would be\n"


def test_the_cache_folder_follows_the_variables(monkeypatch, tmp_path):
    monkeypatch.delenv(assets.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert assets.cache_folder() == tmp_path / "xdg" / "claimbook"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert assets.cache_folder() == tmp_path / "home" / ".cache" / "claimbook"
    monkeypatch.setenv(assets.CACHE_VARIABLE, str(tmp_path / "mine"))
    assert assets.cache_folder() == tmp_path / "mine"


def test_the_vega_lite_version_is_altairs_own_read_without_importing_it():
    import subprocess
    import sys

    import altair

    said = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from claimbook.pipeline import assets; print(assets.vegalite_version(), 'altair' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    major, minor = altair.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    assert said == [f"{major}.{minor}", "False"]


@pytest.mark.parametrize(
    ("chosen", "schema", "written"),
    [
        ("from .v6 import *\n", 'SCHEMA_VERSION = "v6.4.1"\n', "v6.4.1"),
        ("from .v6 import *\nfrom .v5 import *\n", 'SCHEMA_VERSION = "v6.4.1"\n', None),  # which one?
        ("from .v6 import *\n", "SCHEMA_VERSION = compute()\n", None),  # not a literal
        ("from .v6 import *\n", 'SCHEMA_VERSION = "v6.4.1"\nSCHEMA_VERSION = "v6.5.0"\n', None),
        ("import os\n", 'SCHEMA_VERSION = "v6.4.1"\n', None),
    ],
)
def test_altairs_files_give_its_version_only_where_they_say_it_plainly(
    tmp_path, monkeypatch, chosen, schema, written
):
    import importlib.util
    from types import SimpleNamespace

    (tmp_path / "vegalite" / "v6" / "schema").mkdir(parents=True)
    (tmp_path / "vegalite" / "__init__.py").write_text(chosen)
    (tmp_path / "vegalite" / "v6" / "schema" / "__init__.py").write_text(schema)
    found = SimpleNamespace(submodule_search_locations=[str(tmp_path)])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: found if name == "altair" else None)
    assert assets._schema_version_written() == written


def test_where_altairs_files_do_not_say_it_the_version_is_altairs_constant(monkeypatch):
    import altair

    monkeypatch.setattr(assets, "_schema_version_written", lambda: None)
    assert assets.vegalite_version() == ".".join(altair.SCHEMA_VERSION.lstrip("v").split(".")[:2])
