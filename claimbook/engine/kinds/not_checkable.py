"""Kind ``not-checkable``: a statement no published MLPerf result can settle.

The claim's ``reason`` says why; ``evidence`` may name results that bear on it without settling
it (they are shown, and their caveats computed); a chapter may pass ``notes`` it computed (what
would settle the claim, e.g. a break-even price).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from claimbook.claims.registry import Claim
from claimbook.engine import kinds
from claimbook.engine.core import CaseDetail, Check, Data, cannot_check, select_for


@dataclass(frozen=True)
class NotCheckableCase(CaseDetail):
    """A statement no result settles has no cases: nothing to detail."""


INHERITED = "inherited from a parent claim; not read, since nothing is checked"
SPEC = kinds.KindSpec(
    name="not-checkable",
    description="a statement no published MLPerf result can settle",
    required=(kinds.Field("reason", "why no public data can check the claim"),),
    optional=(
        kinds.Field("evidence", "a selector of results that bear on the claim without settling it (shown)"),
        kinds.Field("claimed", "the figure the claim states (recorded, not checked)"),
        kinds.Field("unit", "the unit of the claimed figure, as the claim words it"),
        kinds.Field("benchmark", INHERITED),
        kinds.DIVISION,
        kinds.Field("subject", INHERITED),
        kinds.Field("baseline", INHERITED),
        kinds.Field("scenarios", INHERITED),
        kinds.Field("tolerance", INHERITED),
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
    columns=kinds.CASE_COLUMNS,
)


def validate(claim: Claim) -> None:
    if not str(claim.get("reason") or "").strip():
        kinds.fail(claim, "reason", "say why no public data can check the claim")


def check(claim: Claim, data: Data) -> Check:
    reason = " ".join(str(claim.get("reason")).split())
    rows, notes = None, ()
    if claim.get("evidence"):
        rows, why = select_for(data, claim, claim.get("evidence"), "evidence")
        if why:
            notes = (f"Results that bear on it: {why}",)
    return with_notes(cannot_check(claim, reason, rows=rows), notes)


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
