"""The round explorer: every result of the round in one interactive chart, offline.

Widgets are bound to Vega-Lite parameters, so choosing a benchmark, a scenario or a measure, or
filtering by division, availability and vendor, happens in the reader's browser with no server.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from claimbook.common import formatting
from claimbook.inputs.schema import SCENARIOS
from claimbook.present import blocks, charts
from claimbook.present.templating import macros, trusted

_DETAILS = macros("details.html")

LLM_SCENARIOS = ("Offline", "Server", "Interactive")


# Results per view, best first: the chart, its axis and its legend fit a laptop's screen; a
# control pages through the rest.
PAGE = 8


def _marks(results: pd.DataFrame, reference) -> pd.DataFrame:
    data = charts.result_marks(results, reference=reference)
    data["url"] = [
        blocks.provenance_url(round_name, location)
        for round_name, location in zip(results["round"], results["location"])
    ]
    data["vendor"] = results["vendor"].astype(str).values
    data["per_gpu"] = data["per_gpu"].where(data["per_gpu"].notna(), None)
    # +1 where a higher result is better, -1 where a lower one is (a latency): best first
    data["better"] = [1 if higher else -1 for higher in results["higher_is_better"].astype(bool)]
    return data


def _first(data: pd.DataFrame) -> str:
    """The benchmark the explorer opens on."""
    benchmarks = sorted(set(data["benchmark"]))
    return "deepseek-r1" if "deepseek-r1" in benchmarks else benchmarks[0]


def _widgets(data: pd.DataFrame, reference) -> tuple:
    """The explorer's widgets, in the order they are shown: benchmark (by its name), scenario,
    measure, which results (best first, ``PAGE`` at a time), division, availability,
    accelerator vendor."""
    return (*_what_is_shown(data, reference), _page(data), *_filters(data))


def _what_is_shown(data: pd.DataFrame, reference) -> tuple:
    """The widgets that choose what the chart plots: benchmark, scenario and measure."""
    benchmarks = sorted(set(data["benchmark"]))
    benchmark = alt.param(
        name="benchmark",
        value=_first(data),
        bind=alt.binding_select(
            options=benchmarks, labels=[reference.display_name(name) for name in benchmarks], name="Benchmark"
        ),
    )
    scenario = alt.param(
        name="scenario",
        value="Offline",
        bind=alt.binding_select(
            options=[name for name in SCENARIOS if name in set(data["scenario"])], name="Scenario"
        ),
    )
    measure = alt.param(
        name="measure",
        value="whole system",
        bind=alt.binding_radio(options=["whole system", "per GPU"], name="Measure"),
    )
    return benchmark, scenario, measure


def _page(data: pd.DataFrame):
    """The widget that pages through the results, ``PAGE`` at a time, as many pages as the
    benchmark and scenario with the most results needs."""
    most = int(data.groupby(["benchmark", "scenario"]).size().max())
    pages = list(range(math.ceil(most / PAGE)))
    page = alt.param(
        name="page",
        value=0,
        bind=alt.binding_select(
            options=pages,
            labels=[
                f"{start * PAGE + 1}–{(start + 1) * PAGE}" + (" (the best)" if not start else "")
                for start in pages
            ],
            name="Results",
        ),
    )
    return page


def _filters(data: pd.DataFrame) -> tuple:
    """The widgets that leave results out: division, availability, accelerator vendor."""
    division = alt.param(
        name="division",
        value="all",
        bind=alt.binding_select(options=["all", "closed", "open"], name="Division"),
    )
    availability = alt.param(
        name="availability",
        value="all",
        bind=alt.binding_select(options=["all", *sorted(set(data["availability"]))], name="Availability"),
    )
    vendor = alt.param(
        name="vendor",
        value="all",
        bind=alt.binding_select(options=["all", *sorted(set(data["vendor"]))], name="Accelerator vendor"),
    )
    return division, availability, vendor


def _lookups(data: pd.DataFrame, reference) -> tuple:
    """Three parameters no widget sets, for the title, the axis and the legend: each benchmark's
    name, the unit of each benchmark and scenario, and the accelerator families it has results of
    (the legend lists those, not every family of the round)."""
    names = alt.param(
        name="benchmark_names",
        value={name: reference.display_name(name) for name in sorted(set(data["benchmark"]))},
    )
    units = alt.param(
        name="units",
        value={
            f"{benchmark} {scenario}": unit
            for (benchmark, scenario), unit in data.groupby(["benchmark", "scenario"])["units"]
            .first()
            .items()
        },
    )
    families = alt.param(
        name="families",
        value={
            f"{benchmark} {scenario}": sorted(set(rows))
            for (benchmark, scenario), rows in data.groupby(["benchmark", "scenario"])["family"]
        },
    )
    return names, units, families


# The title says what is shown; the axis its unit (the selection decides both).
TITLE = (
    "[benchmark_names[benchmark] + ', ' + scenario, "
    "(measure == 'per GPU' ? 'Per GPU' : 'Whole system') + ', results ' + (page * {page} + 1) + '–' + "
    "((page + 1) * {page}) + ', best first']"
)
AXIS = "(units[benchmark + ' ' + scenario] || 'No result') + (measure == 'per GPU' ? ' per GPU' : '')"


def explorer_chart(results: pd.DataFrame, reference) -> alt.Chart:
    """One dot per result of the chosen benchmark and scenario, ``PAGE`` at a time, best first;
    every filter is a widget, drawn above the chart."""
    data = _marks(results, reference)
    widgets = _widgets(data, reference)
    colour, shape = charts.family_scales(reference, data["family"])
    return (
        _chosen_page(alt.Chart(data), *widgets)
        .mark_point(filled=True, size=110, opacity=0.9)
        .encode(
            # The axis and the legend above the marks: with the controls, on the first screen.
            x=alt.X("value:Q", title="Result", axis=alt.Axis(labelExpr=charts.NUMBERS, orient="top")),
            y=alt.Y(
                "label:N",
                sort=alt.EncodingSortField(field="rank", op="min"),
                title=None,
                axis=alt.Axis(labelExpr=charts.LINES, labelLimit=0),
            ),
            color=alt.Color("family:N", scale=colour, legend=_shown_legend()),
            shape=alt.Shape("family:N", scale=shape, legend=_shown_legend()),
            href="url:N",
            tooltip=charts.RESULT_TOOLTIP,
        )
        .add_params(*widgets, *_lookups(data, reference))
        .properties(**_layout(data, reference))
    )


def _chosen_page(chart, benchmark, scenario, measure, page, division, availability, vendor):
    """The results the widgets choose, in the chosen measure, ranked best first: the chosen
    page of them."""
    return (
        chart.transform_filter((alt.datum.benchmark == benchmark) & (alt.datum.scenario == scenario))
        .transform_filter((division == "all") | (alt.datum.division == division))
        .transform_filter((availability == "all") | (alt.datum.availability == availability))
        .transform_filter((vendor == "all") | (alt.datum.vendor == vendor))
        .transform_calculate(value=alt.expr.if_(measure == "per GPU", alt.datum.per_gpu, alt.datum.result))
        .transform_filter("isValid(datum.value)")
        .transform_calculate(order="-datum.better * datum.value")
        .transform_window(rank="row_number()", sort=[alt.SortField("order"), alt.SortField("label")])
        .transform_filter(f"datum.rank > page * {PAGE} && datum.rank <= (page + 1) * {PAGE}")
    )


def _layout(data: pd.DataFrame, reference) -> dict:
    """The chart's size, title and description; in ``usermeta``, its title as it opens and its
    axis's title expression (``claimbook.present.charts`` reads them)."""
    shown = [
        reference.display_name(_first(data)) + ", Offline",
        f"Whole system, results 1–{PAGE}, best first",
    ]
    return {
        "width": charts.CONTENT_WIDTH,
        # a fixed height (Vega-Lite warns of a height by step in a chart as wide as its
        # column): room for a full page of results
        "height": PAGE * charts.step_for(data["label"]),
        "title": alt.TitleParams(
            text=alt.ExprRef(TITLE.format(page=PAGE)),
            subtitle="Click a mark to open its folder of logs",
        ),
        "description": "Dot plot of the published results of the chosen benchmark and scenario, best first, "
        "coloured and shaped by accelerator family; the controls above it choose the benchmark, scenario, "
        "measure, which results and filters.",
        "usermeta": {"title": " ".join(shown), "axis_titles": {"top": AXIS}},
    }


