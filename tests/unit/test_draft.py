"""``claimbook draft``: a draft registry from an announcement's text, on short texts written for
these tests (no vendor's sentence enters the repository): each quantifier and unit, a
benchmark's alias, two figures in a sentence, a sentence with none, hostile files, and a
draft that never replaces a registry."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml

from claimbook.claims.draft import MAX_CANDIDATES
from claimbook.inputs.announcement_text import QUANTIFIERS, figures, sentences
from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT

ACCELERATORS = frozenset({"mi355x", "b300", "gb300"})


@pytest.mark.parametrize(
    ("sentence", "quantifier"),
    [
        ("The Zeta rack is up to 3.7x faster than the old one.", "up-to"),
        ("The Zeta rack is at least 95% as fast.", "at-least"),
        ("It is about 80% as fast.", "about"),
        ("It is nearly 2x faster.", "nearly"),
        ("It is more than 20% ahead.", "more-than"),
        ("It is over 3x faster.", "over"),
        ("It delivers 3x or better.", "or-better"),
        ("It is at most 5% slower.", "at-most"),
        ("It takes less than 2 seconds.", "less-than"),
        ("It takes under 7 seconds.", "under"),
        ("Its partners are within 3% of it.", "within"),
        ("It runs 9x faster.", "exactly"),
        ("It runs ~4x faster.", "about"),
    ],
)
def test_each_quantifier_is_read_from_the_words_before_the_figure(sentence, quantifier):
    (figure,) = figures(sentence)
    assert figure.quantifier == quantifier
    if quantifier == "within":
        assert figure.within == 3


def test_the_quantifier_table_speaks_the_registry_vocabulary():
    vocabulary = {
        "up-to",
        "at-least",
        "more-than",
        "over",
        "at-most",
        "less-than",
        "under",
        "about",
        "nearly",
    }
    assert vocabulary <= {name for _, name in QUANTIFIERS}
    (few,) = figures("Their results are within a few percent of ours.")
    assert (few.value, few.unit, few.quantifier) == (None, "%", "a-few-percent")


@pytest.mark.parametrize(
    ("sentence", "value", "unit", "decimals"),
    [
        ("It is 3.70x faster.", 3.7, "x", 2),
        ("Scaling reached 99% efficiency.", 99, "%", 0),
        ("It served 12,345.6 tokens per second.", 12345.6, "tokens/s", 1),
        ("It served 5.75 million tokens/s.", 5.75, "million tokens/s", 2),
        ("It made 0.65 720p videos per second.", 0.65, "samples/s", 2),
        ("One video took 5.7 seconds.", 5.7, "s", 1),
        ("Nineteen partners took part.", 19, "partners", 0),
        ("The 288-GPU system ran.", 288, "GPUs", 0),
        ("Eight MI355X ran it.", 8, "GPUs", 0),
    ],
)
def test_each_unit_and_precision(sentence, value, unit, decimals):
    (figure,) = figures(sentence, ACCELERATORS)
    assert (figure.value, figure.unit, figure.decimals) == (value, unit, decimals)


@pytest.mark.parametrize(
    ("line", "said", "value", "unit"),
    [
        ("Acme MI355X is 2½x faster than B200.", "Acme MI355X is 2.5x faster than B200.", 2.5, "x"),
        ("It is ¾x the cost.", "It is 0.75x the cost.", 0.75, "x"),
        ("It reached 964,468² tokens/s.", "It reached 964,468 tokens/s.", 964468, "tokens/s"),
        ("Acme¹ reached 99% scaling.", "Acme reached 99% scaling.", 99, "%"),
    ],
)
def test_a_fraction_in_one_character_or_a_footnote_mark_is_read_as_the_figure_written(
    line, said, value, unit
):
    """Unicode's compatibility forms glued "2½" into 21⁄2 and "964,468²" into 964,4682: a figure
    the text does not state, in the draft and in the sentence it quotes."""
    (sentence,) = sentences(line)
    assert sentence.text == said
    (figure,) = figures(sentence.text)
    assert (figure.value, figure.unit) == (value, unit)


def test_ids_versions_names_and_dates_are_not_figures():
    assert figures("Entry 6.1-0106 of v6.1 ran gpt-oss-120b on NVL72 on Sep 16, 2026 at 720p.") == []
    # A model's name is no count: "Llama 2 70B ... result" is not "2 results".
    assert figures("Acme posted the fastest Llama 2 70B Server result of the round.") == []


def test_a_count_of_them_takes_the_noun_before_it():
    counted = figures("Twelve partners took part, five of them on racks.")
    assert [(f.value, f.unit) for f in counted] == [(12, "partners"), (5, "partners")]


def test_a_list_item_keeps_its_title_with_its_sentence():
    text = "# Results\n\n1. **Speed.** The Zeta\n   rack is 2x faster.\n2. Another.\n"
    found = [s.text for s in sentences(text)]
    assert found == ["Results", "1. Speed. The Zeta rack is 2x faster.", "2. Another."]


TEXT = """# Acme's round (written for the tests)

