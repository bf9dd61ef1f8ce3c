"""The kinds of claim, one module each: the contract every kind module keeps.

A kind is ONE module in this package (``claimbook/engine/kinds/<kind>.py``, a name without a
leading underscore); the engine finds it here (``discover``), so adding a kind touches its module
and a test, nothing else. A module with a leading underscore is a kind's helper (its modes' work),
never a kind; a kind module stays under 700 lines. The module exports:

``SPEC``
    a ``KindSpec``: the kind's name (the registry's ``kind:``), a one-line description, its
    required and optional fields (each a ``claimbook.claims.fields.Field`` with a one-line meaning,
    and the allowed values with their meanings where a field is one of a few words), an example
    claim as a registry writes it, which fields are selectors and how they may combine, the
    case-detail class, the case-table columns and the captions of its context tables.
``validate(claim) -> None``
    the kind's own checks of a claim's fields, beyond what the engine checks from the spec
    (required fields present, every field used by the claim's form, mode and quantifier, selectors
    well formed, combine and sum where allowed); raise ``ClaimSpecError`` naming the field, with
    ``fail(claim, field, message)``.
``audit(claim, data) -> list[str]`` (optional)
    the registry errors only the data show (two sides of different sizes and no ``measure``),
    found before a build starts.
``check(claim, data) -> Check``
    one signature for every kind: whatever a kind needs comes from ``data`` (an
    ``engine.core.Data``) and the claim. Its cases are ``engine.core.Case``, each with a ``detail``
    of the kind's case-detail class (``SPEC.detail``, a frozen dataclass subclassing
    ``engine.core.CaseDetail``); it ends with ``core.finish(claim, core.Outcome(...))``. A kind
    that measures cases and judges them subclasses ``_skeleton.Measuring`` (the shared flow, once)
    and overrides its hooks: ``check = _Kind().check``.
``charts(check, data) -> list``
    the charts that show a check's verdict, as specs of the vocabulary below (``CaseBars``,
    ``ResultDots``, ``EfficiencyScatter``, ``RoundLines``, ``CountBars``, ``CandidateBars``):
    the engine may not import the presentation layer, so a kind says what to draw and
    ``present/claim_pages.py`` draws it with ``present/charts.py``. A new kind of chart is a new
    spec here and its renderer there.

The module's docstring is the method text its claims' pages show: say what the kind checks and
how, for a reader.

Rules of the house:

- A kind with modes (``ratio``'s forms, ``presence``'s modes, ``leading``'s metrics) keeps a table
  of them (``_ratio_forms.FORMS``: a row per form with its meaning, fields, checks, judgment,
  decision and chart line), never if-chains on the mode spread over functions; or it is one kind
  per mode. A field only some modes use says so (``Field.applies``, ``Field.needs``).
- Every figure is read through ``claimbook.engine.quantifiers`` (the claim's ``quantifier``,
  ``cases`` and ``within``; ``FIGURE_FIELDS`` declares them), never by a kind's own rule.
- The fields every claim may have (id, title, statement, note, acknowledges ...) are
  ``claimbook.claims.fields.COMMON``; a kind lists only its own. Fields and case-table columns
  several kinds share are here (``BENCHMARK``, ``SUBJECT``, ``TOLERANCE`` ..., ``CASE_COLUMNS``).
- Code outside a kind reads a case detail only through the attributes ``CaseDetail`` declares
  (``note``, ``cross_division``, the scorecard's comparison figures); a kind that has them
  declares them as fields of its dataclass.
- ``problems(module)`` lists what a module lacks of this contract; ``tests/unit/test_kinds_contract.py``
  runs it on every kind, validates each example and draws each kind's checks on the committed data.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import NoReturn

import pandas as pd

from claimbook.claims.drafting import Drafting
from claimbook.claims.fields import Field
from claimbook.common import formatting
from claimbook.engine import ambiguity, quantifiers
from claimbook.engine.core import Case, CaseDetail, ClaimSpecError, cannot_check, label_of, pick, select_for
from claimbook.inputs.schema import SCENARIOS as SCENARIO_NAMES

__all__ = [
    "Bar",
    "CandidateBars",
    "CaseBars",
    "Column",
    "CountBars",
    "EfficiencyScatter",
    "Field",
    "KindSpec",
    "ResultDots",
    "RoundLines",
    "Table",
    "discover",
    "fail",
    "problems",
]

# The case-table column a reader sees for a yes/no/none outcome.
HOLDS = {True: "yes", False: "no", None: "—"}


@dataclass(frozen=True)
class Column:
    """One column of a kind's case table: its heading and the attribute of the ``Case`` it shows
    (``label``, ``measured``, ``claimed``, ``reaches``, or ``detail.<name>`` of the case detail,
    a property included), its values shown through ``words`` where given, ``missing`` for none."""

    heading: str
    attribute: str
    words: dict | None = None
    missing: object = None


@dataclass(frozen=True)
class Table:
    """How a context table the check leaves in ``Check.tables[name]`` is shown: its caption, the
    columns kept in order and renamed ((heading, column) pairs; all when empty), the columns
    left out (by name, or ending with ``omit_suffix``), and at most ``head`` rows."""

    caption: str
    columns: tuple[tuple[str, str], ...] = ()
    omit: tuple[str, ...] = ()
    omit_suffix: str = ""
    head: int | None = None


@dataclass
class Findings:
    """What a kind's check gathers case by case before it decides, one type for every kind (a
    kind's own findings add their fields): the cases, the frames of the results they used, what
    a selector looked for where it found nothing, and what the card says besides."""

    cases: list = field(default_factory=list)
    used: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    sentences: list = field(default_factory=list)  # the reason, a sentence per case
    codes: set = field(default_factory=set)  # the caveats the cases imply
    notes: list = field(default_factory=list)  # the sentences behind them
    table: list = field(default_factory=list)  # the rows of the case table a page shows, a dict each
    context: list = field(default_factory=list)  # what the card says beside the verdict

    def measured(self) -> list:
        """The cases with a measured figure."""
        return [case for case in self.cases if case.measured is not None]

    def rows(self) -> pd.DataFrame:
        """Every result the cases used, in the order they used them."""
        return pd.concat(self.used) if self.used else pd.DataFrame()


def selected_subject(claim, data, absent: str):
    """The results a claim's subject selects; where it selects none, None and the check that
    says so (``absent``, then what the selector looked for)."""
    subject, why = select_for(data, claim, claim.get("subject"), "subject")
    if why:
        return None, cannot_check(claim, f"{absent}: {why}.", missing=[why])
    return subject, None


def looked_for(data, claim, role: str, **where) -> str | None:
    """What the selector of the claim's field ``role`` looked for in ``where`` (a benchmark, a
    scenario) where it found nothing (None where it found results)."""
    return select_for(data, claim, claim.get(role), role, where)[1]


# The unit of a claim that compares two figures (a ratio, a gain, a lead) where it writes none:
# a multiple ("2.5x"); "%" is its other unit.
MULTIPLE = "x"


def multiple_unit(claim) -> str:
    """The unit a comparing claim states its figure in: its ``unit``, a multiple by default."""
    return claim.get("unit", MULTIPLE)


def in_unit(ratio: float, unit: str) -> float:
    """A ratio in a comparing claim's unit: the multiple itself, or the lead in percent."""
    return ratio if unit == MULTIPLE else 100.0 * (ratio - 1.0)


