"""What is computed again and again from one results table, kept while the table lives and is
unchanged: ``memo(frame)`` is a dict for that table's derived values (a selector's rows, a
column's squashed names), forgotten when the table is freed and emptied as soon as it changes.

A check selects from the same table hundreds of times with a few dozen distinct selectors; a
memo makes the repeats free. It is keyed by the table's identity, with a weak reference so that
a freed table's memo goes with it (and a new table at the same address never finds it). Pandas'
copy-on-write tells a change: the memo holds a shallow copy of the table, so any write to the
table (a cell, a column, its index) first copies what it writes to, and the table's blocks no
longer share the memo's ``refs``; its index and columns are compared by identity too.
"""

from __future__ import annotations

import weakref


class _Memo:
    __slots__ = ("keep", "ref", "token", "values")

    def __init__(self, frame, ref):
        self.ref = ref
        self.token = _token(frame)
        # A reference to the table's data: with it, pandas copies before any in-place write.
        self.keep = frame.copy(deep=False)
        self.values: dict = {}


_MEMOS: dict[int, _Memo] = {}


def _token(frame) -> tuple:
    """What changes whenever ``frame``'s data, index or columns change (see the module's doc)."""
    return (frame.index, frame.columns, *(block.refs for block in frame._mgr.blocks))


def _same(one: tuple, other: tuple) -> bool:
    return len(one) == len(other) and all(a is b for a, b in zip(one, other))


def memo(frame) -> dict:
    """The dict of values derived from ``frame`` as it is now (empty for a new or changed table)."""
    key = id(frame)
    entry = _MEMOS.get(key)
    if entry is None or entry.ref() is not frame:
        entry = _new_memo(frame, key)
        _MEMOS[key] = entry
    elif not _same(entry.token, _token(frame)):
        _MEMOS[key] = entry = _new_memo(frame, key)
    return entry.values


def _new_memo(frame, key: int) -> _Memo:
    """A new memo of ``frame``, removed from ``_MEMOS`` when the table is freed."""

    def forget(ref, key=key):
        entry = _MEMOS.get(key)
        if entry is not None and entry.ref is ref:
            del _MEMOS[key]

    return _Memo(frame, weakref.ref(frame, forget))


def frozen(value):
    """A hashable form of a selector's value (mappings, lists and scalars, each with its type,
    so that 1, 1.0, True and "1" stay apart); TypeError for anything else."""
    if isinstance(value, dict):
        return ("dict", tuple((key, frozen(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(frozen(item) for item in value))
    if value is None or isinstance(value, (str, int, float, bool)):
        return (type(value).__name__, value)
    raise TypeError(f"no hashable form of {type(value).__name__}")


def kept(frame, mask):
    """The rows of ``frame`` where the boolean array ``mask`` is true: what ``frame[mask]`` gives
    (all of them: a shallow copy; else the rows taken), without its checks of a mask it is given
    as a Series (a hundred microseconds a call, in loops that select thousands of times)."""
    if mask.all():
        return frame.copy(deep=False)
    return frame.take(mask.nonzero()[0])
