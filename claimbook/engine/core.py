"""What every kind of check returns, and the few steps they share.

A kind's check function finds the rows a claim is about, measures each *case* (a scenario, a
baseline, a definition), and decides a base verdict: supported, not supported or cannot be
checked. ``finish`` then adds the caveats that follow from the rows used, and only there does a
supported claim with a qualifying caveat become "supported with caveats".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from claimbook.claims.registry import Announcement, Claim, Registry
from claimbook.claims.selectors import Missing, describe, item_selector, missing, select, with_defaults
from claimbook.common.formatting import beside_claimed, plural, quantity
from claimbook.common.frame_memo import kept
from claimbook.engine import caveats as caveat_codes
from claimbook.engine.verdict import (
    CANNOT_BE_CHECKED,
    NOT_SUPPORTED,
    SUPPORTED,
    SUPPORTED_WITH_CAVEATS,
    decimals_of,
)
from claimbook.inputs.reference import Reference


class ClaimSpecError(ValueError):
    """A claim whose fields do not fit its kind; the message names the file, claim and field."""


class SelectionError(ClaimSpecError):
    """A selector that finds several results where the claim takes one, and does not say how to
    combine them (``combine: best``, ``combine: each`` or a ``sum``): a registry mistake, since a
    claim must always mean the same results."""


class SizeError(ClaimSpecError):
    """A comparison of two sides of different sizes (GPU counts) whose claim does not say how it
    compares them (``measure: whole-system`` or ``per-gpu``): a registry mistake, never a guess."""


def sizes_differ(claim, field: str, case: str, sides: str) -> SizeError:
    """The registry error of a comparison of two sizes that does not say how it compares them."""
    return SizeError(
        f"{claim.where}: field {field}: the two sides differ in size in {case} ({sides}); say how the claim "
        f"compares them: {field}: whole-system or per-gpu"
    )


@dataclass(frozen=True)
class Data:
    """Everything a check may read: the round's results, earlier rounds, the reviewed tables."""

    results: pd.DataFrame  # the current round, annotated (family, vendor, benchmark ...)
    earlier: pd.DataFrame  # earlier-round figures in the cross-round layout (may be empty)
    reference: Reference
    registry: Registry
    result_ids: pd.DataFrame | None = None  # IDs announcements cite (data/result_ids.csv)
    sources: dict | None = None  # where each round's results come from (data/mlperf/sources.csv)
    # Every round the book holds (``RoundTables``: each read when a claim of it is judged); None:
    # only ``results``' round.
    rounds: object = None
    # ``earlier`` as read, before it was narrowed to what one round's claims look back on.
    all_earlier: pd.DataFrame | None = None
    # The data files (and folders) these were read from, every round held among them: what a
    # check reads besides its claim (``claimbook.engine.check_cache``); () when not known.
    inputs: tuple = ()

    def announcement(self, claim: Claim) -> Announcement:
        return self.registry.announcements[claim.announcement]

    @property
    def round(self) -> str | None:
        """The round of ``results`` (None for an empty table)."""
        return str(self.results["round"].iloc[0]) if len(self.results) else None

    def round_table(self, round_name: str | None) -> pd.DataFrame:
        """The results of ``round_name`` where the book holds it, else this round's."""
        if self.rounds is None or round_name is None or round_name == self.round:
            return self.results
        return self.rounds.table(round_name) if round_name in self.rounds.names else self.results

    def all_rounds(self) -> pd.DataFrame:
        """Every round the book holds, as one table (what pages of several rounds cite)."""
        if self.rounds is None:
            return self.results
        tables = [self.round_table(name) for name in self.rounds.names]
        return pd.concat(tables, ignore_index=True) if len(tables) > 1 else self.results

    def for_claim(self, claim: Claim) -> Data:
        """The data a claim is judged on: its announcement's round's results, never another's."""
        return self.for_announcement(claim.announcement)

    def for_announcement(self, name: str) -> Data:
        """The data the claims of announcement ``name`` are judged on: its round's results."""
        announcement = self.registry.announcements.get(name)
        wanted = announcement.round if announcement is not None else None
        if wanted is None or self.rounds is None:
            return self
        results = self.results if wanted == self.round else self.rounds.table(wanted, announcement.path)
        read = self.earlier if self.all_earlier is None else self.all_earlier
        earlier = self.rounds.looked_back_on(wanted, read)
        if results is self.results and earlier is self.earlier:
            return self
        return replace(self, results=results, earlier=earlier, all_earlier=read)