def as_ratio(figure: float, unit: str) -> float:
    """A figure in a comparing claim's unit as the ratio it stands for (``in_unit`` undone)."""
    return figure if unit == MULTIPLE else 1.0 + figure / 100.0


def unmeasured(label: str, scenario: str, claimed, unit: str, detail: CaseDetail) -> Case:
    """A case with nothing measured (its ``detail`` says why), beside its claimed figure (a
    ``quantifiers.Figure``, a number or None)."""
    return Case(label, scenario, None, getattr(claimed, "value", claimed), unit, None, detail=detail)


def spread(cases, unit: str) -> str:
    """Each case's figure: "Offline 1.60x, Server 1.52x"."""
    return ", ".join(f"{case.label} {formatting.case_figure(case.measured, unit)}" for case in cases)


# What a subject's selector leaves out that its words may cover (``engine.ambiguity``): how to find
# those results, the selector's field that names them, and what they are.
LEFT_OUT = (
    (ambiguity.joint_submissions, "organization", "the same company's joint submissions"),
    (ambiguity.mixed_systems, "family", "systems that mix it with another accelerator"),
)


def left_out_note(selector: dict, named_by: str, what: str, figures: str) -> str:
    """The results of ``LEFT_OUT`` a subject's selector leaves out, with the figure each would give."""
    named = selector.get(named_by)
    named = ", ".join(named) if isinstance(named, list) else str(named)
    return f"The subject's {named_by} {named} leaves out {what} (shown, not judged): {figures}"