Acme's Zeta rack is up to 3.7x as fast as GB300 NVL72 on DSR1 in the offline scenario.
Its switch moves 10x more packets with 3x less delay than plain Ethernet.
On WAN 2.2, eight MI355X lead eight B300 by 18% Offline and 11% SingleStream.
Acme thanks everyone who helped.
Acme's partners posted the first results on the new card.
"""


def _draft(tmp_path, text: str = TEXT, *extra) -> tuple[dict, str]:
    source = tmp_path / "acme-v6.1.txt"
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "draft.yaml"
    done = in_process("draft", source, "--out", out, *extra)
    assert done.returncode == 0, done.stderr
    assert "TODO" in done.stderr and done.stderr.count("\n") == 1
    written = out.read_text(encoding="utf-8")
    return yaml.safe_load(written), written


def test_a_draft_has_one_claim_per_figure_in_the_order_of_the_text(tmp_path):
    draft, _ = _draft(tmp_path)
    claims = draft["claims"]
    assert draft["announcement"]["id"] == "acme-v6.1" and draft["announcement"]["title"] == "TODO"
    assert [(c.get("claimed"), c.get("unit"), c.get("quantifier")) for c in claims] == [
        (3.7, "x", "up-to"),
        (10, "x", "exactly"),
        (3, "x", "exactly"),  # a sentence with two figures: two claims
        ({"Offline": 18, "SingleStream": 11}, "%", "exactly"),  # one figure per scenario: one claim
        (None, None, None),  # a superlative ("first") without a figure
    ]
    assert claims[0]["benchmark"] == "deepseek-r1" and claims[0]["scenarios"] == ["Offline"]  # DSR1
    assert claims[3]["benchmark"] == "wan-2.2-t2v-a14b"  # "WAN 2.2"
    assert [c["kind"] for c in claims] == ["ratio", "not-checkable", "not-checkable", "ratio", "presence"]
    assert claims[0]["subject"] == "TODO" and claims[0]["baseline"] == "TODO"
    assert len({c["id"] for c in claims}) == len(claims)


def test_the_sentences_are_comments_never_fields(tmp_path):
    _, written = _draft(tmp_path)
    fields = "\n".join(line for line in written.splitlines() if not line.lstrip().startswith("#"))
    for sentence in ("as fast as GB300", "thanks everyone", "plain Ethernet", "first results"):
        assert sentence not in fields
    comments = " ".join(line.lstrip("# ") for line in written.splitlines() if line.lstrip().startswith("#"))
    assert "as fast as GB300" in comments
    assert "thanks everyone" not in comments  # no figure, no superlative: not a statement


def test_candidates_are_listed_as_systems_prints_them(tmp_path):
    _, written = _draft(tmp_path)
    lines = written.splitlines()
    searches = [index for index, line in enumerate(lines) if "candidate systems (claimbook systems" in line]
    assert len(searches) == 2  # the sentences that name a benchmark, an accelerator or a submitter
    for index in searches:
        options = shlex.split(lines[index].split("(claimbook systems ", 1)[1].rstrip("):"))
        printed = in_process("systems", *options)
        expected = printed.stdout.splitlines()
        assert expected and printed.returncode == 0
        shown = [line.strip().removeprefix("# ") for line in lines[index + 1 : index + 1 + len(expected)]]
        if len(expected) > MAX_CANDIDATES:
            assert shown[MAX_CANDIDATES] == f"... and {len(expected) - MAX_CANDIDATES} more system" + (
                "s" if len(expected) - MAX_CANDIDATES > 1 else ""
            )
        assert shown[:MAX_CANDIDATES] == expected[:MAX_CANDIDATES]
        assert all(line.lstrip().startswith("# {organization: ") for line in lines[index + 1 : index + 2])


HOSTILE = {
    "markup": "<script>alert(1)</script> Acme is <b>up to</b> 2x faster on [DSR1](javascript:alert(2)).\n",
    "controls": "Acme\x1b[31m is up to\x07 2x faster\u202e on DSR1\u2028: key: value\x85.\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_gives_a_safe_draft(tmp_path, name):
    draft, written = _draft(tmp_path, HOSTILE[name])
    (claim,) = draft["claims"]
    assert (claim["claimed"], claim["unit"], claim["quantifier"]) == (2, "x", "up-to")
    assert set(draft) == {"announcement", "claims"}
    fields = "\n".join(line for line in written.splitlines() if not line.lstrip().startswith("#"))
    for bad in ("script", "alert", "javascript", "\x1b", "\x07", "\u202e", "\u2028", "\x85", "key: value"):
        assert bad not in fields
    assert all(character.isprintable() for character in written.replace("\n", ""))


def test_a_huge_or_binary_file_is_one_line(tmp_path):
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"Acme is 2x faster. " * (10 * 1024 * 1024 // 19))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(bytes(range(256)) * 64)
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"Acme is 2x faster.\x00\x00\x00")
    for path in (huge, binary, nul, tmp_path):
        done = in_process("draft", path, "--id", "acme-v6.1", "--out", tmp_path / "out.yaml")
        one_error_line(done, code=2)
    assert not (tmp_path / "out.yaml").exists()


def test_a_draft_never_replaces_a_registry(tmp_path):
    source = tmp_path / "amd-v6.1.txt"
    source.write_text(TEXT, encoding="utf-8")
    registry = ROOT / "data" / "claims" / "amd-v6.1.yaml"
    before = registry.read_bytes()
    for extra in ((), ("--out", registry, "--force")):
        done = in_process("draft", source, *extra)
        assert done.returncode == 2 and "exists" in done.stderr
    assert registry.read_bytes() == before
    out = tmp_path / "mine.yaml"
    out.write_text("my own notes\n", encoding="utf-8")
    assert in_process("draft", source, "--out", out).returncode == 2
    assert out.read_text(encoding="utf-8") == "my own notes\n"
    forced = in_process("draft", source, "--out", out, "--force")  # --force replaces drafts only
    assert forced.returncode == 2 and "is not a draft `claimbook draft` wrote" in forced.stderr
    assert out.read_text(encoding="utf-8") == "my own notes\n"
    readme = ROOT / "README.md"
    kept = readme.read_bytes()
    assert in_process("draft", source, "--out", readme, "--force").returncode == 2
    assert readme.read_bytes() == kept
    drafted = tmp_path / "draft.yaml"
    assert in_process("draft", source, "--out", drafted).returncode == 0
    drafted.write_text(drafted.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert in_process("draft", source, "--out", drafted, "--force").returncode == 0
    assert "claims:" in drafted.read_text(encoding="utf-8") and "# edited" not in drafted.read_text(
        encoding="utf-8"
    )


def test_a_draft_writes_every_field_its_kind_requires(tmp_path):
    """Each drafted claim has every field its kind's spec requires, its value or a TODO: filling
    in the TODOs is all a draft needs to validate."""
    from claimbook.engine import SPECS

    draft, _ = _draft(tmp_path)
    for claim in draft["claims"]:
        missing = [field.name for field in SPECS[claim["kind"]].required if field.name not in claim]
        assert not missing, f"{claim['id']} ({claim['kind']}) lacks {missing}"


def test_every_quantifier_a_draft_writes_is_one_the_engine_reads():
    """The draft's table from a vendor's words to the registry's vocabulary (inputs, below the
    engine in the layers) names only quantifiers the engine's one module reads."""
    from claimbook.engine import quantifiers
    from claimbook.inputs import announcement_text

    written = {name for _, name in (*announcement_text.QUANTIFIERS, *announcement_text.AFTER_QUANTIFIERS)}
    written |= {announcement_text.EXACTLY, announcement_text.A_FEW_PERCENT, announcement_text.WITHIN}
    assert written <= set(quantifiers.WORDS), written - set(quantifiers.WORDS)


