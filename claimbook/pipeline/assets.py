"""Static assets the built book ships so that it works offline."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from claimbook.common.paths import CACHE_VARIABLE, cache_folder  # noqa: F401 -- (the bundle's cache)

VEGA_BUNDLE = "claimbook-vega.js"
_BUNDLE_END = "})();\n"


def vegalite_version() -> str:
    """The Vega-Lite major.minor version altair writes specs for (e.g. ``6.4``): its
    ``SCHEMA_VERSION``, read from altair's own files where they say it plainly (importing altair
    for one constant is a fifth of a second of a build that compiles one page), else from altair."""
    version = _schema_version_written()
    if version is None:
        import altair as alt

        version = alt.SCHEMA_VERSION
    major, minor = version.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def _schema_version_written() -> str | None:
    """``SCHEMA_VERSION`` as altair's installed files write it: its ``vegalite`` package imports
    one version's package (``from .v6 import *``), whose schema module assigns it a literal
    (``SCHEMA_VERSION = "v6.4.1"``); None where they do not say it so."""
    import importlib.util
    import re

    try:
        spec = importlib.util.find_spec("altair")
        if spec is None or not spec.submodule_search_locations:
            return None
        vegalite = Path(next(iter(spec.submodule_search_locations))) / "vegalite"
        chosen = re.findall(
            r"^from \.(v\d+) import \*$", (vegalite / "__init__.py").read_text("utf-8"), re.MULTILINE
        )
        if len(chosen) != 1:
            return None
        schema = (vegalite / chosen[0] / "schema" / "__init__.py").read_text("utf-8")
    except (OSError, ImportError, ValueError):
        return None
    found = re.findall(r'^SCHEMA_VERSION = "(v\d+\.\d+[\d.]*)"$', schema, re.MULTILINE)
    return found[0] if len(found) == 1 else None


def write_vega_bundle(static_dir: str | os.PathLike) -> Path:
    """Write vega, vega-lite and vega-embed as one local script, unless it is there already.

    The bundle declares top-level names (``const n`` and the like) that would clash with
    Sphinx's own scripts, so it runs inside a function scope and exposes only
    ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``. Its text depends only on the
    versions its first line names: made once per machine (``cache_folder``) and copied from there.
    """
    import vl_convert  # imported here: the Sphinx extension needs only the bundle's name

    target = Path(static_dir) / VEGA_BUNDLE
    header = (
        f"/* vega {vl_convert.get_vega_version()}, vega-lite {vegalite_version()}, "
        f"vega-embed {vl_convert.get_vega_embed_version()}; bundled offline by vl-convert */\n"
    )
    if _whole_bundle(target, header) is not None:
        return target
    cached = cache_folder() / f"vega-{hashlib.sha256(header.encode()).hexdigest()[:16]}.js"
    text = _whole_bundle(cached, header)
    if text is None:
        bundle = vl_convert.javascript_bundle(vl_version=vegalite_version())
        text = header + "(function () {\n" + bundle + "\n" + _BUNDLE_END
        try:
            _write(cached, text)
        except OSError:  # no cache where it cannot be written: the book is made all the same
            pass
    _write(target, text)
    return target


def _whole_bundle(path: Path, header: str) -> str | None:
    """The text of the bundle at ``path`` if it is a regular file (never a link, FIFO or device)
    made for these versions and whole; None otherwise."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, encoding="utf-8") as existing:
            if existing.readline() != header:
                return None
            text = header + existing.read()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text.endswith(_BUNDLE_END) else None


def _write(target: Path, text: str) -> None:
    """``text`` written to ``target`` whole or not at all (a temporary file of this process's own,
    renamed over it: builds writing at once never mix)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