class RoundTables:
    """The rounds a book holds, ``{round: read()}``, each read (once) when first asked for."""

    def __init__(self, readers: dict, known: dict | None = None):
        self._readers = dict(readers)
        self._tables = dict(known or {})
        self._looked_back: dict = {}  # (round, id of the table read): (that table, what it looks back on)

    @property
    def names(self) -> list[str]:
        """The rounds held, oldest first by version."""
        names = set(self._readers) | set(self._tables)
        return sorted(names, key=lambda name: tuple(int(part) for part in name[1:].split(".")))

    def looked_back_on(self, round_name: str, earlier: pd.DataFrame) -> pd.DataFrame:
        """What a claim of ``round_name`` looks back on (``inputs.earlier.before_round``): the
        figures of earlier rounds only, and every round held in full before it. Made once a round."""
        from claimbook.inputs.earlier import before_round, round_order

        key = (round_name, id(earlier))
        if key not in self._looked_back:
            older = [name for name in self.names if round_order(name) < round_order(round_name)]
            held = {name: self.table(name) for name in older}
            self._looked_back[key] = (earlier, before_round(earlier, held, round_name))
        return self._looked_back[key][1]

    def table(self, round_name: str, where="") -> pd.DataFrame:
        """A round's annotated results; a round the book does not hold is one line naming the rounds it has."""
        if round_name not in self._tables:
            if round_name not in self._readers:
                raise ClaimSpecError(missing_round(round_name, self.names, where))
            self._tables[round_name] = self._readers[round_name]()
        return self._tables[round_name]


def missing_round(round_name: str, held, where="") -> str:
    """The error for a registry whose round the book holds no results of."""
    place = f"{where}: " if where else ""
    return (
        f"{place}field announcement.round: {round_name}: the book holds no results of that round "
        f"(it holds {', '.join(held) or 'none'}); ingest that round's summary first"
    )


class CaseDetail:
    """What a case shows beside its figures: each kind subclasses it with a frozen dataclass of
    its own (``SPEC.detail``). The class attributes below are what code outside the kind (the
    division rule, the scorecard, the cross-reference) may read of any case; a kind that has them
    declares them as fields."""

    note = ""  # why a case has no figure ("no result of the subject in Server")
    sides = False  # a subject set against a baseline result (a comparison another vendor may meet)
    cross_division = False  # set against a result of the other division: shown, not judged
    uncontested = False  # a comparison with a field in which no other submitter has a result
    # The comparison figures the scorecard records, where a kind computes them.
    measured_vs_best_any = None
    best_class = None
    best_any = None
    per_gpu_ratio = None
    per_watt_ratio = None
    best_rival = None
    best_rival_family = None
    vs_best_rival = None


NO_DETAIL = CaseDetail()


@dataclass(frozen=True)
class Case:
    label: (
        str  # how a reader sees the case: "Interactive", "B300 · Server", "per GPU · deepseek-r1 · Offline"
    )
    scenario: str
    measured: float | None
    claimed: float | None
    unit: str
    reaches: bool | None  # None when there is nothing to measure or no figure to reach
    evidence: tuple[str, ...] = ()  # provenance (Location) of the results used
    # The results the case stands on, by role: (role, organization, system, location, count).
    selected: tuple[tuple, ...] = ()
    detail: CaseDetail = NO_DETAIL  # the kind's case detail (its SPEC.detail)

    def __post_init__(self):
        # numpy scalars in, plain Python out: ``reaches is False`` must mean what it says.
        if self.reaches is not None:
            object.__setattr__(self, "reaches", bool(self.reaches))
        for name in ("measured", "claimed"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, float(value))


