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
- ``claimbook check``: one claim's verdict, and every claim's, from the command's start;
- the book at scale: a synthetic round of 10 announcements and 300 claims (generated registries
  over the real results, each claim a page) added to the copy: cold build, no-op rebuild, one
  claim changed, peak memory, at 42 claims and at 342, and what one more claim page costs;
- ``make test`` with the environment in place (the suite, browser tests and nbval included): its
  wall time, CPU seconds and slowest 15 tests, and the machine's busy and idle CPU meanwhile
  (``--only-tests`` measures this alone and adds it to the last ``results.json``; with
  ``--by-process``, every process is sampled and its CPU given by kind: ``benchmarks/processes.py``);
- ``claimbook preview``: from saving an edit to the served page showing it, for a claim's figure
  (its registry) and for a chapter's parameter (``data/chapters.yaml``), each edit made once the
  preview is at rest; and the preview's start (``--only-preview`` measures this alone and adds
  it to the last ``results.json``);
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
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from xml.etree import ElementTree

from processes import ProcessSampler  # benchmarks/processes.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
JUPYTER_BOOK = str(Path(PYTHON).parent / "jupyter-book")
SHARED_SUMMARY = ROOT.parent / "shared" / "mlperf" / "v6.1" / "summary.csv"
# The chapter whose parameter the one-change rebuild changes, and the parameter.
CHANGED_CHAPTER, CHANGED_PARAMETER = "scaling", "scaling-288gpu-99pct.tolerance"
# The claim `claimbook check` is timed on alone, and the claim the one-claim change edits (its line
# in its registry, and the line it becomes).
CHECKED_CLAIM = "amd-wan-vs-b300"
CHANGED_CLAIM_FILE = "data/claims/amd-v6.1.yaml"
CHANGED_CLAIM_LINE = r"(?<=claimed: \{)Offline: [0-9.]+, SingleStream(?=: 11\})"
SYNTHETIC_CLAIMS, SYNTHETIC_ANNOUNCEMENTS = 300, 10
# What the preview's edits change, and the page that shows it: the claim's figure (its card
# says "claimed X%"), and the economics chapter's assumed GB300 price.
PREVIEW_CLAIM_PAGE = "book/generated/amd-v6.1/amd-wan-vs-b300.html"
PREVIEW_CHAPTER_PAGE = "book/generated/economics.html"
CHANGED_CHAPTER_FILE, CHANGED_PRICE = "data/chapters.yaml", r'(?<="NVIDIA GB300": )[0-9.]+'


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


