"""The build never loses a user's files: a matrix of `build` command lines.

Each case runs the command line in the project (``python -m claimbook build ...``; the refusals,
which happen before any work, as ``claimbook.cli.main`` in this process but for one) and takes a
snapshot of the whole project tree (``_build/`` included: the site must not change either) and
of the output folder's parent before and after. A refused case must change nothing at all (not even a file's
inode or time); an accepted one nothing outside its output folder. The rules are those of the
issue "Never lose a user's files":

* ``--out`` takes a folder that does not exist, an empty one, or one an earlier ``--out`` made
  (it holds ``.claimbook-out``); the project, its parent, a non-empty foreign folder, a file, a
  symlink to any of these and a folder inside the project's sources are refused: one ``error:``
  line, exit 2, nothing written.
* ``--results``, ``--param`` and ``--only`` need ``--out``; an ``--out`` book's notebooks record
  paths relative to the book's root, never temporary ones.
* Results without a chapter's systems still build, with a ``warning: page`` line (exit 1 with
  ``--strict``); ``--param`` merges mappings, and a ``null`` removes a key with a warning.
* Files are written with the user's umask.

To stay fast, one whole ``--out`` book (no HTML) is shared by the module, and builds from other
data are limited with ``--only``.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from clirun import as_subprocess, in_process
from conftest import ROOT as REPO
from summaries import summary_from_tidy
from treehash import REPO_EXCLUDED, changes, outside, snapshot

RUBIN = "VR-NVL72_VR-288GB_aarch64x72_TRT"
MARKER = ".claimbook-out"
# The parameters that name a data file or folder, relative to the book's root.
PATH_PARAMETERS = (
    "results_path",
    "earlier_paths",
    "reference_dir",
    "registry_dir",
    "chapters_file",
    "result_ids_path",
    "sources_path",
    "prices_path",
)


def claimbook(*args, umask: int = 0o022, real: bool = True) -> subprocess.CompletedProcess:
    """The command line, run in the project: the real one, or (``real=False``, for refusals that
    happen before any work) ``claimbook.cli.main`` in this process."""
    done = (as_subprocess if real else in_process)(*args, cwd=REPO, umask=umask)
    print(f"$ python -m claimbook {' '.join(map(str, args))}\n-> exit {done.returncode}\n{done.stderr}")
    return done


def project() -> dict:
    return snapshot(REPO, REPO_EXCLUDED, strict=True)


def error_lines(done) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("error:")]


def assert_unchanged(before: dict, after: dict, what: str) -> None:
    assert before == after, f"{what} changed: {changes(before, after)[:20]}"


def assert_refused(done, given: str | None = None) -> None:
    """Exit 2 and exactly one line on stderr, an ``error:`` naming what was refused."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, f"exit {done.returncode}, expected 2 (refused):\n{done.stderr}"
    assert len(lines) == 1 and lines[0].startswith("error: "), f"expected one error line:\n{done.stderr}"
    if given is not None:
        assert f"--out {given}" in lines[0], lines[0]


def injected_parameters(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if "injected-parameters" in cell.metadata.get("tags", [])]


