"""What a page shows readers: verdict cards, caveat badges, tables and citations, as escaped
HTML with a plain-text twin.

Text from a results file (system names, organizations) reaches these pages; every value passes
through ``html.escape`` here, so markup in the data shows as text and never runs. Tables scroll
inside their own box, numbers are right-aligned with thousands separators, and each badge says
its verdict in an icon and a word, never by colour alone.
"""

from __future__ import annotations

import html
import math
import re
from urllib.parse import quote

import numpy as np
import pandas as pd

from claimbook.common import formatting
from claimbook.engine import caveats
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS

RESULTS_REPOSITORY = "https://github.com/mlcommons/inference_results_{round}/tree/main/{path}"
TRADEMARK = (
    "The MLPerf name and logo are registered and unregistered trademarks of MLCommons Association in the "
    "United States and other countries. All rights reserved. Unauthorized use strictly prohibited. See "
    "www.mlcommons.org for more information."
)
NOT_VERIFIED = "Result not verified by MLCommons Association."
# Icon, word and CSS class of each verdict: the icon and the word say it; colour only repeats it.
BADGES = {
    SUPPORTED: ("✔", "supported", "supported"),
    SUPPORTED_WITH_CAVEATS: ("◐", "supported with caveats", "caveats"),
    NOT_SUPPORTED: ("✘", "not supported", "not-supported"),
    CANNOT_BE_CHECKED: ("?", "cannot be checked", "unchecked"),
}


def escape(text) -> str:
    """HTML-escaped text, safe in an element or an attribute; no newline starts a Markdown line."""
    return html.escape(str(text)).replace("`", "&#96;").replace("\r", " ").replace("\n", " ")


# The characters that start inline markup in MyST: escapes, code, emphasis, roles and
# substitutions, links and images, HTML and entities, math, strikethrough, tables, headings.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>&$~|!#])")

_BLOCK_STARTS = set(":%-+>=.,;'()")


