"""The book's one chart style, its offline renderer, and the charts the chapters share.

Charts render in the browser with vega-embed from a bundle the book ships (see
``claimbook.pipeline.assets``), never from a CDN. The renderer's HTML depends only on the chart's
spec, so an executed notebook is byte-identical from run to run.
"""

from __future__ import annotations

import hashlib
import itertools
import re

import altair as alt
import pandas as pd

from claimbook.common import formatting
from claimbook.inputs.reference import UNLISTED_COLOUR, UNLISTED_SHAPE
from claimbook.present import blocks
from claimbook.present.templating import escape, render, script_json, trusted

RENDERER = "claimbook"
THEME = "claimbook"

# Colour-blind-safe (Okabe-Ito) for series that are not accelerators; accelerator families take
# their colour and shape from the reviewed table (data/reference/accelerators.csv).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right", "stroke"]
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

_chart_numbers = itertools.count(1)


def _theme() -> dict:
    return {
        "config": {
            "font": FONT,
            "view": {"stroke": None, "continuousWidth": 520, "continuousHeight": 300},
            "autosize": {"type": "fit-x", "contains": "padding"},
            "range": {"category": PALETTE, "shape": SHAPES},
            "axis": {"labelFontSize": 12, "titleFontSize": 13, "gridColor": "#e5e5e5"},
            # On a phone a figure axis has room for fewer ticks: labels closer than 4 px are
            # dropped (every other one) rather than run together ("0.00.5").
            "axisQuantitative": {"labelOverlap": True, "labelSeparation": 4},
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "orient": "bottom", "labelLimit": 0},
            "title": {"fontSize": 15, "anchor": "start", "subtitleFontSize": 12, "subtitleColor": "#444"},
            "header": {"labelFontSize": 12, "titleFontSize": 13},
        }
    }


def embed_html(spec: dict) -> str:
    """A div and a script that draws ``spec`` with the book's local vega-embed (``chart.html``).

    The element id comes from the spec's digest and a per-kernel counter, never from a random
    id. Every ``<`` in the JSON is escaped so text from the data cannot close the script.
    """
    payload = script_json(spec)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]
    return render(
        "chart.html",
        element=f"claimbook-chart-{digest}-{next(_chart_numbers)}",
        label=" ".join(part for part in (_title_text(spec), spec.get("description") or "") if part),
        spec=payload,
    )


def data_table_html(spec: dict, limit: int = 500) -> str:
    """The data behind a chart as an escaped table in a collapsed <details> (``chart_data.html``),
    for readers who cannot see the chart or want the numbers: the fields its tooltips show, under
    their titles (every field where it has none)."""
    datasets = spec.get("datasets") or {}
    if not datasets:
        return ""
    records = next(iter(datasets.values()))
    if not records:
        return ""
    columns = reader_fields(spec) or {
        name: name for name in dict.fromkeys(key for record in records for key in record)
    }
    titles: list[str] = []
    for name, title in columns.items():
        titles.append(f"{title} ({name})" if str(title) in titles else str(title))
    frame = pd.DataFrame(
        [[_cell_text(record.get(name)) for name in columns] for record in records[:limit]], columns=titles
    )
    frame, caption = blocks.folded(frame, "Data behind the chart")
    said = caption.removeprefix("Data behind the chart").strip().removeprefix("(").removesuffix(")")
    return render(
        "chart_data.html",
        count=formatting.plural(len(records), "row"),
        classes=blocks.table_class(len(frame.columns)),
        caption=said[:1].upper() + said[1:],
        titles=[trusted(blocks.breakable(escape(title))) for title in frame.columns],
        rows=(
            [trusted(blocks.text_cell(escape(value))) for value in row]
            for row in frame.itertuples(index=False)
        ),
        first=formatting.count(limit) if len(records) > limit else "",
    )


def reader_fields(spec: dict) -> dict:
    """The fields a chart's tooltips show readers (of its first dataset's records), each under
    its tooltip title, in the order they come: field -> title."""
    found: dict = {}
    stack = [spec]
    while stack:
        node = stack.pop(0)
        if isinstance(node, list):
            stack[:0] = node
            continue
        if not isinstance(node, dict):
            continue
        tooltip = (node.get("encoding") or {}).get("tooltip")
        for item in tooltip if isinstance(tooltip, list) else [tooltip] if isinstance(tooltip, dict) else []:
            if isinstance(item, dict) and item.get("field") and item["field"] not in found:
                found[item["field"]] = item.get("title") or item["field"]
        stack.extend(
            node.get(key) for key in ("layer", "hconcat", "vconcat", "concat", "spec") if key in node
        )
    records = next(iter((spec.get("datasets") or {}).values()), [])
    present = {key for record in records for key in record}
    return {field: title for field, title in found.items() if field in present}


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return formatting.data_value(value)
    return str(value)


