"""``claimbook check`` and ``claimbook build`` decide a registry's errors the same way: for every
registry error the test suite knows, both give the same one error line and the same exit code.

One function decides what both accept (``claimbook.pipeline.load.checked_data``, and the drift of
a subject to another organization's system, ``claimbook.pipeline.verify.switched_error``); this
holds them to it. Every case changes a copy of the project (a registry edited, replaced, or a
results file of other data), then runs both commands there, each as ``claimbook.cli.main`` in one
process of the copy's own package (imports paid once for every case; kernels started afresh, as
only one case executes a page), and puts the registry back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.project import project_copy

MI350P = "XE7745_8xMI350P_2xEPYC-9455"
RUBIN = "VR-NVL72_VR-288GB_aarch64x72_TRT"
FIGURE = f"""
  - id: amd-parity
    statement: A figure claim with one mistake in it.
    unit: samples/s
    benchmark: wan-2.2-t2v-a14b
    scenarios: [Offline]
    subject: {{organization: Dell_AMD, system: {MI350P}}}
"""

# id: (how the registry changes: text appended to the AMD registry's claims, or (old, new) in
# it, or a file written in its place; the results file (None: the committed data); extra
# arguments of check, of build)
CASES = {
    "unknown kind": (FIGURE + "    kind: figures\n    claimed: 0.035\n", None, (), ()),
    "unknown system": (
        FIGURE.replace(MI350P, "XE7745_8xMI350P_2xEPYC-9456") + "    kind: figure\n    claimed: 0.035\n",
        None,
        (),
        (),
    ),
    "missing claimed value": (FIGURE + "    kind: figure\n", None, (), ()),
    "unknown field": (FIGURE + "    kind: figure\n    claimed: 0.035\n    speedup: 2\n", None, (), ()),
    "duplicate id": (
        FIGURE.replace("amd-parity", "amd-gptoss-scaling-72") + "    kind: figure\n    claimed: 0.035\n",
        None,
        (),
        (),
    ),
    "unknown selector field": (
        FIGURE.replace("organization: Dell_AMD", "company: Dell_AMD")
        + "    kind: figure\n    claimed: 0.035\n",
        None,
        (),
        (),
    ),
    "a claimed NaN": (FIGURE + "    kind: figure\n    claimed: .nan\n", None, (), ()),
    "an unknown chapter": (
        FIGURE + "    kind: figure\n    claimed: 0.035\n    chapter: nowhere\n",
        None,
        (),
        (),
    ),
    "a claim named as a chapter": (
        FIGURE.replace("amd-parity", "explorer") + "    kind: figure\n    claimed: 0.035\n",
        None,
        (),
        (),
    ),
    "an announcement named as a generated page": (("  id: amd-v6.1\n", "  id: front\n"), None, (), ()),
    "an announcement named as a chapter": (("  id: amd-v6.1\n", "  id: explorer\n"), None, (), ()),
    "a header field missing": (("  claimant: AMD\n", ""), None, (), ()),
    "a javascript: link": (
        ("  source_url: https://rocm.blogs.amd.com/\n", "  source_url: 'javascript:alert(1)'\n"),
        None,
        (),
        (),
    ),
    "YAML that does not parse": ({"text": "announcement: [unclosed\n"}, None, (), ()),
    "a link to /dev/zero": ({"link": "/dev/zero"}, None, (), ()),
    "several results match one selector": (None, "duplicated", (), ("--only", "rubin-leading-debut")),
    "a subject moved to another organization": (
        None,
        "without_rubin",
        ("rubin-leading-debut",),
        ("--only", "rubin-leading-debut"),
    ),
}

# Run in the copy: for each case, the registry changed, both command lines through
# claimbook.cli.main, the registry put back.
RUNNER = r"""
import contextlib, io, json, os, sys, traceback
from pathlib import Path
from claimbook.cli import main

registry = Path("data/claims/amd-v6.1.yaml")
original = registry.read_bytes()


def change(how):
    if how is None:
        return
    kind, *values = how
    if kind == "append":
        registry.write_text(registry.read_text().rstrip("\n") + "\n" + values[0])
    elif kind == "replace":
        registry.write_text(registry.read_text().replace(values[0], values[1], 1))
    else:
        registry.unlink()
        registry.symlink_to(values[0]) if kind == "link" else registry.write_text(values[0])


said = {}
for name, how, commands in json.loads(sys.argv[1]):
    change(how)
    said[name] = []
    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
            except BaseException:
                traceback.print_exc()
                code = "traceback"
        said[name].append({"code": code, "stderr": err.getvalue()})
    registry.unlink()
    registry.write_bytes(original)
print(json.dumps(said))
"""


def _results(kind: str | None, folder: Path) -> Path | None:
    if kind is None:
        return None
    from claimbook.inputs.results import load_results
    from tests.helpers.summaries import summary_from_tidy
    from tests.unit.test_selections import duplicated, without_rubin

    committed = load_results(Path(__file__).resolve().parents[2] / "data" / "mlperf" / "v6.1.csv")
    table = {"duplicated": duplicated, "without_rubin": without_rubin}[kind](committed)
    return summary_from_tidy(table, folder / f"{kind}.csv")


def _how(change) -> list | None:
    """A case's change of the registry, as the runner takes it."""
    if change is None:
        return None
    if isinstance(change, str):
        return ["append", change]
    if isinstance(change, tuple):
        return ["replace", *change]
    return ["link", change["link"]] if "link" in change else ["text", change["text"]]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, list[dict]]:
    """Each case's (check, build) outcomes, in a copy of the project."""
    base = tmp_path_factory.mktemp("parity")
    copy = project_copy(base / "project")
    cases = []
    for number, (name, (change, results_kind, check_extra, build_extra)) in enumerate(CASES.items()):
        results = _results(results_kind, base)
        given = ["--results", str(results)] if results else []
        commands = [
            ["check", *given, *check_extra],
            ["build", "--no-html", *given, *build_extra, "--out", str(base / f"out-{number}")],
        ]
        cases.append([name, _how(change), commands])
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(cases)],
        cwd=copy,
        env={**environment, "PYTHONPATH": str(copy), "CLAIMBOOK_FRESH_KERNELS": "1"},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", list(CASES))
def test_check_and_build_give_the_same_error_and_exit_code(outcomes, case):
    check, build = outcomes[case]
    errors = {
        command: [line for line in said["stderr"].splitlines() if line.startswith("error: ")]
        for command, said in (("check", check), ("build", build))
    }
    assert check["code"] == build["code"] and check["code"] in (1, 2), (check, build)
    assert len(errors["check"]) == 1 and errors["check"] == errors["build"], (
        check["stderr"],
        build["stderr"],
    )
    assert "Traceback" not in check["stderr"] + build["stderr"]
    if check["code"] == 2:  # bad input: the one line is all that is said (a build names its input first)
        said = [line for line in build["stderr"].splitlines() if not line.startswith("ingesting ")]
        assert check["stderr"].splitlines() == said == errors["check"], (check["stderr"], build["stderr"])


def test_a_build_on_results_where_a_subject_moved_stops_before_its_first_page(outcomes):
    """``check`` finds a subject moved to another organization's system in a second or two: a
    build on those results finds it as soon, before any page is executed, and lists the same drift."""
    check, build = outcomes["a subject moved to another organization"]
    assert "executed " not in build["stderr"] and "executing" not in build["stderr"], build["stderr"]
    drift = [line for line in check["stderr"].splitlines() if line.startswith(("drift:", "  "))]
    assert drift and all(line in build["stderr"].splitlines() for line in drift), (
        check["stderr"],
        build["stderr"],
    )
