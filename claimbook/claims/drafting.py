"""What ``claimbook draft`` needs of a kind, declared by the kind itself (its SPEC's
``drafting``): when a sentence proposes it, the fields it leaves to the analyst, and those the
text fills. Kept apart from ``claimbook.claims.draft`` (which reads announcements' text, with
its sentence and number libraries) so that the kinds, and every command that loads them, import
nothing of that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from claimbook.claims.names_in_text import Statement
    from claimbook.inputs.announcement_text import Figure


@dataclass(frozen=True)
class Proposal:
    """When a kind is proposed for a figure: ``test(statement, figure)`` holds, and no proposal
    of a lower ``order`` (of any kind) does; ``why``, in words."""

    order: int
    test: Callable[[Statement, Figure], bool]
    why: str


@dataclass(frozen=True)
class Superlative:
    """When a kind is proposed for a superlative without a figure: the statement has one of
    ``words`` (none: any superlative), and no superlative proposal of a lower ``order`` holds."""

    order: int
    words: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Drafting:
    """What ``draft`` needs of a kind, declared by the kind itself (its SPEC's ``drafting``):
    when to propose it, the fields it leaves to the analyst (in the order a registry writes
    them), and the fields the text settles (``fill(statement, figure, results)``)."""

    proposals: tuple[Proposal, ...] = ()
    superlatives: tuple[Superlative, ...] = ()
    todos: tuple[str, ...] = ()
    fill: Callable[[Statement, Figure | None, pd.DataFrame], dict] | None = None
