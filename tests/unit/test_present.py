"""The present layer as a reader meets it, without a browser: one helper makes every in-book
link, pages are plain Markdown with HTML blocks, systems carry their organization's name, tables
put the answer first and fit, charts draw the claimed figure and an "up to" claim's spread, and
the explorer's controls say what they select. Figures are recomputed here from the data, not
read back from the pages."""

from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest
from markdown_it import MarkdownIt

from claimbook import engine
from claimbook.engine.context import page_data, page_parameters
from claimbook.engine.kinds import CaseBars
from claimbook.engine.scorecard import rows_for
from claimbook.engine.verdict import VERDICTS
from claimbook.present import blocks, charts, claim_pages, explorer, links, markdown_pages
from tests.helpers.project import ROOT


@pytest.fixture(scope="module")
def data():
    return page_data(page_parameters({}))


@pytest.fixture(scope="module")
def checks(data):
    return {claim.id: engine.check(claim, data) for claim in data.registry.claims}


@pytest.fixture(scope="module")
def scorecard(checks):
    return [row for check in checks.values() for row in rows_for(check, "test")]


@pytest.fixture(autouse=True)
def no_page():
    """A test starts without a current page (as a kernel does) and leaves none behind."""
    links.use_page(None, "")
    yield
    links.use_page(None, "")


def book_pages(data, checks, scorecard) -> dict[str, str]:
    """Every page the build writes from the scorecard, as ``claimbook build`` calls them."""
    registry = data.registry
    pages = {"front": markdown_pages.front_page(scorecard, registry, "v6.1", "", results=data.results)}
    for announcement in registry.announcements.values():
        own = {key: check for key, check in checks.items() if check.claim.announcement == announcement.id}
        pages[announcement.id] = markdown_pages.announcement_page(
            announcement, scorecard, registry, own, "", results=data.results
        )
    pages["kinds"] = markdown_pages.kinds_page(registry)
    pages["caveats"] = markdown_pages.caveats_page()
    return pages


HREF = re.compile(r'href="([^"]+)"')


def in_book(href: str) -> bool:
    return not href.startswith(("http://", "https://", "#", "mailto:"))


# -- one helper makes every in-book link ----------------------------------------------------------
def test_every_in_book_link_comes_from_the_one_helper(data, checks, scorecard, monkeypatch):
    """Every in-book address the generated pages write ends as ``links.page`` says; change its
    scheme (Jupyter Book 2 drops ".html") and every one of them follows."""
    before = [href for text in book_pages(data, checks, scorecard).values() for href in HREF.findall(text)]
    ours = [href for href in before if in_book(href)]
    assert len(ours) > 150
    assert all(re.search(r"\.html(#[\w.-]+)?$", href) for href in ours), [
        href for href in ours if ".html" not in href
    ][:5]
    monkeypatch.setattr(links, "SUFFIX", "")
    after = [href for text in book_pages(data, checks, scorecard).values() for href in HREF.findall(text)]
    assert len(after) == len(before)
    assert not [href for href in after if in_book(href) and ".html" in href]


def test_a_claim_links_to_its_card_wherever_the_card_is(data):
    registry = data.registry
    for claim in registry.all_claims():
        address = links.claim(claim, registry, "../")
        top = registry.claim(claim.parent) if claim.parent else claim
        assert address.endswith("#" + links.card_anchor(top.id))
        if top.chapter:
            assert address == f"../generated/{top.chapter}.html#claim-{top.id}"
        elif top in registry.page_claims():
            assert address == f"../generated/{top.announcement}/{top.id}.html#claim-{top.id}"
        else:
            assert address == f"../generated/{top.announcement}.html#claim-{top.id}"