@dataclass(frozen=True)
class Check:
    claim: Claim
    verdict: str
    reason: str
    cases: tuple[Case, ...] = ()
    deciding: str | None = None  # label of the case that decides the verdict
    rows: pd.DataFrame | None = None  # the published results used
    caveats: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # sentences behind the caveats, computed from the rows
    tables: dict = field(default_factory=dict)  # context a page shows: candidates, field, pairs ...
    parts: tuple[Check, ...] = ()
    missing: tuple[str, ...] = ()  # what a selector looked for and did not find
    summary: str = ""  # the finding in a few words, where a range of figures says it badly
    acknowledged: tuple[str, ...] = ()  # caveats the claim itself states (shown, not held against it)
    context: tuple[
        str, ...
    ] = ()  # what a reader expects beside the figures, shown on the card; never deciding

    def measured_range(self) -> str:
        """The spread of the measured figures and the deciding case: "1.83-3.74x, deciding: Interactive"."""
        if self.summary:
            return self.summary
        measured = [case for case in self.cases if case.measured is not None and math.isfinite(case.measured)]
        if not measured:
            return ""
        unit = measured[0].unit
        low = min(case.measured for case in measured)
        high = max(case.measured for case in measured)
        if len(measured) == 1 or math.isclose(low, high):
            only = measured[0]
            # Beside a stated figure, as many decimals as show how it rounds to it (0.6546, not 0.655).
            text = (
                beside_claimed(only.measured, decimals_of(only.claimed), unit)
                if only.claimed is not None and unit not in ("x", "%")
                else quantity(only.measured, unit)
            )
        else:
            text = f"{quantity(low, '')}–{quantity(high, unit)}"
        unnamed = [case for case in measured if case.claimed is None and case.reaches is None]
        if unnamed and len(unnamed) < len(measured) and any(case.claimed is not None for case in measured):
            # A headline that names no scenario: the scenarios the claim does not name are its spread.
            named = [case for case in measured if not (case.claimed is None and case.reaches is None)]
            return (
                f"{text}: "
                + ", ".join(f"{case.label} {quantity(case.measured, unit)} (claimed)" for case in named)
                + ", "
                + ", ".join(
                    f"{case.label} {quantity(case.measured, unit)} (not named by the claim)"
                    for case in unnamed
                )
            )
        if self.deciding and len(measured) > 1:
            text += f", deciding: {self.deciding}"
        return text

    def deciding_case(self) -> Case | None:
        for case in self.cases:
            if case.label == self.deciding:
                return case
        return None


def published(rows: pd.DataFrame | None) -> pd.DataFrame | None:
    """The rows with every combined (summed) result replaced by the published results it sums:
    what a check used, each with its own folder of logs."""
    if rows is None or rows.empty or "member_rows" not in rows:
        return rows
    combined = rows["member_rows"].map(lambda value: isinstance(value, tuple))
    members = [pd.DataFrame(list(value)) for value in rows.loc[combined, "member_rows"]]
    plain = rows[~combined]
    found = pd.concat([plain, *members]) if members else plain
    found = found.drop(columns=[name for name in ("combined", "members", "member_rows") if name in found])
    return found.drop_duplicates("location").sort_values("location", kind="stable")


def rows_of(frames) -> pd.DataFrame:
    """Several selections as one frame of distinct results, in provenance order."""
    frames = [frame for frame in frames if frame is not None and not frame.empty]
    if not frames:
        return pd.DataFrame()
    rows = pd.concat(frames)
    rows = rows[~rows.index.duplicated()] if rows.index.is_unique is False else rows
    return rows.drop_duplicates("location").sort_values("location", kind="stable")


ROW_CODES = ("preview", "rdi", "open-division", "inferred")


@dataclass(frozen=True)
class Outcome:
    """What a kind's check decided, before ``finish`` adds the caveats the rows imply: a base
    verdict (supported, not supported or cannot be checked), its reason, and what it stands on."""

    verdict: str
    reason: str
    cases: tuple = ()
    deciding: str | None = None
    rows: pd.DataFrame | None = None
    codes: frozenset | set | tuple = ()
    notes: tuple | list = ()
    tables: dict | None = None
    parts: tuple = ()
    missing: tuple | list = ()  # what a selector looked for and did not find
    row_codes: tuple[str, ...] = ROW_CODES  # the caveats the rows may imply
    summary: str = ""
    context: tuple | list = ()


