"""What a claim's selectors leave out that its words may cover, computed from the rows: the same
company's joint submissions beside an organization a selector names (``Dell`` leaves out
``Dell_AMD`` and ``Dell_MangoBoost``), the systems that mix a family a selector names with
another (``AMD MI355X`` leaves out an ``MI300X + MI355X`` cluster), and a close second behind the
best result a selector combines to (``combine: best`` over a family). Each kind says what they would give, as context
on the card and in ``claimbook check``, never deciding."""

from __future__ import annotations

import re

import pandas as pd

from claimbook.claims.selectors import FIELDS, select, with_defaults
from claimbook.inputs.names import squash

CLOSE = 1.05  # a second within 5% of the best (the book's reading of "about") is close


def _tokens(organization: str) -> set[str]:
    return {squash(token) for token in re.split(r"[_+\s/&-]+", str(organization)) if token}


def _instead(data, claim, selector: dict, extra, field: str, values: list) -> pd.DataFrame:
    """The results the rest of ``selector`` (and ``extra``) takes with ``field`` in ``values``
    instead of what it names (none where ``values`` is empty)."""
    if not values:
        return data.results.iloc[:0]
    rest = {key: value for key, value in selector.items() if key in FIELDS or key == "exclude"}
    full = with_defaults(
        {**rest, **(extra or {}), field: values}, {"division": claim.get("division", "closed")}
    )
    return select(data.results, full).sort_values("location", kind="stable")


def joint_submissions(data, claim, selector: dict | None, extra: dict | None = None) -> pd.DataFrame:
    """The results of organizations whose names join one the selector names with another's
    (``Dell_MangoBoost`` for ``Dell``), which the rest of the selector (and ``extra``) would
    take: what an organization selector leaves out of the same company's submissions."""
    if not selector or "organization" not in selector or "sum" in selector:
        return data.results.iloc[:0]
    named = selector["organization"]
    wanted = {squash(name) for name in (named if isinstance(named, list) else [named])}
    joint = sorted(
        organization
        for organization in set(data.results["organization"].astype(str))
        if squash(organization) not in wanted and wanted & _tokens(organization)
    )
    return _instead(data, claim, selector, extra, "organization", joint)


def mixed_systems(data, claim, selector: dict | None, extra: dict | None = None) -> pd.DataFrame:
    """The results of systems whose accelerators mix a family the selector names with another
    (their family's short name lists it among others: "MI300X + MI355X"), which the rest of the
    selector (and ``extra``) would take: what a family selector leaves out."""
    if not selector or "family" not in selector or "sum" in selector:
        return data.results.iloc[:0]
    named = selector["family"]
    wanted = {
        squash(data.reference.short_name(name)) for name in (named if isinstance(named, list) else [named])
    }
    mixed = sorted(
        family
        for family in set(data.results["family"].astype(str))
        if "+" in data.reference.short_name(family)
        and wanted & {squash(part) for part in data.reference.short_name(family).split("+")}
    )
    return _instead(data, claim, selector, extra, "family", mixed)


def close_second(rows: pd.DataFrame, chosen: pd.Series | None) -> tuple[pd.Series, float] | None:
    """The best result of another system than ``chosen`` among ``rows``, and how many times better
    ``chosen`` is, where it is within 5% of it: a close second the best hides."""
    if chosen is None or rows is None or len(rows) < 2:
        return None
    others = rows[~(rows["organization"].eq(chosen["organization"]) & rows["system"].eq(chosen["system"]))]
    if others.empty:
        return None
    higher = bool(chosen["higher_is_better"])
    ordered = others.sort_values("location", kind="stable")
    second = ordered.loc[ordered["result"].idxmax() if higher else ordered["result"].idxmin()]
    margin = chosen["result"] / second["result"] if higher else second["result"] / chosen["result"]
    return (second, float(margin)) if margin <= CLOSE else None
