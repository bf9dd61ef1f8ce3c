"""Chapter parameters whose values have rules beyond their kind, checked where a value is set
(``data/chapters.yaml``, ``--param``), so that a page never fails on one after the build began."""

from __future__ import annotations

from claimbook.inputs.price_values import assumed_prices_problem, price_range_problem


def _pricing_kind_problem(value) -> str | None:
    """A pricing of the price table is text (which the price table has is checked as it is read)."""
    if isinstance(value, str) and value.strip():
        return None
    return f"the pricing of the price table to use, as text (on-demand, spot ...), not {str(value)[:80]!r}"


def _system_problem(value) -> str | None:
    if isinstance(value, dict) and all(
        isinstance(value.get(key), str) and value[key].strip() for key in ("organization", "system")
    ):
        return None
    return f"a system, {{organization: ..., system: ...}}, not {str(value)[:80]!r}"


RULES = {
    "price_range": price_range_problem,
    "assumed_prices": assumed_prices_problem,
    "pricing_kind": _pricing_kind_problem,
    "new_system": _system_problem,
    "baseline_system": _system_problem,
}


def parameter_problem(name: str, value) -> str | None:
    """What is wrong with ``value`` as the chapter parameter ``name`` (None if nothing, or if the
    parameter has no rule of its own)."""
    rule = RULES.get(name)
    return rule(value) if rule is not None else None
