"""The round explorer: every result of the round in one interactive chart, offline.

Widgets are bound to Vega-Lite parameters, so choosing a benchmark, a scenario or a measure, or
filtering by division, availability and vendor, happens in the reader's browser with no server.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from claimbook.common import formatting
from claimbook.inputs.schema import SCENARIOS
from claimbook.present import blocks, charts

LLM_SCENARIOS = ("Offline", "Server", "Interactive")


def _marks(results: pd.DataFrame, reference) -> pd.DataFrame:
    data = charts.result_marks(results, reference=reference)
    data["url"] = [
        blocks.provenance_url(round_name, location)
        for round_name, location in zip(results["round"], results["location"])
    ]
    data["vendor"] = results["vendor"].astype(str).values
    data["per_gpu"] = data["per_gpu"].where(data["per_gpu"].notna(), None)
    return data


def _widgets(data: pd.DataFrame) -> tuple:
    """The explorer's widgets, in the order they are shown: benchmark, scenario, measure,
    division, availability, accelerator vendor."""
    benchmarks = sorted(set(data["benchmark"]))
    first = "deepseek-r1" if "deepseek-r1" in benchmarks else benchmarks[0]
    benchmark = alt.param(
        name="benchmark", value=first, bind=alt.binding_select(options=benchmarks, name="Benchmark ")
    )
    scenario = alt.param(
        name="scenario",
        value="Offline",
        bind=alt.binding_select(
            options=[name for name in SCENARIOS if name in set(data["scenario"])], name="Scenario "
        ),
    )
    measure = alt.param(
        name="measure",
        value="whole system",
        bind=alt.binding_radio(options=["whole system", "per GPU"], name="Measure "),
    )
    division = alt.param(
        name="division",
        value="all",
        bind=alt.binding_select(options=["all", "closed", "open"], name="Division "),
    )
    availability = alt.param(
        name="availability",
        value="all",
        bind=alt.binding_select(options=["all", *sorted(set(data["availability"]))], name="Availability "),
    )
    vendor = alt.param(
        name="vendor",
        value="all",
        bind=alt.binding_select(options=["all", *sorted(set(data["vendor"]))], name="Accelerator vendor "),
    )
    return benchmark, scenario, measure, division, availability, vendor


def explorer_chart(results: pd.DataFrame, reference) -> alt.Chart:
    """One dot per result of the chosen benchmark and scenario; every filter is a widget."""
    data = _marks(results, reference)
    benchmark, scenario, measure, division, availability, vendor = _widgets(data)
    colour, shape = charts.family_scales(reference, data["family"])
    return (
        alt.Chart(data)
        .transform_filter((alt.datum.benchmark == benchmark) & (alt.datum.scenario == scenario))
        .transform_filter((division == "all") | (alt.datum.division == division))
        .transform_filter((availability == "all") | (alt.datum.availability == availability))
        .transform_filter((vendor == "all") | (alt.datum.vendor == vendor))
        .transform_calculate(value=alt.expr.if_(measure == "per GPU", alt.datum.per_gpu, alt.datum.result))
        .transform_filter("isValid(datum.value)")
        .mark_point(filled=True, size=110, opacity=0.9)
        .encode(
            x=alt.X("value:Q", title="Result or per GPU", axis=alt.Axis(labelExpr=charts.NUMBERS)),
            y=alt.Y("label:N", sort="-x", title=None, axis=alt.Axis(labelExpr=charts.LINES, labelLimit=0)),
            color=alt.Color("family:N", scale=colour, legend=charts.family_legend()),
            shape=alt.Shape("family:N", scale=shape, legend=charts.family_legend()),
            href="url:N",
            tooltip=charts.RESULT_TOOLTIP,
        )
        .add_params(benchmark, scenario, measure, division, availability, vendor)
        .properties(
            width=charts.CONTENT_WIDTH,
            height={"step": charts.step_for(data["label"])},
            title=charts.titled(
                "Every result of the round",
                "Choose a benchmark and scenario below the chart; click a mark to open its logs",
            ),
            description="Dot plot of every published result of the chosen benchmark and scenario, coloured and shaped "
            "by accelerator family; widgets choose the benchmark, scenario, measure and filters.",
        )
    )


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
    """Every result of the round, in a table that scrolls in its own box."""
    blocks.evidence(
        results.sort_values(["benchmark", "scenario", "result"], ascending=[True, True, False]),
        f"Every result of the round ({formatting.plural(len(results), 'result')})",
    )
