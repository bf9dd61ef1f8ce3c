"""Kind ``not-checkable``: a statement no published MLPerf result can settle.

The claim's ``reason`` says why; ``evidence`` may name results that bear on it without settling
it (they are shown, and their caveats computed); a chapter may pass ``notes`` it computed (what
would settle the claim, e.g. a break-even price).
"""

from __future__ import annotations

from dataclasses import replace

from claimbook.claims.registry import Claim
from claimbook.engine.core import Data, cannot_check, select_for

KIND = "not-checkable"
DESCRIPTION = "a statement no published MLPerf result can settle"
REQUIRED = ("reason",)
OPTIONAL = (
    "evidence",
    "claimed",
    "unit",
    "benchmark",
    "division",
    "subject",
    "baseline",
    "scenarios",
    "tolerance",
)
SELECTORS = ("evidence",)
# Selectors that take one result per case (several need combine: best / each, or a sum),
# those that may say combine: each, and those that may be a sum.
ONE_PER_CASE = ()
EACH = ()
SUMS = ()


def validate(claim: Claim, fail) -> None:
    if not str(claim.get("reason") or "").strip():
        fail("reason", "say why no public data can check the claim")


def check(claim: Claim, data: Data, notes=()):
    reason = " ".join(str(claim.get("reason")).split())
    rows = None
    if claim.get("evidence"):
        rows, why = select_for(data, claim, claim.get("evidence"), "evidence")
        if why:
            notes = (*notes, f"Results that bear on it: {why}")
    check_result = cannot_check(claim, reason, rows=rows)
    if notes:
        # Notes are sentences: each ends with its full stop, so none runs into the next.
        sentences = tuple(note if note.rstrip().endswith(".") else note.rstrip() + "." for note in notes)
        check_result = replace(check_result, notes=sentences + check_result.notes)
    return check_result
