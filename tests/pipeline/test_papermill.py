"""The templates run with papermill's own command line, as a papermill user runs them: ``-p``
sets a parameter, ``--help-notebook`` lists them, from the project's folder or from anywhere
else, with the book's tidy table or a raw MLCommons summary.csv; the page's verdicts are those
``claimbook check`` gives for the same inputs."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys

import pytest

from claimbook.engine import scorecard
from claimbook.inputs.results import load_results
from claimbook.pipeline.plan import declared_parameters
from tests.helpers.clirun import in_process
from tests.helpers.project import ROOT
from tests.helpers.summaries import summary_from_tidy

# The claim whose page runs from a raw summary, and a chapter that runs from the tidy table.
CLAIM, CHAPTER = "amd-wan-vs-b300", "scaling"
# What the rows of a page and of `claimbook check` must agree on.
COMPARED = ("claim", "scenario", "verdict", "measured", "claimed", "reaches_claim", "caveats")


def papermill(*args, cwd) -> subprocess.CompletedProcess:
    """papermill's command line, in a process of its own (its kernel is this Python's)."""
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    return subprocess.run(
        [sys.executable, "-m", "papermill", *map(str, args)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def compared(rows) -> list[tuple]:
    return sorted(tuple(json.dumps(row[key], sort_keys=True) for key in COMPARED) for row in rows)


def checked(*args) -> list[dict]:
    done = in_process("check", *args, "--json")
    assert done.returncode == 0, done.stderr
    return [row for report in json.loads(done.stdout) for row in report["rows"]]


@pytest.mark.parametrize("template", ["claim", "economics"])
def test_help_notebook_lists_every_parameter_with_its_type_default_and_help(template):
    path = ROOT / "notebooks" / f"{template}.ipynb"
    done = papermill("--help-notebook", path, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Unknown type" not in done.stdout
    source = next(
        "".join(cell["source"])
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if "parameters" in cell["metadata"].get("tags", [])
    )
    lines = source.splitlines()
    for node in ast.parse(source).body:
        name, kind, default = (
            node.target.id,
            ast.get_source_segment(source, node.annotation),
            ast.get_source_segment(source, node.value),
        )
        assert f"  {name}: {kind} (default {default})\n" in done.stdout, name
        help_text = lines[node.lineno - 1].split("  # ", 1)[1].strip()
        assert help_text in done.stdout, (name, help_text)
    listed = re.findall(r"^  (\w+): .* \(default ", done.stdout, re.MULTILINE)
    assert listed == list(declared_parameters(path)), listed


def test_a_claim_page_from_a_raw_summary_run_from_elsewhere_gives_check_s_verdicts(tmp_path):
    """The claim template run from a folder outside the project, with ``-p claim_id`` and a raw
    summary.csv (ingested as it is read) given relative to that folder: its verdict rows are
    ``claimbook check --results`` of that summary, and they are the summary's, not the book's
    (its results were halved for the claimant)."""
    tidy = load_results(ROOT / "data" / "mlperf" / "v6.1.csv")
    halved = tidy.copy()
    amd = halved["organization"] == "AMD"
    halved.loc[amd, "result"] = halved.loc[amd, "result"] / 2
    summary = summary_from_tidy(halved, tmp_path / "summary.csv")
    out = tmp_path / "page.ipynb"
    done = papermill(
        ROOT / "notebooks" / "claim.ipynb",
        out,
        "-p",
        "claim_id",
        CLAIM,
        "-p",
        "results_path",
        "summary.csv",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = scorecard.collect(out)
    assert rows and {row["claim"] for row in rows} == {CLAIM}
    assert compared(rows) == compared(checked(CLAIM, "--results", summary))
    assert compared(rows) != compared(checked(CLAIM)), "the page did not read the summary it was given"


def test_a_chapter_run_with_p_from_the_project_gives_check_s_verdicts(tmp_path):
    out = tmp_path / "chapter.ipynb"
    done = papermill(
        "notebooks/scaling.ipynb",
        out,
        "-p",
        "results_path",
        "data/mlperf/v6.1.csv",
        "-p",
        "registry_dir",
        "data/claims",
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = scorecard.collect(out)
    claims = declared_parameters(ROOT / "notebooks" / "scaling.ipynb")["claim_ids"]
    assert {row["claim"] for row in rows} == set(claims)
    assert compared(rows) == compared(checked(*claims))


# A bad parameter, the one line the page stops with (after papermill's "Exception encountered").
BAD_PARAMETERS = {
    "list given as text": (
        "claim",
        ["-p", "earlier_paths", "rounds.csv"],
        "page parameter earlier_paths: a list (papermill: -y 'earlier_paths: [...]'), not str 'rounds.csv'",
    ),
    "number given as text": (
        "economics",
        ["-p", "price_range", "cheap"],
        "page parameter price_range: a list (papermill: -y 'price_range: [...]'), not str 'cheap'",
    ),
    "misspelt name": (
        "claim",
        ["-p", "claim_idd", "amd-wan-vs-b300"],
        (
            "page parameter claim_idd: this page has no such parameter (did you mean claim_id?); its "
            "parameters: claim_id, results_path, earlier_paths, reference_dir, registry_dir, chapters_file, "
            "result_ids_path, sources_path, overrides (papermill --help-notebook lists them)"
        ),
    ),
    "typo'd claim id": (
        "claim",
        ["-p", "claim_id", "amd-wan-vs-b30"],
        "page parameter claim_id: no claim 'amd-wan-vs-b30' in the registry; close claims: amd-wan-vs-b300",
    ),
    "numeric claim id, read as text": (
        "claim",
        ["-p", "claim_id", "5"],
        "page parameter claim_id: no claim '5' in the registry",
    ),
    "a results table that is not there": (
        "claim",
        ["-p", "claim_id", "amd-wan-vs-b300", "-p", "results_path", "absent/v6.1.csv"],
        "absent/v6.1.csv: no such file (a tidy results table",
    ),
    "a misspelt benchmark of a chapter (its history was shown empty, unsaid)": (
        "software_gains",
        ["-p", "context_benchmark", "deepsek-r1"],
        (
            "page parameter context_benchmark: no result of the benchmark 'deepsek-r1' in the rounds the "
            "book holds; close benchmarks: deepseek-r1"
        ),
    ),
    "typo'd claim id of a chapter": (
        "scaling",
        ["-y", "claim_ids: [nvidia-scaling-288x]"],
        "page parameter claim_ids: no claim 'nvidia-scaling-288x' in the registry",
    ),
}


@pytest.mark.parametrize("case", BAD_PARAMETERS)
def test_a_bad_parameter_stops_the_page_with_one_line_and_no_traceback_of_the_book(tmp_path, case):
    """papermill exits non-zero; its own error repeats the page's one line right after it names
    the cell, and nothing of the book's own code is in the output (no traceback through
    ``claimbook/``); a misspelt name never builds a default page."""
    template, args, line = BAD_PARAMETERS[case]
    done = papermill(ROOT / "notebooks" / f"{template}.ipynb", tmp_path / "page.ipynb", *args, cwd=tmp_path)
    assert done.returncode != 0
    after = done.stderr.split('Exception encountered at "In [', 1)[1].splitlines()
    error = "PageInputError" if "no such file" in line else "PageParameterError"
    assert after[1].startswith(f"{error}: ") and line in after[1], after[:3]
    assert not after[2].strip(), after[:4]
    assert "claimbook" + os.sep not in done.stderr, done.stderr[-2000:]
