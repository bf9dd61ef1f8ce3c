import pytest

from claimbook.verdict import (
    CANNOT_BE_CHECKED,
    NOT_SUPPORTED,
    SUPPORTED,
    SUPPORTED_WITH_CAVEATS,
    Verdict,
    availability_caveat,
    decimals_of,
    judge_up_to,
    matches_claim,
    shortfall_caveat,
)


@pytest.mark.parametrize(
    "measured, claimed, expected",
    [
        (2.57, 2.5, True),  # truncates to the claim
        (3.74, 3.7, True),  # rounds to the claim
        (3.65, 3.7, True),
        (3.64, 3.7, False),
        (5.81, 5.7, False),  # not the same number
        (0.6546, 0.65, True),
        (0.99, 99, False),
        (98.6, 99, True),
        (float("nan"), 2.5, False),
    ],
)
def test_matches_claim(measured, claimed, expected):
    assert matches_claim(measured, claimed) is expected


def test_tolerance_widens_the_match():
    assert not matches_claim(3.5, 3.7)
    assert matches_claim(3.5, 3.7, tolerance=0.06)


def test_decimals_of():
    assert decimals_of(3.7) == 1 and decimals_of(99) == 0 and decimals_of(0.65) == 2 and decimals_of(9.0) == 0


def test_up_to_supported_on_best_case():
    outcome = judge_up_to(2.5, {"Offline": 1.74, "Server": 1.97, "Interactive": 2.57})
    assert outcome.verdict == SUPPORTED
    assert "2.57x (Interactive)" in outcome.reason


def test_up_to_caveats_qualify_the_verdict():
    outcome = judge_up_to(2.5, {"Interactive": 2.57}, caveats=("a preview system",))
    assert outcome.verdict == SUPPORTED_WITH_CAVEATS
    assert outcome.text().endswith("a preview system.")


def test_up_to_not_supported_when_no_case_reaches():
    outcome = judge_up_to(3.7, {"Offline": 1.83, "Server": 1.92, "Interactive": 3.2})
    assert outcome.verdict == NOT_SUPPORTED
    assert "the best is 3.20x (Interactive)" in outcome.reason


def test_up_to_understated_claim():
    outcome = judge_up_to(2.5, {"Offline": 4.0})
    assert outcome.verdict == SUPPORTED_WITH_CAVEATS
    assert "understates" in outcome.text()


def test_up_to_without_data_cannot_be_checked():
    assert judge_up_to(2.5, {}).verdict == CANNOT_BE_CHECKED
    assert judge_up_to(2.5, {"Offline": float("nan")}).verdict == CANNOT_BE_CHECKED


def test_verdict_vocabulary_is_fixed():
    with pytest.raises(ValueError, match="unknown verdict 'mostly true'"):
        Verdict("mostly true", "because")


def test_shortfall_caveat_names_short_cases():
    text = shortfall_caveat(3.7, {"Offline": 1.83, "Server": 1.92, "Interactive": 3.74})
    assert text == "Only Interactive reaches 3.7x; the other cases show less (Offline 1.83x, Server 1.92x)"
    assert shortfall_caveat(3.7, {"Interactive": 3.74}) is None
    assert shortfall_caveat(3.7, {"Offline": 1.0}) is None  # nothing reaches: the verdict says so


def test_availability_caveat():
    assert availability_caveat({"a": "available"}) is None
    assert "b is a preview submission" in availability_caveat({"a": "available", "b": "preview"})
