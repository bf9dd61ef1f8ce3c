"""``claimbook check``: the verdicts and figures of the built pages, in one process, nothing written."""

import json
import subprocess
import sys

from claimbook.engine import load_registry
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT
from tests.helpers.treehash import snapshot


def check(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "claimbook", "check", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_check_gives_the_scorecard_of_the_built_pages_for_every_claim():
    before = [snapshot(ROOT / "book"), snapshot(ROOT / "data")]
    done = check("--json")
    assert done.returncode == 0, done.stderr
    reports = json.loads(done.stdout)
    committed = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text())
    registry = load_registry()
    assert [report["claim"] for report in reports] == [claim.id for claim in registry.claims]
    for report in reports:
        claim_id = report["claim"]
        book = [row for row in committed if claim_id in (row["claim"], row["part_of"])]
        assert report["rows"] == book, claim_id
        assert report["verdict"] == book[0]["verdict"]
        locations = {item["location"] for item in report["results"]}
        evidence = {  # a sum's results are cited joined by " + "
            text
            for row in book
            for cited in (row["evidence"] or "").split("; ")
            for text in cited.split(" + ")
            if text
        }
        assert evidence <= locations, claim_id  # every result a case cites is listed as used
    assert [snapshot(ROOT / "book"), snapshot(ROOT / "data")] == before  # nothing written


def test_check_prints_the_verdict_figures_caveats_results_and_reason():
    done = check("amd-wan-vs-b300")
    assert done.returncode == 0, done.stderr
    committed = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text())
    rows = [row for row in committed if row["claim"] == "amd-wan-vs-b300"]
    lines = done.stdout.splitlines()
    assert lines[0] == f"amd-wan-vs-b300 (amd-v6.1): {rows[0]['verdict']}"
    deciding = next(row for row in rows if row["deciding"])
    assert f"  deciding case: {deciding['scenario']}" in lines
    assert f"  caveats: {', '.join(rows[0]['caveats'])}" in lines
    assert f"  reason: {rows[0]['reason']}" in lines
    for row in rows:
        assert any(line.lstrip("-* ").startswith(f"{row['scenario']}: measured") for line in lines)
        for location in row["evidence"].split("; "):
            assert any(line.endswith(location) for line in lines), location


def test_an_unknown_claim_names_the_close_ones():
    done = check("rubin-qwen3vl-3.8x")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: unknown claim 'rubin-qwen3vl-3.8x'; close: {done.stderr.split('close: ')[1].strip()}"
    ]
    assert "rubin-qwen3vl-3.7x" in done.stderr


def test_a_draft_registry_is_checked_in_place_of_its_announcement(tmp_path):
    import yaml

    path = ROOT / "data" / "claims" / "amd-v6.1.yaml"
    document = yaml.safe_load(path.read_text())
    wan = next(claim for claim in document["claims"] if claim["id"] == "amd-wan-vs-b300")
    wan["claimed"] = {key: value * 3 for key, value in wan["claimed"].items()}
    document["claims"] = [wan]
    draft = tmp_path / "draft.yaml"
    draft.write_text(yaml.safe_dump(document))
    done = check("--registry", draft, "--json")
    assert done.returncode == 0, done.stderr
    reports = json.loads(done.stdout)
    assert [report["claim"] for report in reports] == ["amd-wan-vs-b300"]
    assert reports[0]["verdict"] == "not supported"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["draft.yaml"]
    wan["kind"] = "no-such-kind"
    draft.write_text(yaml.safe_dump(document))
    refused = check("--registry", draft)
    one_error_line(refused, "field kind: unknown kind 'no-such-kind'", code=2)


def test_a_missing_draft_or_a_stray_round_is_one_line_and_exit_2(tmp_path):
    for args, said in (
        (("--registry", tmp_path / "nowhere.yaml"), "nowhere.yaml: no such file (a registry file, YAML)"),
        (("--registry", tmp_path), f"{tmp_path}: is not a regular file (a registry file, YAML)"),
        (("--round", "v6.1"), "--round goes with --results"),
    ):
        done = check(*args)
        one_error_line(done, said, code=2, stdout="")


def test_check_names_what_a_claims_selector_leaves_out():
    """The left-out results of a comparison with counterparts are in the check's output, as on
    the card: the partners' 512-GPU MI355X systems have no AMD result of their size."""
    done = check("amd-partners-7")
    assert done.returncode == 0, done.stderr
    reason = next(line for line in done.stdout.splitlines() if "Left out" in line)
    assert reason.startswith("    reason: ")
    assert (
        "Left out, no baseline result with the same family and gpus: Crusoe 512xMI355X_Crusoe_GPT (512 GPUs)"
        in reason
    )
