"""What the writing commands (ingest, ingest-earlier, ingest-prices, fetch) may and may not do to
files: never replace a different file without --force, leave an identical one alone, write with
the user's umask, write fetched rounds only under DIR/ROUND/, and touch nothing else in the
repository. fetch talks only to local servers on 127.0.0.1."""

import hashlib
import json
import os
import stat

import pytest

from tests.helpers.clirun import as_subprocess, in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT
from tests.helpers.summaries import OLDER_LAYOUT, summary_row, write_summary
from tests.helpers.treehash import REPO_EXCLUDED, snapshot
from tests.unit.test_fetch import Server, handler_for

# The command line runs in this process (a subprocess costs a second of imports); the first
# test runs the real `python -m claimbook`, to prove the entry point behaves the same.
claimbook = in_process


def tree_state(root=ROOT) -> dict[str, tuple]:
    """Every entry of the working tree but the virtual environment, git and caches, with what
    any write changes (a file rewritten unchanged shows too)."""
    return snapshot(root, REPO_EXCLUDED, strict=True)


@pytest.fixture(autouse=True)
def repository_untouched():
    """No test here may change anything in the repository; outputs go to tmp_path."""
    before = tree_state()
    yield
    assert tree_state() == before


def summary(tmp_path, name="summary.csv", *changes, version="v6.1"):
    """A small raw summary: three results, with ``changes`` (index, overrides) applied."""
    rows = [
        summary_row(Scenario=scenario, Result=result, version=version)
        for scenario, result in (("Offline", "1000"), ("Server", "900"), ("Interactive", "800"))
    ]
    for index, overrides in changes:
        if index >= len(rows):
            rows.append(summary_row(version=version, **overrides))
        else:
            rows[index].update(overrides)
    return write_summary(tmp_path / name, rows)


