"""Unit tests of the parts around the engine: reviewed tables, registries, parameters, digests,
output rules, the HTML sync, chart labels and generated pages."""

import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

from claimbook.claims import params
from claimbook.claims.registry import RegistryError
from claimbook.common.formatting import signed_percent
from claimbook.common.paths import OUT_MARKER_TEXT
from claimbook.engine import SPECS, load_registry
from claimbook.engine.verdict import gap_percent, matches, reaches, weakest
from claimbook.inputs.reference import annotate, load_reference
from claimbook.pipeline import digests, jupyterbook, outputs
from claimbook.present import blocks, charts, markdown_pages
from tests.helpers.own_registries import OWN_ANNOUNCEMENTS, own_order
from tests.helpers.project import ROOT

REFERENCE = load_reference(ROOT / "data" / "reference")


# -- the reviewed tables ------------------------------------------------------------------------
def test_every_published_accelerator_has_a_reviewed_family(committed_results):
    annotated = annotate(committed_results, REFERENCE)
    reviewed = set(REFERENCE.families()["family"])
    assert set(annotated["family"]) <= reviewed
    # the one published in lower case is the same family as its upper-case twin
    assert REFERENCE.family("Nvidia B300-SXM-270GB").name == REFERENCE.family("NVIDIA B300-SXM-270GB").name
    assert REFERENCE.family("NVIDIA VR200").name == "NVIDIA Vera Rubin"
    assert REFERENCE.family("NVIDIA GB200").name != REFERENCE.family("NVIDIA B200-SXM-180GB").name


def test_each_family_has_its_own_colour_and_shape():
    families = REFERENCE.families()
    assert not families.duplicated(["colour", "shape"]).any()
    colour, shape = charts.family_scales(REFERENCE, ["MI355X", "GB300"])  # charts show the short names
    assert colour.domain == ["GB300", "MI355X"]  # the reviewed order, whatever the order of the data
    assert not families.duplicated("short_name").any()
    row = families.set_index("family").loc["NVIDIA GB300"]
    assert (colour.range[0], shape.range[0]) == (row["colour"], row["shape"])


def test_every_benchmark_has_a_canonical_name(committed_results):
    assert set(committed_results["model"]) <= set(REFERENCE.benchmarks["model"])
    assert REFERENCE.benchmark("llama3_1-8b") == "llama3.1-8b"


# -- registries -------------------------------------------------------------------------------------
def registry_with(tmp_path, claims, header=None):
    folder = tmp_path / "claims"
    folder.mkdir(exist_ok=True)
    base = {
        "id": "acme-v6.1",
        "title": "t",
        "publisher": "Acme",
        "claimant": "Acme",
        "vendor": "Acme",
        "date": "2026-09-18",
        "round": "v6.1",
    }
    (folder / "acme-v6.1.yaml").write_text(
        yaml.safe_dump({"announcement": {**base, **(header or {})}, "claims": claims})
    )
    (tmp_path / "chapters.yaml").write_text("{}\n")
    return load_registry(folder, tmp_path / "chapters.yaml")


FIGURE = {
    "id": "fig",
    "statement": "s",
    "kind": "figure",
    "benchmark": "gpt-oss-120b",
    "scenarios": ["Offline"],
    "claimed": 1.0,
    "subject": {"organization": "Acme"},
}


@pytest.mark.parametrize(
    "claims, message",
    [
        ([{**FIGURE, "kind": "speed"}], "claim fig: field kind: unknown kind 'speed'"),
        ([{**FIGURE, "claimed": None}], "claim fig: field claimed: required for a figure claim"),
        ([FIGURE, FIGURE], "claim fig: field id: duplicate id"),
        ([{**FIGURE, "colour": "red"}], "claim fig: field colour: not a field of a figure claim"),
        ([{**FIGURE, "subject": {"company": "Acme"}}], "claim fig: field subject.company: unknown field"),
        (
            [{**FIGURE, "subject": {"gpus": "eight"}}],
            "claim fig: field subject.gpus: expected a whole number",
        ),
        ([{**FIGURE, "chapter": "nowhere"}], "claim fig: field chapter: 'nowhere' is not a chapter"),
        ([{"statement": "s", "kind": "figure"}], "claims[0]: field id: required"),
    ],
)
def test_registry_mistakes_name_the_file_the_claim_and_the_field(tmp_path, claims, message):
    with pytest.raises(RegistryError) as error:
        registry_with(tmp_path, claims)
    assert str(error.value).startswith(str(Path(tmp_path / "claims" / "acme-v6.1.yaml")))
    assert message in str(error.value)


def test_registry_header_and_yaml_mistakes(tmp_path):
    with pytest.raises(RegistryError, match=r"field announcement.claimant: required"):
        registry_with(tmp_path, [FIGURE], {"claimant": None})
    (tmp_path / "claims" / "acme-v6.1.yaml").write_text("announcement: [unclosed\n")
    with pytest.raises(RegistryError, match=r"acme-v6.1.yaml, line \d+: not valid YAML"):
        load_registry(tmp_path / "claims", tmp_path / "chapters.yaml")


def test_parts_inherit_their_parents_fields(tmp_path):
    parent = {
        "id": "both",
        "statement": "s",
        "kind": "compound",
        "benchmark": "gpt-oss-120b",
        "parts": [
            {**FIGURE, "id": "both.fig", "benchmark": None} | {"benchmark": "gpt-oss-120b"},
            {"id": "both.more", "statement": "s", "kind": "not-checkable", "reason": "r"},
        ],
    }
    registry = registry_with(tmp_path, [parent])
    assert [claim.id for claim in registry.all_claims()] == ["both", "both.fig", "both.more"]
    assert registry.claim("both.more").get("benchmark") == "gpt-oss-120b"
    assert registry.claim("both.fig").parent == "both"


