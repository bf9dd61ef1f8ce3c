"""The book's one chart style, its offline renderer, and the charts the chapters share.

Charts render in the browser with vega-embed from a bundle the book ships (see
``claimbook.assets``), never from a CDN. The renderer's HTML depends only on the chart's
spec, so an executed notebook is byte-identical from run to run.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json

import altair as alt
import pandas as pd

from claimbook.schema import SCENARIOS

RENDERER = "claimbook"
THEME = "claimbook"

# Colour-blind-safe (Okabe-Ito); series also differ by shape, so colour is never the only cue.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right", "stroke"]
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

_chart_numbers = itertools.count(1)


def _theme() -> dict:
    return {
        "config": {
            "font": FONT,
            "view": {"stroke": None, "continuousWidth": 520, "continuousHeight": 300},
            "range": {"category": PALETTE, "shape": SHAPES},
            "axis": {"labelFontSize": 12, "titleFontSize": 13, "gridColor": "#e5e5e5"},
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "orient": "bottom"},
            "title": {"fontSize": 15, "anchor": "start", "subtitleFontSize": 12, "subtitleColor": "#444"},
            "header": {"labelFontSize": 12, "titleFontSize": 13},
        }
    }


def embed_html(spec: dict) -> str:
    """A div and a script that draws ``spec`` with the book's local vega-embed.

    The element id comes from the spec's digest and a per-kernel counter, never from a random
    id. Every ``<`` in the JSON is escaped so text from the data cannot close the script.
    """
    payload = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]
    element = f"claimbook-chart-{digest}-{next(_chart_numbers)}"
    label = html.escape(" ".join(part for part in (_title_text(spec), spec.get("description") or "") if part))
    return (
        f'<div class="claimbook-chart" id="{element}" role="figure" aria-label="{label}"></div>\n'
        '<script type="text/javascript">\n'
        "(function () {\n"
        f"  var spec = {payload};\n"
        "  function draw() {\n"
        f'    var target = document.getElementById("{element}");\n'
        "    if (!window.vegaEmbed) {\n"
        '      target.textContent = "This chart is drawn by the book\'s own scripts; open it in the built book.";\n'
        "      return;\n"
        "    }\n"
        '    window.vegaEmbed(target, spec, {renderer: "svg", actions: {export: true, source: false, '
        "compiled: false, editor: false}});\n"
        "  }\n"
        '  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); }'
        " else { draw(); }\n"
        "})();\n"
        "</script>"
    )


def data_table_html(spec: dict, limit: int = 500) -> str:
    """The data behind a chart as an escaped table in a collapsed <details>, for readers who
    cannot see the chart or want the numbers."""
    datasets = spec.get("datasets") or {}
    if not datasets:
        return ""
    records = next(iter(datasets.values()))
    if not records:
        return ""
    columns = list(dict.fromkeys(key for record in records for key in record))
    head = "".join(f'<th scope="col">{html.escape(str(name))}</th>' for name in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell_text(record.get(name)))}</td>" for name in columns) + "</tr>"
        for record in records[:limit]
    )
    more = f"<p>First {limit} of {len(records)} rows.</p>" if len(records) > limit else ""
    return (
        f'<details class="claimbook-chart-data"><summary>Data behind this chart ({len(records)} rows)</summary>'
        f'<table class="claimbook-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}</details>'
    )


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _title_text(spec: dict) -> str:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    return str(title or "")


def _render(spec: dict, **_metadata) -> dict:
    title = _title_text(spec)
    return {"text/html": embed_html(spec) + "\n" + data_table_html(spec), "text/plain": f"<chart: {title or 'untitled'}>"}


def use_book_style() -> None:
    """Register and enable the book's theme and renderer (call once at the top of a chapter)."""
    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, _render)
    alt.renderers.enable(RENDERER)
    if THEME not in alt.theme.names():
        alt.theme.register(THEME, enable=False)(_theme)
    alt.theme.enable(THEME)
    # Inline data keeps the chart self-contained; the book never fetches data at view time.
    alt.data_transformers.disable_max_rows()


