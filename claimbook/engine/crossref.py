"""Where two announcements meet: claims of different announcements that rest on the same
published results, each side's figure, and the results of the same benchmark and scenario that
neither side mentions."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass

import pandas as pd

from claimbook.engine import check_cache, notebook_records
from claimbook.engine.core import label_of
from claimbook.inputs.schema import CITED_COLUMNS


@dataclass(frozen=True)
class Meeting:
    benchmark: str
    scenario: str
    shared: pd.DataFrame  # the results of the benchmark and scenario the meeting claims use (``used_by``)
    sides: dict  # announcement id -> the ``Leaf`` of each claim that uses them
    left_out: pd.DataFrame  # the best results of the benchmark and scenario no side used


@dataclass(frozen=True)
class Leaf:
    """What this page reads of a check or of one of its parts: its claim (by id, announcement and
    the title a table gives it, never the claim itself: ``reading``'s digest must hold all the
    page reads), verdict and measured figures, the results it rests on, and, where it sets a
    subject against a baseline case by case, its cases and the rows it used (the comparisons and
    the citation show them)."""

    claim_id: str
    announcement: str
    title: str  # ``claim_title``
    card: str  # the page its card is on, which the tables link (``Registry.card_page``)
    verdict: str
    measured: str  # ``Check.measured_range()``
    locations: tuple[str, ...]  # the Locations of the results it used, in the order it used them
    cases: tuple[SidedCase, ...] = ()  # a sided leaf's cases
    rows: pd.DataFrame | None = None  # a sided leaf's results, what a citation reads of them (``cited``)


@dataclass(frozen=True)
class SidedCase:
    """What the comparisons read of a case that sets a subject against a baseline (never the
    claimed figure, which no table of this page shows)."""

    label: str
    measured: float | None
    unit: str
    evidence: tuple[str, ...]
    best_rival: object
    best_rival_family: object
    vs_best_rival: object

    @classmethod
    def of(cls, case) -> SidedCase:
        detail = case.detail
        return cls(
            case.label,
            case.measured,
            case.unit,
            tuple(case.evidence),
            detail.best_rival,
            detail.best_rival_family,
            detail.vs_best_rival,
        )


@dataclass(frozen=True)
class Seen:
    """What this page reads of one claim's check (``seen``): the parts whose figures rest on
    particular results (``_leaves``), and those that set a subject against a baseline
    (``_sides``), each in the check's order. Kept between builds instead of the whole check:
    a reading page takes hundreds of them, and the pandas tables of a whole check took most of
    the time of taking it (``check_cache``)."""

    leaves: tuple[Leaf, ...]
    sided: tuple[Leaf, ...]

    @functools.cached_property
    def digest(self) -> str:
        """``reading``'s digest, made once: taken from the check cache with the rest, a page of
        hundreds of claims does not make it again for each (a tenth of a second at 350)."""
        text = json.dumps(_plain(self), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def seen(check, registry) -> Seen:
    """What this page reads of ``check`` (``registry``: where a part's title comes from)."""
    parts = check.parts or (check,)
    sided = {id(part): _leaf(part, registry, sided=True) for part in parts if _sides(part)}
    return Seen(
        tuple(sided.get(id(part)) or _leaf(part, registry) for part in _leaves(check)), tuple(sided.values())
    )


def _leaf(part, registry, sided: bool = False) -> Leaf:
    # (in the rows' order, never a set's: the meetings and their sides are listed in the order
    # the claims use their results, the same in every process whatever its hashes)
    claim = part.claim
    figures = (
        claim.id,
        claim.announcement,
        claim_title(claim, registry),
        registry.card_page(claim),
        part.verdict,
        part.measured_range(),
        tuple(dict.fromkeys(part.rows["location"])),
    )
    return Leaf(*figures, tuple(map(SidedCase.of, part.cases)), cited(part.rows)) if sided else Leaf(*figures)


def cited(rows: pd.DataFrame) -> pd.DataFrame:
    """What the page's citation reads of ``rows`` (``CITED_COLUMNS``, those the rows have)."""
    return rows[[column for column in CITED_COLUMNS if column in rows.columns]]


def _leaves(check):
    """A check and its parts whose figures rest on particular results: a count or a list of
    what exists (partners, kinds of benchmark) touches results only as examples (its kind's spec
    says so)."""
    from claimbook.engine import SPECS

    return [
        part
        for part in (check.parts or (check,))
        if part.rows is not None
        and not part.rows.empty
        and (part.claim.kind not in SPECS or SPECS[part.claim.kind].rests_on_rows(part.claim))
    ]


def _sides(check) -> bool:
    """Whether a check sets a subject against a baseline result, case by case (its cases say)."""
    return check.rows is not None and not check.rows.empty and any(case.detail.sides for case in check.cases)


def round_checks(data) -> dict:
    """The checks of the claims of the book's round (``data``'s): where announcements meet is a
    page of one round, so a claim of another round is not among them."""
    of_round = [
        claim
        for claim in data.registry.claims
        if data.registry.announcements[claim.announcement].round == data.round
    ]
    # Kept between builds: after one claim's edit, the others are taken from the cache.
    from claimbook import engine

    def seen_and_read(claim) -> Seen:
        made = seen(engine.check(claim, data), data.registry)
        reading(made)  # (kept with it)
        return made

    return check_cache.kept(of_round, data, "where they meet", seen_and_read)


# The record this page leaves for the build (``notebook_records``): what it read of each claim.
READINGS = "readings"
READING_COLUMNS = ("claim", "reading")


def reading(seen_: Seen) -> str:
    """The digest of all this page reads of one claim's check (its ``Seen``, whole): a claim
    whose digest is the one the page recorded changes nothing of the page, whatever else of it
    changed (its claimed figure, where no verdict or measured figure moved)."""
    return seen_.digest


def readings(checks: dict) -> list[dict]:
    """What the page read of each claim of ``checks`` (``{claim id: Seen}``), in its order."""
    return [{"claim": claim_id, "reading": reading(seen_)} for claim_id, seen_ in checks.items()]


def record_readings(checks: dict) -> None:
    """Leave ``readings`` in the executed page: a build then runs the page again only where a
    claim's reading changed (``claimbook.pipeline.rereading``)."""
    notebook_records.publish(READINGS, readings(checks), READING_COLUMNS, ("claim",))


def _plain(value):
    """``value`` as JSON, all of it: a kind of value this cannot hold whole is an error, never a
    digest of part of it."""
    if isinstance(value, pd.DataFrame):
        return {
            "columns": [str(name) for name in value.columns],
            "dtypes": [str(kind) for kind in value.dtypes],
            "rows": value.to_csv(index=False, lineterminator="\n"),
        }
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {field.name: _plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
        return {"type": f"{type(value).__module__}.{type(value).__qualname__}", **fields}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if hasattr(value, "item") and not isinstance(value, str):  # a numpy scalar
        value = value.item()
    if isinstance(value, float):
        return repr(value)  # (NaN and infinities too, which JSON has not)
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(
        f"what the meeting page reads holds a {type(value).__name__}, which its digest cannot hold"
    )


def round_announcements(data) -> str:
    """Which announcements of the book's round this page sets side by side, each with its
    publisher and date, from the registries (never a fixed sentence: dates differ)."""
    from claimbook.common import formatting

    of_round = [item for item in data.registry.announcements.values() if item.round == data.round]
    if not of_round:
        return f"No announcement of {data.round} is in the registries."
    listed = [f"{item.title} ({item.publisher}, {item.date})" for item in of_round]
    dates = {item.date for item in of_round}
    when = ""
    if len(of_round) > 1:
        when = (
            ", published on the same day"
            if len(dates) == 1
            else f", published on {len(dates)} different days"
        )
    return (
        f"{formatting.plural(len(of_round), 'announcement')} of MLPerf Inference {data.round}{when}: "
        f"{'; '.join(listed)}."
    )


def meeting_points(checks: dict, data, top: int = 3) -> list[Meeting]:
    """Every benchmark and scenario where claims of two or more announcements use a common result."""
    users: dict[str, dict] = {}
    for check in checks.values():
        for leaf in check.leaves:
            for location in leaf.locations:
                users.setdefault(location, {}).setdefault(leaf.announcement, []).append(leaf)
    shared = {location: sides for location, sides in users.items() if len(sides) > 1}
    results = data.results.set_index("location", drop=False)
    meetings: dict[tuple, dict] = {}
    for location, sides in shared.items():
        row = results.loc[location]
        key = (row["benchmark"], row["scenario"])
        entry = meetings.setdefault(key, {"locations": set(), "sides": {}})
        entry["locations"].add(location)
        for announcement, leaves in sides.items():
            for leaf in leaves:
                if all(
                    existing.claim_id != leaf.claim_id
                    for existing in entry["sides"].setdefault(announcement, [])
                ):
                    entry["sides"][announcement].append(leaf)
    return [
        _meeting(benchmark, scenario, entry, data, top)
        for (benchmark, scenario), entry in sorted(meetings.items())
    ]


def _meeting(benchmark: str, scenario: str, entry: dict, data, top: int) -> Meeting:
    """One benchmark and scenario where announcements meet: the results they share (with whose
    claims use each), each side's claims, and the best results neither uses."""
    # each leaf's locations as a set, once (not once for every location it is asked about)
    locations_of = {
        announcement: [frozenset(leaf.locations) for leaf in leaves]
        for announcement, leaves in entry["sides"].items()
    }
    used = set().union(*(leaf_set for sets in locations_of.values() for leaf_set in sets))
    same = data.results[
        (data.results["benchmark"] == benchmark)
        & (data.results["scenario"] == scenario)
        & (data.results["division"] == "closed")
    ]
    higher = bool(same["higher_is_better"].iloc[0]) if not same.empty else True
    others = same[~same["location"].isin(used)].sort_values("result", ascending=not higher).head(top)
    in_scenario = same[same["location"].isin(used)].sort_values("result", ascending=not higher)
    users_of = {
        location: sorted(
            registry_publisher(data, announcement)
            for announcement, sets in locations_of.items()
            if any(location in leaf_set for leaf_set in sets)
        )
        for location in in_scenario["location"]
    }
    return Meeting(
        benchmark,
        scenario,
        in_scenario.assign(
            used_by=[" and ".join(users_of[location]) for location in in_scenario["location"]]
        ).reset_index(drop=True),
        entry["sides"],
        others.reset_index(drop=True),
    )


def registry_publisher(data, announcement: str) -> str:
    return data.registry.announcements[announcement].publisher


def publisher_and_round(announcement) -> str:
    """How a table that puts announcements side by side names one: "AMD (v6.1)"."""
    return f"{announcement.publisher} ({announcement.round})"


def claim_title(claim, registry) -> str:
    """A claim as a table names it: its title; a part, its parent's title and the part's name."""
    if claim.get("title"):
        return str(claim.get("title"))
    if claim.parent:
        parent = registry.claim(claim.parent)
        if parent.get("title"):
            return f"{parent.get('title')} (part {claim.id.rsplit('.', 1)[-1]})"
    return claim.statement


def sides_table(meeting: Meeting, registry) -> pd.DataFrame:
    """Each claim that uses the shared results: its announcement, verdict and figure."""
    rows = []
    for announcement, leaves in meeting.sides.items():
        for leaf in leaves:
            rows.append(
                {
                    "Announcement": publisher_and_round(registry.announcements[announcement]),
                    "Claim": leaf.title,
                    "Claim id": leaf.claim_id,
                    "Verdict": leaf.verdict,
                    "Measured": leaf.measured or "—",
                }
            )
    return pd.DataFrame(rows)


def _results_table(rows: pd.DataFrame, **extra) -> pd.DataFrame:
    """Results as a meeting's tables show them: the result, ``extra`` columns, then its figures."""
    return pd.DataFrame(
        {
            "Result": [label_of(row) for _, row in rows.iterrows()],
            **{name: list(values) for name, values in extra.items()},
            "Accelerator": list(rows["family"]),
            "Value": list(rows["result"]),
            "Units": list(rows["units"]),
            "Per GPU": list(rows["per_accelerator"]),
        }
    )


def left_out_table(meeting: Meeting) -> pd.DataFrame:
    return _results_table(meeting.left_out)


def shared_table(meeting: Meeting) -> pd.DataFrame:
    return _results_table(meeting.shared, **{"Used by the claims of": meeting.shared["used_by"]})


def rival_comparisons(checks: dict, data) -> pd.DataFrame:
    """Every case in which a claim sets its claimant's result against a rival vendor's, with the
    best result of another vendor's system at the claimant's size, on any accelerator (the figure
    the claim's own card shows, computed once by the engine)."""
    rows = []
    # a round's results: each location's first row, found once (the frame is kept with it, so
    # that its id names no other frame meanwhile)
    positions: dict[int, tuple] = {}
    for check in checks.values():
        for leaf in check.sided:
            announcement = data.registry.announcements[leaf.announcement]
            results = data.for_announcement(leaf.announcement).results  # the results of the claim's own round
            if id(results) not in positions:
                first: dict = {}
                for position, location in enumerate(results["location"]):
                    first.setdefault(location, position)
                positions[id(results)] = (results, first)
            at = positions[id(results)][1]
            for case in leaf.cases:
                if case.measured is None or len(case.evidence) < 2:
                    continue
                subject = results.iloc[at[case.evidence[0]]]
                rival = results.iloc[at[case.evidence[1]]]
                if rival["vendor"] == announcement.vendor:
                    continue
                best = case.best_rival
                rows.append(
                    {
                        "Announcement": publisher_and_round(announcement),
                        "Claim id": leaf.claim_id,
                        "Case": case.label,
                        "Claimant's result": label_of(subject),
                        "Compared with": label_of(rival),
                        "Measured": case.measured,
                        "Unit": case.unit,
                        "Best result of another vendor at that size": "—"
                        if best is None
                        else f"{best}, {case.best_rival_family}",
                        "Claimant against it (%)": case.vs_best_rival,
                    }
                )
    return pd.DataFrame(rows)


def shown_rows(meetings: list[Meeting], checks: dict) -> pd.DataFrame:
    """Every published result the page shows (the shared results, those both leave out, and the
    results of the claims against a rival's systems), what its citation reads of each."""
    frames = [frame for meeting in meetings for frame in (meeting.shared, meeting.left_out)]
    for check in checks.values():
        frames += [leaf.rows for leaf in check.sided]
    frames = [cited(frame) for frame in frames if frame is not None and not frame.empty]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames).drop_duplicates("location").sort_values("location", kind="stable")
