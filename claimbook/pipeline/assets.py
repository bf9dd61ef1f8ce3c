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
    """The Vega-Lite major.minor version altair writes specs for (e.g. ``6.4``)."""
    import altair as alt

    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


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