def speedup_chart(spread: pd.DataFrame, title: str, description: str) -> alt.FacetChart:
    """Speedup per scenario for each claim: bars against the submitter's own baseline, a
    tick against the best baseline by any submitter, and a dashed rule at the claimed figure."""
    data = spread.assign(
        claim_label=spread["model"] + " (claimed up to " + spread["claimed"].map("{:g}x".format) + ")"
    )
    base = alt.Chart()
    bars = base.mark_bar(color=PALETTE[0]).encode(
        x=alt.X("scenario:N", title="Scenario", sort=None),
        y=alt.Y("ratio:Q", title="Throughput ratio (new / baseline)"),
        tooltip=[
            alt.Tooltip("scenario:N"),
            alt.Tooltip("ratio:Q", format=".2f", title="ratio vs own baseline"),
            alt.Tooltip("ratio_vs_best_any:Q", format=".2f", title="ratio vs best by anyone"),
            alt.Tooltip("best_any_submitter:N", title="best baseline by"),
        ],
    )
    labels = base.mark_text(dy=-6, fontSize=12).encode(
        x=alt.X("scenario:N", sort=None), y="ratio:Q", text=alt.Text("ratio:Q", format=".2f")
    )
    best_any = base.mark_tick(color="#000000", thickness=2, size=30).encode(
        x=alt.X("scenario:N", sort=None), y="ratio_vs_best_any:Q"
    )
    claimed = base.mark_rule(color=PALETTE[5], strokeDash=[6, 4], size=2).encode(y="claimed:Q")
    return (
        alt.layer(bars, labels, best_any, claimed, data=data)
        .properties(width=220, height=260)
        .facet(column=alt.Column("claim_label:N", title=None, sort=list(dict.fromkeys(data["claim_label"]))))
        .properties(title=title, description=description)
    )


def per_gpu_chart(
    rows: pd.DataFrame, title: str, description: str, highlight: list[tuple[str, str]]
) -> alt.FacetChart:
    """Throughput per GPU of every result in ``rows``, one panel per scenario; the
    (organization, system) pairs in ``highlight`` are drawn large. Shape and colour both
    encode the accelerator."""
    pairs = pd.Series(list(zip(rows["organization"], rows["system"])), index=rows.index)
    data = rows.assign(
        submission=rows["organization"] + " · " + rows["system"] + " (" + rows["total_accelerators"].astype(str) + " GPUs)",
        checked=pairs.isin([tuple(pair) for pair in highlight]).map({True: "system in the claim", False: "other submission"}),
    ).loc[rows["per_accelerator"].notna()]
    return (
        alt.Chart(data)
        .mark_point(filled=True, opacity=0.85)
        .encode(
            x=alt.X("per_accelerator:Q", title="Throughput per GPU (result / GPUs)"),
            y=alt.Y("submission:N", title=None, sort="-x", axis=alt.Axis(labelLimit=280)),
            shape=alt.Shape("accelerator:N", title="Accelerator", legend=alt.Legend(columns=2, labelLimit=240)),
            color=alt.Color("accelerator:N", title="Accelerator", legend=alt.Legend(columns=2, labelLimit=240)),
            size=alt.Size(
                "checked:N",
                title=None,
                scale=alt.Scale(domain=["system in the claim", "other submission"], range=[220, 60]),
            ),
            tooltip=[
                "organization:N",
                "system:N",
                "scenario:N",
                "total_accelerators:Q",
                alt.Tooltip("result:Q", format=",.1f"),
                "units:N",
                alt.Tooltip("per_accelerator:Q", format=",.2f"),
                "availability:N",
            ],
        )
        .properties(width=300)
        .facet(row=alt.Row("scenario:N", title=None, sort=[name for name in SCENARIOS if name in set(data["scenario"])]))
        .resolve_scale(y="independent", x="independent")
        .properties(title=title, description=description)
    )


def efficiency_chart(pairs: pd.DataFrame, title: str, description: str, highlight_large: list[str]) -> alt.FacetChart:
    """Scaling efficiency of every scaling pair against the larger configuration's GPU count,
    one panel per scenario; pairs ending at a configuration in ``highlight_large`` (result
    locations) are drawn large. A rule marks perfectly linear scaling (100%)."""
    data = pairs.assign(
        efficiency_percent=100 * pairs["efficiency"],
        pair=pairs["organization"] + " · " + pairs["model"] + " · " + pairs["small_gpus"].astype(str) + "→" + pairs["large_gpus"].astype(str),
        checked=pairs["large_location"].isin(highlight_large).map({True: "the claim's racks", False: "other pair"}),
    )
    points = alt.Chart().mark_point(filled=True, opacity=0.85).encode(
        x=alt.X("large_gpus:Q", title="GPUs in the larger configuration (log scale)", scale=alt.Scale(type="log")),
        y=alt.Y("efficiency_percent:Q", title="Scaling efficiency (%)"),
        shape=alt.Shape("accelerator:N", title="Accelerator", legend=alt.Legend(columns=2, labelLimit=240)),
        color=alt.Color("accelerator:N", title="Accelerator", legend=alt.Legend(columns=2, labelLimit=240)),
        size=alt.Size("checked:N", title=None, scale=alt.Scale(domain=["the claim's racks", "other pair"], range=[260, 60])),
        tooltip=["pair:N", "scenario:N", alt.Tooltip("efficiency_percent:Q", format=".1f"), "small_system:N", "large_system:N"],
    )
    linear = alt.Chart().mark_rule(color="#555", strokeDash=[4, 4]).encode(y=alt.datum(100))
    scenarios = [name for name in SCENARIOS if name in set(data["scenario"])]
    return (
        alt.layer(points, linear, data=data)
        .properties(width=250, height=220)
        .facet(facet=alt.Facet("scenario:N", title=None, sort=scenarios), columns=2)
        .properties(title=title, description=description)
    )


