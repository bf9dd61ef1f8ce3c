"""The build never loses a user's files: a matrix of `build` command lines.

Each case runs the command line in the project (``python -m claimbook build ...``; as
``claimbook.cli.main`` in this process, the same code without a second of imports, but for the
refusals' first case, the whole shared book and the book with HTML, which run the real command
line) and takes a snapshot of the whole project tree (``_build/`` included: the site must not
change either) and of the output folder's parent before and after. A refused case must change nothing at all (not even a file's
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

import html
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml

from tests.helpers.clirun import as_subprocess, in_copy, in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT as REPO
from tests.helpers.summaries import summary_from_tidy
from tests.helpers.treehash import REPO_EXCLUDED, changes, outside, snapshot

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
    before_parent = _parent_entries() if watch_parent else None
    # The real command line for the first case, the rest in this process.
    done = claimbook("build", "--no-html", "--out", given, real=case == next(iter(REFUSED)))
    one_error_line(done, f"--out {given}", code=2)
    assert_unchanged(before_project, project(), "the project")
    assert_unchanged(before_tmp, snapshot(tmp_path, strict=True), "the output's parent")
    if watch_parent:
        assert_unchanged(before_parent, _parent_entries(), "the project's parent")


def _parent_entries() -> dict[str, tuple]:
    """The entries of the project's parent a command could add, remove or swap. A clone in the
    system's temporary folder shares it with every program (a browser's, a compiler's files come
    and go there): there only the entries named like the project or the tool are watched."""
    entries = _entries(REPO.parent)
    if REPO.parent.resolve() != Path(tempfile.gettempdir()).resolve():
        return entries
    ours = (REPO.name, f".{REPO.name}", "claimbook", ".claimbook")
    return {name: entry for name, entry in entries.items() if name.startswith(ours)}


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
    one_error_line(done, code=2)
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


def build_watched(out: Path, *args, umask: int = 0o022, real: bool = False) -> Built:
    """``build --out out ARGS``, with what it changed in the project and in ``out``'s parent: in
    this process (``claimbook.cli.main``, the same code without a second of imports), or with
    ``real`` the command line itself."""
    before_project, before_parent = project(), snapshot(out.parent, strict=True)
    started = time.perf_counter()
    done = claimbook("build", *args, "--out", out, umask=umask, real=real)
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
    return build_watched(parent / "book-out", "--no-html", real=True)


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
    built = build_watched(tmp_path / "site", "--only", "rubin_speedup", real=True)
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
    one_error_line(built.done, "--strict", among_others=True)
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
    names = warning.split("closest system values in the data: ", 1)[1].split(";")[0].split(",")
    registry = REPO / "data" / "claims" / "nvidia-v6.1.yaml"
    claims = yaml.safe_load(registry.read_text(encoding="utf-8"))["claims"]
    baseline = next(claim for claim in claims if claim["id"] == "rubin-dsr1-2.5x")["baseline"]["system"]
    # The first name that is not the claim's own baseline, which is refused as its subject (test_same_sides).
    closest = next(name.strip() for name in names if name.strip() != baseline)
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


# ---------------------------------------------------------------------------------------------
# Hostile command lines and moments: refused with one line, exit 2, before anything is written.


def _summary_of_round(tmp: Path, version: str) -> Path:
    from tests.helpers.summaries import summary_row, write_summary

    return write_summary(tmp / "summary.csv", [summary_row(version=version)])


LAUGHS_PARAM = (
    "economics.assumed_prices={"
    + ", ".join(
        [f"a: &a [{', '.join(['1'] * 10)}]"]
        + [
            f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]"
            for previous, name in zip("abcde", "bcdef")
        ]
    )
    + "}"
)


# id: (the arguments, given tmp_path; a phrase of the one error line)
def _new_announcement(identifier: str, *extra: str, title: str = "T", date: str = "2026-09-18") -> tuple:
    """The command line of ``new-announcement`` for an id, with a title and date of its own."""
    return ("new-announcement", identifier, "--publisher", "A", "--title", title, "--date", date, *extra)


REFUSED_COMMANDS = {
    "build --round that is a path": (
        lambda tmp: (
            "build",
            "--no-html",
            "--results",
            _summary_of_round(tmp, "v6.1"),
            "--round",
            "../../x",
            "--out",
            tmp / "new",
        ),
        "--round '../../x': a round is of the form vMAJOR.MINOR",
    ),
    "build --results whose version is a path": (
        lambda tmp: (
            "build",
            "--no-html",
            "--results",
            _summary_of_round(tmp, "../../../data/mlperf/v6.1"),
            "--out",
            tmp / "new",
        ),
        "its version column gives the round '../../../data/mlperf/v6.1'",
    ),
    "ingest of a summary whose version is a path": (
        lambda tmp: ("ingest", _summary_of_round(tmp, "../../README")),
        "its version column gives the round '../../README'",
    ),
    "new-announcement with an id that is a path": (
        lambda tmp: _new_announcement("../../README"),
        "an announcement id: use lower-case letters",
    ),
    "new-announcement with a 300-character id": (
        lambda tmp: _new_announcement("a" * 300),
        "at most 80 characters",
    ),
    "new-announcement --round that is a path": (
        lambda tmp: _new_announcement("acme-v6.1", "--round", "../../x"),
        "--round '../../x': a round is of the form vMAJOR.MINOR",
    ),
    "new-announcement --date that is no date": (
        lambda tmp: _new_announcement("acme-v6.1", date="not-a-date"),
        "--date: expected a date YYYY-MM-DD, got 'not-a-date'",
    ),
    "ingest --out a registry's name": (
        lambda tmp: (
            "ingest",
            _summary_of_round(tmp, "v6.1"),
            "--out",
            REPO / "data" / "claims" / "new.yaml",
        ),
        "a table is written as a .csv file",
    ),
    "ingest --out into the registries' folder": (
        lambda tmp: (
            "ingest",
            _summary_of_round(tmp, "v6.1"),
            "--out",
            REPO / "data" / "claims" / "x.csv",
            "--force",
        ),
        "data/claims holds the registries only",
    ),
    "new-announcement with an id the book gives its own pages": (
        lambda tmp: _new_announcement("front"),
        "'front' is a name the book gives its own pages",
    ),
    "new-announcement with a chapter's name": (
        lambda tmp: _new_announcement("economics"),
        "'economics' is the name of a chapter of data/chapters.yaml",
    ),
    "new-announcement --title with a line break": (
        lambda tmp: _new_announcement("acme-v6.1", title="T\nx: y"),
        "--title 'T\\nx: y': one line of text",
    ),
    "new-announcement --title with a bidirectional override": (
        lambda tmp: _new_announcement("acme-v6.1", title="Acme \u202eup to 9x"),
        "--title 'Acme \\u202eup to 9x': one line of text of at most 200 characters, without control",
    ),
    "new-announcement --title of 100,000 characters": (
        lambda tmp: _new_announcement("acme-v6.1", title="T" * 100_000),
        "one line of text of at most 200 characters",
    ),
    "--param that gives a title a bidirectional override": (
        lambda tmp: (
            "build",
            "--no-html",
            "--param",
            "rubin-dsr1-2.5x.title=Rubin \u202e5.2x",
            "--out",
            tmp / "new",
        ),
        "field title: holds the character \\u202e (a control or bidirectional-override character)",
    ),
    "--out under a file": (
        lambda tmp: ("build", "--no-html", "--out", "/etc/passwd/x"),
        "/etc/passwd is a file, not a folder",
    ),
    "--out with a 300-character name": (
        lambda tmp: ("build", "--no-html", "--out", tmp / ("n" * 300)),
        "a name of 300 bytes; a file system takes at most 255",
    ),
    "--only a name that is no page": (
        lambda tmp: ("build", "--no-html", "--only", "typo", "--out", tmp / "new"),
        "--only typo: no page, chapter, claim or announcement of that name",
    ),
    "--param inside a price": (
        lambda tmp: ("build", "--no-html", "--param", "economics.assumed_prices.a.b=1", "--out", tmp / "new"),
        "assumed_prices.a must be a number like the other entries of assumed_prices, not a mapping",
    ),
    "--param that changes a mapping to a number": (
        lambda tmp: ("build", "--no-html", "--param", "economics.assumed_prices=3", "--out", tmp / "new"),
        "assumed_prices takes a mapping, not a number",
    ),
    "--param with a 400-digit claimed figure": (
        lambda tmp: (
            "build",
            "--no-html",
            "--param",
            f"rubin-dsr1-2.5x.claimed={'9' * 400}",
            "--out",
            tmp / "new",
        ),
        "field claimed: 99999999999999999999... is not a sensible figure",
    ),
    "--param a price range the wrong way round": (
        lambda tmp: ("build", "--no-html", "--param", "economics.price_range=[5, 1]", "--out", tmp / "new"),
        "price_range [5, 1]: two prices per GPU-hour, the lowest and the highest",
    ),
    "--param a negative assumed price": (
        lambda tmp: (
            "build",
            "--no-html",
            "--param",
            "economics.assumed_prices.NVIDIA GB300=-3",
            "--out",
            tmp / "new",
        ),
        "the assumed price for NVIDIA GB300 must be a number from 0.01 to 1,000,000 USD per GPU-hour, got -3",
    ),
    "--param that makes a title a list": (
        lambda tmp: ("build", "--no-html", "--param", "rubin-dsr1-2.5x.title=[1, 2]", "--out", tmp / "new"),
        "claim rubin-dsr1-2.5x: field title: expected text (as --param set it)",
    ),
    "--param that puts a list among the scenarios": (
        lambda tmp: (
            "build",
            "--no-html",
            "--param",
            "rubin-dsr1-2.5x.scenarios=[[Offline]]",
            "--out",
            tmp / "new",
        ),
        "field scenarios: expected a list of scenario names (as --param set it)",
    ),
    "--param with a number as a key": (
        lambda tmp: (
            "build",
            "--no-html",
            "--param",
            "economics.assumed_prices={1: 12}",
            "--out",
            tmp / "new",
        ),
        "the key 1 is not text: a key is a name",
    ),
    "--param with a claimed NaN": (
        lambda tmp: ("build", "--no-html", "--param", "rubin-dsr1-2.5x.claimed=.nan", "--out", tmp / "new"),
        "field claimed: nan is not a finite number",
    ),
    "--param billion laughs": (
        lambda tmp: (
            "build",
            "--no-html",
            "--param",
            LAUGHS_PARAM,
            "--out",
            tmp / "new",
        ),
        "its aliases expand to more than 1,000,000 values",
    ),
    "fetch --timeout -1": (
        lambda tmp: (
            "fetch",
            "v6.1",
            "--from",
            "http://127.0.0.1:9/summary.csv",
            "--dir",
            tmp / "raw",
            "--timeout",
            "-1",
        ),
        "--timeout -1.0: give the seconds the download may take",
    ),
    "fetch from a FIFO": (
        lambda tmp: (
            os.mkfifo(tmp / "pipe") or "fetch",
            "v6.1",
            "--from",
            f"file://{tmp / 'pipe'}",
            "--dir",
            tmp / "raw",
        ),
        "not a regular file (a named pipe)",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED_COMMANDS), ids=list(REFUSED_COMMANDS))
def test_a_hostile_command_line_is_refused_with_one_line(case, tmp_path):
    make, phrase = REFUSED_COMMANDS[case]
    args = make(tmp_path)
    before_project, before_tmp = project(), snapshot(tmp_path, strict=True)
    done = claimbook(*args, real=False)
    # A build says which file it ingests before it finds the file's round unusable.
    said = "".join(
        line for line in done.stderr.splitlines(keepends=True) if not line.startswith("ingesting ")
    )
    one_error_line(subprocess.CompletedProcess(done.args, done.returncode, done.stdout, said), code=2)
    assert phrase in done.stderr, done.stderr
    assert_unchanged(before_project, project(), "the project")
    assert_unchanged(before_tmp, snapshot(tmp_path, strict=True), "the temporary folder")


def test_out_in_proc_is_one_line(tmp_path):
    """A folder the kernel's /proc will not hold: one line naming it, exit 2, nothing made."""
    before = project()
    done = claimbook("build", "--no-html", "--out", "/proc/claimbook-test", real=False)
    one_error_line(done, code=2)
    assert "/proc/claimbook-test" in done.stderr, done.stderr
    assert not Path("/proc/claimbook-test").exists()
    assert_unchanged(before, project(), "the project")