def test_a_table_naming_claims_by_id_links_each_to_its_card(data):
    registry = data.registry
    claim = next(claim for claim in registry.claims if claim.chapter)
    frame = pd.DataFrame({"Announcement": ["X"], "Claim id": [claim.id], "Verdict": ["supported"]})
    assert claim.id in blocks.table_html(frame, "t")  # no page: the id, as text
    links.use_page(registry, "../")
    markup = blocks.table_html(frame, "t")
    title = blocks.escape(claim.get("title"))
    assert f'<a href="../generated/{claim.chapter}.html#claim-{claim.id}">{title}</a>' in markup.replace(
        "<wbr>", ""
    )
    assert f'title="{claim.id}"' in markup and "Claim id" not in markup
    # the claim, then its verdict (a badge), then the rest
    heads = re.findall(r"<th scope=\"col\"[^>]*>([^<]+)</th>", markup)
    assert heads == ["Claim", "Verdict", "Announcement"]
    assert "claimbook-badge-supported" in markup


# -- plain HTML blocks ------------------------------------------------------------------------------
def test_pages_are_plain_markdown_with_html_blocks(data, checks, scorecard):
    """No builder directive: every HTML block is CommonMark's (a tag opening a line, no blank line
    inside), so a CommonMark parser passes each through whole."""
    parser = MarkdownIt("commonmark")
    for name, text in book_pages(data, checks, scorecard).items():
        assert "{raw}" not in text, name
        blocks_found = [token for token in parser.parse(text) if token.type == "html_block"]
        ours = [token for token in blocks_found if token.content.startswith('<div class="claimbook-block">')]
        assert ours, f"{name} has no HTML block"
        for token in ours:
            assert token.content.rstrip().endswith("</div>"), (
                f"{name}: a block ends early: {token.content[-80:]!r}"
            )
        rendered = parser.render(text)
        assert "&lt;div" not in rendered and "&lt;table" not in rendered, name


# -- text as written --------------------------------------------------------------------------------
def test_literals_in_the_package_s_own_prose_are_code_never_backticks():
    assert blocks.prose_html("Kind ``ratio``: a <b> ``x < y``") == (
        "Kind <code>ratio</code>: a &lt;b&gt; <code>x &lt; y</code>"
    )
    assert blocks.prose_text("Kind ``ratio``") == "Kind ratio"
    text = markdown_pages.kinds_page(engine.load_registry())
    assert "``" not in re.sub(r"(?s)(`{3,}).*?\1", "", text)  # outside the YAML examples' fences


# -- systems as readers know them -------------------------------------------------------------------
def test_systems_are_named_as_their_organizations_name_them(data):
    results = data.results
    names = blocks.SystemNames(results)
    pairs = results.groupby(["organization", "system"])["system_name"].agg(lambda values: set(values))
    one = next(
        (organization, system, next(iter(found)))
        for (organization, system), found in pairs.items()
        if len(found) == 1 and next(iter(found)).replace(" ", "") != system and "<" not in next(iter(found))
    )
    organization, system, name = one
    text = f"Against {organization} {system} (8 GPUs), it leads."
    markup = names.html(text)
    assert blocks.escape(name) in markup and f'title="{organization} {system}"' in markup
    assert markup.startswith("Against ") and markup.endswith(" (8 GPUs), it leads.")
    # a system its organization gives two names keeps its id
    two = next(((org, system) for (org, system), found in pairs.items() if len(found) > 1), None)
    if two:
        assert names.html(f"{two[0]} {two[1]} x") == blocks.escape(f"{two[0]} {two[1]} x")
    # markup in a name is text
    hostile = pd.DataFrame(
        {"organization": ["Evil"], "system": ["S1"], "system_name": ["<img src=x onerror=alert(1)>"]}
    )
    assert "<img" not in blocks.SystemNames(hostile).html("Evil S1 wins")


def test_a_tables_system_names_are_made_once_and_again_when_it_changes():
    table = pd.DataFrame({"organization": ["Acme"], "system": ["S1_x8"], "system_name": ["Acme Rocket S1"]})
    names = blocks.system_names(table)
    assert blocks.system_names(table) is names and names.html("Acme S1_x8") == blocks.SystemNames(table).html(
        "Acme S1_x8"
    )
    table.loc[0, "system_name"] = "Acme Comet"  # (a table edited in place names its systems anew)
    renamed = blocks.system_names(table)
    assert renamed is not names and "Acme Comet" in renamed.html("Acme S1_x8")
    assert blocks.system_names(None).html("Acme S1_x8") == "Acme S1_x8"


