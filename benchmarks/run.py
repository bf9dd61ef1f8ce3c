"""Benchmark: the book's build against jupyter-book's own execution path, and ingest at scale.

Run by hand (not a test): ``.venv/bin/python benchmarks/run.py``. Prints a table and writes
``benchmarks/results.json``. Everything runs in temporary folders; the repository is not touched.

Measured, on the same chapters with the same parameters:
- cold build: ``claimbook build --force`` into an empty folder (no notebook cache, no HTML) against
  ``jupyter-book build`` with ``execute_notebooks: force`` on the same templates with the
  parameters injected by papermill (``prepare_only``), as a ratio;
- no-op rebuild: ``claimbook build`` again against ``jupyter-book build`` again with
  ``execute_notebooks: cache`` after a first build that filled its cache, as a ratio;
- rebuild after one chapter's parameter changed (``--param scaling.tolerance=0.01``);
- ingest of 500 to 20,000 results (real rows replicated and perturbed): time and peak memory;
- a whole build (chapters, no HTML) from 500 and 20,000 results: time and peak memory.
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


def run(command: list[str], cwd: Path = ROOT) -> float:
    """Wall time of a command that must succeed."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    return elapsed


def run_measured(command: list[str]) -> tuple[float, float]:
    """Wall time and peak resident memory (MiB, the largest process of the run) of a command."""
    script = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "elapsed = time.perf_counter() - t\n"
        "if done.returncode: sys.exit(done.stderr[-3000:])\n"
        "print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run([PYTHON, "-c", script, *command], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-3000:]}")
    elapsed, kilobytes = done.stdout.split()
    return float(elapsed), int(kilobytes) / 1024


def best_of(times: int, command: list[str], cwd: Path = ROOT, before=None) -> float:
    results = []
    for _ in range(times):
        if before:
            before()
        results.append(run(command, cwd))
    return min(results)


def jupyter_book_project(folder: Path) -> Path:
    """The same chapters as plain notebooks for jupyter-book to execute itself: each template
    with the build's parameters injected by papermill, without running it."""
    sys.path.insert(0, str(ROOT))
    import papermill
    import yaml

    from claimbook.build import _copy_sources
    from claimbook.claims import load_registry

    registry = load_registry()
    project = folder / "jb"
    project.mkdir()
    _copy_sources(ROOT, project)
    for chapter in registry.written_chapters():
        papermill.execute_notebook(
            str(ROOT / chapter.template), str(project / "book" / "claims" / f"{chapter.name}.ipynb"),
            parameters=registry.chapter_parameters(chapter.name), prepare_only=True, progress_bar=False,
        )
    config = yaml.safe_load((project / "_config.yml").read_text())
    config["execute"] = {"execute_notebooks": "force", "timeout": 300}
    (project / "_config.yml").write_text(yaml.safe_dump(config))
    bundle = ROOT / "_build" / "assets" / "claimbook-vega.js"
    (project / "book" / "_static").mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle, project / "book" / "_static" / bundle.name)  # given to jupyter-book for free
    return project


def set_execute_mode(project: Path, mode: str) -> None:
    import yaml

    config = yaml.safe_load((project / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = mode
    (project / "_config.yml").write_text(yaml.safe_dump(config))


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
                item["Location"] = record["Location"].replace(f"/{record['Organization']}/", f"/{item['Organization']}/", 1)
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
        float(subprocess.run([PYTHON, "-c", timing, str(path)], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    )
    done = subprocess.run([PYTHON, "-c", memory, str(path)], cwd=ROOT, capture_output=True, text=True, check=True)
    python_peak, rss = (float(value) for value in done.stdout.split())
    return seconds, python_peak, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs per timing; the best is kept")
    parser.add_argument("--sizes", default="500,2000,5000,20000")
    args = parser.parse_args()
    if not SHARED_SUMMARY.is_file():
        raise SystemExit(f"{SHARED_SUMMARY}: the official summary is needed to make large inputs")

    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)},
    }
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        ours = folder / "ours"
        build = [PYTHON, "-m", "claimbook", "build", "--out", str(ours)]

        def cold_ours():
            # No executed notebooks, no notebook cache, no HTML. The vega bundle (made once per
            # vl-convert version) stays: jupyter-book's project below is given the same file.
            shutil.rmtree(ours, ignore_errors=True)

        results["ours_cold_s"] = best_of(args.repeat, build + ["--force"], before=cold_ours)
        results["ours_noop_s"] = best_of(args.repeat + 1, build)
        results["ours_param_change_s"] = min(
            run(build + ["--param", f"scaling.tolerance={0.01 * (index + 1)}"]) for index in range(args.repeat)
        )

        project = jupyter_book_project(folder)

        def cold_jupyter_book():
            shutil.rmtree(project / "_build", ignore_errors=True)

        results["jupyter_book_force_s"] = best_of(args.repeat, [JUPYTER_BOOK, "build", str(project)], before=cold_jupyter_book)
        set_execute_mode(project, "cache")
        cold_jupyter_book()
        run([JUPYTER_BOOK, "build", str(project)])  # fills jupyter-book's cache
        results["jupyter_book_noop_s"] = best_of(args.repeat + 1, [JUPYTER_BOOK, "build", str(project)])

        results["cold_ratio"] = results["ours_cold_s"] / results["jupyter_book_force_s"]
        results["noop_ratio"] = results["ours_noop_s"] / results["jupyter_book_noop_s"]

        scale = []
        for size in [int(value) for value in args.sizes.split(",")]:
            path = big_summary(size, folder / f"summary-{size}.csv")
            seconds, python_peak, rss = ingest_measure(path)
            scale.append({"rows": size, "ingest_s": seconds, "ingest_python_peak_mib": python_peak, "ingest_rss_mib": rss})
        for entry in (scale[0], scale[-1]):
            path = folder / f"summary-{entry['rows']}.csv"
            seconds, rss = run_measured(
                [PYTHON, "-m", "claimbook", "build", "--results", str(path), "--no-html", "--force", "--out", str(folder / f"big-{entry['rows']}")]
            )
            entry["build_s"], entry["build_peak_rss_mib"] = seconds, rss
        results["scale"] = scale

    (ROOT / "benchmarks" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"machine: {results['machine']}")
    print(f"cold build:     ours {results['ours_cold_s']:.1f} s, jupyter-book (force) {results['jupyter_book_force_s']:.1f} s,"
          f" ratio {results['cold_ratio']:.2f} (goal <= 0.8)")
    print(f"no-op rebuild:  ours {results['ours_noop_s']:.2f} s, jupyter-book (cache) {results['jupyter_book_noop_s']:.2f} s,"
          f" ratio {results['noop_ratio']:.2f} (goal <= 1.5)")
    print(f"one parameter changed: ours {results['ours_param_change_s']:.1f} s")
    print("rows    ingest_s  python_peak_MiB  rss_MiB  build_s  build_peak_rss_MiB")
    for entry in results["scale"]:
        print(f"{entry['rows']:>6}  {entry['ingest_s']:8.3f}  {entry['ingest_python_peak_mib']:15.1f}  {entry['ingest_rss_mib']:7.1f}"
              f"  {entry.get('build_s', float('nan')):7.1f}  {entry.get('build_peak_rss_mib', float('nan')):18.1f}")


if __name__ == "__main__":
    main()