def test_list_of_a_corrupt_scorecard_is_one_line(tmp_path):
    claims = tmp_path / "book" / "generated"
    claims.mkdir(parents=True)
    for text in ('{"not": "a list"', "[1, 2]", '[{"claim": "rubin-dsr1-2.5x"}]'):
        (claims / "scorecard.json").write_text(text)
        done = claimbook("list", "--book", tmp_path, real=False)
        one_error_line(done, code=2)
        assert f"{claims / 'scorecard.json'}: not a scorecard this book can read" in done.stderr, done.stderr


def test_list_from_a_deleted_working_folder(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    previous = os.getcwd()
    os.chdir(gone)
    gone.rmdir()
    try:
        from contextlib import redirect_stderr, redirect_stdout
        from io import StringIO

        from claimbook.cli import main

        out, err = StringIO(), StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["list"])
    finally:
        os.chdir(previous)
    assert code == 0, err.getvalue()
    assert "rubin-dsr1-2.5x" in out.getvalue()


def test_os_errors_are_one_line_naming_the_path_and_the_cause():
    import errno
    import shutil

    from claimbook.cli import EXIT_BAD_INPUT, EXIT_FAILED, os_error

    full = OSError(errno.ENOSPC, "No space left on device", "/out/book/claims/x.ipynb")
    assert os_error(full) == ("/out/book/claims/x.ipynb: No space left on device", EXIT_FAILED)
    long_name = OSError(errno.ENAMETOOLONG, "File name too long", "/out/" + "n" * 300)
    assert os_error(long_name)[1] == EXIT_BAD_INPUT and "File name too long" in os_error(long_name)[0]
    copied = shutil.Error([("/a", "/out/a", "[Errno 28] No space left on device"), ("/b", "/out/b", "same")])
    message, code = os_error(copied)
    assert (
        message == "/out/a: [Errno 28] No space left on device (and 1 more file(s))" and code == EXIT_FAILED
    )


