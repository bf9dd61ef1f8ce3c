"""The table of a kind with modes (``presence``'s modes, ``leading``'s metrics): a row per mode
with its fields, its validation, its check and its charts; a claim's check and charts are its
mode's, and a field only some modes take says which."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from claimbook.engine import kinds


@dataclass(frozen=True)
class Mode:
    """One mode of a kind: its name (the registry's word), what it means, the fields it takes
    beyond those every mode takes, its own validation, its check and its charts; ``chosen_by``,
    the field whose presence chooses it (None: the fallback), and ``one_per_case``, the
    selectors that take one result per case in a claim of the mode."""

    name: str
    meaning: str
    fields: tuple[str, ...]
    check: Callable
    validate: Callable
    charts: Callable
    chosen_by: str | None = None
    one_per_case: Callable = lambda claim: ()


class Modes(dict):
    """A kind's modes by name, and ``mode_of`` (the claim -> its mode, None for none): what a
    claim's check and charts are, and the fields only some modes take."""

    def __init__(self, mode_of: Callable, *modes: Mode):
        super().__init__((mode.name, mode) for mode in modes)
        self.mode_of = mode_of

    def check(self, claim, data):
        return self.mode_of(claim).check(claim, data)

    def charts(self, check, data) -> list:
        return self.mode_of(check.claim).charts(check, data)

    def taking(self, name: str) -> list[str]:
        """The modes that take a field."""
        return [mode.name for mode in self.values() if name in mode.fields]

    def field(self, item: kinds.Field, needs: str, figure: str = "") -> kinds.Field:
        """``item`` as a field only the modes that take it use (``needs``: those, in words): a
        claim of another mode refuses it; with ``figure``, only where the claim states one."""

        def used(claim) -> bool:
            mode = self.mode_of(claim)
            return mode is not None and item.name in mode.fields

        return kinds.used_only_by(item, used, needs, figure)