def test_the_committed_registries_load_and_name_every_required_claim():
    registry = load_registry()
    ids = {claim.id for claim in registry.all_claims()}
    required = {
        "rubin-qwen3vl-3.7x",
        "rubin-dsr1-2.5x",
        "scaling-288gpu-99pct",
        "scaling-leading-efficiency",
        "software-gains-1.6x",
        "wan-throughput-0.65",
        "wan-latency-5.7s",
        "wan-9x-throughput",
        "wan-7.5x-latency",
        "partners-19",
        "partners-multinode-8",
        "nebius-rubin-preview",
        "jetson-thor-edge-agentic",
        "rubin-lower-cost-per-token",
        "rubin-more-tokens-per-rack",
        "rubin-leading-debut",
        "gpu-count-single-digit",
        "rubin-frameworks",
        "nvfp4-precision",
        "platform-fungibility",
        "disaggregated-serving",
        "result-entries",
        "agentx-30x",
        "post-submission-gains",
        "nvlink-packet-rate",
        "mlperf-endpoints-upcoming",
        "amd-gptoss-scaling-72",
        "amd-gains-llama2",
        "amd-gains-gptoss",
        "amd-gains-wan",
        "amd-wan-vs-b300",
        "amd-gptoss-vs-b200-b300",
        "amd-gptoss-72-vs-gb200",
        "amd-llama2-ties",
        "amd-dlrm-vs-b200-v60",
        "amd-mi350p-pcie-top",
        "amd-mi350p-vs-rtxpro",
        "amd-crusoe-largest",
        "amd-crusoe-highest-throughput",
        "amd-crusoe-first-dsr1",
        "amd-partners-7",
        "amd-breadth",
    }
    assert required <= ids
    assert own_order(registry.announcements) == list(OWN_ANNOUNCEMENTS)  # by date (others may come between)


# -- --param -------------------------------------------------------------------------------------
def test_a_mapping_param_merges_and_a_null_removes_with_a_warning():
    registry = load_registry()
    chapters, _claims, warnings = params.apply(
        ['economics.assumed_prices={"NVIDIA GB300": 12}'], registry, SPECS
    )
    prices = chapters["economics"]["assumed_prices"]
    assert prices["NVIDIA GB300"] == 12 and prices["NVIDIA Vera Rubin"] == 15.75 and warnings == []
    chapters, _, warnings = params.apply(
        ['economics.assumed_prices={"NVIDIA Vera Rubin": null}'], registry, SPECS
    )
    assert "NVIDIA Vera Rubin" not in chapters["economics"]["assumed_prices"]
    assert len(warnings) == 1 and warnings[0].startswith(
        "warning: --param economics.assumed_prices: NVIDIA Vera Rubin has no value"
    )


def test_a_claim_param_reaches_inside_a_selector_and_part_ids_with_dots_work():
    registry = load_registry()
    _, claims, _ = params.apply(
        ["rubin-dsr1-2.5x.subject.system=X", "amd-breadth.categories.named=[language]"], registry, SPECS
    )
    assert claims == {
        "rubin-dsr1-2.5x": {"subject.system": "X"},
        "amd-breadth.categories": {"named": ["language"]},
    }


def test_a_missing_system_warning_suggests_a_param_that_works():
    from claimbook.engine.context import apply_overrides
    from claimbook.pipeline.verify import missing_warnings as _missing_warnings

    registry = load_registry()
    cases = {
        "rubin-dsr1-2.5x": (
            "subject (organization NVIDIA, system VR-X): no result with system='VR-X'; closest ...",
            "rubin-dsr1-2.5x.subject.system=NAME",
        ),
        "nebius-rubin-preview": (
            "rows (organization Nebius, family NVIDIA Vera Rubin): no result with family='NVIDIA Vera Rubin'",
            "nebius-rubin-preview.rows.family=NAME",
        ),
        "rubin-frameworks": (
            (
                "item DeepSeek-R1 with TensorRT-LLM (organization NVIDIA, family NVIDIA Vera Rubin): no "
                "result with family='NVIDIA Vera Rubin'"
            ),
            "rubin-frameworks.items.1.family=NAME",
        ),
    }
    for claim_id, (missing, suggestion) in cases.items():
        [warning] = _missing_warnings([{"claim": claim_id, "part_of": "", "missing": [missing]}], registry)
        assert f"--param {suggestion}" in warning, warning
        # ... and the suggested --param is taken, and changes that field only
        _, overrides, _ = params.apply([suggestion.replace("NAME", "ELSEWHERE")], registry, SPECS)
        changed = apply_overrides(registry, overrides).claim(claim_id)
        path = suggestion[len(claim_id) + 1 :].rsplit("=", 1)[0].split(".")
        value = changed.fields
        for step in path:
            value = value[int(step)] if isinstance(value, list) else value[step]
        assert value == "ELSEWHERE"
    items = (
        apply_overrides(registry, {"rubin-frameworks": {"items.1.family": "X"}})
        .claim("rubin-frameworks")
        .get("items")
    )
    assert [item["family"] for item in items] == ["NVIDIA Vera Rubin", "X"]


def test_a_list_item_is_named_by_its_index():
    from claimbook.claims.mappings import set_path

    fields = {"items": [{"a": 1}, {"a": 2}]}
    assert set_path(fields, "items.1.a", 5) == {"items": [{"a": 1}, {"a": 5}]}
    assert fields == {"items": [{"a": 1}, {"a": 2}]}  # the original is left as it was
    with pytest.raises(RegistryError, match="items is a list of 2; name an item by its index, 0 to 1"):
        set_path(fields, "items.2.a", 5)


