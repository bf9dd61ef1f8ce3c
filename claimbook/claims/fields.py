"""The fields a claim may have: one ``Field`` each, and the ones every claim may have, listed once.

The registry reads ``COMMON`` to know which fields it keeps on the ``Claim`` itself (``HELD``) and
the engine reads it to know which fields a claim of any kind may have beside its kind's own; the
kinds describe their own fields with ``Field`` too (``claimbook.engine.kinds``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Field:
    """One field of a claim: its name, what it means in one line, and, for a field whose value is
    one of a few words, each word with its meaning. A field a kind uses only for some claims (a
    form, a mode, a quantifier) says which: ``applies`` (the claim -> whether it uses the field)
    and ``needs`` (those claims in words, "form counterparts"); a field set where it does not
    apply is a registry error naming both."""

    name: str
    meaning: str
    values: dict[str, str] = field(default_factory=dict)
    held: bool = False  # the registry keeps it on the Claim (claim.id, claim.note), not in claim.fields
    applies: Callable | None = None
    needs: str = ""

    def used_by(self, claim) -> bool:
        """Whether ``claim`` (its form, mode and quantifier) uses this field."""
        return self.applies is None or bool(self.applies(claim))


COMMON = (
    Field("id", "the claim's identifier, unique in the book; its page's name", held=True),
    Field("title", "a short title for the claim's card and page"),
    Field("statement", "the claim, paraphrased from the announcement", held=True),
    Field("kind", "the kind of claim, which decides its other fields and how it is checked", held=True),
    Field("chapter", "the narrative chapter that tells the claim (else it has a page of its own)", held=True),
    Field(
        "parts", "the claims it is made of, each of its own kind, inheriting the parent's fields", held=True
    ),
    Field("result_ids", "the MLPerf result IDs the announcement cites for the claim", held=True),
    Field("note", "a note shown with the claim", held=True),
    Field("sentence", "the announcement's sentence the claim shares with others (judged together)"),
    Field("acknowledges", "caveat codes the claim itself states (shown, not held against it)"),
    Field(
        "role",
        "a part's role in its claim",
        {"core": "decides the verdict (the default)", "detail": "a caveat when it does not hold"},
    ),
    Field("decision", "one sentence saying why the book decided as it did"),
)
NAMES = tuple(item.name for item in COMMON)
HELD = tuple(item.name for item in COMMON if item.held)
