"""The claims ledger: one page that answers "which claims hold?", generated from the scorecard.

The page is MyST Markdown with one escaped HTML table per verdict; every text that comes from
data passes through ``html.escape``, so markup in a results file shows as text.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from claimbook.report import provenance_url
from claimbook.verdict import VERDICTS, with_unit

def escape(text: str) -> str:
    """HTML-escape text for a raw HTML block inside MyST: no backtick can close the block's
    fence and no newline can start a Markdown line."""
    return html.escape(str(text)).replace("`", "&#96;").replace("\r", " ").replace("\n", " ")


LEDGER_COLUMNS = ("claim", "statement", "claimed", "measured", "unit", "verdict", "reason", "chapter", "evidence")
_LOCATION = re.compile(r"\./(?:closed|open)/[^\s;,)]+")


def decisive_row(rows: list[dict]) -> dict:
    """The row that decides a claim: the best one reaching the claim, else the closest to it."""
    reaching = [row for row in rows if row.get("reaches_claim") and row.get("measured") is not None]
    if reaching:
        return max(reaching, key=lambda row: row["measured"])
    measured = [row for row in rows if row.get("measured") is not None]
    if not measured:
        return rows[0]
    claimed = rows[0].get("claimed")
    if claimed is None:
        return max(measured, key=lambda row: row["measured"])
    return min(measured, key=lambda row: abs(row["measured"] - claimed))


def claim_ledger(scorecard_rows: list[dict], registry) -> pd.DataFrame:
    """One row per claim of the registry, in its order; a claim with no scorecard row is an error."""
    by_claim: dict[str, list[dict]] = {}
    for row in scorecard_rows:
        by_claim.setdefault(row["claim"], []).append(row)
    missing = [claim.id for claim in registry.claims if claim.id not in by_claim]
    if missing:
        raise ValueError(f"no verdict in the scorecard for claim(s) {', '.join(missing)}")
    ledger = []
    for claim in registry.claims:
        rows = by_claim[claim.id]
        verdicts = {row["verdict"] for row in rows}
        if len(verdicts) != 1:
            raise ValueError(f"claim {claim.id} has rows with different verdicts: {', '.join(sorted(verdicts))}")
        decisive = decisive_row(rows)
        ledger.append(
            {
                "claim": claim.id,
                "statement": claim.statement.strip(),
                "claimed": claim.figure,
                "measured": decisive.get("measured"),
                "unit": decisive.get("unit") or claim.unit,
                "verdict": decisive["verdict"],
                "reason": decisive.get("reason") or "",
                "chapter": decisive.get("chapter") or "",
                "evidence": "; ".join(row["evidence"] for row in rows if row.get("evidence")),
            }
        )
    return pd.DataFrame(ledger, columns=list(LEDGER_COLUMNS))


def verdict_counts(ledger: pd.DataFrame) -> dict[str, int]:
    """How many claims have each verdict, in the fixed order of the vocabulary."""
    return {verdict: int((ledger["verdict"] == verdict).sum()) for verdict in VERDICTS}


def _figure(value, unit: str) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "—"
    return with_unit(float(value), unit or "", "{:.3g}" if abs(value) < 1000 else "{:,.0f}")


def _evidence_links(evidence: str, round_name: str, limit: int = 4) -> str:
    locations = list(dict.fromkeys(_LOCATION.findall(evidence or "")))
    links = [
        f'<a href="{escape(provenance_url(round_name, location))}">{index}</a>'
        for index, location in enumerate(locations[:limit], start=1)
    ]
    more = f" (+{len(locations) - limit})" if len(locations) > limit else ""
    return (", ".join(links) + more) if links else "—"


def _table(rows: pd.DataFrame, chapter_titles: dict[str, str], round_name: str) -> str:
    head = "".join(
        f'<th scope="col">{name}</th>'
        for name in ("Claim", "Claimed", "Measured", "Why", "Chapter", "Results")
    )
    body = []
    for item in rows.itertuples():
        chapter = (
            f'<a href="claims/{escape(item.chapter)}.html">{escape(chapter_titles.get(item.chapter, item.chapter))}</a>'
            if item.chapter
            else "—"
        )
        body.append(
            "<tr>"
            f'<td><strong>{escape(item.claim)}</strong><br>{escape(item.statement)}</td>'
            f"<td>{escape(_figure(item.claimed, item.unit))}</td>"
            f"<td>{escape(_figure(item.measured, item.unit))}</td>"
            f"<td>{escape(item.reason)}</td>"
            f"<td>{chapter}</td>"
            f"<td>{_evidence_links(item.evidence, round_name)}</td>"
            "</tr>"
        )
    return f'<table class="claimbook-table claimbook-ledger"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def ledger_markdown(ledger: pd.DataFrame, chapter_titles: dict[str, str], round_name: str, source: dict) -> str:
    """The ledger page: a summary, the downloads, and the claims grouped by verdict."""
    counts = verdict_counts(ledger)
    summary = "\n".join(f"- **{verdict}**: {count}" for verdict, count in counts.items())
    sections = []
    for verdict in VERDICTS:
        rows = ledger[ledger["verdict"] == verdict]
        if rows.empty:
            continue
        sections.append(
            f"## {verdict[:1].upper() + verdict[1:]} ({len(rows)})\n\n```{{raw}} html\n{_table(rows, chapter_titles, round_name)}\n```\n"
        )
    title = escape(str(source.get("title", "the announcement")))
    return (
        "# Which claims hold?\n\n"
        "<!-- Generated by `python -m claimbook build` from the scorecard; do not edit by hand. -->\n\n"
        f"Every claim of the source ({title}) with the book's verdict. "
        f"Of {len(ledger)} claims:\n\n{summary}\n\n"
        "Each row gives the claimed figure, the figure the book measured from the published results "
        "(the deciding scenario where there are several), the reason for the verdict, the chapter that "
        "shows the work, and links to the published results used. The full scorecard, one row per "
        "claim and scenario, downloads as {download}`CSV <scorecard.csv>` or "
        "{download}`JSON <scorecard.json>`.\n\n" + "\n".join(sections)
    )


def write_ledger(scorecard_rows: list[dict], registry, round_name: str, path: Path) -> Path:
    ledger = claim_ledger(scorecard_rows, registry)
    titles = {name: chapter.title for name, chapter in registry.chapters.items()}
    path.write_text(ledger_markdown(ledger, titles, round_name, registry.source), encoding="utf-8")
    return path
