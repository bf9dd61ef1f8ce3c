"""What a registry says is what the vendor said, and what it cannot say is loud (issue 27): sizes
stated, what a selector leaves out named, the crashes and hints of a rebuild, and a figure's
precision kept, each on a small world made through the real ingest."""

from __future__ import annotations

import pytest
import yaml

from claimbook import engine
from claimbook.claims import params
from claimbook.engine import scorecard
from claimbook.engine.context import apply_overrides
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS
from tests.helpers.enginekit import HEADER, ROOT, check, result, world

MI355X = "AMD Instinct MI355X 288GB HBM3e"


def node_rows():
    """AMD's own node and rack, a partner node, the same company's joint node and a 512-GPU system."""
    return [
        result("AMD", "own", "Offline", 100.0, accelerator=MI355X),
        result("AMD", "own", "Server", 100.0, accelerator=MI355X),
        result("Dell", "node", "Offline", 96.0, accelerator=MI355X),
        result("Dell", "node", "Server", 97.0, accelerator=MI355X),
        result("Dell_MangoBoost", "joint", "Offline", 94.6, accelerator=MI355X),
        result("Dell_MangoBoost", "joint", "Server", 97.5, accelerator=MI355X),
        result("Crusoe", "big", "Offline", 6000.0, gpus=512, nodes=64, accelerator=MI355X),
    ]


def ratio(claim_id: str, **fields) -> dict:
    return {
        "id": claim_id,
        "statement": "Within a bound of AMD's own.",
        "kind": "ratio",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline", "Server"],
        "baseline": {"organization": "AMD", "system": "own"},
        **fields,
    }


AMD_HEADER = {"claimant": "AMD", "vendor": "AMD"}


# -- sizes stated ------------------------------------------------------------------------------


def test_a_comparison_of_two_sizes_is_refused_until_the_claim_says_how(tmp_path):
    claim = ratio("big", form="figure", claimed=60, subject={"organization": "Crusoe"}, scenarios=["Offline"])
    data = world(tmp_path, node_rows(), [claim], AMD_HEADER)
    found = engine.audit(data.registry.claim("big"), data)
    assert found == [
        (
            f"{data.registry.claim('big').where}: field measure: the two sides differ in size in gpt-oss-120b Offline "
            "(Crusoe big (512 GPUs) against AMD own (8 GPUs)); say how the claim compares them: measure: "
            "whole-system or per-gpu"
        )
    ]
    (tmp_path / "said").mkdir()
    said = world(tmp_path / "said", node_rows(), [{**claim, "measure": "whole-system"}], AMD_HEADER)
    checked = check(said, "big")
    assert checked.verdict == SUPPORTED_WITH_CAVEATS and "different-size" in checked.caveats
    assert any(note.startswith("Per GPU, beside the whole systems") for note in checked.context)


def test_a_counterpart_selector_names_the_results_it_leaves_out(tmp_path):
    claim = ratio(
        "close",
        form="counterparts",
        quantifier="within",
        within=10,
        unit="%",
        subject={"vendor": "AMD", "organization": ["Dell", "Crusoe"]},
        baseline={"organization": "AMD"},
        match_on=["family", "gpus"],
    )
    checked = check(world(tmp_path, node_rows(), [claim], AMD_HEADER), "close")
    assert checked.verdict == SUPPORTED  # Crusoe's 512 GPUs have no counterpart: left out, said
    note = next(note for note in checked.context if note.startswith("Left out"))
    assert "no baseline result with the same family and gpus: Crusoe big (512 GPUs) (gpt-oss-120b)" in note
    # and `claimbook check` prints it: the scorecard's reason carries the card's context
    assert note in scorecard.rows_for(checked, "test")[0]["reason"]


def test_an_organization_selector_names_the_same_companys_joint_submissions(tmp_path):
    """ "Dell's node reaches at least 95% of AMD's own": Dell_MangoBoost's joint node is Dell's too,
    and one of its cases (94.6%) would not hold; said beside the verdict, never deciding."""
    claim = ratio(
        "dell",
        form="figure",
        quantifier="at-least",
        claimed=0.95,
        subject={"organization": "Dell", "family": "AMD MI355X", "gpus": 8},
    )
    checked = check(world(tmp_path, node_rows(), [claim], AMD_HEADER), "dell")
    assert checked.verdict == SUPPORTED
    note = next(note for note in checked.context if "joint submissions" in note)
    assert note.startswith("The subject's organization Dell leaves out the same company's joint submissions")
    assert "Dell_MangoBoost joint (8 GPUs) gpt-oss-120b Offline 0.95x, would not hold" in note
    assert "Dell_MangoBoost joint (8 GPUs) gpt-oss-120b Server 0.97x, would hold" in note


