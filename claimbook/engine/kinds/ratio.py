"""Kind ``ratio``: one system (or set of results) against another, scenario by scenario.

Forms: ``figure`` (the claimed figure of each case, read by the claim's quantifier: "up to
3.7x" is ``quantifier: up-to``, the best case reaching it; a plain figure is the published ratio
at its precision), ``lead`` (the subject ahead in every case, beyond ``tie_within`` percent if
given), ``outcomes`` (lead / tie / trail expected per case; a tie is within ``tie_within``
percent, the claim's own definition) and ``counterparts`` (every subject result against its own
counterpart, the best baseline result sharing ``match_on``, read by the quantifier against the
claimed figure or parity: "within a few percent" is ``quantifier: a-few-percent``). Two sides of
different sizes are compared only as the claim says (``measure``). A baseline that names
``prefer: {organization: X}`` is X's own result where X has one, else the best result of the
class by anyone else (X's "best partner"). When the baseline belongs to another vendor than the
claimant, the claim is also judged against the best result of the baseline's class by any
submitter; a claim that holds only as stated is flagged. A case that sets results of different
divisions against each other is shown but not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from claimbook.claims.drafting import Drafting, Proposal
from claimbook.claims.registry import Claim
from claimbook.claims.selectors import select
from claimbook.claims.selectors import validate as validate_selector
from claimbook.common import formatting
from claimbook.engine import ambiguity, kinds, quantifiers
from claimbook.engine.compare import metric_change
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Data,
    across_divisions,
    benchmarks_of,
    best_row,
    cannot_check,
    chosen,
    each_label,
    label_of,
    pick,
    rows_of,
    scenarios_of,
    select_for,
    sizes_differ,
    where,
)
from claimbook.engine.kinds import _ratio_context as ratio_context
from claimbook.engine.kinds import multiple_unit
from claimbook.engine.kinds._ratio_forms import FORMS, RENAMED, form_of, target
from claimbook.engine.kinds._skeleton import Comparing, missing_said
from claimbook.engine.verdict import SUPPORTED
from claimbook.inputs.schema import SCENARIOS as SCENARIO_NAMES
from claimbook.inputs.schema import TIDY_COLUMNS


@dataclass(frozen=True)
class RatioCase(CaseDetail):
    """One comparison: the results on both sides, how the baseline was chosen, and the figures a
    reader expects beside the ratio (per GPU, per watt, against the best of the baseline's class
    and the best rival at the claimant's size); for a case with nothing to measure, why."""

    note: str = ""
    cross_division: bool = False
    baseline: str = ""  # the baseline result, "NVIDIA ... (8 GPUs)"
    baseline_chosen: str = ""  # named, own, or best partner (the claim's ``prefer`` rule)
    subject_result: float | None = None
    baseline_result: float | None = None
    units: str = ""
    metric: str = ""
    higher_is_better: bool | None = None
    metric_change: float | None = None  # the metric's own signed change, in percent
    subject_gpus: int | None = None
    baseline_gpus: int | None = None
    expected: str | None = None  # an outcomes ratio's expected lead, tie or trail
    inferred_against_measured: str | None = None  # the side whose result is inferred
    per_gpu_ratio: float | None = None
    per_watt_ratio: float | None = None
    best_class: str | None = None  # the baseline's class in words
    best_any: str | None = None  # the best result of that class by any submitter
    measured_vs_best_any: float | None = None
    best_rival: str | None = None  # the best other vendor's result at the claimant's size
    best_rival_family: str | None = None
    best_rival_is_baseline: bool = False
    vs_best_rival: float | None = None
    judgment: object = None  # the quantifier's judgment of the case (quantifiers.Judgment)
    claimed_text: str = ""  # the claimed figure as written ("0.970x")
    sides = True  # a subject set against a baseline (where announcements meet, a rival's)

    @property
    def compared(self) -> str:
        return self.baseline or self.note


ONE_PER_CASE = ("subject", "baseline")


def _one_per_case(claim: Claim) -> tuple[str, ...]:
    """A ratio takes one subject and one baseline result per case; ``counterparts`` takes every
    subject result, each against its own counterpart (the best baseline result that matches it)."""
    form = form_of(claim)
    return () if form is not None and form.counterparts else ONE_PER_CASE


def _form_field(item: kinds.Field) -> kinds.Field:
    """A field only some forms use: its meaning says which, and a claim of another form refuses it."""
    forms = [name for name, form in FORMS.items() if item.name in form.fields]
    return kinds.used_only_by(
        item,
        lambda claim: form_of(claim) is not None and item.name in form_of(claim).fields,
        f"form {' or '.join(forms)}",
    )


def _described(claim: Claim) -> str:
    text = f"of form {claim.get('form')}"
    if form_of(claim) is not None and "quantifier" in form_of(claim).fields:
        text += f" with quantifier {quantifiers.read(claim).word}"
    return text


_LEAD_WORDS = re.compile(r"\b(?:lead|leads|ahead|faster|higher|better|more|lower|beats?)\b", re.IGNORECASE)


def _sides_from_text(statement, results) -> dict:
    from claimbook.claims.draft import sides_from_text  # (only ``draft`` reads text)

    return sides_from_text(statement, results)


# Proposed by ``draft`` for results within a bound of others, a multiple, or a lead in percent;
# the sides are filled where the text settles them (``draft.sides_from_text``).
DRAFTING = Drafting(
    proposals=(
        Proposal(
            40,
            lambda s, f: f.quantifier in (quantifiers.WITHIN, quantifiers.A_FEW_PERCENT),
            "results within a bound of others: a ratio, form within",
        ),
        Proposal(50, lambda s, f: f.unit == "x", "a multiple between two systems' results"),
        Proposal(60, lambda s, f: f.unit == "%" and bool(_LEAD_WORDS.search(s.text)), "a lead in percent"),
    ),
    todos=("subject", "baseline"),
    # A stated multiple or lead is read as its figure (form figure: the claim's quantifier on
    # it); the analyst changes the form for a lead with no figure, or outcomes.
    fill=lambda s, f, results: {"form": "figure", **_sides_from_text(s, results)},
)


SPEC = kinds.KindSpec(
    name="ratio",
    drafting=DRAFTING,
    description="a ratio between two systems (or sets of results), scenario by scenario",
    required=(
        kinds.BENCHMARK,
        kinds.SUBJECT,
        kinds.Field(
            "baseline", "a selector of the results compared with, or a list of selectors with a label each"
        ),
        kinds.Field("form", "how the ratio is judged", {name: form.meaning for name, form in FORMS.items()}),
    ),
    optional=(
        kinds.SCENARIOS,
        _form_field(
            kinds.Field(
                "claimed",
                'the claimed ratio, as written ("2.90" keeps its precision): a number, {scenario: number} '
                "or {baseline label: {scenario: number}}",
            )
        ),
        *(_form_field(item) for item in kinds.FIGURE_FIELDS),
        kinds.Field(
            "unit", "how the ratio is stated", {"x": "times (the default)", "%": "a lead in percent"}
        ),
        kinds.Field(
            "prefer", "whose result the baseline is: its own best, else the best partner's (a selector)"
        ),
        _form_field(
            kinds.Field("outcomes", "the expected outcome: {baseline label: {scenario: lead, tie or trail}}")
        ),
        _form_field(
            kinds.Field("tie_within", "the claim's own definition of a tie, in percent (a lead must beat it)")
        ),
        _form_field(
            kinds.Field("match_on", "what a result and its counterpart share (family, gpus, system ...)")
        ),
        kinds.MEASURE,
        kinds.DIVISION,
        kinds.Field(
            "only_where_both", "only the cases with results on both sides count (where a comparison exists)"
        ),
    ),
    example={
        "id": "acme-ratio",
        "title": "Up to 2x the baseline",
        "statement": "Acme's system delivers up to twice the throughput of Other's on gpt-oss-120b.",
        "kind": "ratio",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme", "system": "Acme-B300"},
        "baseline": {"organization": "Other", "system": "Other-H200"},
        "form": "figure",
        "quantifier": "up-to",
        "claimed": 2.0,
        "unit": "x",
    },
    detail=RatioCase,
    selectors=("subject",),
    one_per_case=ONE_PER_CASE,
    each=("subject",),
    sums=("subject", "baseline"),
    one_per_case_in=_one_per_case,
    columns=(
        *kinds.CASE_COLUMNS[:4],
        kinds.Column("Compared with", "detail.compared", missing="—"),
        kinds.Column("Baseline chosen as", "detail.baseline_chosen"),
    ),
    tables={
        "comparisons": kinds.Table(
            "Each comparison: the results on both sides, and the best of the baseline's class by any submitter",
            (
                ("Case", "case"),
                ("Claim's result", "subject"),
                ("Its result", "subject_result"),
                ("Compared with", "baseline"),
                ("Their result", "baseline_result"),
                ("Units", "units"),
                ("Baseline chosen as", "chosen_as"),
                ("Measured", "measured"),
                ("Claimed", "claimed"),
                ("Baseline's class", "class"),
                ("Best of that class by any submitter", "best_of_class"),
                ("Measured against it", "measured_vs_best_of_class"),
            ),
        )
    },
    describe=_described,
)


def validate(claim: Claim) -> None:
    form = form_of(claim)
    if form is None:
        renamed = RENAMED.get(str(claim.get("form")))
        kinds.fail(
            claim,
            "form",
            f"unknown form {claim.get('form')!r}; a ratio is one of {', '.join(FORMS)}"
            + (f" (say {renamed})" if renamed else ""),
        )
    form.check(claim)
    if multiple_unit(claim) not in ("x", "%"):
        kinds.fail(claim, "unit", "a ratio is in x (times) or % (lead in percent)")
    tie = claim.get("tie_within")
    if tie is not None and (isinstance(tie, bool) or not isinstance(tie, (int, float)) or not tie >= 0):
        kinds.fail(claim, "tie_within", f"the gap that is still a tie, a number of percent, not {tie!r}")
    _check_claimed_keys(claim)
    kinds.check_measure(claim)
    for label, selector in _baselines(claim):
        validate_selector(dict(selector), f"{claim.where}: field baseline.{label}")
    if claim.get("prefer") is not None:
        validate_selector(claim.get("prefer"), f"{claim.where}: field prefer")
    shared = claim.get("match_on")
    if shared is not None and not (
        isinstance(shared, list) and shared and set(map(str, shared)) <= MATCHABLE
    ):
        kinds.fail(
            claim,
            "match_on",
            f"a list of what a result and its counterpart share: {', '.join(sorted(MATCHABLE))}",
        )


def _check_claimed_keys(claim: Claim) -> None:
    """A ``claimed`` mapping's keys are the scenarios the claim names (any scenario where it names
    none) or its baselines' labels, each label's own mapping of scenarios: a figure under another
    key ("Ofline") would never be read, and the claim judged without it."""
    claimed = claim.claimed
    if not isinstance(claimed, dict):
        return
    scenarios = claim.get("scenarios") or SCENARIO_NAMES
    labels = {label for label, _ in _baselines(claim)} - {"baseline"}
    for key, value in claimed.items():
        if key in labels and isinstance(value, dict):
            unknown = [str(name) for name in value if name not in scenarios]
            where = f"claimed.{key}"
        else:
            unknown = [] if key in scenarios or key in labels else [str(key)]
            where = "claimed"
        if unknown:
            kinds.fail(
                claim,
                where,
                f"a figure for {', '.join(unknown)}, which is not a scenario the claim names"
                f" ({', '.join(scenarios)}){' or a baseline of it' if labels else ''}",
            )


# What a counterpart may share with a subject result (``match_on``): a result's own columns, and
# ``gpus`` (its accelerators in all).
MATCHABLE = {*TIDY_COLUMNS, "family", "vendor", "form_factor", "benchmark", "gpus"} - {
    "result",
    "location",
    "per_accelerator",
}


def _baselines(claim: Claim) -> list[tuple[str, dict]]:
    """(label, selector) of each baseline: one mapping, or a list with a ``label`` each."""
    baseline = claim.get("baseline")
    if isinstance(baseline, dict):
        return [("baseline", baseline)]
    if isinstance(baseline, list):
        found = []
        for index, entry in enumerate(baseline):
            if not isinstance(entry, dict) or not entry.get("label"):
                raise ValueError(f"{claim.where}: field baseline[{index}]: each baseline needs a label")
            found.append((str(entry["label"]), {k: v for k, v in entry.items() if k != "label"}))
        return found
    raise ValueError(f"{claim.where}: field baseline: expected a selector or a list of labelled selectors")


def _choose(
    rows: pd.DataFrame, prefer: dict | None, selector=None, role="baseline", claim=None, case=""
) -> tuple[pd.Series | None, str]:
    """The baseline result of a case, and how it was chosen: the claim's ``prefer`` rule (its own
    best, else the best partner's), or the one result its selector names."""
    if prefer:
        own = select(rows, prefer)  # (a selector, read as every selector is: gpus, family ...)
        if not own.empty:
            return best_row(own), "own"
        return best_row(rows.drop(own.index)), "best partner"
    if claim is None:
        return best_row(rows), "named"
    return pick(rows, selector, role, claim, case), "named"


def _counterpart(claim: Claim, row: pd.Series, base: pd.DataFrame) -> pd.DataFrame:
    """The baseline results that share ``match_on`` with a subject result (never itself)."""
    mask = (base["location"] != row["location"]).to_numpy(dtype=bool, copy=True)
    for key in list(claim.get("match_on") or []):
        column = {"gpus": "total_accelerators"}.get(key, key)
        mask &= (base[column] == row[column]).to_numpy(dtype=bool)
    return base[mask]


def _pairs(claim: Claim, subject: pd.DataFrame, baseline: Baseline, benchmark: str, scenario: str, found):
    """The (subject, baseline, how chosen) pairs of one case; several subjects for a form that
    takes counterparts and for a subject that says ``combine: each``."""
    prefer = claim.get("prefer")
    subject_rows = where(subject, benchmark=benchmark, scenario=scenario)
    base = where(baseline.rows, benchmark=benchmark, scenario=scenario)
    if form_of(claim).counterparts:
        pairs = []
        for _, row in subject_rows.sort_values("location").iterrows():
            pairs.append((row, *_choose(_counterpart(claim, row, base), prefer)))
            if pairs[-1][1] is None:
                found.left_out.append((label_of(row), f"{benchmark} {scenario}"))
        return pairs
    case = f"{benchmark} {scenario}"
    role = "baseline" if baseline.label == "baseline" else f"baseline {baseline.label}"
    chosen_base = _choose(base, prefer, baseline.selector, role, claim, case)
    picked = kinds.subject_results(claim, subject_rows, case)  # (a close second behind the one taken)
    second = ambiguity.close_second(subject_rows, picked[0]) if len(picked) == 1 else None
    if second is not None:
        found.context.append(kinds.second_note(case, picked[0], *second))
    return [(row, *chosen_base) for row in picked]


@dataclass(frozen=True)
class Baseline:
    """One baseline of a ratio claim: its label and selector, its results, and its class."""

    label: str
    selector: dict
    rows: pd.DataFrame
    class_rows: pd.DataFrame  # every result of the baseline's class, by any submitter
    class_name: str
    rival: bool  # another vendor's than the claimant's


@dataclass
class Found(kinds.Findings):
    """What a ratio check gathers, baseline by baseline, before it decides."""

    rivals: list = field(default_factory=list)  # (case label, holds against the best of the class, it)
    left_out: list = field(default_factory=list)  # (subject result, case) without a counterpart
    beside: list = field(default_factory=list)  # the notes on what the subject's selector leaves out


def _baselines_in(claim: Claim, data: Data, found: Found):
    """The claim's baselines in the data (one the data lack noted missing), each selected only
    once the one before it was compared: a registry error is the first the claim's order meets."""
    for label, selector in _baselines(claim):
        base_rows, base_missing = select_for(data, claim, selector, f"baseline {label}")
        if base_missing:
            found.missing.append(base_missing)
            continue
        class_selector = ratio_context.class_selector(selector, base_rows)
        class_rows, _ = select_for(data, claim, class_selector, f"class of baseline {label}")
        vendor = data.announcement(claim).vendor
        rival = bool(set(base_rows["vendor"]) - {vendor})
        yield Baseline(
            label, selector, base_rows, class_rows, ratio_context.class_name(class_selector), rival
        )


def _each_pair(claim: Claim, subject: pd.DataFrame, baselines, found: Found):
    """Every pair of the claim, baseline by baseline, benchmark by benchmark and scenario by
    scenario: (baseline, benchmark, scenario, (subject result, baseline result, how chosen))."""
    for baseline in baselines:
        for benchmark in benchmarks_of(claim):
            in_benchmark = subject[subject["benchmark"] == benchmark]
            for scenario in scenarios_of(claim, in_benchmark["scenario"]):
                for pair in _pairs(claim, subject, baseline, benchmark, scenario, found):
                    yield baseline, benchmark, scenario, pair


def audit(claim: Claim, data: Data) -> list[str]:
    """The registry errors a ratio makes on these data: two sides of different sizes compared
    without saying how (``measure``)."""
    if claim.get("measure") is not None:
        return []
    subject, missing = select_for(data, claim, claim.get("subject"), "subject")
    if missing:
        return []
    found = Found()
    for _, benchmark, scenario, (subject_row, base_row, _) in _each_pair(
        claim, subject, _baselines_in(claim, data, found), found
    ):
        problem = _size_problem(claim, subject_row, base_row, f"{benchmark} {scenario}")
        if problem is not None:
            return [str(problem)]
    return []


def _size_problem(claim: Claim, subject_row, base_row, case: str):
    """The error of a pair of different sizes the claim does not say how to compare (or None)."""
    if claim.get("measure") is not None or subject_row is None or base_row is None:
        return None
    if int(subject_row["total_accelerators"]) == int(base_row["total_accelerators"]):
        return None
    return sizes_differ(claim, "measure", case, f"{label_of(subject_row)} against {label_of(base_row)}")


def _compare(claim: Claim, data: Data, subject: pd.DataFrame, baselines: list, found: Found) -> None:
    """The cases of the baselines, benchmark by benchmark and scenario by scenario."""
    for baseline, benchmark, scenario, pair in _each_pair(claim, subject, baselines, found):
        subject_row, base_row, _ = pair
        case_label = scenario if baseline.label == "baseline" else f"{baseline.label} · {scenario}"
        if len(benchmarks_of(claim)) > 1:
            case_label = f"{data.reference.display_name(benchmark)} · {case_label}"
        why = _not_measured(claim, subject_row, base_row)
        if why == _ONE_SIDE:  # (left out where the claim takes only cases with both sides)
            if bool(claim.get("only_where_both")) or form_of(claim).counterparts:
                continue
            why = f"no result of {'the subject' if subject_row is None else baseline.label} in {scenario}"
        if why:
            found.cases.append(
                kinds.unmeasured(case_label, scenario, None, multiple_unit(claim), RatioCase(note=why))
            )
            continue
        problem = _size_problem(claim, subject_row, base_row, f"{benchmark} {scenario}")
        if problem is not None:
            raise problem
        if form_of(claim).counterparts or (claim.get("subject") or {}).get("combine") == "each":
            case_label = each_label(
                case_label, subject_row, where(subject, benchmark=benchmark, scenario=scenario)
            )
        _measure_case(claim, data, baseline, case_label, scenario, pair, found)


def _beside(claim: Claim, joint: pd.DataFrame, baseline: Baseline) -> list[str]:
    """Results the subject's selector leaves out that its words may cover (the same company's
    joint submissions, systems mixing its family with another): the figure each would give
    against the baseline (its counterpart), judged as the claim would, to be shown."""
    unit, found = multiple_unit(claim), []
    for benchmark, scenario in sorted(set(zip(joint["benchmark"], joint["scenario"]))):
        if scenario not in scenarios_of(claim, [scenario]):
            continue
        rows = where(joint, benchmark=benchmark, scenario=scenario)
        base = where(baseline.rows, benchmark=benchmark, scenario=scenario)
        for _, row in rows.iterrows():
            chosen_base = _counterpart(claim, row, base) if form_of(claim).counterparts else base
            base_row, _ = _choose(chosen_base, claim.get("prefer"))
            if _not_measured(claim, row, base_row):
                continue
            ratio = ratio_context.ratio_of(row, base_row, kinds.measure_of(claim))
            measured = kinds.in_unit(ratio, unit)
            _, holds, _ = form_of(claim).judge(claim, measured, ratio, baseline.label, scenario)
            found.append(
                f"{label_of(row)} {benchmark} {scenario} {formatting.case_figure(measured, unit)}"
                + kinds.would_hold(holds)
            )
    return found


_ONE_SIDE = "one side missing"


def _not_measured(claim: Claim, subject_row, base_row) -> str:
    """Why a pair has no ratio ("" where it has one): a side missing, two units, or (per GPU) a
    result without GPUs."""
    if subject_row is None or base_row is None:
        return _ONE_SIDE
    if subject_row["units"] != base_row["units"]:
        return f"different units ({subject_row['units']} and {base_row['units']})"
    if ratio_context.ratio_of(subject_row, base_row, kinds.measure_of(claim)) is None:
        return "a result without GPUs: no per-GPU figure"
    return ""


def _measure_case(
    claim: Claim, data: Data, baseline: Baseline, label: str, scenario: str, pair: tuple, found
) -> None:
    """One measured case, of a pair (subject result, baseline result, how the baseline was chosen):
    the ratio judged under the claim's form, against the best of the baseline's class too, with
    the figures a reader expects beside it."""
    subject_row, base_row, how = pair
    unit = multiple_unit(claim)
    ratio = ratio_context.ratio_of(subject_row, base_row, kinds.measure_of(claim))
    measured = kinds.in_unit(ratio, unit)
    claimed, holds, judgment = form_of(claim).judge(claim, measured, ratio, baseline.label, scenario)
    crossed = across_divisions(subject_row["division"], base_row["division"])
    if crossed:
        holds = judgment = None
    best_any, against_best = _best_of_class(claim, baseline, label, scenario, subject_row, found)
    vendor = data.announcement(claim).vendor
    rival = baseline.rival and not form_of(claim).counterparts  # (the best rival of a rival's baseline)
    detail = RatioCase(
        cross_division=crossed,
        baseline=label_of(base_row),
        baseline_chosen=how,
        **_side_by_side(subject_row, base_row),
        expected=(claim.get("outcomes") or {}).get(baseline.label, {}).get(scenario),
        best_class=baseline.class_name,
        best_any=None if best_any is None else label_of(best_any),
        measured_vs_best_any=against_best,
        judgment=judgment,
        claimed_text=_written(claim, baseline.label, scenario),
        **(ratio_context.rival_fields(data, vendor, subject_row, base_row) if rival else {}),
    )
    evidence = (subject_row["location"], base_row["location"])
    selected = chosen("subject", subject_row) + chosen("baseline", base_row)
    found.cases.append(
        Case(label, scenario, measured, claimed, unit, holds, evidence, selected=selected, detail=detail)
    )
    found.used.append(pd.DataFrame([subject_row, base_row]))
    found.table.append(ratio_context.comparison(label, subject_row, base_row, how, detail, measured, claimed))


def _side_by_side(subject_row: pd.Series, base_row: pd.Series) -> dict:
    """What the two results of a case say side by side, as fields of its ``RatioCase``: their
    figures, units and sizes, and the per-GPU and per-watt ratios a reader expects beside it."""
    higher = bool(subject_row["higher_is_better"])
    return {
        "subject_result": float(subject_row["result"]),
        "baseline_result": float(base_row["result"]),
        "units": str(subject_row["units"]),
        "metric": str(subject_row["metric"]),
        "higher_is_better": higher,
        "metric_change": metric_change(subject_row["result"], base_row["result"]),
        "subject_gpus": int(subject_row["total_accelerators"]),
        "baseline_gpus": int(base_row["total_accelerators"]),
        "inferred_against_measured": ratio_context.inferred_side(subject_row, base_row),
        "per_gpu_ratio": ratio_context.ratio_of(subject_row, base_row, "per-gpu") if higher else None,
        "per_watt_ratio": ratio_context.per_watt_ratio(subject_row, base_row),
    }


def _written(claim: Claim, label: str, scenario: str) -> str:
    """The claimed figure of a case as the claim writes it (its precision kept), or nothing."""
    if "claimed" not in form_of(claim).fields:
        return ""
    figure = target(claim, label, scenario)
    return "" if figure is None else figure.text(multiple_unit(claim))


def _best_of_class(claim: Claim, baseline: Baseline, label: str, scenario: str, subject_row, found: Found):
    """The best result of the baseline's class by any submitter in the case, and the ratio
    against it; where the baseline is a rival's, whether the claim holds against it too.
    (A form that takes counterparts compares each result with its own: no best of the class.)"""
    form = form_of(claim)
    if form.counterparts:
        return None, None
    rows = where(baseline.class_rows, benchmark=subject_row["benchmark"], scenario=scenario)
    best_any = best_row(rows[(rows["location"] != subject_row["location"]).to_numpy(dtype=bool)])
    if best_any is None:
        return None, None
    best_ratio = ratio_context.ratio_of(subject_row, best_any, kinds.measure_of(claim))
    if best_ratio is None:  # the best of the class has no GPUs to count per GPU
        return best_any, None
    against_best = kinds.in_unit(best_ratio, multiple_unit(claim))
    if baseline.rival:
        _, best_holds, _ = form.judge(claim, against_best, best_ratio, baseline.label, scenario)
        found.rivals.append((label, best_holds, best_any))
    return best_any, against_best


class _Ratio(Comparing):
    findings = Found
    absent = "The results the claim is about are not in the data"

    def gather(self, claim: Claim, data: Data, subject, found) -> None:
        where = {"benchmark": benchmarks_of(claim)}
        left_out = [
            (finder(data, claim, claim.get("subject"), where), named_by, what, [])
            for finder, named_by, what in kinds.LEFT_OUT
        ]
        for baseline in _baselines_in(claim, data, found):  # each compared before the next is selected
            _compare(claim, data, subject, [baseline], found)
            for rows, _, _, figures in left_out:
                figures += _beside(claim, rows, baseline)
        for _, named_by, what, figures in left_out:
            if figures:
                note = kinds.left_out_note(claim.get("subject") or {}, named_by, what, "; ".join(figures))
                found.beside.append(note)

    def tables(self, claim: Claim, found) -> dict:
        return {"comparisons": pd.DataFrame(found.table)}

    def rows(self, found) -> pd.DataFrame:
        return rows_of(found.used)

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict):
        reason = "No case has results on both sides" + missing_said(found) + "."
        return cannot_check(claim, reason, missing=found.missing, tables=tables, rows=self.rows(found))

    def caveats(self, claim: Claim, data: Data, found, judged: list) -> tuple[set, list]:
        # Sizes, power, missing cases: the caveats and notes a comparison's rows imply.
        return ratio_context.caveats_of(claim, data, found, judged)

    def spread(self, claim: Claim, judged: list) -> str:
        return kinds.spread([case for case in judged if case.detail.cross_division], self.unit(claim))

    def judge(self, claim: Claim, found, judged: list, codes: set, notes: list) -> tuple[str, str, str]:
        """The claim's form decides; a claim that holds is judged against the rivals' best too."""
        unit = self.unit(claim)
        verdict, reason, deciding = form_of(claim).decide(claim, unit, judged, codes)
        if verdict == SUPPORTED and found.rivals:
            ratio_context.against_rivals(found.rivals, judged, unit, codes, notes)
        return verdict, reason, deciding

    def context(self, claim: Claim, data: Data, found, judged: list, verdict: str) -> list:
        unit = self.unit(claim)
        left_out = ratio_context.left_out_note(found.left_out, list(claim.get("match_on") or []))
        return [
            *_read_sentence(claim, judged, unit),
            *ratio_context.context_notes(judged, unit, kinds.measure_of(claim)),
            *found.context,
            *([left_out] if left_out else []),
            *found.beside,
        ]


