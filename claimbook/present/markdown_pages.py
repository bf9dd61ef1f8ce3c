"""The pages the build writes from the scorecard and the registry: the front page (the ledger of
every claim), one page per announcement, the caveat vocabulary and the reference of claim
kinds, and the book's table of contents.

Pages are Markdown whose data-driven parts are plain HTML blocks (CommonMark's, which every
Markdown builder passes through, not one builder's directive), written by the autoescaping
templates of ``present/templates`` (``present.templating``), so markup in a results file or a
registry shows as text; Markdown text from data passes through ``blocks.markdown_text``. Every
link to another page of the book comes from ``present.links``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pandas as pd
import yaml

from claimbook.claims import fields as claim_fields
from claimbook.claims.coverage import recorded_count
from claimbook.common import formatting
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, TOC_HEADER
from claimbook.engine import caveats
from claimbook.engine.verdict import VERDICTS
from claimbook.inputs.earlier import round_order
from claimbook.inputs.rules import location_parts
from claimbook.present import blocks, links
from claimbook.present.coverage_block import coverage_html
from claimbook.present.templating import macros, render, trusted

_LEDGER = macros("ledger.html")
_DETAILS = macros("details.html")


def evidence_locations(evidence) -> list[str]:
    """The results' Locations a scorecard row's ``evidence`` lists (joined by "; "), each a
    result's folder by ingest's rule (``inputs.rules.location_parts``): a Location is linked only
    when it is one, and whole (an organization's folder may hold a space: "Naeem Khoshnevis")."""
    # A sum's results are joined by " + " (a cluster of two systems): each its own folder.
    parts = [item for part in str(evidence or "").split("; ") for item in part.split(" + ")]
    return [part for part in parts if location_parts(part) is not None]


def html_block(markup: str) -> str:
    """``markup`` as a Markdown HTML block: it opens with a tag at the start of a line and holds
    no blank line (which would end it), so any CommonMark builder passes it through as HTML."""
    body = "\n".join(line for line in markup.splitlines() if line.strip())
    return render("block.html", body=trusted(body))


def _rows_by_claim(rows: list[dict]) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for row in rows:
        found.setdefault(row["claim"], []).append(row)
    return found


def verdict_of(rows: list[dict]) -> str:
    verdicts = {row["verdict"] for row in rows}
    if len(verdicts) != 1:
        raise ValueError(
            f"claim {rows[0]['claim']} has rows with different verdicts: {', '.join(sorted(verdicts))}"
        )
    return verdicts.pop()


def ledger_entries(rows: list[dict], registry) -> list[dict]:
    """One entry per top-level claim, in registry order; a claim with no row is an error."""
    by_claim = _rows_by_claim(rows)
    missing = [claim.id for claim in registry.all_claims() if claim.id not in by_claim]
    if missing:
        raise ValueError(f"no verdict in the scorecard for claim(s) {', '.join(missing)}")
    entries = []
    for claim in registry.claims:
        claim_rows = by_claim[claim.id]
        first = claim_rows[0]
        entries.append(
            {
                "claim": claim,
                "verdict": verdict_of(claim_rows),
                "reason": first["reason"],
                "range": first["range"],
                "caveats": first["caveats"],
                "spread": blocks.spread_of(
                    claim, [(row["scenario"], row["measured"], row["unit"]) for row in claim_rows]
                ),
                "acknowledged": first.get("acknowledged") or [],
                "evidence": sorted(
                    {location for row in claim_rows for location in evidence_locations(row.get("evidence"))}
                ),
                "parts": [
                    {
                        "claim": part,
                        "verdict": verdict_of(by_claim[part.id]),
                        "reason": by_claim[part.id][0]["reason"],
                        "caveats": by_claim[part.id][0]["caveats"],
                    }
                    for part in claim.parts
                ],
            }
        )
    return entries


def tally(entries: list[dict]) -> dict[str, int]:
    counts = Counter(entry["verdict"] for entry in entries)
    return {verdict: counts.get(verdict, 0) for verdict in VERDICTS}


def _results_used(locations: list[str], round_name: str, results, names) -> str:
    """The published results a claim rests on, each link labelled with its system and scenario."""
    if not locations:
        return ""
    rows = _rows_by_location(results) if results is not None and not results.empty else {}
    labelled = []
    for location in locations:
        row = rows.get(location)
        if row is not None:
            label = f"{names.name(row.organization, row.system)}, {row.benchmark} {row.scenario}"
        else:  # the folder says it: ./division/organization/results/system/benchmark/scenario
            parts = location.strip("./").split("/")
            label = " ".join(parts[1:2] + parts[3:]) or location
        # Each result in its own round's repository (an earlier round's result beside this one's).
        own_round = str(row.round) if row is not None else round_name
        labelled.append({"href": blocks.provenance_url(own_round, location), "label": label})
    return str(_LEDGER.results(labelled))


def _rows_by_location(results) -> dict:
    """Each result of ``results`` by its folder, made once per table (every ledger line asks)."""
    from claimbook.common.frame_memo import memo

    kept = memo(results)
    if "rows by location" not in kept:
        columns = ["location", "round", "organization", "system", "benchmark", "scenario"]
        rows = results[columns].itertuples(index=False)
        kept["rows by location"] = {row.location: row for row in rows}
    return kept["rows by location"]


def _entry(entry: dict, registry, round_name: str, prefix: str, results=None, names=blocks.PLAIN) -> dict:
    """One line of the ledger: the verdict, the claim's title linked to its card, the measured
    range; the claim, the finding, caveats, parts and results used one click away (what
    ``templates/ledger.html`` writes)."""
    claim = entry["claim"]
    parts = [
        {
            "badge": trusted(blocks.badge(part["verdict"])),
            "statement": part["claim"].statement,
            "caveats": trusted(blocks.caveat_badges(part["caveats"], prefix) if part["caveats"] else ""),
        }
        for part in entry["parts"]
    ]
    return {
        "claim_id": claim.id,
        "verdict": entry["verdict"],
        "badge": trusted(blocks.badge(entry["verdict"])),
        "heading": trusted(blocks.claim_heading(claim, registry, prefix)),
        "range": entry["range"],
        "statement": claim.statement,
        "finding": trusted(names.html(entry["reason"])),
        "caveats": trusted(_caveats_of(entry, prefix)),
        "parts": parts,
        "results": trusted(_results_used(entry["evidence"], round_name, results, names)),
        "link": links.claim(claim, registry, prefix),
    }


def _caveats_of(entry: dict, prefix: str) -> str:
    return blocks.caveat_badges(entry["caveats"], prefix, entry["acknowledged"]) if entry["caveats"] else ""


def _tally_html(entries_by_announcement: dict, registry, prefix: str) -> str:
    """How many claims have each verdict: a row per verdict, a column per announcement (headed by
    its publisher and round) and one for all (so the verdicts stay in view on a phone however many
    announcements there are)."""
    heads = [
        {
            "href": links.announcement(announcement_id, prefix),
            "title": registry.announcements[announcement_id].title,
            "publisher": registry.announcements[announcement_id].publisher,
            "round": registry.announcements[announcement_id].round,
        }
        for announcement_id in entries_by_announcement
    ]
    counts = {key: tally(entries) for key, entries in entries_by_announcement.items()}
    every = [entry for entries in entries_by_announcement.values() for entry in entries]
    rows = [
        {
            "badge": trusted(blocks.badge(verdict)),
            "counts": [counts[key][verdict] for key in entries_by_announcement] + [tally(every)[verdict]],
        }
        for verdict in VERDICTS
    ]
    totals = [len(entries) for entries in entries_by_announcement.values()] + [len(every)]
    return render("tally.html", heads=heads, rows=rows, totals=totals)


def used_results(rows: list[dict], results):
    """The published results a set of scorecard rows rests on."""
    locations = {location for row in rows for location in evidence_locations(row.get("evidence"))}
    return results[results["location"].isin(locations)]


def front_page(
    rows: list[dict], registry, round_name: str, citation: str = "", results=None, ledger=None
) -> str:
    """The front page: the tally per announcement, then the ledger, one line a claim grouped by
    round (newest first) and announcement (verdicts in order), its details a click away.
    ``results`` names the systems as readers know them; ``round_name``: the round of an
    announcement that names none; ``ledger``: ``ledger_entries(rows, registry)``, where made already."""
    entries = ledger_entries(rows, registry) if ledger is None else ledger
    found: dict[str, list[dict]] = {}
    for entry in entries:
        found.setdefault(entry["claim"].announcement, []).append(entry)
    by_announcement = {
        announcement_id: found[announcement_id]
        for announcement_id in newest_round_first(found, registry, round_name)
    }
    rounds = list(dict.fromkeys(_round_of(registry, key, round_name) for key in by_announcement))
    names = blocks.system_names(results)
    total = tally(entries)
    summary = ", ".join(f"{count} {verdict}" for verdict, count in total.items() if count)
    sections = []
    for round_label in rounds:
        sections.append(f"## MLPerf Inference {blocks.markdown_text(round_label)}\n")
        for announcement_id, announcement_entries in by_announcement.items():
            if _round_of(registry, announcement_id, round_name) == round_label:
                sections += _announcement_section(
                    announcement_id, announcement_entries, registry, round_label, results, names
                )
    checked = " and ".join(blocks.escape(name) for name in rounds) or blocks.escape(round_name)
    return (
        "<!-- Generated by `python -m claimbook build` from the scorecard; do not edit by hand. -->\n\n"
        f"Of {formatting.plural(len(entries), 'claim')} checked against the MLPerf Inference {checked} "
        f"results{' (each claim on its own round)' if len(rounds) > 1 else ''}: {summary}.\n\n"
        + html_block(_tally_html(by_announcement, registry, ""))
        + "Each line below is a claim: its verdict, its title (a link to its card and evidence) and the figures "
        "measured; open a line for the claim, the finding and the results it rests on. The full scorecard, one "
        "row per claim and case, downloads as "
        f"{{download}}`CSV <{GENERATED_DIR}/scorecard.csv>` or "
        f"{{download}}`JSON <{GENERATED_DIR}/scorecard.json>`.\n\n"
        + "\n".join(sections)
        + ("\n## Sources\n\n" + html_block(citation) if citation else "")
    )


def _round_of(registry, announcement_id: str, default: str) -> str:
    return str(registry.announcements[announcement_id].round or default)


def newest_round_first(announcement_ids, registry, default: str) -> list[str]:
    """Announcements grouped by round, the newest round first (v6.1 before v5.1), each round's in
    the registry's order."""
    from claimbook.inputs.earlier import round_order

    return sorted(
        announcement_ids, key=lambda key: round_order(_round_of(registry, key, default)), reverse=True
    )


def _announcement_section(announcement_id, entries, registry, round_name, results, names) -> list[str]:
    """An announcement's part of the ledger: its heading, its counts, a line per claim."""
    announcement = registry.announcements[announcement_id]
    ordered = sorted(entries, key=lambda entry: VERDICTS.index(entry["verdict"]))
    return [
        f"### {blocks.markdown_text(announcement.title)}\n",
        f"{blocks.markdown_text(announcement.publisher)}, {blocks.markdown_text(announcement.date)}: "
        f"{formatting.plural(len(entries), 'claim')}; "
        + ", ".join(f"{count} {verdict}" for verdict, count in tally(entries).items() if count)
        + f". [The announcement's chapter]({GENERATED_DIR}/{announcement_id}.md).\n",
        html_block(
            str(
                _LEDGER.ledger(
                    announcement.title,
                    [_entry(entry, registry, round_name, "", results, names) for entry in ordered],
                )
            )
        ),
    ]


def _announcement_header(announcement) -> list[str]:
    """The chapter's title and who said what, when and where (its source linked)."""
    text = blocks.markdown_text
    source = (
        # An inline element of the book's own: its address (an http or https link, checked by the
        # registry) escaped for the attribute; its label, which MyST reads as Markdown, as text.
        str(
            _DETAILS.source_link(
                announcement.source_url, trusted(text(announcement.source_label or announcement.source_url))
            )
        )
        if announcement.source_url
        else text(announcement.source_label)
    )
    return [
        f"# {text(announcement.title)}\n",
        "<!-- Generated by `python -m claimbook build` from the registry and the scorecard. -->\n",
        (
            f"**Who:** {text(announcement.publisher)}. **When:** {text(announcement.date)}. **Round:** MLPerf "
            f"Inference {text(announcement.round)}. **Source:** {source}. The claims are paraphrased; their "
            "figures are kept.\n"
        ),
    ]


def _announcement_card(entry: dict, registry, checks: dict, names) -> str:
    """A claim's card on its announcement's chapter: the whole card where the claim has no page
    of its own (no data bears on it), else its summary linking to the page."""
    claim = entry["claim"]
    check = checks.get(claim.id) if not claim.chapter and not registry.has_page(claim) else None
    if check is not None:
        return blocks.card(check, "../", registry=registry, names=names)
    return _summary_card(entry, registry, names)


def announcement_page(
    announcement, rows: list[dict], registry, checks: dict, citation: str = "", results=None, ledger=None
) -> str:
    """One announcement's chapter: who said what and where, its tally, and every claim with its
    verdict and a link to the page that shows the work; claims no data bears on are shown here.
    ``results`` names the systems as readers know them; ``ledger``: ``ledger_entries(rows,
    registry)``, where made already (every announcement's page reads the same)."""
    names = blocks.system_names(results)
    every = ledger_entries(rows, registry) if ledger is None else ledger
    entries = [entry for entry in every if entry["claim"].announcement == announcement.id]
    counts = tally(entries)
    text = blocks.markdown_text
    lines = _announcement_header(announcement)
    if announcement.note:
        lines.append(f"{text(announcement.note)}\n")
    lines.append(
        "**Verdicts:** "
        + ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count)
        + f" (of {formatting.plural(len(entries), 'claim')}).\n"
    )
    counted = None
    if announcement.path:  # data/claims/ID.yaml: the count is in data/coverage/ID.csv
        counted = recorded_count(
            Path(announcement.path).resolve().parent.parent / "coverage", announcement.id
        )
    lines.append(html_block(coverage_html(announcement, len(entries), counted)))
    lines.append(html_block("".join(_announcement_card(entry, registry, checks, names) for entry in entries)))
    lines.append(
        "\n## Sources\n\n" + html_block(citation or blocks.citation(None, announcement, {}, derived=True))
    )
    return "\n".join(lines)


