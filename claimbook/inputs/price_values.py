"""What a price per GPU-hour may be, for the economics chapter's parameters (its price range,
its assumed prices): checked where a value is set, so this module imports no table library (the
command line reads it on every start)."""

from __future__ import annotations

import math

from claimbook.common.formatting import count

MAX_PRICE = 1e6  # USD per GPU-hour: far above any price, below what a chart's axis can show


def _is_price(value) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 < value < MAX_PRICE
    )


def assumed_prices_problem(assumed) -> str | None:
    """What is wrong with a chapter's assumed prices (None if nothing): a mapping of accelerator
    names to prices per GPU-hour, each above 0 and below ``MAX_PRICE``."""
    if assumed is None:
        return None
    if not isinstance(assumed, dict):
        return "assumed_prices: a mapping of accelerator names to prices per GPU-hour"
    for name, value in assumed.items():
        if value is not None and not _is_price(value):
            return (
                f"the assumed price for {str(name)[:80]} must be a positive number below "
                f"{count(int(MAX_PRICE))}, got {str(value)[:40]}"
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
        f"(0 < low < high < {count(int(MAX_PRICE))})"
    )
