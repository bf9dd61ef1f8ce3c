"""The helpers several kinds share (``claimbook.engine.kinds``): what a selector looked for, a
claim's measure, a figure in a comparing claim's unit and back."""

from __future__ import annotations

import dataclasses

import pytest

from claimbook.engine import kinds
from claimbook.engine.core import ClaimSpecError
from tests.helpers.enginekit import result, world


def _claim(tmp_path, **fields):
    rows = [result("Acme", "box", "Offline", 100.0)]
    claim = {"id": "it", "statement": "Acme's box leads.", "kind": "figure", "benchmark": "gpt-oss-120b"}
    claim |= {"subject": {"organization": "Acme"}, "scenarios": ["Offline"], "claimed": 100.0, **fields}
    data = world(tmp_path, rows, [claim])
    return data, data.registry.claim("it")


def test_looked_for_says_what_a_selector_missed_and_nothing_where_it_found_results(tmp_path):
    data, claim = _claim(tmp_path)
    assert kinds.looked_for(data, claim, "subject", benchmark="gpt-oss-120b", scenario="Offline") is None
    missed = kinds.looked_for(data, claim, "subject", benchmark="gpt-oss-120b", scenario="Server")
    assert missed.startswith("subject (") and "Server" in missed


def _measured(claim, measure):
    # (a figure takes no measure, so the registry would refuse the field: the helpers alone)
    return dataclasses.replace(claim, fields={**claim.fields, "measure": measure})


def test_a_claims_measure_is_whole_systems_unless_it_says(tmp_path):
    _, claim = _claim(tmp_path)
    assert kinds.measure_of(claim) == "whole-system"
    assert kinds.measure_of(_measured(claim, "per-gpu")) == "per-gpu"
    kinds.check_measure(claim)
    kinds.check_measure(_measured(claim, "per-gpu"))


def test_a_measure_that_is_not_one_of_the_measures_is_the_fields_error(tmp_path):
    _, claim = _claim(tmp_path)
    odd = _measured(claim, "per-rack")
    with pytest.raises(ClaimSpecError, match="field measure: how the two sides are compared"):
        kinds.check_measure(odd)


@pytest.mark.parametrize("unit", ["x", "%"])
def test_as_ratio_undoes_in_unit(unit):
    for ratio in (0.5, 1.0, 1.25, 3.7):
        assert kinds.as_ratio(kinds.in_unit(ratio, unit), unit) == pytest.approx(ratio)
    assert kinds.as_ratio(25.0, "%") == 1.25 and kinds.as_ratio(1.25, "x") == 1.25
