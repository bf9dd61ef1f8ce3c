"""Rerunning with new data: the cache, --only, --param, parallel runs, diff and list."""

import json
import subprocess
import sys

import pytest
from summaries import summary_row, tidy_from_rows

from claimbook import build as build_module
from claimbook.build import CACHE_FILE, UsageError, apply_override, build, resolve_targets
from claimbook.claims import load_registry
from claimbook.diff import claimed_systems, diff_results, format_diff
from conftest import ROOT


def quiet(_message):
    pass


CHAPTERS = [chapter.name for chapter in load_registry().written_chapters()]


@pytest.fixture(scope="module")
def first_build(tmp_path_factory):
    """Every chapter executed, in parallel on two workers."""
    out = tmp_path_factory.mktemp("rebuild") / "out"
    result = build(out=out, html=False, only=CHAPTERS, jobs=2, report=quiet)
    return out, result


def notebooks(folder):
    return {path.name: path.read_bytes() for path in sorted((folder / "book" / "claims").glob("*.ipynb"))}


def test_first_build_executes_every_chapter(first_build):
    out, result = first_build
    assert sorted(result.executed) == sorted(CHAPTERS)
    cache = json.loads((out / CACHE_FILE).read_text())
    assert sorted(cache) == sorted(CHAPTERS)


def test_a_rebuild_with_nothing_changed_starts_no_kernel(first_build, monkeypatch):
    out, _ = first_build
    before = notebooks(out)

    def no_kernel(*args, **kwargs):
        raise AssertionError("a kernel was started")

    monkeypatch.setattr("claimbook.execute.execute_chapter", no_kernel)
    monkeypatch.setattr("jupyter_client.manager.KernelManager._async_start_kernel", no_kernel)
    monkeypatch.setattr(build_module, "ThreadPoolExecutor", no_kernel)
    result = build(out=out, html=False, report=quiet)
    assert result.executed == ()
    assert notebooks(out) == before


def test_only_one_parameter_change_reexecutes_only_its_chapter(first_build):
    out, _ = first_build
    before = notebooks(out)
    result = build(out=out, html=False, overrides=["scaling.tolerance=0.5"], report=quiet)
    assert result.executed == ("scaling",)
    after = notebooks(out)
    assert [name for name in before if before[name] != after[name]] == ["scaling.ipynb"]
    restored = build(out=out, html=False, report=quiet)  # back to the registry's value
    assert restored.executed == ("scaling",)
    assert notebooks(out) == before


def test_only_forces_one_chapter(first_build):
    out, _ = first_build
    result = build(out=out, html=False, only=["wan-latency-5.7s"], report=quiet)
    assert result.executed == ("wan_video",)


def test_parallel_and_serial_builds_give_identical_notebooks(tmp_path, first_build):
    out, _ = first_build
    serial = tmp_path / "serial"
    result = build(out=serial, html=False, jobs=1, only=CHAPTERS, report=quiet)
    assert sorted(result.executed) == sorted(CHAPTERS)
    assert notebooks(serial) == notebooks(out)  # serial and parallel, byte for byte
    committed = {path.name: path.read_bytes() for path in (ROOT / "book" / "claims").glob("*.ipynb")}
    assert notebooks(serial) == committed


def test_overrides_are_checked():
    registry = load_registry()
    parameters = {chapter.name: registry.chapter_parameters(chapter.name) for chapter in registry.written_chapters()}
    assert apply_override(registry, parameters, "rubin-dsr1-2.5x.claimed=2.6") == "rubin_speedup"
    assert parameters["rubin_speedup"]["claims"]["rubin-dsr1-2.5x"]["claimed"] == 2.6
    assert apply_override(registry, parameters, 'economics.assumed_prices={"NVIDIA GB300": 12}') == "economics"
    assert parameters["economics"]["assumed_prices"] == {"NVIDIA GB300": 12}
    for text, message in [
        ("nowhere.tolerance=1", "neither a built chapter nor a claim"),
        ("scaling.colour=1", "has no parameter 'colour'"),
        ("scaling.tolerance", "expected CLAIM.NAME=VALUE"),
        ("agentx-30x.claimed=3", "neither a built chapter nor a claim"),
    ]:
        with pytest.raises(UsageError, match=message):
            apply_override(registry, parameters, text)
    assert resolve_targets(registry, ["partners-19", "scaling"]) == {"ecosystem", "scaling"}
    with pytest.raises(UsageError, match="no chapter or checkable claim"):
        resolve_targets(registry, ["agentx-30x"])


def cli(*args):
    return subprocess.run([sys.executable, "-m", "claimbook", *map(str, args)], capture_output=True, text=True, cwd=ROOT)