def _title_text(spec: dict) -> str:
    """A chart's title as one line of text (a wrapped title is a list of lines)."""
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, dict):  # an expression of the chart's controls: its first reading
        title = (spec.get("usermeta") or {}).get("title", "")
    if isinstance(title, list):
        title = " ".join(str(line).rstrip() for line in title)
    return str(title or "")


def _render(spec: dict, **_metadata) -> dict:
    title = _title_text(spec)
    return {
        "text/html": embed_html(spec) + "\n" + data_table_html(spec),
        "text/plain": f"<chart: {title or 'untitled'}>",
    }


def use_book_style() -> None:
    """Register and enable the book's theme and renderer (call once at the top of a chapter).
    Registering again replaces a plugin by itself: asking the registries' ``names()`` first
    would scan every installed package's entry points (about 0.05 s of a page's CPU)."""
    alt.renderers.register(RENDERER, _render)
    alt.renderers.enable(RENDERER)
    alt.theme.register(THEME, enable=False)(_theme)
    alt.theme.enable(THEME)
    # Inline data keeps the chart self-contained; the book never fetches data at view time.
    alt.data_transformers.disable_max_rows()


CONTENT_WIDTH = "container"  # charts take the width of the book's content column
LINE_HEIGHT = 15  # pixels per line of a wrapped axis label
WRAP = 24  # characters per line of an axis label: labels, plot and legend fit a phone's 320 px


def step_for(labels) -> int:
    """The height of one row of a horizontal chart: room for its longest wrapped label."""
    lines = max((str(label).count("\n") + 1 for label in labels), default=1)
    return LINE_HEIGHT * lines + 10


def height_for(labels) -> int:
    return max(60, step_for(labels) * len(list(labels)))


def value_axis(values) -> alt.Axis:
    """Axis numbers as readers read them: 1.2M, 350k and 4k for large values (a nice axis over
    9,000 ends at 10k, never at "1e+4"; zero stays "0", not "0k"), 0.65 for small ones."""
    values = [abs(value) for value in values if pd.notna(value)]
    # The end labels flush with the axis, and a label that would still pass its end (a tick just
    # short of a "nice" domain's end) hidden: on a phone-wide chart it would run past the edge.
    if values and max(values) >= 1000:
        return alt.Axis(labelExpr="format(datum.value, '~s')", labelFlush=True, labelBound=True)
    return alt.Axis(format=",.4~g", labelFlush=True, labelBound=True)


# Axis numbers for data of any size: SI prefixes from a thousand up (2k, 350k, 1.2M), plain digits
# below (0.065, 5.8): never "65m" for 0.065, never "1e+3".
NUMBERS = "abs(datum.value) >= 1000 ? format(datum.value, '.3~s') : format(datum.value, ',.4~g')"


def room(values, factor: float = 1.45) -> alt.Scale:
    """A zero-based scale with room at the end for the labels written beside the bars."""
    values = [value for value in values if pd.notna(value)]
    top = max(values, default=1.0)
    return alt.Scale(
        domain=[min(0.0, min(values, default=0.0)), top * factor if top > 0 else 1.0], nice=False
    )


def wrap(text: str, width: int = WRAP) -> str:
    """``text`` broken into lines of at most ``width`` characters at spaces, "_", "-" or "/",
    never inside a word; the axis draws each line (see ``LINES``)."""
    pieces = re.split(r"(?<=[ _/-])", str(text))
    lines, line = [], ""
    for piece in pieces:
        while len(piece) > width:  # a single unbroken run longer than a line: cut it at the width
            if line:
                lines.append(line.rstrip())
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len(line) + len(piece) > width and line:
            lines.append(line.rstrip())
            line = ""
        line += piece
    if line:
        lines.append(line.rstrip())
    return "\n".join(lines)


