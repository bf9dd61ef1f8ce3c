"""Every sentence true for the data it stands on (issue 40): each test builds its own small round
and fails on a sentence that reads wrongly for it."""

from __future__ import annotations

from tests.helpers.enginekit import check, result, world

MI355X = "AMD Instinct MI355X 288GB HBM3e"


def _categories_claim(named):
    return {
        "id": "one-platform",
        "title": "One platform",
        "statement": "Acme's GPUs run recommenders and language models.",
        "kind": "presence",
        "count": "category",
        "rows": {"vendor": "NVIDIA"},
        "named": named,
    }


def test_a_benchmark_only_others_submitted_is_no_evidence_and_not_another_name(tmp_path):
    rows = [
        result("Acme", "b300", "Offline", 100.0),
        result("Rival", "mi", "Offline", 50.0, model="dlrm-v3", units="Samples/s", accelerator=MI355X),
    ]
    data = world(tmp_path, rows, [_categories_claim(["recommendation", "language"])])
    reason = check(data, "one-platform").reason
    assert "another name" not in reason
    assert "none of the claim's systems submitted it" in reason
    assert "1 result, on AMD GPUs" in reason
    assert check(data, "one-platform").verdict == "cannot be checked"


def test_a_benchmark_the_round_lacks_may_be_under_another_name(tmp_path):
    rows = [result("Acme", "b300", "Offline", 100.0)]
    data = world(tmp_path, rows, [_categories_claim(["recommendation", "language"])])
    reason = check(data, "one-platform").reason
    assert "no result in the round for recommendation" in reason
    assert "another name" in reason
    assert "none of the claim's systems" not in reason


def test_inferred_flags_are_per_benchmark_and_scenario_and_systems_carry_their_size(tmp_path):
    from claimbook.engine import caveats

    rows = [
        result("Acme", "rack", "Interactive", 10.0, gpus=72, nodes=18, model="deepseek-r1", inferred="1"),
        result("Acme", "rack", "Offline", 20.0, gpus=72, nodes=18, model="deepseek-r1"),
        result("Acme", "rack", "Server", 30.0, gpus=72, nodes=18, model="qwen3-vl-235b-a22b", inferred="1"),
        result("Acme", "rack", "Offline", 40.0, gpus=72, nodes=18, model="qwen3-vl-235b-a22b", inferred="1"),
    ]
    data = world(tmp_path, rows, [_categories_claim(["language"])])
    (sentence,) = caveats.explain_rows(data.results)
    assert sentence == (
        "flagged inferred: Acme rack (72 GPUs) in deepseek-r1 Interactive and qwen3-vl-235b-a22b Offline/Server"
    )


def _fresh(tmp_path):
    folder = tmp_path / "again"
    folder.mkdir()
    return folder


def _lead(**fields):
    return {
        "id": "lead",
        "statement": "The highest throughput.",
        "kind": "leading",
        "metric": "result",
        "measures": ["whole-system"],
        "units": "Tokens/s",
        "subject": {
            "organization": "Crux",
            "system": "big",
            "benchmark": "gpt-oss-120b",
            "scenario": "Offline",
        },
        "field": {},
        **fields,
    }


def test_the_next_best_names_its_field_other_submitter_or_other_system(tmp_path):
    rows = [
        result("Crux", "big", "Offline", 5000.0, gpus=512, nodes=64, accelerator=MI355X),
        result("Other", "rack", "Offline", 2500.0, gpus=72, nodes=18),
    ]
    reason = check(world(tmp_path, rows, [_lead()], {"vendor": "AMD"}), "lead").reason
    assert "2.00x the next best other submitter, Other rack (72 GPUs)" in reason
    rows.append(result("Crux", "small", "Offline", 1000.0, gpus=8, accelerator=MI355X))
    reason = check(world(_fresh(tmp_path), rows, [_lead()], {"vendor": "AMD"}), "lead").reason
    assert "2.00x the next best other system, Other rack (72 GPUs)" in reason


def test_a_behind_names_every_result_ahead_or_their_count_and_the_best(tmp_path):
    rows = [result("Crux", "big", "Offline", 1000.0, gpus=72, nodes=9, accelerator=MI355X)]
    rows += [result(f"R{n}", f"s{n}", "Offline", 2000.0 + n, gpus=72, nodes=18) for n in range(3)]
    reason = check(world(tmp_path, rows, [_lead()], {"vendor": "AMD"}), "lead").reason
    assert "R2 s2 (72 GPUs), R1 s1 (72 GPUs) and R0 s0 (72 GPUs) ahead" in reason
    rows += [result(f"R{n}", f"s{n}", "Offline", 2000.0 + n, gpus=72, nodes=18) for n in range(3, 5)]
    reason = check(world(_fresh(tmp_path), rows, [_lead()], {"vendor": "AMD"}), "lead").reason
    assert "5 systems ahead, the best R4 s4 (72 GPUs), R3 s3 (72 GPUs) and R2 s2 (72 GPUs)" in reason


