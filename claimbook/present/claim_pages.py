"""A claim's page, kind by kind: the verdict card first, then the chart that shows it, the
evidence, the context, the method and the citation.

The one claim template (``notebooks/claim.ipynb``) calls these; the narrative chapters use the
same cards, evidence tables and citations around their own story.
"""

from __future__ import annotations

import inspect

import pandas as pd

from claimbook import engine
from claimbook.common import formatting
from claimbook.engine import scorecard
from claimbook.engine.core import Check, Data
from claimbook.engine.efficiency import scaling_pairs
from claimbook.inputs.reference import annotate  # noqa: F401  (re-exported for templates)
from claimbook.present import blocks, charts

OUTCOME = {True: "holds", False: "does not hold", None: "for context"}


def cases_frame(check: Check) -> pd.DataFrame:
    """The measured cases of a check, as a chart or table shows them."""
    rows = []
    for case in check.cases:
        if case.measured is None:
            continue
        detail = case.extra.get("baseline") or case.extra.get("next") or case.extra.get("note") or ""
        rows.append(
            {
                "case": case.label,
                "measured": case.measured,
                "claimed": case.claimed,
                "outcome": OUTCOME[case.reaches],
                "detail": str(detail),
            }
        )
    return pd.DataFrame(rows, columns=["case", "measured", "claimed", "outcome", "detail"])


def no_chart_sentence(check: Check) -> str:
    """Why a page has no chart, following from its own evidence: no result at all, or results
    that settle what exists and what it states rather than a figure to draw."""
    used = sum(
        len(set(part.rows["location"]))
        for part in (check.parts or (check,))
        if part.rows is not None and not part.rows.empty
    )
    if not used:
        return "No chart: no published result measures this claim."
    return (
        f"No chart: the claim is about what the results are and what they state, not a figure to set against "
        f"others; the {formatting.plural(used, 'published result')} it rests on "
        f"{'is' if used == 1 else 'are'} listed under the evidence."
    )


class ClaimPage:
    """Everything one claim's page shows, computed once."""

    def __init__(
        self, data: Data, claim_id: str, book_root: str = "../", chapter: str = "", check: Check | None = None
    ):
        self.data = data
        self.claim = data.registry.claim(claim_id)
        self.announcement = data.registry.announcements[self.claim.announcement]
        self.book_root = book_root
        self.chapter = chapter or self.claim.announcement
        self.check = check if check is not None else engine.check(self.claim, data)

    # -- answer first ---------------------------------------------------------------------
    def card(self):
        blocks.show_card(self.check, self.book_root)

    # -- the chart ------------------------------------------------------------------------
    def charts(self) -> list:
        """The charts that show this claim's verdict (none for a claim no data bears on)."""
        checks = self.check.parts or (self.check,)
        found = []
        for check in checks:
            maker = CHARTS.get(
                check.claim.kind if check.claim.kind != "leading" else f"leading-{check.claim.get('metric')}"
            )
            if maker is not None:
                found.extend(maker(self, check))
        return found

    def show_charts(self):
        from IPython.display import display

        made = self.charts()
        if not made:
            text = no_chart_sentence(self.check)
            blocks.display_html(f"<p>{blocks.escape(text)}</p>", text)
        for chart in made:
            display(chart)

    # -- the evidence and the context -----------------------------------------------------
    def evidence(self):
        checks = self.check.parts or (self.check,)
        for check in checks:
            caption = "Published results used" + (
                f" ({check.claim.id.rsplit('.', 1)[-1]})" if self.check.parts else ""
            )
            blocks.evidence(check.rows, caption, self.data.result_ids)

    def context(self):
        checks = self.check.parts or (self.check,)
        shown = False
        for check in checks:
            for name, frame in check.tables.items():
                if frame is None or frame.empty:
                    continue
                table, caption = CONTEXT.get(name, (_plain, name.replace("_", " ").capitalize()))(frame)
                blocks.table(table, caption)
                shown = True
        if not shown:
            blocks.display_html(
                "<p>No further context: the evidence above is everything the check used.</p>",
                "No further context.",
            )

    # -- how it was checked ---------------------------------------------------------------
    def method(self, parameters: dict, template: str):
        kinds = sorted({check.claim.kind for check in (self.check.parts or (self.check,))})
        for kind in kinds:
            module = engine.KINDS.get(kind)
            text = inspect.getdoc(module) if module else ""
            blocks.display_html(
                f'<div class="claimbook-method"><p><strong>{blocks.escape(kind)}</strong>: '
                + "</p><p>".join(blocks.escape(paragraph) for paragraph in text.split("\n\n"))
                + "</p></div>",
                f"{kind}: {text}",
            )
        blocks.parameters(parameters, template)

    def citation(self):
        rows = pd.concat(
            [
                check.rows
                for check in (self.check.parts or (self.check,))
                if check.rows is not None and not check.rows.empty
            ]
            or [pd.DataFrame()]
        )
        blocks.show_citation(
            rows if not rows.empty else None,
            self.announcement,
            self.data.sources or {},
            result_ids=self.data.result_ids,
        )

    def publish(self):
        scorecard.publish([self.check], self.chapter)