def test_the_pages_given_the_ledger_made_once_are_the_pages_that_make_it(data, checks, scorecard):
    registry = data.registry
    ledger = markdown_pages.ledger_entries(scorecard, registry)
    assert markdown_pages.front_page(scorecard, registry, "v6.1", "", results=data.results) == (
        markdown_pages.front_page(scorecard, registry, "v6.1", "", results=data.results, ledger=ledger)
    )
    for announcement in registry.announcements.values():
        own = {key: check for key, check in checks.items() if check.claim.announcement == announcement.id}
        made = markdown_pages.announcement_page(
            announcement, scorecard, registry, own, "", results=data.results
        )
        given = markdown_pages.announcement_page(
            announcement, scorecard, registry, own, "", results=data.results, ledger=ledger
        )
        assert made == given and announcement.title in made


# -- tables -----------------------------------------------------------------------------------------
def test_a_table_puts_the_answer_first_and_says_once_what_every_row_says():
    frame = pd.DataFrame(
        {
            "System": ["a", "b", "c"],
            "Status": ["closed, available"] * 3,
            "Claimed": [2.0, 2.0, 2.0],
            "Measured": [1.0, 2.5, 3.0],
            "Case": ["Offline", "Server", "Interactive"],
        }
    )
    markup = blocks.table_html(frame, "Cases")
    heads = re.findall(r"<th scope=\"col\"[^>]*>([^<]+)</th>", markup)
    assert heads == ["Case", "Measured", "Claimed", "System"]
    assert "<caption>Cases (every row: Status closed, available)</caption>" in markup
    # two rows: nothing is folded (a row or two says it in the table)
    assert "Status" in blocks.table_html(frame.head(2), "Cases")


@pytest.mark.parametrize("count", [5, 10, 11, 12, 17, 25])
def test_a_table_of_many_columns_is_shown_in_parts_each_with_its_keys(count):
    columns = ["Case"] + [f"Column {index}" for index in range(count - 1)]
    parts = blocks.column_parts(columns)
    assert all(len(part) <= blocks.MOST and part[0] == "Case" for part in parts)
    assert [column for part in parts for column in part[1:]] == columns[1:]
    assert len(parts) == (1 if count <= blocks.MOST else math.ceil((count - 1) / (blocks.MOST - 1)))
    frame = pd.DataFrame([[f"v{index}" for index in range(count)]], columns=columns)
    markup = blocks.table_html(frame, "Wide")
    assert markup.count("<table") == len(parts)
    assert markup.count("(continued)</caption>") == len(parts) - 1


def _pandas_text(frame: pd.DataFrame) -> str:
    """What a table's plain text was before ``plain_table``: pandas' own writer."""
    return frame.map(blocks._plain_cell).to_string(index=False)


_TEXTS = ["", "x", " lead", "trail ", "Offline", "GB300-NVL72", "ça va", "数据", "a b  c", "-", "<b>"]
_NUMBERS = [0, 1, -3, 12345, 0.5, 2.0, 123.45, 1e-9, float("nan"), 3.7e12]


def _random_frame(rng) -> pd.DataFrame:
    columns = {}
    for index in range(rng.randint(1, 6)):
        name = rng.choice(["Claim", "Measured", "System", "a long heading", "x", "数"]) + str(index)
        rows = rng.randint(1, 7) if index == 0 else len(next(iter(columns.values())))
        kind = rng.choice(["text", "number", "int", "flag", "mixed", "long"])
        if kind == "text":
            values = [rng.choice(_TEXTS) for _ in range(rows)]
        elif kind == "number":
            values = [rng.choice(_NUMBERS) for _ in range(rows)]
        elif kind == "int":
            values = [rng.randint(-5, 10**7) for _ in range(rows)]
        elif kind == "flag":
            values = [rng.random() < 0.5 for _ in range(rows)]
        elif kind == "long":
            values = ["w" * rng.randint(0, 40) for _ in range(rows)]
        else:
            values = [rng.choice([None, "x", 1.5, 7, True, float("nan")]) for _ in range(rows)]
        columns[name] = values
    return pd.DataFrame(columns)


