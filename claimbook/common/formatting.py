"""How the book words every number it prints: one function per kind of number, and its house rule.

Ratios and speedups have two decimals and an "x" ("1.70x"); a gap is a signed percentage with
one decimal ("+12.3%", "-41.1%"), and a gap that rounds to zero has no sign ("0.0%"); a figure in
prose has three significant digits, a published result four, both with thousands separated;
a figure a claim states is written as the claim states it ("3.7x"); prices have two decimals and
their currency; a count agrees with its noun ("1 result", "3 results"). A missing value (None,
NaN, infinity, pandas' NA) prints as an em dash wherever a number would be.

Every number of the book's pages, of the scorecard's reasons and of the commands' output is
worded here, and no other module gives a number a format of its own (tests/unit/test_formatting.py
checks the source), so a rule changes in one place. Only the charts' tooltips and axes are
formatted apart, by Vega in the browser (present/charts.py).
"""

from __future__ import annotations

import math

MISSING = "—"

# Units that count things: "1 result", "4 categories", whichever form the registry names.
_COUNTED = {
    "result": "results",
    "partner": "partners",
    "GPU": "GPUs",
    "category": "categories",
    "vendor": "vendors",
    "family": "families",
    "organization": "organizations",
    "system": "systems",
    "benchmark": "benchmarks",
}
_COUNT_FORMS = {
    **{singular: (singular, many) for singular, many in _COUNTED.items()},
    **{many: (singular, many) for singular, many in _COUNTED.items()},
}


def is_missing(value) -> bool:
    """Whether a value has no number to print: None, NaN, an infinity or pandas' NA."""
    if value is None:
        return True
    try:
        return not math.isfinite(value)
    except TypeError:  # pandas.NA refuses to be a real number; text is not a number either
        return type(value).__name__ == "NAType"


def _with_unit(text: str, unit: str) -> str:
    """A number and its unit: "%" and "x" stick to the number ("3.7x"), a word follows a space."""
    return text + ("" if unit in ("%", "x", "") else " ") + unit


def with_article(noun: str) -> str:
    """ "a ratio", "an unnamed-baseline": the indefinite article a noun (a kind's name) takes."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def count(value: int) -> str:
    """A whole number of things, thousands separated: "7", "1,234"."""
    return f"{value:,}"


def plural(value: int, singular: str, plural_form: str | None = None) -> str:
    """A count with its noun, which agrees with it: "1 result", "3 results", "1,024 GPUs";
    ``plural_form`` where adding "s" is wrong ("benchmarks and scenarios")."""
    return f"{count(value)} {singular if value == 1 else (plural_form or singular + 's')}"


def times(value: float | None) -> str:
    """A ratio or a speedup, two decimals and no separators: "1.70x", "0.65x", "1234.50x"."""
    if is_missing(value):
        return MISSING
    return f"{float(value):.2f}x"


def signed_percent(value: float | None, decimals: int = 1) -> str:
    """A gap or a change as a signed percentage: "+12.3%", "-41.1%"; a gap that rounds to zero
    has no sign ("0.0%", "0.00%"), and one of 1,000% or more is in whole percent ("+1,234%")."""
    if is_missing(value):
        return MISSING
    text = f"{float(value):+.{decimals}f}%"
    if abs(float(text[:-1])) >= 1000:
        return f"{float(value):+,.0f}%"
    return text[1:] if float(text[:-1]) == 0 else text


def percent(value: float | None, decimals: int = 1) -> str:
    """A share or the size of a gap, without a sign of its own: "12.3%", "-0.5%" keeps its minus."""
    if is_missing(value):
        return MISSING
    return f"{float(value):.{decimals}f}%"


def points(value: float, decimals: int | None = None) -> str:
    """A distance in percentage points: "1 point", "0.5 points", at ``decimals`` "0.42 points"."""
    text = f"{value:g}" if decimals is None else f"{value:.{decimals}f}"
    return f"{text} point{'' if text == '1' else 's'}"


def stated(value: float, unit: str = "", decimals: int | None = None) -> str:
    """A figure as a claim or a rule states it, no digit added or lost: "3.7x", "99%", "0.65",
    "12198.8", "5.7 s"; with the ``decimals`` it is written with, its trailing zeros too
    ("2.90x")."""
    if decimals:
        return _with_unit(f"{value:.{decimals}f}", unit)
    return _with_unit(f"{value:g}", unit)


def quantity(value: float | None, unit: str = "") -> str:
    """A measured figure in prose: three significant digits, whole numbers from 100 (one decimal
    for a percentage below 1,000), thousands separated; a counted unit agrees with its number
    ("1 result", "3 categories"): "0.655 samples/s", "98.7%", "12,345 tokens/s"."""
    if is_missing(value):
        return MISSING
    if unit in _COUNT_FORMS:
        unit = _COUNT_FORMS[unit][0 if value == 1 else 1]
    if abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.1f}" if unit == "%" else f"{value:.0f}"
    else:
        text = f"{value:.3g}"
    return _with_unit(text, unit)


def beside_claimed(value: float | None, decimals: int | None, unit: str = "") -> str:
    """A measured figure set beside a claimed one stated with ``decimals`` decimals, so that a
    reader sees it round to the claim: two decimals more than the claim's below 100 (0.6546, not
    0.655 beside a claimed 0.65), the claim's own above (16,194.40, not 16,194 beside 16,194.40);
    as ``quantity`` beside a whole claimed figure."""
    if is_missing(value) or not decimals:
        return quantity(value, unit)
    if unit in _COUNT_FORMS:
        unit = _COUNT_FORMS[unit][0 if value == 1 else 1]
    shown = int(decimals) + (2 if abs(value) < 100 else 0)
    return _with_unit(f"{value:,.{shown}f}", unit)


def significant(value: float | None, digits: int, unit: str = "") -> str:
    """A figure to ``digits`` significant digits, thousands separated, its unit after a space:
    the precision of a chart's label (4) or tooltip (6) and of a diff (4)."""
    if is_missing(value):
        return MISSING
    return f"{value:,.{digits}g} {unit}".strip()