def test_a_pair_is_cited_with_every_scenario_of_the_same_systems(tmp_path):
    claim = {
        "id": "pairs",
        "statement": "Nearly double the GPUs for a single-digit gain.",
        "kind": "presence",
        "rows": {},
        "pairs": {"nearly": 2, "gain_below_percent": 10},
    }
    rows = [
        result("Big", "b", "Offline", 1073.0, gpus=512, nodes=64, accelerator=MI355X),
        result("Small", "s", "Offline", 1000.0, gpus=288, nodes=72),
        result("Big", "b", "Server", 1186.0, gpus=512, nodes=64, accelerator=MI355X),
        result("Small", "s", "Server", 1000.0, gpus=288, nodes=72),
    ]
    found = check(world(tmp_path, rows, [claim]), "pairs")
    note = next(note for note in found.notes if note.startswith("Pairs of different systems"))
    assert "(gpt-oss-120b Offline): 1.78x the GPUs for +7.3%, and in Server +18.6% (does not fit)" in note


def test_the_scaling_chapter_says_from_the_data_whether_a_pair_above_linear_leads(tmp_path):
    from claimbook.present.claim_pages import above_linear_sentence

    claim = {
        "id": "eff",
        "statement": "Leading scaling efficiency.",
        "kind": "leading",
        "metric": "efficiency",
        "benchmark": "gpt-oss-120b",
        "subject": {"organization": "Acme"},
        "small": {"organization": "Acme", "system": "one"},
        "large": {"organization": "Acme", "system": "four"},
        "scenarios": ["Offline"],
        "definitions": [{"label": "any scale-out", "scale_out": True}],
    }
    rows = [
        result("Acme", "one", "Offline", 100.0, gpus=72, nodes=18),
        result("Acme", "four", "Offline", 380.0, gpus=288, nodes=72),
        result("Rival", "small", "Offline", 10.0, gpus=4, nodes=1),
        result("Rival", "big", "Offline", 180.72, gpus=72, nodes=18),
        result("Third", "small", "Offline", 10.0, gpus=4, nodes=1),
        result("Third", "big", "Offline", 300.0, gpus=72, nodes=18),
    ]
    found = check(world(tmp_path, rows, [claim]), "eff")
    text = above_linear_sentence(found)
    assert "never lead" not in text
    assert text.startswith("1 pair above 101% is shown but left out of the comparison; 1 pair between 100%")
    assert "at 100.4% leads any scale-out" in text and "100.4% at 100.4%" not in text


def test_an_up_to_card_carries_every_case_on_its_first_line(tmp_path):
    from claimbook.present import blocks

    claim = {
        "id": "up-to",
        "statement": "Up to 3.7x across the Offline and Server scenarios.",
        "kind": "ratio",
        "form": "figure",
        "quantifier": "up-to",
        "claimed": 3.7,
        "unit": "x",
        "benchmark": "gpt-oss-120b",
        "scenarios": ["Offline", "Server"],
        "subject": {"organization": "Acme", "system": "new"},
        "baseline": {"organization": "Acme", "system": "old"},
    }
    rows = [
        result("Acme", "new", "Offline", 183.0),
        result("Acme", "old", "Offline", 100.0),
        result("Acme", "new", "Server", 374.0),
        result("Acme", "old", "Server", 100.0),
    ]
    found = check(world(tmp_path, rows, [claim]), "up-to")
    first_line = blocks.card(found).split("</p>")[0]
    assert "Offline 1.83x, Server 3.74x" in first_line
    assert "Offline 1.83x, Server 3.74x" in blocks.card_text(found).splitlines()[0]


def test_an_unnamed_node_shows_both_readings_and_which_decides(tmp_path):
    claim = {
        "id": "node",
        "statement": "9 times a single node.",
        "kind": "unnamed-baseline",
        "claimed": 9,
        "unit": "x",
        "benchmark": "wan-2.2-t2v-a14b",
        "scenario": "Offline",
        "subject": {"organization": "Acme", "system": "rack"},
        "candidates": {"nodes": 1},
        "measure": "whole-system",
    }
    wan = {"model": "wan-2.2-t2v-a14b", "units": "Samples/s"}
    rows = [
        result("Acme", "rack", "Offline", 0.9, gpus=72, nodes=18, accelerator="NVIDIA GB300", **wan),
        result("Acme", "node", "Offline", 0.1, **wan),
        result("Other", "tray", "Offline", 0.02, gpus=4, accelerator="NVIDIA GB300", **wan),
    ]
    found = check(world(tmp_path, rows, [claim]), "node")
    note = next(note for note in found.context if note.startswith("Read instead"))
    assert "Other tray (4 GPUs), gives Offline 45.00x" in note
    assert "The natural baseline, Acme node (8 GPUs), the claimant's own, decides" in note
    assert "the verdict is the same under either reading" in note