def assert_paths_relative(out: Path) -> int:
    """Every executed notebook of the ``--out`` book ``out`` names its data relative to the
    book's root (files that exist there), and nothing temporary; the number of notebooks."""
    notebooks = sorted((out / "book" / "generated").rglob("*.ipynb"))
    assert notebooks, f"no executed notebook in {out}"
    forbidden = ["/tmp/", ".claimbook-staging-", str(out), str(REPO), tempfile.gettempdir().rstrip("/") + "/"]
    for path in notebooks:
        text = path.read_text(encoding="utf-8")
        for word in (".claimbook-staging-", str(out), str(out.parent)):
            assert word not in text, f"{path.relative_to(out)} records {word!r}"
        notebook = nbformat.reads(text, as_version=4)
        cells = injected_parameters(notebook)
        assert len(cells) == 1, f"{path.relative_to(out)}: {len(cells)} parameter cells"
        recorded = json.dumps(notebook.metadata.get("papermill", {}))
        for word in forbidden:
            assert word not in cells[0], (
                f"{path.relative_to(out)}: its parameter cell records {word!r}:\n{cells[0]}"
            )
            assert word not in recorded, f"{path.relative_to(out)}: its papermill metadata records {word!r}"
        parameters = notebook.metadata["papermill"]["parameters"]
        depth = len(path.relative_to(out / "book" / "generated").parts)  # 1: a chapter, 2: a claim's page
        assert parameters.get("book_root") == "../" * depth, (path, parameters.get("book_root"))
        for key in PATH_PARAMETERS:
            for value in parameters[key] if isinstance(parameters.get(key), list) else [parameters.get(key)]:
                if value is None:
                    continue
                assert not Path(value).is_absolute(), (
                    f"{path.relative_to(out)}: {key} = {value!r} is absolute"
                )
                assert (out / value).exists(), (
                    f"{path.relative_to(out)}: {key} = {value!r} is not in the book"
                )
    return len(notebooks)


def assert_modes(folder: Path, file_mode: int, folder_mode: int) -> None:
    wrong = []
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            continue
        expected = folder_mode if stat.S_ISDIR(info.st_mode) else file_mode
        if stat.S_IMODE(info.st_mode) != expected:
            wrong.append(f"{oct(stat.S_IMODE(info.st_mode))} {path.relative_to(folder.parent)}")
    assert not wrong, (
        f"{len(wrong)} entries not {oct(file_mode)} (files) / {oct(folder_mode)} (folders): {wrong[:12]}"
    )


# ---------------------------------------------------------------------------------------------
# Refused outputs: nothing at all changes.


def _foreign(tmp: Path) -> Path:
    folder = tmp / "foreign"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("a user's notes\n")
    (folder / "sub" / "data.csv").write_text("a,b\n1,2\n")
    return folder


def _file(tmp: Path) -> Path:
    path = tmp / "report.txt"
    path.write_text("a user's file\n")
    return path


def _link(tmp: Path, to: Path) -> Path:
    link = tmp / "link"
    link.symlink_to(to, target_is_directory=to.is_dir())
    return link