@pytest.mark.parametrize(
    "text, message",
    [
        ("nowhere.tolerance=1", "'nowhere' is neither a chapter nor a claim"),
        ("economics.colour=1", "chapter economics has no parameter 'colour'"),
        ("rubin-dsr1-2.5x.colour=1", "a ratio claim has no field 'colour'"),
        ("scaling", "expected CLAIM.NAME=VALUE or CHAPTER.NAME=VALUE"),
        ("economics.assumed_prices={unclosed", "the value is not valid YAML"),
    ],
)
def test_bad_params_are_one_line(text, message):
    with pytest.raises(params.ParamError) as error:
        params.apply([text], load_registry(), SPECS)
    assert message in str(error.value) and "\n" not in str(error.value)


# -- digests follow the code a page runs -----------------------------------------------------------
def test_a_page_depends_on_the_modules_its_template_imports_and_no_others():
    modules = set(digests.template_modules(ROOT / "notebooks" / "claim.ipynb"))
    assert {
        "claimbook.present.claim_pages",
        "claimbook.engine.kinds.ratio",
        "claimbook.present.blocks",
        "claimbook.present.charts",
    } <= modules
    assert not modules & {
        "claimbook.cli",
        "claimbook.pipeline.book",
        "claimbook.pipeline.outputs",
        "claimbook.pipeline.jupyterbook",
        "claimbook.claims.params",
    }


def test_touching_a_module_no_template_imports_changes_no_digest(monkeypatch):
    template = ROOT / "notebooks" / "claim.ipynb"
    before = digests.chapter_digest(template, {"claim_id": "x"}, ROOT, [])
    real = digests.file_digest

    def touched(path):
        return "changed" if Path(path).name in ("__main__.py", "build.py") else real(path)

    monkeypatch.setattr(digests, "file_digest", touched)
    assert digests.chapter_digest(template, {"claim_id": "x"}, ROOT, []) == before
    monkeypatch.setattr(
        digests, "file_digest", lambda path: "changed" if Path(path).name == "blocks.py" else real(path)
    )
    assert digests.chapter_digest(template, {"claim_id": "x"}, ROOT, []) != before


def test_digests_follow_file_content_inside_the_book_only(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("x\n")
    first = digests.with_file_digests({"path": "data/a.csv", "root": "..", "folder": "data"}, tmp_path)
    assert (
        first["path"].startswith("file:") and first["folder"].startswith("folder:") and first["root"] == ".."
    )
    (tmp_path / "data" / "a.csv").write_text("y\n")
    assert digests.with_file_digests({"path": "data/a.csv"}, tmp_path)["path"] != first["path"]


# -- what a build is asked ------------------------------------------------------------------------
def test_a_build_request_is_checked_once_as_it_is_made(tmp_path):
    import dataclasses

    from claimbook.common.errors import UsageError
    from claimbook.pipeline.request import BuildRequest

    plain = BuildRequest(root=ROOT / "book" / "..")
    assert plain.root == ROOT.resolve() and plain.target == plain.root and plain.plain and not plain.to_out
    out = BuildRequest(out=tmp_path / "new", only=["amd-wan-vs-b300"], overrides=["x.y=1"])
    assert out.target == (tmp_path / "new").resolve() and out.to_out and not out.plain
    assert out.only == ("amd-wan-vs-b300",) and out.overrides == ("x.y=1",)
    assert not BuildRequest(force=True).plain
    with pytest.raises(dataclasses.FrozenInstanceError):
        plain.force = True
    (tmp_path / "file").write_text("mine")
    for options, message in [
        ({"round_name": "v6.1"}, "--round goes with --results"),
        (
            {"results": tmp_path / "s.csv", "round_name": "6.1", "out": tmp_path / "o"},
            "--round '6.1': a round is",
        ),
        ({"jobs": 0}, "--jobs must be at least 1"),
        ({"out": tmp_path / "file" / "book"}, "is a file, not a folder"),
        ({"only": ["amd-wan-vs-b300"]}, "--only builds a book from other inputs; give --out DIR"),
        ({"overrides": ["x.y=1"]}, "--param builds a book from other inputs"),
        ({"results": tmp_path / "s.csv"}, "--results builds a book from other inputs"),
    ]:
        with pytest.raises(UsageError, match=re.escape(message)):
            BuildRequest(**options)
    with pytest.raises(outputs.OutputError, match="holds the project"):
        BuildRequest(out=ROOT)


# -- where a build may write -----------------------------------------------------------------------
def test_out_folder_rules(tmp_path):
    assert outputs.check_out_folder(tmp_path / "new") == (tmp_path / "new").resolve()
    (tmp_path / "empty").mkdir()
    assert outputs.check_out_folder(tmp_path / "empty")
    (tmp_path / "ours").mkdir()
    outputs.mark_out_folder(tmp_path / "ours")
    (tmp_path / "ours" / "book").mkdir()
    assert outputs.check_out_folder(tmp_path / "ours")
    for forged in ("", "{}", OUT_MARKER_TEXT + " "):  # a file of the marker's name is no marker
        (tmp_path / f"forged{len(forged)}").mkdir()
        (tmp_path / f"forged{len(forged)}" / ".claimbook-out").write_text(forged)
        (tmp_path / f"forged{len(forged)}" / "notes.txt").write_text("mine")
        with pytest.raises(
            outputs.OutputError, match="its own .claimbook-out is not the one the build writes"
        ):
            outputs.check_out_folder(tmp_path / f"forged{len(forged)}")
        outputs.discard_new_out(tmp_path / f"forged{len(forged)}", None)
        assert (tmp_path / f"forged{len(forged)}" / "notes.txt").read_text() == "mine"
        assert outputs.owner(tmp_path / f"forged{len(forged)}" / "notes.txt", ROOT) is None
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    (tmp_path / "file.txt").write_text("mine")
    (tmp_path / "link").symlink_to(ROOT)
    for refused, message in [
        (tmp_path / "theirs", "not empty"),
        (tmp_path / "file.txt", "is a file"),
        (ROOT, "holds the project"),
        (ROOT.parent, "holds the project"),
        (tmp_path / "link", "holds the project"),
        (ROOT / "book" / "x", "inside the project's book/"),
    ]:
        with pytest.raises(outputs.OutputError, match=message):
            outputs.check_out_folder(refused)


def _folder(path: Path, **files: str) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def _names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_publish_replaces_every_folder_whole(tmp_path):
    pages, site = _folder(tmp_path / "pages", a="old"), _folder(tmp_path / "site", x="old")
    staging = tmp_path / "_build" / ".claimbook-staging-1"
    new_pages, new_site = _folder(staging / "pages", b="new"), _folder(staging / "site", y="new")
    outputs.publish([(new_pages, pages), (new_site, site)], tmp_path / "_build")
    assert _names(pages) == ["b"] and _names(site) == ["y"]
    assert _names(staging) == []  # the old versions are removed
    assert _names(tmp_path / "_build") == [".claimbook-staging-1"]  # and the journal


KILLED_AT_SECOND_EXCHANGE = """
import os, signal, sys
from pathlib import Path
from claimbook.pipeline import outputs
real, calls = outputs._exchange, []
def exchange(first, second):
    calls.append(second)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    real(first, second)
outputs._exchange = exchange
root = Path(sys.argv[1])
staging = root / "_build" / ".claimbook-staging-1"
outputs.publish([(staging / "book", root / "book"), (staging / "html", root / "_build" / "html")], root / "_build")
"""


def test_a_swap_is_all_or_nothing(tmp_path, monkeypatch):
    """A failed exchange puts back the ones before it (wholly old); a kill between the two (no
    handler runs) leaves the journal, and the next build's ``clear_leftovers`` rolls the swap
    forward (wholly new)."""
    import signal
    import subprocess
    import sys

    def prepare():
        for folder in (tmp_path / "book", tmp_path / "_build"):
            if folder.exists():
                __import__("shutil").rmtree(folder)
        _folder(tmp_path / "book", a="old")
        _folder(tmp_path / "_build" / "html", x="old")
        staging = tmp_path / "_build" / ".claimbook-staging-1"
        return [
            (_folder(staging / "book", b="new"), tmp_path / "book"),
            (_folder(staging / "html", y="new"), tmp_path / "_build" / "html"),
        ]

    pairs = prepare()
    real = outputs._exchange

    def fail_second(first, second):
        if second.name == "html":
            raise OSError(28, "No space left on device")
        real(first, second)

    monkeypatch.setattr(outputs, "_exchange", fail_second)
    with pytest.raises(OSError, match="No space"):
        outputs.publish(pairs, tmp_path / "_build")
    assert _names(tmp_path / "book") == ["a"] and _names(tmp_path / "_build" / "html") == ["x"]
    assert not (tmp_path / "_build" / outputs.JOURNAL).exists()
    monkeypatch.setattr(outputs, "_exchange", real)

    prepare()
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AT_SECOND_EXCHANGE, tmp_path], cwd=ROOT, check=False
    )
    assert killed.returncode == -signal.SIGKILL
    assert _names(tmp_path / "book") == ["b"] and _names(tmp_path / "_build" / "html") == ["x"]
    assert outputs.has_leftovers(tmp_path)
    outputs.clear_leftovers(tmp_path)  # what the next build does first, under the lock
    assert _names(tmp_path / "book") == ["b"] and _names(tmp_path / "_build" / "html") == ["y"]
    assert not outputs.has_leftovers(tmp_path) and _names(tmp_path / "_build") == ["html"]


