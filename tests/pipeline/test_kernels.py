"""Kernels forked by the build's server (claimbook.pipeline.kernels): each page's notebook is byte for byte
what a kernel started from nothing gives, no page's state reaches another, and nothing is left
running or on disk when the server stops."""

import os
import shutil
import time
from pathlib import Path

import nbformat
import pytest

from claimbook.common.errors import ChapterError
from claimbook.common.paths import held_rounds
from claimbook.engine import load_registry
from claimbook.pipeline import digests, kernels
from claimbook.pipeline.execute import execute_chapter
from claimbook.pipeline.plan import committed_plan
from tests.helpers.project import ROOT

pytestmark = pytest.mark.skipif(not kernels.available(), reason="forking kernels needs POSIX fork")


@pytest.fixture(scope="module")
def server():
    modules = sorted(
        {
            name
            for template in ("notebooks/claim.ipynb",)
            for name in digests.template_modules(ROOT / template)
        }
    )
    started = kernels.KernelServer(ROOT, modules).start()
    yield started
    started.stop()


def run(template, output, server, parameters=None, name="page"):
    return execute_chapter(name, template, output, parameters or {}, ROOT, "template.ipynb", None, server)


def test_a_page_from_a_forked_kernel_is_the_page_a_fresh_kernel_gives(server, tmp_path):
    job = next(job for job in committed_plan(ROOT)[0] if job.name == "amd-v6.1/amd-wan-vs-b300")
    outputs = {}
    for way, used in (("forked", server), ("fresh", None)):
        outputs[way] = tmp_path / f"{way}.ipynb"
        execute_chapter(
            job.name, ROOT / job.template, outputs[way], job.parameters, ROOT, job.template, job.title, used
        )
    assert server.running()
    assert outputs["forked"].read_bytes() == outputs["fresh"].read_bytes()
    assert outputs["fresh"].read_bytes() == (ROOT / "book" / "generated" / f"{job.name}.ipynb").read_bytes()


LEAKY = [
    # What a page might change for the pages after it, shown before it changes it.
    (
        "import os, sys, functools, pandas as pd, altair as alt\n"
        "import claimbook.present.charts, claimbook.inputs.reference\n"
        "print(os.getcwd(), pd.get_option('display.max_rows'), alt.theme.active, alt.renderers.active)\n"
        "print(hasattr(claimbook.present.charts, 'LEAK'), sorted(name for name in sys.modules if 'leak' in name))\n"
        "print(get_ipython().execution_count, 'x' in globals(), os.environ.get('LEAK'))\n"
        "pd.set_option('display.max_rows', 3); alt.theme.enable('dark'); alt.renderers.enable('json')\n"
        "claimbook.present.charts.LEAK = 1; sys.modules['claimbook.leak'] = sys; os.environ['LEAK'] = '1'\n"
        "os.chdir('/')\n"
        "x = 1"
    ),
    "print(x, os.getcwd())",
]


def _notebook(path, sources):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index}"
    nbformat.write(notebook, path)
    return path


def test_no_state_reaches_the_next_page(server, tmp_path):
    template = _notebook(tmp_path / "leaky.ipynb", LEAKY)
    first = run(template, tmp_path / "first.ipynb", server).read_bytes()
    second = run(template, tmp_path / "second.ipynb", server).read_bytes()
    fresh = run(template, tmp_path / "fresh.ipynb", None).read_bytes()
    assert first == second == fresh
    shown = nbformat.read(tmp_path / "second.ipynb", as_version=4).cells[0].outputs[0]["text"]
    lines = shown.splitlines()
    assert lines[1] == "False []" and lines[2].endswith(" False None")  # set by the first run
    assert shown.startswith(f"{ROOT} ")


