"""Caveats as data: a fixed vocabulary of codes, each computed from the rows a check used.

A code either *qualifies* a verdict (a supported claim with one becomes "supported with
caveats") or only *labels* the figures (how they were derived). The method page lists every
code with its explanation from this table, and the book shows them as badges.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.common import formatting


@dataclass(frozen=True)
class Caveat:
    code: str
    label: str
    explanation: str
    qualifies: bool = True


VOCABULARY = (
    Caveat(
        "preview",
        "preview system",
        "A result used is in the Preview category: the system was not yet available; MLCommons requires it to be "
        "resubmitted as Available in a later round, and its figures may change.",
    ),
    Caveat(
        "rdi",
        "research system",
        "A result used is in the Research, Development or Internal (RDI) category: not a product that can be bought.",
    ),
    Caveat(
        "open-division",
        "Open division",
        "A result used is in the Open division, whose rules allow changes to the model or its processing that the "
        "Closed division forbids; Open and Closed results do not measure the same thing.",
    ),
    Caveat(
        "inferred",
        "inferred result",
        "A result used carries the `inferred` flag of the MLCommons summary: MLPerf published it as valid, but it "
        "was not measured in a run of its own; the submission tools derived it from another measured result of the "
        "same system. A ratio that sets an inferred result against a measured one says so.",
    ),
    Caveat(
        "different-size",
        "different system size",
        "The results compared come from systems of different sizes (GPU counts), or the system's size differs "
        "from the one the claim names.",
    ),
    Caveat(
        "unnamed-baseline",
        "unnamed baseline",
        "The claim does not name what it compares against; the book judged it against the natural reading (the "
        "claimant's own comparable systems) and shows every candidate.",
    ),
    Caveat(
        "superlinear-baseline",
        "above-linear scaling",
        "A scaling pair above 100% efficiency (beyond the tolerance) points to a weak smaller configuration, not "
        "to better scaling; such pairs are shown and flagged and never lead a comparison.",
    ),
    Caveat(
        "best-case-only",
        "best case only",
        'An "up to" figure is reached in the best case only; the other cases show less.',
    ),
    Caveat(
        "other-scenarios",
        "other scenarios fall short",
        "The claim names one scenario (its headline names none); the same results in a scenario it does not "
        "name fall short of its figure. They are shown beside it, with comparable results of other submitters.",
    ),
    Caveat(
        "understated",
        "claim understates",
        "The published results show more than the claim states (a figure stated as exact, not as a bound).",
    ),
    Caveat(
        "not-best-rival",
        "not against the best rival",
        "The comparison holds against the baseline the claim names but not against the best result of that class "
        "by any submitter.",
    ),
    Caveat(
        "definition-dependent",
        "depends on a definition",
        "The verdict depends on how a term of the claim is read; the book shows each reading.",
    ),
    Caveat(
        "detail-mismatch",
        "detail differs",
        "A detail the claim names (a software name, a number format) is not what the results state.",
    ),
    Caveat(
        "not-recorded",
        "detail not recorded",
        "A detail the claim names is finer than what the results summary records (NVFP4, where the summary "
        "records fp4): the data neither confirm nor contradict it.",
    ),
    Caveat(
        "detail-unsettled",
        "a detail unsettled",
        "A detail of the claim (a part that is not its core) does not hold or cannot be checked; the verdict "
        "follows the claim's core parts, and the detail is shown beside it.",
    ),
    Caveat(
        "near-bound",
        "at the edge of a vague bound",
        'A figure lies beyond the book\'s reading of a vague quantifier ("a few percent", "about", "nearly") by '
        "less than the precision the claim states it with: a caveat, not a failure.",
    ),
    Caveat(
        "cross-division",
        "across divisions",
        "The comparison sets an Open-division figure against a Closed-division one. MLCommons does not treat the "
        "divisions as comparable, so the book shows the figure but does not judge the claim on it.",
    ),
    Caveat(
        "incomplete-data",
        "incomplete data",
        "Part of what the claim covers has no result in the data the book has (a scenario, a round, a field the "
        "summary does not record).",
    ),
    Caveat(
        "other-round",
        "another round",
        "The comparison sets results of different MLPerf rounds against each other.",
    ),
    Caveat(
        "vendor-source",
        "vendor figure",
        "A figure used comes from a vendor's announcement, not from MLCommons' published results.",
    ),
    Caveat(
        "no-system-size",
        "size not stated",
        "A figure used has no stated system size, so it cannot be set against a result of a named system.",
    ),
    Caveat(
        "derived-metric",
        "derived by this book",
        "A figure shown is derived by this book from published results "
        "(a ratio, an efficiency, a per-GPU, per-watt or cost figure); it is not an MLPerf metric and is not "
        "verified by MLCommons.",
        qualifies=False,
    ),
    Caveat(
        "board-power-spec",
        "board power, not measured",
        "A per-watt or energy figure uses the GPU board power (TGP) a submitter states in its notes: a "
        "specification and a ceiling, not a measurement, and never MLPerf's own power results, where a "
        "round has them.",
        qualifies=False,
    ),
)
BY_CODE = {caveat.code: caveat for caveat in VOCABULARY}
CODES = tuple(BY_CODE)
QUALIFYING = frozenset(caveat.code for caveat in VOCABULARY if caveat.qualifies)


def ordered(codes) -> tuple[str, ...]:
    """Codes without repeats, in the vocabulary's order; an unknown code is an error."""
    codes = set(codes)
    unknown = codes - set(CODES)
    if unknown:
        raise ValueError(f"unknown caveat code(s) {', '.join(sorted(unknown))}; known: {', '.join(CODES)}")
    return tuple(code for code in CODES if code in codes)