def finish(claim: Claim, outcome: Outcome) -> Check:
    """The check of ``claim`` from its ``Outcome``: the caveats the rows imply (those in
    ``row_codes``) added, and "supported" with a qualifying caveat the claim does not itself
    state turned into "supported with caveats"."""
    if outcome.verdict not in (SUPPORTED, NOT_SUPPORTED, CANNOT_BE_CHECKED):
        raise ValueError(
            f"{claim.where}: a kind decides supported, not supported or cannot be checked, not {outcome.verdict!r}"
        )
    rows = published(outcome.rows)
    from_rows = caveat_codes.from_rows(rows) & set(outcome.row_codes)
    all_codes = set(outcome.codes) | from_rows
    all_notes = list(outcome.notes) + [
        sentence[:1].upper() + sentence[1:] for sentence in caveat_codes.explain_rows(rows, from_rows)
    ]
    acknowledged = tuple(
        code for code in caveat_codes.ordered(all_codes) if code in set(claim.get("acknowledges") or ())
    )
    verdict = outcome.verdict
    if verdict == SUPPORTED and caveat_codes.qualifies(all_codes - set(acknowledged)):
        verdict = SUPPORTED_WITH_CAVEATS
    return Check(
        claim=claim,
        verdict=verdict,
        reason=outcome.reason,
        cases=tuple(outcome.cases),
        deciding=outcome.deciding,
        rows=rows if rows is not None else pd.DataFrame(),
        caveats=caveat_codes.ordered(all_codes),
        notes=tuple(dict.fromkeys(note if note.endswith(".") else note + "." for note in all_notes)),
        tables=dict(outcome.tables or {}),
        parts=tuple(outcome.parts),
        missing=tuple(outcome.missing),
        summary=outcome.summary,
        acknowledged=acknowledged,
        context=tuple(
            note if note.endswith(".") else note + "."
            for note in [*outcome.context, *_with_itself(outcome.cases)]
        ),
    )


def _with_itself(cases) -> list[str]:
    """The cases whose two sides are the very same results (a set's best that is the result it
    is set against, one system under two names), in words: their figure is by construction."""
    found = []
    for case in cases:
        by_role: dict[str, set] = {}
        for role, _organization, _system, location, _count in case.selected:
            by_role.setdefault(role, set()).add(location)
        roles = list(by_role)
        pairs = [(one, other) for index, one in enumerate(roles) for other in roles[index + 1 :]]
        same = next(((one, other) for one, other in pairs if by_role[one] == by_role[other]), None)
        if same is not None:
            names = ", ".join(
                dict.fromkeys(f"{entry[1]} {entry[2]}" for entry in case.selected if entry[0] == same[0])
            )
            found.append(
                f"In {case.label}, the {same[0]} and the {same[1]} are the same result ({names}): that case "
                "compares a result with itself, so it shows no difference by construction, not by measurement"
            )
    return found


def select_for(
    data: Data, claim: Claim, selector: dict | None, name: str, extra: dict | None = None
) -> tuple[pd.DataFrame, str | None]:
    """The rows a claim's selector names, with the claim's division (Closed unless it says
    otherwise) and ``extra`` criteria; and, when nothing matches, what was looked for."""
    defaults = {"division": claim.get("division", "closed")}
    if selector and "sum" in selector:
        return _summed(data, claim, selector, name, extra, defaults)
    full = with_defaults({**(selector or {}), **(extra or {})}, defaults)
    rows = select(data.results, full)
    if not rows.empty:
        return rows, None
    why: Missing | None = missing(data.results, full)
    text = f"{name} ({describe(selector or {})}): " + (why.text() if why else "nothing matches")
    return rows, text


def _summed(
    data: Data, claim: Claim, selector: dict, name: str, extra, defaults
) -> tuple[pd.DataFrame, str | None]:
    """A sum selector's combined results: one row per benchmark and scenario every item has, its
    result the sum of each item's result times its count (and so its GPUs and nodes)."""
    shared = {key: value for key, value in selector.items() if key != "sum"}
    items, absent = [], []
    for index, item in enumerate(selector["sum"]):
        rows, why = select_for(
            data, claim, {**shared, **item_selector(item)}, f"{name} item {index + 1}", extra
        )
        if why:
            absent.append(why)
        items.append((int(item.get("count", 1)), rows, item))
    if absent:
        return data.results.iloc[:0], "; ".join(absent)
    keys = set.intersection(*(set(zip(rows["benchmark"], rows["scenario"])) for _, rows, _ in items))
    combined = []
    for benchmark, scenario in sorted(keys):
        picked = []
        for index, (count, rows, item) in enumerate(items):
            in_case = rows[(rows["benchmark"] == benchmark) & (rows["scenario"] == scenario)]
            row = pick(in_case, item, f"{name.split(' ')[0]}.sum[{index}]", claim, f"{benchmark} {scenario}")
            picked.append((count, row))
        if len({row["units"] for _, row in picked}) == 1:
            combined.append(_sum_row(picked))
    if not combined:
        return data.results.iloc[:0], (
            f"{name} ({describe(selector)}): its items have no benchmark and scenario in common"
            + (" in the same units" if keys else "")
        )
    return pd.DataFrame(combined), None