def test_what_the_server_holds_stays_out_of_a_kernels_collections(server, tmp_path):
    # A page's full collections go through its own objects, not the server's modules and data;
    # the server collects nothing before it forks, but a kernel collects its own garbage.
    template = _notebook(
        tmp_path / "frozen.ipynb",
        [
            "import gc, sys\nprint(gc.get_freeze_count() > 100_000, 'pandas' in sys.modules, gc.isenabled())",
            "class Loop:\n    pass\ndef made():\n    one = Loop()\n    one.me = one\nmade()\nprint(gc.collect() > 0)",
        ],
    )
    cells = nbformat.read(run(template, tmp_path / "forked.ipynb", server), as_version=4).cells
    assert [cell.outputs[0]["text"] for cell in cells] == ["True True True\n", "True\n"]


def test_printed_text_is_one_output_however_the_kernel_flushed_it(server, tmp_path):
    # The kernel sends what a cell prints when its timer fires; the notebook holds it whole.
    template = _notebook(
        tmp_path / "prints.ipynb",
        [
            "import sys, time\nfor part in 'abc':\n    print(part, end='', flush=True)\n    time.sleep(0.3)\nprint()"
        ],
    )
    for way, used in (("forked", server), ("fresh", None)):
        cell = nbformat.read(run(template, tmp_path / f"{way}.ipynb", used), as_version=4).cells[0]
        assert [(output["output_type"], output["text"]) for output in cell.outputs] == [
            ("stream", "abc\n")
        ], way


def test_only_neighbouring_printed_text_is_joined():
    from claimbook.pipeline.execute import joined_streams

    def stream(name, text):
        return nbformat.v4.new_output("stream", name=name, text=text)

    chart = nbformat.v4.new_output("display_data", data={"text/plain": "chart"})
    outputs = [stream("stdout", "a"), stream("stdout", "b"), stream("stderr", "w"), stream("stderr", "x")]
    outputs += [stream("stdout", "c"), chart, stream("stdout", "d"), stream("stdout", "e")]
    shown = [
        (output["output_type"], output.get("name"), output.get("text")) for output in joined_streams(outputs)
    ]
    assert shown == [
        ("stream", "stdout", "ab"),
        ("stream", "stderr", "wx"),
        ("stream", "stdout", "c"),
        ("display_data", None, None),
        ("stream", "stdout", "de"),
    ]


TAKES_PRELOADED = [
    (
        "from claimbook.engine import preloaded\nfrom claimbook.engine.context import page_data, page_parameters\n"
        "print(preloaded.held())"
    ),
    (
        "overrides = {'scaling-288gpu-99pct': {'tolerance': 0.5}}\n"
        "data = page_data(page_parameters({'overrides': overrides}))\n"
        "print(preloaded.held(), len(data.registry.claims), data.registry.claim('scaling-288gpu-99pct').fields['tolerance'])"
    ),
    "again = page_data(page_parameters({'overrides': overrides}))\nprint(again is data, again.results.equals(data.results))",
    "print(len(preloaded._KEPT))",
]


def test_a_page_takes_the_data_the_server_loaded_once_and_a_fresh_kernel_loads_the_same(server, tmp_path):
    template = _notebook(tmp_path / "takes.ipynb", TAKES_PRELOADED)
    outputs = {}
    for way, used in (("forked", server), ("fresh", None)):
        notebook = nbformat.read(run(template, tmp_path / f"{way}.ipynb", used), as_version=4)
        outputs[way] = [cell.outputs[0]["text"].strip() for cell in notebook.cells]
    claims = len(load_registry().claims)
    # The forked kernel holds the server's data and takes it once; the next load reads the files.
    # The overrides apply to what the server read as to what a page reads itself. What stays
    # held is each other round's results, which only a claim of that round takes.
    others = len(held_rounds(ROOT / "data" / "mlperf")) - 1
    assert outputs["forked"] == ["True", f"{others > 0} {claims} 0.5", "False True", str(others)]
    assert outputs["fresh"] == ["False", f"False {claims} 0.5", "False True", "0"]


def _preloaded_book(tmp_path, monkeypatch) -> Path:
    """A copy of the book's data, read by ``preload`` into this test's own store."""
    from claimbook.engine import context, preloaded

    book = tmp_path / "book"
    shutil.copytree(ROOT / "data", book / "data")
    monkeypatch.setenv("CLAIMBOOK_BOOK_ROOT", str(book))
    monkeypatch.setattr(preloaded, "_KEPT", {})  # this test's own
    context.preload()
    return book


