"""The mode ``pairs`` of a presence claim: pairs of results whose GPU counts and gain fit a
description ("nearly double the GPUs for a single-digit gain")."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.core import Case, Data, cannot_check, label_of, rows_of, select_for, where
from claimbook.engine.kinds._presence_common import PairCase, presence_check
from claimbook.engine.verdict import SUPPORTED


def validate_pairs(claim: Claim) -> None:
    if not isinstance(claim.get("pairs"), dict):
        kinds.fail(claim, "pairs", "a mapping: nearly: N, or gpu_ratio: [low, high], and gain_below_percent")


PAIR_COLUMNS = (
    "reading",
    "benchmark",
    "scenario",
    "smaller",
    "larger",
    "gpu_ratio",
    "gain_percent",
    "small_location",
    "large_location",
)
SCALE_OUT = "one submitter's scale-out"


@dataclass(frozen=True)
class _PairRule:
    """What a pair must be: its GPU ratio within [low, high], its gain at least 0 and below ``gain_below``."""

    low: float
    high: float
    gain_below: float

    @classmethod
    def of(cls, spec: dict) -> _PairRule:
        low, high = spec.get("gpu_ratio", [1.5, 2.0])
        if spec.get("nearly") is not None:  # "nearly double": the book's one reading of "nearly"
            low, high = quantifiers.bounds("nearly", float(spec["nearly"]))
        return cls(low, high, float(spec.get("gain_below_percent", 10.0)))

    def fits(self, small, large) -> bool:
        ratio, gain = _figures(small, large)
        return self.low <= ratio <= self.high and 0.0 <= gain < self.gain_below

    def description(self) -> str:
        return (
            f"{formatting.stated(self.low)} to {formatting.stated(self.high)} times the GPUs for a gain below "
            f"{formatting.stated(self.gain_below, '%')}"
        )


def _figures(small, large) -> tuple[float, float]:
    """How many times the smaller's GPUs the larger has, and its gain in percent."""
    return large["total_accelerators"] / small["total_accelerators"], 100.0 * (
        large["result"] / small["result"] - 1.0
    )


def _pair_record(small, large, reading: str) -> dict:
    ratio, gain = _figures(small, large)
    return {
        "reading": reading,
        "benchmark": large["benchmark"],
        "scenario": large["scenario"],
        "smaller": label_of(small),
        "larger": label_of(large),
        "gpu_ratio": ratio,
        "gain_percent": gain,
        "small_location": small["location"],
        "large_location": large["location"],
    }


def _scale_outs(rows: pd.DataFrame, rule: _PairRule) -> list[dict]:
    """Every pair of one submitter's system of one accelerator family, benchmark and scenario that fits."""
    found = []
    # Grouped in Python: a few hundred small groups cost more as pandas frames than as lists.
    systems: dict[tuple, list[dict]] = {}
    for item in rows.sort_values(["total_accelerators", "location"]).to_dict("records"):
        systems.setdefault(
            (item["organization"], item["family"], item["benchmark"], item["scenario"]), []
        ).append(item)
    for _, ordered in sorted(systems.items()):
        for small in ordered:
            for large in ordered:
                if large["total_accelerators"] > small["total_accelerators"] and rule.fits(small, large):
                    found.append(_pair_record(small, large, SCALE_OUT))
    return found


def _top_against_smaller(rows: pd.DataFrame, rule: _PairRule) -> list[dict]:
    """For context: each benchmark's top result against the best result of any smaller system."""
    found = []
    for _, group in rows.groupby(["benchmark", "scenario"], sort=True):
        top = group.sort_values(["result", "location"], ascending=[False, True]).iloc[0]
        smaller = group[group["total_accelerators"] < top["total_accelerators"]]
        if smaller.empty:
            continue
        runner = smaller.sort_values(["result", "location"], ascending=[False, True]).iloc[0]
        if rule.fits(runner, top):
            found.append(_pair_record(runner, top, "the top result against the best smaller system"))
    return found


