"""A result with no accelerators (a CPU-only system has 0 GPUs) has no per-GPU figure: a ratio
claim against it is still judged on its results, never a division by zero."""

from claimbook.engine.verdict import CANNOT_BE_CHECKED, SUPPORTED_WITH_CAVEATS
from tests.helpers.enginekit import check, result, world


def claim(**fields):
    return {
        "id": "fast",
        "statement": "Acme is twice as fast as the CPU server.",
        "kind": "ratio",
        "form": "figure",
        "quantifier": "up-to",
        "claimed": 2,
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "subject": {"organization": "Acme", "system": "new"},
        "baseline": {"organization": "Acme", "system": "cpu", "gpus": 0},
        **fields,
    }


def rows():
    return [
        result("Acme", "new", "Offline", 200.0),
        result("Acme", "cpu", "Offline", 100.0, gpus=0, accelerator="N/A"),
        result(
            "Other", "cpu", "Offline", 150.0, gpus=0, accelerator="N/A"
        ),  # the best of the baseline's class
    ]


def test_a_total_ratio_against_a_result_without_gpus_is_judged(tmp_path):
    checked = check(world(tmp_path, rows(), [claim(measure="whole-system")]), "fast")
    assert checked.verdict == SUPPORTED_WITH_CAVEATS
    assert "different-size" in checked.caveats
    assert checked.cases[0].measured == 200.0 / 100.0
    assert checked.cases[0].detail.per_gpu_ratio is None


def test_a_per_gpu_ratio_without_gpus_says_it_has_no_figure(tmp_path):
    checked = check(world(tmp_path, rows(), [claim(measure="per-gpu")]), "fast")
    assert checked.verdict == CANNOT_BE_CHECKED
    assert not [case for case in checked.cases if case.measured is not None]


# -- every kind: a CPU-only rival and a zero-accelerator row in every benchmark and scenario ----

CPU_ONLY, INTEGRATED = "N/A", "Intel(R) Arc(TM) 140T GPU"  # the latter as v5.1 publishes it, a# empty


def _without_gpus(group, organization: str, accelerator: str, factor: float) -> dict:
    """A result of ``group``'s benchmark and scenario by a system without accelerators (a CPU-only
    one, or an integrated GPU published with 0), ``factor`` times the group's best (better above 1)."""
    import math

    row = group.iloc[0].to_dict()
    higher = bool(row["higher_is_better"])
    best = group["result"].max() if higher else group["result"].min()
    system = f"{organization}-{'cpu' if accelerator == CPU_ONLY else 'igpu'}"
    return {
        **row,
        "organization": organization,
        "system": system,
        "system_name": f"{organization} {system}",
        "accelerator": accelerator,
        "nodes": 1,
        "accelerators_per_node": 0,
        "total_accelerators": 0,
        "result": best * factor if higher else best / factor,
        "per_accelerator": math.nan,
        "gpu_watts": math.nan,
        "result_id": "",
        "location": f"./{row['division']}/{organization}/results/{system}/{row['model']}/{row['scenario']}",
    }


def _book_with_gpuless_rows(committed_results):
    """The committed book's data with, in every benchmark, scenario and division, a CPU-only rival
    ahead of everyone, an integrated-GPU rival, and the same two systems under the leader's name."""
    import pandas as pd

    from claimbook.engine.context import book_data
    from tests.helpers.project import ROOT

    extra = []
    for _, group in committed_results.groupby(["model", "scenario", "division"], sort=True):
        leader = group.sort_values("result", ascending=not bool(group["higher_is_better"].iloc[0])).iloc[0]
        extra += [
            _without_gpus(group, "CpuRival", CPU_ONLY, 1.5),
            _without_gpus(group, "IgpuRival", INTEGRATED, 1.2),
            _without_gpus(group, str(leader["organization"]), CPU_ONLY, 0.5),
            _without_gpus(group, str(leader["organization"]), INTEGRATED, 1.1),
        ]
    table = pd.concat([committed_results, pd.DataFrame(extra)], ignore_index=True)
    return book_data(ROOT, table)


def _per_gpu(claim):
    """The claim read per GPU, where its kind compares sides in a measure."""
    from dataclasses import replace

    fields = dict(claim.fields)
    if "measure" in fields or claim.kind in ("ratio", "unnamed-baseline"):
        fields["measure"] = "per-gpu"
    if "measures" in fields or claim.kind == "leading":
        fields["measures"] = ["per-gpu"]
    return replace(claim, fields=fields, parts=tuple(_per_gpu(part) for part in claim.parts))


def test_every_kind_judges_claims_beside_systems_without_accelerators(committed_results):
    import warnings

    from claimbook import engine

    data = _book_with_gpuless_rows(committed_results)
    checked = set()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a division by zero in numpy warns
        for claim in data.registry.claims:
            for reading in (claim, _per_gpu(claim)):
                result = engine.check(reading, data)
                assert result.verdict, claim.id
                checked |= {claim.kind, *(part.kind for part in claim.parts)}
    assert set(engine.SPECS) <= checked | {"not-checkable"}, sorted(set(engine.SPECS) - checked)


def test_a_per_gpu_lead_says_a_cpu_only_rival_has_no_figure_and_judges_the_rest(tmp_path):
    leading = {
        "id": "lead",
        "statement": "Acme has the top result per GPU.",
        "kind": "leading",
        "metric": "result",
        "subject": {"organization": "Acme", "system": "new"},
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "measures": ["per-gpu"],
    }
    rows = [
        result("Acme", "new", "Offline", 800.0),  # 100 per GPU
        result("Other", "gpu", "Offline", 400.0),  # 50 per GPU
        result("Other", "cpu", "Offline", 5000.0, gpus=0, accelerator="N/A"),  # the best system
    ]
    checked = check(world(tmp_path, rows, [leading]), "lead")
    case = checked.cases[0]
    assert case.measured == (800.0 / 8) / (400.0 / 8)
    assert case.reaches
    assert "no per-GPU figure for Other cpu" in " ".join(checked.notes)


def test_a_per_gpu_lead_of_a_cpu_only_subject_has_no_figure(tmp_path):
    leading = {
        "id": "lead",
        "statement": "Acme's server has the top result per GPU.",
        "kind": "leading",
        "metric": "result",
        "subject": {"organization": "Acme", "system": "cpu"},
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "measures": ["per-gpu"],
    }
    rows = [
        result("Acme", "cpu", "Offline", 800.0, gpus=0, accelerator="N/A"),
        result("Other", "gpu", "Offline", 400.0),
    ]
    checked = check(world(tmp_path, rows, [leading]), "lead")
    assert checked.verdict == CANNOT_BE_CHECKED
    assert "no per-GPU figure for Acme cpu" in checked.reason
