"""The kinds with modes (presence, leading) choose one mode from a table: every mode is reachable
by its own fields, and a claim that mixes two modes' fields is refused with the field named."""

from __future__ import annotations

import pytest

from claimbook.claims.registry import RegistryError
from claimbook.engine.kinds import leading, presence
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS
from tests.helpers.enginekit import check, result, world


def rows():
    return [
        result("Acme", "small", "Offline", 100.0, gpus=8),
        result("Acme", "big", "Offline", 105.0, gpus=16, nodes=2),
        result("Beta", "box", "Offline", 300.0, gpus=8),
    ]


def claim(claim_id: str, kind: str = "presence", **fields) -> dict:
    return {"id": claim_id, "statement": f"A claim of {claim_id}.", "kind": kind, **fields}


PRESENCE = {
    "count": (
        {"count": "organization", "rows": {"vendor": "NVIDIA"}, "claimed": 2},
        "organization count",
        SUPPORTED,
    ),
    "only": ({"count": "organization", "only": ["Acme"], "rows": {}}, "organization", NOT_SUPPORTED),
    "items": ({"items": [{"label": "Beta's box", "organization": "Beta"}]}, "Beta's box", SUPPORTED),
    "pairs": (
        {"pairs": {"gpu_ratio": [1.5, 2.5], "gain_below_percent": 10}, "rows": {}},
        "gpt-oss-120b · Offline · one submitter's scale-out",
        SUPPORTED_WITH_CAVEATS,  # one submitter's scale-out fits; the baseline is unnamed
    ),
    "rows": ({"rows": {"organization": "Acme"}}, "results", SUPPORTED),
}


def test_the_presence_table_has_every_mode_and_the_fields_are_the_kinds():
    assert set(presence.MODES) == set(PRESENCE)
    for mode in presence.MODES.values():
        assert set(mode.fields) <= set(presence.SPEC.field_names()), mode.name
        assert mode.chosen_by is None or mode.chosen_by in mode.fields
    assert set(presence.SPEC.field_names()) == set(presence.SHARED) | {
        name for mode in presence.MODES.values() for name in mode.fields
    }


@pytest.mark.parametrize("name", sorted(PRESENCE))
def test_each_presence_mode_is_reached_by_its_own_fields(tmp_path, name):
    fields, label, verdict = PRESENCE[name]
    data = world(tmp_path, rows(), [claim("it", **fields)])
    assert presence.mode_of(data.registry.claim("it")).name == name
    found = check(data, "it")
    assert [case.label for case in found.cases][:1] == [label]
    assert found.verdict == verdict


@pytest.mark.parametrize(
    "fields, field, says",
    [
        (
            {"count": "organization", "items": [{"label": "x", "organization": "Acme"}]},
            "items",
            "count and items",
        ),
        (
            {"items": [{"label": "x", "organization": "Acme"}], "pairs": {"nearly": 2}},
            "pairs",
            "items and pairs",
        ),
        (
            {"rows": {}, "holds_if": "any"},
            "holds_if",
            "a presence claim of mode rows does not use it; holds_if is for mode items",
        ),
        (
            {"count": "organization", "rows": {}, "pairs": {"nearly": 2}},
            "pairs",
            "count and pairs choose two",
        ),
        (
            {"items": [{"label": "x", "organization": "Acme"}], "named": ["Acme"]},
            "named",
            "of mode items does not use it; named is for mode count",
        ),
        (
            {"only": ["Acme"], "rows": {}, "claimed": 1},
            "claimed",
            "of mode only does not use it; claimed is for mode count",
        ),
        (
            {"rows": {}, "history": True, "count": "organization"},
            "history",
            "of mode count does not use it; history is for mode rows",
        ),
    ],
)
def test_a_presence_claim_mixing_two_modes_is_refused_naming_the_field(tmp_path, fields, field, says):
    with pytest.raises(RegistryError, match=f"field {field}: .*{says}"):
        world(tmp_path, rows(), [claim("mixed", **fields)])


def test_only_lists_the_values_of_the_field_it_counts(tmp_path):
    """``only`` takes ``count`` as the field whose values it lists: not two modes."""
    data = world(tmp_path, rows(), [claim("only", count="vendor", only=["NVIDIA"], rows={})])
    assert presence.mode_of(data.registry.claim("only")).name == "only"
    assert check(data, "only").verdict == SUPPORTED


LEADING = {
    "result": {
        "subject": {"organization": "Beta"},
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "measures": ["whole-system"],
    },
    "gpus": {"subject": {"organization": "Acme"}},
    "efficiency": {
        "subject": {"organization": "Acme"},
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "small": {"organization": "Acme", "system": "small"},
        "large": {"organization": "Acme", "system": "big"},
        "definitions": [{"label": "beyond 8 GPUs", "beyond_gpus": 8}],
    },
}


