"""Static assets the built book ships so that it works offline."""

from __future__ import annotations

import os
from pathlib import Path

VEGA_BUNDLE = "claimbook-vega.js"


def vegalite_version() -> str:
    """The Vega-Lite major.minor version altair writes specs for (e.g. ``6.4``)."""
    import altair as alt

    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def write_vega_bundle(static_dir: str | os.PathLike) -> Path:
    """Write vega, vega-lite and vega-embed as one local script, unless it is there already.

    The bundle declares top-level names (``const n`` and the like) that would clash with
    Sphinx's own scripts, so it runs inside a function scope and exposes only
    ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``.
    """
    import vl_convert  # imported here: the Sphinx extension needs only the bundle's name

    target = Path(static_dir) / VEGA_BUNDLE
    header = (
        f"/* vega {vl_convert.get_vega_version()}, vega-lite {vegalite_version()}, "
        f"vega-embed {vl_convert.get_vega_embed_version()}; bundled offline by vl-convert */\n"
    )
    if target.is_file():
        with open(target, encoding="utf-8") as existing:
            if existing.readline() == header:
                return target
    bundle = vl_convert.javascript_bundle(vl_version=vegalite_version())
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".js.tmp")
    temporary.write_text(header + "(function () {\n" + bundle + "\n})();\n", encoding="utf-8")
    os.replace(temporary, target)
    return target