def _repeated_figures(times: int) -> str:
    """One line of ``times`` figures in one sentence (a table pasted as prose, or a hostile file)."""
    return "Acme B300 is 3x faster on DSR1 Offline, " * times + "and that is all.\n"


def _drafted(text: str):
    from claimbook.claims.draft import annotated_results, draft_registry

    results, reference = annotated_results(ROOT / "data" / "mlperf" / "v6.1.csv", ROOT / "data" / "reference")
    from claimbook.engine import DRAFTING

    return draft_registry(text, "acme-v6.1", "acme.txt", results, reference, DRAFTING)


def test_a_draft_is_linear_in_its_text_and_bounded(tmp_path):
    """A sentence is written once, however many figures it holds (it was repeated in each draft
    claim: a 5 KB line made an 11.8 MB draft), the other figures a claim lists are a few, and a
    draft holds at most ``MAX_CLAIMS`` claims: its size is at most its text's plus a bound."""
    from claimbook.claims.draft import MAX_CLAIMS

    sizes = {}
    for times in (150, 600):
        text = _repeated_figures(times)
        drafted, todos = _drafted(text)
        sizes[times] = len(drafted)
        assert drafted.count("# line 1: Acme B300 is 3x faster") == 1, times
        claims = yaml.safe_load(drafted)["claims"]
        assert 0 < len(claims) <= MAX_CLAIMS and todos > 0
        assert len(drafted) <= len(text) * 1.2 + MAX_CLAIMS * 1200, (times, len(drafted), len(text))
    assert sizes[600] <= 4 * sizes[150] * 1.2  # four times the text, at most four times the draft


