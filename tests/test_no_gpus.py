"""A result with no accelerators (a CPU-only system has 0 GPUs) has no per-GPU figure: a ratio
claim against it is still judged on its results, never a division by zero."""

from enginekit import check, result, world

from claimbook.engine.verdict import CANNOT_BE_CHECKED, SUPPORTED_WITH_CAVEATS


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
