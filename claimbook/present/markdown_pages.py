"""The pages the build writes from the scorecard and the registry: the front page (the ledger of
every claim), one page per announcement, the caveat vocabulary and the reference of claim
kinds, and the book's table of contents.

Pages are MyST Markdown whose data-driven parts are raw HTML blocks; every text that comes from
data passes through ``blocks.escape``, so markup in a results file or a registry shows as text.
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd
import yaml

from claimbook.claims import fields as claim_fields
from claimbook.common import formatting
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, TOC_HEADER
from claimbook.engine import caveats
from claimbook.engine.verdict import VERDICTS
from claimbook.present import blocks, charts
from claimbook.present.coverage_block import coverage_html

LOCATION = re.compile(r"\./(?:closed|open)/[^\s;,)]+")


def raw(markup: str) -> str:
    return f"```{{raw}} html\n{markup}\n```\n"


def claim_link(claim, registry, prefix: str = "") -> str:
    """Where a claim is shown: its chapter, its own page, or its announcement's page."""
    if claim.parent:
        claim = registry.claim(claim.parent)
    if claim.chapter:
        return f"{prefix}{GENERATED_DIR}/{claim.chapter}.html"
    if claim in registry.page_claims():
        return f"{prefix}{GENERATED_DIR}/{claim.announcement}/{claim.id}.html"
    return f"{prefix}{GENERATED_DIR}/{claim.announcement}.html#claim-{claim.id}"


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
                "acknowledged": first.get("acknowledged") or [],
                "evidence": sorted(
                    {
                        location
                        for row in claim_rows
                        for location in LOCATION.findall(row.get("evidence") or "")
                    }
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


def _entry_html(entry: dict, registry, round_name: str, prefix: str) -> str:
    claim = entry["claim"]
    link = claim_link(claim, registry, prefix)
    results = [
        f'<a href="{blocks.escape(blocks.provenance_url(round_name, location))}">{index}</a>'
        for index, location in enumerate(entry["evidence"][:6], start=1)
    ]
    more = f" (+{len(entry['evidence']) - 6})" if len(entry["evidence"]) > 6 else ""
    parts = "".join(
        f"<li>{blocks.badge(part['verdict'])} {blocks.escape(part['claim'].statement)}"
        f"{' ' + blocks.caveat_badges(part['caveats'], prefix) if part['caveats'] else ''}</li>"
        for part in entry["parts"]
    )
    figures = (
        f'<p class="claimbook-range"><strong>Measured:</strong> {blocks.escape(entry["range"])}</p>'
        if entry["range"]
        else ""
    )
    return (
        f'<li class="claimbook-ledger-item" id="ledger-{blocks.escape(claim.id)}" data-verdict="{blocks.escape(entry["verdict"])}">'
        f'<p class="claimbook-ledger-claim"><a href="{blocks.escape(link)}">{blocks.escape(claim.statement)}</a></p>'
        f'<p class="claimbook-ledger-meta">{blocks.badge(entry["verdict"])} <code>{blocks.escape(claim.id)}</code></p>'
        f'<p class="claimbook-finding">{blocks.escape(entry["reason"])}</p>{figures}'
        + (
            f'<p class="claimbook-caveats">{blocks.caveat_badges(entry["caveats"], prefix, entry["acknowledged"])}</p>'
            if entry["caveats"]
            else ""
        )
        + (f'<ul class="claimbook-parts">{parts}</ul>' if parts else "")
        + (
            f'<p class="claimbook-ledger-results">Results used: {", ".join(results)}{more}</p>'
            if results
            else ""
        )
        + "</li>"
    )


def _tally_html(entries_by_announcement: dict, registry, prefix: str) -> str:
    head = "".join(f'<th scope="col" class="num">{blocks.badge(verdict)}</th>' for verdict in VERDICTS)
    body = []
    for announcement_id, entries in entries_by_announcement.items():
        announcement = registry.announcements[announcement_id]
        counts = tally(entries)
        source = (
            f' · <a href="{blocks.escape(announcement.source_url)}">source</a>'
            if announcement.source_url
            else ""
        )
        body.append(
            f'<tr><th scope="row"><a href="{prefix}{GENERATED_DIR}/{blocks.escape(announcement_id)}.html">'
            f"{blocks.escape(announcement.title)}</a> ({blocks.escape(announcement.date)}){source}</th>"
            + "".join(f'<td class="num">{counts[verdict]}</td>' for verdict in VERDICTS)
            + f'<td class="num">{len(entries)}</td></tr>'
        )
    return (
        f'<div class="claimbook-scroll" role="region" tabindex="0" aria-label="Verdicts per announcement">'
        f'<table class="claimbook-table claimbook-tally"><caption>Verdicts per announcement</caption><thead><tr>'
        f'<th scope="col">Announcement</th>{head}<th scope="col" class="num">Claims</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _counts_chart(entries_by_announcement: dict, registry) -> str:
    records = []
    for announcement_id, entries in entries_by_announcement.items():
        counts = tally(entries)
        for verdict in VERDICTS:
            icon, word, _ = blocks.BADGES[verdict]
            records.append(
                {
                    "announcement": registry.announcements[announcement_id].publisher,
                    "verdict": word,
                    "verdict_label": f"{icon} {word}",
                    "claims": counts[verdict],
                }
            )
    if not records:  # a book of pages of the round alone (--only explorer): no claim to count
        return ""
    charts.use_book_style()
    chart = charts.verdict_counts_chart(
        pd.DataFrame(records),
        "How many claims hold, per announcement",
        "Bar chart of the number of claims with each verdict, one bar per announcement.",
    )
    spec = chart.to_dict()
    return charts.embed_html(spec) + charts.data_table_html(spec)


def used_results(rows: list[dict], results):
    """The published results a set of scorecard rows rests on."""
    locations = {location for row in rows for location in LOCATION.findall(row.get("evidence") or "")}
    return results[results["location"].isin(locations)]


def front_page(rows: list[dict], registry, round_name: str, citation: str = "") -> str:
    """The ledger: the tally per announcement, a chart of it, and every claim grouped by
    announcement and verdict, claim text first."""
    entries = ledger_entries(rows, registry)
    by_announcement: dict[str, list[dict]] = {}
    for entry in entries:
        by_announcement.setdefault(entry["claim"].announcement, []).append(entry)
    total = tally(entries)
    summary = ", ".join(f"{count} {verdict}" for verdict, count in total.items() if count)
    sections = []
    for announcement_id, announcement_entries in by_announcement.items():
        announcement = registry.announcements[announcement_id]
        sections.append(f"## {blocks.markdown_text(announcement.title)}\n")
        sections.append(
            f"{formatting.plural(len(announcement_entries), 'claim')}: "
            + ", ".join(
                f"{count} {verdict}" for verdict, count in tally(announcement_entries).items() if count
            )
            + f". [The announcement's chapter]({GENERATED_DIR}/{announcement_id}.md).\n"
        )
        for verdict in VERDICTS:
            group = [entry for entry in announcement_entries if entry["verdict"] == verdict]
            if not group:
                continue
            sections.append(f"### {verdict[:1].upper() + verdict[1:]} ({len(group)})\n")
            sections.append(
                raw(
                    '<ul class="claimbook-ledger">'
                    + "".join(_entry_html(entry, registry, round_name, "") for entry in group)
                    + "</ul>"
                )
            )
    return (
        "<!-- Generated by `python -m claimbook build` from the scorecard; do not edit by hand. -->\n\n"
        f"Of {formatting.plural(len(entries), 'claim')} checked against the MLPerf Inference {blocks.escape(round_name)} "
        f"results: {summary}.\n\n"
        + raw(_tally_html(by_announcement, registry, "") + _counts_chart(by_announcement, registry))
        + "\nThe full scorecard, one row per claim and case, downloads as "
        f"{{download}}`CSV <{GENERATED_DIR}/scorecard.csv>` or "
        f"{{download}}`JSON <{GENERATED_DIR}/scorecard.json>`.\n\n"
        + "\n".join(sections)
        + ("\n## Sources\n\n" + raw(citation) if citation else "")
    )


def announcement_page(announcement, rows: list[dict], registry, checks: dict, citation: str = "") -> str:
    """One announcement's chapter: who said what and where, its tally, and every claim with its
    verdict and a link to the page that shows the work; claims no data bears on are shown here."""
    entries = [
        entry for entry in ledger_entries(rows, registry) if entry["claim"].announcement == announcement.id
    ]
    counts = tally(entries)
    text = blocks.markdown_text
    source = (
        # An inline element of the book's own: its address (an http or https link, checked by the
        # registry) escaped for the attribute; its label, which MyST reads as Markdown, as text.
        f'<a class="reference external" href="{blocks.escape(announcement.source_url)}">'
        f"{text(announcement.source_label or announcement.source_url)}</a>"
        if announcement.source_url
        else text(announcement.source_label)
    )
    lines = [
        f"# {text(announcement.title)}\n",
        "<!-- Generated by `python -m claimbook build` from the registry and the scorecard. -->\n",
        (
            f"**Who:** {text(announcement.publisher)}. **When:** {text(announcement.date)}. **Round:** MLPerf "
            f"Inference {text(announcement.round)}. **Source:** {source}. The claims are paraphrased; their "
            "figures are kept.\n"
        ),
    ]
    if announcement.note:
        lines.append(f"{text(announcement.note)}\n")
    lines.append(
        "**Verdicts:** "
        + ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count)
        + f" (of {formatting.plural(len(entries), 'claim')}).\n"
    )
    lines.append(raw(coverage_html(announcement, len(entries))))
    cards = []
    for entry in entries:
        claim = entry["claim"]
        check = checks.get(claim.id) if not claim.chapter and claim not in registry.page_claims() else None
        link = claim_link(claim, registry, "../")
        if check is not None:
            cards.append(f'<div id="claim-{blocks.escape(claim.id)}">' + blocks.card(check, "../") + "</div>")
        else:
            cards.append(
                f'<div id="claim-{blocks.escape(claim.id)}">' + _summary_card(entry, link) + "</div>"
            )
    lines.append(raw("".join(cards)))
    lines.append("\n## Sources\n\n" + raw(citation or blocks.citation(None, announcement, {}, derived=True)))
    return "\n".join(lines)


def fenced(text: str, info: str) -> str:
    """``text`` in a code fence longer than any run of backticks inside it, so no line of the
    text (a registry's, say) can close the fence and start markup of its own."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}\n"


def _summary_card(entry: dict, link: str) -> str:
    claim = entry["claim"]
    return (
        f'<div class="claimbook-card" data-verdict="{blocks.escape(entry["verdict"])}" data-claim="{blocks.escape(claim.id)}">'
        f'<p class="claimbook-card-title"><a href="{blocks.escape(link)}">{blocks.escape(claim.get("title") or claim.id)}</a> '
        f"{blocks.badge(entry['verdict'])}</p>"
        f'<p class="claimbook-claim"><em>The claim:</em> {blocks.escape(claim.statement)}</p>'
        f'<p class="claimbook-finding"><em>What the results show:</em> {blocks.escape(entry["reason"])}</p>'
        + (
            f'<p class="claimbook-range"><strong>Measured:</strong> {blocks.escape(entry["range"])}</p>'
            if entry["range"]
            else ""
        )
        + (
            f'<p class="claimbook-caveats">{blocks.caveat_badges(entry["caveats"], "../", entry["acknowledged"])}</p>'
            if entry["caveats"]
            else ""
        )
        + f'<p><a href="{blocks.escape(link)}">The evidence →</a></p></div>'
    )


def caveats_page() -> str:
    """The caveat vocabulary, one anchor per code (the badges link here)."""
    items = []
    for caveat in caveats.VOCABULARY:
        kind = "qualifies a verdict" if caveat.qualifies else "labels a figure"
        items.append(
            f'<dt id="caveat-{caveat.code}"><span class="claimbook-caveat">{blocks.escape(caveat.label)}</span> '
            f"<code>{caveat.code}</code> ({kind})</dt><dd>{blocks.escape(caveat.explanation)}</dd>"
        )
    return raw(f'<dl class="claimbook-vocabulary">{"".join(items)}</dl>')


def field_table(fields, required=()) -> pd.DataFrame:
    """Fields as the how-to page lists them: name, required or not, meaning, the allowed values,
    and the claims that use it (a field set on any other is a registry error)."""
    return pd.DataFrame(
        [
            {
                "Field": item.name,
                "Required": "yes" if item.name in required else "",
                "Meaning": item.meaning or "—",
                "Values": "; ".join(f"{value}: {meaning}" for value, meaning in item.values.items()),
                "Used with": getattr(item, "needs", "") or "any claim of the kind",
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
                "What it checks": spec.description,
                "Required fields": ", ".join(spec.required_names()) or "—",
                "Optional fields": ", ".join(spec.optional_names()),
            }
        )
    parts = [
        raw(blocks.table_html(pd.DataFrame(rows), "The kinds of claim and their fields")),
        "### The words a quantifier may be\n",
        (
            "A figure's `quantifier` is the vendor's word on it, read one way in every kind (the method page "
            "gives each rule); `cases` says which cases must hold (`best` or `every`), apart from the word.\n"
        ),
        raw(blocks.table_html(quantifier_table(), "The words a claim's quantifier may be")),
        "### The fields\n",
        raw(blocks.table_html(field_table(claim_fields.COMMON), "The fields every claim may have")),
    ]
    for name, spec in engine.SPECS.items():
        table = field_table(spec.fields, spec.required_names())
        parts.append(raw(blocks.table_html(table, f"The fields of {formatting.with_article(name)} claim")))
    parts.append("### An example of each kind\n")
    for kind, entry in scaffold.kind_examples(registry).items():
        module = engine.KINDS[kind]
        doc = " ".join((module.__doc__ or "").split("\n\n")[0].split())
        parts.append(f"**{kind}**: {blocks.escape(doc)}\n")
        parts.append(fenced(yaml.safe_dump([entry], sort_keys=False, width=100, allow_unicode=True), "yaml"))
    parts.append("### Mistakes and their messages\n")
    for what, entry, message in scaffold.mistakes():
        parts.append(f"With {what}:\n")
        parts.append(fenced(yaml.safe_dump([entry], sort_keys=False, width=100), "yaml"))
        parts.append(fenced(message, "text"))
    return "\n".join(parts)


def toc(registry, chapters_built, pages_built, extra_chapters) -> str:
    """The book's table of contents: one part per announcement (its narrative chapters, then a
    page per claim), then the pages about the whole round and the method."""
    pages = f"{BOOK_DIR}/{GENERATED_DIR}"  # the toc lies at the project's root, beside book/
    parts = []
    for announcement_id in registry.announcements:
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
        parts.append(entry)
    document = {
        "format": "jb-book",
        "root": f"{BOOK_DIR}/index",
        "parts": [
            {"caption": "The announcements", "chapters": parts},
            {"caption": "The round", "chapters": [{"file": f"{pages}/{name}"} for name in extra_chapters]},
            {
                "caption": "Method",
                "chapters": [{"file": f"{BOOK_DIR}/method"}, {"file": f"{BOOK_DIR}/howto"}],
            },
        ],
    }
    if not extra_chapters:
        document["parts"].pop(1)
    return TOC_HEADER + "\n" + yaml.safe_dump(document, sort_keys=False)