# id: (how to make the --out argument in tmp_path, whether the project's parent is also watched)
REFUSED = {
    "project-root": (lambda tmp: ".", True),
    "project-root-absolute": (lambda tmp: str(REPO), False),
    "project-parent": (lambda tmp: "..", True),
    "project-parent-absolute": (lambda tmp: str(REPO.parent), True),
    "non-empty-foreign-folder": (lambda tmp: str(_foreign(tmp)), False),
    "file": (lambda tmp: str(_file(tmp)), False),
    "symlink-to-repository": (lambda tmp: str(_link(tmp, REPO)), True),
    "symlink-to-parent": (lambda tmp: str(_link(tmp, REPO.parent)), True),
    "symlink-to-non-empty-folder": (lambda tmp: str(_link(tmp, _foreign(tmp))), False),
    "symlink-to-file": (lambda tmp: str(_link(tmp, _file(tmp))), False),
    "book-generated-in-project": (lambda tmp: "book/generated", False),
    "book-in-project": (lambda tmp: "book", False),
    "new-folder-in-data": (lambda tmp: "data/mybook", False),
    "new-folder-in-notebooks": (lambda tmp: str(REPO / "notebooks" / "out"), False),
    "symlink-to-book-generated": (lambda tmp: str(_link(tmp, REPO / "book" / "generated")), False),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_refused_out_changes_nothing(case, tmp_path):
    make, watch_parent = REFUSED[case]
    given = make(tmp_path)
    before_project, before_tmp = project(), snapshot(tmp_path, strict=True)
    # The project's parent holds other checkouts and other programs' files (a CI log that grows):
    # its entries are watched (none added, removed or replaced), not their contents.
    before_parent = _entries(REPO.parent) if watch_parent else None
    # The real command line for the first case, the rest in this process.
    done = claimbook("build", "--no-html", "--out", given, real=case == next(iter(REFUSED)))
    assert_refused(done, given)
    assert_unchanged(before_project, project(), "the project")
    assert_unchanged(before_tmp, snapshot(tmp_path, strict=True), "the output's parent")
    if watch_parent:
        assert_unchanged(before_parent, _entries(REPO.parent), "the project's parent")


def _entries(folder: Path) -> dict[str, tuple]:
    """A folder's own entries: name -> (kind, inode). A removed, added, renamed or replaced entry
    (the project swapped for a built book, say) changes it; another program appending to its
    own file there does not."""
    with os.scandir(folder) as entries:
        return {
            entry.name: (
                "dir" if entry.is_dir(follow_symlinks=False) else "link" if entry.is_symlink() else "file",
                entry.inode(),
            )
            for entry in entries
        }


@pytest.fixture(scope="module")
def full_summary(tmp_path_factory, committed_results):
    return summary_from_tidy(committed_results, tmp_path_factory.mktemp("summary") / "summary.csv")


@pytest.mark.parametrize("option", ["--results", "--param", "--only"])
def test_other_inputs_need_out(option, full_summary):
    value = {
        "--results": full_summary,
        "--param": 'economics.assumed_prices={"NVIDIA GB300": 12}',
        "--only": "economics",
    }[option]
    before = project()
    done = claimbook("build", "--no-html", option, value, real=False)
    assert_refused(done)
    assert option in done.stderr and "--out" in done.stderr
    assert_unchanged(before, project(), "the project")


# ---------------------------------------------------------------------------------------------
# Accepted outputs: only the output folder changes.


@dataclass
class Built:
    out: Path
    done: subprocess.CompletedProcess
    project_changes: list[str]
    parent_changes: list[str]
    seconds: float


def build_watched(out: Path, *args, umask: int = 0o022) -> Built:
    """``build --out out ARGS``, with what it changed in the project and in ``out``'s parent."""
    before_project, before_parent = project(), snapshot(out.parent, strict=True)
    started = time.perf_counter()
    done = claimbook("build", *args, "--out", out, umask=umask)
    seconds = time.perf_counter() - started
    return Built(
        out,
        done,
        changes(before_project, project()),
        outside(changes(before_parent, snapshot(out.parent, strict=True)), out.name),
        seconds,
    )


def assert_built(built: Built) -> None:
    assert built.done.returncode == 0, built.done.stderr
    assert (built.out / MARKER).is_file(), "no marker file in the output"
    assert (built.out / "book" / "generated" / "scorecard.json").is_file()
    assert not built.project_changes, f"the build changed the project: {built.project_changes[:20]}"
    assert not built.parent_changes, f"the build changed the output's parent: {built.parent_changes[:20]}"


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Built:
    """One whole --out book of the committed data, in a folder that did not exist (no HTML)."""
    parent = tmp_path_factory.mktemp("shared")
    (parent / "neighbour.txt").write_text("a user's file next to the book\n")
    return build_watched(parent / "book-out", "--no-html")


def test_out_new_folder(shared):
    assert_built(shared)
    assert "built into" in shared.done.stderr


def test_out_notebooks_record_paths_relative_to_the_book(shared):
    assert_built(shared)
    assert assert_paths_relative(shared.out) > 30


def test_out_files_follow_umask_022(shared):
    assert_built(shared)
    assert_modes(shared.out, 0o644, 0o755)


def test_out_empty_folder_and_a_stricter_umask(tmp_path):
    """An empty folder is a valid --out; and "the user's umask": under 027, every file the build
    writes is 0640 and every folder 0750 (nothing readable by others; the empty folder, made by
    the user, is 0750 too)."""
    (tmp_path / "empty").mkdir(mode=0o750)
    built = build_watched(tmp_path / "empty", "--no-html", "--only", "rubin_speedup", umask=0o027)
    assert_built(built)
    assert_modes(built.out, 0o640, 0o750)


def test_out_with_html_leaves_the_project_s_site_alone(tmp_path):
    """An --out build with HTML writes its site in the output, and nothing under the project's
    _build/ (the project's site, its assets and its lock). Where the project has no _build/ yet
    (a fresh clone, as in CI), it must not make one: the chart bundle is then made in the output."""
    built = build_watched(tmp_path / "site", "--only", "rubin_speedup")
    assert built.done.returncode == 0, built.done.stderr
    assert (built.out / "_build" / "html" / "book" / "generated" / "rubin_speedup.html").is_file()
    assert_built(built)


# ---------------------------------------------------------------------------------------------
# Results without a chapter's systems.


@pytest.fixture(scope="module")
def without_rubin(tmp_path_factory, committed_results) -> Path:
    """The committed round without NVIDIA's Vera Rubin rack (the rubin_speedup chapter's subject)."""
    rows = committed_results[
        ~((committed_results.organization == "NVIDIA") & (committed_results.system == RUBIN))
    ]
    assert len(rows) < len(committed_results)
    return summary_from_tidy(rows, tmp_path_factory.mktemp("results") / "summary-without-rubin.csv")


def rows_of(out: Path, chapter_claims=("rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x")) -> list[dict]:
    rows = json.loads((out / "book" / "generated" / "scorecard.json").read_text())
    return [row for row in rows if row["claim"] in chapter_claims]


@pytest.fixture(scope="module")
def built_without_rubin(tmp_path_factory, without_rubin) -> Built:
    """The rubin_speedup chapter built from results without its system."""
    out = tmp_path_factory.mktemp("without-rubin") / "out"
    return build_watched(out, "--no-html", "--only", "rubin_speedup", "--results", without_rubin)


def test_missing_systems_build_with_a_warning(built_without_rubin):
    built = built_without_rubin
    assert_built(built)
    rows = rows_of(built.out)
    assert {row["claim"] for row in rows} == {"rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x"}
    for row in rows:
        assert row["verdict"] == "cannot be checked", row
        assert RUBIN in row["reason"], row["reason"]  # what it looked for
        assert "closest" in row["reason"] and "GB300-NVL72_GB300-288GB_aarch64x72_TRT" in row["reason"], row[
            "reason"
        ]
    warnings = [line for line in built.done.stderr.splitlines() if line.startswith("warning: page")]
    assert len(warnings) == 2, built.done.stderr
    for claim in ("rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x"):
        line = next(line for line in warnings if f"claim {claim} " in line)
        assert line.startswith("warning: page rubin_speedup:"), line
        assert f"--param {claim}.subject.system=" in line, line
    assert not error_lines(built.done)
    assert_paths_relative(built.out)


def test_missing_systems_with_strict_exit_1(tmp_path, without_rubin):
    built = build_watched(
        tmp_path / "out", "--no-html", "--strict", "--only", "rubin_speedup", "--results", without_rubin
    )
    assert built.done.returncode == 1, built.done.stderr
    assert len(error_lines(built.done)) == 1 and "--strict" in error_lines(built.done)[0], built.done.stderr
    assert any(line.startswith("warning: page rubin_speedup:") for line in built.done.stderr.splitlines())
    assert not built.project_changes, built.project_changes[:20]
    assert not built.parent_changes, built.parent_changes[:20]


def test_the_suggested_param_points_the_claim_elsewhere(tmp_path, without_rubin, built_without_rubin):
    """The warning's own --param, with the first of its closest names, makes the claim checkable."""
    first = built_without_rubin
    assert first.done.returncode == 0, first.done.stderr
    warning = next(
        line
        for line in first.done.stderr.splitlines()
        if line.startswith("warning: page") and "claim rubin-dsr1-2.5x " in line
    )
    suggested = warning.split("--param ", 1)[1].split()[0]  # rubin-dsr1-2.5x.subject.system=NAME
    closest = warning.split("closest system values in the data: ", 1)[1].split(",")[0].split(";")[0].strip()
    built = build_watched(
        tmp_path / "second",
        "--no-html",
        "--only",
        "rubin_speedup",
        "--results",
        without_rubin,
        "--param",
        suggested.replace("=NAME", f"={closest}"),
    )
    assert_built(built)
    row = next(row for row in rows_of(built.out) if row["claim"] == "rubin-dsr1-2.5x")
    assert row["verdict"] != "cannot be checked", row
    assert not any("claim rubin-dsr1-2.5x " in line for line in built.done.stderr.splitlines())


# ---------------------------------------------------------------------------------------------
# --param on a chapter's mapping.


def economics_parameters(out: Path) -> dict:
    notebook = nbformat.read(out / "book" / "generated" / "economics.ipynb", as_version=4)
    return notebook.metadata["papermill"]["parameters"]


def test_param_mapping_merges_into_the_chapter_s(tmp_path):
    built = build_watched(
        tmp_path / "out",
        "--no-html",
        "--only",
        "economics",
        "--param",
        'economics.assumed_prices={"NVIDIA GB300": 12}',
    )
    assert_built(built)
    assert economics_parameters(built.out)["assumed_prices"] == {
        "NVIDIA GB300": 12,
        "NVIDIA Vera Rubin": 15.75,
    }
    costs = pd.read_csv(built.out / "book" / "generated" / "costs.csv")
    committed = pd.read_csv(REPO / "book" / "generated" / "costs.csv")
    nebius_rubin = costs[(costs.organization == "Nebius") & costs.system.str.startswith("VR200")]
    assert (
        len(nebius_rubin)
        == len(committed[(committed.organization == "Nebius") & committed.system.str.startswith("VR200")])
        > 0
    )
    assert set(nebius_rubin.usd_per_gpu_hour) == {15.75}
    assumed_gb300 = costs[
        (costs.accelerator == "NVIDIA GB300") & costs.price_kind.str.startswith("assumption")
    ]
    assert len(assumed_gb300) > 0 and set(assumed_gb300.usd_per_gpu_hour) == {12.0}
    assert_paths_relative(built.out)


def test_param_null_removes_a_key_with_a_warning(tmp_path):
    built = build_watched(
        tmp_path / "out",
        "--no-html",
        "--only",
        "economics",
        "--param",
        'economics.assumed_prices={"NVIDIA Vera Rubin": null}',
    )
    assert_built(built)
    assert economics_parameters(built.out)["assumed_prices"] == {"NVIDIA GB300": 10.5}
    said = [line for line in built.done.stderr.splitlines() if "NVIDIA Vera Rubin" in line]
    assert len(said) == 1 and "economics.assumed_prices" in said[0], built.done.stderr
    assert said[0].startswith("warning:"), f"the removal is reported, but not as a warning line: {said[0]!r}"


# ---------------------------------------------------------------------------------------------
# Building again into a folder an earlier --out made (these change the shared book: last).


def test_out_folder_made_by_an_earlier_build(shared):
    assert_built(shared)
    (shared.out / "notes.txt").write_text("a user's notes, next to the book\n")
    again = build_watched(shared.out, "--no-html")
    assert_built(again)
    assert "nothing changed" in again.done.stderr or "0 executed" in again.done.stderr, again.done.stderr
    assert (shared.out / "notes.txt").read_text() == "a user's notes, next to the book\n"


def test_rebuild_keeps_user_files_inside_the_out_book(shared):
    """ "Never deletes anything it did not create": a user's file inside the book or data folder
    of an --out book survives a rebuild into it."""
    assert_built(shared)
    mine = {
        shared.out / "book" / "my-notes.md": "# My notes\n",
        shared.out / "data" / "my-prices.csv": "a,b\n1,2\n",
    }
    for path, text in mine.items():
        path.write_text(text)
    again = build_watched(shared.out, "--no-html")
    assert again.done.returncode == 0, again.done.stderr
    lost = [
        str(path.relative_to(shared.out))
        for path, text in mine.items()
        if not path.is_file() or path.read_text() != text
    ]
    assert not lost, f"a rebuild into the --out folder deleted the user's files {lost}"
