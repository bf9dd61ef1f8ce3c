"""Kind ``presence``: a count or a presence ("19 partners", "Nebius also submitted", "the only
submitter", "first results", "results span four kinds of benchmark").

Modes, by the fields a claim sets:
- ``count``: the distinct values of a field (organization, family, vendor, category) among the
  rows of ``rows``; with ``named`` (a list, or a mapping of the announcement's names to the
  data's organizations) every named item must be present, and ``claimed`` is the count;
  ``definitions`` are other readings of the count, shown beside it.
- ``only``: the distinct values must be exactly those listed.
- ``items``: each item (a label and a selector, optionally a ``framework`` or ``weights``
  pattern the rows must state) must be present; with ``holds_if: any`` (a claim that names no
  item of its own, such as a benchmark) one item that holds is enough, and the others are shown.
- ``rows`` alone: at least one result must exist; ``detail`` patterns name what the claim says
  about them (a software name, a number format, a system size).
- ``pairs``: pairs of results of one benchmark and scenario whose GPU counts and throughputs
  fit a description ("nearly double the GPUs for a single-digit gain": ``nearly: 2`` takes the
  book's reading of "nearly", or ``gpu_ratio: [low, high]``).
``history: true`` adds the earlier rounds the book has ("the first"). A selection, an item or a
named value that finds no result is *cannot be checked*, never *not supported*: the data cannot
tell a result never submitted from one published under another name. A claimed count is read by
the claim's quantifier ("19 partners" exactly, "more than 15" ...). A presence is about what was
submitted, so the caveats it takes from its results are their category and division, not how a
figure was measured (an *inferred* result is still a result).
"""

from __future__ import annotations

from claimbook.claims.drafting import Drafting, Proposal, Superlative
from claimbook.claims.registry import Claim
from claimbook.engine import kinds
from claimbook.engine.kinds._modes import Mode, Modes
from claimbook.engine.kinds._presence_common import COUNTED, PresenceCase, count_bars, no_charts, result_dots
from claimbook.engine.kinds._presence_counts import check_count, check_only, validate_counted
from claimbook.engine.kinds._presence_items import check_items, check_rows, validate_items, validate_rows
from claimbook.engine.kinds._presence_pairs import check_pairs, validate_pairs

# Fields every mode takes: where the results are looked for.
SHARED = ("division",)
# The fields that read a claimed count (mode count, with a claimed figure).
FIGURE = ("quantifier", "cases", "within", "tolerance")


def mode_of(claim: Claim) -> Mode:
    """The mode a claim's fields choose (``validate`` refuses a claim whose fields choose two)."""
    chosen = _chosen(claim)
    return chosen[0] if chosen else FALLBACK


def _chosen(claim: Claim) -> list[Mode]:
    """The modes whose choosing field the claim sets, less one whose field another of them takes
    (``only`` takes ``count``, the field whose values it lists)."""
    set_by = [mode for mode in MODES.values() if mode.chosen_by and claim.get(mode.chosen_by) is not None]
    return [
        mode
        for mode in set_by
        if not any(mode.chosen_by in other.fields for other in set_by if other is not mode)
    ]


def validate(claim: Claim) -> None:
    chosen = _chosen(claim)
    if len(chosen) > 1:
        kinds.fail(
            claim,
            chosen[1].chosen_by,
            f"a presence claim is of one mode ({', '.join(MODES)}); {chosen[0].chosen_by} and "
            f"{chosen[1].chosen_by} choose two ({chosen[0].name}, {chosen[1].name})",
        )
    if claim.claimed is not None:
        kinds.check_figures(claim)
    mode_of(claim).validate(claim)


MODES = Modes(
    mode_of,
    Mode(
        "count",
        "the distinct values of a field among the rows, against the claimed count and the names given",
        ("count", "rows", "named", "claimed", "unit", "definitions", "detail", *FIGURE),
        check_count,
        validate_counted,
        count_bars,
        chosen_by="count",
    ),
    Mode(
        "only",
        "the distinct values of a field (count, organization by default) are exactly those listed",
        ("only", "count", "rows", "detail"),
        check_only,
        validate_counted,
        count_bars,
        chosen_by="only",
    ),
    Mode(
        "items",
        "each item (a label and a selector) is present; with holds_if: any, one is enough",
        ("items", "holds_if", "detail"),
        check_items,
        validate_items,
        no_charts,
        chosen_by="items",
    ),
    Mode(
        "pairs",
        "pairs of results whose GPU counts and gain fit a description",
        ("pairs", "rows"),
        check_pairs,
        validate_pairs,
        no_charts,
        chosen_by="pairs",
    ),
    Mode(
        "rows",
        "at least one such result exists; detail names what the claim says of them",
        ("rows", "detail", "history"),
        check_rows,
        validate_rows,
        result_dots,
    ),
)
FALLBACK = MODES["rows"]
check, charts = MODES.check, MODES.charts  # a claim's are its mode's


