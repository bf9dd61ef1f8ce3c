"""How the book words the numbers it prints: counts with their nouns."""

from __future__ import annotations


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """ "1 result", "3 results", "1 GPU", "2 GPUs"."""
    return f"{count:,} {singular if count == 1 else (plural_form or singular + 's')}"
