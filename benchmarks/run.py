"""Benchmark: the book's build against jupyter-book's own execution path, the test suite, and
ingest at scale.

Run by hand (not a test): ``.venv/bin/python benchmarks/run.py``. Prints a table and writes
``benchmarks/results.json``. The builds run in a copy of the project's tracked files in a
temporary folder (a fresh clone, with that copy's own code); the repository is not touched.

Measured, on the same pages with the same parameters:
- cold build: ``claimbook build --force`` in the fresh copy (every page executed, the HTML
  compiled from nothing) against ``jupyter-book build`` with ``execute_notebooks: force`` on the
  same notebooks (the built pages with their outputs cleared: the same parameters, the same
  titles), as a ratio;
- no-op rebuild: ``claimbook build`` again against ``jupyter-book build`` again with
  ``execute_notebooks: cache`` after a first build that filled its cache, as a ratio;
- rebuild after one chapter's parameter changed (``build --out`` with ``--param``), and that
  chapter's own execution time (its template run alone by papermill, kernel start included);
- ``make test`` with the environment in place (the suite, browser tests and nbval included);
- ingest of 500 to 20,000 results (real rows replicated and perturbed): time and peak memory;
- a whole build (pages, no HTML) from 500 and 20,000 results: time and peak memory.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
JUPYTER_BOOK = str(Path(PYTHON).parent / "jupyter-book")
SHARED_SUMMARY = ROOT.parent / "shared" / "mlperf" / "v6.1" / "summary.csv"
# The chapter whose parameter the one-change rebuild changes, and the parameter.
CHANGED_CHAPTER, CHANGED_PARAMETER = "scaling", "scaling-288gpu-99pct.tolerance"


def run(command: list[str], cwd: Path = ROOT, env: dict | None = None) -> tuple[float, str]:
    """Wall time and stderr of a command that must succeed."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"failed ({done.returncode}): {' '.join(command)}\n{(done.stderr + done.stdout)[-3000:]}"
        )
    return elapsed, done.stderr


def run_measured(command: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """Wall time and peak resident memory (MiB, the largest process of the run) of a command."""
    script = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "elapsed = time.perf_counter() - t\n"
        "if done.returncode: sys.exit(done.stderr[-3000:])\n"
        "print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", script, *command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-3000:]}")
    elapsed, kilobytes = done.stdout.split()
    return float(elapsed), int(kilobytes) / 1024


def best_of(times: int, command: list[str], cwd: Path, env: dict, before=None) -> float:
    results = []
    for _ in range(times):
        if before:
            before()
        results.append(run(command, cwd, env)[0])
    return min(results)


