"""End-to-end: the command line builds the book, and bad input never damages the last good one.

These run real kernels (a few seconds per chapter execution).
"""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from summaries import CURRENT_LAYOUT, OLDER_LAYOUT, summary_from_tidy

from claimbook.build import GENERATED_PAGES
from claimbook.claims import load_registry
from conftest import ROOT

RUBIN_NEW = "VR-NVL72_VR-288GB_aarch64x72_TRT"


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def claimbook(*args):
    return subprocess.run([sys.executable, "-m", "claimbook", *map(str, args)], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def committed_book():
    digest = tree_digest(ROOT / "book")
    yield digest
    assert tree_digest(ROOT / "book") == digest, "a test build changed the committed book"


def test_rebuild_reproduces_the_committed_book(tmp_path, committed_book):
    done = claimbook("build", "--no-html", "--force", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    built = tmp_path / "out" / "book"
    chapters = sorted(path.name for path in (ROOT / "book" / "claims").glob("*.ipynb"))
    assert chapters == sorted(f"{chapter.name}.ipynb" for chapter in load_registry().written_chapters())
    for name in [f"claims/{chapter}" for chapter in chapters] + list(GENERATED_PAGES):
        assert (built / name).read_bytes() == (ROOT / "book" / name).read_bytes(), name
    assert "executed rubin_speedup" in done.stderr  # progress is shown


def test_changed_results_change_every_chapter_s_verdicts(tmp_path, committed_results, committed_book):
    changed = committed_results.copy()

    def scale(system, model, scenario, factor, organization="NVIDIA"):
        target = (changed.organization == organization) & (changed.system == system) & (changed.model == model) & (changed.scenario == scenario)
        assert target.sum() == 1
        changed.loc[target, "result"] = changed.loc[target, "result"] * factor

    rack = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
    scale(RUBIN_NEW, "qwen3-vl-235b-a22b", "Interactive", 0.5)  # 3.74x -> 1.87x
    scale("GB300-NVL72_GB300-288GB_aarch64x288_TRT", "deepseek-r1", "Offline", 0.9)  # 99.5% -> 89.5%
    scale(rack, "wan-2.2-t2v-a14b", "SingleStream", 5.7 / 5.807651162902777)  # now exactly 5.7 s
    summary = summary_from_tidy(changed, tmp_path / "summary.csv")
    done = claimbook("build", "--no-html", "--results", summary, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr

    def row(path, claim, scenario):
        rows = json.loads(path.read_text())
        return next(r for r in rows if r["claim"] == claim and r["scenario"] == scenario)

    committed, rebuilt = ROOT / "book" / "scorecard.json", tmp_path / "out" / "book" / "scorecard.json"
    for claim, scenario, before_verdict, after_verdict in [
        ("rubin-qwen3vl-3.7x", "Interactive", "supported with caveats", "not supported"),
        ("scaling-288gpu-99pct", "Offline", "supported with caveats", "not supported"),
        ("wan-latency-5.7s", "SingleStream", "not supported", "supported"),
    ]:
        before, after = row(committed, claim, scenario), row(rebuilt, claim, scenario)
        assert (before["verdict"], after["verdict"]) == (before_verdict, after_verdict), claim
    assert row(rebuilt, "rubin-qwen3vl-3.7x", "Interactive")["measured"] == pytest.approx(
        row(committed, "rubin-qwen3vl-3.7x", "Interactive")["measured"] * 0.5
    )
    assert row(rebuilt, "scaling-288gpu-99pct", "Offline")["measured"] == pytest.approx(
        row(committed, "scaling-288gpu-99pct", "Offline")["measured"] * 0.9
    )


def test_older_layout_builds_the_whole_book(tmp_path, committed_results, committed_book):
    summary = summary_from_tidy(committed_results, tmp_path / "older.csv", OLDER_LAYOUT)
    done = claimbook("build", "--results", summary, "--round", "v6.1", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "_build" / "html" / "book" / "claims" / "rubin_speedup.html").read_text()
    assert page.count('class="claimbook-chart"') == 3
    for chapter in ("scaling", "software_gains", "wan_video", "ecosystem", "economics"):
        assert (tmp_path / "out" / "_build" / "html" / "book" / "claims" / f"{chapter}.html").is_file()
    bundle = tmp_path / "out" / "_build" / "html" / "_static" / "claimbook-vega.js"
    assert bundle.read_text().splitlines()[1] == "(function () {"
    scorecard = json.loads((tmp_path / "out" / "book" / "scorecard.json").read_text())
    assert scorecard == json.loads((ROOT / "book" / "scorecard.json").read_text())


def without_column(tidy, path, column):
    return summary_from_tidy(tidy, path, [name for name in CURRENT_LAYOUT if name != column])


@pytest.mark.parametrize(
    "make_summary, exit_code, message",
    [
        (lambda tidy, path: without_column(tidy, path, "Result"), 2, "missing required column(s) Result"),
        (
            lambda tidy, path: summary_from_tidy(tidy.assign(result=tidy.result.where(tidy.index != 3, float("nan"))), path),
            2,
            "line 5: Result is 'nan'",
        ),
        (
            lambda tidy, path: summary_from_tidy(tidy[tidy.system != RUBIN_NEW], path),
            1,
            "no result with system='VR-NVL72_VR-288GB_aarch64x72_TRT'",
        ),
    ],
    ids=["missing-column", "non-numeric-result", "missing-system"],
)
def test_bad_results_fail_with_one_line_and_leave_books_alone(tmp_path, committed_results, committed_book, make_summary, exit_code, message):
    out = tmp_path / "out"
    good = claimbook("build", "--no-html", "--out", out)
    assert good.returncode == 0, good.stderr
    before = tree_digest(out)

    summary = make_summary(committed_results, tmp_path / "summary.csv")
    done = claimbook("build", "--no-html", "--results", summary, "--out", out)
    assert done.returncode == exit_code
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], done.stderr
    assert str(summary) in errors[0] or "chapter rubin_speedup: cell" in errors[0]
    assert tree_digest(out) == before
    assert not list(tmp_path.glob(".claimbook-build-*")), "staging left behind"


def test_ingest_command(tmp_path, committed_results):
    summary = summary_from_tidy(committed_results, tmp_path / "summary.csv")
    done = claimbook("ingest", summary, "--out", tmp_path / "v6.1.csv")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "v6.1.csv").read_bytes() == (ROOT / "data" / "mlperf" / "v6.1.csv").read_bytes()
    bad = claimbook("ingest", tmp_path / "absent.csv")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "cannot read the results file" in bad.stderr


def test_round_without_results_is_a_usage_error():
    done = claimbook("build", "--round", "v6.1")
    assert done.returncode != 0 and "--round goes with --results" in done.stderr
