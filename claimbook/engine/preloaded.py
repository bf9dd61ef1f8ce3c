"""Data loaded once, before the pages' kernels are forked, and taken by the pages that read the
very same files.

Every page reads the book's data (the registries, the round's results, the reference tables)
as it starts: in the real book about 0.25 s of a claim page's 0.6 s of work, more as the
registries grow. The kernels' fork server (``claimbook.pipeline.kernels``) reads it once after its
imports (``claimbook.engine.context.preload``) and keeps what it read here, part by part: each
registry file, the chapters, the reference tables, the round's results (annotated with the
reference), each earlier round, the result IDs, the sources, each under the key of its own
arguments as given and the bytes of the files it was read from. A page forked from it takes
each part whose files have that very key instead of reading it again, and reads the others: after
an edit of one registry (``claimbook preview``'s server was started before it) a page reads that
registry alone. What a page takes is its own: the page runs in a forked process of its own, and
takes each part once.

What a part is, is a function of its arguments and bytes (and of the code, the same in the
server and its kernels), so a page that takes it gives the notebook a fresh kernel gives; nbval
re-runs every committed page in a fresh kernel, and tests compare both. A read that printed or
warned is not kept: a fresh kernel's page would show what it said.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from typing import TypeVar

from claimbook.common.paths import resolve_path

T = TypeVar("T")
_KEPT: dict[str, object] = {}
# The parts read meanwhile (``recording``): their keys before they were read, and what was read.
_recording: list[tuple[str, str, object, tuple, object]] | None = None


def key(part: str, given, paths) -> str:
    """What a part reads: its name, its arguments as given (``given``), and the bytes of every
    file of ``paths`` (a folder: each of its files, by name)."""
    digest = hashlib.sha256(json.dumps([part, given], sort_keys=True, default=str).encode())
    for named in paths:
        path = resolve_path(named)
        read = sorted(item for item in path.rglob("*") if item.is_file()) if path.is_dir() else [path]
        for file in read:
            digest.update(b"\0" + str(file.relative_to(path) if file != path else named).encode() + b"\0")
            digest.update(file.read_bytes() if file.is_file() else b"(none)")
    return digest.hexdigest()


def through(part: str, given, paths: tuple, read: Callable[[], T]) -> T:
    """What ``read()`` gives, the part ``part`` of a page's data read from the files ``paths``
    with the arguments ``given``: in a process holding that part for those very bytes, the part
    held (once); otherwise read (and recorded, while ``recording``)."""
    if _recording is not None:
        before = key(part, given, paths)
        value = read()
        _recording.append((before, part, given, tuple(paths), value))
        return value
    if _KEPT:
        found = _KEPT.pop(key(part, given, paths), _KEPT)
        if found is not _KEPT:
            return found
    return read()


@contextlib.contextmanager
def recording():
    """The parts read through ``through`` meanwhile, to ``keep``."""
    global _recording
    _recording = recorded = []
    try:
        yield recorded
    finally:
        _recording = None


def keep(recorded: list) -> None:
    """Keep the parts recorded, each under the bytes it was read from: a part whose files changed
    while it was read is not kept (its page reads it)."""
    for before, part, given, paths, value in recorded:
        if key(part, given, paths) == before:
            _KEPT[before] = value


def held() -> bool:
    """Whether this process holds preloaded data (only a kernel forked by the server does)."""
    return bool(_KEPT)
