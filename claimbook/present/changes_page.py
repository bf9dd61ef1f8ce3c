"""The page "What changed against the published book" of an ``--out`` book built from other
results: both results files (checksum, date), then every claim whose verdict or deciding figure
moved, with why (``claimbook.engine.moves``). Text from data is escaped."""

from __future__ import annotations

from claimbook.present.blocks import markdown_text

TITLE = "What changed against the published book"


def _cell(text: str) -> str:
    return markdown_text(text) or "—"  # (``|`` is escaped there too: a cell never ends early)


def changes_page(moves, published: dict, this_book: dict) -> str:
    """The page's Markdown; ``published`` and ``this_book`` each say a results file: its
    ``file``, ``sha256`` and ``date``."""
    lines = [f"# {TITLE}\n"]
    for label, source in (("The published book", published), ("This book", this_book)):
        lines.append(
            f"- {label}: results {_cell(source.get('file', ''))}, sha256 {_cell(source.get('sha256') or 'unknown')}, "
            f"dated {_cell(source.get('date') or 'unknown')}"
        )
    lines.append("")
    if not moves:
        lines.append("No verdict and no deciding figure moved: every claim reads as in the published book.")
        return "\n".join(lines) + "\n"
    lines.append(
        f"{len(moves)} claim(s) moved. The figures are ours, derived from MLCommons' results, not verified by MLCommons.\n"
    )
    lines.append("| Claim | Verdict before → after | Deciding figure before → after | Why |")
    lines.append("| --- | --- | --- | --- |")
    for move in moves:
        why = "; ".join(_cell(reason) for reason in move.why)
        lines.append(
            f"| {_cell(move.claim)} | {_cell(move.verdict_before)} → {_cell(move.verdict_after)} | "
            f"{_cell(move.figure_before)} → {_cell(move.figure_after)} | {why} |"
        )
    return "\n".join(lines) + "\n"