def markdown_text(text) -> str:
    """Text from data as MyST Markdown that renders exactly as that text: one line (no newline
    can start a block, a fence or a directive), and every character that could start markup
    backslash-escaped (so ``<script>`` is no tag, ``[x](javascript:...)`` no link, ``{role}`` no
    role, ``$`` no math). Plain words and ``.,:;'()%-`` are left as they are."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    # A line that starts with ``:::``, ``%``, ``-``, ``+``, ``>`` or ``=`` starts a block (a fence,
    # a comment, a list, a quote): its first character is escaped too.
    if escaped[:1] in _BLOCK_STARTS:
        escaped = "\\" + escaped
    return escaped


def provenance_url(round_name: str, location: str) -> str:
    """The public folder of a result: MLCommons publishes each round in its own repository."""
    path = quote(str(location).removeprefix("./"), safe="/")
    return RESULTS_REPOSITORY.format(round=quote(str(round_name), safe=""), path=path)


def badge(verdict: str) -> str:
    icon, word, css = BADGES[verdict]
    return (
        f'<span class="claimbook-badge claimbook-badge-{css}"><span aria-hidden="true">{icon}</span> '
        f"{escape(word)}</span>"
    )


def caveat_badges(codes, book_root: str = "", acknowledged=()) -> str:
    """One small labelled badge per caveat code, linked to its explanation on the method page."""
    parts = []
    for code in codes:
        caveat = caveats.BY_CODE[code]
        css = "claimbook-caveat" + ("" if caveat.qualifies else " claimbook-caveat-label")
        stated = code in set(acknowledged)
        label = caveat.label + (" (stated by the claim)" if stated else "")
        parts.append(
            f'<a class="{css}" href="{escape(book_root)}method.html#caveat-{escape(code)}" '
            f'title="{escape(caveat.explanation)}">{escape(label)}</a>'
        )
    return " ".join(parts)


def display_html(markup: str, text: str):
    from IPython.display import display

    display({"text/html": markup, "text/plain": text}, raw=True)


def card(check, book_root: str = "", title: str | None = None, link: str | None = None) -> str:
    """A verdict card: the claim in a sentence, the badge, the finding with its range, the caveats."""
    claim = check.claim
    heading = escape(title or claim.get("title") or claim.id)
    if link:
        heading = f'<a href="{escape(link)}">{heading}</a>'
    measured = check.measured_range()
    parts_html = ""
    if check.parts:
        items = "".join(
            f"<li>{badge(part.verdict)} "
            + ('<em class="claimbook-role">A detail:</em> ' if part.claim.get("role") == "detail" else "")
            + f'{escape(part.claim.statement)} <span class="claimbook-finding">'
            f"{escape(part.reason)}</span>{_caveat_line(part, book_root)}{_context_html(part)}</li>"
            for part in check.parts
        )
        parts_html = f'<ul class="claimbook-parts">{items}</ul>'
    figures = ""
    if measured:
        figures = f'<p class="claimbook-range"><strong>Measured:</strong> {escape(measured)}</p>'
    decision = claim.get("decision")
    decision_html = (
        f'<p class="claimbook-decision"><em>Why the book decided so:</em> {escape(" ".join(decision.split()))}</p>'
        if decision
        else ""
    )
    every_row = check.tables.get("every_row")
    rows_html = ""
    if every_row is not None and not every_row.empty:
        rows_html = (
            f'<details class="claimbook-every-row"><summary>Every row of the table ({formatting.count(len(every_row))})</summary>'
            f"{table_html(every_row, 'Every row of the table the claim states, as checked')}</details>"
        )
    context_html = _context_html(check)
    notes = "".join(f"<li>{escape(note)}</li>" for note in check.notes)
    notes_html = (
        f'<details class="claimbook-notes"><summary>Why, in detail</summary><ul>{notes}</ul></details>'
        if notes
        else ""
    )
    return (
        f'<div class="claimbook-card" data-verdict="{escape(check.verdict)}" data-claim="{escape(claim.id)}">'
        f'<p class="claimbook-card-title">{heading} {badge(check.verdict)}</p>'
        f'<p class="claimbook-claim"><em>The claim:</em> {escape(claim.statement)}</p>'
        f'<p class="claimbook-finding"><em>What the results show:</em> {escape(check.reason)}</p>'
        f"{figures}{_caveat_line(check, book_root)}{decision_html}{context_html}{parts_html}{rows_html}{notes_html}</div>"
    )


def _context_html(check) -> str:
    """What a reader expects beside the figures (the best rival, per-GPU figures, an inferred
    side), visible on the card and never deciding."""
    if not check.context:
        return ""
    items = "".join(f"<li>{escape(note)}</li>" for note in check.context)
    return (
        '<div class="claimbook-context"><p><strong>For context</strong> (never deciding):</p>'
        f"<ul>{items}</ul></div>"
    )


def _caveat_line(check, book_root: str) -> str:
    if not check.caveats:
        return ""
    return f'<p class="claimbook-caveats">{caveat_badges(check.caveats, book_root, check.acknowledged)}</p>'


def card_text(check) -> str:
    lines = [f"{check.claim.id}: {check.verdict}. {check.reason}"]
    if check.measured_range():
        lines.append(f"Measured: {check.measured_range()}")
    if check.caveats:
        lines.append("Caveats: " + ", ".join(check.caveats))
    if check.claim.get("decision"):
        lines.append("Why the book decided so: " + " ".join(str(check.claim.get("decision")).split()))
    lines += [f"For context: {note}" for note in check.context]
    lines += [f"- {part.claim.id}: {part.verdict}. {part.reason}" for part in check.parts]
    return "\n".join(lines)


def show_card(check, book_root: str = "", title: str | None = None, link: str | None = None):
    display_html(card(check, book_root, title, link), card_text(check))


def _cell(value, numeric: bool, decimals: int | None = None) -> str:
    if isinstance(value, (bool, np.bool_)):
        value = "yes" if value else "no"
    text = escape(
        formatting.table_number(value, decimals)
        if numeric
        else (
            formatting.MISSING if value is None or (isinstance(value, float) and math.isnan(value)) else value
        )
    )
    if numeric:
        return f'<td class="num">{text}</td>'
    if len(text) <= 14:  # short text ("Tokens/s") never breaks; long names may, after / and _
        return f"<td>{text}</td>"
    return "<td>" + text.replace("/", "/<wbr>").replace("_", "_<wbr>") + "</td>"


# Headings readers see for the tidy tables' columns; any other snake_case name is spelled out.
HEADINGS = {
    "organization": "Submitter",
    "family": "Accelerator",
    "gpus": "GPUs",
    "small_gpus": "GPUs, smaller",
    "large_gpus": "GPUs, larger",
    "efficiency_percent": "Efficiency (%)",
    "per_gpu": "Per GPU",
    "source_type": "Source",
    "usd_per_gpu_hour": "USD per GPU-hour",
    "usd_per_million_tokens": "USD per million tokens",
    "gain": "Speedup (x)",
    "change_percent": "Change of the metric (%)",
}


def heading(column) -> str:
    """A column's heading for readers: ``small_gpus`` is "GPUs, smaller", ``result`` "Result"."""
    column = str(column)
    if column in HEADINGS:
        return HEADINGS[column]
    if re.fullmatch(r"[a-z][a-z0-9_]*", column):
        return column.replace("_", " ").capitalize()
    return column