def _sum_row(picked: list[tuple[int, pd.Series]]) -> pd.Series:
    """One combined result from (count, result) pairs; its provenance lists every result."""
    first = picked[0][1].copy()
    total = lambda column: sum(count * row[column] for count, row in picked)
    gpus = int(total("total_accelerators"))
    watts = {row["gpu_watts"] for _, row in picked}
    availability = [row["availability"] for _, row in picked if row["availability"] != "available"]
    first["result"] = float(total("result"))
    first["total_accelerators"] = gpus
    first["nodes"] = int(total("nodes"))
    first["per_accelerator"] = first["result"] / gpus if gpus else float("nan")
    first["gpu_watts"] = watts.pop() if len(watts) == 1 else float("nan")
    first["availability"] = availability[0] if availability else "available"
    first["inferred"] = any(bool(row["inferred"]) for _, row in picked)
    first["division"] = "+".join(sorted({row["division"] for _, row in picked}))
    first["organization"] = " + ".join(dict.fromkeys(row["organization"] for _, row in picked))
    first["system"] = " + ".join(f"{count} × {row['system']}" for count, row in picked)
    first["location"] = " + ".join(row["location"] for _, row in picked)
    # Each item sized in the sentence too: a published name never stands for a system's size.
    first["combined"] = "the sum of " + " and ".join(
        f"{count} × {row['organization']} {row['system']} ({plural(int(row['total_accelerators']), 'GPU')} each)"
        for count, row in picked
    )
    first["members"] = tuple(
        (row["organization"], row["system"], row["location"], count) for count, row in picked
    )
    first["member_rows"] = tuple(row.to_dict() for _, row in picked)
    first.name = "sum:" + first["location"]
    return first


def pick(rows: pd.DataFrame, selector: dict | None, role: str, claim: Claim, case: str) -> pd.Series | None:
    """The one result of a case a selector names; several only with ``combine: best`` or
    ``each`` (the best of them; a kind that supports ``each`` splits them before), else an error
    naming the matches."""
    if rows is None or rows.empty:
        return None
    if len(rows) == 1:
        return rows.iloc[0]
    if (selector or {}).get("combine") in ("best", "each"):
        return best_row(rows)
    raise SelectionError(several(claim, role, rows, case))


def several(claim: Claim, role: str, rows: pd.DataFrame, case: str) -> str:
    """The registry error of a selector that finds several results for one case."""
    ordered = rows.sort_values("location", kind="stable")
    shown = "; ".join(
        f"{row['organization']} {row['system']} ({row['location']})" for _, row in ordered.head(6).iterrows()
    )
    more = f" and {len(ordered) - 6} more" if len(ordered) > 6 else ""
    return (
        f"{claim.where}: field {role}: {len(ordered)} results match in {case}, where the claim takes one: "
        f"{shown}{more}; name one (organization, system) or say how they combine (combine: best, "
        "combine: each, or sum: [...])"
    )


def each_label(label: str, row: pd.Series, rows: pd.DataFrame) -> str:
    """The label of one case of ``combine: each``: the case and the result's system (and its
    division where the same system is in both)."""
    same = where(rows, organization=row["organization"], system=row["system"])
    division = f", {row['division']}" if len(same) > 1 else ""
    return f"{label} · {row['organization']} {row['system']}{division}"


def chosen(role: str, row: pd.Series | None) -> tuple[tuple, ...]:
    """The selection record of one result used in a role: (role, organization, system, location,
    count), one per summed result."""
    if row is None:
        return ()
    members = row.get("members")
    if isinstance(members, tuple):
        return tuple((role, org, system, location, count) for org, system, location, count in members)
    return ((role, str(row["organization"]), str(row["system"]), str(row["location"]), 1),)


