"""Building: what is re-executed and when, what a build from other data says, and the commands
around it. These run real kernels where they must (a few seconds per page)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claimbook.engine import load_registry
from claimbook.engine.touched import claimed_systems
from claimbook.inputs.diff import diff_results, format_diff
from claimbook.pipeline.cache import CACHE_NAME
from claimbook.pipeline.plan import committed_plan
from tests.helpers.clirun import in_process
from tests.helpers.project import ROOT, project_copy
from tests.helpers.summaries import OLDER_LAYOUT, summary_from_tidy

RUBIN = "VR-NVL72_VR-288GB_aarch64x72_TRT"
RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"


def claimbook(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "claimbook", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def scorecard(folder):
    return json.loads((folder / "book" / "generated" / "scorecard.json").read_text())


def row(rows, claim, scenario=None):
    return next(
        item for item in rows if item["claim"] == claim and (scenario is None or item["scenario"] == scenario)
    )


def test_the_committed_book_is_built_from_the_committed_inputs():
    """A fresh clone's first build starts no kernel: every committed page's digest is current."""
    pages, wanted = committed_plan(ROOT)
    cache = json.loads((ROOT / "book" / "generated" / CACHE_NAME).read_text())["pages"]
    stale = [name for name in wanted if cache.get(name) != wanted[name]]
    assert not stale, f"rebuild the book (make book) and commit it; stale pages: {', '.join(stale)}"
    for job in pages:
        assert (ROOT / "book" / "generated" / f"{job.name}.ipynb").is_file(), job.name
    assert len(pages) == len(cache)


def test_page_digests_do_not_depend_on_where_the_project_is(tmp_path):
    """The committed cache must be current in every clone, wherever it is checked out."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tmp_path / name)
    assert committed_plan(tmp_path)[1] == committed_plan(ROOT)[1]


