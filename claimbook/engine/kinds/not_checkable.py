"""Kind ``not-checkable``: a statement no published MLPerf result can settle.

The claim's ``reason`` says why; ``evidence`` may name results that bear on it without settling
it (they are shown, and their caveats computed; where it names benchmarks, the card says which
have none of those results); a chapter may pass ``notes`` it computed (what would settle the
claim, e.g. a break-even price).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from claimbook.claims.registry import Claim
from claimbook.claims.selectors import describe
from claimbook.common import formatting
from claimbook.engine import kinds
from claimbook.engine.core import CaseDetail, Check, Data, cannot_check, select_for


@dataclass(frozen=True)
class NotCheckableCase(CaseDetail):
    """A statement no result settles has no cases: nothing to detail."""


SPEC = kinds.KindSpec(
    name="not-checkable",
    description="a statement no published MLPerf result can settle",
    required=(kinds.Field("reason", "why no public data can check the claim"),),
    optional=(
        kinds.Field("evidence", "a selector of results that bear on the claim without settling it (shown)"),
        kinds.Field("claimed", "the figure the claim states (recorded, not checked)"),
        kinds.Field("unit", "the unit of the claimed figure, as the claim words it"),
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


def check(claim: Claim, data: Data) -> Check:
    reason = " ".join(str(claim.get("reason")).split())
    rows, notes, context = None, (), ()
    if claim.get("evidence"):
        rows, why = select_for(data, claim, claim.get("evidence"), "evidence")
        if why:
            notes = (f"Results that bear on it: {why}",)
        context = _by_benchmark(data, claim.get("evidence"), rows)
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