def test_a_journal_moves_nothing_outside_its_target(tmp_path):
    """The journal lies in the target (an --out folder can come from anyone): an entry naming a
    folder outside it, or one the build does not replace, is ignored."""
    import json

    target, outside = tmp_path / "book-out", _folder(tmp_path / "mine", a="mine")
    _folder(target / "book", b="book")
    theirs = _folder(target / "_build" / ".claimbook-staging-1" / "x", c="c")
    entries = [
        {"new": str(outside), "old": "book", "identity": outputs._identity(outside)},
        {"new": "../mine", "old": "book", "identity": outputs._identity(outside)},
        {"new": "_build/.claimbook-staging-1/x", "old": "../mine", "identity": outputs._identity(theirs)},
        {"new": "_build/.claimbook-staging-1/x", "old": "notebooks", "identity": outputs._identity(theirs)},
        "nonsense",
    ]
    (target / "_build" / outputs.JOURNAL).write_text(json.dumps(entries))
    outputs.clear_leftovers(target)
    assert _names(outside) == ["a"] and _names(target / "book") == ["b"]
    assert not (target / "notebooks").exists() and not outputs.has_leftovers(target)


def test_publish_across_file_systems(tmp_path, monkeypatch):
    """_build/ on another file system: a rename from it into book/ fails with EXDEV (simulated:
    every path under _build/ is on "device 2", and os.replace refuses to cross). The new folder is
    copied beside the one it replaces first, so the exchange never crosses."""
    import errno

    build = tmp_path / "_build"

    def device(path):
        return 2 if Path(path).resolve().is_relative_to(build) else 1

    def replace(source, destination, _replace=outputs.os.replace):
        if device(source) != device(Path(destination).parent):
            raise OSError(errno.EXDEV, "Invalid cross-device link", str(source))
        return _replace(source, destination)

    monkeypatch.setattr(outputs, "_filesystem", device)
    monkeypatch.setattr(outputs, "_EXCHANGE", None)  # the three renames, through os.replace
    monkeypatch.setattr(outputs.os, "replace", replace)
    pages, data = _folder(tmp_path / "book" / "claims", a="old"), tmp_path / "book" / "data"
    staging = build / ".claimbook-staging-1"
    new_pages, new_site = _folder(staging / "claims", b="new"), _folder(staging / "html", y="new")
    new_data = _folder(staging / "data", d="new")  # a second folder of the same parent, new
    with pytest.raises(OSError, match="cross-device"):
        replace(new_pages, pages)  # what every plain build did
    outputs.publish([(new_pages, pages), (new_data, data), (new_site, build / "html")], build)
    assert _names(pages) == ["b"] and _names(data) == ["d"] and _names(build / "html") == ["y"]
    assert _names(tmp_path / "book") == ["claims", "data"]  # the copies beside them are gone