def test_a_table_s_plain_text_is_what_pandas_writes_of_its_cells():
    import random

    rng = random.Random(44)
    frames = [_random_frame(rng) for _ in range(400)]
    frames += [
        pd.DataFrame({"A": [], "B": []}),  # no rows
        pd.DataFrame({"A": ["line\nbreak", "tab\there"], "B": ["x", "y"]}),  # pandas escapes these
        pd.DataFrame([["a", "b"]], columns=["Same", "Same"]),  # headings not unique
        pd.DataFrame([["a", "b"]], columns=[1, 2]),  # headings not text
        pd.DataFrame({"A": pd.array(["x", None], dtype="string"), "B": pd.array([1, None], dtype="Int64")}),
        pd.DataFrame({"When": pd.to_datetime(["2026-01-02", "2026-03-04"])}),
    ]
    for frame in frames:
        assert blocks.plain_table(frame) == _pandas_text(frame), frame


def test_long_names_break_at_their_joints_and_never_inside_short_words():
    assert blocks.text_cell("Offline") == "<td>Offline</td>"
    assert blocks.text_cell("SingleStream") == "<td>Single<wbr>Stream</td>"
    assert blocks.text_cell("GB300-NVL72_GB300-288GB_aarch64x72_TRT") == (
        '<td class="claimbook-long">GB300-NVL72_<wbr>GB300-288GB_<wbr>aarch64x72_<wbr>TRT</td>'
    )


def test_the_tally_counts_each_verdict_per_announcement(data, scorecard):
    """Recounted from the scorecard rows (one verdict per claim)."""
    front = markdown_pages.front_page(scorecard, data.registry, "v6.1", "", results=data.results)
    tally = front[front.index("claimbook-tally") : front.index("</table>", front.index("claimbook-tally"))]
    verdict_of = {row["claim"]: (row["announcement"], row["verdict"]) for row in scorecard}
    top = [claim.id for claim in data.registry.claims]
    for verdict in VERDICTS:
        row = tally[tally.index(f"</span> {verdict}</span></th>") :].split("</tr>")[0]
        counts = [int(value) for value in re.findall(r'<td class="num">(\d+)</td>', row)]
        expected = [
            sum(1 for claim_id in top if verdict_of[claim_id] == (announcement, verdict))
            for announcement in _newest_round_first(data.registry)
        ]
        assert counts == expected + [sum(expected)], verdict


def _newest_round_first(registry) -> list[str]:
    """The announcements as the front page puts them: newest round first, the registry's order within."""
    number = lambda name: tuple(int(part) for part in name.lstrip("v").split("."))
    return sorted(
        registry.announcements, key=lambda key: number(registry.announcements[key].round), reverse=True
    )


def test_the_front_page_groups_announcements_by_round_newest_first(data, scorecard):
    from dataclasses import replace

    first = next(iter(data.registry.announcements))
    older = replace(data.registry.announcements[first], round="v5.1")
    registry = replace(data.registry, announcements={**data.registry.announcements, first: older})
    front = markdown_pages.front_page(scorecard, registry, "v6.1", "", results=data.results)
    headings = re.findall(r"(?m)^(##+) (.+)$", front)
    rounds = [title for level, title in headings if level == "##" and title.startswith("MLPerf Inference")]
    assert rounds == ["MLPerf Inference v6.1", "MLPerf Inference v5.1"]
    under_older = front[front.index("## MLPerf Inference v5.1") :]
    assert f"### {blocks.markdown_text(older.title)}" in under_older
    assert f"### {blocks.markdown_text(older.title)}" not in front[: front.index("## MLPerf Inference v5.1")]
    assert "checked against the MLPerf Inference v6.1 and v5.1 results (each claim on its own round)" in front
    tally = front[front.index("claimbook-tally") : front.index("</table>")]
    assert f"{blocks.escape(older.publisher)}<br>v5.1</a>" in tally