# A vega expression that draws a label's lines one under the other.
LINES = "split(datum.label, '\\n')"


def titled(text: str, subtitle: str | None = None, width: int = 32) -> alt.TitleParams:
    """A chart title (and subtitle) wrapped to lines, so a phone never cuts it."""
    kwargs = {"text": wrap(text, width).split("\n")}
    if subtitle:
        kwargs["subtitle"] = wrap(subtitle, width + 10).split("\n")
    return alt.TitleParams(**kwargs)


def family_scales(reference, families) -> tuple[alt.Scale, alt.Scale]:
    """The reviewed colour and shape of each accelerator family present (by the short names
    charts show), in the reviewed order: one family looks the same on every page of the book (a
    family no reviewed line covers has a strong colour and a shape no reviewed family uses, under
    its published name)."""
    present = set(families)
    table = reference.families().set_index("short_name")
    ordered = [name for name in table.index if name in present] + sorted(present - set(table.index))
    colours = [table.loc[name, "colour"] if name in table.index else UNLISTED_COLOUR for name in ordered]
    shapes = [table.loc[name, "shape"] if name in table.index else UNLISTED_SHAPE for name in ordered]
    return alt.Scale(domain=ordered, range=colours), alt.Scale(domain=ordered, range=shapes)


def family_legend() -> alt.Legend:
    # One column, short names, no label limit: every name is shown whole, at any width.
    return legend("Accelerator")


# A legend entry of a system with two kinds of accelerator ("H200 + MI350X", the reference's short
# name of a mixed family) says what it is, on a second line (a phone's legend has no room for one).
MIXED_LABEL = "indexof(datum.label, ' + ') >= 0 ? [datum.label + ':', 'a system with both'] : datum.label"


def legend(title: str | None = None, orient: str = "bottom", columns=1) -> alt.Legend:
    """The book's legends: one entry per line (or ``columns``), never cut."""
    return alt.Legend(orient=orient, columns=columns, labelLimit=0, title=title, labelExpr=MIXED_LABEL)


def result_marks(rows: pd.DataFrame, highlight=(), reference=None) -> pd.DataFrame:
    """Published results as chart data: a wrapped label per system, the family's short name (the
    accelerator as published is in the tooltip), and the tooltip fields."""
    highlight = set(highlight)
    data = pd.DataFrame(
        {
            "label": [
                wrap(f"{org} · {system} ({formatting.plural(gpus, 'GPU')})")
                for org, system, gpus in zip(rows["organization"], rows["system"], rows["total_accelerators"])
            ],
            "submitter": rows["organization"].astype(str).values,
            "system": rows["system"].astype(str).values,
            "gpus": rows["total_accelerators"].astype(int).values,
            "family": [
                reference.short_name(name) if reference is not None else name
                for name in rows["family"].astype(str)
            ],
            "accelerator": rows["accelerator"].astype(str).values,
            "benchmark": rows["benchmark"].astype(str).values,
            "scenario": rows["scenario"].astype(str).values,
            "result": rows["result"].astype(float).values,
            "units": rows["units"].astype(str).values,
            "per_gpu": rows["per_accelerator"].astype(float).values,
            "availability": rows["availability"].astype(str).values,
            "division": rows["division"].astype(str).values,
            "role": [
                "in the claim" if location in highlight else "other result" for location in rows["location"]
            ],
        }
    )
    data["result_text"] = [
        formatting.significant(value, 6, unit) for value, unit in zip(data["result"], data["units"])
    ]
    return data


RESULT_TOOLTIP = [
    alt.Tooltip("submitter:N", title="Submitter"),
    alt.Tooltip("system:N", title="System"),
    alt.Tooltip("gpus:Q", title="GPUs"),
    alt.Tooltip("accelerator:N", title="Accelerator (as published)"),
    alt.Tooltip("scenario:N", title="Scenario"),
    alt.Tooltip("result_text:N", title="Result"),
    alt.Tooltip("per_gpu:Q", title="Per GPU", format=",.4~g"),
    alt.Tooltip("availability:N", title="Availability"),
    alt.Tooltip("division:N", title="Division"),
]