def test_manifest_and_carry_over(tmp_path):
    old = _folder(tmp_path / "old", page="built", mynotes="the user's")
    outputs.write_manifest(old, exclude={"mynotes"})
    assert outputs.read_manifest(old) == {"page": None}
    new = _folder(tmp_path / "new", other="built")
    assert outputs.carry_over(old, new, outputs.read_manifest(old)) == ["mynotes"]
    assert _names(new) == ["mynotes", "other"]
    # No manifest: nothing is known to be the build's, so everything is kept.
    bare = _folder(tmp_path / "bare", page="built?")
    assert outputs.read_manifest(bare) is None
    assert outputs.carry_over(bare, _folder(tmp_path / "next"), None) == ["page"]


def test_an_out_books_files_edited_or_put_where_the_build_writes_are_never_replaced(tmp_path):
    """An --out book's manifest keeps each file's digest: a file edited since the build wrote it,
    or someone's file where the new version has one, stops the swap (strict) and is named; a
    file of the build's as it wrote it is replaced, someone's file elsewhere is kept."""
    old = _folder(tmp_path / "old", page="built", index="built", notes="the user's")
    outputs.write_manifest(old, exclude={"notes"}, with_digests=True)
    assert set(outputs.read_manifest(old)) == {"index", "page"}
    assert all(len(digest) == 64 for digest in outputs.read_manifest(old).values())
    ours = outputs.read_manifest(old)
    new = _folder(tmp_path / "new", page="built again", index="built again")
    assert outputs.carry_over(old, new, ours, strict=True) == ["notes"]  # nothing edited: replaced
    (old / "page").write_text("edited by hand")
    (old / "other").write_text("the user's")  # (where the next version writes one)
    newer = _folder(tmp_path / "newer", page="built", index="built", other="built")
    with pytest.raises(outputs.NotTheBuilds) as raised:
        outputs.carry_over(old, newer, ours, strict=True)
    assert raised.value.names == ["other", "page"]
    # Not strict (the committed book's own folders): the build's versions, as before.
    assert outputs.carry_over(old, _folder(tmp_path / "plain", page="built"), ours) == ["notes", "other"]


def test_one_lock_for_every_writer(tmp_path):
    with (
        outputs.Lock(tmp_path),
        pytest.raises(outputs.LockedError, match="another build is writing"),
        outputs.Lock(tmp_path, shared=True),
    ):
        pass
    with (
        outputs.Lock(tmp_path, shared=True),
        outputs.Lock(tmp_path, shared=True),  # readers share it
        pytest.raises(outputs.LockedError),
        outputs.writer_lock(tmp_path / "data" / "x.csv", tmp_path),  # a writer waits for none
    ):
        pass
    with outputs.Lock(tmp_path):  # released
        pass
    assert _names(tmp_path) == []  # nothing is created to hold it
    book = _folder(tmp_path / "book", **{".claimbook-out": OUT_MARKER_TEXT})
    assert outputs.owner(book / "data" / "x.csv", tmp_path / "project") == book
    assert outputs.owner(tmp_path / "elsewhere.csv", tmp_path / "project") is None


def test_kernel_folders_of_dead_builds_are_removed(tmp_path):
    import subprocess
    import sys

    from claimbook.pipeline import kernelfolders

    dead = subprocess.run(
        [sys.executable, "-c", "print(__import__('os').getpid())"], capture_output=True, check=True
    )
    dead_pid = int(dead.stdout)
    left = _folder(tmp_path / f"claimbook-kernel-{dead_pid}-abcd1234", **{"kernel-1": ""})
    alive = _folder(tmp_path / f"claimbook-kernel-{os.getppid()}-abcd1234")
    other = _folder(tmp_path / "claimbook-kernel-someone")
    assert kernelfolders.remove_dead(tmp_path) == [left]
    assert _names(tmp_path) == sorted([alive.name, other.name])
    with kernelfolders.kernel_folder() as folder:
        assert folder.name.startswith(f"claimbook-kernel-{os.getpid()}-")
    assert not folder.exists()


# -- the HTML work folder is synced file by file -------------------------------------------------
def test_sync_rewrites_only_what_changed(tmp_path):
    source, work = tmp_path / "source", tmp_path / "work"
    (source / "book" / "sub").mkdir(parents=True)
    (source / "data").mkdir()
    for name in ("_config.yml", "_toc.yml", "book/a.md", "book/sub/b.md", "data/results.csv"):
        (source / name).write_text(name)
    assert jupyterbook.sync(source, work) == 4
    # A book's sources only: an --out book's data is not jupyter-book's to read.
    assert not (work / "data").exists()
    stamp = (work / "book" / "a.md").stat().st_mtime_ns
    (source / "book" / "sub" / "b.md").write_text("b2")
    (work / "book" / "stale.md").write_text("gone")
    assert jupyterbook.sync(source, work) == 1
    assert (work / "book" / "a.md").stat().st_mtime_ns == stamp  # unchanged: Sphinx does not re-read it
    assert not (work / "book" / "stale.md").exists()