def run_cpu(command: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """Wall time and CPU seconds (user and system, of the command and of every process it waited
    for: a build's kernels and its Sphinx) of a command that must succeed. On a shared machine the
    CPU seconds are the work itself, whatever the others' load stretches the wall time to."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = run(command, cwd, env)[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def best_run(times: int, command: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """The fastest of ``times`` runs: its wall time and its CPU seconds."""
    return min(run_cpu(command, cwd, env) for _ in range(times))


def run_measured(command: list[str], cwd: Path, env: dict) -> tuple[float, float, float]:
    """Wall time, peak resident memory (MiB, the largest process of the run) and CPU seconds (as
    ``run_cpu``) of a command."""
    script = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "elapsed = time.perf_counter() - t\n"
        "if done.returncode: sys.exit(done.stderr[-3000:])\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", script, *command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-3000:]}")
    elapsed, kilobytes, cpu = done.stdout.split()
    return float(elapsed), int(kilobytes) / 1024, float(cpu)


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
    # Without PYTHONDONTWRITEBYTECODE (some shells set it, this machine's among them): Python's
    # default, as a user's build runs, and as `make test` runs; set, every process of every build
    # compiles the copy's package from its source again.
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CLAIMBOOK_BOOK_ROOT", "PYTHONDONTWRITEBYTECODE")
    }
    environment["PYTHONPATH"] = str(folder)
    # A machine cache of its own (the checks kept between builds, the chart bundle): a cold
    # build is cold, whatever earlier runs left in this machine's cache.
    environment["CLAIMBOOK_CACHE_DIR"] = str(folder.parent / f"{folder.name}-machine-cache")
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
    # The same call as the book's own (claimbook.pipeline.jupyterbook), but warnings are not errors here.
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


def ingest_measure(path: Path, round_name: str | None = "v6.1") -> tuple[float, float, float]:
    """Ingest time (in process, best of three, without tracing), then in a separate run the
    Python peak allocation (tracemalloc) and the process peak RSS, in MiB (``round_name`` None:
    the round the file's version gives)."""
    timing = (
        "import sys, time\n"
        "from claimbook.inputs.ingest import ingest\n"
        f"t = time.perf_counter(); table = ingest(sys.argv[1], {round_name!r}); print(time.perf_counter() - t)\n"
    )
    memory = (
        "import resource, sys, tracemalloc\n"
        "from claimbook.inputs.ingest import ingest\n"
        f"tracemalloc.start(); table = ingest(sys.argv[1], {round_name!r})\n"
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


INGEST_GOAL_S, INGEST_GOAL_MIB = 2.0, 300.0  # a 20,000-row round


def ingest_slope(folder: Path, sizes: list[int]) -> list[dict]:
    """Ingest of summaries of ``sizes`` rows (``big_summary``): time, Python peak and peak RSS."""
    scale = []
    for size in sizes:
        path = big_summary(size, folder / f"summary-{size}.csv")
        seconds, python_peak, rss = ingest_measure(path)
        scale.append(
            {"rows": size, "ingest_s": seconds, "ingest_python_peak_mib": python_peak, "ingest_rss_mib": rss}
        )
    return scale


def only_ingest(sizes: list[int]) -> None:
    """The ingest slope measured alone, added to the last results (``--only-ingest``)."""
    results_path = ROOT / "benchmarks" / "results.json"
    results = json.loads(results_path.read_text()) if results_path.is_file() else {}
    with tempfile.TemporaryDirectory() as temporary:
        scale = ingest_slope(Path(temporary), sizes)
    results["scale"] = scale
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    for entry in scale:
        print(
            f"{entry['rows']:>6} rows: ingest {entry['ingest_s']:.3f} s, Python peak "
            f"{entry['ingest_python_peak_mib']:.1f} MiB, peak RSS {entry['ingest_rss_mib']:.1f} MiB"
        )
    if len(scale) > 1:
        first, last = scale[0], scale[-1]
        slope = (last["ingest_s"] - first["ingest_s"]) / (last["rows"] - first["rows"]) * 1000
        print(
            f"slope: {slope:.3f} s per 1,000 rows from {first['rows']} to {last['rows']}; goal at 20,000 rows "
            f"<= {INGEST_GOAL_S} s and <= {INGEST_GOAL_MIB:.0f} MiB"
        )


def only_scale(args) -> None:
    """The book at scale measured alone, added to the last results (``--only-scale``) under a
    key naming its size: ``book_at_scale`` for one round, ``book_at_scale_<R>_rounds`` else."""
    results_path = ROOT / "benchmarks" / "results.json"
    results = json.loads(results_path.read_text()) if results_path.is_file() else {}
    load_start = [round(value, 1) for value in os.getloadavg()]
    with tempfile.TemporaryDirectory() as temporary:
        measured = book_at_scale(
            Path(temporary),
            args.repeat,
            args.synthetic_claims,
            args.synthetic_announcements,
            args.synthetic_rounds,
            preview=args.synthetic_rounds == 1 and not args.skip_preview,
        )
    measured["load_average_start"] = load_start
    measured["load_average_end"] = [round(value, 1) for value in os.getloadavg()]
    key = "book_at_scale" if args.synthetic_rounds == 1 else f"book_at_scale_{args.synthetic_rounds}_rounds"
    results[key] = measured
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"{key}: load {load_start} at the start, {measured['load_average_end']} at the end")
    print("claims  pages  cold_s  cold_cpu_s  cold_peak_rss_MiB  noop_s  one_claim_change_s")
    for entry in measured["sizes"]:
        print(
            f"{entry['claims']:>6}  {entry['pages']:>5}  {entry['cold_s']:6.1f}  {entry['cold_cpu_s']:10.1f}"
            f"  {entry['cold_peak_rss_mib']:17.0f}  {entry['noop_s']:6.2f}  {entry['one_claim_change_s']:18.2f}"
        )
    for what, key in (("figure", "one_claim_change_paired"), ("title", "one_claim_retitled_paired")):
        paired = measured.get(key)
        if paired:
            print(
                f"one claim's {what} changed, {paired['rounds']} rounds alternating: median "
                f"{paired['small_median_s']:.2f} s at {measured['sizes'][0]['claims']} claims, "
                f"{paired['large_median_s']:.2f} s at {measured['sizes'][1]['claims']} "
                f"(ratio {paired['ratio']:.2f}; goal <= 1.5)"
            )
    print(f"one more claim page: +{measured['cold_s_per_added_page']:.2f} s cold (goal <= 0.25)")
    for entry in measured["sizes"]:
        if "preview" in entry:
            print(f"at {entry['claims']} claims, ", end="")
            print_preview(entry["preview"])


def chapter_seconds(copy: Path, environment: dict, chapter: str, folder: Path) -> float:
    """The chapter's own execution time: its template run alone by papermill into a scratch file,
    kernel start included (best of three), with nothing else running."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from claimbook.pipeline.plan import committed_plan\n"
        "from claimbook.pipeline.execute import execute_chapter\n"
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


def change_one_claim(copy: Path, synthetic: bool, index: int) -> None:
    """Change one claimed figure: the real claim's line, or the first synthetic claim's first
    figure (its registry is generated, so it is rewritten whole)."""
    if not synthetic:
        import re

        path = copy / CHANGED_CLAIM_FILE
        text, found = re.subn(
            CHANGED_CLAIM_LINE, f"Offline: {18 + 0.1 * (index + 1):.1f}, SingleStream", path.read_text()
        )
        if found != 1:
            raise SystemExit(
                f"{CHANGED_CLAIM_FILE}: the claim the benchmark changes is not there as expected"
            )
        path.write_text(text)
        return
    import yaml

    path = min((copy / "data" / "claims").glob("synthetic-*.yaml"))  # the first registry written
    document = yaml.safe_load(path.read_text())
    claim = next(item for item in document["claims"] if item["kind"] == "figure")
    first = min(claim["claimed"])
    claim["claimed"][first] = float(f"{claim['claimed'][first] * 1.01:.4g}")
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def retitle_one_claim(copy: Path, synthetic: bool, index: int) -> None:
    """Change one claim's title (the claim ``change_one_claim`` changes): its card and the page
    where the announcements meet show it, so both run."""
    import yaml

    path = (
        min((copy / "data" / "claims").glob("synthetic-*.yaml")) if synthetic else copy / CHANGED_CLAIM_FILE
    )
    document = yaml.safe_load(path.read_text())
    claim = next(
        item
        for item in document["claims"]
        if (item["kind"] == "figure" if synthetic else item.get("id") == CHECKED_CLAIM)
    )
    title = str(claim.get("title") or claim["statement"]).split(" (edit ")[0]
    claim["title"] = f"{title} (edit {index + 1})"
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))


def book_at_scale(
    folder: Path, repeat: int, claims: int, announcements: int, rounds: int = 1, preview: bool = True
) -> dict:
    """The same measures at 42 claims (the real registries) and with the synthetic round added,
    in a copy of their own: cold build (HTML from nothing) with its peak memory, no-op rebuild,
    a rebuild after one claim's figure changed (the analyst's loop: edit, build); with
    ``preview``, the preview of the larger book too (a real claim's figure edited, shown)."""
    copy, environment = fresh_copy(folder / "scale-project")
    claimbook = [PYTHON, "-m", "claimbook", "build"]
    sizes = []
    for synthetic in (False, True):
        if synthetic:
            synthetic_rounds(copy, claims, announcements, rounds)
        shutil.rmtree(copy / "_build", ignore_errors=True)
        give_vega_bundle(copy)
        cold, rss, cold_cpu = run_measured(claimbook + ["--force"], copy, environment)
        noop = best_of(repeat + 1, claimbook, copy, environment)
        changes = []
        for index in range(repeat):
            change_one_claim(copy, synthetic, index)
            changes.append(run(claimbook, copy, environment)[0])
        scorecard = json.loads((copy / "book" / "generated" / "scorecard.json").read_text())
        sizes.append(
            {
                "claims": len({row["claim"] for row in scorecard if not row["part_of"]}),
                "pages": len(list((copy / "book" / "generated").rglob("*.ipynb"))),
                "cold_s": cold,
                "cold_cpu_s": cold_cpu,
                "cold_peak_rss_mib": rss,
                "noop_s": noop,
                "one_claim_change_s": min(changes),
            }
        )
        if synthetic and preview:
            # The analyst's other loop at this size: the preview, a claim's figure edited.
            sizes[-1]["preview"] = preview_measure(copy, environment, max(repeat, 3))
    small, large = sizes
    # (the goal's ratio is the one-round book's; a book of several rounds is measured for its size)
    paired, retitled = (
        paired_changes(folder / "scale-small", (copy, environment), PAIRED_ROUNDS)
        if rounds == 1
        else (None, None)
    )
    return {
        "rounds": rounds,
        "sizes": sizes,
        "one_claim_change_paired": paired,
        "one_claim_retitled_paired": retitled,
        "cold_s_per_added_page": (large["cold_s"] - small["cold_s"]) / (large["pages"] - small["pages"]),
        "cold_cpu_s_per_added_page": (large["cold_cpu_s"] - small["cold_cpu_s"])
        / (large["pages"] - small["pages"]),
        "cold_s_per_page": [entry["cold_s"] / entry["pages"] for entry in sizes],
    }


PAIRED_ROUNDS = 7


def paired_changes(folder: Path, large: tuple[Path, dict], rounds: int) -> tuple[dict, dict]:
    """One claim changed in the real book (a copy of its own in ``folder``, built first) and in
    the ``large`` book, one after the other ``rounds`` times: the machine's load meanwhile
    weighs on both sizes alike, which the best of a few runs of each, minutes apart, does not
    (it moved the ratio by a tenth from one run to the next). Each size's times and median, and
    the ratio of the medians; a first round warms both and is not counted. Twice: a claimed
    figure changed (``change_one_claim``: the page where the announcements meet reads the same
    of the claim, and is reused), then the claim's title (``retitle_one_claim``: that page shows
    it, and runs)."""
    small = fresh_copy(folder)
    give_vega_bundle(small[0])
    run([PYTHON, "-m", "claimbook", "build", "--force"], small[0], small[1])
    return (
        _paired(small, large, rounds, change_one_claim),
        _paired(small, large, rounds, retitle_one_claim),
    )


def _paired(small: tuple[Path, dict], large: tuple[Path, dict], rounds: int, change) -> dict:
    import statistics

    times: dict[str, list[float]] = {"small": [], "large": []}
    for index in range(rounds + 1):
        for name, (copy, environment) in (("small", small), ("large", large)):
            change(copy, name == "large", index)
            seconds = run([PYTHON, "-m", "claimbook", "build"], copy, environment)[0]
            if index:
                times[name].append(round(seconds, 3))
    medians = {name: statistics.median(values) for name, values in times.items()}
    return {
        "rounds": rounds,
        "small_s": times["small"],
        "large_s": times["large"],
        "small_median_s": medians["small"],
        "large_median_s": medians["large"],
        "ratio": medians["large"] / medians["small"],
    }


def synthetic_rounds(copy: Path, claims: int, announcements: int, rounds: int = 1) -> list[Path]:
    """The synthetic announcements spread over ``rounds`` rounds: the newest rounds the copy
    holds, and where it holds fewer, made-up later rounds (``made_up_round``); each round gets
    its share of the claims and announcements (``synthetic_round``)."""
    from claimbook.common.paths import held_rounds

    held = list(held_rounds(copy / "data" / "mlperf"))
    chosen = held[-rounds:]
    while len(chosen) < rounds:
        chosen.append(made_up_round(copy, f"v{90 + len(chosen) - len(held[-rounds:])}.0"))
    paths = []
    for index, round_name in enumerate(chosen):
        share = claims // rounds + (1 if index < claims % rounds else 0)
        told = max(1, min(share, announcements // rounds))
        paths += synthetic_round(
            copy, share, told, round_name, prefix=f"synthetic-{round_name.replace('.', '')}"
        )
    return paths


def made_up_round(copy: Path, round_name: str) -> str:
    """A later round made from the copy's newest one: the same systems, their results 5% higher,
    under the round's own name (its tidy table ``data/mlperf/<round>.csv``)."""
    import pandas as pd

    from claimbook.common.paths import held_rounds

    newest = list(held_rounds(copy / "data" / "mlperf").values())[-1]
    table = pd.read_csv(newest, dtype=str, keep_default_na=False)
    table["round"] = round_name
    for column in ("result", "per_accelerator"):  # (the per-GPU figure is the result's, over its GPUs)
        table[column] = [repr(float(value) * 1.05) if value else value for value in table[column]]
    table.to_csv(copy / "data" / "mlperf" / f"{round_name}.csv", index=False)
    return round_name


def synthetic_round(
    copy: Path, claims: int, announcements: int, round_name: str = "v6.1", prefix: str = "synthetic"
) -> list[Path]:
    """Registries of ``announcements`` made-up announcements of ``round_name`` with ``claims``
    claims between them, each a page of its own, over the copy's results of that round: figure
    claims (one system's results, claimed as published or a little off, so verdicts differ) and
    lead claims (one system ahead of another on the same benchmark). Written into the copy's
    ``data/claims``."""
    import yaml

    sys.path.insert(0, str(copy))
    from claimbook.engine.context import load_data

    data = load_data(
        str(copy / f"data/mlperf/{round_name}.csv"),
        [],
        str(copy / "data/reference"),
        str(copy / "data/claims"),
        str(copy / "data/chapters.yaml"),
    )
    results = data.results
    # (Systems with no accelerator count are left out, as in the earlier runs: the same round each time.)
    closed = results[
        (results["division"] == "closed") & results["benchmark"].notna() & (results["total_accelerators"] > 0)
    ]
    groups = []
    for (organization, system, benchmark), rows in closed.groupby(["organization", "system", "benchmark"]):
        scenarios = rows.drop_duplicates("scenario").set_index("scenario")["result"]
        groups.append(
            (organization, system, benchmark, {name: float(value) for name, value in scenarios.items()})
        )
    by_benchmark: dict[str, list] = {}
    for group in groups:
        by_benchmark.setdefault(group[2], []).append(group)
    entries: list[list[dict]] = [[] for _ in range(announcements)]
    per_announcement = max(1, claims // announcements)
    for index in range(claims):
        number = min(index // per_announcement, announcements - 1)
        organization, system, benchmark, figures = groups[(index * 7) % len(groups)]
        scenarios = sorted(figures)
        claim = {
            "id": f"{prefix}-{number + 1:02d}-{index:03d}",
            "statement": f"{organization} {system} on {benchmark} (synthetic claim {index}).",
        }
        rivals = [
            other for other in by_benchmark[benchmark] if other[1] != system and set(other[3]) & set(figures)
        ]
        if index % 3 == 2 and rivals:
            rival = rivals[index % len(rivals)]
            claim.update(
                kind="ratio",
                form="lead",
                unit="%",
                benchmark=benchmark,
                scenarios=sorted(set(rival[3]) & set(figures)),
                subject={"organization": organization, "system": system},
                baseline={"organization": rival[0], "system": rival[1]},
                measure="whole-system",  # the two may differ in size: a claim says how it compares them
            )
        else:
            factor = (1.0, 0.97, 1.15)[index % 3]
            claim.update(
                kind="figure",
                benchmark=benchmark,
                scenarios=scenarios,
                claimed={name: float(f"{figures[name] * factor:.4g}") for name in scenarios},
                subject={"organization": organization, "system": system},
            )
        entries[number].append(claim)
    paths = []
    for number, claims_of in enumerate(entries, 1):
        header = {
            "id": f"{prefix}-{number:02d}",
            "title": f"Synthetic announcement {number} ({round_name})",
            "publisher": "Synthetic",
            "claimant": claims_of[0]["subject"]["organization"],
            "vendor": "NVIDIA",
            "date": f"2026-10-{number:02d}",
            "round": round_name,
        }
        path = copy / "data" / "claims" / f"{prefix}-{number:02d}.yaml"
        path.write_text(yaml.safe_dump({"announcement": header, "claims": claims_of}, sort_keys=False))
        paths.append(path)
    return paths


class RunningPreview:
    """``claimbook preview`` started in a copy, its output read line by line."""

    def __init__(self, copy: Path, environment: dict):
        import threading

        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [PYTHON, "-m", "claimbook", "preview", "--port", "0"],
            cwd=copy,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True).start()

    def wait_for(self, text: str, count: int = 1, timeout: float = 900) -> str:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            found = [line for line in self.lines if text in line]
            if len(found) >= count:
                return found[count - 1]
            if self.process.poll() is not None:
                raise SystemExit("the preview ended:\n" + "".join(self.lines[-30:]))
            time.sleep(0.05)
        raise SystemExit(f"the preview never said {text!r}:\n" + "".join(self.lines[-30:]))

    def stop(self) -> None:
        import signal

        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)


def seconds_until_shown(path: Path, pattern: str, value: str, url: str, shown: str) -> float:
    """Write ``value`` over what ``pattern`` finds in ``path`` (saving it, as an editor does),
    then poll the served page ``url`` every 100 ms (each request is work for the preview's own
    process) until it holds ``shown``: the seconds between."""
    import http.client
    import re
    import urllib.request

    text, count = re.subn(pattern, value, path.read_text(encoding="utf-8"), count=1)
    if count != 1:
        raise SystemExit(f"{path}: no {pattern!r} to change")
    path.write_text(text, encoding="utf-8")
    saved = time.perf_counter()
    while time.perf_counter() - saved < 300:
        try:
            with urllib.request.urlopen(url, timeout=30) as answer:
                if shown in answer.read().decode():
                    return time.perf_counter() - saved
        except http.client.IncompleteRead:
            pass  # read while Sphinx rewrote it (a browser reloads once it is written)
        time.sleep(0.1)
    raise SystemExit(f"{url} never showed {shown!r}")


def preview_measure(copy: Path, environment: dict, repeat: int) -> dict:
    """From saving an edit to the served page showing it, in a running ``claimbook preview``:
    ``repeat`` edits of a claim's figure, then of a chapter's parameter, each once the preview is
    at rest again (its last step done); and how long the preview took to start serving."""
    import statistics

    # Each edit: the file, what it changes, the new text, the page, what the page then shows.
    claim_edits = [
        (
            CHANGED_CLAIM_FILE,
            CHANGED_CLAIM_LINE,
            f"Offline: {figure}, SingleStream",
            PREVIEW_CLAIM_PAGE,
            f"claimed {figure}%",
        )
        for figure in (f"{20 + 0.1 * (index + 1):.1f}" for index in range(repeat))
    ]
    chapter_edits = [
        (
            CHANGED_CHAPTER_FILE,
            CHANGED_PRICE,
            f"{price}",
            PREVIEW_CHAPTER_PAGE,
            f"GB300 at an assumed {price:.2f} USD per GPU-hour",
        )
        for price in (11.25 + index for index in range(repeat))
    ]
    preview = RunningPreview(copy, environment)
    try:
        port = preview.wait_for("serving the book at").split(":")[2].split("/")[0]
        started = time.perf_counter() - preview.started
        claim, chapter = [], []
        for steps, (times, (name, pattern, value, page, shown)) in enumerate(
            [(claim, edit) for edit in claim_edits] + [(chapter, edit) for edit in chapter_edits], start=2
        ):
            times.append(
                seconds_until_shown(copy / name, pattern, value, f"http://127.0.0.1:{port}/{page}", shown)
            )
            preview.wait_for("preview up to date", steps)  # at rest again before the next edit
    except SystemExit:
        print("".join(preview.lines[-30:]), file=sys.stderr)  # what the preview said
        raise
    finally:
        preview.stop()
    return {
        "start_s": started,
        "claim_figure_shown_s": claim,
        "claim_figure_shown_median_s": statistics.median(claim),
        "chapter_parameter_shown_s": chapter,
        "chapter_parameter_shown_median_s": statistics.median(chapter),
    }


def print_preview(measured: dict) -> None:
    claim = ", ".join(f"{value:.2f}" for value in measured["claim_figure_shown_s"])
    chapter = ", ".join(f"{value:.2f}" for value in measured["chapter_parameter_shown_s"])
    print(
        f"preview: started in {measured['start_s']:.1f} s; a claim's edited figure shown in "
        f"{measured['claim_figure_shown_median_s']:.2f} s (median of {claim}; goal <= 2), a chapter "
        f"parameter in {measured['chapter_parameter_shown_median_s']:.2f} s (median of {chapter}; goal <= 3)"
    )


def only_preview(repeat: int) -> None:
    """The preview measured alone, added to the last results (``--only-preview``)."""
    results_path = ROOT / "benchmarks" / "results.json"
    results = json.loads(results_path.read_text()) if results_path.is_file() else {}
    load_start = [round(value, 1) for value in os.getloadavg()]
    with tempfile.TemporaryDirectory() as temporary:
        copy, environment = fresh_copy(Path(temporary) / "project")
        give_vega_bundle(copy)
        measured = preview_measure(copy, environment, repeat)
    measured["load_average_start"] = load_start
    measured["load_average_end"] = [round(value, 1) for value in os.getloadavg()]
    results["preview"] = measured
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    print(
        f"load average (1, 5, 15 min): {load_start} at the start, {measured['load_average_end']} at the end"
    )
    print_preview(measured)


SHARED_ROUNDS = {
    "v5.1": ROOT.parent / "shared" / "mlperf" / "v5.1" / "summary_results.json",
    "v6.1": ROOT.parent / "shared" / "mlperf" / "v6.1" / "summary.csv",
}
CHECK_ONE_GOAL_S = 1.5


def rounds_measure(repeat: int) -> dict:
    """Each shared round's summary ingested as published (time, Python peak and RSS), and
    ``claimbook check`` of one claim with every round the book holds (best of ``repeat`` runs)."""
    from claimbook.common.paths import held_rounds

    measured: dict = {"rounds_held": list(held_rounds(ROOT / "data" / "mlperf"))}
    for round_name, path in SHARED_ROUNDS.items():
        if path.is_file():
            seconds, python_peak, rss = ingest_measure(path, None)
            measured[f"ingest_{round_name}"] = {
                "file": path.name,
                "s": seconds,
                "python_peak_mib": python_peak,
                "rss_mib": rss,
            }
    claim = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text())[0]["claim"]
    command = [PYTHON, "-m", "claimbook", "check", claim]
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    measured["check_one_claim"] = {"claim": claim, "s": best_of(repeat, command, ROOT, environment)}
    return measured


def only_rounds(repeat: int) -> None:
    """The rounds' ingest and a check of one claim measured alone, added to the last results
    (``--only-rounds``)."""
    results_path = ROOT / "benchmarks" / "results.json"
    results = json.loads(results_path.read_text()) if results_path.is_file() else {}
    results["rounds"] = measured = rounds_measure(repeat)
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"rounds held: {', '.join(measured['rounds_held'])}")
    for round_name in SHARED_ROUNDS:
        entry = measured.get(f"ingest_{round_name}")
        if entry:
            print(
                f"ingest {round_name} ({entry['file']}): {entry['s']:.3f} s, Python peak "
                f"{entry['python_peak_mib']:.1f} MiB, peak RSS {entry['rss_mib']:.1f} MiB"
            )
    check = measured["check_one_claim"]
    print(f"check {check['claim']}: {check['s']:.2f} s (goal <= {CHECK_ONE_GOAL_S} s)")


MAKE_TEST_GOAL_S = 240  # the developers' guide: make test within 240 s on these 2 cores


def tests_measure(by_process: bool = False) -> dict:
    """``make test`` as the README gives it, the environment in place: wall time, CPU seconds (the
    suite's workers and every process they waited for), the tests run, and the 15 slowest tests
    (setup, call and teardown together, from pytest's JUnit report); what the machine's cores did
    meanwhile (busy and idle CPU seconds, every process counted); with ``by_process``, the CPU by
    kind of process (``benchmarks/processes.py``)."""
    if subprocess.run(["make", "--question", ".venv/.installed"], cwd=ROOT, check=False).returncode != 0:
        raise SystemExit(
            "the environment is not in place (run `make test` once first): `make test` is timed warm"
        )
    load_start = [round(value, 1) for value in os.getloadavg()]
    with tempfile.TemporaryDirectory() as temporary:
        report = Path(temporary) / "junit.xml"
        environment = {**os.environ, "PYTEST_ADDOPTS": f"--junitxml={report}"}
        with ProcessSampler(processes=by_process) as sampler:
            seconds, cpu = run_cpu(["make", "test"], ROOT, environment)
        per_test: dict[str, float] = defaultdict(float)
        for case in ElementTree.parse(report).iter("testcase"):
            per_test[f"{case.get('classname')}::{case.get('name')}"] += float(case.get("time") or 0)
    slowest = sorted(per_test.items(), key=lambda item: -item[1])[:15]
    return {
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "tests": len(per_test),
        "goal_s": MAKE_TEST_GOAL_S,
        "slowest": [{"test": name, "seconds": round(value, 1)} for name, value in slowest],
        **sampler.summary(),
        "load_average_start": load_start,
        "load_average_end": [round(value, 1) for value in os.getloadavg()],
    }


def print_tests(measured: dict) -> None:
    print(
        f"make test:      {measured['seconds']:.0f} s, {measured['cpu_seconds']:.0f} s of CPU, "
        f"{measured['tests']} tests (goal <= {measured['goal_s']} s); load "
        f"{measured['load_average_start']} at the start, {measured['load_average_end']} at the end"
    )
    if "machine_busy_cpu_s" in measured:
        print(
            f"  the machine's cores meanwhile: {measured['machine_busy_cpu_s']:.0f} s busy, "
            f"{measured['machine_idle_cpu_s']:.0f} s idle (every process counted)"
        )
    for entry in measured.get("by_kind", []):
        print(f"  {entry['cpu_s']:6.1f} s of CPU  {entry['processes']:4d} x {entry['kind']}")
    if "sampled_cpu_s" in measured:
        print(f"  {measured['sampled_cpu_s']:6.1f} s of CPU in the processes sampled")
    for entry in measured["slowest"]:
        print(f"  {entry['seconds']:6.1f} s  {entry['test']}")


def only_tests(by_process: bool) -> None:
    """``make test`` measured alone, added to the last results (``--only-tests``)."""
    results_path = ROOT / "benchmarks" / "results.json"
    results = json.loads(results_path.read_text()) if results_path.is_file() else {}
    results.pop("make_test_s", None)  # the older record: a wall time alone
    results["make_test"] = tests_measure(by_process)
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    print_tests(results["make_test"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs per timing; the best is kept")
    parser.add_argument("--sizes", default="500,2000,5000,20000")
    parser.add_argument("--skip-tests", action="store_true", help="do not time `make test`")
    parser.add_argument(
        "--skip-scale", action="store_true", help="do not build the book with the synthetic round (minutes)"
    )
    parser.add_argument(
        "--skip-ingest", action="store_true", help="do not time ingest and builds of large summaries"
    )
    parser.add_argument("--skip-preview", action="store_true", help="do not time `claimbook preview`")
    parser.add_argument(
        "--only-preview",
        action="store_true",
        help="time `claimbook preview` alone, 5 edits of each kind, and add it to benchmarks/results.json",
    )
    parser.add_argument(
        "--only-tests",
        action="store_true",
        help="time `make test` alone (its slowest 15 tests listed) and add it to benchmarks/results.json",
    )
    parser.add_argument(
        "--only-rounds",
        action="store_true",
        help="time each round's ingest as published and a check of one claim with every round held, "
        "and add them to benchmarks/results.json",
    )
    parser.add_argument(
        "--by-process",
        action="store_true",
        help="with the timing of `make test`, sample every process and give its CPU by kind of process",
    )
    parser.add_argument(
        "--synthetic-claims", type=int, default=SYNTHETIC_CLAIMS, help="claims of the synthetic round (300)"
    )
    parser.add_argument(
        "--synthetic-rounds",
        type=int,
        default=1,
        help="rounds the synthetic claims are spread over (1; made-up later rounds where the book holds fewer)",
    )
    parser.add_argument(
        "--only-scale",
        action="store_true",
        help="the book at scale alone (--synthetic-claims over --synthetic-rounds), added to benchmarks/results.json",
    )
    parser.add_argument(
        "--only-ingest",
        action="store_true",
        help="ingest of --sizes rows alone (the slope), added to benchmarks/results.json",
    )
    parser.add_argument(
        "--synthetic-announcements",
        type=int,
        default=SYNTHETIC_ANNOUNCEMENTS,
        help="announcements they are spread over (10)",
    )
    args = parser.parse_args()
    if args.only_preview:
        only_preview(max(args.repeat, 5))
        return
    if args.only_tests:
        only_tests(args.by_process)
        return
    if args.only_rounds:
        only_rounds(max(args.repeat, 3))
        return
    if args.only_scale:
        only_scale(args)
        return
    if args.only_ingest:
        only_ingest([int(value) for value in args.sizes.split(",")])
        return
    if not SHARED_SUMMARY.is_file():
        raise SystemExit(f"{SHARED_SUMMARY}: the official summary is needed to make large inputs")

    results: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            # The machine may be shared: its load (1, 5, 15 min) as the run starts and ends.
            "load_average_start": [round(value, 1) for value in os.getloadavg()],
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
        results["ours_param_change_s"], results["ours_param_change_cpu_s"] = min(
            run_cpu(
                claimbook + ["--out", str(out), "--param", f"{CHANGED_PARAMETER}={0.011 + 0.001 * index}"],
                copy,
                environment,
            )
            for index in range(args.repeat)
        )
        results["param_change_chapter_execution_s"] = chapter_seconds(
            copy, environment, CHANGED_CHAPTER, folder
        )
        check = [PYTHON, "-m", "claimbook", "check"]
        results["check_one_claim_s"], results["check_one_claim_cpu_s"] = best_run(
            args.repeat + 1, check + [CHECKED_CLAIM], copy, environment
        )
        results["check_every_claim_s"], results["check_every_claim_cpu_s"] = best_run(
            args.repeat + 1, check, copy, environment
        )

        if not args.skip_preview:
            results["preview"] = preview_measure(copy, environment, max(args.repeat, 3))

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

        if not args.skip_scale:
            results["book_at_scale"] = book_at_scale(
                folder,
                args.repeat,
                args.synthetic_claims,
                args.synthetic_announcements,
                args.synthetic_rounds,
                preview=args.synthetic_rounds == 1 and not args.skip_preview,
            )
        scale = ingest_slope(
            folder, [] if args.skip_ingest else [int(value) for value in args.sizes.split(",")]
        )
        for entry in (scale[0], scale[-1]) if scale else ():
            path = folder / f"summary-{entry['rows']}.csv"
            try:
                seconds, rss, _ = run_measured(
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
            except SystemExit as exc:
                # The book refuses the replicated rows where a claim's selector then finds several
                # systems (a registry error, as it should be): said, and the rest still recorded.
                entry["build_error"] = str(exc).splitlines()[-1][:300]
                continue
            entry["build_s"], entry["build_peak_rss_mib"] = seconds, rss
        results["scale"] = scale

    if not args.skip_tests:
        results["make_test"] = tests_measure()

    results["machine"]["load_average_end"] = [round(value, 1) for value in os.getloadavg()]
    (ROOT / "benchmarks" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"machine: {results['machine']}")
    print(f"fresh clone's first build (HTML only): {results['fresh_clone_first_build_s']:.1f} s")
    print(
        f"cold build:     ours {results['ours_cold_s']:.1f} s, jupyter-book (force) {results['jupyter_book_force_s']:.1f} s,"
        f" ratio {results['cold_ratio']:.2f} (goal <= 0.35)"
    )
    print(
        f"no-op rebuild:  ours {results['ours_noop_s']:.2f} s, jupyter-book (cache) {results['jupyter_book_noop_s']:.2f} s,"
        f" ratio {results['noop_ratio']:.2f} (goal <= 0.5)"
    )
    print(
        f"one parameter changed: {results['ours_param_change_s']:.1f} s ({results['ours_param_change_cpu_s']:.1f} s "
        f"of CPU), the chapter's own execution {results['param_change_chapter_execution_s']:.1f} s (goal <= 3)"
    )
    print(
        f"claimbook check: one claim {results['check_one_claim_s']:.2f} s ({results['check_one_claim_cpu_s']:.2f} s "
        f"of CPU; goal <= 1.5), every claim {results['check_every_claim_s']:.2f} s "
        f"({results['check_every_claim_cpu_s']:.2f} s of CPU; goal <= 3)"
    )
    if "preview" in results:
        print_preview(results["preview"])
    if "book_at_scale" in results:
        at_scale = results["book_at_scale"]
        print("claims  pages  cold_s  cold_cpu_s  cold_peak_rss_MiB  noop_s  one_claim_change_s")
        for entry in at_scale["sizes"]:
            print(
                f"{entry['claims']:>6}  {entry['pages']:>5}  {entry['cold_s']:6.1f}  {entry['cold_cpu_s']:10.1f}"
                f"  {entry['cold_peak_rss_mib']:17.0f}  {entry['noop_s']:6.2f}  {entry['one_claim_change_s']:18.2f}"
            )
        per_page = ", ".join(f"{value:.2f}" for value in at_scale["cold_s_per_page"])
        print(
            f"one more claim page: +{at_scale['cold_s_per_added_page']:.2f} s cold (goal <= 0.5), "
            f"+{at_scale['cold_cpu_s_per_added_page']:.2f} s of CPU; cold s per page "
            f"{per_page} (linear: no higher at scale); no-op at scale goal <= 1 s"
        )
    if "make_test" in results:
        print_tests(results["make_test"])
    print("rows    ingest_s  python_peak_MiB  rss_MiB  build_s  build_peak_rss_MiB")
    for entry in results["scale"]:
        print(
            f"{entry['rows']:>6}  {entry['ingest_s']:8.3f}  {entry['ingest_python_peak_mib']:15.1f}  {entry['ingest_rss_mib']:7.1f}"
            f"  {entry.get('build_s', float('nan')):7.1f}  {entry.get('build_peak_rss_mib', float('nan')):18.1f}"
        )


if __name__ == "__main__":
    main()