def table_html(
    frame: pd.DataFrame,
    caption: str,
    links: dict | None = None,
    titles: dict | None = None,
    decimals: dict | None = None,
) -> str:
    """An escaped HTML table in its own scroll box. ``links`` maps a column to a column of URLs
    (its cells become links); ``titles`` maps a column to a column of tooltips; ``decimals`` fixes
    the decimals of a numeric column (prices)."""
    links, titles, decimals = links or {}, titles or {}, decimals or {}
    hidden = set(links.values()) | set(titles.values())
    shown = [column for column in frame.columns if column not in hidden]
    numeric = {
        column: pd.api.types.is_numeric_dtype(frame[column]) and not pd.api.types.is_bool_dtype(frame[column])
        for column in shown
    }
    head = "".join(
        f'<th scope="col"{" class=num" if numeric[column] else ""}>{escape(heading(column))}</th>'
        for column in shown
    )
    body = []
    for _, row in frame.iterrows():
        cells = []
        for column in shown:
            cell = _cell(row[column], numeric[column], decimals.get(column))
            if column in links and isinstance(row[links[column]], str) and row[links[column]]:
                cell = f'<td><a href="{escape(row[links[column]])}">{escape(row[column])}</a></td>'
            if column in titles and isinstance(row[titles[column]], str):
                cell = cell.replace("<td", f'<td title="{escape(row[titles[column]])}"', 1)
            cells.append(cell)
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="claimbook-scroll" role="region" tabindex="0" aria-label="{escape(caption)}">'
        f'<table class="claimbook-table"><caption>{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def table_text(frame: pd.DataFrame, caption: str) -> str:
    frame = frame.rename(columns=heading)
    return (
        caption
        + "\n"
        + frame.map(
            lambda value: (
                formatting.table_number(value)
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else str(value)
            )
        ).to_string(index=False)
    )


def table(
    frame: pd.DataFrame,
    caption: str,
    links: dict | None = None,
    titles: dict | None = None,
    decimals: dict | None = None,
):
    hidden = set((links or {}).values()) | set((titles or {}).values())
    display_html(
        table_html(frame, caption, links, titles, decimals),
        table_text(frame.drop(columns=list(hidden)), caption),
    )


def ids_for(result_ids: pd.DataFrame, rows: pd.DataFrame, with_system: bool = False) -> list[list[str]]:
    """For each result in ``rows``, the IDs an announcement gives the entry it belongs to (same
    round, submitter, system and division; an ID with no division stands for any), each with who
    states it."""
    index: dict[tuple, list] = {}
    for item in result_ids.itertuples():
        index.setdefault((item.round, item.organization, item.system), []).append(item)
    found = []
    for round_name, organization, system, division in zip(
        rows["round"], rows["organization"], rows["system"], rows["division"]
    ):
        known = [
            item
            for item in index.get((round_name, organization, system), ())
            if item.division in (division, "")
        ]
        found.append([_cited(item, with_system) for item in known])
    return found


# A result ID whose system the book inferred says so in its note (data/result_ids.csv).
INFERRED_SYSTEM = "system inferred by this book"


def _cited(item, with_system: bool) -> str:
    """A result ID as a citation gives it: who states the ID, and whose the system is (the
    announcement's, or inferred by this book where its note says so)."""
    if not with_system:
        return f"{item.id} ({item.stated_by})"
    if str(item.note).startswith(INFERRED_SYSTEM):
        return f"{item.id} ({item.organization} {item.system}, {INFERRED_SYSTEM}; the ID as cited by {item.stated_by})"
    return f"{item.id} ({item.organization} {item.system}, as stated by {item.stated_by})"