def test_the_work_folders_pages_and_sync_leave_sphinxs_output_alone(tmp_path):
    # Sphinx's output (``_build``: the site, its doctrees) is no source: the pages are listed and
    # the sync removes what the book no longer has without walking it, and never removes in it.
    source, work = tmp_path / "source", tmp_path / "work"
    (source / "book" / "sub").mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml", "book/a.md", "book/sub/b.ipynb"):
        (source / name).write_text(name)
    output = work / "_build" / "html"
    output.mkdir(parents=True)
    (output / "a.md").write_text("Sphinx's")
    (work / "_build" / "page.ipynb").write_text("Sphinx's")
    jupyterbook.sync(source, work)
    (work / "book" / "gone").mkdir()
    (work / "book" / "gone" / "old.md").write_text("stale")
    (work / "elsewhere").mkdir()
    (work / "elsewhere" / "linked").symlink_to(output, target_is_directory=True)
    pages = {
        Path("book/a.md"),
        Path("book/sub/b.ipynb"),
        Path("book/gone/old.md"),
    }
    assert jupyterbook.documents(work) == pages  # (a link to a folder is not followed)
    jupyterbook.sync(source, work)
    assert jupyterbook.documents(work) == pages - {Path("book/gone/old.md")}
    assert not (work / "elsewhere").exists() and (output / "a.md").read_text() == "Sphinx's"
    assert (work / "_build" / "page.ipynb").is_file()
    # Whatever ``_build`` is at the top (a file someone put there), the sync leaves it alone.
    other = tmp_path / "other"
    other.mkdir()
    (other / "_build").write_text("not a folder")
    jupyterbook.sync(source, other)
    assert (other / "_build").read_text() == "not a folder" and (other / "book" / "a.md").is_file()


def test_a_site_copy_links_what_sphinx_left_as_the_published_site_has_it(tmp_path):
    # The finished site is copied out of Sphinx's work folder on every build that compiled it: a
    # page Sphinx has not written since the current site was copied from it is linked from that
    # site (no second copy of tens of megabytes). Anything else is copied: a page Sphinx wrote
    # (even with its old size and time put back), a published page edited by hand, one with a
    # second name (a backup made with links), one reached through a link, or the whole site
    # when it has no time of copy (an older site) or the build is --force'd (``current`` None).
    made, work_root = tmp_path / "work" / "html", tmp_path / "build"
    names = ["index.html", "book/kept.html", "book/rewritten.html", "book/restamped.html"]
    names += ["book/edited.html", "book/backed-up.html", "book/linked.html", "images/logo.svg"]
    for name in names:
        (made / name).parent.mkdir(parents=True, exist_ok=True)
        (made / name).write_text(f"first {name}")
    current = tmp_path / "current"
    jupyterbook.copy_site(made, current, work_root, "stamp-1", None)
    assert jupyterbook.read_stamp(current) == "stamp-1"
    assert isinstance(jupyterbook.read_stamp(current, "copied"), int)

    (made / "book" / "rewritten.html").write_text("second text, as Sphinx writes a changed page")
    restamped = made / "book" / "restamped.html"
    before = restamped.stat()
    restamped.write_text("FIRST book/restamped.html")  # the same size, its time put back
    os.utime(restamped, ns=(before.st_atime_ns, before.st_mtime_ns))
    edited = current / "book" / "edited.html"
    edited.write_text("FIRST book/edited.html")  # as long as before: its time tells it was edited
    os.utime(edited, ns=(1, edited.stat().st_mtime_ns + 1_000_000_000))
    os.link(current / "book" / "backed-up.html", tmp_path / "backup.html")
    (current / "book" / "linked.html").unlink()
    (current / "book" / "linked.html").symlink_to(made / "book" / "linked.html")
    outside = tmp_path / "outside-images"
    (current / "images").rename(outside)
    (current / "images").symlink_to(outside)

    fresh = tmp_path / "fresh"
    jupyterbook.copy_site(made, fresh, work_root, "stamp-2", "assembly", current)
    for name in ("index.html", "book/kept.html"):
        assert os.path.samefile(fresh / name, current / name), name
    for name in names[2:]:
        assert not (fresh / name).is_symlink() and (fresh / name).stat().st_nlink == 1, name
        assert (fresh / name).read_bytes() == (made / name).read_bytes(), name
    assert sorted(p.relative_to(fresh) for p in fresh.rglob("*")) == sorted(
        [p.relative_to(made) for p in made.rglob("*")] + [Path(jupyterbook.SITE_STAMP)]
    )
    assert jupyterbook.read_stamp(fresh) == "stamp-2" and jupyterbook.read_stamp(current) == "stamp-1"
    assert jupyterbook.read_stamp(fresh, "copied") > jupyterbook.read_stamp(current, "copied")

    # The site linked from is not the build's to change: one of another mode (another umask) or
    # with no time of copy is copied whole, as is any site of a --force'd build.
    shutil.rmtree(current)  # (the site it replaced goes once it is swapped in)
    os.chmod(fresh / "index.html", 0o600)
    again = tmp_path / "again"
    jupyterbook.copy_site(made, again, work_root, "stamp-3", None, fresh)
    assert not os.path.samefile(again / "index.html", fresh / "index.html")
    assert os.path.samefile(again / "book" / "kept.html", fresh / "book" / "kept.html")
    jupyterbook.write_stamp(again, "stamp-3")  # an older build's stamp: no time of copy
    for current_site in (again, None):
        whole = tmp_path / f"whole-{current_site is None}"
        jupyterbook.copy_site(made, whole, work_root, "stamp-4", None, current_site)
        assert all(path.stat().st_nlink == 1 for path in whole.rglob("*") if path.is_file())


def test_the_html_builders_read_the_table_of_contents_as_pyyaml_does():
    # The builders read the build's _toc.yml with libyaml (a tenth of a second at hundreds of
    # pages): the same site map, page for page, as sphinx-external-toc's own reading.
    from sphinx_external_toc import parsing

    pure = parsing.parse_toc_yaml(ROOT / "_toc.yml")
    saved = parsing.yaml
    try:
        # the builders' own preamble, as their processes run it
        exec(jupyterbook.WITHOUT_EXECUTION + "\ntoc_read_by_libyaml()\n", {})  # noqa: S102
        assert parsing.yaml is not saved or not yaml.__with_libyaml__
        assert parsing.parse_toc_yaml(ROOT / "_toc.yml") == pure
        with pytest.raises(yaml.YAMLError):
            parsing.yaml.safe_load("root: [unclosed")
    finally:
        parsing.yaml = saved


