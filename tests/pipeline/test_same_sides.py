"""A comparison whose two sides are the very same results (hostile moments II).

A registry may write one system two ways: another case, other spaces, an invisible character,
its other name (the summary's ``SystemName``). Selectors read names without case, spaces or
punctuation, so a subject and a baseline written so find the same results, and every ratio is 1
by construction: no verdict an analyst could sign (a parity claim would be "supported" by a
result set against itself). That is a registry error, one line naming the claim and both
spellings, for ``check`` and ``build`` alike, before anything is written. Where only one case's
two sides coincide (a subject's best that is the very result it is set against), the comparison
is a real one and stands, and the card says that case shows no difference by construction.
"""

from __future__ import annotations

import json

import pytest

from claimbook.common.paths import BOOK_DIR, GENERATED_DIR
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT, project_copy, run_copy

SYSTEM = "8xMI355X_2xEPYC_9575F"  # AMD's MI355X node on WAN 2.2 (committed data)
SUBJECT = {"organization": "AMD", "system": SYSTEM}
BENCHMARK = "wan-2.2-t2v-a14b"
HEADER = """\
announcement:
  id: sides-v6.1
  title: A post that compares a system with itself
  publisher: Tester
  claimant: AMD
  vendor: AMD
  date: "2026-09-21"
  round: v6.1
claims:
"""


def _system_name() -> str:
    """The node's other name in the committed results (its SystemName), read from the data."""
    import pandas as pd

    rows = pd.read_csv(ROOT / "data" / "mlperf" / "v6.1.csv")
    mine = rows[(rows["organization"] == "AMD") & (rows["system"] == SYSTEM)]
    names = set(mine[mine["model"] == BENCHMARK]["system_name"])
    assert len(names) == 1 and names != {SYSTEM}, names
    return names.pop()


SPELLINGS = {
    "another case": {"organization": "amd", "system": SYSTEM.lower()},
    "other spaces": {"organization": " AMD ", "system": SYSTEM.replace("_", " ") + "  "},
    "a zero-width space": {"organization": "AM\u200bD", "system": SYSTEM},
    "its other name": {"organization": "AMD", "system": _system_name()},
}


def registry(baseline: dict, claim_id: str = "same-twice") -> str:
    claim = {
        "id": claim_id,
        "statement": "The node is 18% ahead of itself.",
        "kind": "ratio",
        "form": "figure",
        "claimed": {"Offline": 18},
        "unit": "%",
        "benchmark": BENCHMARK,
        "scenarios": ["Offline", "SingleStream"],
        "subject": SUBJECT,
        "baseline": baseline,
    }
    return HEADER + f"  - {json.dumps(claim)}\n"


def _said_once(done, claim_id: str, baseline: dict) -> str:
    """The one line of a refusal: the claim, the field, both spellings (invisible characters shown)."""
    line = one_error_line(done, code=2)
    assert f"claim {claim_id}: field baseline: finds the same 2 results as the subject (AMD {SYSTEM})" in line
    assert f"the subject is written organization 'AMD', system '{SYSTEM}'" in line, line
    written = ", ".join(f"{field} {value!r}" for field, value in baseline.items())
    assert f"and the baseline {written}" in line, line
    assert "1 by construction" in line, line
    return line


@pytest.mark.parametrize("how", SPELLINGS)
def test_check_refuses_a_subject_equal_to_its_baseline(tmp_path, how):
    path = tmp_path / "sides-v6.1.yaml"
    path.write_text(registry(SPELLINGS[how]), encoding="utf-8")
    done = in_process("check", "--registry", path)
    line = _said_once(done, "same-twice", SPELLINGS[how])
    if how == "a zero-width space":
        assert "\u200b" not in line and "\\u200b" in line, line  # shown, never printed raw
    assert not done.stdout, done.stdout  # no verdict at all, not a silent 1.0x


def test_a_baseline_of_other_results_is_judged(tmp_path):
    """The same claim against another organization's node of the same name (squashed alike)."""
    path = tmp_path / "sides-v6.1.yaml"
    path.write_text(registry({"organization": "Oracle", "system": SYSTEM.replace("_9575F", "-9575F")}))
    done = in_process("check", "--registry", path, "--json")
    assert done.returncode == 0, done.stderr
    (report,) = json.loads(done.stdout)
    assert report["verdict"] in ("supported", "supported with caveats", "not supported"), report
    assert not any("by construction" in row["reason"] for row in report["rows"]), report