@pytest.mark.slow
def test_a_draft_of_the_longest_text_it_takes_ends(tmp_path):
    """A line of 2 MB (the most ``draft`` reads) is drafted, its draft bounded (a hang guard of
    minutes, not a measure of speed: it was not done after 300 s)."""
    import subprocess
    import sys

    from claimbook.claims.draft import MAX_CLAIMS
    from claimbook.inputs.announcement_text import MAX_BYTES

    text = _repeated_figures(MAX_BYTES // 45)
    assert len(text.encode()) <= MAX_BYTES
    source, out = tmp_path / "acme-v6.1.txt", tmp_path / "draft.yaml"
    source.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "claimbook", "draft", str(source), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0 and done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert out.stat().st_size <= len(text) * 1.2 + MAX_CLAIMS * 1200


# -- the round: read from the text (or --round), and the systems proposed are of that round ----


def _held():
    from claimbook.common.paths import held_rounds

    return held_rounds(ROOT / "data" / "mlperf")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AMD's MLPerf Inference v5.1 results beat its v5.0 ones.", "v5.1"),
        ("Over v6.0, our MLPerf Inference v6.1 submission gained 2x; v6.0 was good too.", "v6.1"),
        ("In mlperf-inference 5.1, and against v5.0.", "v5.1"),
        ("Against v6.0 we gained, in round v6.1.", "v6.1"),
        ("No round here, version 2.5 of our software.", None),
    ],
)
def test_the_round_of_a_text_is_the_newest_it_says_the_text_is_about(text, expected):
    from claimbook.claims.draft import round_of_text

    assert round_of_text(text) == expected


@pytest.mark.parametrize("round_name", list(_held()))
def test_a_draft_is_of_the_round_its_text_names_and_proposes_that_round_s_systems(tmp_path, round_name):
    from claimbook.inputs.results import load_results

    table = load_results(_held()[round_name])
    organization = table["organization"].value_counts().index[0]
    source = tmp_path / "acme.md"
    source.write_text(
        f"{organization}'s MLPerf Inference {round_name} results are up to 2x faster than before.\n",
        encoding="utf-8",
    )
    out = tmp_path / "draft.yaml"
    done = in_process("draft", source, "--id", "acme-x", "--out", out)
    assert done.returncode == 0, done.stderr
    drafted = out.read_text(encoding="utf-8")
    assert yaml.safe_load(drafted)["announcement"]["round"] == round_name
    proposed = set(re.findall(r"system: ([^,}\s]+)", drafted))
    assert proposed and proposed <= set(table["system"]), sorted(proposed - set(table["system"]))[:5]
    listed = in_process("systems", "--round", round_name, "--organization", organization).stdout.splitlines()
    assert listed and all(
        re.search(r"system: ([^,}\s]+)", line)[1] in set(table["system"]) for line in listed
    )


