"""The vendor's word, read one way in every kind (book/method.md, "The vendor's word"): a claim per
quantifier, written as YAML in a registry of a copy of the project, checked with the copy's own
``claimbook check``, against verdicts computed here from the raw results with plain pandas and
the method page's rules (nothing of ``claimbook`` is imported for the expectations).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.book.test_recompute import SOURCE, load, matches, one, row_caveats, verdict
from tests.helpers.project import project_copy, run_copy

DELL, AMD_8, AMD_72 = "XE9785L_8xMI355X", "8xMI355X_2xEPYC_9575F", "9x8xMI355X_2xEPYC_9575F"
GPTOSS, WAN = "gpt-oss-120b", "wan-2.2-t2v-a14b"
HEADER = """\
announcement:
  id: words-v6.1
  title: A post in many words
  publisher: Tester
  claimant: AMD
  vendor: AMD
  date: "2026-09-20"
  round: v6.1
claims:
"""


def ratio(claim_id: str, subject: str, **fields) -> dict:
    """A ratio of a Dell or Dell_MangoBoost MI355X node against AMD's own, on gpt-oss-120b."""
    organization, system = subject.split("/")
    return {
        "id": claim_id,
        "statement": f"{claim_id} against AMD's own.",
        "kind": "ratio",
        "form": "figure",
        "unit": "x",
        "benchmark": GPTOSS,
        "scenarios": ["Offline", "Server"],
        "subject": {"organization": organization, "system": system},
        "baseline": {"organization": "AMD", "system": AMD_8},
        **fields,
    }


DELL_NODE, MANGO_NODE = f"Dell/{DELL}", "Dell_MangoBoost/XE9785"
CLAIMS = [
    ratio("exactly-097", DELL_NODE, claimed=0.97),  # a plain figure: "exactly", at its precision
    ratio("exactly-0970", DELL_NODE, claimed="0.970"),  # the same figure written with three decimals
    ratio("up-to-0973", DELL_NODE, quantifier="up-to", claimed=0.973),
    ratio("at-least-095", DELL_NODE, quantifier="at-least", claimed=0.95),
    ratio(
        "at-least-095-mango", MANGO_NODE, quantifier="at-least", claimed=0.95
    ),  # 0.946 is not "at least 0.95"
    ratio("or-better-097", DELL_NODE, quantifier="or-better", claimed=0.97),
    ratio("at-least-097-best", DELL_NODE, quantifier="at-least", cases="best", claimed=0.97),
    ratio("more-than-096", DELL_NODE, quantifier="more-than", claimed=0.96),
    ratio("over-0973", DELL_NODE, quantifier="over", claimed=0.973),
    ratio("about-093", DELL_NODE, quantifier="about", claimed=0.93),
    ratio("about-085", DELL_NODE, quantifier="about", claimed=0.85),
    ratio("nearly-1", DELL_NODE, quantifier="nearly", claimed=1),
    {
        **ratio("a-few-percent-mango", MANGO_NODE, quantifier="a-few-percent", form="counterparts"),
        "unit": "%",
        "match_on": ["family", "gpus"],
    },
    {
        **ratio("within-5-mango", MANGO_NODE, quantifier="within", within=5, form="counterparts"),
        "unit": "%",
        "match_on": ["family", "gpus"],
    },
    {
        **ratio("within-6-mango", MANGO_NODE, quantifier="within", within=6, form="counterparts"),
        "unit": "%",
        "match_on": ["family", "gpus"],
    },
    *[
        {
            "id": claim_id,
            "statement": "A video in so many seconds.",
            "kind": "figure",
            "benchmark": WAN,
            "scenarios": ["SingleStream"],
            "subject": {"organization": "AMD", "system": AMD_8},
            "unit": "s",
            "quantifier": word,
            "claimed": figure,
        }
        for claim_id, word, figure in (
            ("at-most-16124", "at-most", 16.124),
            ("at-most-1613", "at-most", 16.13),
            ("less-than-161", "less-than", 16.1),
            ("under-17", "under", 17),
        )
    ],
    *[
        {
            "id": claim_id,
            "statement": "Scales from 8 to 72 GPUs.",
            "kind": "scaling",
            "benchmark": GPTOSS,
            "scenarios": ["Offline", "Server"],
            "small": {"organization": "AMD", "system": AMD_8},
            "large": {"organization": "AMD", "system": AMD_72},
            "unit": "%",
            "quantifier": "or-better",
            "claimed": figure,
        }
        for claim_id, figure in (("scaling-95-or-better", 95), ("scaling-946-or-better", 94.6))
    ],
]