def test_the_ledger_is_a_line_a_claim_its_details_a_click_away(data, scorecard):
    front = markdown_pages.front_page(scorecard, data.registry, "v6.1", "", results=data.results)
    items = re.findall(r'<li class="claimbook-ledger-item" id="ledger-([^"]+)"', front)
    assert items and sorted(items) == sorted(claim.id for claim in data.registry.claims)
    for claim_id in items:
        item = front[front.index(f'id="ledger-{claim_id}"') :].split("</li>", 1)[0]
        summary = item[item.index("<summary>") : item.index("</summary>")]
        claim = data.registry.claim(claim_id)
        assert links.claim(claim, data.registry, "") in summary and "claimbook-badge" in summary
        assert blocks.escape(claim.statement) not in summary  # the statement is in the details
        # every result link says what it is: a system and a scenario, never a bare number
        for label in re.findall(r'inference_results_v6\.1/tree/main/[^"]+">([^<]+)</a>', item):
            assert re.search(r"[A-Za-z]", label) and re.search(
                r"(Offline|Server|Interactive|SingleStream|MultiStream)$", label
            ), label


# -- charts -----------------------------------------------------------------------------------------
def case_charts(data, checks):
    for check in checks.values():
        for leaf in check.parts or (check,):
            for spec in engine.KINDS[leaf.claim.kind].charts(leaf, data):
                if isinstance(spec, CaseBars):
                    yield leaf, spec, claim_pages.render(spec, data.reference, leaf).to_dict()


def layer_data(chart: dict) -> list[list[dict]]:
    return [chart["datasets"][(layer.get("data") or chart["data"])["name"]] for layer in chart["layer"]]


def test_every_case_chart_draws_the_claimed_figure(data, checks):
    charts.use_book_style()
    seen = 0
    for check, spec, chart in case_charts(data, checks):
        claimed = [bar.claimed for bar in spec.bars if bar.claimed is not None]
        if spec.line is None and not claimed:
            continue
        seen += 1
        assert len(chart["layer"]) == 2, f"{check.claim.id}: no claimed figure drawn"
        drawn = layer_data(chart)[1]
        if spec.line is not None:
            assert [record["value"] for record in drawn] == [spec.line]
        else:
            assert sorted(record["claimed"] for record in drawn) == sorted(claimed), check.claim.id
    assert seen >= 8


def test_an_up_to_claim_s_other_cases_are_not_the_best_case_not_failures(data, checks):
    charts.use_book_style()
    seen = 0
    for check, _, chart in case_charts(data, checks):
        records = layer_data(chart)[0]
        deciding = [record for record in records if record["case"] == check.deciding]
        others = [record for record in records if record["case"] != check.deciding]
        if claim_pages.best_case_only(check):
            seen += 1
            assert {record["outcome"] for record in others} <= {claim_pages.NOT_THE_BEST, "for context"}
            assert [record["outcome"] for record in deciding] == [
                "holds" if case.reaches else "does not hold"
                for case in check.cases
                if case.label == check.deciding and case.reaches is not None
            ]
        else:
            assert claim_pages.NOT_THE_BEST not in {record["outcome"] for record in records}
    assert seen >= 2