def _tiny_book(folder: Path, page: str) -> Path:
    """A jupyter-book project of one page, laid out as the staged book is."""
    (folder / "book").mkdir(parents=True)
    (folder / "_config.yml").write_text(
        "title: Tiny\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: 'off'\n"
    )
    (folder / "_toc.yml").write_text("format: jb-book\nroot: book/intro\n")
    (folder / "book" / "intro.md").write_text(page)
    return folder


def test_the_html_builder_ends_with_sphinxs_own_verdict(tmp_path):
    # The builder ends without the interpreter's teardown: a book that compiles gives its pages,
    # and one Sphinx warns about still fails, saying what the warning is.
    good = _tiny_book(tmp_path / "good", "# Intro\n\nA page.\n")
    site = jupyterbook.compile_book(good, tmp_path / "good-work")
    assert "A page." in (site / "book" / "intro.html").read_text()
    bad = _tiny_book(tmp_path / "bad", "# Intro\n\nSee {ref}`no-such-label`.\n")
    with pytest.raises(jupyterbook.HtmlError, match=r"(?s)exit 1.*no-such-label"):
        jupyterbook.compile_book(bad, tmp_path / "bad-work")


def test_a_prepared_html_builder_builds_what_the_book_became(tmp_path):
    # A builder started beside an earlier build's Sphinx environment reads it at once (while
    # the pages execute), and builds once the new sources are in place: the changed page, or,
    # where the table of contents changed since it read it, a process that reads the new one.
    book, work_root = _tiny_book(tmp_path / "book", "# Intro\n\nFirst text.\n"), tmp_path / "build"
    work = work_root / jupyterbook.WORK_DIR
    staging = tmp_path / "staging"
    staging.mkdir()
    first = jupyterbook.start_builder(staging, work)
    assert first.prepared_with is None  # no environment yet: an ordinary builder
    jupyterbook.compile_book(book, work_root, first)
    (book / "book" / "intro.md").write_text("# Intro\n\nSecond text.\n")
    prepared = jupyterbook.start_builder(staging, work)
    assert prepared.prepared_with is not None
    site = jupyterbook.compile_book(book, work_root, prepared)
    assert prepared.returncode == 0 and "Second text." in (site / "book" / "intro.html").read_text()

    (book / "book" / "more.md").write_text("# More\n\nA new page.\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n- file: book/more\n")
    stale = jupyterbook.start_builder(staging, work)
    site = jupyterbook.compile_book(book, work_root, stale)
    assert stale.returncode is not None  # it read the old table of contents: replaced
    assert "A new page." in (site / "book" / "more.html").read_text()
    assert "more.html" in (site / "book" / "intro.html").read_text()

    idle = jupyterbook.start_builder(staging, work)
    jupyterbook.stop_builder(idle)  # told nothing: it ends without building
    assert idle.returncode == 0


def test_the_html_builder_executes_no_page_and_says_so_if_asked_to(tmp_path):
    # Its process does without myst-nb's clients that execute pages (the build executes them):
    # a book that asks jupyter-book to execute one fails, saying why, rather than render it as is.
    import nbformat

    book = _tiny_book(tmp_path / "book", "# Intro\n")
    config = book / "_config.yml"
    config.write_text(config.read_text().replace("'off'", "'force'"))
    cells = [
        nbformat.v4.new_markdown_cell("# Page", id="title"),
        nbformat.v4.new_code_cell("print(1)", id="code"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, book / "book" / "page.ipynb")
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n- file: book/page\n")
    with pytest.raises(jupyterbook.HtmlError, match="executes no page of this book"):
        jupyterbook.compile_book(book, tmp_path / "work")


def test_the_command_line_ends_at_once_and_loses_no_output():
    # ``python -m claimbook`` ends without the interpreter's teardown: its output to a pipe, line
    # by line or a megabyte at once, still arrives whole, byte for byte what the command prints,
    # and a refused command still exits with its code.
    import json
    import subprocess
    import sys

    from tests.helpers.clirun import in_process

    # Buffered, as a user's shell has it (this machine's environment may turn buffering off).
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}

    def real(*args):
        command = [sys.executable, "-m", "claimbook", *args]
        return subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)

    lines = real("check")
    assert lines.returncode == 0, lines.stderr
    assert lines.stdout == in_process("check").stdout
    assert lines.stdout.count("\n") > 100
    whole = real("check", "--json")
    assert whole.returncode == 0, whole.stderr
    assert len(whole.stdout) > 2**20  # more than any pipe holds at once
    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    assert len(json.loads(whole.stdout)) == len(registry.claims)
    assert whole.stdout.endswith("\n")
    refused = real("check", "no-such-claim")
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: unknown claim 'no-such-claim'")


