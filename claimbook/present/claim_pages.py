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
from claimbook.common.paths import CLAIM_TEMPLATE
from claimbook.engine import kinds, scorecard
from claimbook.engine.context import chapter_context, page_data, page_parameters
from claimbook.engine.core import Check, Data
from claimbook.engine.kinds.not_checkable import with_notes
from claimbook.engine.kinds.scaling import DEFAULT_SUPERLINEAR_MARGIN
from claimbook.engine.page_call import checked_call, known_benchmarks, known_claims, read_inputs
from claimbook.inputs.reference import annotate  # noqa: F401  (re-exported for templates)
from claimbook.present import blocks, links
from claimbook.present.templating import macros, trusted

OUTCOME = {True: "holds", False: "does not hold", None: "for context"}
NOT_THE_BEST = "not the best case"  # a case of an "up to" claim other than the one that decides
# The book's root seen from a page, for its links: a chapter is book/generated/NAME, a claim's
# page book/generated/ANNOUNCEMENT/CLAIM (the place of a page follows from what it is).
CHAPTER_ROOT, CLAIM_PAGE_ROOT = "../", "../../"


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

    # What the method shows of a claim page's parameters: the claim and the data that decide it.
    SHOWN_PARAMETERS = ("claim_id", "results_path", "earlier_paths", "overrides")

    def __init__(
        self,
        data: Data,
        claim_id: str,
        book_root: str = "../",
        chapter: str = "",
        check: Check | None = None,
        parameters: dict | None = None,
    ):
        claim = data.registry.claim(claim_id)
        data = data.for_claim(claim)  # the page shows its claim's own round, whatever else is held
        self.data = data
        self.claim = claim
        self.announcement = data.registry.announcements[self.claim.announcement]
        self.book_root = book_root
        self.chapter = chapter or self.claim.announcement
        self.check = check if check is not None else engine.check(self.claim, data)
        self.parameters = parameters or {}  # those its page ran with (``open_claim_page``)
        self.names = blocks.system_names(data.results)

    # -- answer first ---------------------------------------------------------------------
    def card(self):
        blocks.show_card(self.check, self.book_root, self.data.registry, self.names)

    # -- the chart ------------------------------------------------------------------------
    def charts(self) -> list:
        """The charts that show this claim's verdict (none for a claim no data bears on)."""
        checks = self.check.parts or (self.check,)
        found = []
        for check in checks:
            module = engine.KINDS[check.claim.kind]
            found.extend(render(spec, self.data.reference, check) for spec in module.charts(check, self.data))
        return found

    def show_charts(self):
        from IPython.display import display

        made = self.charts()
        if not made:
            text = no_chart_sentence(self.check)
            blocks.display_html(blocks.paragraph(text), text)
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
            spec = engine.SPECS[check.claim.kind]
            for name, frame in check.tables.items():
                if frame is None or frame.empty:
                    continue
                table, caption = context_table(frame, spec.tables.get(name) or kinds.Table(_caption(name)))
                blocks.table(table, caption)
                shown = True
        if not shown:
            blocks.display_html(
                blocks.paragraph("No further context: the evidence above is everything the check used."),
                "No further context.",
            )

    # -- how it was checked ---------------------------------------------------------------
    def method(self):
        """How each kind of claim is checked, and the parameters the page ran with."""
        for kind in sorted({check.claim.kind for check in (self.check.parts or (self.check,))}):
            show_method(kind)
        shown = {key: self.parameters[key] for key in self.SHOWN_PARAMETERS if key in self.parameters}
        blocks.parameters(shown, CLAIM_TEMPLATE)

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

    def __init__(self, data: Data, name: str, parameters: dict, checks: dict | None = None):
        self.data = data
        self.name = name
        self.parameters = parameters  # those its page ran with (``page_parameters``)
        self.book_root = CHAPTER_ROOT
        checks = checks or {}
        self.shown: list[pd.DataFrame] = []  # results the chapter shows beside its claims' own
        self.pages = [
            ClaimPage(data, claim_id, self.book_root, name, checks.get(claim_id))
            for claim_id in parameters.get("claim_ids", ())
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

    def method(self):
        """How each kind of its claims is checked, and the parameters the page ran with."""
        for kind in sorted(
            {check.claim.kind for page in self.pages for check in (page.check.parts or (page.check,))}
        ):
            show_method(kind)
        blocks.parameters(self.parameters, self.data.registry.chapters[self.name].template)

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


def show_method(kind: str) -> None:
    """How a kind of claim is checked, in its module's words (literals set as code)."""
    module = engine.KINDS.get(kind)
    text = (inspect.getdoc(module) if module else "") or ""
    paragraphs = [trusted(blocks.prose_html(paragraph)) for paragraph in text.split("\n\n")]
    named = "" if text.startswith(f"Kind ``{kind}``") else kind
    blocks.display_html(str(macros("details.html").method(named, paragraphs)), blocks.prose_text(text))


def _caption(name: str) -> str:
    """The caption of a context table its kind gives none: its name, as words."""
    return name.replace("_", " ").capitalize()


def context_table(frame: pd.DataFrame, spec: kinds.Table) -> tuple[pd.DataFrame, str]:
    """A context table as its kind's spec shows it: the columns kept and renamed, some left out,
    the first rows only; and its caption."""
    if spec.columns:
        frame = frame[[column for _, column in spec.columns]].set_axis(
            [heading for heading, _ in spec.columns], axis=1
        )
    dropped = [
        column
        for column in frame.columns
        if column in spec.omit or (spec.omit_suffix and str(column).endswith(spec.omit_suffix))
    ]
    frame = frame.drop(columns=dropped)
    return (frame.head(spec.head) if spec.head is not None else frame), spec.caption


def best_case_only(check) -> bool:
    """Whether a check is judged on its best case alone (an "up to" claim): its other cases are
    its spread, not failures. Read from what the check carries: its form or quantifier, or the
    caveat that only the best case reaches the figure."""
    if check is None:
        return False
    quantifier = " ".join(str(check.claim.get("quantifier") or "").replace("-", " ").lower().split())
    return (
        check.claim.get("form") == "up-to"
        or quantifier.startswith("up to")
        or "best-case-only" in check.caveats
    )


def outcome(bar, check=None) -> str:
    """What a bar shows of its case: holds, does not hold, for context, or (of an "up to" claim,
    a case other than the deciding one) not the best case."""
    if bar.reaches is None:
        return OUTCOME[None]
    if best_case_only(check) and check.deciding and bar.case != check.deciding:
        return NOT_THE_BEST
    return OUTCOME[bar.reaches]


def bars_frame(bars, check=None) -> pd.DataFrame:
    """The bars of a ``CaseBars`` chart as ``charts.case_chart`` reads them; ``claimed_text``
    where a bar says its claimed figure as the claim writes it."""
    frame = pd.DataFrame(
        [
            {
                "case": bar.case,
                "measured": bar.measured,
                "claimed": bar.claimed,
                "outcome": outcome(bar, check),
                "detail": bar.detail,
            }
            for bar in bars
        ],
        columns=["case", "measured", "claimed", "outcome", "detail"],
    )
    if any(bar.claimed_text for bar in bars):
        frame["claimed_text"] = [bar.claimed_text for bar in bars]
    return frame


# How each chart a kind may ask for is drawn (the vocabulary of claimbook.engine.kinds).
RENDERERS = {
    kinds.CaseBars: lambda charts, spec, reference, check: charts.case_chart(
        bars_frame(spec.bars, check), spec.title, spec.description, spec.unit, spec.line, spec.line_label
    ),
    kinds.ResultDots: lambda charts, spec, reference, check: charts.results_chart(
        spec.rows,
        reference,
        spec.value,
        spec.title,
        spec.description,
        highlight=spec.highlight,
        claimed=spec.claimed,
    ),
    kinds.EfficiencyScatter: lambda charts, spec, reference, check: charts.efficiency_chart(
        spec.pairs, reference, spec.scenario, spec.title, spec.description, highlight=spec.highlight
    ),
    kinds.RoundLines: lambda charts, spec, reference, check: charts.rounds_chart(
        spec.gains, spec.title, spec.description
    ),
    kinds.CountBars: lambda charts, spec, reference, check: charts.count_chart(
        spec.table, spec.category, spec.title, spec.description
    ),
    kinds.CandidateBars: lambda charts, spec, reference, check: charts.candidates_chart(
        spec.table, spec.scenario, spec.claimed, spec.direction, spec.title, spec.description
    ),
}


def render(spec, reference, check=None):
    """The chart a kind's chart spec asks for (``check``: the check it shows, which says which
    case decides), in the book's style. The charts module (altair) is imported here, by the
    pages that draw a chart: a page with none runs without it (a fifth of a page's CPU)."""
    from claimbook.present import charts

    charts.use_book_style()
    return RENDERERS[type(spec)](charts, spec, reference, check)


def column_value(case, column: kinds.Column):
    """One cell of a case table: the case's attribute the column names, in its words."""
    value = case
    for name in column.attribute.split("."):
        value = getattr(value, name, None)
    if column.words is not None:
        value = column.words.get(value, value)
    return column.missing if value is None and column.missing is not None else value


def open_chapter(name: str, **parameters) -> Chapter:
    """Chapter ``name`` of the book, from the parameters its page runs with (its template passes
    every one by name: its claims, ``claim_ids``, the data inputs and its own): everything it
    reads, loaded the one way, and its claims checked with what the chapter adds to them."""
    from claimbook.present import charts  # a chapter's own cells draw with it

    parameters = page_parameters(checked_call(parameters))
    charts.use_book_style()
    data = read_inputs(page_data, parameters)
    known_claims(data.registry, parameters.get("claim_ids", ()), "claim_ids")
    known_benchmarks(data, parameters)
    links.use_page(data.registry, CHAPTER_ROOT)
    checks = {}
    for claim_id in parameters.get("claim_ids", ()):
        claim = data.registry.claim(claim_id)
        notes = chapter_context(claim, data, name, parameters).get("notes", ())
        checks[claim_id] = with_notes(engine.check(claim, data), notes)
    # What the chapter's own cells read (a history of rounds, the round's results) is its claims'
    # round's, as they were judged: the rounds before it, those the book holds in full among them.
    claim_ids = list(parameters.get("claim_ids", ()))
    if claim_ids:
        data = data.for_claim(data.registry.claim(claim_ids[0]))
    return Chapter(data, name, parameters, checks)


def open_claim_page(claim_id: str, **inputs) -> ClaimPage:
    """The page of claim ``claim_id``, from the data inputs its page runs with (its template
    passes every one by name), loaded the one way (as ``open_chapter``'s)."""
    parameters = page_parameters(checked_call({"claim_id": claim_id, **inputs}))
    data = read_inputs(page_data, parameters)
    known_claims(data.registry, [parameters["claim_id"]], "claim_id")
    links.use_page(data.registry, CLAIM_PAGE_ROOT)
    return ClaimPage(data, parameters["claim_id"], CLAIM_PAGE_ROOT, parameters=parameters)


def ratio_spread(checks) -> pd.DataFrame:
    """Every case of ratio checks side by side: the spread behind an "up to". The best of the
    baseline's class is named by its class in the column (or in a column of its own where the
    classes differ)."""
    rows = []
    classes = {
        case.detail.best_class
        for check in checks
        for case in check.cases
        if case.measured is not None and case.detail.best_class
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
                    "Claim id": check.claim.id,
                    "Case": case.label,
                    "Measured": case.measured,
                    "Claimed": case.claimed,
                    "Per GPU": case.detail.per_gpu_ratio,
                    "Per watt of board power (not measured)": case.detail.per_watt_ratio,
                    against: case.detail.measured_vs_best_any,
                    **({} if one_class else {"Baseline's class": case.detail.best_class or "—"}),
                    "Best of the class": case.detail.best_any or "—",
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


def above_linear_sentence(check) -> str:
    """What a scaling chart's reader must know of the pairs above 100%, computed from the check:
    how many are above linear plus the margin and left out, how many are above 100% within the
    margin and stay in the field, and which of those lead a reading (never typed: "they never
    lead" is a fact about the data, true or not)."""
    pairs = check.tables.get("pairs")
    if pairs is None or pairs.empty:
        return "The round has no other scaling pair."
    margin = float(check.claim.get("superlinear_margin", DEFAULT_SUPERLINEAR_MARGIN))
    flagged = pairs[pairs["superlinear"]]
    near = pairs[~pairs["superlinear"] & (pairs["efficiency_percent"] > 100.0)]
    text = (
        f"{formatting.plural(len(flagged), 'pair')} above {formatting.stated(100 + margin, '%')} "
        f"{'is' if len(flagged) == 1 else 'are'} shown but left out of the comparison"
    )
    if near.empty:
        return text + f"; no pair is between 100% and {formatting.stated(100 + margin, '%')}."
    text += (
        f"; {formatting.plural(len(near), 'pair')} between 100% and {formatting.stated(100 + margin, '%')} "
        f"{'counts' if len(near) == 1 else 'count'} as linear and {'stays' if len(near) == 1 else 'stay'} in it"
    )
    leading = [
        case
        for case in check.cases
        if not case.reaches and case.detail.next_value is not None and case.detail.next_value > 100.0
    ]
    if leading:
        text += ", and " + "; ".join(f"{case.detail.leader} leads {case.label}" for case in leading)
    return text + "."


def show_above_linear(check) -> None:
    """The sentence above, on the page (the leader's label carries its efficiency)."""
    text = above_linear_sentence(check)
    blocks.display_html(blocks.paragraph(text), text)


def case_table(check) -> pd.DataFrame:
    """The cases of a check with what each compares, for a chapter's tables (in the columns its
    kind's spec names)."""
    columns = engine.SPECS[check.claim.kind].columns
    return pd.DataFrame(
        [{column.heading: column_value(case, column) for column in columns} for case in check.cases],
        columns=[column.heading for column in columns],
    )