def test_an_error_of_the_file_system_in_a_command_is_one_line(tmp_path, monkeypatch):
    import errno

    from claimbook import cli as command_line

    def full_disk(args):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out" / "x.csv"))

    monkeypatch.setattr(command_line, "_run_kinds", full_disk)
    done = claimbook("kinds", real=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"error: {tmp_path / 'out' / 'x.csv'}: No space left on device\n"


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path, signal_name):
    """Ctrl-C (or a SIGTERM) in the middle of a download that trickles: one line, exit 130,
    nothing written (no temporary file either)."""
    import signal
    import sys

    from tests.unit.test_fetch import Server, handler_for

    server = Server(handler_for("trickle", b"x" * 1000))
    try:
        # Ctrl-C as a terminal delivers it: a suite started in the background by a shell inherits
        # SIGINT ignored, and Python then never turns it into KeyboardInterrupt; a first Python
        # puts it back to its default and becomes the command (the same process).
        as_from_a_terminal = (
            "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
        )
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                as_from_a_terminal,
                "-m",
                "claimbook",
                "fetch",
                "v6.1",
                "--from",
                server.url,
                "--dir",
                tmp_path / "raw",
            ],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120  # imports take long on a busy machine
        while not any((tmp_path / "raw").glob("v6.1/.summary.csv.*.tmp")) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()[1]
            time.sleep(0.1)
        assert any((tmp_path / "raw").glob("v6.1/.summary.csv.*.tmp")), "the download had not begun"
        process.send_signal(getattr(signal, signal_name))
        _, stderr = process.communicate(timeout=30)
    finally:
        server.close()
    assert process.returncode == 130, stderr
    assert stderr == "error: interrupted; nothing was changed\n", stderr
    assert not (tmp_path / "raw").exists() or not any((tmp_path / "raw").rglob("*")), list(
        (tmp_path / "raw").rglob("*")
    )


