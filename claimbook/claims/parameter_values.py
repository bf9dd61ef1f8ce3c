"""Chapter parameters whose values have rules beyond their kind, checked where a value is set
(``data/chapters.yaml``, ``--param``), so that a page never fails on one after the build began."""

from __future__ import annotations

from claimbook.inputs.price_values import assumed_prices_problem, price_range_problem

RULES = {"price_range": price_range_problem, "assumed_prices": assumed_prices_problem}


def parameter_problem(name: str, value) -> str | None:
    """What is wrong with ``value`` as the chapter parameter ``name`` (None if nothing, or if the
    parameter has no rule of its own)."""
    rule = RULES.get(name)
    return rule(value) if rule is not None else None