def would_hold(holds: bool | None) -> str:
    """Whether a result a claim leaves out would hold, after its figure ("" where none is judged)."""
    return "" if holds is None else (", would hold" if holds else ", would not hold")


def subject_results(claim, rows: pd.DataFrame, case: str) -> list:
    """The subject's results a case is judged on: each of them (in provenance order) for a subject
    that says ``combine: each``, else the one its selector takes (None where it has none)."""
    if (claim.get("subject") or {}).get("combine") == "each" and not rows.empty:
        return [row for _, row in rows.sort_values("location").iterrows()]
    return [pick(rows, claim.get("subject"), "subject", claim, case)]


def second_note(label: str, chosen, second, margin: float) -> str:
    """A close second behind the best result a subject's selector chose (``ambiguity.close_second``)."""
    return (
        f"In {label} the best of the subject's results, {label_of(chosen)}, is within "
        f"{formatting.percent(100.0 * (margin - 1.0))} of the next, {label_of(second)}"
    )


def check_figures(claim, **options) -> None:
    """The claim's quantifier fields as ``quantifiers.problem`` reads them (``options``): a
    problem is the error of its field."""
    problem = quantifiers.problem(claim, **options)
    if problem:
        fail(claim, *problem)


@dataclass(frozen=True)
class KindSpec:
    name: str  # the registry's ``kind:``
    description: str  # one line: what a claim of this kind states
    required: tuple[Field, ...]
    optional: tuple[Field, ...]
    example: dict  # a claim as a registry file writes it (id, title, statement, kind, fields)
    detail: type  # the case-detail dataclass (a CaseDetail) of the kind's cases
    selectors: tuple[str, ...] = ()  # fields the engine validates as selectors
    one_per_case: tuple[str, ...] = ()  # selectors that take one result per case (combine: best/each, sum)
    each: tuple[str, ...] = ()  # those that may say combine: each
    sums: tuple[str, ...] = ()  # those that may be a sum
    # The selectors that take one result per case in this claim, where it depends on the claim.
    one_per_case_in: Callable | None = None
    columns: tuple[Column, ...] = ()  # the case table a chapter shows (``claim_pages.case_table``)
    tables: dict[str, Table] = field(default_factory=dict)  # Check.tables the pages show, by name
    # The claim's form, mode and quantifier in words, for a field it does not use ("of form lead").
    describe: Callable | None = None
    # Whether a claim's results are only examples of what it counts (a count, a list of items),
    # not what its figures rest on: where announcements meet, such claims do not meet.
    examples_only: Callable | None = None
    # False for a kind that records a claim without checking it against results: a tool that
    # matches an announcement's figures to claims takes such a claim's statement as a whole.
    checked: bool = True
    # When ``claimbook draft`` proposes this kind for a sentence, and what it leaves to the
    # analyst (``claimbook.claims.drafting.Drafting``); None: never proposed.
    drafting: Drafting | None = None

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.required + self.optional

    def field(self, name: str) -> Field | None:
        return next((item for item in self.fields if item.name == name), None)

    def described(self, claim) -> str:
        return f" {self.describe(claim)}" if self.describe else ""

    def rests_on_rows(self, claim) -> bool:
        """Whether the claim's figures rest on the results it used (not only examples of them)."""
        return not (self.examples_only and self.examples_only(claim))

    def field_names(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.fields)

    def required_names(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.required)

    def optional_names(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.optional)

    def takes_one(self, claim) -> tuple[str, ...]:
        """The selectors of ``claim`` that take one result per case."""
        return self.one_per_case_in(claim) if self.one_per_case_in else self.one_per_case


# -- fields and columns many kinds share (a kind lists them in its spec like its own) ---------