def test_cli_param_and_only_errors_are_one_line():
    for args, message in [
        (["build", "--param", "scaling.colour=1"], "has no parameter 'colour'"),
        (["build", "--only", "nothing-like-this"], "no chapter or checkable claim"),
        (["build", "--jobs", "0"], "--jobs must be at least 1"),
    ]:
        done = cli(*args)
        assert done.returncode == 2, args
        assert [line for line in done.stderr.splitlines() if line.startswith("error:")] == [done.stderr.strip()]
        assert message in done.stderr


def test_cli_param_changes_the_scorecard(tmp_path):
    done = cli("build", "--no-html", "--out", tmp_path / "out", "--param", "wan-latency-5.7s.claimed=5.8")
    assert done.returncode == 0, done.stderr
    rows = json.loads((tmp_path / "out" / "book" / "scorecard.json").read_text())
    latency = next(row for row in rows if row["claim"] == "wan-latency-5.7s")
    assert (latency["claimed"], latency["verdict"]) == (5.8, "supported")  # 5.81 s is "5.8"


def test_list_shows_every_claim_and_its_verdict():
    done = cli("list")
    assert done.returncode == 0, done.stderr
    for claim in load_registry().claims:
        assert claim.id in done.stdout
    assert "not supported" in done.stdout and "cannot be checked" in done.stdout


def test_diff(tmp_path):
    old = tidy_from_rows(tmp_path, [
        summary_row(Organization="NVIDIA", Scenario="Offline", Result="100"),
        summary_row(Organization="NVIDIA", Scenario="Server", Result="90"),
        summary_row(Organization="Other", Scenario="Offline", Result="50"),
    ])
    new = tidy_from_rows(tmp_path, [
        summary_row(Organization="NVIDIA", Scenario="Offline", Result="110"),
        summary_row(Organization="NVIDIA", Scenario="Interactive", Result="30"),
        summary_row(Organization="Other", Scenario="Offline", Result="55"),
    ])
    table = diff_results(old, new)
    assert sorted(zip(table.organization, table.scenario, table.status)) == [
        ("NVIDIA", "Interactive", "new"), ("NVIDIA", "Offline", "changed"), ("NVIDIA", "Server", "removed"),
        ("Other", "Offline", "changed"),
    ]
    offline = table[(table.organization == "NVIDIA") & (table.scenario == "Offline")].iloc[0]
    assert offline.change_percent == pytest.approx(10.0)
    only_claimed = diff_results(old, new, {("NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x72_TRT")})
    assert set(only_claimed.organization) == {"NVIDIA"}
    assert format_diff(diff_results(old, old)) == "no differences"
    assert format_diff(table).startswith("2 changed, 1 new, 1 removed")
    assert ("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT") in claimed_systems(load_registry())


def test_cli_diff_reads_tidy_tables(tmp_path):
    done = cli("diff", ROOT / "data" / "mlperf" / "v6.1.csv", ROOT / "data" / "mlperf" / "v6.1.csv")
    assert done.returncode == 0 and done.stdout.strip() == "no differences"
    bad = cli("diff", tmp_path / "absent.csv", ROOT / "data" / "mlperf" / "v6.1.csv")
    assert bad.returncode == 2 and "no such results table" in bad.stderr


def test_deleting_the_cache_only_costs_time(first_build):
    out, _ = first_build
    before = notebooks(out)
    (out / CACHE_FILE).unlink()
    result = build(out=out, html=False, report=quiet)
    assert sorted(result.executed) == sorted(CHAPTERS)
    assert notebooks(out) == before


def test_changed_data_reexecutes_the_chapters_that_read_it(first_build, tmp_path, monkeypatch):
    out, _ = first_build
    changed = tmp_path / "partner_names.csv"
    changed.write_text((ROOT / "data" / "partner_names.csv").read_text().replace("Wiwynn,Wiwynn\n", ""))
    result = build(out=out, html=False, report=quiet, overrides=[f"ecosystem.partner_names_path={changed}"])
    assert result.executed == ("ecosystem",)
    rows = json.loads((out / "book" / "scorecard.json").read_text())
    partners = next(row for row in rows if row["claim"] == "partners-19")
    assert partners["verdict"] == "not supported" and "Wiwynn" in partners["reason"]


def test_committed_cache_matches_the_committed_inputs():
    """The committed book was built from the committed code and data: a fresh clone's first
    build starts no kernel."""
    from claimbook.build import chapter_digest, package_digest

    registry = load_registry()
    cache = json.loads((ROOT / CACHE_FILE).read_text())
    code = package_digest()
    for chapter in registry.written_chapters():
        expected = chapter_digest(ROOT / chapter.template, registry.chapter_parameters(chapter.name), ROOT / "data" / "claims.yaml", code)
        assert cache[chapter.name] == expected, f"{chapter.name}: rebuild the book (python -m claimbook build) and commit it"