def _listed(records, rows: pd.DataFrame, rule: _PairRule) -> str:
    """Each pair with its figures and the same two systems in every other scenario of the
    benchmark, fitting or not: a pair is never cited in one scenario where another disagrees."""
    return "; ".join(
        f"{item['larger']} against {item['smaller']} ({item['benchmark']} {item['scenario']}): "
        f"{formatting.times(item['gpu_ratio'])} the GPUs for {formatting.signed_percent(item['gain_percent'])}"
        + _same_pair_elsewhere(item, rows, rule)
        for item in records
    )


def _same_pair_elsewhere(item: dict, rows: pd.DataFrame, rule: _PairRule) -> str:
    """The same two systems in the benchmark's other scenarios, each said to fit the description or not."""
    by_location = rows.set_index("location", drop=False)
    small, large = by_location.loc[item["small_location"]], by_location.loc[item["large_location"]]
    found = []
    for scenario in sorted(set(rows["scenario"]) - {item["scenario"]}):
        pair = [
            where(
                rows,
                organization=side["organization"],
                system=side["system"],
                benchmark=item["benchmark"],
                scenario=scenario,
            )
            for side in (small, large)
        ]
        if pair[0].empty or pair[1].empty:
            continue
        other_small, other_large = pair[0].iloc[0], pair[1].iloc[0]
        fits = "fits" if rule.fits(other_small, other_large) else "does not fit"
        found.append(
            f"{scenario} {formatting.signed_percent(_figures(other_small, other_large)[1])} ({fits})"
        )
    return f", and in {', '.join(found)}" if found else ""


def _pair_case(item: dict, rule: _PairRule) -> Case:
    return Case(
        f"{item['benchmark']} · {item['scenario']} · {item['reading']}",
        item["scenario"],
        item["gain_percent"],
        rule.gain_below,
        "%",
        item["reading"] == SCALE_OUT,
        (item["large_location"], item["small_location"]),
        detail=PairCase(gpu_ratio=item["gpu_ratio"]),
    )


def check_pairs(claim: Claim, data: Data):
    """Pairs of results of one benchmark and scenario whose GPU counts and gain fit a description.

    The natural reading is one submitter's system scaled out (same submitter, accelerator family,
    benchmark and scenario). For context the book also sets each benchmark's top result against the
    best result of any smaller system: a pair of different systems, which says nothing of scaling.
    """
    rule = _PairRule.of(claim.get("pairs"))
    rows, _ = select_for(data, claim, claim.get("rows") or {}, "rows")
    rows = rows[(rows["metric"] == "throughput") & (rows["total_accelerators"] > 0)]
    scale_outs, context = _scale_outs(rows, rule), _top_against_smaller(rows, rule)
    table = pd.DataFrame(scale_outs + context, columns=list(PAIR_COLUMNS))
    used = rows[rows["location"].isin(set(table["small_location"]) | set(table["large_location"]))]
    cases = [_pair_case(item, rule) for item in scale_outs + context]
    shown = {"tables": {"pairs": table}, "rows": rows_of([used])}
    if scale_outs:
        return presence_check(
            claim,
            SUPPORTED,
            f"{formatting.plural(len(scale_outs), 'scale-out')} in the round {'fits' if len(scale_outs) == 1 else 'fit'} the description ({rule.description()}): "
            f"{_listed(scale_outs, rows, rule)}.",
            cases=tuple(cases),
            deciding=cases[0].label,
            codes={"unnamed-baseline"},
            **shown,
        )
    reason = (
        f"The sentence is an illustration that names no system, so no result can confirm or refute it. No "
        f"submitter's own scale-out in the round has {rule.description()}."
    )
    notes = []
    if context:
        notes.append(
            f"Pairs of different systems fit it: {_listed(context, rows, rule)}. They are different systems, often of "
            "different submitters and accelerators, not one system scaled out"
        )
    codes = {"unnamed-baseline"} | ({"different-size"} if context else set())
    return cannot_check(claim, reason, notes=notes, codes=codes, **shown)