def _same_data(one, other) -> bool:
    frames = ("results", "earlier", "result_ids", "reference.accelerators", "reference.benchmarks")

    def frame(data, name):
        for step in name.split("."):
            data = getattr(data, step)
        return data

    same_frames = all(frame(one, name).equals(frame(other, name)) for name in frames)
    return same_frames and (one.registry, one.sources) == (other.registry, other.sources)


@pytest.mark.parametrize(
    "edited, read_again",
    [
        ("data/claims/amd-v6.1.yaml", 1),  # that registry alone
        ("data/reference/accelerators.csv", 2),  # the reference, and the results annotated with it
        (None, 0),
    ],
)
def test_a_page_reads_again_only_the_parts_whose_files_changed(edited, read_again, tmp_path, monkeypatch):
    """Each part is kept under its own files' bytes: after an edit, a page takes every part but
    those of the edited file (which stay, never taken), and has the data a page reading every
    file has."""
    from claimbook.engine import context, preloaded

    book = _preloaded_book(tmp_path, monkeypatch)
    registries = len(list((book / "data" / "claims").glob("*.yaml")))
    # Each registry, the chapters, the reference, the results, each earlier round, the IDs, the
    # sources, and each other round the book holds (its results).
    others = len(held_rounds(book / "data" / "mlperf")) - 1
    assert len(preloaded._KEPT) == registries + 4 + len(context.PAGE_INPUTS["earlier_paths"]) + 1 + others
    if edited:
        path = book / edited
        text = path.read_text(encoding="utf-8")
        edit = (
            text.replace("Offline: 18, SingleStream", "Offline: 18.5, SingleStream", 1)
            if edited.endswith(".yaml")
            else text + "\n"
        )
        assert edit != text
        path.write_text(edit, encoding="utf-8")
    taken = context.page_data(context.page_parameters({}))
    # What stays: the edited file's parts, and each other round's results (only a claim of that
    # round takes them).
    assert len(preloaded._KEPT) == read_again + others
    preloaded._KEPT.clear()
    assert _same_data(taken, context.page_data(context.page_parameters({})))


@pytest.mark.parametrize(
    "says", ["warns", "prints", "changes a file", "closes a file left open", "warns of a deprecation"]
)
def test_a_read_that_said_something_or_raced_an_edit_is_not_kept(says, tmp_path, monkeypatch):
    """A fresh kernel's page would show what the read said, or read the edited file; a warning
    no page shows (Python's default filters ignore it) is no reason to read again."""
    import warnings

    from claimbook.engine import context, preloaded

    book = _preloaded_book(tmp_path, monkeypatch)
    parts = len(preloaded._KEPT)
    preloaded._KEPT.clear()
    read = context._read

    def saying(files, *rest):
        found = read(files, *rest)
        if says == "warns":
            warnings.warn("a dtype guessed", UserWarning, stacklevel=1)
        elif says == "prints":
            print("note: a row skipped")
        elif says == "closes a file left open":
            warnings.warn("unclosed file <_io.TextIOWrapper name='x'>", ResourceWarning, stacklevel=1)
        elif says == "warns of a deprecation":
            warnings.warn("an old spelling", DeprecationWarning, stacklevel=1)
        else:
            sources = book / files["sources_path"]
            sources.write_bytes(sources.read_bytes() + b"\n")
        return found

    monkeypatch.setattr(context, "_read", saying)
    context.preload()
    # What was said is said by no part; the part of the file edited as it was read is not kept.
    kept = {"changes a file": parts - 1, "closes a file left open": parts, "warns of a deprecation": parts}
    assert len(preloaded._KEPT) == kept.get(says, 0)


def test_a_kernel_that_dies_fails_its_page_and_not_the_server(server, tmp_path):
    _notebook(tmp_path / "dies.ipynb", ["import os\nos._exit(3)"])
    with pytest.raises(ChapterError, match="chapter dies"):
        run(tmp_path / "dies.ipynb", tmp_path / "out.ipynb", server, name="dies")
    assert server.running()