def results_chart(
    rows: pd.DataFrame,
    reference,
    value: str,
    title: str,
    description: str,
    highlight=(),
    value_title: str | None = None,
    claimed: float | None = None,
) -> alt.LayerChart:
    """One benchmark and scenario: every result as a dot (``value`` is ``result`` or
    ``per_gpu``), coloured and shaped by accelerator family; the claim's own results are large."""
    data = result_marks(rows, highlight, reference)
    data = data[data[value].notna()]
    colour, shape = family_scales(reference, data["family"])
    higher = bool(rows["higher_is_better"].iloc[0]) if not rows.empty else True
    order = list(data.sort_values(value, ascending=not higher)["label"])  # best first
    units = sorted(set(data["units"]))
    axis_title = value_title or (", ".join(units) if value == "result" else f"{', '.join(units)} per GPU")
    base = alt.Chart(data).encode(
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelExpr=LINES, labelLimit=0))
    )
    points = base.mark_point(filled=True, opacity=0.9).encode(
        x=alt.X(f"{value}:Q", title=axis_title, axis=value_axis(data[value])),
        color=alt.Color("family:N", scale=colour, legend=family_legend()),
        shape=alt.Shape("family:N", scale=shape, legend=family_legend()),
        # the claim's own results are drawn large; the description says so (one legend only: a
        # second one beside it would not fit a phone)
        size=alt.Size(
            "role:O", scale=alt.Scale(domain=["in the claim", "other result"], range=[260, 70]), legend=None
        ),
        tooltip=RESULT_TOOLTIP,
    )
    layers = [points]
    if claimed is not None:
        layers.append(
            alt.Chart(pd.DataFrame({"claimed": [claimed]}))
            .mark_rule(color=CLAIMED_COLOUR, strokeDash=[6, 4], size=2)
            .encode(x="claimed:Q", tooltip=[alt.Tooltip("claimed:Q", title="Claimed", format=",.4~g")])
        )
    return alt.layer(*layers).properties(
        width=CONTENT_WIDTH, height=height_for(order), title=titled(title), description=description
    )


def case_chart(
    cases: pd.DataFrame,
    title: str,
    description: str,
    unit: str,
    reference_line: float | None = None,
    reference_label: str = "claimed",
) -> alt.LayerChart:
    """The measured figure of each case as a bar, with the figure and what it shows written in
    the case's label (so colour is never the only cue, and no text runs past the chart), and the
    claimed figure dashed: one line (``reference_line``), or a tick on each case that states its
    own (``cases["claimed"]``).

    ``cases`` has ``case``, ``measured``, ``outcome`` (holds / does not hold / not the best case /
    for context), ``detail`` (tooltip text) and, where the cases state them, ``claimed`` (with
    ``claimed_text``, the figure as the claim writes it, where a case has it)."""
    data = cases.assign(
        value_text=[
            formatting.case_figure(value, unit) + f" {OUTCOME_MARKS[outcome]}"
            for value, outcome in zip(cases["measured"], cases["outcome"])
        ],
    )
    data = data.assign(
        label=[wrap(case) + "\n" + value for case, value in zip(data["case"], data["value_text"])]
    )
    order = list(data["label"])
    present = [outcome for outcome in OUTCOME_MARKS if outcome in set(data["outcome"])]
    outcome_scale = alt.Scale(domain=present, range=[OUTCOME_COLOURS[outcome] for outcome in present])
    base = alt.Chart(data).encode(
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelExpr=LINES, labelLimit=0))
    )
    bars = base.mark_bar(height={"band": 0.7}).encode(
        x=alt.X("measured:Q", title=_axis_title(unit)),
        color=alt.Color("outcome:N", scale=outcome_scale, legend=legend()),
        tooltip=[
            alt.Tooltip("case:N", title="Case"),
            alt.Tooltip("value_text:N", title="Measured"),
            alt.Tooltip("detail:N", title="Results compared"),
        ],
    )
    claimed, subtitle = _claimed_marks(data, order, unit, reference_line, reference_label)
    layers = [bars] + ([claimed] if claimed is not None else [])
    return alt.layer(*layers).properties(
        width=CONTENT_WIDTH, height=height_for(order), title=titled(title, subtitle), description=description
    )