BENCHMARK = Field(
    "benchmark", "the benchmark (or list of benchmarks) the claim is about, as the book names it"
)
SUBJECT = Field(
    "subject", "a selector of the results the claim is about (organization, system, family, gpus ...)"
)
SCENARIOS = Field("scenarios", "the scenarios the claim covers (default: every scenario the data has)")
CLAIMED = Field(
    "claimed",
    'the figure the claim states, as written ("2.90" keeps its precision): a number, or {scenario: number}',
)
TOLERANCE = Field(
    "tolerance",
    "how far below the claimed figure still holds, a fraction of it (0.01 is 1%)",
    applies=quantifiers.applies_tolerance,
    needs="quantifier up-to or exactly (the default)",
)
DIVISION = Field("division", "the division of the results used: closed (the default), open, or any")
QUANTIFIER = Field(
    "quantifier",
    "the vendor's word on the figure (exactly unless it says; the method page gives each rule)",
    {word: rule.meaning for word, rule in quantifiers.RULES.items()},
)
CASES = Field(
    "cases",
    "which cases must hold, said apart from the quantifier (the quantifier's own unless it says)",
    dict(quantifiers.CASES),
)
WITHIN = Field(
    "within",
    'the N of "within N%", a number of percent',
    applies=quantifiers.applies_within,
    needs="quantifier: within",
)
MEASURE = Field(
    "measure",
    "how two sides of different sizes (GPU counts) are compared; required when they differ",
    {"whole-system": "the systems' results as published", "per-gpu": "the results per GPU"},
)
MEASURES = ("whole-system", "per-gpu")


def measure_of(claim) -> str:
    """How a claim compares two sides of different sizes: its ``measure``, whole systems by default."""
    return claim.get("measure") or "whole-system"


def check_measure(claim) -> None:
    """A claim's ``measure``, where it writes one, is one of ``MEASURES``."""
    if claim.get("measure") is not None and claim.get("measure") not in MEASURES:
        fail(claim, "measure", f"how the two sides are compared: {' or '.join(MEASURES)}")


def used_only_by(item: Field, used, needs: str, with_figure: str = "") -> Field:
    """``item`` as a field only some claims of a kind use: ``used`` (the claim -> whether its form
    or mode uses it) and ``needs`` (those claims in words), its own condition (a quantifier's)
    kept; with ``with_figure`` (the figure in words, "a claimed count") only where the claim states
    one. Its meaning says which claims use it."""
    own = item.applies or (lambda claim: True)
    said = f"{needs} with {with_figure}" if with_figure else needs

    def applies(claim) -> bool:
        return bool(used(claim)) and (not with_figure or claim.claimed is not None) and bool(own(claim))

    return replace(
        item,
        meaning=f"{item.meaning} ({said})",
        applies=applies,
        needs=said + (f", {item.needs}" if item.needs else ""),
    )


# The quantifier fields of a kind that judges figures: the word, the cases, within and the tolerance.
FIGURE_FIELDS = (QUANTIFIER, CASES, WITHIN, TOLERANCE)


CASE_COLUMNS = (
    Column("Case", "label"),
    Column("Measured", "measured"),
    Column("Claimed", "claimed"),
    Column("Holds", "reaches", HOLDS),
    Column("Note", "detail.note", missing="—"),
)


def fail(claim, field_name: str, message: str) -> NoReturn:
    """Raise the error of a claim's field: ``<file>: claim <id>: field <field>: <message>``."""
    raise ClaimSpecError(f"{claim.where}: field {field_name}: {message}")


def check_scenario_figures(claim, named_only: bool = True) -> None:
    """A ``claimed`` of {scenario: number}: each a scenario the claim names (its ``scenarios``;
    ``named_only=False``: where it names none, any scenario), one number each. A figure for
    another scenario would never be read, and the claim judged without it."""
    claimed = claim.claimed
    if not isinstance(claimed, dict):
        return
    named = claim.get("scenarios") or (() if named_only else SCENARIO_NAMES)
    unknown = set(claimed) - set(named)
    if unknown:
        fail(
            claim,
            "claimed",
            f"figures for scenarios the claim does not name: {', '.join(sorted(map(str, unknown)))}",
        )
    if any(isinstance(value, dict) for value in claimed.values()):
        fail(claim, "claimed", "a number, or {scenario: number}")


# -- the charts a kind may ask for (rendered by present/claim_pages.py) ------------------------


@dataclass(frozen=True)
class Bar:
    """One bar of a ``CaseBars`` chart: a case, its measured and claimed figures, whether it
    holds (None: for context), and a word on what it compares."""

    case: str
    measured: float
    claimed: float | None
    reaches: bool | None
    detail: str = ""
    claimed_text: str = ""  # the claimed figure as the claim writes it ("18%"); "" : from ``claimed``