def test_the_leading_table_has_every_metric_and_the_fields_are_the_kinds():
    assert set(leading.METRICS) == set(LEADING)
    every = set(leading.SHARED) | {name for metric in leading.METRICS.values() for name in metric.fields}
    assert every == set(leading.SPEC.field_names())


@pytest.mark.parametrize("metric", sorted(LEADING))
def test_each_leading_metric_is_reached_by_its_value(tmp_path, metric):
    # a rival pair for the efficiency: Gamma scales at 75% (150 / 100 on twice the GPUs)
    gamma = [
        result("Gamma", "one", "Offline", 100.0, gpus=8),
        result("Gamma", "two", "Offline", 150.0, gpus=16, nodes=2),
    ]
    data = world(
        tmp_path,
        rows() + (gamma if metric == "efficiency" else []),
        [claim("lead", "leading", metric=metric, **LEADING[metric])],
    )
    found = check(data, "lead")
    if metric == "result":  # Beta's 300 against Acme's best 105
        assert found.verdict == SUPPORTED and found.cases[0].measured == pytest.approx(300 / 105)
    elif metric == "gpus":  # Acme's 16 GPUs against Beta's 8
        assert found.verdict == SUPPORTED and found.cases[0].measured == pytest.approx(2.0)
    else:  # Acme's 52.5% against Gamma's 75%
        assert found.verdict == NOT_SUPPORTED
        assert found.cases[0].measured == pytest.approx(100 * 105 / 200)
        assert found.cases[0].detail.next_value == pytest.approx(75.0)
    assert leading.one_per_case(data.registry.claim("lead")) == leading.METRICS[metric].one_per_case(
        data.registry.claim("lead")
    )


@pytest.mark.parametrize(
    "metric, extra, field, says",
    [
        (
            "gpus",
            {"measures": ["per-gpu"]},
            "measures",
            "of metric gpus does not use it; measures is for metric result",
        ),
        (
            "result",
            {"definitions": [{"label": "x", "beyond_gpus": 8}]},
            "definitions",
            "of metric result does not use it; definitions is for metric efficiency",
        ),
        (
            "efficiency",
            {"scope": "history"},
            "scope",
            "of metric efficiency does not use it; scope is for metric result or gpus",
        ),
        ("size", {}, "metric", "compares one of result, gpus, efficiency"),
    ],
)
def test_a_leading_claim_mixing_two_metrics_is_refused_naming_the_field(tmp_path, metric, extra, field, says):
    fields = {**LEADING.get(metric, LEADING["gpus"]), **extra}
    with pytest.raises(RegistryError, match=f"field {field}: .*{says}"):
        world(tmp_path, rows(), [claim("mixed", "leading", metric=metric, **fields)])


CHARTS = {"count": "CountBars", "only": "CountBars", "items": None, "pairs": None, "rows": "ResultDots"}


@pytest.mark.parametrize("name", sorted(PRESENCE))
def test_each_presence_mode_draws_its_own_charts(tmp_path, name):
    fields, _, _ = PRESENCE[name]
    data = world(tmp_path, rows(), [claim("it", **fields)])
    drawn = presence.charts(check(data, "it"), data)
    assert [type(chart).__name__ for chart in drawn] == ([CHARTS[name]] if CHARTS[name] else [])


def test_each_leading_metric_draws_its_own_charts(tmp_path):
    gamma = [
        result("Gamma", "one", "Offline", 100.0, gpus=8),
        result("Gamma", "two", "Offline", 150.0, gpus=16, nodes=2),
    ]
    claims = [claim(metric, "leading", metric=metric, **LEADING[metric]) for metric in LEADING]
    data = world(tmp_path, rows() + gamma, claims)
    drawn = {
        metric: [type(chart).__name__ for chart in leading.charts(check(data, metric), data)]
        for metric in LEADING
    }
    assert drawn == {"result": ["CaseBars"], "gpus": ["CaseBars"], "efficiency": ["EfficiencyScatter"]}


@pytest.mark.parametrize(
    "kind, fields, field",
    [
        ("leading", {"metric": ["result"], "subject": {"organization": "Acme"}}, "metric"),
        ("presence", {"count": ["organization"], "rows": {}}, "count"),
    ],
)
def test_a_mode_field_that_is_not_a_word_is_a_registry_error(tmp_path, kind, fields, field):
    with pytest.raises(RegistryError, match=f"field {field}: "):
        world(tmp_path, rows(), [claim("odd", kind, **fields)])