def _read_sentence(claim: Claim, cases: list[Case], unit: str) -> list[str]:
    """How the book reads the claim's figures, in words (the forms that judge a figure)."""
    if "tie_within" in form_of(claim).fields and claim.get("tie_within") is not None and cases:
        return [quantifiers.band_sentence(quantifiers.STATED_BAND)]  # "a tie meaning within 3%"
    if "quantifier" not in form_of(claim).fields or not cases:
        return []
    return [quantifiers.read(claim).sentence(quantifiers.figures_in(claim.claimed), unit)]


check = _Ratio().check


def charts(check, data: Data) -> list:
    """A bar per measured case, a dashed line where the claim's form puts its figure."""
    bars = tuple(
        kinds.Bar(
            case.label,
            case.measured,
            case.claimed,
            case.reaches,
            str(case.detail.compared),
            case.detail.claimed_text,
        )
        for case in check.cases
        if case.measured is not None
    )
    if not bars:
        return []
    unit = check.claim.unit or "x"
    line, label = form_of(check.claim).line(check.claim, unit)
    return [
        kinds.CaseBars(
            bars,
            check.claim.get("title") or check.claim.statement,
            f"Bar chart of the measured {'ratio' if unit == 'x' else 'lead in percent'} in each case "
            f"of the claim {check.claim.id}; a dashed line marks the {label} figure.",
            unit,
            line,
            label,
        )
    ]