@dataclass(frozen=True, eq=False)
class CaseBars:
    """A bar per case (``charts.case_chart``), a dashed line at ``line`` labelled ``line_label``."""

    bars: tuple[Bar, ...]
    title: str
    description: str
    unit: str
    line: float | None = None
    line_label: str = "claimed"


@dataclass(frozen=True, eq=False)
class ResultDots:
    """Every result of ``rows`` as a dot (``charts.results_chart``) on ``value`` (a column),
    those at ``highlight`` (locations) drawn large, a dashed line at ``claimed``."""

    rows: pd.DataFrame
    value: str
    title: str
    description: str
    highlight: tuple = ()
    claimed: float | None = None


@dataclass(frozen=True, eq=False)
class EfficiencyScatter:
    """Scaling pairs' efficiency in one scenario (``charts.efficiency_chart``), the pairs at
    ``highlight`` ((small location, large location)) drawn large."""

    pairs: pd.DataFrame
    scenario: str
    title: str
    description: str
    highlight: tuple = ()


@dataclass(frozen=True, eq=False)
class RoundLines:
    """A system's result round to round, per scenario (``charts.rounds_chart``)."""

    gains: pd.DataFrame
    title: str
    description: str


@dataclass(frozen=True, eq=False)
class CountBars:
    """Counts per ``category`` (``charts.count_chart``)."""

    table: pd.DataFrame
    category: str
    title: str
    description: str


@dataclass(frozen=True, eq=False)
class CandidateBars:
    """The ratio against each candidate baseline in one scenario (``charts.candidates_chart``)."""

    table: pd.DataFrame
    scenario: str
    claimed: float
    direction: str  # "higher" or "lower": which way is better
    title: str
    description: str


CHARTS = (CaseBars, ResultDots, EfficiencyScatter, RoundLines, CountBars, CandidateBars)


# -- finding the kinds ----------------------------------------------------------------------


def modules(package: ModuleType) -> list[ModuleType]:
    """The kind modules of ``package``, by module name (a name with a leading underscore is not one)."""
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda item: item.name):
        if not info.name.startswith("_") and not info.ispkg:
            found.append(importlib.import_module(f"{package.__name__}.{info.name}"))
    return found


def discover(package: ModuleType | None = None) -> dict[str, ModuleType]:
    """Every kind module of ``package`` (this one by default) by its kind's name."""
    import sys

    found: dict[str, ModuleType] = {}
    for module in modules(package or sys.modules[__name__]):
        spec = spec_of(module)
        if spec.name in found:
            raise ValueError(f"{module.__name__}: kind {spec.name!r} is already {found[spec.name].__name__}")
        found[spec.name] = module
    return found


def spec_of(module: ModuleType) -> KindSpec:
    """A kind module's spec; a module of the package without one is a mistake, said by name."""
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, KindSpec):
        raise TypeError(f"{module.__name__}: no SPEC (a KindSpec); every module of the package is a kind")
    return spec


def problems(module: ModuleType) -> list[str]:
    """What a kind module lacks of the contract (nothing, for a complete one)."""
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, KindSpec):
        return [f"{module.__name__}: no SPEC (a KindSpec)"]
    found = []
    for name in ("validate", "check", "charts"):
        if not callable(getattr(module, name, None)):
            found.append(f"{module.__name__}: no function {name}")
    if not spec.description.strip() or "\n" in spec.description:
        found.append(f"{module.__name__}: the description is one line")
    for item in spec.fields:
        if not item.meaning.strip():
            found.append(f"{module.__name__}: field {item.name} has no meaning")
        found += [
            f"{module.__name__}: value {value!r} of field {item.name} has no meaning"
            for value, meaning in item.values.items()
            if not str(meaning).strip()
        ]
    names = spec.field_names()
    if len(set(names)) != len(names):
        found.append(f"{module.__name__}: a field is listed twice")
    for group in ("selectors", "one_per_case", "each", "sums"):
        found += [
            f"{module.__name__}: {group} names {name!r}, not a field"
            for name in getattr(spec, group)
            if name not in names
        ]
    if not (isinstance(spec.detail, type) and issubclass(spec.detail, CaseDetail)):
        found.append(f"{module.__name__}: the case detail is not a CaseDetail class")
    if spec.example.get("kind") != spec.name:
        found.append(f"{module.__name__}: the example is not a {spec.name} claim")
    if not (module.__doc__ or "").strip():
        found.append(f"{module.__name__}: no docstring (the method text its pages show)")
    return found
