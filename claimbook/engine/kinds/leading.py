"""Kind ``leading``: a claim of leadership or a record ("leading performance", "the top PCIe
result", "the largest submission ever", "leading scaling efficiency").

Metrics: ``result`` (the subject's result against every other result of the field, per
benchmark and scenario, as a whole system and per GPU), ``gpus`` (system size) and
``efficiency`` (a scaling pair against every other scaling pair, under each definition of the
field). Each reading of the claim (a measure, a definition) holds when the subject leads in every
case it has a rival in; the claim is supported when every reading holds, supported with caveats
when some do, and not supported when none does. A lead the claim states a figure for ("ahead by
more than 20%") must also reach it, read by the claim's quantifier. A lead against results of
other sizes says how it compares them (``measures``: whole-system, per-gpu). ``scope: history``
also sets the subject against the earlier-round figures the book has, and says which rounds it
lacks. A lead is judged within the division of the subject's result: Open and Closed results
are not compared.
"""

from __future__ import annotations

from claimbook.claims.drafting import Drafting, Superlative
from claimbook.claims.registry import Claim
from claimbook.engine import kinds
from claimbook.engine.core import Data
from claimbook.engine.kinds import multiple_unit
from claimbook.engine.kinds._leading_common import LeadCase, lead_bars
from claimbook.engine.kinds._leading_efficiency import (
    check_efficiency,
    efficiency_scatters,
    validate_efficiency,
)
from claimbook.engine.kinds._leading_result import (
    check_gpus,
    check_result,
    size_problems,
    validate_result,
    validate_scope,
)
from claimbook.engine.kinds._modes import Mode, Modes
from claimbook.engine.kinds.scaling import LARGE, SMALL, SUPERLINEAR_MARGIN

# Fields every metric takes: the subject, where to look, and what a part inherits from its parent.
SHARED = ("subject", "metric", "benchmark", "scenarios", "division")


def metric_of(claim: Claim) -> Mode | None:
    """The claim's metric (None for one the table has not: ``validate`` refuses it)."""
    name = claim.get("metric")
    return METRICS.get(name) if isinstance(name, str) else None


def one_per_case(claim: Claim) -> tuple[str, ...]:
    """A leadership claim takes one subject result per benchmark and scenario it names (its
    best, if it says so), or one scaling pair; a size record or a claim over all benchmarks
    takes the subject's best by definition."""
    metric = metric_of(claim)
    return metric.one_per_case(claim) if metric else ()


def validate(claim: Claim) -> None:
    metric = metric_of(claim)
    if metric is None:
        kinds.fail(claim, "metric", f"a leadership claim compares one of {', '.join(METRICS)}")
    if claim.claimed is not None:
        kinds.check_figures(claim)
        if isinstance(claim.claimed, dict):
            kinds.fail(claim, "claimed", "the figure of the lead, one number (x, or % with unit: %)")
        if multiple_unit(claim) not in ("x", "%"):
            kinds.fail(claim, "unit", "a lead is stated in x (times the next best) or % (ahead by)")
    metric.validate(claim)


def audit(claim: Claim, data: Data) -> list[str]:
    """A lead against results of other sizes that does not say how it compares them."""
    return size_problems(claim, data) if metric_of(claim) is METRICS["result"] else []


FIGURE = ("claimed", "unit", "quantifier", "cases", "within", "tolerance")
METRICS = Modes(
    metric_of,
    Mode(
        "result",
        "the subject's result against every other result of the field, as a whole system or per GPU",
        ("field", "measures", "scope", "units", *FIGURE),
        check_result,
        validate_result,
        lead_bars,
        one_per_case=lambda claim: ("subject",) if claim.get("benchmark") else (),
    ),
    Mode(
        "gpus",
        "the size of the subject's largest system against every other system",
        ("field", "scope", *FIGURE),
        check_gpus,
        validate_scope,
        lead_bars,
    ),
    Mode(
        "efficiency",
        "a scaling pair's efficiency against every other scaling pair, under each definition",
        ("small", "large", "definitions", "superlinear_margin"),
        check_efficiency,
        validate_efficiency,
        efficiency_scatters,
        one_per_case=lambda claim: ("small", "large"),
    ),
)
check, charts = METRICS.check, METRICS.charts  # a claim's are its metric's