def age(path, seconds=1000):
    """Move a file's modification time into the past, so a rewrite would show."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - seconds * 10**9))
    return path.stat().st_mtime_ns


# ingest: --out follows the same rules as the default output under data/


def test_ingest_refuses_to_replace_a_different_file(tmp_path):
    out = tmp_path / "v6.1.csv"
    assert as_subprocess("ingest", summary(tmp_path), "--out", out).returncode == 0
    before = out.read_bytes()
    changed = summary(
        tmp_path,
        "changed.csv",
        (0, {"Result": "1100"}),
        (3, {"Scenario": "SingleStream", "Result": "5", "Units": "Latency (s)"}),
    )
    done = as_subprocess("ingest", changed, "--out", out)
    assert done.returncode == 2
    one_error_line(
        done, f"{out} exists and differs: 1 result changed, 1 new, 0 removed; pass --force to replace it"
    )
    assert out.read_bytes() == before


def test_ingest_counts_removed_results(tmp_path):
    out = tmp_path / "v6.1.csv"
    claimbook("ingest", summary(tmp_path), "--out", out)
    fewer = write_summary(tmp_path / "fewer.csv", [summary_row(Result="1000")])
    done = claimbook("ingest", fewer, "--out", out)
    one_error_line(done, "0 results changed, 0 new, 2 removed")


def test_ingest_replaces_with_force(tmp_path):
    out = tmp_path / "v6.1.csv"
    claimbook("ingest", summary(tmp_path), "--out", out)
    changed = summary(tmp_path, "changed.csv", (0, {"Result": "1100"}))
    done = claimbook("ingest", changed, "--out", out, "--force")
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"wrote 3 results of round v6.1 to {out}\n"
    assert b",1100.0," in out.read_bytes()
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


def test_ingest_of_identical_content_leaves_the_file_alone(tmp_path):
    out = tmp_path / "v6.1.csv"
    source = summary(tmp_path)
    claimbook("ingest", source, "--out", out)
    mtime, inode = age(out), out.stat().st_ino
    done = claimbook("ingest", source, "--out", out)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"unchanged: {out} already holds these 3 results of round v6.1\n"
    assert out.stat().st_mtime_ns == mtime and out.stat().st_ino == inode


def test_ingest_refuses_to_replace_a_file_that_is_not_a_results_table(tmp_path):
    out = tmp_path / "notes.csv"
    out.write_text("my,own\nnotes,here\n")
    done = claimbook("ingest", summary(tmp_path), "--out", out)
    one_error_line(done, f"{out} exists and differs: the columns differ", "pass --force")
    assert out.read_text() == "my,own\nnotes,here\n"


def test_ingest_onto_a_folder_is_refused(tmp_path):
    done = claimbook("ingest", summary(tmp_path), "--out", tmp_path)
    assert done.returncode == 2
    one_error_line(done, f"{tmp_path} exists and is not a file")


def test_a_round_that_cannot_name_a_file(tmp_path):
    done = claimbook("ingest", summary(tmp_path), "--round", "../../outside")
    assert done.returncode == 2
    one_error_line(done, "--round '../../outside': a round is of the form vMAJOR.MINOR")


@pytest.mark.parametrize(
    "command, source",
    [
        ("ingest-prices", ROOT / "data" / "prices" / "gpu_hour_prices.csv"),
        ("ingest-earlier", None),
    ],
)
def test_small_tables_refuse_by_row_counts(tmp_path, command, source):
    if source is None:
        source = tmp_path / "earlier.csv"
        source.write_text(
            "version,organization,platform,model,scenario,result,units,total_accelerators,result_id,source_type,source\n"
            "v6.0,NVIDIA,GB300,deepseek-r1,Offline,1000,Tokens/s,72,a,mlperf-summary,x\n"
            "v6.0,NVIDIA,GB300,deepseek-r1,Server,900,Tokens/s,72,b,mlperf-summary,x\n"
        )
    out = tmp_path / "table.csv"
    assert claimbook(command, source, "--out", out).returncode == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:-1]))  # one row fewer than ingest makes
    done = claimbook(command, source, "--out", out)
    assert done.returncode == 2
    one_error_line(
        done, f"{out} exists and differs: 1 row added, 0 removed, {len(lines) - 2} kept", "pass --force"
    )
    assert claimbook(command, source, "--out", out, "--force").returncode == 0
    assert out.read_text() == "".join(lines)
    assert "unchanged" in claimbook(command, source, "--out", out).stderr


# file modes


@pytest.mark.parametrize(
    "umask, file_mode, folder_mode", [(0o022, 0o644, 0o755), (0o002, 0o664, 0o775), (0o077, 0o600, 0o700)]
)
def test_ingest_writes_with_the_umask(tmp_path, umask, file_mode, folder_mode):
    out = tmp_path / "new" / "v6.1.csv"
    done = claimbook("ingest", summary(tmp_path), "--out", out, umask=umask)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == file_mode
    assert stat.S_IMODE(out.parent.stat().st_mode) == folder_mode


def test_a_forced_replacement_gets_the_umask_mode_too(tmp_path):
    out = tmp_path / "v6.1.csv"
    out.write_text("old")
    out.chmod(0o600)
    assert claimbook("ingest", summary(tmp_path), "--out", out, "--force").returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


# fetch


@pytest.fixture
def serve():
    servers = []

    def start(body: bytes) -> str:
        servers.append(Server(handler_for("ok", body)))
        return servers[-1].url

    yield start
    for server in servers:
        server.close()


def fetch(round_name, url, folder, *extra):
    return claimbook("fetch", round_name, "--from", url, "--dir", folder, "--timeout", "5", *extra)


@pytest.mark.parametrize(
    "round_name", ["../../../outside", "", "v6", "6.1", "v6.1/../x", "v6.1/x", "V6.1", "v6.1 "]
)
def test_fetch_takes_only_a_round_label(tmp_path, serve, round_name):
    url = serve(summary(tmp_path).read_bytes())
    folder = tmp_path / "raw"
    done = fetch(round_name, url, folder)
    assert done.returncode == 2
    one_error_line(done, f"round {round_name!r} is not of the form vMAJOR.MINOR")
    assert not folder.exists() and not (tmp_path / "outside").exists()


def test_fetch_writes_only_inside_its_folder(tmp_path, serve):
    url = serve(summary(tmp_path).read_bytes())
    folder, elsewhere = tmp_path / "raw", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "v6.1").symlink_to(elsewhere)  # the round's folder leads out of DIR
    done = fetch("v6.1", url, folder)
    assert done.returncode == 2
    one_error_line(done, f"leads to {elsewhere}, outside {folder}")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "url", ["not-a-url", "ftp://127.0.0.1/summary.csv", "http://", "/tmp/summary.csv", "javascript:alert(1)"]
)
def test_fetch_from_something_that_is_not_a_url(tmp_path, url):
    done = fetch("v6.1", url, tmp_path / "raw")
    assert done.returncode == 2
    one_error_line(done, f"--from {url!r} is not an http, https or file URL")
    assert not (tmp_path / "raw").exists()


def test_fetch_refuses_a_file_of_another_round(tmp_path, serve):
    url = serve(summary(tmp_path, version="v6.1").read_bytes())
    done = fetch("v9.9", url, tmp_path / "raw")
    assert done.returncode == 2
    one_error_line(
        done, f"{url}: the file is of round v6.1 (its version column), not v9.9; nothing was installed"
    )
    assert not (tmp_path / "raw").exists()


def test_fetch_accepts_a_file_without_a_version_column(tmp_path, serve):
    layout = [name for name in OLDER_LAYOUT if name != "version"]
    body = write_summary(tmp_path / "s.csv", [summary_row()], layout).read_bytes()
    done = fetch("v5.0", serve(body), tmp_path / "raw")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "raw" / "v5.0" / "summary.csv.sha256.json").read_text())["round"] == "v5.0"


def test_fetch_from_a_file_url(tmp_path):
    source = summary(tmp_path)
    done = fetch("v6.1", source.as_uri(), tmp_path / "raw")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "raw" / "v6.1" / "summary.csv").read_bytes() == source.read_bytes()


def test_fetch_writes_with_the_umask(tmp_path, serve):
    url = serve(summary(tmp_path).read_bytes())
    assert fetch("v6.1", url, tmp_path / "raw").returncode == 0
    round_folder = tmp_path / "raw" / "v6.1"
    assert stat.S_IMODE(round_folder.stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "raw").stat().st_mode) == 0o755
    for name in ("summary.csv", "summary.csv.sha256.json"):
        assert stat.S_IMODE((round_folder / name).stat().st_mode) == 0o644
    assert sorted(path.name for path in round_folder.iterdir()) == ["summary.csv", "summary.csv.sha256.json"]


def test_fetch_refuses_to_replace_a_different_summary(tmp_path, serve):
    folder = tmp_path / "raw"
    assert fetch("v6.1", serve(summary(tmp_path).read_bytes()), folder).returncode == 0
    installed = folder / "v6.1" / "summary.csv"
    record = installed.with_name("summary.csv.sha256.json")
    before, record_before = installed.read_bytes(), record.read_bytes()
    newer = summary(tmp_path, "newer.csv", (1, {"Result": "950"}), (3, {"Model": "llama3.1-8b"}))
    url = serve(newer.read_bytes())
    done = fetch("v6.1", url, folder)
    assert done.returncode == 2
    one_error_line(
        done,
        f"{installed} exists and differs: 1 result changed, 1 new, 0 removed; pass --force to replace it",
    )
    assert installed.read_bytes() == before and record.read_bytes() == record_before
    assert sorted(path.name for path in installed.parent.iterdir()) == [
        "summary.csv",
        "summary.csv.sha256.json",
    ]

    forced = fetch("v6.1", url, folder, "--force")
    assert forced.returncode == 0, forced.stderr
    assert installed.read_bytes() == newer.read_bytes()
    assert json.loads(record.read_text())["sha256"] == hashlib.sha256(newer.read_bytes()).hexdigest()


def test_fetch_of_the_same_file_changes_nothing(tmp_path, serve):
    folder = tmp_path / "raw"
    url = serve(summary(tmp_path).read_bytes())
    assert fetch("v6.1", url, folder).returncode == 0
    installed = folder / "v6.1" / "summary.csv"
    mtime = age(installed)
    done = fetch("v6.1", url, folder)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"unchanged: {installed} already holds this download (3 results")
    assert installed.stat().st_mtime_ns == mtime


def test_fetch_over_a_file_that_is_not_a_summary_counts_rows(tmp_path, serve):
    folder = tmp_path / "raw" / "v6.1"
    folder.mkdir(parents=True)
    (folder / "summary.csv").write_bytes(b"previous data\n")
    done = fetch("v6.1", serve(summary(tmp_path).read_bytes()), tmp_path / "raw")
    assert done.returncode == 2
    one_error_line(done, "exists and differs: the columns differ; 3 rows would replace 0", "pass --force")
    assert (folder / "summary.csv").read_bytes() == b"previous data\n"


def test_a_truncated_download_names_the_url_not_a_temporary_file(tmp_path, serve):
    body = write_summary(
        tmp_path / "s.csv",
        [
            summary_row(notes="GB300, 1400W TGP per GPU"),
            summary_row(Scenario="Server", notes="GB300, 1400W TGP per GPU"),
        ],
    ).read_bytes()
    cut = body[: body.rindex(b'"GB300') + 4]  # the server says this is all there is
    url = serve(cut)
    done = fetch("v6.1", url, tmp_path / "raw")
    assert done.returncode == 1
    line = one_error_line(
        done, f"{url}: truncated download: {len(cut)} bytes received and the last record (line 3) is cut off"
    )
    assert ".part" not in line and ".tmp" not in line and str(tmp_path) not in line
    assert not (tmp_path / "raw").exists()


def test_an_invalid_download_names_the_url_not_a_temporary_file(tmp_path, serve):
    url = serve(b"<!DOCTYPE html><html><title>Oops</title></html>")
    done = fetch("v6.1", url, tmp_path / "raw")
    assert done.returncode == 1
    line = one_error_line(done, f"{url}: the download is not a valid results summary", "HTML page")
    assert ".tmp" not in line and str(tmp_path) not in line


# nothing but the intended output changes

CASES = {
    "ingest": lambda tmp_path, url: ("ingest", summary(tmp_path), "--out", tmp_path / "out" / "v6.1.csv"),
    "ingest, bad input": lambda tmp_path, url: (
        "ingest",
        tmp_path / "missing.csv",
        "--out",
        tmp_path / "out.csv",
    ),
    "ingest, round only": lambda tmp_path, url: ("ingest", summary(tmp_path), "--round", "v6.1/../../x"),
    "ingest-prices": lambda tmp_path, url: (
        "ingest-prices",
        ROOT / "data" / "prices" / "gpu_hour_prices.csv",
        "--out",
        tmp_path / "prices.csv",
    ),
    "ingest of committed data": lambda tmp_path, url: ("ingest", ROOT / "data" / "mlperf" / "v6.1.csv"),
    "diff": lambda tmp_path, url: (
        "diff",
        ROOT / "data" / "mlperf" / "v6.1.csv",
        ROOT / "data" / "mlperf" / "v6.1.csv",
    ),
    "fetch": lambda tmp_path, url: ("fetch", "v6.1", "--from", url, "--dir", tmp_path / "raw"),
    "fetch, bad round": lambda tmp_path, url: (
        "fetch",
        "../../data",
        "--from",
        url,
        "--dir",
        tmp_path / "raw",
    ),
    "fetch, wrong round": lambda tmp_path, url: ("fetch", "v9.9", "--from", url, "--dir", tmp_path / "raw"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_nothing_outside_the_output_changes(tmp_path, serve, case):
    url = serve(summary(tmp_path, "served.csv").read_bytes())
    args = CASES[case](tmp_path, url)
    outside_before = tree_state()
    temporary_before = set(tree_state(tmp_path))
    done = claimbook(*args)
    assert "Traceback" not in done.stderr, done.stderr
    assert tree_state() == outside_before
    written = set(tree_state(tmp_path)) - temporary_before
    assert all(not name.rsplit("/", 1)[-1].startswith(".") for name in written), written  # no temporary left