# ---------------------------------------------------------------------------------------------
# A registry written by an attacker: everything it says is text, in every page it reaches.

# The HTML the build itself writes into the Markdown pages, and nothing else.
OWN_INLINE_HTML = re.compile(
    r'<a class="reference external" href="https?://[^"<>]*">|</a>|<!-- Generated by [^<>]*-->'
)

OWN_DOWNLOADS = ("CSV <generated/scorecard.csv>", "JSON <generated/scorecard.json>")


def _md_tokens(text: str):
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    # The extensions jupyter-book enables, and html_image, which turns <img> into an image.
    config = MdParserConfig(
        enable_extensions={"colon_fence", "dollarmath", "linkify", "substitution", "html_image", "tasklist"}
    )

    def walk(tokens):
        for token in tokens:
            yield token
            if token.children:
                yield from walk(token.children)

    return list(walk(create_md_parser(config, RendererHTML).parse(text)))


def markup_from_data(text: str) -> list[str]:
    """What in a generated MyST page is markup a registry could have put there: a directive, an
    HTML block other than the build's own (``<div class="claimbook-block">``, whose content is
    checked for tags of its own), a role, math, a substitution, an image, a link that is not the
    book's, inline HTML that is not the book's own."""
    found = []
    for token in _md_tokens(text):
        kind = token.type
        if kind in ("fence", "colon_fence") and token.info.strip().startswith("{"):
            found.append(f"directive {token.info!r}")
        elif kind == "html_block" and token.content.startswith('<div class="claimbook-block">\n'):
            found += [f"in an HTML block: {item}" for item in _site_markup(token.content)]
        elif kind in ("html_inline", "html_block"):
            if not OWN_INLINE_HTML.fullmatch(token.content.strip()):
                found.append(f"HTML {token.content[:120]!r}")
        elif kind == "myst_role" and token.meta.get("name") == "download" and token.content in OWN_DOWNLOADS:
            continue
        elif kind in (
            "myst_role",
            "math_inline",
            "math_block",
            "substitution_inline",
            "substitution_block",
            "image",
        ):
            found.append(f"{kind} {token.content[:80]!r}")
        elif kind == "link_open" and not str(token.attrs.get("href", "")).startswith(
            ("generated/", "../", "https://")
        ):
            found.append(f"link to {token.attrs.get('href')!r}")
    return found