def benchmarks_of(claim: Claim) -> list[str]:
    value = claim.get("benchmark")
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def scenarios_of(claim: Claim, available) -> list[str]:
    """The claim's scenarios, or every scenario the data has for it, in the book's order."""
    from claimbook.inputs.schema import SCENARIOS

    named = claim.get("scenarios")
    if named:
        return list(named)
    present = set(available)
    return [name for name in SCENARIOS if name in present]


def where(rows: pd.DataFrame, **equal) -> pd.DataFrame:
    """The rows whose columns equal the values given (``where(rows, benchmark=b, scenario=s)``):
    one mask and one selection, where a chain of ``rows[rows[c] == v]`` makes a frame a step."""
    mask = np.ones(len(rows), dtype=bool)
    for column, value in equal.items():
        mask &= _equal(rows[column], value)
    return kept(rows, mask)


def _equal(values: pd.Series, value) -> np.ndarray:
    """``(values == value)`` as an array: in numpy for a text or a number against a column of
    texts or numbers (as pandas compares them: no missing value equals either), else by pandas."""
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else None
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )
    if (kind == "O" and isinstance(value, str)) or (kind in ("i", "u", "f") and number):
        try:
            return values.to_numpy() == value
        except TypeError:  # (a pandas NA among the values: pandas reads it as no match)
            pass
    return (values == value).to_numpy(dtype=bool)


def best_row(rows: pd.DataFrame) -> pd.Series | None:
    """The best result (highest throughput, lowest latency); ties go to the first by provenance."""
    if rows is None or rows.empty:
        return None
    # (the rows in provenance order, as ``sort_values("location", kind="stable")`` orders them)
    order = rows["location"].argsort(kind="stable").to_numpy()
    higher = bool(rows["higher_is_better"].iloc[order[0]])
    results = rows["result"].to_numpy()[order]
    position = results.argmax() if higher else results.argmin()
    return rows.iloc[int(order[position])]


def gpus_said(row) -> str:
    """A result's GPU count in words ("288 GPUs"), or that its source does not state one: every
    system a sentence names carries its size, so a published name ("(72x GB300 ...)") never
    stands for it."""
    gpus = row.get("total_accelerators")
    if gpus is None or pd.isna(gpus):
        return "GPU count not stated"
    return plural(int(gpus), "GPU")


def label_of(row: pd.Series) -> str:
    """ "NVIDIA GB300-NVL72_..._x72_TRT (72 GPUs)" """
    gpus = int(row["total_accelerators"])
    combined = row.get("combined")
    if isinstance(combined, str):
        return f"{combined} ({plural(gpus, 'GPU')} in all)"
    return f"{row['organization']} {row['system']} ({plural(gpus, 'GPU')})"


# The book's rule for a comparison across divisions (book/method.md, "Judgment rules").
ACROSS_DIVISIONS = (
    "MLCommons does not treat the Open and Closed divisions as comparable, so the book shows this figure "
    "but does not judge the claim on it"
)


def across_divisions(*divisions) -> bool:
    """Whether a comparison sets results of different divisions against each other (an unknown
    division, an empty text, does not count)."""
    return len({str(division).lower() for division in divisions if division and str(division).strip()}) > 1


def within_divisions(
    claim: Claim, measured_cases: list, spread: str, outcome: Outcome
) -> tuple[Check | None, list]:
    """The cases a claim is judged on: those within one division. When every measured case
    crosses divisions, the check instead: cannot be checked on what ``outcome`` gathered, the
    figures (``spread``) shown."""
    crossing = [case for case in measured_cases if case.detail.cross_division]
    if crossing and len(crossing) == len(measured_cases):
        reason = f"Measured across divisions: {spread}. {ACROSS_DIVISIONS}."
        decided = replace(outcome, verdict=CANNOT_BE_CHECKED, reason=reason, deciding=crossing[0].label)
        return finish(claim, decided), []
    return None, [case for case in measured_cases if not case.detail.cross_division]


def cannot_check(claim: Claim, reason: str, **fields) -> Check:
    """A check that cannot be checked, on what it found (``Outcome``'s fields by name)."""
    return finish(claim, Outcome(CANNOT_BE_CHECKED, reason, **fields))