def _claimed_marks(data: pd.DataFrame, order: list, unit: str, line: float | None, label: str):
    """The claimed figure on a case chart, dashed, and the subtitle that says so: one line at
    ``line``, or a tick on each case that states a figure of its own; (None, None) if neither."""
    if line is not None:
        rule = pd.DataFrame({"value": [line], "what": [label]})
        marks = (
            alt.Chart(rule)
            .mark_rule(color=CLAIMED_COLOUR, strokeDash=[6, 4], size=2)
            .encode(
                x="value:Q",
                tooltip=[
                    alt.Tooltip("what:N", title=""),
                    alt.Tooltip("value:Q", format=",.4~g", title="Value"),
                ],
            )
        )
        return marks, f"Dashed line: the {label} figure"
    if "claimed" not in data.columns or not data["claimed"].notna().any():
        return None, None
    claimed = data[data["claimed"].notna()]
    written = claimed["claimed_text"] if "claimed_text" in claimed.columns else [""] * len(claimed)
    claimed = claimed.assign(  # as the claim writes it where the case says, else in the case's unit
        claimed_text=[
            text or formatting.case_figure(value, unit) for text, value in zip(written, claimed["claimed"])
        ]
    )
    marks = (
        alt.Chart(claimed)
        .mark_tick(color=CLAIMED_COLOUR, strokeDash=[4, 3], thickness=2, size=int(0.8 * step_for(order)))
        .encode(
            y=alt.Y("label:N", sort=order, title=None),
            x="claimed:Q",
            tooltip=[alt.Tooltip("case:N", title="Case"), alt.Tooltip("claimed_text:N", title="Claimed")],
        )
    )
    return marks, "Dashed mark: the figure claimed for each case"


OUTCOME_MARKS = {"holds": "✔", "does not hold": "✘", "not the best case": "○", "for context": "·"}
# Green holds, red fails; the cases an "up to" leaves to its best one are a quiet blue, not a failure.
OUTCOME_COLOURS = {
    "holds": "#1B7837",
    "does not hold": "#B2182B",
    "not the best case": "#92A8C4",
    "for context": "#777777",
}
CLAIMED_COLOUR = "#D55E00"


def _axis_title(unit: str) -> str:
    return {"x": "Ratio (x)", "%": "Percent"}.get(unit, unit or "Value")


def _efficiency_points(pairs: pd.DataFrame, reference, scenario: str, highlight) -> pd.DataFrame:
    """The scaling pairs of one scenario as the efficiency chart draws them: each named, in
    percent, the claim's pairs (``highlight``) marked."""
    wanted = {tuple(pair) for pair in highlight}
    data = pairs[pairs["scenario"] == scenario].assign(
        family=lambda frame: frame["family"].map(reference.short_name),
        efficiency_percent=lambda frame: 100 * frame["efficiency"],
        pair=lambda frame: (
            frame["organization"]
            + " · "
            + frame["benchmark"]
            + " · "
            + frame["small_gpus"].astype(str)
            + "→"
            + frame["large_gpus"].astype(str)
            + " GPUs"
        ),
        role=lambda frame: [
            ("the claim's pair" if (small, large) in wanted else "other pair")
            for small, large in zip(frame["small_location"], frame["large_location"])
        ],
    )
    return data