class Chapter:
    """A narrative chapter: several claims, each with its page's parts, told in one story."""

    def __init__(self, data: Data, claim_ids, book_root: str, name: str, checks: dict | None = None):
        self.data = data
        self.name = name
        self.book_root = book_root
        checks = checks or {}
        self.shown: list[pd.DataFrame] = []  # results the chapter shows beside its claims' own
        self.pages = [
            ClaimPage(data, claim_id, book_root, name, checks.get(claim_id)) for claim_id in claim_ids
        ]

    def page(self, claim_id: str) -> ClaimPage:
        return next(page for page in self.pages if page.claim.id == claim_id)

    def cards(self):
        for page in self.pages:
            page.card()

    def evidence(self):
        for page in self.pages:
            blocks.evidence(
                page.check.rows,
                f"Published results used for {page.claim.get('title') or page.claim.id}",
                self.data.result_ids,
            )

    def method(self, parameters: dict, template: str):
        kinds = sorted(
            {check.claim.kind for page in self.pages for check in (page.check.parts or (page.check,))}
        )
        for kind in kinds:
            text = inspect.getdoc(engine.KINDS[kind]) or ""
            blocks.display_html(
                f'<div class="claimbook-method"><p><strong>{blocks.escape(kind)}</strong>: '
                + "</p><p>".join(blocks.escape(paragraph) for paragraph in text.split("\n\n"))
                + "</p></div>",
                f"{kind}: {text}",
            )
        blocks.parameters(parameters, template)

    def also_cites(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Results the chapter shows for context: its citation states their version and division too."""
        if rows is not None and not rows.empty:
            self.shown.append(rows)
        return rows

    def citation(self):
        rows = pd.concat(
            [
                page.check.rows
                for page in self.pages
                if page.check.rows is not None and not page.check.rows.empty
            ]
            + self.shown
            or [pd.DataFrame()]
        )
        announcement = self.pages[0].announcement if self.pages else None
        blocks.show_citation(
            rows if not rows.empty else None,
            announcement,
            self.data.sources or {},
            result_ids=self.data.result_ids,
        )

    def publish(self):
        scorecard.publish([page.check for page in self.pages], self.name)


def _plain(frame: pd.DataFrame):
    return frame, ""


def _ratio_charts(page: ClaimPage, check: Check):
    cases = cases_frame(check)
    if cases.empty:
        return []
    unit = check.claim.unit or "x"
    form = check.claim.get("form")
    line, label = None, "claimed"
    if form == "up-to":
        line = float(check.claim.claimed)
    elif form in ("lead", "outcomes"):
        line, label = (1.0, "level") if unit == "x" else (0.0, "level")
    elif form == "within":
        bound = engine.ratio.within_reading(check.claim)[0]
        line, label = -bound, f"{formatting.stated(bound, '%')} below"
    return [
        charts.case_chart(
            cases,
            check.claim.get("title") or check.claim.statement,
            f"Bar chart of the measured {'ratio' if unit == 'x' else 'lead in percent'} in each case "
            f"of the claim {check.claim.id}; a dashed line marks the {label} figure.",
            unit,
            line,
            label,
        )
    ]


def _figure_charts(page: ClaimPage, check: Check):
    made = []
    for case in check.cases:
        if case.measured is None:
            continue
        benchmark = engine.core.benchmarks_of(check.claim)[0]
        rows = page.data.results[
            (page.data.results["benchmark"] == benchmark) & (page.data.results["scenario"] == case.scenario)
        ]
        rows = rows[rows["division"] == check.rows["division"].iloc[0]] if not check.rows.empty else rows
        scale = float(check.claim.get("scale", 1))
        made.append(
            charts.results_chart(
                rows,
                page.data.reference,
                "result",
                f"{page.data.reference.display_name(benchmark)}, {case.scenario}: every published result",
                f"Dot plot of every {case.scenario} result on {benchmark}; the claim's system is drawn large and a dashed "
                "line marks the claimed figure.",
                highlight=case.evidence,
                claimed=case.claimed * scale if case.claimed is not None else None,
            )
        )
    return made


def _scaling_charts(page: ClaimPage, check: Check):
    division = check.claim.get("division", "closed")
    results = (
        page.data.results
        if division == "any"
        else page.data.results[page.data.results["division"] == division]
    )
    pairs = scaling_pairs(results)
    made = []
    for case in check.cases:
        if case.claimed is None or case.measured is None:
            continue
        made.append(
            charts.efficiency_chart(
                pairs,
                page.data.reference,
                case.scenario,
                f"Scaling efficiency of every scaling pair, {case.scenario}",
                "Scatter plot: each point is one submitter's pair of configurations on one benchmark; the claim's pair "
                "is drawn large; the dashed line is linear scaling.",
                highlight=[(case.evidence[1], case.evidence[0])],
            )
        )
    return made


def _leading_result_charts(page: ClaimPage, check: Check):
    cases = cases_frame(check)
    if cases.empty:
        return []
    return [
        charts.case_chart(
            cases,
            "How far ahead of the best other result",
            "Bar chart: for each case, the claim's best result divided by the best other result "
            "(above 1 means ahead); the dashed line marks level.",
            "x",
            1.0,
            "level",
        )
    ]


def _leading_efficiency_charts(page: ClaimPage, check: Check):
    pairs = check.tables.get("pairs")
    if pairs is None or pairs.empty:
        return []
    own = pairs[pairs["own"]]
    scenarios = list(dict.fromkeys(case.scenario for case in check.cases if case.scenario))
    return [
        charts.efficiency_chart(
            pairs,
            page.data.reference,
            scenario,
            f"Scaling efficiency of every pair, {scenario}",
            "Scatter plot of every scaling pair's efficiency against the larger configuration's "
            "GPU count; the claim's pair is drawn large.",
            highlight=list(zip(own["small_location"], own["large_location"])),
        )
        for scenario in scenarios
    ]


def _round_gain_charts(page: ClaimPage, check: Check):
    gains = check.tables.get("gains")
    if gains is None or gains.empty:
        return []
    return [
        charts.rounds_chart(
            gains,
            "The same system, round to round",
            "Line chart of the system's result in the earlier round and in this one, per scenario; "
            "the point's shape says where the earlier figure comes from.",
        )
    ]


def _presence_charts(page: ClaimPage, check: Check):
    found = check.tables.get("found")
    if found is not None and not found.empty:
        named_values = _named_values(check)
        column = found.columns[0]
        table = found.assign(
            named=found[column]
            .astype(str)
            .isin(named_values)
            .map({True: "named by the claim", False: "not named"})
        )
        return [
            charts.count_chart(
                table,
                column,
                f"Results per {column}",
                f"Bar chart of the number of published results per {column}; the text says "
                "whether the claim names it.",
            )
        ]
    if check.rows is None or check.rows.empty or check.claim.get("items") or check.claim.get("pairs"):
        return []
    made = []
    for (benchmark, scenario), _ in check.rows.groupby(["benchmark", "scenario"], sort=True):
        rows = page.data.results[
            (page.data.results["benchmark"] == benchmark) & (page.data.results["scenario"] == scenario)
        ]
        throughput = rows["metric"].eq("throughput").all()
        made.append(
            charts.results_chart(
                rows,
                page.data.reference,
                "per_gpu" if throughput else "result",
                f"{page.data.reference.display_name(benchmark)}, {scenario}: "
                + ("per GPU" if throughput else "every result"),
                f"Dot plot of every {scenario} result on {benchmark}; the results the claim is about are drawn large.",
                highlight=list(check.rows["location"]),
            )
        )
    return made[:3]


def _named_values(check: Check) -> set[str]:
    named = check.claim.get("named")
    if isinstance(named, dict):
        return {
            str(value)
            for values in named.values()
            for value in (values if isinstance(values, list) else [values])
        }
    return {str(value) for value in (named or [])}


def _unnamed_baseline_charts(page: ClaimPage, check: Check):
    table = check.tables.get("candidates")
    scenario = check.claim.get("scenario")
    if table is None or table.empty or f"{scenario} ratio" not in table:
        return []
    direction = "higher" if scenario != "SingleStream" else "lower"
    mine = (
        check.rows[check.rows["scenario"] == scenario]
        if check.rows is not None and not check.rows.empty
        else None
    )
    if mine is not None and not mine.empty:
        direction = "higher" if bool(mine["higher_is_better"].iloc[0]) else "lower"
    return [
        charts.candidates_chart(
            table,
            scenario,
            float(check.claim.claimed),
            direction,
            f"The claimed system against every candidate, {scenario}",
            "Bar chart of the ratio against each candidate baseline, labelled with its class; "
            "the dashed line marks the claimed figure.",
        )
    ]


def _stated_figures_charts(page: ClaimPage, check: Check):
    """Each row of a stated table: the stated figure's gap to the published result (0 when it is
    the published result at its precision), or the results found for each listed benchmark."""
    listed = check.claim.get("listed") is not None
    cases = [case for case in check.cases if case.measured is not None]
    if not cases:
        return []
    frame = pd.DataFrame(
        {
            "case": [case.label for case in cases],
            "measured": [case.measured if listed else case.extra.get("gap_percent", 0.0) for case in cases],
            "claimed": [case.claimed for case in cases],
            "outcome": [OUTCOME[case.reaches] for case in cases],
            "detail": [str(case.extra.get("system", "")) for case in cases],
        }
    )
    if listed:
        return [
            charts.case_chart(
                frame,
                "Results of each entry's system on each benchmark listed",
                "Bar chart of the number of published results of the entry's system on each benchmark the "
                "announcement lists for it; a benchmark with none does not hold.",
                "results",
            )
        ]
    return [
        charts.case_chart(
            frame,
            "Each stated figure against the published result",
            "Bar chart of the gap, in percent, between each figure the announcement states and the published "
            "result (0 where the figure is the result at its stated precision); the dashed line marks the "
            "published result.",
            "%",
            0.0,
            "published",
        )
    ]


CHARTS = {
    "ratio": _ratio_charts,
    "figure": _figure_charts,
    "stated-figures": _stated_figures_charts,
    "scaling": _scaling_charts,
    "leading-result": _leading_result_charts,
    "leading-gpus": _leading_result_charts,
    "leading-efficiency": _leading_efficiency_charts,
    "round-gain": _round_gain_charts,
    "presence": _presence_charts,
    "unnamed-baseline": _unnamed_baseline_charts,
}


def _comparisons(frame):
    shown = frame.rename(
        columns={
            "case": "Case",
            "subject": "Claim's result",
            "subject_result": "Its result",
            "baseline": "Compared with",
            "baseline_result": "Their result",
            "units": "Units",
            "chosen_as": "Baseline chosen as",
            "measured": "Measured",
            "claimed": "Claimed",
            "class": "Baseline's class",
            "best_of_class": "Best of that class by any submitter",
            "measured_vs_best_of_class": "Measured against it",
        }
    )
    return (
        shown,
        "Each comparison: the results on both sides, and the best of the baseline's class by any submitter",
    )


def _candidates(frame):
    keep = [column for column in frame.columns if not column.endswith("location")]
    return frame[
        keep
    ], "Every candidate baseline, its class, and the ratio against it in each scenario of the sentence"


def _found(frame):
    return frame, "What the data has, counted"


CONTEXT = {
    "comparisons": _comparisons,
    "candidates": _candidates,
    "found": _found,
    "named": lambda frame: (
        frame,
        "Each name the claim gives, and the organizations it stands for in the data",
    ),
    "definitions": lambda frame: (frame, "The count under each reading of the claim"),
    "same_figure": lambda frame: (
        frame[["organization", "system", "scenario", "result", "units", "claimed"]],
        "Every published result that is the claimed figure at the precision stated",
    ),
    "gains": lambda frame: (
        frame.drop(columns=["from_source", "to_source"], errors="ignore"),
        "The gain, scenario by scenario",
    ),
    "headline_figures": lambda frame: (
        frame[["round", "organization", "system", "scenario", "result", "units", "source_type"]],
        "Earlier figures that name no system",
    ),
    "every_row": lambda frame: (frame, "Every row of the table the claim states, as checked"),
    "leaders": lambda frame: (frame, "The claim's best result and the best other result, case by case"),
    "largest_systems": lambda frame: (frame, "The largest systems in the round"),
    "pairs": lambda frame: (
        frame.drop(columns=[c for c in frame.columns if c.endswith("location")], errors="ignore").head(40),
        "Pairs of results (first 40)",
    ),
}


def open_chapter(
    name: str,
    results_path: str,
    earlier_paths,
    reference_dir: str,
    registry_dir: str,
    chapters_file: str,
    result_ids_path: str,
    sources_path: str,
    claim_ids,
    book_root: str,
    overrides: dict,
    checks: dict | None = None,
) -> Chapter:
    """Load everything a chapter reads (the one way) and check its claims."""
    from claimbook.engine.context import load_data

    charts.use_book_style()
    data = load_data(
        results_path,
        earlier_paths,
        reference_dir,
        registry_dir,
        chapters_file,
        overrides,
        result_ids_path,
        sources_path,
    )
    return Chapter(data, claim_ids, book_root, name, checks)


def ratio_spread(checks) -> pd.DataFrame:
    """Every case of ratio checks side by side: the spread behind an "up to". The best of the
    baseline's class is named by its class in the column (or in a column of its own where the
    classes differ)."""
    rows = []
    classes = {
        case.extra.get("best_class")
        for check in checks
        for case in check.cases
        if case.measured is not None and case.extra.get("best_class")
    }
    one_class = next(iter(classes)) if len(classes) == 1 else None
    against = (
        f"Against the best {one_class} result of any submitter"
        if one_class
        else "Against the best of the baseline's class by any submitter"
    )
    for check in checks:
        for case in check.cases:
            if case.measured is None:
                continue
            rows.append(
                {
                    "Claim": check.claim.get("title") or check.claim.id,
                    "Case": case.label,
                    "Ratio": case.measured,
                    "Claimed": case.claimed,
                    "Per GPU": case.extra.get("per_gpu_ratio"),
                    "Per watt of board power (not measured)": case.extra.get("per_watt_ratio"),
                    against: case.extra.get("measured_vs_best_any"),
                    **({} if one_class else {"Baseline's class": case.extra.get("best_class") or "—"}),
                    "Best of the class": case.extra.get("best_any") or "—",
                }
            )
    return pd.DataFrame(rows)


def superlinear_pairs(check) -> pd.DataFrame:
    """The scaling pairs above linear (plus the margin) that a "leading" check left out of its
    field, highest first, in the columns readers need."""
    pairs = check.tables.get("pairs")
    if pairs is None or pairs.empty:
        return pd.DataFrame()
    flagged = pairs[pairs["superlinear"]].sort_values("efficiency_percent", ascending=False, kind="stable")
    return flagged[
        ["organization", "benchmark", "scenario", "family", "small_gpus", "large_gpus", "efficiency_percent"]
    ]


def case_table(check) -> pd.DataFrame:
    """The cases of a check with what each compares, for a chapter's tables."""
    if check.claim.kind == "leading":
        return pd.DataFrame(
            [
                {
                    "Case": case.label,
                    "The claim's": case.extra.get("subject_value"),
                    "Best other": case.extra.get("next", "—"),
                    "Its value": case.extra.get("next_value"),
                    "Units": case.extra.get("units", ""),
                    "Leads": {True: "yes", False: "no", None: "—"}[case.reaches],
                }
                for case in check.cases
            ]
        )
    if check.claim.kind == "stated-figures":
        every_row = check.tables.get("every_row")
        return every_row if every_row is not None else pd.DataFrame()
    if check.claim.kind == "scaling":
        return pd.DataFrame(
            [
                {
                    "Scenario": case.label,
                    "Smaller": case.extra.get("small", "—"),
                    "Larger": case.extra.get("large", "—"),
                    "Throughput ratio": case.extra.get("throughput_ratio"),
                    "GPU ratio": case.extra.get("gpu_ratio"),
                    "Efficiency (%)": case.measured,
                    "Claimed (%)": case.claimed,
                    "Holds": {True: "yes", False: "no", None: "not claimed"}[case.reaches],
                }
                for case in check.cases
            ]
        )
    rows = []
    for case in check.cases:
        extra = case.extra
        rows.append(
            {
                "Case": case.label,
                "Measured": case.measured,
                "Claimed": case.claimed,
                "Holds": {True: "yes", False: "no", None: "—"}[case.reaches],
                "Compared": extra.get("baseline")
                or extra.get("next")
                or extra.get("small")
                or extra.get("note")
                or "—",
                "Other side": extra.get("large") or extra.get("leader") or "—",
            }
        )
    return pd.DataFrame(rows)