def plain(value: float | None, digits: int = 6) -> str:
    """A figure to ``digits`` significant digits, thousands separated, never in scientific
    notation and without trailing zeros: 13030 -> "13,030", 1306.61 -> "1,306.61", 0.0346 -> "0.0346"."""
    if is_missing(value):
        return MISSING
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value))) + 1
    decimals = max(0, digits - magnitude)
    text = f"{round(value, decimals):,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def data_value(value: float) -> str:
    """A figure in the data behind a chart: six significant digits and no separators, as data."""
    if is_missing(value):
        return MISSING
    return f"{value:.6g}"


def short_unit(units: str) -> str:
    """The unit of a value, from the summary's units: "Latency (s)" is "s", "Tokens/s" stays."""
    units = str(units)
    if units.endswith(")") and "(" in units:
        return units[units.rindex("(") + 1 : -1]
    return units


def result(value: float, units: str) -> str:
    """A published result in prose, in its short unit: four significant digits below 1,000
    ("27.38 s"), the prose figure's rule above ("12,345 Tokens/s")."""
    unit = short_unit(units)
    if abs(value) >= 1000:
        return quantity(value, unit)
    return _with_unit(f"{value:.4g}", unit)


def case_figure(value: float | None, unit: str) -> str:
    """A case's measured figure in its unit: a ratio "1.70x", a gap "+12.3%", anything else
    four significant digits with its unit ("5.81 s")."""
    if unit == "%":
        return signed_percent(value)
    if unit == "x":
        return times(value)
    return significant(value, 4, unit)


def gain(speedup: float, change: float, metric: str, higher_is_better: bool) -> str:
    """A gain as readers expect it: on a lower-is-better metric, the speedup and the signed change
    of the metric ("1.70x as fast, latency -41.1%"); on a throughput, the speedup alone."""
    if higher_is_better:
        return times(speedup)
    return f"{times(speedup)} as fast, {metric} {signed_percent(change)}"


def seconds(value: float) -> str:
    """A duration, to a tenth of a second: "12.3 s"."""
    return f"{value:.1f} s"


def usd(value: float) -> str:
    """A price in US dollars, to the cent: "10.50 USD"."""
    return f"{value:.2f} USD"


def table_number(value, decimals: int | None = None) -> str:
    """A number in a table cell: an integer or a whole figure from 1 as it is ("1,234,567"),
    thousands separated; from 1,000 no decimals, from 100 one, below 100 three significant
    digits ("0.655"); ``decimals`` fixes them (prices); a flag is "yes" or "no"."""
    if is_missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return count(value)
    value = float(value)
    if decimals is not None:
        return f"{value:,.{decimals}f}"
    if value.is_integer() and abs(value) >= 1:
        return f"{value:,.0f}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    return f"{value:.3g}"