def _log_gpus_axis() -> alt.X:
    """The larger configuration's GPUs on a log axis, ticks at 1-2-5 steps, thinned where they
    would touch (a phone's narrow axis)."""
    return alt.X(
        "large_gpus:Q",
        title="GPUs, larger configuration (log)",
        scale=alt.Scale(type="log"),
        axis=alt.Axis(
            values=[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
            labelOverlap="greedy",
            labelSeparation=6,
        ),
    )


def efficiency_chart(
    pairs: pd.DataFrame, reference, scenario: str, title: str, description: str, highlight=()
) -> alt.LayerChart:
    """Scaling efficiency of every scaling pair of one scenario against the larger configuration's
    GPU count; the claim's pair (``highlight``: (smaller, larger) result locations) is large; a
    dashed line marks linear scaling (100%)."""
    data = _efficiency_points(pairs, reference, scenario, highlight)
    colour, shape = family_scales(reference, data["family"])
    points = (
        alt.Chart(data)
        .mark_point(filled=True, opacity=0.85)
        .encode(
            x=_log_gpus_axis(),
            y=alt.Y("efficiency_percent:Q", title="Scaling efficiency (%)", scale=alt.Scale(zero=False)),
            color=alt.Color("family:N", scale=colour, legend=family_legend()),
            shape=alt.Shape("family:N", scale=shape, legend=family_legend()),
            size=alt.Size(
                "role:O",
                scale=alt.Scale(domain=["the claim's pair", "other pair"], range=[280, 60]),
                legend=None,
            ),
            tooltip=[
                alt.Tooltip("pair:N", title="Pair"),
                alt.Tooltip("scenario:N", title="Scenario"),
                alt.Tooltip("efficiency_percent:Q", title="Efficiency (%)", format=".1f"),
                alt.Tooltip("small_system:N", title="Smaller system"),
                alt.Tooltip("large_system:N", title="Larger system"),
                alt.Tooltip("division:N", title="Division"),
                alt.Tooltip("large_availability:N", title="Availability"),
            ],
        )
    )
    linear = (
        alt.Chart(pd.DataFrame({"linear": [100.0]}))
        .mark_rule(color="#555", strokeDash=[4, 4])
        .encode(y="linear:Q", tooltip=[alt.Tooltip("linear:Q", title="Linear scaling (%)")])
    )
    return alt.layer(points, linear).properties(
        width=CONTENT_WIDTH, height=280, title=titled(title), description=description
    )


def rounds_chart(gains: pd.DataFrame, title: str, description: str) -> alt.LayerChart:
    """One system's result before and after, per scenario: a line from the earlier round to the
    current one; the point's shape says that figure's own source (a round the book holds in full is
    its published summary, another round's figure a log or a third party's)."""
    long = pd.concat(
        [
            gains.assign(round=gains["from_round"], result=gains["from_result"], source=gains["from_source"]),
            gains.assign(round=gains["to_round"], result=gains["to_result"], source=gains["to_source"]),
        ],
        ignore_index=True,
    ).drop_duplicates(
        ["round", "scenario"]
    )  # a round in the middle is the end of one step and the start of the next
    long = long.assign(label=long["scenario"] + " (" + long["units"] + ")")
    base = alt.Chart(long).encode(
        x=alt.X("round:O", title="MLPerf Inference round", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("result:Q", title="Result", axis=alt.Axis(labelExpr=NUMBERS)),
        color=alt.Color("label:N", title="Scenario", legend=legend()),
    )
    lines = base.mark_line(strokeWidth=2).encode(
        detail="label:N", strokeDash=alt.StrokeDash("label:N", legend=None)
    )
    points = base.mark_point(filled=True, size=140).encode(
        shape=alt.Shape("source:N", title="Source of the figure", legend=legend(orient="top")),
        tooltip=[
            alt.Tooltip("round:N", title="Round"),
            alt.Tooltip("scenario:N", title="Scenario"),
            alt.Tooltip("result:Q", title="Result", format=",.6~g"),
            alt.Tooltip("units:N", title="Units"),
            alt.Tooltip("source:N", title="Source"),
        ],
    )
    return alt.layer(lines, points).properties(
        width=CONTENT_WIDTH, height=260, title=titled(title), description=description
    )


def _candidates_data(table: pd.DataFrame, scenario: str) -> pd.DataFrame:
    """The candidates with a ratio in ``scenario``, each labelled with its system, its ratio and
    its class (the bar's label, on lines of its own)."""
    column = f"{scenario} ratio"
    data = table[table[column].notna()].assign(
        ratio=lambda frame: frame[column],
        tag=lambda frame: frame["class"].map(lambda klass: CLASS_TAGS.get(klass, klass)),
        ratio_text=lambda frame: [
            f"{formatting.times(value)} · {CLASS_TAGS.get(klass, klass)}"
            for value, klass in zip(frame[column], frame["class"])
        ],
    )
    return data.assign(
        label=[
            wrap(f"{org} · {system} ({formatting.plural(gpus, 'GPU')})") + "\n" + text
            for org, system, gpus, text in zip(
                data["organization"], data["system"], data["gpus"], data["ratio_text"]
            )
        ]
    )


def candidates_chart(
    table: pd.DataFrame, scenario: str, claimed: float, direction: str, title: str, description: str
) -> alt.LayerChart:
    """The claimed system against each candidate baseline in one scenario: a bar per candidate,
    its ratio and class written in its label, and the claimed ratio as a dashed line."""
    data = _candidates_data(table, scenario)
    order = list(data.sort_values("ratio", ascending=False)["label"])
    tags = [CLASS_TAGS[klass] for klass in ("claimant's own", "on the claimant's accelerators", "rival")]
    base = alt.Chart(data).encode(
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelExpr=LINES, labelLimit=0))
    )
    bars = base.mark_bar(height={"band": 0.7}).encode(
        x=alt.X("ratio:Q", title=f"Times {direction} (x)"),
        color=alt.Color(
            "tag:N",
            scale=alt.Scale(domain=tags, range=["#1B7837", "#2166AC", "#B2182B"]),
            legend=legend("Candidate"),
        ),
        tooltip=[
            alt.Tooltip("organization:N", title="Submitter"),
            alt.Tooltip("system:N", title="System"),
            alt.Tooltip("gpus:Q", title="GPUs"),
            alt.Tooltip("family:N", title="Accelerator"),
            alt.Tooltip("ratio:Q", title="Ratio", format=".2f"),
            alt.Tooltip("class:N", title="Class"),
        ],
    )
    rule = (
        alt.Chart(pd.DataFrame({"claimed": [claimed]}))
        .mark_rule(color=CLAIMED_COLOUR, strokeDash=[6, 4], size=2)
        .encode(x="claimed:Q", tooltip=[alt.Tooltip("claimed:Q", title="Claimed (x)")])
    )
    return alt.layer(bars, rule).properties(
        width=CONTENT_WIDTH, height=height_for(order), title=titled(title), description=description
    )