def fenced(text: str, info: str) -> str:
    """``text`` in a code fence longer than any run of backticks inside it, so no line of the
    text (a registry's, say) can close the fence and start markup of its own."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}\n"


def _summary_card(entry: dict, registry, names=blocks.PLAIN) -> str:
    """A claim's card in short, on its announcement's page: its title links to the full card."""
    claim = entry["claim"]
    return render(
        "summary_card.html",
        anchor=links.card_anchor(claim.id),
        verdict=entry["verdict"],
        claim_id=claim.id,
        heading=trusted(blocks.claim_heading(claim, registry, "../")),
        badge=trusted(blocks.badge(entry["verdict"])),
        spread=trusted(blocks.spread_html(entry.get("spread", ""))),
        statement=claim.statement,
        finding=trusted(names.html(entry["reason"])),
        range=entry["range"],
        caveats=trusted(_caveats_of(entry, "../")),
        link=links.claim(claim, registry, "../"),
    )


def caveats_page() -> str:
    """The caveat vocabulary, one anchor per code (the badges link here)."""
    items = [
        {
            "code": caveat.code,
            "label": caveat.label,
            "kind": "qualifies a verdict" if caveat.qualifies else "labels a figure",
            "explanation": caveat.explanation,
        }
        for caveat in caveats.VOCABULARY
    ]
    return html_block(render("vocabulary.html", items=items))


def power_page(results: pd.DataFrame) -> str:
    """What each round the book holds has of MLPerf's measured power (the method page's), from
    the results (``economics.power_sentences``)."""
    from claimbook.engine.economics import power_sentences

    return html_block("".join(blocks.paragraph(sentence) for sentence in power_sentences(results)))


def field_table(fields, required=()) -> pd.DataFrame:
    """Fields as the how-to page lists them: name, required or not, meaning, the allowed values,
    and the claims that use it (a field set on any other is a registry error)."""
    return pd.DataFrame(
        [
            {
                "Field": item.name,
                "Required": "yes" if item.name in required else "",
                "Meaning": blocks.prose_text(item.meaning or "—"),
                "Values": blocks.prose_text(
                    "; ".join(f"{value}: {meaning}" for value, meaning in item.values.items())
                ),
                "Used with": blocks.prose_text(getattr(item, "needs", "") or "any claim of the kind"),
            }
            for item in fields
        ],
        columns=["Field", "Required", "Meaning", "Values", "Used with"],
    )


def quantifier_table() -> pd.DataFrame:
    """Every word a claim's ``quantifier`` may be, as the registry writes it, its rule, the cases
    that must hold unless the claim says, and an example (``claimbook.engine.quantifiers``)."""
    from claimbook.engine import quantifiers

    return pd.DataFrame(
        [
            {
                "Written": f"quantifier: {word}" + (", within: N" if word == quantifiers.WITHIN else ""),
                "Its rule": rule.meaning,
                "Cases unless it says": rule.cases,
                "Example": rule.example,
            }
            for word, rule in quantifiers.RULES.items()
        ],
        columns=["Written", "Its rule", "Cases unless it says", "Example"],
    )


def kinds_page(registry) -> str:
    """Every kind of claim the engine knows: what it checks, its fields, a real example of each
    from the registries, and what a mistake looks like."""
    from claimbook import engine
    from claimbook.present import scaffold

    rows = []
    for name, spec in engine.SPECS.items():
        rows.append(
            {
                "Kind": name,
                "What it checks": blocks.prose_text(spec.description),
                "Required fields": ", ".join(spec.required_names()) or "—",
                "Optional fields": ", ".join(spec.optional_names()),
            }
        )
    parts = [
        html_block(blocks.table_html(pd.DataFrame(rows), "The kinds of claim and their fields")),
        "### The words a quantifier may be\n",
        (
            "A figure's `quantifier` is the vendor's word on it, read one way in every kind (the method page "
            "gives each rule); `cases` says which cases must hold (`best` or `every`), apart from the word.\n"
        ),
        html_block(blocks.table_html(quantifier_table(), "The words a claim's quantifier may be")),
        "### The fields\n",
        html_block(blocks.table_html(field_table(claim_fields.COMMON), "The fields every claim may have")),
    ]
    for name, spec in engine.SPECS.items():
        table = field_table(spec.fields, spec.required_names())
        parts.append(
            html_block(blocks.table_html(table, f"The fields of {formatting.with_article(name)} claim"))
        )
    parts.append("### An example of each kind\n")
    for kind, entry in scaffold.kind_examples(registry).items():
        module = engine.KINDS[kind]
        doc = (module.__doc__ or "").split("\n\n")[0]
        parts.append(html_block(str(_DETAILS.kind_doc(trusted(blocks.prose_html(doc))))))
        parts.append(fenced(yaml.safe_dump([entry], sort_keys=False, width=100, allow_unicode=True), "yaml"))
    parts.append("### Mistakes and their messages\n")
    for what, entry, message in scaffold.mistakes():
        parts.append(f"With {what}:\n")
        parts.append(fenced(yaml.safe_dump([entry], sort_keys=False, width=100), "yaml"))
        parts.append(fenced(message, "text"))
    return "\n".join(parts)


def toc(registry, chapters_built, pages_built, extra_chapters) -> str:
    """The book's table of contents: one part per round, newest first, with one chapter per
    announcement of it (its narrative chapters, then a page per claim), then the pages about the
    whole round and the method."""
    pages = f"{BOOK_DIR}/{GENERATED_DIR}"  # the toc lies at the project's root, beside book/
    by_round: dict[str, list] = {}
    for announcement_id, announcement in registry.announcements.items():
        sections = [
            {"file": f"{pages}/{name}"}
            for name in chapters_built
            if any(
                claim.chapter == name and claim.announcement == announcement_id for claim in registry.claims
            )
        ]
        sections += [
            {"file": f"{pages}/{announcement_id}/{claim.id}"}
            for claim in registry.page_claims()
            if claim.announcement == announcement_id and claim.id in pages_built
        ]
        entry = {"file": f"{pages}/{announcement_id}"}
        if sections:
            entry["sections"] = sections
        by_round.setdefault(str(announcement.round), []).append(entry)
    rounds = sorted(by_round, key=round_order, reverse=True)
    document = {
        "format": "jb-book",
        "root": f"{BOOK_DIR}/index",
        "parts": [
            *({"caption": f"The {name} announcements", "chapters": by_round[name]} for name in rounds),
            {"caption": "The round", "chapters": [{"file": f"{pages}/{name}"} for name in extra_chapters]},
            {
                "caption": "Method",
                "chapters": [{"file": f"{BOOK_DIR}/method"}, {"file": f"{BOOK_DIR}/howto"}],
            },
        ],
    }
    if not extra_chapters:
        document["parts"].pop(len(rounds))
    return TOC_HEADER + "\n" + yaml.safe_dump(document, sort_keys=False)
