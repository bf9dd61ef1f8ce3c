"""GPU-hour prices: the public price table, validated, and the price the book uses for each
accelerator. Prices no one publishes are parameters, and the book says so."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pandas as pd

from claimbook.csvfile import IngestError, read_table
from claimbook.results import resolve_path

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
            raise IngestError(f"{where}: the price (usd_per_gpu_hour) of {text['provider']} {text['accelerator']} is missing")
        try:
            price = float(text["usd_per_gpu_hour"])
        except ValueError:
            raise IngestError(f"{where}: usd_per_gpu_hour is {text['usd_per_gpu_hour']!r}, not a number") from None
        if not math.isfinite(price) or price <= 0:
            raise IngestError(f"{where}: usd_per_gpu_hour is {text['usd_per_gpu_hour']!r}; a price must be above zero")
        rows.append({**text, "usd_per_gpu_hour": price})
    return pd.DataFrame(rows, columns=list(PRICE_COLUMNS))


def load_prices(path: str | os.PathLike) -> pd.DataFrame:
    """The committed price table (validated again: a hand edit can break it too)."""
    return ingest_prices(path)


def _matches(price_accelerator: str, result_accelerator: str) -> bool:
    """ "NVIDIA B200" prices "NVIDIA B200-SXM-180GB" but not "NVIDIA GB200" or "NVIDIA B2000"."""
    pattern = re.escape(price_accelerator) + r"(?![A-Za-z0-9])"
    return re.match(pattern, result_accelerator, re.IGNORECASE) is not None


def choose_prices(prices: pd.DataFrame, accelerators: list[str], pricing: str, assumed: dict[str, float]) -> pd.DataFrame:
    """One price per accelerator: the lowest public price of the ``pricing`` kind (else of any
    kind), or the assumed price the reader set. Accelerators with neither are left out."""
    chosen = []
    for accelerator in sorted(set(accelerators)):
        assumption = next((value for name, value in assumed.items() if _matches(name, accelerator)), None)
        if assumption is not None:
            if not (isinstance(assumption, (int, float)) and math.isfinite(assumption) and assumption > 0):
                raise ValueError(f"the assumed price for {accelerator} must be a positive number, got {assumption!r}")
            chosen.append({"accelerator": accelerator, "usd_per_gpu_hour": float(assumption), "provider": "",
                           "pricing": ASSUMED, "as_of": ""})
            continue
        candidates = prices[[_matches(name, accelerator) for name in prices["accelerator"]]]
        if candidates.empty:
            continue
        preferred = candidates[candidates["pricing"] == pricing]
        pool = preferred if not preferred.empty else candidates
        best = pool.sort_values(["usd_per_gpu_hour", "provider"], kind="stable").iloc[0]
        chosen.append({"accelerator": accelerator, "usd_per_gpu_hour": best["usd_per_gpu_hour"], "provider": best["provider"],
                       "pricing": best["pricing"], "as_of": best["as_of"]})
    return pd.DataFrame(chosen, columns=["accelerator", "usd_per_gpu_hour", "provider", "pricing", "as_of"])


def price_of(chosen: pd.DataFrame, accelerator: str) -> float:
    """The chosen price per GPU-hour of one accelerator; an error says how to supply one."""
    rows = chosen[chosen["accelerator"] == accelerator]
    if rows.empty:
        raise LookupError(
            f"no price for {accelerator}: the price table has none; set one in the chapter's assumed_prices"
        )
    return float(rows["usd_per_gpu_hour"].iloc[0])