@pytest.fixture(scope="module")
def evil_registry_loaded(tmp_path_factory):
    from claimbook.engine import load_registry
    from tests.helpers.registries import evil_registry

    folder = tmp_path_factory.mktemp("evil") / "claims"
    folder.mkdir()
    (folder / "evil-v6.1.yaml").write_text(evil_registry(), encoding="utf-8")
    return load_registry(folder, folder / "no-chapters.yaml")


def test_every_generated_page_shows_a_hostile_registry_as_text(evil_registry_loaded, tmp_path):
    """The front page, the announcement's page (its text-only claim's card included), a claim
    page's title cell, the table of contents and the how-to page's examples, made from a registry
    whose every text field is hostile: no markup of the registry's survives MyST's parser, and
    each field's text is there, as text."""
    import nbformat

    from claimbook.engine import scorecard
    from claimbook.engine.core import cannot_check
    from claimbook.pipeline.execute import with_title
    from claimbook.present import markdown_pages
    from tests.helpers.registries import EVIL_CLAIM, EVIL_ID, EVIL_TEXT_CLAIM

    registry = evil_registry_loaded
    checks = {
        claim.id: cannot_check(claim, f"REASON-MARK {claim.get('reason') or ''}") for claim in registry.claims
    }
    rows = [row for check in checks.values() for row in scorecard.rows_for(check, EVIL_ID)]
    announcement = registry.announcements[EVIL_ID]
    template = tmp_path / "template.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), template)
    titled = nbformat.read(
        with_title(template, registry.claim(EVIL_CLAIM).get("title"), tmp_path), as_version=4
    )
    pages = {
        "front": markdown_pages.front_page(rows, registry, "v6.1"),
        "announcement": markdown_pages.announcement_page(
            announcement, rows, registry, {EVIL_TEXT_CLAIM: checks[EVIL_TEXT_CLAIM]}
        ),
        "title cell": titled.cells[0].source,
        "kinds": markdown_pages.kinds_page(registry),
    }
    for name, text in pages.items():
        assert not markup_from_data(text), f"{name}: {markup_from_data(text)[:5]}"
    shown = {
        name: " ".join(token.content for token in _md_tokens(text) if token.type == "text")
        for name, text in pages.items()
    }
    for marker, where in {
        "TITLE-MARK <script>window.__pwned=1</script>": ("front", "announcement"),
        "PUBLISHER-MARK <script>": ("announcement",),
        "NOTE-MARK <script>": ("announcement",),
        "CLAIM_TITLE-MARK <script>window.__pwned=1</script><img src=x": ("title cell",),
        "[a link](javascript:window.__pwned=3)": ("title cell", "announcement"),
    }.items():
        for name in where:
            assert marker in shown[name], f"{name} does not show {marker!r} as text"
    # The announcement's card and the source link are raw HTML of the book's own, escaped.
    assert "SOURCE_LABEL-MARK &lt;script&gt;" not in pages["announcement"]
    assert 'href="https://example.org/post?q=&lt;script&gt;' in pages["announcement"]
    assert "REASON-MARK &lt;script&gt;window.__pwned=1&lt;/script&gt;" in pages["announcement"]
    toc = markdown_pages.toc(registry, [], {EVIL_CLAIM}, [])
    assert "<" not in toc and f"book/generated/{EVIL_ID}/{EVIL_CLAIM}" in toc


