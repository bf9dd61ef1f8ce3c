"""A rerun on new results says what moved: a results file derived from the committed one (one
result halved, one system renamed) is built, checked and diffed; each says which verdicts moved
and why, recognises the rename, and ``--rename`` maps it for every claim at once. The figures
expected are read here from the tidy table with pandas."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from claimbook.inputs.renames import parse
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT
from tests.helpers.summaries import summary_from_tidy

VR = "VR-NVL72_VR-288GB_aarch64x72_TRT"
OLD_RACK, NEW_RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT", "GB300-NVL72-RACK_TRT"
RENAME = f"NVIDIA/{OLD_RACK}={NEW_RACK}"
QWEN = "qwen3-vl-235b-a22b"
TITLE = "what moved against the published book"


@pytest.fixture(scope="module")
def derived(tmp_path_factory, committed_results):
    """(summary.csv, its tidy table, the halved result's row before): Vera Rubin's Qwen3-VL
    Interactive result halved, NVIDIA's GB300 rack renamed (its folders too)."""
    folder = tmp_path_factory.mktemp("derived")
    table = committed_results.copy()
    halved = (table["system"] == VR) & (table["model"] == QWEN) & (table["scenario"] == "Interactive")
    assert halved.sum() == 1
    before = table[halved].iloc[0].to_dict()
    table.loc[halved, "result"] = table.loc[halved, "result"] / 2
    table.loc[halved, "per_accelerator"] = (
        table.loc[halved, "result"] / table.loc[halved, "total_accelerators"]
    )
    rack = (table["organization"] == "NVIDIA") & (table["system"] == OLD_RACK)
    assert rack.sum() >= 6
    table.loc[rack, "location"] = table.loc[rack, "location"].str.replace(f"/{OLD_RACK}/", f"/{NEW_RACK}/")
    table.loc[rack, "system"] = NEW_RACK
    summary = summary_from_tidy(table, folder / "summary.csv")
    tidy = folder / "new.csv"
    table.to_csv(tidy, index=False)
    return summary, tidy, before


def committed_verdict(claim: str) -> str:
    rows = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8"))
    return next(row["verdict"] for row in rows if row["claim"] == claim)


def moved_block(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(TITLE))
    return lines[start:]


def figures(text: str) -> list[float]:
    return [float(number.replace(",", "")) for number in re.findall(r"-?[\d,]+(?:\.\d+)?", text)]


@pytest.fixture(scope="module")
def built(derived, tmp_path_factory):
    summary, _, _ = derived
    out = tmp_path_factory.mktemp("moved") / "out"
    done = in_process("build", "--no-html", "--results", summary, "--out", out, "--only", "rubin_speedup")
    assert done.returncode == 0, done.stderr
    return out, done


def test_a_build_on_new_results_ends_with_what_moved_and_why(derived, built):
    _, _, before = derived
    out, done = built
    block = moved_block(done.stderr)
    assert block == done.stderr.splitlines()[-len(block) :]  # the last thing said
    rows = json.loads((out / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8"))
    now = {row["claim"]: row["verdict"] for row in rows}
    head = next(line for line in block if line.strip().startswith("rubin-qwen3vl-3.7x"))
    assert f"{committed_verdict('rubin-qwen3vl-3.7x')} -> {now['rubin-qwen3vl-3.7x']}" in head
    halved = next(line for line in block if f"/{VR}/{QWEN}/Interactive/" in line)
    at = block.index(halved)
    said = re.sub(r"\s+", " ", " ".join(block[at : at + 2]))
    old, new = figures(said.split(": result ", 1)[1])[:2]
    assert old == pytest.approx(before["result"], rel=1e-5) and new == pytest.approx(
        before["result"] / 2, rel=1e-5
    )
    assert any(f"renamed {NEW_RACK}" in line for line in block), block
    # The drift list once, each case on a line of its own; the warnings at the end only count it.
    drift = [line for line in done.stderr.splitlines() if line.startswith("drift:")]
    assert len(drift) == 1, drift
    lines = done.stderr.splitlines()
    cases, claim = [], None
    for line in lines[lines.index(drift[0]) + 1 :]:
        if not line.startswith("  "):
            break
        if line.startswith("  claim "):
            claim = line.strip()
        elif line.startswith("    "):
            cases.append((claim, line.strip()))
    assert cases and len(cases) == len(set(cases)), cases
    assert all(not line.startswith("warning: drift") or len(line) < 250 for line in lines)
    assert all(len(line) < 250 for line in block)


def test_an_out_book_from_other_results_has_the_page_of_what_changed(derived, built):
    summary, _, _ = derived
    out, _ = built
    page = (out / "book" / "generated" / "changes.md").read_text(encoding="utf-8")
    assert page.startswith("# What changed against the published book")
    assert hashlib.sha256(summary.read_bytes()).hexdigest() in page
    sources = (
        (ROOT / "data" / "mlperf" / "sources.csv").read_text(encoding="utf-8").splitlines()[1].split(",")
    )
    assert sources[4] in page and sources[5] in page  # the published summary's checksum and date
    assert "rubin-qwen3vl-3.7x" in page
    assert "book/generated/changes" in (out / "_toc.yml").read_text(encoding="utf-8")


def test_rename_maps_every_claim_at_once(derived, tmp_path):
    summary, _, _ = derived
    done = in_process(
        "build",
        "--no-html",
        "--results",
        summary,
        "--out",
        tmp_path / "out",
        "--only",
        "rubin_speedup",
        "--rename",
        RENAME,
    )
    assert done.returncode == 0, done.stderr
    block = moved_block(done.stderr)
    claims = [
        line.split()[0] for line in block[2:] if line.startswith("  ") and not line.startswith("      ")
    ]
    assert claims == ["rubin-qwen3vl-3.7x"], (
        block
    )  # the renamed baseline is found again: only the halved result moves
    rows = json.loads(
        (tmp_path / "out" / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8")
    )
    assert {row["verdict"] for row in rows if row["claim"] == "rubin-dsr1-2.5x"} == {
        committed_verdict("rubin-dsr1-2.5x")
    }
    assert "warning: page" not in done.stderr


def test_check_of_other_results_ends_with_what_moved(derived):
    summary, _, _ = derived
    done = in_process("check", "rubin-qwen3vl-3.7x", "amd-wan-vs-b300", "--results", summary)
    assert done.returncode == 0, done.stderr
    block = moved_block(done.stdout)
    assert [line.split()[0] for line in block[2:] if not line.startswith("      ")] == ["rubin-qwen3vl-3.7x"]


def test_diff_recognises_the_rename_and_names_the_verdicts_it_moves(derived):
    _, tidy, _ = derived
    done = in_process("diff", ROOT / "data" / "mlperf" / "v6.1.csv", tidy)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert (
        lines[0] == "1 changed, 0 new, 0 removed"
    )  # the renamed rack's results are matched, not new and removed
    assert any(
        line.strip().startswith(f"NVIDIA {OLD_RACK} -> {NEW_RACK}") and RENAME in line for line in lines
    )
    assert "e+" not in done.stdout and "  " not in lines[1]  # one number format, no padding
    at = lines.index(next(line for line in lines if line.startswith("Claims whose verdict this moves")))
    assert lines[at + 1].startswith("  rubin-qwen3vl-3.7x: supported with caveats -> ")
    given = in_process("diff", ROOT / "data" / "mlperf" / "v6.1.csv", tidy, "--rename", RENAME)
    assert given.returncode == 0 and "(--rename)" in given.stdout, given.stdout


def test_renames_are_read_from_the_command_line_or_a_yaml_file(tmp_path):
    assert parse(["A=B", "Org/C=D"]) == {(None, "A"): "B", ("Org", "C"): "D"}
    file = tmp_path / "renames.yaml"
    file.write_text("Org/C: D\nE: F\n", encoding="utf-8")
    assert parse([str(file)]) == {("Org", "C"): "D", (None, "E"): "F"}
    for bad in (["A=A"], ["A=B", "A=C"], ["nothing"], ["A=x/y"]):
        done = in_process("diff", "x.csv", "y.csv", *[item for text in bad for item in ("--rename", text)])
        one_error_line(done, code=2, starts="error: --rename")
    broken = tmp_path / "broken.yaml"
    broken.write_text("A: B\nC: [D\n", encoding="utf-8")
    with pytest.raises(Exception, match=rf"^{re.escape(str(broken))}, line \d+: not valid YAML \("):
        parse([str(broken)])


def test_a_rename_no_claim_names_is_refused_by_check_and_build(tmp_path):
    """It would change nothing: said in one line, before anything runs, naming it."""
    from claimbook.claims.renaming import unnamed_renames
    from claimbook.engine import load_registry

    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    named = next(
        str(claim.get("subject")["system"])
        for claim in registry.claims
        if isinstance(claim.get("subject"), dict) and isinstance(claim.get("subject").get("system"), str)
    )
    assert unnamed_renames(registry, {(None, named): "renamed", (None, "no-such-system"): "x"}) == [
        "no-such-system"
    ]
    for command in (("check",), ("build", "--no-html", "--out", tmp_path / "out")):
        done = in_process(*command, "--rename", "no-such-system=x")
        one_error_line(done, "--rename no-such-system: no claim names it", code=2, starts="error: --rename")
    assert not (tmp_path / "out").exists()


def test_a_copy_of_the_published_file_is_dated_as_published_not_as_copied(tmp_path):
    from claimbook.pipeline.moved import _file_record, dated

    copy = tmp_path / "summary.csv"
    copy.write_bytes(b"the same bytes\n")
    record = _file_record(copy)
    assert record["date"].endswith(" (the file's date)")
    published = {"file": "mlcommons/x summary.csv", "sha256": record["sha256"], "date": "16 September 2026"}
    assert dated(record, published)["date"] == "16 September 2026 (the published file's: the same bytes)"
    other = {**published, "sha256": "0" * 64}
    assert dated(record, other) == record


def test_what_moved_writes_each_figure_in_one_format():
    from claimbook.engine.moves import _value

    assert [_value(1039900.0), _value(964468.0), _value(0.0346)] == ["1,039,900", "964,468", "0.0346"]


def test_diff_offers_a_rename_only_where_a_claim_names_the_system():
    """diff offered `--rename` for every rename it found, and build then refused the one no claim
    names ("it would change nothing")."""
    from claimbook.engine import load_registry
    from claimbook.engine.result_diff import _rename_hint

    registry = load_registry()
    named = _rename_hint(registry, "NVIDIA", OLD_RACK, NEW_RACK)
    assert named == f" (map the claims to it: --rename NVIDIA/{OLD_RACK}={NEW_RACK})"
    unnamed = _rename_hint(registry, "Cisco", "C880A_M8_B300_270GBx8_TRT", "C880A-RENAMED")
    assert "no claim names it" in unnamed and "--rename" not in unnamed
    refused = in_process("check", "--rename", "Cisco/C880A_M8_B300_270GBx8_TRT=C880A-RENAMED")
    assert refused.returncode == 2 and "no claim names it" in refused.stderr


def test_a_committed_row_whose_claim_is_no_id_moves_nothing():
    """A scorecard edited by hand (a claim given as a list) is read as the build reads any
    committed row it cannot match: no claim's row, and no error."""
    from claimbook.engine.moves import compare

    built = [{"claim": "a", "verdict": "supported", "measured": 2.0, "unit": "x", "deciding": True}]
    committed = [{"claim": ["a"], "verdict": "not supported"}, dict(built[0])]
    assert compare(committed, built, None, None) == []
    moved = compare(committed[:1], built, None, None)
    assert [(move.claim, move.verdict_before) for move in moved] == [("a", "—")]