def registry_text() -> str:
    return HEADER + "".join(f"  - {json.dumps(claim)}\n" for claim in CLAIMS)


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[str, dict]:
    """Every claim of the registry, checked by the copy's own ``claimbook check --json``."""
    copy = project_copy(tmp_path_factory.mktemp("words") / "project")
    path = copy / "data" / "claims" / "words-v6.1.yaml"
    path.write_text(registry_text(), encoding="utf-8")
    done = run_copy(copy, "check", "--registry", path, "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    return {report["claim"]: report for report in json.loads(done.stdout)}


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return load(SOURCE)


def node(rows, organization: str, system: str, benchmark: str, scenario: str) -> pd.Series:
    return one(
        rows,
        organization=organization,
        system=system,
        benchmark=benchmark,
        scenario=scenario,
        division="closed",
    )


def ratios(rows, subject: str) -> dict[str, tuple[float, list]]:
    organization, system = subject.split("/")
    found = {}
    for scenario in ("Offline", "Server"):
        mine, base = (
            node(rows, organization, system, GPTOSS, scenario),
            node(rows, "AMD", AMD_8, GPTOSS, scenario),
        )
        found[scenario] = (mine["result"] / base["result"], [mine, base])
    return found


# The method page's rules, as plain functions of a measured figure m and a claimed figure x.
BOUNDS = {
    "at-least": lambda m, x: m >= x,
    "or-better": lambda m, x: m >= x,
    "more-than": lambda m, x: m > x,
    "over": lambda m, x: m > x,
    "at-most": lambda m, x: m <= x,
    "less-than": lambda m, x: m < x,
    "under": lambda m, x: m < x,
    "about": lambda m, x: 0.95 * x <= m <= 1.05 * x,
    "nearly": lambda m, x: 0.80 * x <= m <= x,
}


def expected(rows, claim: dict) -> str:
    """The verdict of one claim of ``CLAIMS``, from the rows and the method page's rules."""
    word, claimed = claim.get("quantifier", "exactly"), claim.get("claimed")
    if claim["kind"] == "figure":
        row = node(rows, "AMD", AMD_8, WAN, "SingleStream")
        return verdict(BOUNDS[word](row["result"], float(claimed)), row_caveats(row))
    if claim["kind"] == "scaling":
        measured, used = [], []
        for scenario in ("Offline", "Server"):
            small, large = (
                node(rows, "AMD", AMD_8, GPTOSS, scenario),
                node(rows, "AMD", AMD_72, GPTOSS, scenario),
            )
            measured.append(100 * (large["result"] / small["result"]) / (large["gpus"] / small["gpus"]))
            used += [small, large]
        return verdict(all(BOUNDS["at-least"](m, claimed) for m in measured), row_caveats(pd.DataFrame(used)))
    cases = ratios(rows, claim["subject"]["organization"] + "/" + claim["subject"]["system"])
    used = pd.DataFrame([row for _, pair in cases.values() for row in pair])
    caveats = row_caveats(used)
    values = {scenario: value for scenario, (value, _) in cases.items()}
    if claim["form"] == "counterparts":  # the gap to parity, in percent, each case
        gaps = [abs(100 * (value - 1)) for value in values.values()]
        bound = float(claim.get("within", 5))
        if word == "a-few-percent":  # whole percent: a miss by less than one point is a caveat
            near = [gap for gap in gaps if bound < gap < bound + 1]
            return verdict(
                all(gap < bound + 1 for gap in gaps), caveats | ({"near-bound"} if near else set())
            )
        return verdict(all(gap <= bound for gap in gaps), caveats)
    if word in BOUNDS:
        holds = [BOUNDS[word](value, float(claimed)) for value in values.values()]
        if claim.get("cases") == "best":
            best = max(values.values())
            return verdict(
                BOUNDS[word](best, float(claimed)),
                caveats | ({"best-case-only"} if not all(holds) else set()),
            )
        return verdict(all(holds), caveats)
    figure, places = (
        (float(claimed), len(str(claimed).split(".")[1])) if isinstance(claimed, str) else (claimed, None)
    )
    exact = {s: matches(v, figure) if places is None else _at(v, figure, places) for s, v in values.items()}
    if word == "up-to":
        best = max(values, key=values.get)
        holds = exact[best] or values[best] > figure
        codes = ({"best-case-only"} if not all(exact[s] or values[s] > figure for s in values) else set()) | (
            {"understated"} if holds and not exact[best] else set()
        )
        return verdict(holds, caveats | codes)
    holds = all(exact[s] or values[s] > figure for s in values)  # "exactly": below it understates
    return verdict(holds, caveats | ({"understated"} if holds and not all(exact.values()) else set()))


def _at(measured: float, claimed: float, places: int) -> bool:
    """The figure as written with ``places`` decimals ("0.970"): rounded or truncated there."""
    scale = 10**places
    return round(measured * scale) == round(claimed * scale) or int(measured * scale) == round(
        claimed * scale
    )


@pytest.mark.parametrize("claim", CLAIMS, ids=[claim["id"] for claim in CLAIMS])
def test_each_quantifier_gives_the_verdict_its_rule_gives(checked, rows, claim):
    assert checked[claim["id"]]["verdict"] == expected(rows, claim), checked[claim["id"]]["rows"][0]["reason"]


def test_the_bounds_read_no_rounding_in_the_claims_favour(checked, rows):
    """0.946 rounds to 0.95 but is not "at least 0.95"; a value above a bound never understates."""
    mango = ratios(rows, MANGO_NODE)["Offline"][0]
    assert round(mango, 2) == 0.95 and mango < 0.95
    assert checked["at-least-095-mango"]["verdict"] == "not supported"
    assert "understated" not in checked["at-least-095"]["rows"][0]["caveats"]
    assert checked["at-least-095"]["verdict"] == "supported"


def test_a_figure_keeps_the_precision_it_is_written_with(checked):
    """ "0.970" has three decimals (0.967 is not it), "0.97" two (0.967 is it)."""
    assert checked["exactly-097"]["verdict"] != "not supported"
    assert checked["exactly-0970"]["verdict"] == "not supported"
    assert "(claimed 0.970x)" in checked["exactly-0970"]["rows"][0]["reason"]


def test_each_card_says_the_word_and_the_cases_in_words(checked):
    for claim_id, said in (
        (
            "at-least-095",
            'Read as "at least 0.95x": at or above the figure, with no rounding in the claim\'s favour; every case must hold',
        ),
        ("at-least-097-best", "the best case must hold"),
        ("within-5-mango", '"within 5%" of its counterpart'),
    ):
        assert said in checked[claim_id]["rows"][0]["reason"], claim_id


def test_the_quantifier_table_of_the_method_page_is_the_engines():
    from pathlib import Path

    from claimbook.engine.quantifiers import RULES

    method = (Path(__file__).resolve().parents[2] / "book" / "method.md").read_text(encoding="utf-8")
    table = [line for line in method.splitlines() if line.startswith("| `")]
    assert len(table) == len(RULES)
    for line, (word, rule) in zip(table, RULES.items(), strict=True):
        assert line.startswith(f"| `{word}`") and f"| {rule.meaning} | {rule.cases} |" in line


def test_the_method_pages_two_band_rules_are_the_engines_and_cards_cite_them():
    from pathlib import Path

    from claimbook.engine.quantifiers import A_FEW_PERCENT, BAND_RULES, RULES, WITHIN, Reading

    method = (Path(__file__).resolve().parents[2] / "book" / "method.md").read_text(encoding="utf-8")
    for band, rule in BAND_RULES.items():
        assert f"| {band} | {rule} |" in method
    vague = Reading(RULES[A_FEW_PERCENT], "every").sentence(None, "%")
    band = Reading(RULES[WITHIN], "every", within=3.0).sentence(None, "%")
    assert BAND_RULES["a vague word"] in vague and BAND_RULES["a stated band"] not in vague
    assert BAND_RULES["a stated band"] in band and BAND_RULES["a vague word"] not in band