def _of_metrics(item: kinds.Field) -> kinds.Field:
    """A field only some metrics take: its meaning says which, and a claim of another metric
    refuses it; a figure's quantifier fields only where the claim states a figure."""
    if item.name in SHARED:
        return item
    figure = "a claimed figure" if item.name in FIGURE and item.name != "claimed" else ""
    return METRICS.field(item, f"metric {' or '.join(METRICS.taking(item.name))}", figure)


# Proposed by ``draft`` for a superlative without a figure.
DRAFTING = Drafting(
    superlatives=(Superlative(20, (), "a superlative: the subject against the field"),),
    todos=("metric", "subject", "field"),
)


SPEC = kinds.KindSpec(
    name="leading",
    drafting=DRAFTING,
    description="a leadership or record claim (per system, per GPU, size, scaling efficiency)",
    required=(
        kinds.Field("subject", "a selector of the results of the system said to lead"),
        kinds.Field(
            "metric", "what the subject leads in", {name: metric.meaning for name, metric in METRICS.items()}
        ),
    ),
    optional=tuple(
        _of_metrics(item)
        for item in (
            kinds.Field(
                "field", "a selector of the results it is set against (every result of its division)"
            ),
            kinds.BENCHMARK,
            kinds.SCENARIOS,
            kinds.Field(
                "measures",
                "the readings of the lead; required where the field's results differ in size from the subject's",
                {"whole-system": "as a whole system", "per-gpu": "per GPU (throughput results only)"},
            ),
            kinds.Field(
                "scope",
                "how far back the lead is claimed",
                {"round": "this round only (the default)", "history": "the earlier rounds the book has too"},
            ),
            kinds.Field("units", "only results in these units (Tokens/s, Samples/s ...)"),
            kinds.Field(
                "definitions",
                'the readings of "leading" scaling: each a label and beyond_gpus: N or scale_out: true',
            ),
            SMALL,
            LARGE,
            SUPERLINEAR_MARGIN,
            kinds.DIVISION,
            kinds.Field(
                "claimed", 'the lead the claim states ("ahead by more than 20%"), read by its quantifier'
            ),
            kinds.Field(
                "unit",
                "how the lead is stated",
                {"x": "times the next best (the default)", "%": "ahead by, in percent"},
            ),
            *kinds.FIGURE_FIELDS,
        )
    ),
    example={
        "id": "acme-leads",
        "title": "The top result on DeepSeek-R1",
        "statement": "Acme's rack has the top DeepSeek-R1 result, as a whole system and per GPU.",
        "kind": "leading",
        "metric": "result",
        "subject": {"organization": "Acme", "system": "Acme-rack-x72"},
        "benchmark": "deepseek-r1",
        "measures": ["whole-system", "per-gpu"],
    },
    detail=LeadCase,
    selectors=("subject", "field", "small", "large"),
    one_per_case=("subject", "small", "large"),
    one_per_case_in=one_per_case,
    columns=(
        kinds.Column("Case", "label"),
        kinds.Column("The claim's", "detail.subject_value"),
        kinds.Column("Best other", "detail.next", missing="—"),
        kinds.Column("Its value", "detail.next_value"),
        kinds.Column("Units", "detail.units"),
        kinds.Column("Leads", "reaches", kinds.HOLDS),
    ),
    tables={
        "leaders": kinds.Table("The claim's best result and the best other result, case by case"),
        "largest_systems": kinds.Table("The largest systems in the round"),
        "pairs": kinds.Table("Pairs of results (first 40)", omit_suffix="location", head=40),
    },
    describe=lambda claim: f"of metric {claim.get('metric')}",
)