def test_a_round_the_book_does_not_hold_is_one_line_naming_those_it_holds(tmp_path):
    source = tmp_path / "acme.md"
    source.write_text("Our MLPerf Inference v1.0 results are up to 2x faster.\n", encoding="utf-8")
    held = ", ".join(_held())
    for done in (
        in_process("draft", source, "--id", "acme-x", "--out", tmp_path / "d.yaml"),
        in_process("systems", "--round", "v1.0"),
        in_process(
            "new-announcement",
            "acme-v1.0",
            "--publisher",
            "A",
            "--title",
            "t",
            "--date",
            "2026-01-01",
            "--round",
            "v1.0",
        ),
    ):
        one_error_line(done, f"holds no results of that round (it holds {held})", code=2)
    assert not (tmp_path / "d.yaml").exists()


@pytest.mark.parametrize(
    "sentence, scenarios",
    [
        ("Acme's new server gives 2.1x the throughput of the H200 on Llama 2 70B.", None),
        ("For interactive use, Acme gives 2.1x the throughput of the H200 on Llama 2 70B.", None),
        ("In the Server scenario Acme gives 2.1x the throughput of the H200 on Llama 2 70B.", ["Server"]),
        (
            "In the server and offline scenarios Acme gives 2.1x the H200 on Llama 2 70B.",
            ["Server", "Offline"],
        ),
        ("Acme gives 2.1x the throughput of the H200 on Llama 2 70B Offline.", ["Offline"]),
    ],
)
def test_a_scenario_s_name_in_prose_is_a_scenario_only_where_it_is_one(sentence, scenarios):
    drafted, _ = _drafted(sentence)
    (claim,) = yaml.safe_load(drafted)["claims"]
    assert claim.get("scenarios") == scenarios, drafted


def test_a_link_is_never_written_through_nor_replaced(tmp_path):
    source = tmp_path / "acme.txt"
    source.write_text(TEXT, encoding="utf-8")
    drafted = tmp_path / "draft.yaml"
    assert in_process("draft", source, "--out", drafted).returncode == 0
    dangling, to_draft = tmp_path / "dangling.yaml", tmp_path / "link.yaml"
    dangling.symlink_to(tmp_path / "nowhere.yaml")
    to_draft.symlink_to(drafted)
    for link in (dangling, to_draft):
        for extra in ((), ("--force",)):
            done = in_process("draft", source, "--out", link, *extra)
            assert done.returncode == 2 and ("exists" in done.stderr or "is a link" in done.stderr), (
                done.stderr
            )
            assert link.is_symlink()
    assert not (tmp_path / "nowhere.yaml").exists()


@pytest.mark.parametrize(
    "words",
    ["the previous round", "the last MLPerf round", "its prior submission", "the previous-round results"],
)
def test_a_gain_over_an_earlier_round_it_does_not_name_is_a_round_gain_from_a_todo(words):
    drafted, _ = _drafted(f"Acme's MI355X is 30% faster than in {words} on Llama 2 70B Offline.")
    (claim,) = yaml.safe_load(drafted)["claims"]
    assert claim["kind"] == "round-gain" and claim["from_round"] == "TODO", drafted


def test_a_round_of_something_else_is_no_earlier_round():
    drafted, _ = _drafted("After its last round of funding, Acme is 30% faster on Llama 2 70B Offline.")
    (claim,) = yaml.safe_load(drafted)["claims"]
    assert claim["kind"] != "round-gain", drafted


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("The MI355X offers 1.3x the memory capacity of the B200.", "not-checkable"),
        ("Our partners find the MI355X twice as easy to deploy as the B200.", "not-checkable"),
        ("On Llama 2 70B the MI355X has a 40% lower cost per token than the B200.", "not-checkable"),
        ("The MI355X is 1.3x as fast as the B200 on Llama 2 70B Offline.", "ratio"),
        ("On Llama 2 70B the MI355X gives twice the throughput of the B200.", "ratio"),
        ("On Llama 2 70B the MI355X has 1.5x the serving capacity of the B200.", "ratio"),
    ],
)
def test_a_figure_of_what_no_result_measures_is_proposed_as_not_checkable(sentence, kind):
    drafted, _ = _drafted(sentence)
    (claim,) = yaml.safe_load(drafted)["claims"]
    assert claim["kind"] == kind, drafted
    if kind == "not-checkable":
        assert claim["reason"] == "TODO" and "what MLPerf does not measure" in drafted


def test_a_figure_written_as_a_word_is_kept_as_written():
    drafted, _ = _drafted("On Llama 2 70B the MI355X gives nearly double the throughput of the B200.")
    (claim,) = yaml.safe_load(drafted)["claims"]
    assert claim["statement"].endswith("its figure kept (nearly double)"), claim["statement"]