def _of_modes(item: kinds.Field) -> kinds.Field:
    """A field only some modes take: its meaning says which, and a claim of another mode refuses
    it; the quantifier fields only where the claim states a count."""
    if item.name in SHARED:
        return item
    takes = MODES.taking(item.name)
    needs = f"mode{'s' if len(takes) > 1 else ''} {', '.join(takes)}"
    return MODES.field(item, needs, "a claimed count" if item.name in FIGURE else "")


_COUNTS = (
    "partners",
    "submitters",
    "submissions",
    "results",
    "entries",
    "systems",
    "benchmarks",
    "rounds",
    "GPUs",
)
# Proposed by ``draft`` for a count of what the results hold, and for a sentence that says
# something is the first or the only one.
DRAFTING = Drafting(
    proposals=(Proposal(70, lambda s, f: f.unit in _COUNTS, "a count of what the results hold"),),
    superlatives=(
        Superlative(
            10, ("first", "only"), "says something is the first or the only one: what the results hold"
        ),
    ),
    todos=("rows",),
)


SPEC = kinds.KindSpec(
    name="presence",
    drafting=DRAFTING,
    description="a count or a presence (partners, submitters, kinds of benchmark, pairs of results)",
    required=(),
    optional=tuple(
        _of_modes(item)
        for item in (
            kinds.Field("rows", "a selector of the results the claim is about"),
            kinds.Field(
                "count", "the field whose distinct values are counted (or listed, with only)", COUNTED
            ),
            kinds.Field(
                "named", "the names the claim gives: a list, or {announcement's name: data's value or values}"
            ),
            kinds.Field(
                "claimed", "the claimed count, read by the claim's quantifier (exactly unless it says)"
            ),
            kinds.Field("unit", "the noun of the count, as the claim words it (partners)"),
            *kinds.FIGURE_FIELDS,
            kinds.Field("only", "the values the results must be on, exactly"),
            kinds.Field(
                "items",
                "what must each be present: a label and a selector, optionally a framework or weights pattern",
            ),
            kinds.Field(
                "definitions", "other readings of the count, each a label and a selector, shown beside it"
            ),
            kinds.Field(
                "detail",
                "what the claim says of the results: framework, weights, availability patterns, gpus, result_id",
            ),
            kinds.Field(
                "history",
                "true: no earlier round the book has may have such a result (a claim of being first)",
            ),
            kinds.Field(
                "pairs", "a description of pairs: nearly: N or gpu_ratio: [low, high], and gain_below_percent"
            ),
            kinds.DIVISION,
            kinds.Field(
                "holds_if",
                "how many items must hold",
                {
                    "all": "every item (the default)",
                    "any": "one is enough: a claim that names no item of its own",
                },
            ),
        )
    ),
    example={
        "id": "acme-partners",
        "title": "Three partners",
        "statement": "Three partners submitted results on Acme's accelerators.",
        "kind": "presence",
        "count": "organization",
        "rows": {"vendor": "NVIDIA", "exclude": {"organization": "Acme"}},
        "named": ["Alpha", "Beta", "Gamma"],
        "claimed": 3,
        "unit": "partners",
    },
    detail=PresenceCase,
    selectors=("rows",),
    columns=kinds.CASE_COLUMNS,
    tables={
        "found": kinds.Table("What the data has, counted"),
        "named": kinds.Table("Each name the claim gives, and the organizations it stands for in the data"),
        "definitions": kinds.Table("The count under each reading of the claim"),
        "pairs": kinds.Table("Pairs of results (first 40)", omit_suffix="location", head=40),
    },
    describe=lambda claim: f"of mode {mode_of(claim).name}",
    # A count or a list of items touches its results only as examples of what it counts.
    examples_only=lambda claim: mode_of(claim).name in ("count", "only", "items"),
)