def test_build_refuses_it_in_a_project_copy_before_writing(tmp_path):
    """The registry written as data in the project: ``check`` (all claims) and ``build`` say the
    same one line, and the build writes no page."""
    copy = project_copy(tmp_path / "project")
    baseline = SPELLINGS["a zero-width space"]
    (copy / "data" / "claims" / "sides-v6.1.yaml").write_text(registry(baseline), encoding="utf-8")
    checked = run_copy(copy, "check")
    line = _said_once(checked, "same-twice", baseline)
    out = tmp_path / "out"
    built = run_copy(copy, "build", "--out", out, "--only", "same-twice")
    assert built.stderr.splitlines()[-1] == line.rstrip("\n"), built.stderr
    assert built.returncode == 2 and "Traceback" not in built.stderr, built.stderr
    assert not (out / BOOK_DIR / GENERATED_DIR).exists(), "a refused registry wrote pages"


def test_one_case_whose_sides_coincide_is_said_on_the_card(tmp_path):
    """A subject's best that is, in one scenario, the very result it is set against: a real
    comparison (the best of a set against one of them), judged; the card and ``check``'s reason
    say that case shows no difference by construction, and only that case."""
    from claimbook.engine import scorecard
    from claimbook.pipeline.load import check_selections
    from claimbook.present.blocks import card, card_text
    from tests.helpers.enginekit import check, result, world

    rows = [
        result("Acme", "rack", "Offline", 100.0),
        result("Acme", "node", "Offline", 50.0),
        result("Acme", "rack", "Server", 10.0),
        result("Acme", "node", "Server", 20.0),
    ]
    claim = {
        "id": "best-against-one",
        "statement": "Our best is up to twice the rack.",
        "kind": "ratio",
        "form": "figure",
        "quantifier": "up-to",
        "claimed": 2.0,
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline", "Server"],
        "subject": {"organization": "Acme", "combine": "best"},
        "baseline": {"organization": "ACME", "system": "Rack"},
    }
    data = world(tmp_path, rows, [claim])
    check_selections(data)  # not the same results: the subject has the node's too
    checked = check(data, "best-against-one")
    measured = {case.label: case.measured for case in checked.cases}
    assert measured == {"Offline": pytest.approx(100.0 / 100.0), "Server": pytest.approx(20.0 / 10.0)}
    said = [note for note in checked.context if "by construction" in note]
    expected = (
        "In Offline, the subject and the baseline are the same result (Acme rack): that case compares a "
        "result with itself, so it shows no difference by construction, not by measurement."
    )
    assert said == [expected], checked.context
    assert f"For context: {said[0]}" in card_text(checked)
    assert said[0] in card(checked)
    (offline, *_) = scorecard.rows_for(checked, "acme-v6.1")
    assert said[0] in offline["reason"]


def test_a_larger_configuration_equal_to_the_smaller_is_a_registry_error(tmp_path):
    """The same rule for a scaling claim's two sides, written as the results write them and not."""
    from claimbook.common.errors import UsageError
    from claimbook.pipeline.load import check_selections
    from tests.helpers.enginekit import result, world

    rows = [
        result("Acme", "rack", "Offline", 100.0, gpus=72, nodes=9),
        result("Acme", "node", "Offline", 10.0),
    ]
    claim = {
        "id": "scales-to-itself",
        "statement": "Scales from one node to a rack.",
        "kind": "scaling",
        "claimed": 95.0,
        "unit": "%",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline"],
        "small": {"organization": "Acme", "system": "Rack "},
        "large": {"organization": "Acme", "system": "rack"},
    }
    with pytest.raises(
        UsageError, match="claim scales-to-itself: field small: finds the same 1 result as the large"
    ):
        check_selections(world(tmp_path, rows, [claim]))
    claim["small"]["system"] = "node"
    check_selections(world(tmp_path, rows, [claim]))  # two configurations: a scaling claim