def test_a_best_of_several_names_a_close_second(tmp_path):
    rows = [
        result("Acme", "a", "Offline", 300.0),
        result("Beta", "b", "Offline", 290.0),  # within 5% of Acme's
        result("Old", "base", "Offline", 100.0),
    ]
    claim = ratio(
        "best",
        form="figure",
        quantifier="up-to",
        claimed=3,
        scenarios=["Offline"],
        subject={"family": "NVIDIA B300", "combine": "best", "exclude": {"organization": "Old"}},
        baseline={"organization": "Old", "system": "base"},
    )
    checked = check(world(tmp_path, rows, [claim]), "best")
    assert any(
        "the best of the subject's results, Acme a (8 GPUs), is within 3.4% of the next, Beta b (8 GPUs)"
        in note
        for note in checked.context
    )


# -- the crashes and hints of a rebuild ----------------------------------------------------------------


def test_a_sum_with_an_inferred_result_is_checked_and_drawn_with_its_counts(tmp_path):
    rows = [
        result("Acme", "cluster", "Offline", 380.0, gpus=32, nodes=4, accelerator=MI355X),
        result("Acme", "node", "Offline", 100.0, accelerator=MI355X, inferred="1"),
        result("Beta", "node", "Offline", 95.0, accelerator=MI355X),
    ]
    claim = {
        "id": "sum",
        "statement": "A cluster scales at 97% of its nodes.",
        "kind": "scaling",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "claimed": 97,
        "unit": "%",
        "large": {"organization": "Acme", "system": "cluster"},
        "small": {
            "sum": [
                {"organization": "Acme", "system": "node", "count": 2},
                {"organization": "Beta", "system": "node", "count": 2},
            ]
        },
    }
    data = world(tmp_path, rows, [claim], AMD_HEADER)
    checked = check(data, "sum")  # (a sum whose results include an inferred one used to crash)
    assert checked.cases[0].measured == pytest.approx(100 * 380 / (2 * 100 + 2 * 95))  # 32 GPUs each side
    assert "inferred" in checked.caveats and any(
        "Acme node (8 GPUs) in gpt-oss-120b Offline" in note for note in checked.notes
    )
    from claimbook.engine.kinds import scaling

    chart = scaling.charts(checked, data)[0]
    own = chart.pairs[
        [
            tuple(pair) in set(map(tuple, chart.highlight))
            for pair in zip(chart.pairs["small_location"], chart.pairs["large_location"])
        ]
    ]
    assert len(own) == 1 and own["small_system"].iloc[0] == "2 × node + 2 × node"
    assert (
        own["small_gpus"].iloc[0] == 32 and own["large_gpus"].iloc[0] == 32 or own["large_gpus"].iloc[0] == 32
    )


NOBODY = {"organization": "Acmee"}  # a typo: the closest name is Acme's


def missing_claims() -> list[dict]:
    """A claim of each kind whose selector finds nothing, each naming a field the warning must point to."""
    wan = {"benchmark": "wan-2.2-t2v-a14b"}
    return [
        ratio("r-subject", form="lead", subject=NOBODY, scenarios=["Offline"]),
        ratio(
            "r-baselines",
            form="lead",
            scenarios=["Offline"],
            subject={"organization": "Acme", "system": "new"},
            baseline=[{"label": "B1", "organization": "Acme", "system": "old"}, {"label": "B2", **NOBODY}],
        ),
        {
            "id": "f",
            "statement": "A figure.",
            "kind": "figure",
            "benchmark": "gpt-oss-120b",
            "scenarios": ["Offline"],
            "claimed": 1,
            "subject": NOBODY,
        },
        {
            "id": "s",
            "statement": "Scales.",
            "kind": "scaling",
            "benchmark": "gpt-oss-120b",
            "scenarios": ["Offline"],
            "claimed": 90,
            "large": {"organization": "Acme", "system": "new"},
            "small": {"sum": [{"organization": "Acme", "system": "old", "count": 1}, {**NOBODY, "count": 1}]},
        },
        {
            "id": "g",
            "statement": "Gains.",
            "kind": "round-gain",
            "benchmark": "gpt-oss-120b",
            "from_round": "v6.0",
            "claimed": 2,
            "subject": NOBODY,
        },
        {
            "id": "u",
            "statement": "9x a node.",
            "kind": "unnamed-baseline",
            **wan,
            "scenario": "Offline",
            "claimed": 9,
            "subject": NOBODY,
            "candidates": {"nodes": 1},
        },
        {
            "id": "l",
            "statement": "Leads.",
            "kind": "leading",
            "metric": "result",
            "benchmark": "gpt-oss-120b",
            "subject": NOBODY,
        },
        {
            "id": "l-benchmark",
            "statement": "Leads on WAN.",
            "kind": "leading",
            "metric": "result",
            **wan,
            "subject": {"organization": "Acme"},
        },
        {"id": "p-rows", "statement": "Submitted.", "kind": "presence", "rows": NOBODY},
        {
            "id": "p-count",
            "statement": "Partners.",
            "kind": "presence",
            "count": "organization",
            "rows": NOBODY,
            "claimed": 1,
        },
        {
            "id": "p-items",
            "statement": "Both.",
            "kind": "presence",
            "items": [{"label": "one", "organization": "Acme"}, {"label": "two", **NOBODY}],
        },
        {
            "id": "t",
            "statement": "Our table.",
            "kind": "stated-figures",
            "entries": [
                {
                    "label": "E1",
                    "subject": {"organization": "Acme", "system": "new"},
                    "figures": {"gpt-oss-120b": {"Offline": "300"}},
                },
                {"label": "E2", "subject": NOBODY, "figures": {"gpt-oss-120b": {"Offline": "300"}}},
            ],
        },
    ]


