"""Announcements are data: a claim, or a whole announcement, added by writing YAML alone reaches
the scorecard and the ledger; a mistake in a registry stops the build with one line that names
the file, the claim and the field, and writes nothing.

Each test builds from a copy of the project (its tracked files) with the copy's own sources
(``cwd`` and ``PYTHONPATH`` are the copy), into an ``--out`` folder of its own. The verdicts the
new claims should get are computed here from the results table with pandas.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.clirun import in_copy
from tests.helpers.errors import one_error_line

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path("data") / "mlperf" / "v6.1.csv"
AMD_REGISTRY = Path("data") / "claims" / "amd-v6.1.yaml"


# ---------------------------------------------------------------------------------------------
# A copy of the project, and the build run from it
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The project's tracked files, copied once per module."""
    target = tmp_path_factory.mktemp("pristine") / "project"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    names = [name for name in listed.stdout.decode().split("\0") if name] if listed.returncode == 0 else []
    if names:
        for name in names:
            source = ROOT / name
            if source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:  # not a git checkout: everything but the environment and the build outputs
        shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(".venv", ".git", "_build", "__pycache__"))
    return target


@pytest.fixture
def project(pristine, tmp_path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(pristine, copy)
    return copy


def run(copy: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    env["PYTHONPATH"] = str(copy)
    return subprocess.run(
        [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, check=False
    )


def build(copy: Path, out: Path, *only: str) -> subprocess.CompletedProcess:
    args = ["-m", "claimbook", "build", "--no-html", "--out", str(out)]
    for name in only:
        args += ["--only", name]
    return run(copy, *args)


def append_claims(path: Path, text: str) -> None:
    """Add claims at the end of a registry's ``claims`` list (its last key), as YAML text."""
    body = path.read_text(encoding="utf-8")
    path.write_text(body.rstrip("\n") + "\n\n" + text.strip("\n") + "\n", encoding="utf-8")


def scorecard(out: Path) -> dict[tuple[str, str], dict]:
    rows = json.loads((out / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8"))
    return {(row["claim"], row["scenario"]): row for row in rows}


def test_the_copy_runs_its_own_sources(project):
    done = run(project, "-c", "import claimbook; print(claimbook.__file__)")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).resolve().is_relative_to(project.resolve())


# ---------------------------------------------------------------------------------------------
# The expected verdicts, from the results table
# ---------------------------------------------------------------------------------------------


def results(copy: Path) -> pd.DataFrame:
    return pd.read_csv(copy / RESULTS, keep_default_na=False)


def result_row(table: pd.DataFrame, organization: str, system: str, model: str, scenario: str) -> pd.Series:
    rows = table[
        (table["organization"] == organization)
        & (table["system"] == system)
        & (table["model"] == model)
        & (table["scenario"] == scenario)
        & (table["division"] == "closed")
    ]
    assert len(rows) == 1
    return rows.iloc[0]


def stated_as(measured: float, claimed: float) -> bool:
    """The claimed figure is the measurement rounded or truncated at the claim's precision."""
    text = repr(float(claimed))
    step = Decimal(1).scaleb(-(len(text.split(".")[1].rstrip("0")) if "." in text else 0))
    value, target = Decimal(repr(float(measured))), Decimal(text).quantize(step)
    return target in (value.quantize(step, ROUND_HALF_UP), value.quantize(step, ROUND_DOWN))


def expected_verdict(holds: bool, *rows: pd.Series) -> str:
    if not holds:
        return "not supported"
    flagged = any(
        str(row["inferred"]) == "True" or row["availability"] != "available" or row["division"] != "closed"
        for row in rows
    )
    return "supported with caveats" if flagged else "supported"


# ---------------------------------------------------------------------------------------------
# A new claim, and a new announcement, as YAML only
# ---------------------------------------------------------------------------------------------

MI350P = "XE7745_8xMI350P_2xEPYC-9455"
NEW_AMD_CLAIM = f"""
  - id: amd-mi350p-wan-offline-figure
    title: "MI350P: 0.035 WAN 2.2 videos per second"
    statement: Eight MI350P cards generated 0.035 WAN 2.2 videos per second in the Offline scenario.
    kind: figure
    claimed: 0.035
    unit: samples/s
    benchmark: wan-2.2-t2v-a14b
    scenarios: [Offline]
    subject: {{organization: Dell_AMD, system: {MI350P}}}
"""


def test_a_new_claim_written_as_yaml_reaches_the_scorecard_and_the_ledger(project, tmp_path):
    append_claims(project / AMD_REGISTRY, NEW_AMD_CLAIM)
    out = tmp_path / "out"
    done = build(project, out, "amd-mi350p-wan-offline-figure")
    assert done.returncode == 0, done.stderr

    row = result_row(results(project), "Dell_AMD", MI350P, "wan-2.2-t2v-a14b", "Offline")
    want = expected_verdict(stated_as(row["result"], 0.035), row)
    assert want == "supported"  # 0.0346 rounds to the claimed 0.035
    card = scorecard(out)
    assert set(card) == {("amd-mi350p-wan-offline-figure", "Offline")}  # --only: this claim and nothing else
    got = card[("amd-mi350p-wan-offline-figure", "Offline")]
    assert got["verdict"] == want
    assert got["measured"] == pytest.approx(float(row["result"]), rel=1e-9)
    ledger = (out / "book" / "generated" / "front.md").read_text(encoding="utf-8")
    assert 'id="ledger-amd-mi350p-wan-offline-figure"' in ledger
    assert f'data-verdict="{want}"' in ledger.split('id="ledger-amd-mi350p-wan-offline-figure"')[1][:200]


ORACLE_RACK, ORACLE_NODE = "GB300-NVL72_GB300-288GB_aarch64x72_TRT", "GB300-NVL72_GB300-288GB_aarch64x4_TRT"
ACME = f"""
announcement:
  id: acme-v6.1
  title: Oracle's MLPerf Inference v6.1 results (a test announcement)
  publisher: Oracle
  claimant: Oracle
  vendor: NVIDIA
  date: "2026-09-18"
  round: v6.1
  division: closed

claims:
  - id: acme-oracle-gptoss-rack
    title: "1.1 million gpt-oss-120b tokens per second on one rack"
    statement: An Oracle GB300 NVL72 rack served 1.1 million gpt-oss-120b tokens per second Offline.
    kind: figure
    claimed: 1.1
    scale: 1000000
    unit: million tokens/s
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    subject: {{organization: Oracle, system: {ORACLE_RACK}}}

  - id: acme-oracle-gptoss-scaling
    title: "100% scaling from one node to a rack"
    statement: >-
      From one GB300 node (4 GPUs) to a whole NVL72 rack (72 GPUs), Oracle's gpt-oss-120b Offline
      throughput scaled at 100% efficiency.
    kind: scaling
    claimed: 100
    unit: "%"
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    small: {{organization: Oracle, system: {ORACLE_NODE}}}
    large: {{organization: Oracle, system: {ORACLE_RACK}}}
"""


def test_a_new_announcement_file_reaches_the_scorecard_and_the_ledger(project, tmp_path):
    (project / "data" / "claims" / "acme-v6.1.yaml").write_text(ACME.lstrip(), encoding="utf-8")
    out = tmp_path / "out"
    done = build(project, out, "acme-oracle-gptoss-rack", "acme-oracle-gptoss-scaling")
    assert done.returncode == 0, done.stderr

    table = results(project)
    rack = result_row(table, "Oracle", ORACLE_RACK, "gpt-oss-120b", "Offline")
    node = result_row(table, "Oracle", ORACLE_NODE, "gpt-oss-120b", "Offline")
    tokens = rack["result"] / 1e6
    efficiency = (
        100
        * (rack["result"] / node["result"])
        / (int(rack["total_accelerators"]) / int(node["total_accelerators"]))
    )
    expected = {
        ("acme-oracle-gptoss-rack", "Offline"): (tokens, expected_verdict(stated_as(tokens, 1.1), rack)),
        ("acme-oracle-gptoss-scaling", "Offline"): (
            efficiency,
            expected_verdict(stated_as(efficiency, 100) or efficiency > 100, rack, node),
        ),
    }
    assert [verdict for _, verdict in expected.values()] == ["supported", "supported"]  # 1.098 M; 100.4%
    card = scorecard(out)
    assert {claim for claim, _ in card} == {"acme-oracle-gptoss-rack", "acme-oracle-gptoss-scaling"}
    ledger = (out / "book" / "generated" / "front.md").read_text(encoding="utf-8")
    page = (out / "book" / "generated" / "acme-v6.1.md").read_text(encoding="utf-8")
    for key, (measured, verdict) in expected.items():
        assert card[key]["announcement"] == "acme-v6.1"
        assert card[key]["verdict"] == verdict
        assert card[key]["measured"] == pytest.approx(measured, rel=1e-6)
        assert f'id="ledger-{key[0]}"' in ledger
        assert key[0] in page


# ---------------------------------------------------------------------------------------------
# A mistake in a registry: exit 2, one line naming file, claim and field, nothing written
# ---------------------------------------------------------------------------------------------

FIGURE = """
    statement: A figure claim with one mistake in it.
    unit: samples/s
    benchmark: wan-2.2-t2v-a14b
    scenarios: [Offline]
"""
MISTAKES = {
    "unknown kind": (
        "amd-mistake-kind",
        "kind",
        f"""
  - id: amd-mistake-kind
    kind: figures
    claimed: 0.035{FIGURE}    subject: {{organization: Dell_AMD, system: {MI350P}}}
""",
    ),
    "unknown system in a selector": (
        "amd-mistake-system",
        "subject",
        f"""
  - id: amd-mistake-system
    kind: figure
    claimed: 0.035{FIGURE}    subject: {{organization: Dell_AMD, system: XE7745_8xMI350P_2xEPYC-9456}}
""",
    ),
    "missing claimed value": (
        "amd-mistake-claimed",
        "claimed",
        f"""
  - id: amd-mistake-claimed
    kind: figure{FIGURE}    subject: {{organization: Dell_AMD, system: {MI350P}}}
""",
    ),
    "duplicate id": (
        "amd-gptoss-scaling-72",
        "id",
        f"""
  - id: amd-gptoss-scaling-72
    kind: figure
    claimed: 0.035{FIGURE}    subject: {{organization: Dell_AMD, system: {MI350P}}}
""",
    ),
    "a field the claim's quantifier does not use": (
        "amd-mistake-within",
        "within",
        f"""
  - id: amd-mistake-within
    kind: figure
    claimed: 0.035
    quantifier: about
    within: 5{FIGURE}    subject: {{organization: Dell_AMD, system: {MI350P}}}
""",
    ),
    "two sizes compared without saying how": (
        "amd-mistake-sizes",
        "measure",
        """
  - id: amd-mistake-sizes
    statement: Crusoe's 512 MI355X against AMD's own eight.
    kind: ratio
    form: figure
    claimed: 40
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    subject: {organization: Crusoe, system: 512xMI355X_Crusoe_GPT}
    baseline: {organization: AMD, system: 8xMI355X_2xEPYC_9575F}
""",
    ),
    "unknown field": (
        "amd-mistake-field",
        "speedup",
        f"""
  - id: amd-mistake-field
    kind: figure
    claimed: 0.035
    speedup: 2{FIGURE}    subject: {{organization: Dell_AMD, system: {MI350P}}}
""",
    ),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_registry_mistake_stops_the_build_with_one_line(project, tmp_path, mistake):
    claim_id, field, text = MISTAKES[mistake]
    append_claims(project / AMD_REGISTRY, text)
    out = tmp_path / "out"
    # The mistake stops the build before any work: the real command line for the first case, the
    # rest in a child of this process with the copy's own package (tests/helpers/clirun.py).
    if mistake == next(iter(MISTAKES)):
        done = build(project, out)
    else:
        done = in_copy(project, "build", "--no-html", "--out", out)
    line = one_error_line(done, "amd-v6.1.yaml", f"claim {claim_id}", f"field {field}", code=2)
    if field == "measure":  # the one line names the two sizes
        assert "(512 GPUs) against AMD 8xMI355X_2xEPYC_9575F (8 GPUs)" in line, line
    left = sorted(path.name for path in out.iterdir()) if out.exists() else []
    assert not left, f"the failed build left {left} in the --out folder"