def _sentences_of(found):
    """The running text a check writes: its reason, notes and context, and its parts'."""
    texts = [found.reason, *found.notes, *found.context]
    for part in found.parts:
        texts += _sentences_of(part)
    return texts


def test_every_system_the_committed_pages_name_in_running_text_carries_its_gpu_count():
    """Every "organization system-id" a sentence of any committed claim names is followed by its
    GPU count (a published name such as "(72x GB300 ...)" never stands for the size)."""
    import re

    from claimbook import engine
    from claimbook.engine.context import book_data
    from tests.helpers.project import ROOT

    data = book_data(ROOT)
    systems = sorted(
        {f"{org} {system}" for org, system in zip(data.results["organization"], data.results["system"])},
        key=len,
        reverse=True,
    )
    pattern = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, systems)) + r")(?![\w-])")
    unsized = []
    for claim in data.registry.claims:
        for text in _sentences_of(engine.check(claim, data)):
            for match in pattern.finditer(text):
                after = text[match.end() : match.end() + 40]
                if text[: match.start()].endswith(" · "):
                    continue  # a case's label ("gpt-oss-120b · Offline · X"): its key, sized in its table
                if not re.match(r" \((\d[\d,]* GPUs?|GPU count not stated)", after):
                    unsized.append(f"{claim.id}: {text[max(0, match.start() - 40) : match.end() + 40]}")
    assert not unsized, "\n".join(unsized[:20])


# Words that state a fact about the results (who leads, what never happens) and figures with a
# unit: a template's fixed prose may describe the method, never the data (docs/architecture.md).
FACT_WORDS = r"\b(never|always|leads?|ahead|behind|outperforms?|beats?)\b"
FACT_FIGURES = r"(?<![\w.])(?!100%)\d[\d,.]*\s?(%|x\b|GPUs?\b|tokens/s|samples/s|queries/s)"


def test_no_template_states_a_fact_about_the_results_in_fixed_prose():
    import json
    import re

    from tests.helpers.project import ROOT

    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            for pattern in (FACT_WORDS, FACT_FIGURES):
                found += [
                    f"{path.name}: {match.group(0)!r}" for match in re.finditer(pattern, text, re.IGNORECASE)
                ]
    assert not found, found


def test_no_sentence_of_present_types_a_verdict_or_a_lead():
    """present/ writes no sentence of its own that states who leads or that something never happens."""
    import re

    from tests.helpers.project import ROOT

    found = []
    for path in sorted((ROOT / "claimbook" / "present").glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for literal in re.findall(r"\"([^\"]{12,})\"", line):
                if re.search(
                    r"\bthey never lead\b|\bnever leads?\b|\balways leads?\b", literal, re.IGNORECASE
                ):
                    found.append(f"{path.name}:{number}: {literal}")
    assert not found, found


def test_each_announcement_page_carries_the_spread_of_every_best_case_claim():
    """The short cards of an announcement's page carry the spread too, from the scorecard's rows."""
    import json

    from claimbook.engine import load_registry
    from claimbook.present import blocks
    from tests.helpers.project import ROOT

    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    rows = json.loads((ROOT / "book" / "generated" / "scorecard.json").read_text(encoding="utf-8"))
    rows = rows if isinstance(rows, list) else rows["rows"]
    shown = 0
    for claim in registry.claims:
        mine = [row for row in rows if row["claim"] == claim.id]
        text = blocks.spread_of(claim, [(row["scenario"], row["measured"], row["unit"]) for row in mine])
        if text:
            page = (ROOT / "book" / "generated" / f"{claim.announcement}.md").read_text(encoding="utf-8")
            assert blocks.escape(text) in page, claim.id
            shown += 1
    assert shown  # the committed registries have "up to" claims over several cases


def test_a_value_an_only_claim_lists_is_drawn_as_named_by_the_claim(tmp_path):
    from claimbook.engine.kinds._presence_common import count_bars

    claim = {
        "id": "only",
        "statement": "Only B300 systems.",
        "kind": "presence",
        "count": "family",
        "only": ["NVIDIA B300"],
        "rows": {"vendor": "NVIDIA"},
    }
    data = world(tmp_path, [result("Acme", "b300", "Offline", 1.0)], [claim])
    (bars,) = count_bars(check(data, "only"), data)
    assert set(bars.table["named"]) == {"named by the claim"}