@pytest.fixture(scope="module")
def out_book(tmp_path_factory):
    """One book built into a folder of its own from the committed data (reusing the committed pages)."""
    out = tmp_path_factory.mktemp("build") / "out"
    done = claimbook("build", "--no-html", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "0 executed" in done.stderr  # the committed pages are current: nothing runs
    return out


def test_one_changed_claim_re_executes_only_the_pages_that_show_it(out_book):
    # (in this process, tests/helpers/clirun.py: the same code without a second of imports; the book
    # itself was built by the real command line)
    generated = out_book / "book" / "generated"
    before = {path.name: path.read_bytes() for path in generated.glob("*.ipynb")}
    # a first --out book's pages are its own, never second names of the project's
    assert not any((generated / name).samefile(ROOT / "book" / "generated" / name) for name in before)
    # A second name for each page the book had: the build stages its pages as links to them, and
    # must write none of them in place (an executed page is written anew, then put in place).
    aside = out_book.parent / "aside"
    aside.mkdir(exist_ok=True)
    for name in [*before, CACHE_NAME]:
        os.link(generated / name, aside / name)
    cache_before = (generated / CACHE_NAME).read_bytes()
    done = in_process("build", "--no-html", "--out", out_book, "--param", "wan-latency-5.7s.claimed=5.8")
    assert done.returncode == 0, done.stderr
    # The claim's chapter, and the page that reads every claim (where the announcements meet).
    assert "2 executed" in done.stderr and "executed where_they_meet" in done.stderr, done.stderr
    after = {path.name: path.read_bytes() for path in generated.glob("*.ipynb")}
    changed = sorted(name for name in before if before[name] != after[name])
    assert changed == ["wan_video.ipynb", "where_they_meet.ipynb"]  # both show the claim as changed
    assert {name: (aside / name).read_bytes() for name in before} == before  # (none written in place)
    assert (aside / CACHE_NAME).read_bytes() == cache_before  # (rewritten: a copy, never the book's own)
    reused = [name for name in before if name not in changed]
    assert reused and all((generated / name).samefile(aside / name) for name in reused)  # linked, not copied
    latency = row(scorecard(out_book), "wan-latency-5.7s")
    assert (latency["claimed"], latency["verdict"]) == (
        5.8,
        "supported with caveats",
    )  # 5.81 s is "5.8"; inferred
    # The reused pages' rows are all there, unchanged, though only the executed page was re-checked.
    others = [item for item in scorecard(out_book) if item["claim"] != "wan-latency-5.7s"]
    assert others == [item for item in scorecard(ROOT) if item["claim"] != "wan-latency-5.7s"]
    restored = in_process("build", "--no-html", "--out", out_book)
    assert restored.returncode == 0 and "2 executed" in restored.stderr
    assert {
        path.name: path.read_bytes() for path in (out_book / "book" / "generated").glob("*.ipynb")
    } == before
    # Assembled while the page that reads every claim still ran (it records no verdict): the
    # scorecard, the ledger and the announcement pages are byte for byte the committed book's.
    committed = subprocess.run(
        ["git", "ls-files", "book/generated"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(committed) > len(before)
    for name in committed:
        if Path(name).name != "cache.json" and not Path(name).name.startswith(".claimbook-"):  # (bookkeeping)
            assert (out_book / name).read_bytes() == (ROOT / name).read_bytes(), name


def test_a_claim_s_own_page_is_foretold_by_its_check_and_the_book_assembled_ahead_of_it(
    out_book, monkeypatch
):
    """The book is assembled while a claim's page runs, from the rows its check foretells; the
    page then records exactly those (were it not so, the book would be assembled again, slower)."""
    from claimbook.pipeline import run

    foretold, as_foretold = [], run._Ahead.as_foretold
    monkeypatch.setattr(
        run._Ahead, "as_foretold", lambda ahead: foretold.append(as_foretold(ahead)) or foretold[-1]
    )
    done = in_process("build", "--no-html", "--out", out_book, "--param", "amd51-mxfp4-vs-fp8.claimed=2.8")
    assert done.returncode == 0 and "executed amd-v5.1/amd51-mxfp4-vs-fp8" in done.stderr, done.stderr
    assert foretold == [True]
    assert {item["claimed"] for item in scorecard(out_book) if item["claim"] == "amd51-mxfp4-vs-fp8"} == {2.8}
    restored = in_process("build", "--no-html", "--out", out_book)
    assert restored.returncode == 0 and foretold == [True, True], restored.stderr
    assert scorecard(out_book) == scorecard(ROOT)


def _a_claim_the_meeting_page_does_not_read_all_of() -> tuple:
    """A claim of the round whose check the meeting page reads, and a claimed figure for it (a
    thousandth higher) that changes nothing the page reads of it: its verdict and measured
    figures stay (found by checking, never named)."""
    from claimbook.engine import check, crossref
    from claimbook.engine.context import book_data

    data = book_data(ROOT)
    for claim in (data.registry.claim(name) for name in crossref.round_checks(data)):
        claimed = claim.fields.get("claimed")
        seen = crossref.seen(check(claim, data), data.registry)
        if not isinstance(claimed, int | float) or isinstance(claimed, bool) or not seen.leaves:
            continue
        figure = float(f"{claimed * 1.001:.6g}")
        edited = book_data(ROOT, overrides={claim.id: {"claimed": figure}})
        if crossref.reading(
            crossref.seen(check(edited.registry.claim(claim.id), edited), edited.registry)
        ) == (crossref.reading(seen)):
            return claim, figure
    raise AssertionError("no claim of the round keeps what the page reads of it with its figure changed")


def test_a_claim_s_edit_the_meeting_page_does_not_read_reuses_that_page(tmp_path):
    """Where the announcements meet reads every claim, but only part of each check: a registry
    edit that changes nothing of that part does not run it again; the page is byte for byte the
    one a build that runs it makes, with no check taken from the cache."""
    import yaml

    from tests.helpers.clirun import in_copy

    claim, figure = _a_claim_the_meeting_page_does_not_read_all_of()
    copy = project_copy(tmp_path / "project")
    announcement = load_registry(ROOT / "data" / "claims").announcements[claim.announcement]
    registry = copy / Path(announcement.path).relative_to(ROOT)
    document = yaml.safe_load(registry.read_text(encoding="utf-8"))
    next(item for item in document["claims"] if item["id"] == claim.id)["claimed"] = figure
    registry.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    done = in_copy(copy, "build", "--no-html")
    assert done.returncode == 0, done.stderr
    assert "reusing where_they_meet: what it reads of each claim did not change" in done.stderr, done.stderr
    assert "executed where_they_meet" not in done.stderr and "1 executed" in done.stderr, done.stderr
    page = Path("book", "generated", "where_they_meet.ipynb")
    assert (copy / page).read_bytes() == (ROOT / page).read_bytes()
    cold = tmp_path / "cold"
    fresh = in_copy(
        copy,
        *("build", "--no-html", "--force", "--only", "where_they_meet", "--out", cold),
        environment={**os.environ, "CLAIMBOOK_CHECK_CACHE": "0"},
    )
    assert fresh.returncode == 0 and "executed where_they_meet" in fresh.stderr, fresh.stderr
    assert (cold / page).read_bytes() == (copy / page).read_bytes()


def test_a_page_that_disagrees_with_the_engine_stops_the_build():
    from types import SimpleNamespace

    from claimbook.common.errors import BuildError
    from claimbook.pipeline.verify import agree as _agree

    check = SimpleNamespace(claim=SimpleNamespace(id="wan-9x-throughput"), verdict="supported with caveats")
    _agree(
        [{"claim": "wan-9x-throughput", "verdict": "supported with caveats"}], {"wan-9x-throughput": check}
    )
    with pytest.raises(
        BuildError, match="its page says 'supported' but the engine says 'supported with caveats'"
    ):
        _agree([{"claim": "wan-9x-throughput", "verdict": "supported"}], {"wan-9x-throughput": check})
    _agree(
        [{"claim": "wan-9x-throughput", "verdict": "supported"}], {}
    )  # a reused page: checked when it was made


def test_changed_results_change_the_verdicts(tmp_path, committed_results):
    changed = committed_results.copy()

    def scale(system, model, scenario, factor):
        target = (
            (changed.organization == "NVIDIA")
            & (changed.system == system)
            & (changed.model == model)
            & (changed.scenario == scenario)
        )
        assert target.sum() == 1
        changed.loc[target, "result"] *= factor

    scale(RUBIN, "qwen3-vl-235b-a22b", "Interactive", 0.5)  # 3.74x -> 1.87x
    scale("GB300-NVL72_GB300-288GB_aarch64x288_TRT", "deepseek-r1", "Offline", 0.9)  # 99.5% -> 89.5%
    scale(RACK, "wan-2.2-t2v-a14b", "SingleStream", 5.7 / 5.807651162902777)  # now exactly 5.7 s
    summary = summary_from_tidy(changed, tmp_path / "summary.csv")
    done = in_process(  # (in this process, tests/helpers/clirun.py: the same code, no second of imports)
        "build",
        "--no-html",
        "--results",
        summary,
        "--out",
        tmp_path / "out",
        "--only",
        "rubin_speedup",
        "--only",
        "scaling",
        "--only",
        "wan_video",
    )
    assert done.returncode == 0, done.stderr
    rows = scorecard(tmp_path / "out")
    committed = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text())
    for claim, before, after in [
        ("rubin-qwen3vl-3.7x", "supported with caveats", "not supported"),
        ("scaling-288gpu-99pct", "supported with caveats", "not supported"),  # (Server falls short: a caveat)
        ("wan-latency-5.7s", "not supported", "supported with caveats"),
    ]:
        assert (row(committed, claim)["verdict"], row(rows, claim)["verdict"]) == (before, after), claim
    assert row(rows, "rubin-qwen3vl-3.7x", "Interactive")["measured"] == pytest.approx(
        row(committed, "rubin-qwen3vl-3.7x", "Interactive")["measured"] * 0.5
    )
    # A partial book has only the pages it built, and records data paths relative to its own root.
    names = sorted(
        path.relative_to(tmp_path / "out" / "book" / "generated").as_posix()
        for path in (tmp_path / "out" / "book" / "generated").rglob("*.ipynb")
    )
    assert names == ["rubin_speedup.ipynb", "scaling.ipynb", "wan_video.ipynb"]
    text = (tmp_path / "out" / "book" / "generated" / "scaling.ipynb").read_text()
    assert '"data/mlperf/v6.1.csv"' in text and "staging" not in text and str(tmp_path) not in text


def test_an_older_layout_builds_its_pages_and_html(tmp_path, committed_results):
    summary = summary_from_tidy(committed_results, tmp_path / "older.csv", OLDER_LAYOUT)
    done = claimbook(
        "build", "--results", summary, "--round", "v6.1", "--out", tmp_path / "out", "--only", "rubin_speedup"
    )
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "_build" / "html" / "book" / "generated" / "rubin_speedup.html").read_text()
    assert page.count('class="claimbook-chart"') == 4
    assert (tmp_path / "out" / "_build" / "html" / "index.html").is_file()
    bundle = tmp_path / "out" / "_build" / "html" / "_static" / "claimbook-vega.js"
    assert bundle.read_text().splitlines()[1] == "(function () {"


def test_list_shows_every_claim_and_its_verdict():
    done = claimbook("list")
    assert done.returncode == 0, done.stderr
    for claim in load_registry().claims:
        assert claim.id in done.stdout
    assert "not supported" in done.stdout and "cannot be checked" in done.stdout


def test_kinds_and_a_new_announcement(tmp_path):
    # In this process (tests/helpers/clirun.py): neither starts anything; the list above is the real command.
    done = in_process("kinds")
    assert done.returncode == 0 and "unnamed-baseline" in done.stdout
    refused = in_process(
        "new-announcement", "amd-v6.1", "--publisher", "AMD", "--title", "t", "--date", "2026-09-17"
    )
    assert refused.returncode == 2 and "exists" in refused.stderr


def test_diff_limits_to_the_systems_the_claims_name(committed_results):
    systems = claimed_systems(load_registry())
    assert ("NVIDIA", RUBIN) in systems and ("AMD", "9x8xMI355X_2xEPYC_9575F") in systems
    old = committed_results
    new = committed_results.assign(
        result=committed_results["result"].where(
            committed_results["system"] != RUBIN, committed_results["result"] * 1.1
        )
    )
    table = diff_results(old, new, systems)
    assert set(table["system"]) == {RUBIN} and set(table["status"]) == {"changed"}
    assert format_diff(diff_results(old, old, systems)) == "no differences"


def test_a_rebuild_with_nothing_to_do_imports_no_table_or_chart_library(tmp_path):
    """It answers from digests alone: pandas, numpy, altair and nbformat take longer to import
    than the whole answer (the refactor into layers once brought pandas back without notice)."""
    copy = project_copy(tmp_path / "project")
    code = (
        "import sys\nfrom claimbook.cli import main\ncode = main(['build', '--no-html'])\n"
        "print(sorted(name for name in ('pandas', 'numpy', 'altair', 'nbformat') if name in sys.modules))\n"
        "sys.exit(code)"
    )
    env = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    env["PYTHONPATH"] = str(copy)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "nothing changed" in done.stderr
    assert done.stdout.strip() == "[]"


def test_only_an_announcement_plans_every_page_of_its_claims_and_no_other():
    from claimbook.engine import load_registry
    from claimbook.pipeline.plan import plan, shown_claims

    registry = load_registry()
    every = plan(registry)
    for announcement in registry.announcements:
        own = {claim.id for claim in registry.all_claims() if claim.announcement == announcement}
        expected = {job.name for job in every if own & set(job.claims)}
        chosen = plan(registry, only=(announcement,))
        assert {job.name for job in chosen} == expected, announcement
        included, text_only = shown_claims(registry, chosen, (announcement,))
        assert {claim.id for claim in text_only if claim.announcement == announcement} <= included


def test_only_an_unknown_name_lists_the_announcements_too():
    from claimbook.common.errors import UsageError
    from claimbook.engine import load_registry
    from claimbook.pipeline.plan import plan

    registry = load_registry()
    with pytest.raises(UsageError) as raised:
        plan(registry, only=("no-such-thing",))
    assert f"announcements: {', '.join(registry.announcements)}" in str(raised.value)


def test_a_rebuilt_site_is_the_site_a_build_from_nothing_makes(tmp_path):
    """After one claim's edit, the site a rebuild makes (Sphinx rewriting the changed pages, the
    rest linked from the site before) is byte for byte the site made from nothing for the same
    book (its stamp, which says when it was copied, aside): the style sheets' addresses, the
    search index (no word kept that no page holds any more), every page."""
    from claimbook.pipeline.jupyterbook import SITE_STAMP, WORK_DIR

    out, change = tmp_path / "out", ("--param", "amd-wan-vs-b300.claimed.Offline=18.7")
    first = in_process("build", "--out", out, "--only", "amd-v6.1")
    assert first.returncode == 0, first.stderr
    rebuilt = in_process("build", "--out", out, "--only", "amd-v6.1", *change)
    assert rebuilt.returncode == 0 and "compiling HTML" in rebuilt.stderr, rebuilt.stderr
    site = out / "_build" / "html"

    def files() -> dict:
        return {
            path.relative_to(site).as_posix(): path.read_bytes()
            for path in sorted(site.rglob("*"))
            if path.is_file() and path.name != SITE_STAMP
        }

    incremental = files()
    assert any(name.endswith("amd-wan-vs-b300.html") for name in incremental)
    shutil.rmtree(site)
    shutil.rmtree(out / "_build" / WORK_DIR)
    afresh = in_process("build", "--out", out, "--only", "amd-v6.1", *change)
    assert afresh.returncode == 0 and "compiling HTML" in afresh.stderr, afresh.stderr
    cold = files()
    assert sorted(cold) == sorted(incremental)
    assert [name for name in cold if cold[name] != incremental[name]] == []