def test_a_chart_s_data_table_shows_what_its_tooltips_show():
    charts.use_book_style()
    frame = pd.DataFrame(
        {
            "case": ["Offline", "Server", "Interactive"],
            "measured": [1.5, 2.0, 3.0],
            "claimed": [3.0, 3.0, 3.0],
        }
    ).assign(outcome=["holds"] * 3, detail=["a", "b", "c"])
    spec = charts.case_chart(frame, "Title", "A description of the chart.", "x", 3.0).to_dict()
    table = charts.data_table_html(spec)
    assert re.findall(r"<th scope=\"col\">([^<]+)</th>", table) == ["Case", "Measured", "Results compared"]


def test_a_case_s_claimed_figure_is_said_as_the_claim_writes_it_where_the_case_has_it():
    """The tick's tooltip: "18%" as a claim writes it, not "+18.0%"; a case with no written figure
    gives its claimed figure in the case's unit."""
    from claimbook.engine.kinds import Bar

    charts.use_book_style()
    bars = [Bar("Offline", 17.6, 18.0, True, "a", "18%"), Bar("Server", 7.3, 7.0, True, "b")]
    spec = charts.case_chart(claim_pages.bars_frame(bars), "Title", "A description.", "%").to_dict()
    said = {
        row["case"]: row["claimed_text"]
        for rows in spec["datasets"].values()
        for row in rows
        if "claimed_text" in row
    }
    assert said == {"Offline": "18%", "Server": "+7.0%"}


# -- the explorer -----------------------------------------------------------------------------------
def test_the_explorer_s_controls_title_and_axis_follow_the_data(data):
    charts.use_book_style()
    spec = explorer.explorer_chart(data.results, data.reference).to_dict()
    params = {param["name"]: param for param in spec["params"]}
    names = [param["name"] for param in spec["params"] if "bind" in param]
    assert names[:4] == ["benchmark", "scenario", "measure", "page"]
    benchmarks = sorted(set(data.results["benchmark"]))
    assert params["benchmark"]["bind"]["options"] == benchmarks
    assert params["benchmark"]["bind"]["labels"] == [data.reference.display_name(name) for name in benchmarks]
    # every page of results reachable: as many pages as the largest benchmark and scenario needs
    largest = data.results.groupby(["benchmark", "scenario"]).size().max()
    assert len(params["page"]["bind"]["options"]) == math.ceil(largest / explorer.PAGE)
    # the unit of every benchmark and scenario, for the axis
    expected = {
        f"{benchmark} {scenario}": units
        for (benchmark, scenario), units in data.results.groupby(["benchmark", "scenario"])["units"]
        .first()
        .items()
    }
    assert params["units"]["value"] == expected
    assert set(data.results.groupby(["benchmark", "scenario"])["units"].nunique()) == {1}
    assert "expr" in spec["title"]["text"] and "units[" in spec["usermeta"]["axis_titles"]["top"]
    # the legend lists the families of the benchmark and scenario shown, recomputed from the rows
    families = {
        f"{benchmark} {scenario}": sorted({data.reference.short_name(name) for name in rows})
        for (benchmark, scenario), rows in data.results.groupby(["benchmark", "scenario"])["family"]
    }
    assert params["families"]["value"] == families
    assert spec["encoding"]["color"]["legend"]["values"] == {"expr": "families[benchmark + ' ' + scenario]"}
    # the chart's label starts with the title it first draws
    first = data.reference.display_name("deepseek-r1")
    assert spec["usermeta"]["title"].startswith(f"{first}, Offline")
    assert f'aria-label="{first}, Offline' in charts.embed_html(spec)
    assert isinstance(spec["height"], int)  # (a height by step warns in a chart as wide as its column)


def test_no_chart_sizes_by_an_unsorted_category(data, checks):
    """Vega-Lite warns of a size channel on a nominal field: every chart's is ordinal."""
    charts.use_book_style()
    for check in checks.values():
        for leaf in check.parts or (check,):
            for spec in engine.KINDS[leaf.claim.kind].charts(leaf, data):
                text = json.dumps(claim_pages.render(spec, data.reference, leaf).to_dict())
                assert not re.search(r'"size": \{"field": "[^"]+", [^}]*"type": "nominal"', text), (
                    leaf.claim.id
                )


