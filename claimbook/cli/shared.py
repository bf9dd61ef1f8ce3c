"""What several commands' runners use: the writer's lock, a round the book holds."""

from __future__ import annotations

from pathlib import Path

from claimbook.common.errors import UsageError
from claimbook.common.paths import PROJECT_ROOT


def writer_lock(path):
    """``claimbook.pipeline.outputs.writer_lock``: one writer at a time of a book or a file."""
    from claimbook.pipeline.outputs import writer_lock as lock

    return lock(path)


def held_round(round_name: str, said: str) -> Path:
    """The tidy table of a round the book holds; any other round is one line naming those it holds."""
    from claimbook.common.paths import held_rounds

    held = held_rounds(PROJECT_ROOT / "data" / "mlperf")
    if round_name not in held:
        raise UsageError(
            f"{said} {str(round_name)[:80]!r}: the book holds no results of that round (it holds "
            f"{', '.join(held) or 'none'}); ingest that round's summary first"
        )
    return held[round_name]