def fresh_copy(folder: Path) -> tuple[Path, dict]:
    """The project's tracked files in ``folder``, and the environment that runs that copy's code."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    environment = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    environment["PYTHONPATH"] = str(folder)
    return folder, environment


def give_vega_bundle(copy: Path) -> None:
    """The chart bundle is made once per vl-convert version (seconds): a cold build starts with
    the project's, and jupyter-book's project gets the same file."""
    bundle = ROOT / "_build" / "assets" / "claimbook-vega.js"
    if bundle.is_file():
        (copy / "_build" / "assets").mkdir(parents=True, exist_ok=True)
        shutil.copy2(bundle, copy / "_build" / "assets" / bundle.name)


def jupyter_book_project(copy: Path, folder: Path) -> Path:
    """The copy's built book for jupyter-book to execute itself: every page with its outputs
    cleared (the parameters papermill injected and the titles stay), and ``execute_notebooks:
    force``."""
    import nbformat

    project = folder / "jb"
    shutil.copytree(copy / "book", project / "book", ignore=shutil.ignore_patterns("_build"))
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(copy / name, project / name)
    for path in sorted((project / "book" / "generated").rglob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(notebook, path)
    set_execute_mode(project, "force")
    return project


def set_execute_mode(project: Path, mode: str) -> None:
    import yaml

    config = yaml.safe_load((project / "_config.yml").read_text())
    config["execute"] = {**(config.get("execute") or {}), "execute_notebooks": mode, "timeout": 300}
    (project / "_config.yml").write_text(yaml.safe_dump(config))


def jupyter_book_command(project: Path) -> list[str]:
    # The same call as the book's own (claimbook.html), but warnings are not errors here.
    return [
        JUPYTER_BOOK,
        "build",
        str(project),
        "--toc",
        str(project / "_toc.yml"),
        "--config",
        str(project / "_config.yml"),
        "--builder",
        "html",
        "--quiet",
    ]


def big_summary(rows: int, path: Path) -> Path:
    """A summary of ``rows`` results: the real rows, replicated under perturbed submitter names
    with results moved by up to 5%, so every row is a distinct result."""
    with open(SHARED_SUMMARY, newline="", encoding="utf-8") as stream:
        reader = csv.DictReader(stream)
        header, real = reader.fieldnames, list(reader)
    generator = random.Random(rows)
    out = []
    copy = 0
    while len(out) < rows:
        for record in real:
            if len(out) == rows:
                break
            item = dict(record)
            if copy:
                item["Organization"] = f"{record['Organization']}-{copy}"
                item["Location"] = record["Location"].replace(
                    f"/{record['Organization']}/", f"/{item['Organization']}/", 1
                )
                item["Result"] = repr(float(record["Result"]) * (1 + generator.uniform(-0.05, 0.05)))
            out.append(item)
        copy += 1
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=header, quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(out)
    return path


def ingest_measure(path: Path) -> tuple[float, float, float]:
    """Ingest time (in process, best of three, without tracing), then in a separate run the
    Python peak allocation (tracemalloc) and the process peak RSS, in MiB."""
    timing = (
        "import sys, time\n"
        "from claimbook.ingest import ingest\n"
        "t = time.perf_counter(); table = ingest(sys.argv[1], 'v6.1'); print(time.perf_counter() - t)\n"
    )
    memory = (
        "import resource, sys, tracemalloc\n"
        "from claimbook.ingest import ingest\n"
        "tracemalloc.start(); table = ingest(sys.argv[1], 'v6.1')\n"
        "print(tracemalloc.get_traced_memory()[1] / 2**20, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    )
    seconds = min(
        float(
            subprocess.run(
                [PYTHON, "-c", timing, str(path)], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    )
    done = subprocess.run(
        [PYTHON, "-c", memory, str(path)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    python_peak, rss = (float(value) for value in done.stdout.split())
    return seconds, python_peak, rss


def chapter_seconds(copy: Path, environment: dict, chapter: str, folder: Path) -> float:
    """The chapter's own execution time: its template run alone by papermill into a scratch file,
    kernel start included (best of three), with nothing else running."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from claimbook.build import committed_plan\n"
        "from claimbook.execute import execute_chapter\n"
        "root, name, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])\n"
        "job = next(job for job in committed_plan(root)[0] if job.name == name)\n"
        "times = []\n"
        "for _ in range(3):\n"
        "    t = time.perf_counter()\n"
        "    execute_chapter(job.name, root / job.template, out, job.parameters, root, job.template, job.title)\n"
        "    times.append(time.perf_counter() - t)\n"
        "print(min(times))\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", script, str(copy), chapter, str(folder / "scratch.ipynb")],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"could not time {chapter} alone:\n{done.stderr[-2000:]}")
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs per timing; the best is kept")
    parser.add_argument("--sizes", default="500,2000,5000,20000")
    parser.add_argument("--skip-tests", action="store_true", help="do not time `make test`")
    args = parser.parse_args()
    if not SHARED_SUMMARY.is_file():
        raise SystemExit(f"{SHARED_SUMMARY}: the official summary is needed to make large inputs")

    results: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        },
    }
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        copy, environment = fresh_copy(folder / "project")
        claimbook = [PYTHON, "-m", "claimbook", "build"]

        # A fresh clone's first build: the committed pages are current, so it compiles the HTML only.
        give_vega_bundle(copy)
        results["fresh_clone_first_build_s"] = run(claimbook, copy, environment)[0]

        def cold_ours():
            shutil.rmtree(copy / "_build")  # made by the build; the HTML is compiled from nothing
            give_vega_bundle(copy)

        results["ours_cold_s"] = best_of(
            args.repeat, claimbook + ["--force"], copy, environment, before=cold_ours
        )
        results["ours_noop_s"] = best_of(args.repeat + 1, claimbook, copy, environment)

        out = folder / "param-book"
        run(claimbook + ["--out", str(out)], copy, environment)
        results["ours_param_change_s"] = min(
            run(
                claimbook + ["--out", str(out), "--param", f"{CHANGED_PARAMETER}={0.011 + 0.001 * index}"],
                copy,
                environment,
            )[0]
            for index in range(args.repeat)
        )
        results["param_change_chapter_execution_s"] = chapter_seconds(
            copy, environment, CHANGED_CHAPTER, folder
        )

        project = jupyter_book_project(copy, folder)

        def cold_jupyter_book():
            shutil.rmtree(project / "_build", ignore_errors=True)

        results["jupyter_book_force_s"] = best_of(
            args.repeat, jupyter_book_command(project), folder, environment, before=cold_jupyter_book
        )
        set_execute_mode(project, "cache")
        cold_jupyter_book()
        run(jupyter_book_command(project), folder, environment)  # fills jupyter-book's cache
        results["jupyter_book_noop_s"] = best_of(
            args.repeat + 1, jupyter_book_command(project), folder, environment
        )
        results["cold_ratio"] = results["ours_cold_s"] / results["jupyter_book_force_s"]
        results["noop_ratio"] = results["ours_noop_s"] / results["jupyter_book_noop_s"]

        scale = []
        for size in [int(value) for value in args.sizes.split(",")]:
            path = big_summary(size, folder / f"summary-{size}.csv")
            seconds, python_peak, rss = ingest_measure(path)
            scale.append(
                {
                    "rows": size,
                    "ingest_s": seconds,
                    "ingest_python_peak_mib": python_peak,
                    "ingest_rss_mib": rss,
                }
            )
        for entry in (scale[0], scale[-1]):
            path = folder / f"summary-{entry['rows']}.csv"
            seconds, rss = run_measured(
                claimbook
                + [
                    "--results",
                    str(path),
                    "--no-html",
                    "--force",
                    "--out",
                    str(folder / f"big-{entry['rows']}"),
                ],
                copy,
                environment,
            )
            entry["build_s"], entry["build_peak_rss_mib"] = seconds, rss
        results["scale"] = scale

    if not args.skip_tests:
        if subprocess.run(["make", "--question", ".venv/.installed"], cwd=ROOT, check=False).returncode != 0:
            raise SystemExit(
                "the environment is not in place (run `make test` once first): `make test` is timed warm"
            )
        results["make_test_s"] = run(["make", "test"])[0]

    (ROOT / "benchmarks" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"machine: {results['machine']}")
    print(f"fresh clone's first build (HTML only): {results['fresh_clone_first_build_s']:.1f} s")
    print(
        f"cold build:     ours {results['ours_cold_s']:.1f} s, jupyter-book (force) {results['jupyter_book_force_s']:.1f} s,"
        f" ratio {results['cold_ratio']:.2f} (goal <= 0.6)"
    )
    print(
        f"no-op rebuild:  ours {results['ours_noop_s']:.2f} s, jupyter-book (cache) {results['jupyter_book_noop_s']:.2f} s,"
        f" ratio {results['noop_ratio']:.2f} (goal <= 0.5)"
    )
    print(
        f"one parameter changed: {results['ours_param_change_s']:.1f} s, of which the chapter's own execution "
        f"{results['param_change_chapter_execution_s']:.1f} s (goal <= max(3, execution + 1))"
    )
    if "make_test_s" in results:
        print(f"make test:      {results['make_test_s']:.0f} s (goal <= 120)")
    print("rows    ingest_s  python_peak_MiB  rss_MiB  build_s  build_peak_rss_MiB")
    for entry in results["scale"]:
        print(
            f"{entry['rows']:>6}  {entry['ingest_s']:8.3f}  {entry['ingest_python_peak_mib']:15.1f}  {entry['ingest_rss_mib']:7.1f}"
            f"  {entry.get('build_s', float('nan')):7.1f}  {entry.get('build_peak_rss_mib', float('nan')):18.1f}"
        )


if __name__ == "__main__":
    main()