PATHS = {
    "r-subject": "subject.organization",
    "r-baselines": "baseline.1.organization",
    "f": "subject.organization",
    "s": "small.sum.1.organization",
    "g": "subject.organization",
    "u": "subject.organization",
    "l": "subject.organization",
    "l-benchmark": "benchmark",
    "p-rows": "rows.organization",
    "p-count": "rows.organization",
    "p-items": "items.1.organization",
    "t": "entries.1.subject.organization",
}


@pytest.fixture(scope="module")
def missing_world(tmp_path_factory):
    rows = [result("Acme", "new", "Offline", 300.0), result("Acme", "old", "Offline", 100.0)]
    return world(tmp_path_factory.mktemp("missing"), rows, missing_claims())


@pytest.mark.parametrize("claim_id", sorted(PATHS))
def test_a_selection_that_finds_nothing_says_what_it_looked_for_in_every_kind(missing_world, claim_id):
    from claimbook.pipeline import verify

    checked = check(missing_world, claim_id)
    assert checked.verdict == CANNOT_BE_CHECKED or claim_id in ("r-baselines", "p-items", "t")
    assert checked.missing, f"{claim_id}: no word of what it looked for"
    text = checked.missing[0]
    if claim_id == "l-benchmark":  # the subject has results, none on the benchmark it names
        assert "no result with benchmark='wan-2.2-t2v-a14b'" in text
    else:
        assert "no result with organization='Acmee'; closest organization values in the data: Acme" in text
    claim = missing_world.registry.claim(claim_id)
    rows = scorecard.rows_for(checked, "test")
    warnings = verify.missing_warnings(rows, missing_world.registry)
    assert warnings and all(f"--param {claim_id}.{PATHS[claim_id]}=NAME" in line for line in warnings), (
        warnings
    )
    assert verify.strict_failure(warnings) is not None  # --strict fails on it
    # every path a warning suggests is one --param accepts, and the claim still validates
    path = PATHS[claim_id]
    _chapters, claims, _ = params.apply([f"{claim_id}.{path}=Acme"], missing_world.registry, engine.SPECS)
    changed = apply_overrides(missing_world.registry, claims)
    assert changed.claim(claim_id).fields != claim.fields


def test_every_kind_with_a_selector_has_a_suggestion_tested():
    kinds_tested = {claim["kind"] for claim in missing_claims()}
    with_selectors = {
        name for name, spec in engine.SPECS.items() if spec.selectors and name != "not-checkable"
    }
    assert with_selectors <= kinds_tested


# -- a figure keeps the precision it is written with ----------------------------------------------------


def registry_world(tmp_path, rows, claims_text: str):
    """A world whose registry is YAML text as an analyst writes it (``2.90`` as written)."""
    from claimbook.engine.core import Data
    from claimbook.inputs.reference import annotate, load_reference
    from tests.helpers.summaries import tidy_from_rows

    folder = tmp_path / "claims"
    folder.mkdir()
    header = yaml.safe_dump({"announcement": HEADER}, sort_keys=False)
    (folder / "acme-v6.1.yaml").write_text(header + "claims:\n" + claims_text, encoding="utf-8")
    (tmp_path / "chapters.yaml").write_text("{}\n")
    registry = engine.load_registry(folder, tmp_path / "chapters.yaml")
    reference = load_reference(ROOT / "data" / "reference")
    return Data(annotate(tidy_from_rows(tmp_path, rows), reference), pd_empty(), reference, registry)


def pd_empty():
    import pandas as pd

    return pd.DataFrame(columns=["round", "organization", "system", "model", "scenario", "result", "units"])