def evidence_frame(rows: pd.DataFrame, result_ids: pd.DataFrame | None = None) -> pd.DataFrame:
    """The published results used, as readers see them: one unit per table where it can be."""
    if rows is None or rows.empty:
        return pd.DataFrame()
    rows = rows.sort_values(["organization", "system", "benchmark", "scenario"], kind="stable")
    units = sorted(set(rows["units"]))
    one_unit = len(units) == 1
    result_column = f"Result ({units[0]})" if one_unit else "Result"
    frame = pd.DataFrame(
        {
            "Submitter": rows["organization"].astype(str).values,
            "System": rows["system"].astype(str).values,
            "Accelerator": rows["family"].astype(str).values,
            "_published_accelerator": rows["accelerator"].astype(str).values,
            "GPUs": rows["total_accelerators"].astype(int).values,
        }
    )
    if rows["benchmark"].nunique() > 1:
        frame["Benchmark"] = rows["benchmark"].astype(str).values
    frame["Scenario"] = rows["scenario"].astype(str).values
    frame[result_column] = rows["result"].astype(float).values
    if not one_unit:
        frame["Units"] = rows["units"].astype(str).values
    per_gpu = rows["per_accelerator"].astype(float).values
    if pd.notna(per_gpu).any():
        frame["Per GPU"] = per_gpu
    # Division, category and the inferred flag in one column: what MLCommons asks to be stated.
    frame["Status"] = [
        ", ".join([division, availability] + (["inferred"] if inferred else []))
        for division, availability, inferred in zip(
            rows["division"].astype(str), rows["availability"].astype(str), rows["inferred"].astype(bool)
        )
    ]
    if result_ids is not None and not result_ids.empty:
        frame["Result ID"] = ["; ".join(ids) or "—" for ids in ids_for(result_ids, rows)]
    frame["Logs"] = "folder"
    frame["_url"] = [provenance_url(r, loc) for r, loc in zip(rows["round"], rows["location"])]
    return frame


def evidence(rows: pd.DataFrame, caption: str, result_ids: pd.DataFrame | None = None):
    """The exact results a check used, each linked to its folder of published logs."""
    frame = evidence_frame(rows, result_ids)
    if frame.empty:
        display_html(f"<p>{escape(caption)}: no published result.</p>", f"{caption}: no published result.")
        return
    if "Benchmark" not in frame.columns and "benchmark" in rows.columns and not rows.empty:
        caption = f"{caption}: {rows['benchmark'].iloc[0]}"
    table(frame, caption, links={"Logs": "_url"}, titles={"Accelerator": "_published_accelerator"})


def citation(
    rows: pd.DataFrame,
    announcement,
    sources: dict,
    derived: bool = True,
    result_ids: pd.DataFrame | None = None,
) -> str:
    """The footnote MLCommons' rules ask for: suite and version, division, benchmarks and
    scenarios, source and date, result IDs where known, the derived-metric statement and the
    trademark legend."""
    parts = []
    if rows is not None and not rows.empty:
        round_name = str(rows["round"].iloc[0])
        divisions = " and ".join(f"{name.capitalize()} division" for name in sorted(set(rows["division"])))
        scenarios = ", ".join(sorted(set(rows["scenario"])))
        benchmarks = ", ".join(sorted(set(rows["benchmark"])))
        source = sources.get(round_name, {})
        parts.append(
            f"MLPerf® Inference {escape(round_name)}, {escape(divisions)}; {escape(benchmarks)} "
            f"({escape(scenarios)})."
        )
        if source:
            parts.append(
                f"Results from MLCommons' {escape(source.get('repository', ''))} "
                f"(<code>{escape(source.get('file', 'summary.csv'))}</code>, commit "
                f"<code>{escape(str(source.get('commit', ''))[:12])}</code>), published "
                f"{escape(source.get('published', ''))}; each result above links to its folder of logs."
            )
        if result_ids is not None and not result_ids.empty:
            listed = sorted({text for ids in ids_for(result_ids, rows, with_system=True) for text in ids})
            if listed:
                parts.append(
                    f"Result IDs: {escape('; '.join(listed))}. The results summary itself carries no ID."
                )
    if announcement is not None:
        parts.append(f"Claims paraphrased from {escape(announcement.title)} ({escape(announcement.date)}).")
    if derived:
        parts.append(
            "Ratios, per-GPU and per-watt figures, efficiencies, costs and verdicts are derived by this "
            f"book from the published results. {NOT_VERIFIED}"
        )
    parts.append(escape(TRADEMARK))
    return '<p class="claimbook-citation">' + " ".join(parts) + "</p>"


def show_citation(rows, announcement, sources: dict, derived: bool = True, result_ids=None):
    markup = citation(rows, announcement, sources, derived, result_ids)
    import re

    display_html(markup, re.sub(r"<[^>]+>", "", html.unescape(markup)))


def details(summary: str, markup: str, text: str):
    """Folded content for readers who want it (a chapter's parameters, for instance)."""
    display_html(
        f'<details class="claimbook-details"><summary>{escape(summary)}</summary>{markup}</details>',
        f"{summary}\n{text}",
    )


def parameters(values: dict, template: str):
    """The parameters a page ran with, folded away, and how to rerun it."""
    import json

    shown = json.dumps(values, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    details(
        "Parameters this page ran with",
        f"<p>Template <code>{escape(template)}</code>, executed by <code>python -m claimbook build</code>.</p>"
        f'<pre class="claimbook-parameters">{html.escape(shown)}</pre>',
        shown,
    )