def _site_markup(html_text: str) -> list[str]:
    """Elements and attributes in a built page that only injected markup would put there."""
    from html.parser import HTMLParser

    found = []

    class Watch(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.in_script = False

        def handle_starttag(self, tag, attrs):
            self.in_script = tag == "script"
            for name, value in attrs:
                # The theme has handlers of its own (a button's onclick); the registry's all set
                # window.__pwned.
                if name.startswith("on") and "__pwned" in (value or ""):
                    found.append(f"<{tag} {name}={value!r}>")
                if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                    ("javascript:", "data:text")
                ):
                    found.append(f"<{tag} {name}={value!r}>")
            if tag in ("iframe", "object", "embed") or (tag == "img" and dict(attrs).get("src") == "x"):
                found.append(f"<{tag}>")

        def handle_endtag(self, tag):
            self.in_script = False

        def handle_data(self, data):
            # The book's own scripts (a chart's) may hold registry text as inert JSON strings;
            # a script of the registry's would be its text itself.
            if self.in_script and data.strip().startswith("window.__pwned"):
                found.append(f"script {data[:80]!r}")

    Watch().feed(html_text)
    return found


def test_a_hostile_registry_s_site_holds_no_markup_of_its_own(hostile_registry_book):
    """Every page of the site built from the hostile registry (a claim page, its announcement,
    the ledger, the how-to, the search page): no element, handler, link or script of the
    registry's; its title, publisher, label, note, claim title and statement show as text."""
    site = hostile_registry_book / "_build" / "html"
    pages = sorted(path for path in site.rglob("*.html") if "_static" not in path.parts)
    assert len(pages) >= 5, pages
    problems, text = [], {}
    for path in pages:
        content = path.read_text(encoding="utf-8")
        problems += [f"{path.relative_to(site)}: {item}" for item in _site_markup(content)]
        text[path.relative_to(site).as_posix()] = html.unescape(re.sub(r"<[^>]+>", " ", content))
    assert not problems, problems[:10]
    every = " ".join(text.values())
    for field in ("TITLE", "PUBLISHER", "SOURCE_LABEL", "NOTE", "CLAIM_TITLE", "STATEMENT"):
        assert f"{field}-MARK <script>window.__pwned=1</script>" in every, f"{field} is not shown as text"
    assert "CLAIM_TITLE-MARK <script>" in text["book/generated/evil-v6.1/evil-scaling.html"]
    # The search page shows the index's titles through innerHTML: each one is escaped text.
    index = (site / "searchindex.js").read_text(encoding="utf-8")
    frozen = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    shown = [*frozen["titles"], *frozen["alltitles"]]
    assert any("CLAIM_TITLE-MARK" in title for title in shown)
    assert not [title for title in shown if "<" in title or ">" in title], [t for t in shown if "<" in t][:5]


