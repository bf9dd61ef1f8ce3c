"""GPU-hour prices: the public price table, validated, and the price the book uses for each
accelerator. Prices no one publishes are parameters, and the book says so."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from claimbook.common.paths import resolve_path
from claimbook.inputs.csvfile import IngestError, read_table
from claimbook.inputs.price_values import assumed_prices_problem

PRICE_COLUMNS = ("provider", "accelerator", "usd_per_gpu_hour", "pricing", "as_of", "note")
ASSUMED = "assumption (no public price)"


def ingest_prices(path: str | os.PathLike) -> pd.DataFrame:
    """Read and validate a price table; a missing, non-numeric, zero or negative price is
    rejected with the file and line."""
    path = Path(resolve_path(path))
    records = read_table(path, "price table", PRICE_COLUMNS, "prices")
    rows = []
    for line, record in records:
        where = f"{path}, line {line}"
        text = {name: (record[name] or "").strip() for name in PRICE_COLUMNS}
        for name in ("provider", "accelerator", "pricing", "as_of"):
            if not text[name]:
                raise IngestError(f"{where}: {name} is empty")
        if not text["usd_per_gpu_hour"]:
            raise IngestError(
                f"{where}: the price (usd_per_gpu_hour) of {text['provider']} {text['accelerator']} is missing"
            )
        try:
            price = float(text["usd_per_gpu_hour"])
        except ValueError:
            raise IngestError(
                f"{where}: usd_per_gpu_hour is {text['usd_per_gpu_hour']!r}, not a number"
            ) from None
        if not math.isfinite(price) or price <= 0:
            raise IngestError(
                f"{where}: usd_per_gpu_hour is {text['usd_per_gpu_hour']!r}; a price must be above zero"
            )
        rows.append({**text, "usd_per_gpu_hour": price})
    return pd.DataFrame(rows, columns=list(PRICE_COLUMNS))


def load_prices(path: str | os.PathLike) -> pd.DataFrame:
    """The committed price table (validated again: a hand edit can break it too)."""
    return ingest_prices(path)


def choose_prices(
    prices: pd.DataFrame, families: list[str], pricing: str, assumed: dict[str, float], reference
) -> pd.DataFrame:
    """One price per accelerator family: the lowest public price of the ``pricing`` kind (else of
    any kind), else the price the reader assumed for it. Public prices stand where they exist: an
    assumption for a family the table prices is set aside (``set_aside``). Families with neither
    are left out.

    Prices and assumptions are matched to a family through the reviewed accelerator table, so
    "NVIDIA Vera Rubin" prices every name Rubin is published under ("NVIDIA VR200" included).
    """
    by_family = _assumed_by_family(assumed, reference)
    _refuse_unknown(by_family, {*reference.families()["family"], *families})
    listed = prices.assign(family=[reference.family(name).name for name in prices["accelerator"]])
    chosen = []
    for family in sorted(set(families)):
        candidates = listed[listed["family"] == family]
        if not candidates.empty:
            chosen.append(_lowest_price(family, candidates, pricing))
        elif family in by_family:
            chosen.append(
                {
                    "family": family,
                    "usd_per_gpu_hour": by_family[family],
                    "provider": "",
                    "pricing": ASSUMED,
                    "as_of": "",
                }
            )
    return pd.DataFrame(chosen, columns=["family", "usd_per_gpu_hour", "provider", "pricing", "as_of"])


def set_aside(prices: pd.DataFrame, assumed: dict[str, float], reference) -> list[tuple[str, float]]:
    """The reader's assumed prices the table makes needless, (family, price): a family with a
    public price takes it, whatever was assumed for it."""
    public = {reference.family(name).name for name in prices["accelerator"]}
    return [
        (family, price)
        for family, price in sorted(_assumed_by_family(assumed, reference).items())
        if family in public
    ]


def _assumed_by_family(assumed: dict[str, float] | None, reference) -> dict[str, float]:
    """The reader's assumed prices by accelerator family (``assumed_prices_problem``)."""
    problem = assumed_prices_problem(assumed)
    if problem:
        raise ValueError(problem)
    by_family, named = {}, {}
    for name, value in (assumed or {}).items():
        family = reference.family(name).name
        if family in by_family:  # "nvidia gb300" beside "NVIDIA GB300": which price is not ours to pick
            raise ValueError(
                f"the assumed prices give {family} twice ({named[family][:40]!r} and {str(name)[:40]!r}); "
                "give one price a family"
            )
        by_family[family], named[family] = float(value), str(name)
    return by_family


def _refuse_unknown(by_family: dict, known: set) -> None:
    """An assumed price names a family the reviewed table lists or the results have: another
    name (a typo) would price nothing, unsaid."""
    from claimbook.inputs.names import closest

    for family in by_family:
        if family not in known:
            near = closest(family, sorted(map(str, known)))
            raise ValueError(
                f"the assumed price for {family[:80]!r} names no accelerator family the book knows"
                + (f"; closest: {', '.join(near)}" if near else "")
            )


def _lowest_price(family: str, candidates: pd.DataFrame, pricing: str) -> dict:
    """The lowest of a family's public prices, of the ``pricing`` kind where it has one (ties:
    by provider)."""
    preferred = candidates[candidates["pricing"] == pricing]
    pool = preferred if not preferred.empty else candidates
    best = pool.sort_values(["usd_per_gpu_hour", "provider"], kind="stable").iloc[0]
    return {
        "family": family,
        "usd_per_gpu_hour": float(best["usd_per_gpu_hour"]),
        "provider": best["provider"],
        "pricing": best["pricing"],
        "as_of": best["as_of"],
    }


def price_of(chosen: pd.DataFrame, family: str) -> float | None:
    """The chosen price per GPU-hour of one family, or None when it has none."""
    rows = chosen[chosen["family"] == family]
    return None if rows.empty else float(rows["usd_per_gpu_hour"].iloc[0])


PRICE_HEADINGS = {
    "family": "Accelerator",
    "accelerator": "Accelerator",
    "provider": "Provider",
    "usd_per_gpu_hour": "USD per GPU-hour",
    "pricing": "Pricing",
    "as_of": "As of",
    "note": "Note",
}


def readable(prices: pd.DataFrame) -> pd.DataFrame:
    """A price table with headings for readers."""
    return prices.rename(columns=PRICE_HEADINGS)