def rounds_chart(rows: pd.DataFrame, title: str, description: str, round_sort: list[str]) -> alt.Chart:
    """One system's result in each scenario over rounds; point shape says how strong the
    source of each figure is."""
    data = rows.assign(source_type=rows["source_type"].astype(str))
    base = alt.Chart(data).encode(
        x=alt.X("round:O", title="MLPerf Inference round", sort=round_sort),
        y=alt.Y("result:Q", title=f"Result ({', '.join(sorted(set(rows['units'])))})"),
        color=alt.Color("scenario:N", title="Scenario"),
    )
    lines = base.mark_line(strokeWidth=2).encode(detail="scenario:N", strokeDash=alt.StrokeDash("scenario:N", title="Scenario"))
    points = base.mark_point(filled=True, size=120).encode(
        shape=alt.Shape("source_type:N", title="Source of the figure"),
        tooltip=["round:N", "scenario:N", alt.Tooltip("result:Q", format=",.1f"), "units:N", "source_type:N"],
    )
    return (lines + points).properties(width=520, height=300, title=title, description=description)


def candidate_ratio_chart(candidates: pd.DataFrame, claims: dict[str, float], title: str, description: str) -> alt.VConcatChart:
    """For each candidate baseline, the ratio the claimed system achieves against it: one
    panel per ratio column in ``claims`` (column -> claimed figure, drawn as a dashed rule)."""
    data = candidates.assign(
        candidate=candidates["organization"] + " · " + candidates["system"] + " (" + candidates["total_accelerators"].astype(str) + "x " + candidates["accelerator"] + ")"
    )
    panels = []
    for column, claimed in claims.items():
        heading = column.replace("_", " ").capitalize()
        subset = data[data[column].notna()].assign(claimed=claimed)
        bars = alt.Chart().mark_bar(color=PALETTE[0]).encode(
            x=alt.X(f"{column}:Q", title=f"{heading} (x)"),
            y=alt.Y("candidate:N", title=None, sort="x", axis=alt.Axis(labelLimit=320)),
            tooltip=["candidate:N", alt.Tooltip(f"{column}:Q", format=".2f")],
        )
        labels = alt.Chart().mark_text(align="left", dx=3, fontSize=11).encode(
            x=f"{column}:Q", y=alt.Y("candidate:N", sort="x"), text=alt.Text(f"{column}:Q", format=".2f")
        )
        rule = alt.Chart().mark_rule(color=PALETTE[5], strokeDash=[6, 4], size=2).encode(x="claimed:Q")
        panels.append(alt.layer(bars, labels, rule, data=subset).properties(width=260, title=f"{heading}, claimed {claimed:g}x"))
    return alt.vconcat(*panels).properties(title=title, description=description)


def bar_chart(data: pd.DataFrame, category: str, value: str, group: str, title: str, description: str,
              value_title: str) -> alt.Chart:
    """Horizontal bars of ``value`` per ``category``; ``group`` sets colour and pattern-free
    shape cues through the legend and a text label on each bar."""
    bars = alt.Chart(data).mark_bar().encode(
        x=alt.X(f"{value}:Q", title=value_title),
        y=alt.Y(f"{category}:N", title=None, sort="-x", axis=alt.Axis(labelLimit=260)),
        color=alt.Color(f"{group}:N", title=None),
        tooltip=[f"{category}:N", f"{value}:Q", f"{group}:N"],
    )
    labels = alt.Chart(data).mark_text(align="left", dx=3, fontSize=11).encode(
        x=f"{value}:Q", y=alt.Y(f"{category}:N", sort="-x"), text=f"{group}:N"
    )
    return (bars + labels).properties(width=380, title=title, description=description)


def sensitivity_chart(curves: pd.DataFrame, title: str, description: str) -> alt.FacetChart:
    """Cost per million tokens against the assumed GPU-hour price, one line per system, one
    panel per benchmark and scenario; line dash and colour both tell the systems apart."""
    data = curves.assign(panel=curves["model"] + " · " + curves["scenario"])
    lines = alt.Chart().mark_line(strokeWidth=2).encode(
        x=alt.X("usd_per_gpu_hour:Q", title="Assumed price (USD per GPU-hour)"),
        y=alt.Y("usd_per_million_tokens:Q", title="USD per million output tokens"),
        color=alt.Color("system:N", title="System", legend=alt.Legend(labelLimit=320)),
        strokeDash=alt.StrokeDash("system:N", title="System"),
        tooltip=["system:N", alt.Tooltip("usd_per_gpu_hour:Q", format=".2f"), alt.Tooltip("usd_per_million_tokens:Q", format=".3f")],
    )
    panels = list(dict.fromkeys(data["panel"]))
    return (
        alt.layer(lines, data=data)
        .properties(width=250, height=200)
        .facet(facet=alt.Facet("panel:N", title=None, sort=panels), columns=2)
        .properties(title=title, description=description)
    )