# ---------------------------------------------------------------------------------------------
# A hostile registry in a project: `build` refuses it with one line, before writing anything.


@pytest.fixture(scope="module")
def pristine_copy(tmp_path_factory) -> Path:
    from tests.helpers.project import project_copy

    return project_copy(tmp_path_factory.mktemp("pristine") / "project")


def _registry_change(old: str, new: str):
    def change(claims: Path) -> None:
        path = claims / "amd-v6.1.yaml"
        text = path.read_text(encoding="utf-8")
        assert old in text, old
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return change


def _replace_registry(how):
    def change(claims: Path) -> None:
        path = claims / "amd-v6.1.yaml"
        path.unlink()
        how(path)

    return change


# id: (how the copy's data/claims changes, a phrase of the one error line)
HOSTILE_REGISTRIES = {
    "announcement id that leads to README": (
        _registry_change("  id: amd-v6.1\n", "  id: ../../../../README\n"),
        "field announcement.id",
    ),
    "javascript: source link": (
        _registry_change(
            "  source_url: https://rocm.blogs.amd.com/\n",
            "  source_url: 'javascript:alert(document.domain)'\n",
        ),
        "a link must be an http or https address",
    ),
    "billion laughs in a statement": (
        _registry_change(
            '    unit: "%"\n',
            '    unit: "%"\n    laughs: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n'
            + "".join(
                f"    laughs{n}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 10)}]\n" for n in range(7)
            ),
        ),
        "its aliases expand to more than 1,000,000 values",
    ),
    "claimed NaN": (
        _registry_change("    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: .nan\n"),
        "field claimed: nan is not a finite number",
    ),
    "a number as a key": (
        _registry_change(
            "    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: {Offline: 94.9, 5: 94.6}\n"
        ),
        "not valid YAML (the key 5 is not text: a key is a name)",
    ),
    "a field written twice": (
        _registry_change(
            "    claimed: {Offline: 94.9, Server: 94.6}\n", "    claimed: {Offline: 94.9, Offline: 1}\n"
        ),
        "not valid YAML (the key 'Offline' twice (first at line",
    ),
    "a link to /dev/zero": (
        _replace_registry(lambda path: path.symlink_to("/dev/zero")),
        "not a regular file",
    ),
    "a FIFO": (_replace_registry(lambda path: os.mkfifo(path)), "not a regular file (a named pipe)"),
}


@pytest.mark.parametrize("case", list(HOSTILE_REGISTRIES), ids=list(HOSTILE_REGISTRIES))
@pytest.mark.parametrize("where", ["plain", "out"])
def test_a_hostile_registry_stops_the_build_with_one_line(case, where, pristine_copy, tmp_path):
    import shutil

    from tests.helpers.project import run_copy

    change, phrase = HOSTILE_REGISTRIES[case]
    copy = tmp_path / "project"
    shutil.copytree(pristine_copy, copy, symlinks=True)
    change(copy / "data" / "claims")
    out = tmp_path / "out"
    before, before_tmp = snapshot(copy, strict=True), _entries(tmp_path)
    args = ["build", "--no-html", *(["--out", out] if where == "out" else [])]
    # The refusal comes before any work: the real command line for the first case, the rest in
    # a child of this process with the copy's own package (tests/helpers/clirun.py).
    done = (
        run_copy(copy, *args, timeout=120) if case == next(iter(HOSTILE_REGISTRIES)) else in_copy(copy, *args)
    )
    one_error_line(done, code=2)
    assert "amd-v6.1.yaml" in done.stderr and phrase in done.stderr, done.stderr
    assert_unchanged(before, snapshot(copy, strict=True), "the project")
    assert_unchanged(before_tmp, _entries(tmp_path), "the folder around it")


