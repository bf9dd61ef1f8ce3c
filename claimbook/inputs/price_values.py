"""What a price per GPU-hour may be, for the economics chapter's parameters (its price range,
its assumed prices): checked where a value is set, so this module imports no table library (the
command line reads it on every start)."""

from __future__ import annotations

import math

from claimbook.common.formatting import count

MAX_PRICE = 1e6  # USD per GPU-hour: far above any price, below what a chart's axis can show
MIN_PRICE = 0.01  # a cent: the precision prices are shown at (a lower one would read 0.00 USD)


def _is_price(value) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and MIN_PRICE <= value < MAX_PRICE
    )


def assumed_prices_problem(assumed) -> str | None:
    """What is wrong with a chapter's assumed prices (None if nothing): a mapping of accelerator
    names to prices per GPU-hour, each from ``MIN_PRICE`` to below ``MAX_PRICE``."""
    if not isinstance(assumed, dict):
        return "assumed_prices: a mapping of accelerator names to prices per GPU-hour (may be empty: {})"
    for name, value in assumed.items():
        if not _is_price(value):
            return (
                f"the assumed price for {str(name)[:80]} must be a number from {MIN_PRICE} to "
                f"{count(int(MAX_PRICE))} USD per GPU-hour, got {_shown(value)}"
            )
    return None


def price_range_problem(price_range) -> str | None:
    """What is wrong with a break-even chart's price range (None if nothing): two prices per
    GPU-hour, the lowest and the highest."""
    if (
        isinstance(price_range, (list, tuple))
        and len(price_range) == 2
        and all(_is_price(value) for value in price_range)
        and price_range[0] < price_range[1]
    ):
        return None
    return (
        f"price_range {str(price_range)[:80]}: two prices per GPU-hour, the lowest and the highest "
        f"({MIN_PRICE} <= low < high < {count(int(MAX_PRICE))})"
        + _text_hint(price_range if isinstance(price_range, (list, tuple)) else [price_range])
    )


def _shown(value) -> str:
    return ("null" if value is None else str(value)[:40]) + _text_hint([value])


def _text_hint(values) -> str:
    """Why a price written as 5e3 was not read as one: YAML reads it as text."""
    for value in values:
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                continue
            return f" ({value[:20]!r} is text: YAML reads a number with an exponent only with a dot, 5.0e+3)"
    return ""
