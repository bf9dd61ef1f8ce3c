"""A results table's memo (``claimbook.common.frame_memo``), the selections it keeps and the
engine's quick filter (``where``): a repeat is the same answer, a table that changed, in any way
pandas allows, is never answered from what was computed before the change, and a filter selects
what pandas would."""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pytest

from claimbook.claims.selectors import missing, select
from claimbook.common import frame_memo
from claimbook.engine.core import where


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "organization": ["Acme", "Acme", "Zenith"],
            "system": ["a-1", "a-2", "z-1"],
            "system_name": ["Acme One", "Acme Two", "Zenith One"],
            "location": [
                "./closed/Acme/results/a-1/x",
                "./closed/Acme/results/a-2/x",
                "./open/Zenith/results/z-1/x",
            ],
            "division": ["closed", "closed", "open"],
            "total_accelerators": [8, 16, 8],
            "result": [1.0, 2.0, 3.0],
        }
    )


def _independent(table: pd.DataFrame, organization: str, gpus: int) -> list[str]:
    """The selection recomputed without the package: rows of that organization and size."""
    return [
        system
        for system, org, size in zip(table["system"], table["organization"], table["total_accelerators"])
        if org.lower() == organization.lower() and size == gpus
    ]


def _column(table):
    table["organization"] = ["Zenith", "Acme", "Zenith"]


def _cell(table):
    table.loc[0, "organization"] = "Zenith"


def _number(table):
    table.at[1, "total_accelerators"] = 8


def _position(table):
    table.iloc[0, 5] = 16


def _row(table):
    table.loc[9] = ["Acme", "a-9", "Acme Nine", "./closed/Acme/results/a-9/x", "closed", 8, 4.0]


def _in_place(table):
    table["total_accelerators"] *= 2


def _index(table):
    table.index = [5, 6, 7]


def _sorted(table):
    table.sort_values("total_accelerators", ascending=False, inplace=True)


CHANGES = {
    "a column": _column,
    "a cell by loc": _cell,
    "a number by at": _number,
    "a number by iloc": _position,
    "a new row": _row,
    "a column in place": _in_place,
    "the index": _index,
    "sorted in place": _sorted,
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_changed_table_is_selected_again(change):
    table = _table()
    selector = {"organization": "acme", "gpus": 8}
    assert list(select(table, selector)["system"]) == _independent(table, "acme", 8) == ["a-1"]
    CHANGES[change](table)
    assert list(select(table, selector)["system"]) == _independent(table, "acme", 8)


def test_a_repeated_selection_is_kept_and_each_caller_gets_its_own_copy():
    table = _table()
    first = select(table, {"organization": "Acme"})
    first["result"] = 0.0  # a caller's change to its rows never reaches the next caller's
    again = select(table, {"organization": "Acme"})
    assert again is not first and list(again["result"]) == [1.0, 2.0]
    assert any(key[0] == "select" for key in frame_memo.memo(table))
    assert list(table["result"]) == [1.0, 2.0, 3.0]


def test_values_of_different_types_are_different_keys():
    table = _table().assign(system=["1", "True", "z-1"])
    assert list(select(table, {"system": 1, "division": "any"})["system"]) == ["1"]
    assert list(select(table, {"system": True, "division": "any"})["system"]) == ["True"]
    assert missing(table, {"system": "nothing-like-it"}).field == "system"


def test_a_freed_table_takes_its_memo_with_it():
    table = _table()
    select(table, {"organization": "Acme"})
    key = id(table)
    assert key in frame_memo._MEMOS
    del table
    gc.collect()
    assert key not in frame_memo._MEMOS


@pytest.mark.parametrize(
    ("column", "value"),
    [("a", "x"), ("a", None), ("a", 1), ("n", 3), ("n", np.int64(2)), ("n", "3"), ("f", 1), ("f", np.nan)],
)
def test_where_selects_what_a_chain_of_pandas_comparisons_selects(column, value):
    """``engine.core.where`` compares in numpy where it can: the rows, their order and their
    index are pandas' own, missing values (None, NaN, pandas' NA) included."""
    table = pd.DataFrame(
        {"a": ["x", None, np.nan, pd.NA, "y"], "n": [1, 2, 3, 4, 5], "f": [1.0, np.nan, 3.0, 1.0, 2.0]},
        index=[10, 11, 11, 12, 13],
    )
    mine, theirs = where(table, **{column: value}), table[table[column] == value]
    assert mine.equals(theirs) and list(mine.index) == list(theirs.index)
    both = where(table, n=4, f=1.0)
    assert list(both.index) == [12] and where(table, a="nowhere").empty