def test_new_announcement_writes_a_registry_that_reads_back(pristine_copy, tmp_path):
    """A title with YAML's own characters is written as YAML that reads back to that title, and
    the new file is the only change; a title with a line break was refused above."""
    import shutil

    from claimbook.claims.registry import read_registry_file
    from tests.helpers.project import run_copy

    copy = tmp_path / "project"
    shutil.copytree(pristine_copy, copy, symlinks=True)
    title = "Acme: 'fast' & \"faster\" # not a comment [v6.1] {x: y} *z"
    before = snapshot(copy, strict=True)
    done = run_copy(
        copy, "new-announcement", "acme-v6.1", "--publisher", "Acme", "--title", title, "--date", "2026-09-18"
    )
    assert done.returncode == 0, done.stderr
    written = copy / "data" / "claims" / "acme-v6.1.yaml"
    assert changes(before, snapshot(copy, strict=True)) == ["added data/claims/acme-v6.1.yaml"]
    announcement, claims = read_registry_file(written, "acme-v6.1.yaml", validate=None)
    assert (announcement.title, announcement.date, announcement.round) == (title, "2026-09-18", "v6.1")
    assert [claim.id for claim in claims] == ["acme-v6.1-example"]


def test_user_files_in_an_out_book_survive_the_loss_of_its_build_folder(shared):
    """What the build wrote is recorded in each folder it replaces, not in _build/: with _build/
    gone, a rebuild (here of one chapter, so the folders are replaced) still keeps the user's
    files in DIR/book, DIR/book/claims and DIR/data."""
    assert_built(shared)
    mine = {
        shared.out / "book" / "more-notes.md": "# More notes\n",
        shared.out / "book" / "generated" / "mynotes.md": "# Mine\n",
        shared.out / "data" / "my-table.csv": "a,b\n3,4\n",
    }
    for path, text in mine.items():
        path.write_text(text)
    shutil.rmtree(shared.out / "_build")
    again = build_watched(shared.out, "--no-html", "--only", "rubin_speedup")
    assert_built(again)
    assert "kept" in again.done.stderr, again.done.stderr
    lost = [str(path) for path, text in mine.items() if not path.is_file() or path.read_text() != text]
    assert not lost, f"a rebuild without _build/ deleted the user's files {lost}"


@pytest.fixture
def build_on_tmpfs(tmp_path):
    """An --out folder whose _build/ is a file system of its own (a tmpfs; needs root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; tests/pipeline/test_parts.py simulates another file system")
    out = tmp_path / "out"
    (out / "_build").mkdir(parents=True)
    from claimbook.common.paths import OUT_MARKER_TEXT

    (out / MARKER).write_text(OUT_MARKER_TEXT)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256m", "claimbook-test", str(out / "_build")],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield out
    finally:
        subprocess.run(["umount", str(out / "_build")], check=False)


def test_a_build_folder_on_another_file_system(build_on_tmpfs):
    """Every swap used to end in EXDEV when _build/ was on another file system: the new folders
    are now staged beside the ones they replace. Both a first build (the folders are new) and a
    second (they are exchanged) succeed, and leave nothing beside them."""
    out = build_on_tmpfs
    assert os.stat(out / "_build").st_dev != os.stat(out).st_dev
    for chapter in ("rubin_speedup", "scaling"):
        built = build_watched(out, "--no-html", "--only", chapter)
        assert_built(built)
        assert (out / "book" / "generated" / f"{chapter}.ipynb").is_file()
        assert not [
            path.name for path in [*out.iterdir(), *(out / "book").iterdir()] if "staging" in path.name
        ]


def test_a_link_to_dev_zero_among_the_registries_is_never_copied(pristine_copy, tmp_path):
    """Only regular files are read or copied from the project: a link to /dev/zero in
    data/claims (a name the registry reader does not read) used to be copied by an --out build
    until the disk was full."""
    import shutil

    from tests.helpers.project import run_copy

    copy = tmp_path / "project"
    shutil.copytree(pristine_copy, copy, symlinks=True)
    (copy / "data" / "claims" / "zero").symlink_to("/dev/zero")
    (copy / "book" / "zero.md").symlink_to("/dev/zero")
    out = tmp_path / "out"
    done = run_copy(copy, "build", "--no-html", "--out", out, "--only", "amd-wan-vs-b300", timeout=300)
    assert done.returncode == 0, done.stderr
    assert not (out / "data" / "claims" / "zero").exists() and not (out / "book" / "zero.md").exists()
    assert (out / "data" / "claims" / "amd-v6.1.yaml").is_file()