@pytest.mark.parametrize(
    "written, verdict", [("2.9", SUPPORTED), ("2.90", NOT_SUPPORTED), ('"2.90"', NOT_SUPPORTED)]
)
def test_a_claimed_figure_keeps_its_trailing_zeros(tmp_path, written, verdict):
    """2.87 is "2.9" at one decimal, not "2.90" at two, whether 2.90 is written as a number or text."""
    rows = [result("Acme", "new", "Offline", 287.0), result("Acme", "old", "Offline", 100.0)]
    text = f"""\
  - id: ratio
    statement: 2.9 times.
    kind: ratio
    form: figure
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    subject: {{organization: Acme, system: new}}
    baseline: {{organization: Acme, system: old}}
    claimed: {written}
  - id: figure
    statement: A figure of 2.9 hundred.
    kind: figure
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    subject: {{organization: Acme, system: new}}
    scale: 100
    claimed: {written}
"""
    data = registry_world(tmp_path, rows, text)
    for claim_id in ("ratio", "figure"):
        checked = check(data, claim_id)
        assert checked.verdict == verdict, (claim_id, checked.reason)
    if verdict == NOT_SUPPORTED:
        assert "(claimed 2.90x)" in check(data, "ratio").reason
        assert "the claimed 2.90 is" in check(data, "figure").reason


# -- a lead and a count read their figures with the same words ------------------------------------------


def test_a_lead_that_states_its_margin_is_read_by_its_quantifier(tmp_path):
    rows = [result("Acme", "new", "Offline", 125.0), result("Beta", "rival", "Offline", 100.0)]
    lead = {
        "id": "lead",
        "statement": "More than 20% ahead of anyone.",
        "kind": "leading",
        "metric": "result",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme"},
        "measures": ["whole-system"],
        "unit": "%",
        "quantifier": "more-than",
        "claimed": 20,
    }
    assert check(world(tmp_path, rows, [lead]), "lead").verdict == SUPPORTED  # 25% ahead
    (tmp_path / "more").mkdir()
    data = world(tmp_path / "more", rows, [{**lead, "claimed": 30}])
    checked = check(data, "lead")
    assert checked.verdict == NOT_SUPPORTED and checked.cases[0].reaches is False  # leads, but not by 30%
    assert any(note.startswith('Read as "more than 30%"') for note in checked.context)


def test_a_count_is_read_by_its_quantifier(tmp_path):
    rows = [result(name, "box", "Offline", 1.0) for name in ("A", "B", "C")]
    count = {
        "id": "n",
        "statement": "More than two partners.",
        "kind": "presence",
        "count": "organization",
        "rows": {},
    }
    data = world(
        tmp_path,
        rows,
        [{**count, "quantifier": "more-than", "claimed": 2}, {**count, "id": "m", "claimed": 2}],
    )
    assert check(data, "n").verdict == SUPPORTED
    exact = check(data, "m")  # "2 partners" with 3 in the data: the claim understates
    assert exact.verdict == SUPPORTED_WITH_CAVEATS and "understated" in exact.caveats


def test_a_named_value_without_a_result_cannot_be_checked_never_not_supported(tmp_path):
    rows = [result("Acme", "box", "Offline", 1.0)]
    claim = {
        "id": "kinds",
        "statement": "Language and recommenders.",
        "kind": "presence",
        "count": "category",
        "rows": {"organization": "Acme"},
        "named": ["language", "recommendation"],
    }
    checked = check(world(tmp_path, rows, [claim]), "kinds")
    assert checked.verdict == CANNOT_BE_CHECKED and checked.cases[0].reaches is None
    assert "no result in the round for recommendation" in checked.reason


def test_a_family_selector_names_the_systems_that_mix_it_with_another(tmp_path):
    rows = [
        *node_rows(),
        result(
            "Dell_MangoBoost",
            "cluster",
            "Offline",
            190.0,
            gpus=16,
            nodes=2,
            accelerator="AMD Instinct MI300X 192GB HBM3 & AMD Instinct MI355X 288GB HBM3e",
        ),
    ]
    claim = ratio(
        "family",
        form="figure",
        quantifier="at-least",
        claimed=0.9,
        measure="per-gpu",
        scenarios=["Offline"],
        subject={"family": "AMD MI355X", "exclude": {"organization": "AMD"}, "combine": "each"},
    )
    data = world(tmp_path, rows, [claim], AMD_HEADER)
    assert data.results[data.results["system"] == "cluster"]["family"].iloc[0] == "AMD MI300X + MI355X"
    checked = check(data, "family")
    note = next(note for note in checked.context if "mix it with another accelerator" in note)
    assert note.startswith("The subject's family AMD MI355X leaves out systems that mix it")
    assert "Dell_MangoBoost cluster (16 GPUs) gpt-oss-120b Offline 0.95x, would hold" in note
