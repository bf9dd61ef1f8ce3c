"""Kind ``not-checkable``: a statement no published MLPerf result can settle.

The claim's ``reason`` says why; ``evidence`` may name results that bear on it without settling
it (they are shown, and their caveats computed; where it names benchmarks, the card says which
have none of those results); a chapter may pass ``notes`` it computed (what would settle the
claim, e.g. a break-even price).

A claim whose baseline the book cannot have says what is missing in ``missing``: a result of a
round the book holds no results of (``round``, and its ``result_id`` where the announcement names
one) or a figure never published (``published: false``). The card names it, with the rounds the
book holds, and shows what the book has as context: the published side's results (``evidence``)
and, where they are of several sizes on one benchmark and scenario, the ratios between those
sizes, never deciding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import pandas as pd

from claimbook.claims.drafting import Drafting, Proposal
from claimbook.claims.registry import Claim
from claimbook.claims.selectors import describe
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.core import CaseDetail, Check, Data, cannot_check, select_for
from claimbook.inputs.earlier import round_order

MISSING_KEYS = {
    "what": "what the claim needs, in words",
    "round": "the round of that result, where the book holds no results of it (v5.0 ...)",
    "result_id": "its result ID, where the announcement names one",
    "published": "false: the figure was never published",
}


@dataclass(frozen=True)
class NotCheckableCase(CaseDetail):
    """A statement no result settles has no cases: nothing to detail."""


# What a figure may be said of that no MLPerf result measures: a GPU's memory, a price, the
# ease of deploying it ("1.3x the memory capacity", "twice as easy to deploy"). Not "capacity"
# or "density" alone: "twice the serving capacity" is a throughput.
_UNMEASURED = re.compile(
    r"\b(?:memory|bandwidth|HBM|prices?|costs?|TCO|dollars?|cheaper|easy|easier|satisfaction"
    r"|footprint|floor space)\b",
    re.IGNORECASE,
)
UNMEASURED_REACH = 40  # the characters after a figure read for what it is said of


def _said_of_the_unmeasured(statement, figure) -> bool:
    """Whether the words right after the figure make it a figure of what no result measures."""
    if figure is None:
        return False
    after = statement.text[
        figure.start + len(figure.written) : figure.start + len(figure.written) + UNMEASURED_REACH
    ]
    return _UNMEASURED.search(after) is not None


# Proposed by ``draft`` for a sentence that names nothing the results hold, or a figure of what
# they do not measure.
DRAFTING = Drafting(
    proposals=(
        Proposal(
            10,
            lambda s, f: not (s.benchmarks or s.families or s.organizations),
            "it names no benchmark, accelerator or submitter of the results",
        ),
        Proposal(
            15,
            _said_of_the_unmeasured,
            "its figure is of what MLPerf does not measure (memory, a price)",
        ),
    ),
    todos=("reason",),
)


SPEC = kinds.KindSpec(
    name="not-checkable",
    drafting=DRAFTING,
    description="a statement no published MLPerf result can settle",
    required=(kinds.Field("reason", "why no public data can check the claim"),),
    optional=(
        kinds.Field("evidence", "a selector of results that bear on the claim without settling it (shown)"),
        kinds.Field("claimed", "the figure the claim states (recorded, not checked)"),
        kinds.Field("unit", "the unit of the claimed figure, as the claim words it"),
        kinds.Field(
            "missing",
            "what the claim needs that the book cannot have: {what, round, result_id} (a round it lacks) "
            "or {what, published: false} (never published); the card names it",
        ),
        kinds.DIVISION,
    ),
    example={
        "id": "acme-cost",
        "title": "A lower cost per token",
        "statement": "Acme's rack serves tokens at a third of the cost of its predecessor.",
        "kind": "not-checkable",
        "reason": "MLPerf publishes no prices; the cost of a token rests on prices the announcement does not give.",
    },
    detail=NotCheckableCase,
    selectors=("evidence",),
    # Its evidence bears on the claim without settling it: no figure of the claim rests on it.
    examples_only=lambda claim: True,
    checked=False,
    columns=kinds.CASE_COLUMNS,
)


def validate(claim: Claim) -> None:
    if not str(claim.get("reason") or "").strip():
        kinds.fail(claim, "reason", "say why no public data can check the claim")
    missing = claim.get("missing")
    if missing is None:
        return
    if not isinstance(missing, dict) or not str(missing.get("what") or "").strip():
        kinds.fail(claim, "missing", "a mapping that says `what` the claim needs")
    unknown = sorted(set(missing) - set(MISSING_KEYS))
    if unknown:
        kinds.fail(claim, "missing", f"unknown key {unknown[0]!r}; use {', '.join(MISSING_KEYS)}")
    if ("round" in missing) == (missing.get("published") is False):
        kinds.fail(claim, "missing", "give either `round` (a round the book lacks) or `published: false`")
    if "published" in missing and missing["published"] is not False:
        kinds.fail(claim, "missing", "`published` can only be false (a figure never published)")
    if "result_id" in missing and "round" not in missing:
        kinds.fail(claim, "missing", "a `result_id` belongs to a `round`")


def audit(claim: Claim, data: Data) -> list[str]:
    """A claim that says a round is missing when the book holds that round is wrong on these
    data: it should be judged on that round's results."""
    missing = claim.get("missing") or {}
    if "round" in missing and str(missing["round"]) in rounds_held(data):
        return [
            f"{claim.where}: field missing: the book holds the results of {missing['round']}; judge the claim on them"
        ]
    return []


