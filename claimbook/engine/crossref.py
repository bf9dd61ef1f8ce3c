"""Where two announcements meet: claims of different announcements that rest on the same
published results, each side's figure, and the results of the same benchmark and scenario that
neither side mentions."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.engine import check_cache
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
    """What this page reads of a check or of one of its parts: its claim, verdict and measured
    figures, the results it rests on, and, where it sets a subject against a baseline case by
    case, its cases and the rows it used (the comparisons and the citation show them)."""

    claim: Claim
    verdict: str
    measured: str  # ``Check.measured_range()``
    locations: tuple[str, ...]  # the Locations of the results it used, in the order it used them
    cases: tuple = ()  # a sided leaf's cases
    rows: pd.DataFrame | None = None  # a sided leaf's results, what a citation reads of them (``cited``)


@dataclass(frozen=True)
class Seen:
    """What this page reads of one claim's check (``seen``): the parts whose figures rest on
    particular results (``_leaves``), and those that set a subject against a baseline
    (``_sides``), each in the check's order. Kept between builds instead of the whole check:
    a reading page takes hundreds of them, and the pandas tables of a whole check took most of
    the time of taking it (``check_cache``)."""

    leaves: tuple[Leaf, ...]
    sided: tuple[Leaf, ...]


def seen(check) -> Seen:
    """What this page reads of ``check``."""
    parts = check.parts or (check,)
    sided = {id(part): _leaf(part, sided=True) for part in parts if _sides(part)}
    return Seen(tuple(sided.get(id(part)) or _leaf(part) for part in _leaves(check)), tuple(sided.values()))


def _leaf(part, sided: bool = False) -> Leaf:
    # (in the rows' order, never a set's: the meetings and their sides are listed in the order
    # the claims use their results, the same in every process whatever its hashes)
    figures = (part.claim, part.verdict, part.measured_range(), tuple(dict.fromkeys(part.rows["location"])))
    return Leaf(*figures, tuple(part.cases), cited(part.rows)) if sided else Leaf(*figures)


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

    return check_cache.kept(of_round, data, "where they meet", lambda claim: seen(engine.check(claim, data)))


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
                users.setdefault(location, {}).setdefault(leaf.claim.announcement, []).append(leaf)
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
                    existing.claim.id != leaf.claim.id
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
                    "Claim": claim_title(leaf.claim, registry),
                    "Claim id": leaf.claim.id,
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
            announcement = data.registry.announcements[leaf.claim.announcement]
            results = data.for_claim(leaf.claim).results  # the results of the claim's own round
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
                best = case.detail.best_rival
                rows.append(
                    {
                        "Announcement": publisher_and_round(announcement),
                        "Claim id": leaf.claim.id,
                        "Case": case.label,
                        "Claimant's result": label_of(subject),
                        "Compared with": label_of(rival),
                        "Measured": case.measured,
                        "Unit": case.unit,
                        "Best result of another vendor at that size": "—"
                        if best is None
                        else f"{best}, {case.detail.best_rival_family}",
                        "Claimant against it (%)": case.detail.vs_best_rival,
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
