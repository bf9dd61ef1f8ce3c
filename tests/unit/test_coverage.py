"""``claimbook coverage`` and what goes with it: a registry's ``set_aside`` statements, the count
on the announcement's page, and the TODOs a draft leaves (named on every build, refused by
--strict). The texts and registries are written for these tests."""

from __future__ import annotations

import html
import re
import shutil

import pytest
import yaml

from claimbook.claims.registry import RegistryError, load_registry
from claimbook.present.coverage_block import coverage_html
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT, project_copy, run_copy

TEXT = """Acme's Zeta rack runs DSR1 up to 3.7x faster than GB300 NVL72.
Twelve partners joined us this round.
Our fans are 2x quieter than last year's.
Acme posted the first DeepSeek-R1 results on its card.
We thank everyone.
"""

HEADER = """announcement:
  id: acme-v6.1
  title: Acme's post
  publisher: AMD
  claimant: AMD
  vendor: AMD
  date: "2026-09-18"
  round: v6.1
  set_aside:
    - text: Acme's fans are 2x quieter than before.
      why: MLPerf measures no noise.
claims:
"""
CLAIMS = {
    "acme-speed": """  - id: acme-speed
    statement: Acme's Zeta rack runs DeepSeek-R1 up to 3.7 times faster than GB300.
    kind: ratio
    form: figure
    quantifier: up-to
    claimed: 3.7
    unit: x
    benchmark: deepseek-r1
    subject: {organization: AMD, system: 8xMI355X_2xEPYC_9575F}
    baseline: {family: NVIDIA GB300}
""",
    "acme-partners": """  - id: acme-partners
    statement: Twelve partners took part.
    kind: not-checkable
    claimed: 12
    unit: partners
    reason: A test's claim.
""",
    "acme-first": """  - id: acme-first
    statement: Acme's are the first DeepSeek-R1 results on its card.
    kind: not-checkable
    reason: A test's claim.
""",
}


def _coverage(tmp_path, leave_out=()) -> tuple[int, str]:
    text = tmp_path / "acme-v6.1.txt"
    text.write_text(TEXT, encoding="utf-8")
    registry = tmp_path / "acme-v6.1.yaml"
    registry.write_text(
        HEADER + "".join(body for name, body in CLAIMS.items() if name not in leave_out), encoding="utf-8"
    )
    done = in_process("coverage", text, "--registry", registry)
    return done.returncode, done.stdout + done.stderr


def test_every_figure_judged_or_set_aside(tmp_path):
    code, said = _coverage(tmp_path)
    assert code == 0, said
    assert "line 1: up to 3.7x: acme-speed" in said
    assert "line 2: 12 partners: acme-partners" in said
    assert (
        "line 3: 2x: set aside: Acme's fans are 2x quieter than before. (why: MLPerf measures no noise.)"
        in said
    )
    assert "line 4: first: acme-first" in said
    assert "We thank" not in said  # no figure, no superlative: not a statement
    assert "\n4 of 4 figures judged (3 by a claim, 1 set aside with a reason)\n" in said
    assert said.rstrip().endswith(
        "the draft finds 2 of 2 figures the registry's claims state (same figure, quantifier, unit and benchmark)"
    )


def test_a_registry_missing_a_claim_leaves_its_figure_not_judged(tmp_path):
    code, said = _coverage(tmp_path, leave_out=("acme-partners",))
    assert code == 0, said
    assert "line 2: 12 partners: NOT JUDGED" in said
    assert re.search(r"not judged:\n  line 2: 12 partners: Twelve partners joined", said)
    assert "\n3 of 4 figures judged (2 by a claim, 1 set aside with a reason)\n" in said


def test_a_figure_of_another_benchmark_or_unit_is_not_judged_by_the_claim(tmp_path):
    text = tmp_path / "acme-v6.1.txt"
    text.write_text("Acme is up to 3.7x faster on Whisper.\nOne run takes 3.7 seconds.\n", encoding="utf-8")
    registry = tmp_path / "acme-v6.1.yaml"
    registry.write_text(HEADER + CLAIMS["acme-speed"], encoding="utf-8")
    said = in_process("coverage", text, "--registry", registry).stdout
    assert "\n0 of 2 figures judged (0 by a claim, 0 set aside with a reason)\n" in said
    assert "the draft finds 0 of 1 figures" in said  # 3.7x, but not on DeepSeek-R1
    assert "  missed: acme-speed: up-to 3.7x on deepseek-r1" in said