CLASS_TAGS = {
    "claimant's own": "own",
    "on the claimant's accelerators": "same accelerators",
    "rival": "rival",
}


def count_chart(found: pd.DataFrame, category: str, title: str, description: str) -> alt.Chart:
    """How many results each counted item has; its label says the count and whether the claim
    names it."""
    data = found.assign(
        text=[
            f"{formatting.count(count)} · {named}" for count, named in zip(found["results"], found["named"])
        ]
    )
    data = data.assign(
        label=[wrap(str(value)) + "\n" + text for value, text in zip(data[category], data["text"])]
    )
    order = list(data.sort_values(["results", category], ascending=[False, True])["label"])
    return (
        alt.Chart(data)
        .mark_bar(height={"band": 0.7})
        .encode(
            y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelExpr=LINES, labelLimit=0)),
            x=alt.X("results:Q", title="Published results"),
            color=alt.Color(
                "named:N",
                scale=alt.Scale(domain=["named by the claim", "not named"], range=["#2166AC", "#BBBBBB"]),
                legend=legend(),
            ),
            tooltip=[
                alt.Tooltip(f"{category}:N", title=category.capitalize()),
                alt.Tooltip("results:Q", title="Results"),
                alt.Tooltip("divisions:N", title="Divisions"),
                alt.Tooltip("named:N", title="In the claim"),
            ],
        )
        .properties(
            width=CONTENT_WIDTH, height=height_for(order), title=titled(title), description=description
        )
    )


def sensitivity_chart(
    curves: pd.DataFrame, title: str, description: str, assumed: float | None = None
) -> alt.LayerChart:
    """Cost per million tokens of each system against the price assumed for the new one, with
    the break-even points where the lines cross."""
    data = curves
    lines = (
        alt.Chart(data)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("usd_per_gpu_hour:Q", title="New rack's price, USD per GPU-hour"),
            y=alt.Y("usd_per_million_tokens:Q", title="USD per million tokens"),
            color=alt.Color("system:N", title="System", legend=legend()),
            strokeDash=alt.StrokeDash("scenario:N", title="Scenario", legend=legend(orient="top")),
            detail="line:N",
            tooltip=[
                alt.Tooltip("system:N", title="System"),
                alt.Tooltip("scenario:N", title="Scenario"),
                alt.Tooltip("usd_per_gpu_hour:Q", title="USD per GPU-hour", format=".2f"),
                alt.Tooltip("usd_per_million_tokens:Q", title="USD per million tokens", format=".3f"),
            ],
        )
    )
    layers = [lines]
    if assumed is not None:
        layers.append(
            alt.Chart(pd.DataFrame({"assumed": [assumed]}))
            .mark_rule(color="#555", strokeDash=[4, 4])
            .encode(
                x="assumed:Q", tooltip=[alt.Tooltip("assumed:Q", title="Assumed price (USD per GPU-hour)")]
            )
        )
    return alt.layer(*layers).properties(
        width=CONTENT_WIDTH, height=280, title=titled(title), description=description
    )