def test_a_mixed_system_s_legend_entry_says_it_is_a_system_with_both():
    """A family whose short name joins two accelerators ("H200 + MI350X") is labelled as a system
    with both in every legend of the book (the reference has such families)."""
    from claimbook.inputs.reference import load_reference

    mixed = [
        name for name in load_reference(ROOT / "data" / "reference").families()["short_name"] if " + " in name
    ]
    assert mixed, "the reference has no mixed family: the check saw nothing"
    legend = charts.family_legend().to_dict()
    assert legend["labelExpr"] == charts.MIXED_LABEL
    assert "indexof(datum.label, ' + ') >= 0" in legend["labelExpr"]
    assert "[datum.label + ':', 'a system with both']" in legend["labelExpr"]


def test_the_book_s_own_terms_link_to_their_definition_once_and_never_inside_a_link():
    inferred = engine.caveats.BY_CODE["inferred"]
    markup = (
        f'<a href="x">an {inferred.label}</a> then an {inferred.label} and an {inferred.label}; '
        "figures derived by this book"
    )
    linked = blocks.defined_terms(markup, "../../")
    assert linked.count('class="claimbook-term"') == 2
    assert (
        f'href="../../method.html#caveat-inferred" title="{blocks.escape(inferred.explanation)}">' in linked
    )
    assert linked.startswith(f'<a href="x">an {inferred.label}</a> then an <a class="claimbook-term"')
    assert f"</a> and an {inferred.label}; figures " in linked  # the first use only
    assert 'href="../../method.html#caveat-derived-metric"' in linked


def _committed_html() -> list[tuple[str, str]]:
    """Every HTML output of the committed executed pages, by page."""
    found = []
    for path in sorted((ROOT / "book" / "generated").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                found.append((path.name, "".join(output.get("data", {}).get("text/html", ""))))
    return found


def test_every_caveat_label_and_term_on_a_page_links_to_its_definition():
    """On every committed page, each caveat badge is a link to its own entry of the method page
    (which has that entry), and each of the book's own terms in a card's prose is inside a link."""
    vocabulary = (ROOT / "book" / "generated" / "caveats.md").read_text(encoding="utf-8")
    badges = terms = 0
    for page, markup in _committed_html():
        for match in re.finditer(r'<(\w+)\b([^>]*class="claimbook-caveat[ "][^>]*)>([^<]*)<', markup):
            tag, attributes, label = match.groups()
            assert tag == "a", (page, match.group(0))
            code = re.search(r'href="[^"]*method\.html#caveat-([\w-]+)"', attributes).group(1)
            assert f'id="caveat-{code}"' in vocabulary, (page, code)
            assert label.startswith(engine.caveats.BY_CODE[code].label), (page, label)
            badges += 1
        outside = re.sub(r"<a\b.*?</a>", "", markup, flags=re.DOTALL)
        for code in blocks.TERMS:
            label = engine.caveats.BY_CODE[code].label
            if label in markup:
                terms += 1
                assert markup.count(label) > outside.count(label), (page, label)
    assert badges and terms, "no caveat badge or term on any page: the check saw nothing"


def test_tables_that_put_announcements_side_by_side_name_each_one_s_publisher_and_round(data, checks):
    from claimbook.engine import crossref

    checks = {claim_id: crossref.seen(check, data.registry) for claim_id, check in checks.items()}
    table = crossref.rival_comparisons(checks, data)
    assert not table.empty
    for row in table.itertuples():
        announcement = data.registry.announcements[data.registry.claim(row[2]).announcement]
        assert row.Announcement == f"{announcement.publisher} ({announcement.round})"
    meetings = crossref.meeting_points(checks, data)
    assert meetings
    for meeting in meetings:
        sides = crossref.sides_table(meeting, data.registry)
        expected = {
            f"{data.registry.announcements[key].publisher} ({data.registry.announcements[key].round})"
            for key in meeting.sides
        }
        assert set(sides["Announcement"]) == expected