def _counted(number: int, noun: str) -> str:
    """ "1 claim", "2 claims", "0 statements": how a page counts (a registry may have one)."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def test_the_committed_registries_cover_their_set_asides_on_their_pages():
    """The announcement pages show the count and every statement set aside, as the registries say."""
    for path in sorted((ROOT / "data" / "claims").glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        aside = document["announcement"].get("set_aside") or []
        page = (ROOT / "book" / "generated" / f"{document['announcement']['id']}.md").read_text(
            encoding="utf-8"
        )
        judged, aside_count = _counted(len(document["claims"]), "claim"), _counted(len(aside), "statement")
        assert f"judges {judged} of this announcement and sets {aside_count} aside" in page
        for entry in aside:
            assert (
                html.escape(" ".join(entry["why"].split())) in page
            )  # quotes escaped as the page writes them


def test_set_aside_text_is_escaped_on_the_page():
    class Header:
        set_aside = (("<script>alert(1)</script> 2x", "a <b>reason</b>"),)

    shown = coverage_html(Header(), 3)
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "&lt;b&gt;reason" in shown
    assert "judges 3 claims" in shown and "sets 1 statement aside" in shown


@pytest.mark.parametrize(
    "value",
    [
        "a statement",
        ["a statement"],
        [{"text": "x"}],
        [{"text": "x", "why": ""}],
        [{"text": "x", "why": "y", "z": 1}],
    ],
)
def test_a_malformed_set_aside_is_one_line_naming_the_field(tmp_path, value):
    folder = tmp_path / "claims"
    folder.mkdir()
    document = yaml.safe_load(HEADER + CLAIMS["acme-first"])
    document["announcement"]["set_aside"] = value
    (folder / "acme-v6.1.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    with pytest.raises(RegistryError) as raised:
        load_registry(folder, tmp_path / "none.yaml")
    assert "field announcement.set_aside" in str(raised.value) and "\n" not in str(raised.value)


def _with_todos(folder):
    document = yaml.safe_load(HEADER + CLAIMS["acme-first"])
    document["announcement"]["title"] = "TODO"
    document["claims"][0]["note"] = "TODO: say which card"
    (folder / "acme-v6.1.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def test_a_registry_names_each_todo_it_holds(tmp_path):
    folder = tmp_path / "claims"
    folder.mkdir()
    _with_todos(folder)
    registry = load_registry(folder, tmp_path / "none.yaml")
    assert [todo.split(": ", 1)[1] for todo in registry.todos] == [
        "field announcement.title",
        "claim acme-first: field note",
    ]


def test_a_drafts_error_says_how_many_todos_it_has_left(tmp_path):
    source = tmp_path / "acme-v6.1.txt"
    source.write_text(TEXT, encoding="utf-8")
    draft = tmp_path / "draft.yaml"
    assert in_process("draft", source, "--out", draft).returncode == 0
    done = in_process("check", "--registry", draft)
    one_error_line(done, "TODO(s) left", "field announcement.title", code=2)


def test_a_draft_that_does_not_validate_yet_is_left_out_and_said_so(tmp_path):
    """A draft beside the book's registries, its date still TODO: the others read as before, the
    draft left out with its first error and its TODOs, and what names it says it was left out."""
    folder = tmp_path / "claims"
    shutil.copytree(ROOT / "data" / "claims", folder)
    committed = load_registry(folder, ROOT / "data" / "chapters.yaml")
    document = yaml.safe_load(HEADER + CLAIMS["acme-first"])
    document["announcement"]["date"] = "TODO"
    document["claims"][0]["subject"] = "TODO"
    (folder / "acme-v6.1.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    registry = load_registry(folder, ROOT / "data" / "chapters.yaml")
    assert [claim.id for claim in registry.all_claims()] == [claim.id for claim in committed.all_claims()]
    assert len(registry.left_out) == 1
    why = registry.left_out[0]
    assert why.startswith(f"{folder / 'acme-v6.1.yaml'}: field announcement.date: expected a date")
    assert "2 TODO(s) left" in why and why.endswith("it is left out until it validates") and "\n" not in why
    assert [todo.split(": ", 1)[1] for todo in registry.todos] == [
        "field announcement.date",
        "claim acme-first: field subject",
    ]
    from claimbook.common.errors import UsageError
    from claimbook.quickcheck import chosen_claims

    with pytest.raises(UsageError) as raised:
        chosen_claims(registry, ["acme-first"])
    assert f"{folder / 'acme-v6.1.yaml'}: left out, a draft with TODOs left" in str(raised.value)
    # A registry that does not validate and holds no TODO is an error, as before.
    document["announcement"]["date"], document["claims"][0]["subject"] = "soon", {"organization": "Acme"}
    (folder / "acme-v6.1.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    with pytest.raises(RegistryError, match="field announcement.date"):
        load_registry(folder, ROOT / "data" / "chapters.yaml")


@pytest.mark.build  # a build of a project copy: the build tier
def test_a_build_warns_of_each_todo_and_a_strict_one_refuses_them(tmp_path):
    project = project_copy(tmp_path / "project")
    _with_todos(project / "data" / "claims")
    generated = sorted(p.read_bytes() for p in (project / "book" / "generated").glob("*.md"))
    done = run_copy(project, "build", "--strict", "--no-html")
    assert done.returncode == 1, done.stderr
    assert "warning: TODO left: " in done.stderr and "field announcement.title" in done.stderr
    assert "claim acme-first: field note" in done.stderr
    assert (
        "--strict: the registries have 2 TODO(s) left" in done.stderr and "nothing was written" in done.stderr
    )
    assert sorted(p.read_bytes() for p in (project / "book" / "generated").glob("*.md")) == generated


def test_coverage_counts_statements_and_a_figure_is_judged_only_by_a_claim_of_its_sentence(tmp_path):
    text = tmp_path / "acme-v6.1.txt"
    text.write_text(
        "Acme's Zeta rack runs DSR1 up to 3.7x faster than GB300 NVL72.\n"
        "Our new cooling fans spin up to 3.7x quieter in the lab.\n"
        "Each card has 288GB of memory and costs $2.50 per hour.\n"
        "We thank everyone.\n",
        encoding="utf-8",
    )
    registry = tmp_path / "acme-v6.1.yaml"
    registry.write_text(
        HEADER.replace("2x quieter than before", "quiet") + CLAIMS["acme-speed"], encoding="utf-8"
    )
    said = in_process("coverage", text, "--registry", registry).stdout
    assert "line 1: judged: acme-speed" in said
    assert "line 2: not yet covered" in said  # its "3.7x" is another sentence's claim's
    assert "line 3: not yet covered" in said and "(figures: 288 GB, 2.50 USD)" in said
    assert "line 4: set aside: it states no figure, superlative or name" in said
    assert "\n2 of 4 statements judged or set aside (1 judged by a claim, 1 set aside with a reason)" in said


def test_a_short_sentence_is_covered_by_an_entry_sharing_its_every_word_its_last_one_included(tmp_path):
    """A sentence of two content words beyond its names is covered by an entry sharing both, the
    one before its full stop included; an entry sharing one word only does not cover it."""
    text = tmp_path / "acme-v6.1.txt"
    text.write_text("It lists no GB300 entry.\nThey count no GB300 rack.\n", encoding="utf-8")
    registry = tmp_path / "acme-v6.1.yaml"
    entries = (
        "    - text: The post lists no GB300 entry of its own.\n      why: A test's entry.\n"
        "    - text: The post counts GB300 results.\n      why: A test's entry.\n"
    )
    header = HEADER.replace(
        "    - text: Acme's fans are 2x quieter than before.\n      why: MLPerf measures no noise.\n", entries
    )
    assert header != HEADER
    registry.write_text(header + CLAIMS["acme-speed"], encoding="utf-8")
    said = in_process("coverage", text, "--registry", registry).stdout
    assert "line 1: set aside: set aside: The post lists no GB300 entry of its own." in said
    assert "line 2: not yet covered" in said  # "count" is not "counts", and one word is no paraphrase


def test_the_committed_coverage_by_statement_is_what_the_texts_give_and_the_pages_show_it():
    """Each recorded count (data/coverage/ID.csv) is recomputed from the announcement's text where
    the text is at hand (../shared/claims), and each announcement's page shows it."""
    from claimbook.claims.coverage import recorded_count

    texts = {"nvidia-v6.1": "announcement.txt", "amd-v6.1": "amd-v6.1.md", "amd-v5.1": "amd-v5.1.md"}
    assert set(texts) == set(load_registry().announcements), "an announcement without its text's name here"
    for announcement, name in texts.items():
        counted = recorded_count(ROOT / "data" / "coverage", announcement)
        assert counted is not None, announcement
        page = (ROOT / "book" / "generated" / f"{announcement}.md").read_text(encoding="utf-8")
        assert f"{counted[0]} of {counted[1]} statements judged or set aside" in page
        source = ROOT.parent / "shared" / "claims" / name
        if source.is_file():
            said = in_process("coverage", source, "--id", announcement).stdout
            assert f"\n{counted[0]} of {counted[1]} statements judged or set aside" in said