def from_rows(rows: pd.DataFrame) -> set[str]:
    """The caveats that follow from the results themselves: category, division, inferred."""
    if rows is None or rows.empty:
        return set()
    codes = set()
    availability = set(rows["availability"].astype(str))
    if "preview" in availability:
        codes.add("preview")
    if "rdi" in availability:
        codes.add("rdi")
    if "open" in set(rows["division"].astype(str)):
        codes.add("open-division")
    if rows["inferred"].astype(bool).any():
        codes.add("inferred")
    return codes


def qualifies(codes) -> bool:
    return bool(QUALIFYING & set(codes))


def explain_rows(rows: pd.DataFrame, codes=None) -> list[str]:
    """One sentence per row-derived caveat (of ``codes``, default all) naming its results."""
    if rows is None or rows.empty:
        return []
    codes = from_rows(rows) if codes is None else set(codes)
    if not codes & {"preview", "rdi", "open-division", "inferred"}:
        return []  # (most rows: nothing to name, and naming costs a pass over them)
    sentences = []
    systems = _systems(rows)
    for status, code in (("preview", "preview"), ("rdi", "rdi")):
        named = sorted(set(systems[rows["availability"] == status]))
        if named and code in codes:
            sentences.append(f"{_join(named)} {'is' if len(named) == 1 else 'are'} in the {status} category")
    # With its accelerator: one published name may stand for systems of both divisions.
    open_rows = sorted(
        {
            f"{system[:-1]}, {family})" if system.endswith(")") and isinstance(family, str) else system
            for system, family in zip(
                systems[rows["division"] == "open"],
                rows["family"][rows["division"] == "open"]
                if "family" in rows.columns
                else [None] * len(rows),
            )
        }
    )
    if open_rows and "open-division" in codes:
        # The results' division, said of the results: the same name may have Closed results too.
        sentences.append(f"Open-division results used: {_join(open_rows)}")
    inferred = rows[rows["inferred"].astype(bool)]
    if not inferred.empty and "inferred" in codes:
        sentences.append(f"flagged inferred: {'; '.join(_inferred_cases(inferred))}")
    return sentences


def _systems(rows: pd.DataFrame) -> pd.Series:
    """Each row's system as a sentence names it: organization, id and GPU count (a published name
    such as "(72x GB300 ...)" never stands for the size). Positional: a sum's results may share
    index labels."""
    gpus = [formatting.plural(int(n), "GPU") for n in rows["total_accelerators"]]
    names = rows["organization"].astype(str) + " " + rows["system"].astype(str)
    return pd.Series([f"{name} ({size})" for name, size in zip(names, gpus)], index=rows.index)


def _inferred_cases(inferred: pd.DataFrame) -> list[str]:
    """Each system's inferred results by benchmark and scenario, never merged across benchmarks:
    "X (72 GPUs) in deepseek-r1 Interactive and qwen3-vl Offline/Server"."""
    frame = pd.DataFrame(
        {
            "system": _systems(inferred).values,
            "benchmark": inferred["benchmark"].astype(str).values,
            "scenario": inferred["scenario"].astype(str).values,
        }
    )
    cases = []
    for system, of_system in frame.groupby("system", sort=True):
        parts = [
            f"{benchmark} {'/'.join(sorted(set(group['scenario'])))}"
            for benchmark, group in of_system.groupby("benchmark", sort=True)
        ]
        cases.append(f"{system} in {_join(parts)}")
    return cases


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
