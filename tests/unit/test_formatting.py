"""The house rules for every number the book prints (claimbook.common.formatting)."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from claimbook.common import formatting as fmt

MISSING_VALUES = [None, float("nan"), float("inf"), -math.inf, np.nan, pd.NA]


@pytest.mark.parametrize("value", MISSING_VALUES, ids=repr)
def test_a_missing_value_is_a_dash_wherever_a_number_would_be(value):
    assert fmt.is_missing(value)
    for text in (
        fmt.times(value),
        fmt.signed_percent(value),
        fmt.percent(value),
        fmt.quantity(value, "s"),
        fmt.significant(value, 4, "s"),
        fmt.data_value(value),
        fmt.case_figure(value, "x"),
        fmt.case_figure(value, "%"),
        fmt.case_figure(value, "s"),
        fmt.table_number(value),
    ):
        assert text == "—"


@pytest.mark.parametrize("value", [0, 0.0, -1.5, 1e300, np.float64(2.5), np.int64(3), "text", True])
def test_numbers_and_text_are_not_missing(value):
    assert not fmt.is_missing(value)


def test_counts_agree_with_their_nouns():
    assert [fmt.plural(n, "result") for n in (0, 1, 2, 1234)] == [
        "0 results",
        "1 result",
        "2 results",
        "1,234 results",
    ]
    assert fmt.plural(1, "benchmark and scenario", "benchmarks and scenarios") == "1 benchmark and scenario"
    assert fmt.plural(3, "benchmark and scenario", "benchmarks and scenarios") == "3 benchmarks and scenarios"
    assert fmt.plural(np.int64(72), "GPU") == "72 GPUs"
    assert (fmt.count(7), fmt.count(1234567)) == ("7", "1,234,567")


def test_ratios_have_two_decimals_and_an_x():
    assert [fmt.times(v) for v in (1.7, 3.7449, 3.745001, 0.65, 0, -0.5, 1234.5, np.float64(1.8335))] == [
        "1.70x",
        "3.74x",
        "3.75x",
        "0.65x",
        "0.00x",
        "-0.50x",
        "1234.50x",
        "1.83x",
    ]


def test_gaps_are_signed_and_zero_has_no_sign():
    assert [fmt.signed_percent(v) for v in (12.34, -41.06, 0.0, -0.0, 0.04, -0.04, 0.05, 999.94)] == [
        "+12.3%",
        "-41.1%",
        "0.0%",
        "0.0%",
        "0.0%",
        "0.0%",
        "+0.1%",  # 0.05 is stored just above a half
        "+999.9%",
    ]
    # at two decimals the same rule: a gap that rounds to zero is unsigned
    assert [fmt.signed_percent(v, 2) for v in (0.0, -0.004, 0.006, -1.234)] == [
        "0.00%",
        "0.00%",
        "+0.01%",
        "-1.23%",
    ]
    # from 1,000% on, whole percent, thousands separated
    assert [fmt.signed_percent(v) for v in (999.96, 1000.0, 12345.6, -1500.4)] == [
        "+1,000%",
        "+1,000%",
        "+12,346%",
        "-1,500%",
    ]


def test_unsigned_percentages_and_points():
    assert [fmt.percent(v) for v in (12.34, 0.0, 99.95, -0.5)] == ["12.3%", "0.0%", "100.0%", "-0.5%"]
    assert fmt.percent(1.234, 2) == "1.23%"
    assert [fmt.points(v) for v in (1.0, 0.5, 2)] == ["1 point", "0.5 points", "2 points"]
    assert [fmt.points(v, 2) for v in (0.4234, 1.0, 0.999)] == ["0.42 points", "1.00 points", "1.00 points"]


def test_stated_figures_keep_the_digits_they_were_stated_with():
    assert [fmt.stated(3.7, "x"), fmt.stated(99.0, "%"), fmt.stated(0.65), fmt.stated(5.7, "s")] == [
        "3.7x",
        "99%",
        "0.65",
        "5.7 s",
    ]
    assert fmt.stated(12198.8) == "12198.8"  # no separator: the figure as the announcement wrote it
    assert fmt.stated(-5.0, "%") == "-5%"


def test_prose_figures_have_three_significant_digits_and_separators():
    assert [
        fmt.quantity(v) for v in (0.6546, 0.0001234, 0, 5.81, 99.96, 100.4, 999.5, 1000.0, 1234567.8)
    ] == [
        "0.655",
        "0.000123",
        "0",
        "5.81",
        "100",
        "100",
        "1000",  # 999.5 rounds to 1000 below the separator's threshold
        "1,000",
        "1,234,568",
    ]
    assert [fmt.quantity(v, "%") for v in (98.71, 100.04, 1234.5)] == ["98.7%", "100.0%", "1,234%"]
    assert [fmt.quantity(-12345.6, "tokens/s"), fmt.quantity(0.655, "samples/s")] == [
        "-12,346 tokens/s",
        "0.655 samples/s",
    ]
    assert [fmt.quantity(1e-9, "s"), fmt.quantity(1e12, "s")] == ["1e-09 s", "1,000,000,000,000 s"]


def test_counted_units_agree_with_their_number():
    assert [fmt.quantity(1, "results"), fmt.quantity(3, "category"), fmt.quantity(1, "vendors")] == [
        "1 result",
        "3 categories",
        "1 vendor",
    ]
    assert fmt.quantity(0, "GPU") == "0 GPUs"


def test_published_results_have_four_significant_digits_below_a_thousand():
    assert [
        fmt.result(27.3849, "Latency (s)"),
        fmt.result(16.12, "Latency (s)"),
        fmt.result(0.06546, "Samples/s"),
    ] == [
        "27.38 s",
        "16.12 s",
        "0.06546 Samples/s",
    ]
    assert [fmt.result(999.94, "Tokens/s"), fmt.result(12345.6, "Tokens/s"), fmt.result(5.0, "%")] == [
        "999.9 Tokens/s",
        "12,346 Tokens/s",
        "5%",
    ]
    assert fmt.short_unit("Latency (s)") == "s" and fmt.short_unit("Tokens/s") == "Tokens/s"


def test_significant_digits_and_data_values():
    assert [fmt.significant(v, 4) for v in (12.3456, 1234.56, 0.000123456)] == ["12.35", "1,235", "0.0001235"]
    assert fmt.significant(12345.6, 4, "Tokens/s") == "1.235e+04 Tokens/s"  # four digits are four digits
    assert fmt.significant(1234567.0, 6, "Tokens/s") == "1.23457e+06 Tokens/s"
    assert [fmt.significant(v, 6) for v in (0.0, -3.0, 98765.4321)] == ["0", "-3", "98,765.4"]
    assert [fmt.data_value(v) for v in (98765.4321, 0.000123456789, 2.0)] == ["98765.4", "0.000123457", "2"]


def test_a_cases_figure_is_in_its_unit():
    assert [fmt.case_figure(1.8335, "x"), fmt.case_figure(-3.44, "%"), fmt.case_figure(0.0, "%")] == [
        "1.83x",
        "-3.4%",
        "0.0%",
    ]
    assert [fmt.case_figure(5.8077, "s"), fmt.case_figure(12.5, ""), fmt.case_figure(1500.0, "%")] == [
        "5.808 s",
        "12.5",
        "+1,500%",
    ]


def test_gains_name_the_metrics_change_where_lower_is_better():
    assert fmt.gain(1.6989, -41.14, "latency", False) == "1.70x as fast, latency -41.1%"
    assert fmt.gain(1.6989, 69.9, "throughput", True) == "1.70x"
    assert fmt.gain(1.0, 0.0, "latency", False) == "1.00x as fast, latency 0.0%"


def test_prices_are_to_the_cent():
    assert [fmt.usd(v) for v in (10.5, 15.754, 0.005, 0, 1234.5)] == [
        "10.50 USD",
        "15.75 USD",
        "0.01 USD",
        "0.00 USD",
        "1234.50 USD",
    ]


def test_durations_to_a_tenth_of_a_second():
    assert [fmt.seconds(v) for v in (12.345, 0.04, 0.05001, 61.0)] == ["12.3 s", "0.0 s", "0.1 s", "61.0 s"]


def test_table_cells():
    assert [
        fmt.table_number(v) for v in (1234567.0, 0.6546, 7, 1234, 72.0, 0.5, 1234.56, 123.45, 99.95, -2.0)
    ] == [
        "1,234,567",
        "0.655",
        "7",
        "1,234",
        "72",
        "0.5",
        "1,235",
        "123.5",  # 123.45 is stored just above a half
        "100",
        "-2",
    ]
    assert [fmt.table_number(15.75, 2), fmt.table_number(1234.5, 2), fmt.table_number(3, 2)] == [
        "15.75",
        "1,234.50",
        "3",  # an integer is a count: no decimals
    ]
    assert [fmt.table_number(True), fmt.table_number(False), fmt.table_number(np.int64(8))] == [
        "yes",
        "no",
        "8",
    ]


PACKAGE = Path(__file__).resolve().parents[2] / "claimbook"
# A format spec that words a quantity: a decimal presentation type, a thousands separator or a
# sign. A width alone ("{claim.id:40}") pads text, a precision alone on text ("{x!r:.60}") cuts it,
# and a byte in hexadecimal ("0x{byte:02x}") is a code, not a quantity.
NUMBER_SPEC = re.compile(r"[,+]|[deEfFgGn%]$")


def _number_formats(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):
            spec = "".join(
                str(part.value) for part in node.format_spec.values if isinstance(part, ast.Constant)
            )
            if NUMBER_SPEC.search(spec):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {{…:{spec}}}")
        elif (
            isinstance(node, ast.Call) and getattr(node.func, "id", None) == "format" and len(node.args) == 2
        ):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: format(…)")
    return found


def test_no_module_but_the_formatting_module_formats_a_number():
    modules = [path for path in sorted(PACKAGE.rglob("*.py")) if path.name != "formatting.py"]
    assert len(modules) > 40
    found = [line for path in modules for line in _number_formats(path)]
    assert not found, "format numbers with claimbook.common.formatting:\n" + "\n".join(found)


def test_the_source_check_sees_a_number_format():
    sample = PACKAGE / "common" / "formatting.py"
    assert _number_formats(sample), "the check must see the formatting module's own f-strings"


def test_a_kind_takes_the_article_its_sound_asks_for():
    assert fmt.with_article("ratio") == "a ratio"
    assert fmt.with_article("unnamed-baseline") == "an unnamed-baseline"
    assert fmt.with_article("Offline") == "an Offline"