# The legend's columns: two beside each other where the chart is wide, one on a phone.
EXPR_COLUMNS = alt.ExprRef("width > 400 ? 2 : 1")


def _shown_legend() -> alt.Legend:
    """The explorer's legend, above the marks: the families of the benchmark and scenario shown."""
    shown = charts.legend("Accelerator", "top", columns=EXPR_COLUMNS)
    shown.values = alt.ExprRef("families[benchmark + ' ' + scenario]")
    return shown


def llm_scenarios_chart(results: pd.DataFrame, reference) -> alt.Chart:
    """Per GPU, each system's Offline, Server and Interactive results joined by a line, for the
    chosen LLM benchmark."""
    llm = results[results["scenario"].isin(LLM_SCENARIOS) & (results["metric"] == "throughput")]
    with_interactive = sorted(set(llm.loc[llm["scenario"] == "Interactive", "benchmark"]))
    llm = llm[llm["benchmark"].isin(with_interactive)]
    data = _marks(llm, reference)
    data["series"] = data["submitter"] + " · " + data["system"]
    options = with_interactive or ["none"]
    benchmark = alt.param(
        name="llm_benchmark", value=options[0], bind=alt.binding_select(options=options, name="Benchmark ")
    )
    colour, shape = charts.family_scales(reference, data["family"])
    base = (
        alt.Chart(data)
        .transform_filter(alt.datum.benchmark == benchmark)
        .encode(
            x=alt.X("scenario:N", sort=list(LLM_SCENARIOS), title="Scenario", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("per_gpu:Q", title="Throughput per GPU", axis=alt.Axis(labelExpr=charts.NUMBERS)),
            color=alt.Color("family:N", scale=colour, legend=charts.family_legend()),
            detail="series:N",
        )
    )
    lines = base.mark_line(opacity=0.5)
    points = base.mark_point(filled=True, size=70).encode(
        shape=alt.Shape("family:N", scale=shape, legend=charts.family_legend()),
        href="url:N",
        tooltip=charts.RESULT_TOOLTIP,
    )
    return (
        alt.layer(lines, points)
        .add_params(benchmark)
        .properties(
            width=charts.CONTENT_WIDTH,
            height=320,
            title=charts.titled("Per GPU, across the latency limits", "One line per system"),
            description="Line chart: for the chosen LLM benchmark, each system's per-GPU throughput in the Offline, "
            "Server and Interactive scenarios.",
        )
    )


def results_table(results: pd.DataFrame):
    """Every result of the round: a table per benchmark, each folded in a ``<details>`` (opened,
    it scrolls in its own box), so that the page stays a page and not tens of thousands of pixels."""
    ordered = results.sort_values(["benchmark", "scenario", "result"], ascending=[True, True, False])
    parts, texts = [], []
    for benchmark, rows in ordered.groupby("benchmark", sort=True):
        frame = blocks.evidence_frame(rows)
        caption = f"{benchmark} ({formatting.plural(len(rows), 'result')})"
        links, titles = {"System": "_url"}, {"System": "_system", "Accelerators": "_published_accelerator"}
        parts.append(
            str(_DETAILS.results(caption, trusted(blocks.table_html(frame, caption, links, titles))))
        )
        hidden = [column for column in frame.columns if column in {*links.values(), *titles.values()}]
        texts.append(blocks.table_text(blocks.reader_order(frame.drop(columns=hidden)), caption))
    lead = f"Every result of the round ({formatting.plural(len(results), 'result')}), a table per benchmark:"
    blocks.display_html(blocks.paragraph(lead) + "".join(parts), "\n\n".join([lead, *texts]))