# -- what readers see -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "NVIDIA GB300-NVL72_GB300-288GB_aarch64x72_TRT (72 GPUs)",
        "Cisco · Cisco_UCS_H200x8_MI350Xx8_G200_2x2_TOR (16 GPUs)",
        "short",
    ],
)
def test_labels_wrap_between_words(text):
    lines = charts.wrap(text, 30).split("\n")
    assert all(len(line) <= 30 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines[:-1]:  # each break falls after a space, "_", "-" or "/", never inside a word
        assert text[text.index(line) + len(line) :][:1] in ("", " ") or line[-1] in "_-/ "


def test_tables_speak_to_readers():
    import pandas as pd

    assert [blocks.heading(c) for c in ("organization", "small_gpus", "throughput_ratio", "Case")] == [
        "Submitter",
        "GPUs, smaller",
        "Throughput ratio",
        "Case",
    ]
    html_table = blocks.table_html(
        pd.DataFrame(
            {
                "organization": ["Oracle"],
                "cheaper": [True],
                "units": ["Tokens/s"],
                "system": ["GB300-NVL72_GB300-288GB_aarch64x72_TRT"],
            }
        ),
        "t",
    )
    assert '<th scope="col">Submitter</th>' in html_table and "<td>yes</td>" in html_table
    assert "<td>Tokens/s</td>" in html_table  # short text never breaks
    assert "GB300-NVL72_<wbr>GB300-288GB_<wbr>aarch64x72_<wbr>TRT" in html_table


@pytest.mark.parametrize("values", [[0.02, 0.7], [1.2, 3.74], [120.0, 990.0], [300.0, 9400.0], [5e4, 2.7e6]])
def test_axis_numbers_read_as_numbers(values):
    """Drawn by Vega itself: no "1e+3", no "0k", no "65m"."""
    import json

    import altair as alt
    import pandas as pd
    import vl_convert

    frame = pd.DataFrame({"value": values})
    for axis in (charts.value_axis(values), alt.Axis(labelExpr=charts.NUMBERS)):
        spec = alt.Chart(frame).mark_point().encode(x=alt.X("value:Q", axis=axis, title=None)).to_dict()
        svg = vl_convert.vegalite_to_svg(json.dumps(spec))
        labels = re.findall(r">([^<>]+)</text>", svg)
        assert labels and labels[0] == "0", labels
        assert not any("e+" in label or label.endswith("m") or label == "0k" for label in labels), labels


def test_verdict_helpers():
    assert matches(3.74, 3.7) and matches(2.57, 2.5) and not matches(5.81, 5.7)
    assert reaches(5.6, 5.7, higher_is_better=False) and not reaches(5.81, 5.7, higher_is_better=False)
    assert signed_percent(gap_percent(5.7, 5.8077)) == "-1.9%"
    assert weakest(["supported", "cannot be checked", "supported with caveats"]) == "cannot be checked"


def test_generated_pages_escape_data_and_link_every_caveat():
    page = markdown_pages.caveats_page()
    for code in ("preview", "not-best-rival", "board-power-spec"):
        assert f'id="caveat-{code}"' in page
    assert "<script>" not in blocks.card.__doc__  # (sanity: the card builder escapes, see below)
    assert blocks.escape("<img src=x>") == "&lt;img src=x&gt;"


def test_the_toc_lists_every_page(tmp_path):
    registry = load_registry()
    text = markdown_pages.toc(registry, ["rubin_speedup"], {"amd-wan-vs-b300"}, ["explorer"])
    toc = yaml.safe_load(text)
    files = [entry["file"] for part in toc["parts"] for entry in part["chapters"]]
    # Paths from the project's root, where the toc lies (jupyter-book 1.x layout).
    assert toc["root"] == "book/index"
    announcements = [name for name in files if name.removeprefix("book/generated/") in registry.announcements]
    assert own_order(name.removeprefix("book/generated/") for name in announcements) == list(
        OWN_ANNOUNCEMENTS
    )
    assert files[: len(announcements)] == announcements  # the announcements first, by date
    assert "book/generated/explorer" in files and files[-2:] == ["book/method", "book/howto"]
    amd = next(entry for entry in toc["parts"][0]["chapters"] if entry["file"] == "book/generated/amd-v6.1")
    assert amd["sections"] == [{"file": "book/generated/amd-v6.1/amd-wan-vs-b300"}]


def test_kernels_talk_over_sockets_of_their_own(tmp_path):
    """Two kernels started at once by two processes cannot pick the same port and hang a build:
    each kernel of a build listens on Unix sockets in a folder of its own."""
    import asyncio
    import tempfile

    from claimbook.pipeline.execute import _kernel_manager

    async def start_and_stop():
        with tempfile.TemporaryFile(mode="w+") as stderr:
            manager = _kernel_manager(stderr, tmp_path, tmp_path)(kernel_name="python3")
            await manager.start_kernel()
            try:
                info = manager.get_connection_info()
                client = manager.client()
                client.start_channels()
                await client.wait_for_ready(timeout=60)
                client.stop_channels()
                return info, sorted(path.name for path in tmp_path.iterdir())
            finally:
                await manager.shutdown_kernel(now=True)

    info, sockets = asyncio.run(start_and_stop())
    assert info["transport"] == "ipc" and info["ip"] == str(tmp_path / "kernel")
    # The sockets, and the connection file with the key that signs the messages: nothing in
    # the temporary folder that the kernel's folder does not hold.
    assert "kernel.json" in sockets
    assert all(name.startswith("kernel-") for name in sockets if name != "kernel.json")


def test_a_book_that_never_came_takes_away_only_what_its_build_made(tmp_path):
    """An interrupted ``build --out`` removes the folders it made (nested ones too) and what it
    put in a folder that held nothing or only its marker; the user's folder and the marker stay."""
    from claimbook.pipeline.outputs import discard_new_out, first_missing, mark_out_folder

    target = tmp_path / "a" / "b" / "book"
    made_from = first_missing(target)
    assert made_from == tmp_path / "a" and first_missing(tmp_path) is None
    mark_out_folder(target)
    (target / "_build" / "x").mkdir(parents=True)
    discard_new_out(target, made_from)
    assert sorted(path.name for path in tmp_path.iterdir()) == []
    mine = tmp_path / "mine"
    mark_out_folder(mine)  # a folder that held only its marker before the build
    (mine / "_build").mkdir()
    (mine / "_toc.yml").write_text("x")
    discard_new_out(mine, None, keep=(".claimbook-out",))
    assert sorted(path.name for path in mine.iterdir()) == [".claimbook-out"]
    foreign = tmp_path / "foreign"  # no marker: nothing of it is touched
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    discard_new_out(foreign, None)
    assert (foreign / "notes.txt").read_text() == "mine"