def test_a_stopped_server_leaves_nothing_and_pages_still_run(tmp_path, monkeypatch):
    # The kernels' folders go in a temporary folder of this test's own (short: sockets live there),
    # apart from those of the other tests running at the same time.
    import shutil
    import tempfile

    scratch = tempfile.mkdtemp(prefix="cbk-")
    monkeypatch.setattr(tempfile, "tempdir", scratch)
    _notebook(tmp_path / "sum.ipynb", ["print(1 + 1)"])
    server = kernels.KernelServer(ROOT).start()
    run(tmp_path / "sum.ipynb", tmp_path / "forked.ipynb", server)
    process = server.process
    connection = ["-f", str(tmp_path / "kernel.json")]
    running = server.spawn(connection, dict(os.environ), str(tmp_path), str(tmp_path / "stream"))  # no client
    server.stop()
    assert process.poll() is not None and not server.running()
    deadline = time.monotonic() + 10
    while running.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.kill(running.pid, 0)  # killed with its server, and reaped
    run(tmp_path / "sum.ipynb", tmp_path / "fresh.ipynb", server)  # a page still runs, afresh
    assert (tmp_path / "fresh.ipynb").read_bytes() == (tmp_path / "forked.ipynb").read_bytes()
    assert os.listdir(scratch) == []  # each kernel's folder went with its page
    shutil.rmtree(scratch)


# -- when a build starts its server -----------------------------------------------------------------
def _watched_servers(monkeypatch) -> list:
    """The servers builds in this process start from now on (each started as usual)."""
    from claimbook.pipeline import run as run_module

    started, real = [], run_module.kernel_server

    def recorded(root):
        started.append(real(root))
        return started[-1]

    monkeypatch.setattr(run_module, "kernel_server", recorded)
    return started


def test_a_build_that_executes_nothing_or_stops_at_its_inputs_starts_no_server(tmp_path, monkeypatch):
    from claimbook.common.errors import UsageError
    from claimbook.pipeline.book import build
    from claimbook.pipeline.request import BuildRequest

    started = _watched_servers(monkeypatch)
    quiet = {"report": lambda _: None, "html": False}
    result = build(BuildRequest(out=tmp_path / "out", **quiet))  # every committed page current
    assert result.executed == () and result.pages
    for bad in ({"overrides": ("nosuch-claim.claimed=1",)}, {"only": ("nosuch",)}):
        with pytest.raises(UsageError):
            build(BuildRequest(out=tmp_path / "bad", **bad, **quiet))
    assert started == []


def test_a_build_not_foreseen_to_execute_starts_its_server_once_a_page_must_run(tmp_path, monkeypatch):
    """Its request foretold no page (the registry changed after it was read, say): the page
    still runs in a forked kernel, and the server ends with the build."""
    from claimbook.pipeline import book
    from claimbook.pipeline.request import BuildRequest

    started = _watched_servers(monkeypatch)
    monkeypatch.setattr(book, "execution_foreseen", lambda request: False)
    forked, launch = [], kernels.launch
    monkeypatch.setattr(kernels, "launch", lambda *args: forked.append(launch(*args)) or forked[-1])
    request = BuildRequest(
        out=tmp_path / "out",
        only=("rubin-qwen3vl-3.7x",),
        overrides=("rubin-qwen3vl-3.7x.quantifier=about",),
        report=lambda _: None,
        html=False,
    )
    assert len(book.build(request).executed) == 1
    assert len(started) == 1 and len(forked) == 1
    assert not started[0].running()


def test_a_request_foretells_whether_its_build_executes_a_page(tmp_path):
    from claimbook.pipeline.request import BuildRequest
    from claimbook.pipeline.run import execution_foreseen

    def foreseen(**options):
        return execution_foreseen(BuildRequest(out=tmp_path / "out", html=False, **options))

    assert not foreseen()  # the committed pages, current
    assert not foreseen(only=("nosuch",)) and not foreseen(overrides=("nosuch-claim.claimed=1",))
    assert foreseen(force=True)
    assert foreseen(only=("rubin-qwen3vl-3.7x",), overrides=("rubin-qwen3vl-3.7x.quantifier=about",))