def rounds_held(data: Data) -> list[str]:
    """The rounds the book holds in full: the results' round and the earlier rounds it has an
    official summary of, in order."""
    held = set(data.results["round"].astype(str)) if "round" in data.results else set()
    earlier = data.earlier
    if earlier is not None and not earlier.empty and "source_type" in earlier:
        held |= set(earlier[earlier["source_type"] == "mlperf-summary"]["round"].astype(str))
    return sorted(held, key=round_order)


def missing_sentence(claim: Claim, data: Data) -> str:
    """What the claim needs and the book cannot have, in one sentence."""
    missing = claim.get("missing") or {}
    what = " ".join(str(missing.get("what")).split())
    if missing.get("published") is False:
        return f"It needs {what}, which is not published: no MLPerf result has it."
    held = rounds_held(data)
    named = f" ({missing['result_id']})" if missing.get("result_id") else ""
    return (
        f"It needs {what}{named}, a result of {missing['round']}: the book holds no results of "
        f"{missing['round']}, only of {', '.join(held) or 'no round'}."
    )


def check(claim: Claim, data: Data) -> Check:
    reason = " ".join(str(claim.get("reason")).split())
    if claim.get("missing"):
        reason = f"{missing_sentence(claim, data)} {reason}"
    rows, notes, context = None, (), ()
    if claim.get("evidence"):
        rows, why = select_for(data, claim, claim.get("evidence"), "evidence")
        if why:
            notes = (f"Results that bear on it: {why}",)
        context = _by_benchmark(data, claim.get("evidence"), rows)
        if claim.get("missing"):
            context = context + between_sizes(data, rows)
    # Results that bear on a claim without settling it are what was submitted: their category and
    # division qualify them, not how a figure was measured (no figure of theirs is judged).
    codes = ("preview", "rdi", "open-division")
    return with_notes(cannot_check(claim, reason, rows=rows, context=context, row_codes=codes), notes)


def _by_benchmark(data: Data, evidence: dict, rows) -> tuple[str, ...]:
    """Where the evidence names benchmarks: how many of its results each has, and which have none
    (nothing published there for the claim to stand on)."""
    named = evidence.get("benchmark")
    if not named:
        return ()
    named = [named] if isinstance(named, str) else list(named)
    counts = {
        name: 0 if rows is None or rows.empty else int((rows["benchmark"] == name).sum()) for name in named
    }
    whose = describe({key: value for key, value in evidence.items() if key != "benchmark"}) or "any submitter"
    found = [
        f"{formatting.plural(count, 'result')} on {data.reference.display_name(name)}"
        for name, count in counts.items()
        if count
    ]
    none = [data.reference.display_name(name) for name, count in counts.items() if not count]
    return (
        f"Of the published results that bear on it ({whose}): "
        + "; ".join(
            found
            + ([f"none on {', '.join(none)}, so no published result of theirs exists there"] if none else [])
        ),
    )


def between_sizes(data: Data, rows) -> tuple[str, ...]:
    """Where the published results are of several system sizes on one benchmark and scenario:
    each larger one as a multiple of the smallest (derived by this book), as context only."""
    if rows is None or rows.empty:
        return ()
    lines = []
    for (benchmark, scenario), group in rows.groupby(["benchmark", "scenario"], sort=True):
        best = _best_per_size(group)
        if len(best) < 2:
            continue
        smallest = best.iloc[0]
        base, higher = smallest.result, bool(smallest.higher_is_better)
        multiples = [
            f"{formatting.count(int(row.total_accelerators))} GPUs give "
            f"{formatting.times(row.result / base if higher else base / row.result)}"
            for row in best.iloc[1:].itertuples()
        ]
        lines.append(
            f"Between the published sizes on {data.reference.display_name(benchmark)} {scenario} "
            f"(derived by this book, not deciding): {'; '.join(multiples)} the "
            f"{formatting.count(int(smallest.total_accelerators))}-GPU result."
        )
    return tuple(lines)


def _best_per_size(group: pd.DataFrame) -> pd.DataFrame:
    """The best result of each system size, smallest size first."""
    higher = bool(group["higher_is_better"].iloc[0])
    ordered = group.sort_values(
        ["total_accelerators", "result", "location"], ascending=[True, not higher, True]
    )
    return ordered.drop_duplicates("total_accelerators").reset_index(drop=True)


def with_notes(check: Check, notes) -> Check:
    """The check with ``notes`` a chapter computed (what would settle the claim, e.g. a
    break-even price) before its own; each a sentence ending with its full stop, so none runs
    into the next."""
    if not notes:
        return check
    sentences = tuple(note if note.rstrip().endswith(".") else note.rstrip() + "." for note in notes)
    return replace(check, notes=sentences + check.notes)


def charts(check, data: Data) -> list:
    """No figure to draw: the page says why it has no chart."""
    return []
