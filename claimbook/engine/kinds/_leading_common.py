"""What every metric of a leadership claim shares: its case detail, a case of the subject
against the best other, the verdict over the readings of the claim, the rounds the book has."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Data,
    Outcome,
    best_row,
    cannot_check,
    chosen,
    finish,
    label_of,
    rows_of,
)
from claimbook.engine.kinds import multiple_unit
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED
from claimbook.inputs.earlier import round_order

MEASURE_NAMES = {"whole-system": "as a whole system", "per-gpu": "per GPU"}
SAME_MEASURE_NOTE = (
    "Results of different benchmarks are not the same measure (a token of a small model costs less "
    "than a token of a large one); MLCommons compares results only within one benchmark and "
    "scenario, so the book checks that reading too"
)


@dataclass(frozen=True)
class LeadCase(CaseDetail):
    """A case of a leadership claim: who leads, the best other (a result, a system or a pair)
    with both figures in the case's units, and the per-GPU figures beside whole systems."""

    leader: str = "none"  # "none": no rival in the case
    next: str | None = None
    subject: str | None = None
    subject_value: float | None = None
    next_value: float | None = None
    units: str = ""
    subject_per_gpu: float | None = None
    next_per_gpu: float | None = None
    note: str = ""
    judgment: object = None  # where the claim states the lead's figure: the quantifier's judgment
    # What "the next best" is of, in words: "other system" or, where no rival is the subject's
    # submitter, "other submitter" (the field, named wherever a sentence says best or next).
    field: str = "other result"
    ahead: tuple[str, ...] = ()  # every rival ahead of the subject, best first (systems, deduplicated)
    uncontested: bool = False  # no other submitter in the case: shown, never deciding


NO_RIVAL = "no rival"


# -- the verdict every metric shares --------------------------------------------------------


def with_figure(claim: Claim, readings: dict[str, list[Case]]) -> dict[str, list[Case]]:
    """Where the claim states the lead's figure ("ahead by more than 20%"): each case with a
    rival must lead and reach it, read by the claim's quantifier."""
    if claim.claimed is None:
        return readings
    reading, target, unit = quantifiers.read(claim), quantifiers.figure(claim.claimed), multiple_unit(claim)

    def judged(case: Case) -> Case:
        if case.reaches is None or case.measured is None:
            return case
        margin = kinds.in_unit(case.measured, unit)
        judgment = quantifiers.judge(reading, margin, target, unit)
        reaches = bool(case.reaches and judgment.holds)
        return replace(
            case, claimed=target.value, reaches=reaches, detail=replace(case.detail, judgment=judgment)
        )

    return {name: [judged(case) for case in cases] for name, cases in readings.items()}


def verdict_of(
    claim: Claim, readings: dict[str, list[Case]], found: kinds.Findings, tables: dict, context=()
):
    """Judge each reading (all of its cases with a rival must lead, and reach the lead's figure
    where the claim states one), then the claim; ``found``: the results the cases used, what the
    subject's selector missed, the caveats and the card's context gathered on the way, and
    ``context`` the cases shown beside the readings."""
    readings = with_figure(claim, readings)
    judged = {name: [case for case in cases if case.reaches is not None] for name, cases in readings.items()}
    cases = [case for cases in readings.values() for case in cases] + list(context)
    rows, missing, codes, notes = (
        rows_of(found.used),
        tuple(dict.fromkeys(found.missing)),
        found.codes,
        found.notes,
    )
    if not any(judged.values()):
        return _no_reading(claim, cases, missing, rows, tables, codes)
    if missing:
        codes.add("incomplete-data")
    summary = [reading_text(name, found) for name, found in judged.items()]
    alone = [case for found in readings.values() for case in found if case.reaches is None]
    notes.extend(_case_notes(readings, alone))
    verdict = _over_readings(judged, codes)
    every = [case for found in judged.values() for case in found]
    deciding = ([case for case in every if not case.reaches] or every)[0].label
    context_notes = tuple(dict.fromkeys(found.context))
    if claim.claimed is not None:
        context_notes = (
            quantifiers.read(claim).sentence(quantifiers.figure(claim.claimed), multiple_unit(claim)),
            *context_notes,
        )
    outcome = Outcome(
        verdict,
        "; ".join(summary) + ".",
        missing=tuple(missing),
        cases=tuple(cases),
        deciding=deciding,
        rows=rows,
        codes=codes,
        notes=notes,
        tables=tables,
        summary=_leads_count(judged),
        context=context_notes,
    )
    return finish(claim, outcome)


def _no_reading(claim: Claim, cases: list, missing, rows, tables: dict, codes: set):
    """No reading has a case with a rival: the claim cannot be checked, and says why."""
    reason = (
        f"The subject has no result in a case the claim covers: {'; '.join(missing)}."
        if missing and not cases
        else _unjudged(cases)
    )
    # Every case uncontested: they are the claim's cases, shown (and read by a compound).
    alone = tuple(cases) if cases and all(case.detail.uncontested for case in cases) else ()
    return cannot_check(claim, reason, rows=rows, tables=tables, codes=codes, missing=missing, cases=alone)


def _leads_count(judged: dict[str, list[Case]]) -> str:
    """Each reading's leads in a few words ("whole systems: leads in 2 of 3")."""
    return "; ".join(
        f"{name}: leads in {sum(case.reaches for case in found)} of {len(found)}"
        for name, found in judged.items()
        if found
    )


def _case_notes(readings: dict[str, list[Case]], alone: list[Case]) -> list[str]:
    """The cases with no rival (where no one else ran, the subject leads trivially: said, not
    counted), and what a case says of systems it could not rank (no per-GPU figure)."""
    rivalless = [case for case in alone if getattr(case.detail, "note", "") in ("", NO_RIVAL)]
    said = [uncontested_text(rivalless)] if rivalless else []
    return said + _noted([case for found in readings.values() for case in found])


def _noted(cases) -> list[str]:
    """What the cases say beside having no rival (systems a per-GPU reading cannot rank), once each."""
    return list(
        dict.fromkeys(
            f"{case.label}: {case.detail.note}"
            for case in cases
            if getattr(case.detail, "note", "") not in ("", NO_RIVAL)
        )
    )


def _unjudged(cases) -> str:
    """Why no case is judged: no rival, or (per GPU) no figure for the systems compared."""
    said = _noted(cases)
    if said:
        return f"No case the claim covers can be judged: {'; '.join(said)}."
    return f"{uncontested_text(cases)}, so leadership cannot be judged."


def uncontested_text(cases) -> str:
    """The cases where no other submitter has a result, as the card says them."""
    return "Uncontested: no other submitter on " + ", ".join(dict.fromkeys(case.label for case in cases))


def _over_readings(judged: dict[str, list[Case]], codes: set) -> str:
    """Supported when every reading with a judged case holds, with a caveat when only some do,
    else not supported."""
    holding = [name for name, found in judged.items() if found and all(case.reaches for case in found)]
    if holding and len(holding) < sum(1 for found in judged.values() if found):
        codes.add("definition-dependent")
    return SUPPORTED if holding else NOT_SUPPORTED


def reading_text(name: str, found: list[Case]) -> str:
    """One reading in the reason: in how many of its cases the subject leads, by how much and
    over whom (up to four cases), which system stands for the subject where that varies, and who
    is ahead where it trails; one parenthesis for all of it."""
    if not found:
        return f"{name}: no rival"
    led = [case for case in found if case.reaches]
    trailing = [case for case in found if not case.reaches]
    text = f"{name}: leads in {len(led)} of {formatting.plural(len(found), 'case')}"
    said = []
    shown = [case for case in led if case.detail.next and case.measured is not None]
    if shown and len(led) <= 4:
        named = len(found) > 1  # each case by its label where there are several
        said += [_lead_text(case, _within(name, case.label) if named else "") for case in shown]
    said += _subjects_text(name, found)
    if trailing:
        behind = "behind in " + "; ".join(
            f"{_within(name, case.label)}: {ahead_text(case.detail)}" for case in trailing[:4]
        )
        said.append(behind + (f" and {len(trailing) - 4} more" if len(trailing) > 4 else ""))
    return text + (f" ({'; '.join(said)})" if said else "")


def _lead_text(case: Case, label: str) -> str:
    """By how much a case leads, and over whom (an efficiency: both figures, not their ratio)."""
    where = f"{label}: " if label else ""
    if case.unit == "%":
        return (
            f"{where}{formatting.quantity(case.measured, '%')} against "
            f"{formatting.quantity(case.detail.next_value, '%')}, {case.detail.next}"
        )
    return f"{where}{formatting.times(case.measured)} the next best {case.detail.field}, {case.detail.next}"


def _within(name: str, label: str) -> str:
    """A case's label inside its reading's sentence, without the reading's own name."""
    return label[len(name) + 3 :] if label.startswith(f"{name} · ") else label


def _subjects_text(name: str, found: list[Case]) -> list[str]:
    """Where the subject is the best of several systems (an accelerator, across submitters) and
    not the same one in every case: which system stands for it in which case."""
    by_subject: dict[str, list[str]] = {}
    for case in found:
        if case.detail.subject:
            by_subject.setdefault(case.detail.subject, []).append(_within(name, case.label))
    if len(by_subject) < 2:
        return []
    ordered = sorted(by_subject.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        "the subject's best system: "
        + "; ".join(
            f"{subject} in {'; '.join(labels)}" if len(labels) <= 2 else f"{subject} in {len(labels)} cases"
            for subject, labels in ordered
        )
    ]


AHEAD_NAMED = 3  # a "behind" names every rival ahead up to this many, else the count and the best


def ahead_text(detail: LeadCase) -> str:
    """Who is ahead of the subject: every rival ahead (or their count and the best few), never
    only the first of them."""
    ahead = detail.ahead or ((detail.leader,) if detail.leader and detail.leader != "none" else ())
    if not ahead:
        return "no rival ahead"
    if len(ahead) <= AHEAD_NAMED:
        return f"{joined(list(ahead))} ahead"
    return f"{formatting.plural(len(ahead), 'system')} ahead, the best {joined(list(ahead[:AHEAD_NAMED]))}"


def joined(items: list[str]) -> str:
    """Items as a sentence lists them ("a, b and c")."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _ahead(own: pd.Series, rivals: pd.DataFrame, measure: str) -> tuple[str, ...]:
    """Every rival system whose result is ahead of the subject's in ``measure``, best first."""
    higher = bool(own["higher_is_better"])
    mine = value_of(own, measure)
    scored = [(value_of(row, measure), label_of(row)) for _, row in rivals.iterrows()]
    better = [(value, name) for value, name in scored if (value > mine if higher else value < mine)]
    better.sort(key=lambda item: -item[0] if higher else item[0])
    return tuple(dict.fromkeys(name for _, name in better))


def field_of(own: pd.Series, rivals: pd.DataFrame) -> str:
    """What the rivals are, in words: other submitters where none is the subject's, else other
    systems."""
    if str(own["organization"]) in set(rivals["organization"].astype(str)):
        return "other system"
    return "other submitter"


def lead(label: str, scenario: str, figure: tuple, evidence: tuple, detail: LeadCase, selected=()) -> Case:
    """A case of a leadership claim: ``figure`` is (the measured lead, its unit, whether the
    subject leads), the lead None where the case has nothing to judge; the claimed figure is set
    where the claim states one (``with_figure``)."""
    measured, unit, leads = figure
    return Case(label, scenario, measured, None, unit, leads, evidence, selected=selected, detail=detail)


def lead_case(
    label: str,
    scenario: str,
    own: pd.Series,
    rivals: pd.DataFrame,
    measure: str,
    found: kinds.Findings,
    *,
    selected: bool,
) -> Case:
    """The subject's best result against the best of ``rivals`` (none: a case with no rival),
    its pair added to the results ``found`` used and its row to their leaders table.
    ``selected``: the case records the results it stands on (a reading of the claim, not the
    context one)."""
    rivals, note = _rankable(own, rivals, measure)
    if note is None or rivals.empty:  # no figure of the subject's, or no rival to set it against
        return _unranked_case(label, scenario, own, note, selected=selected)
    top = best_of(rivals, measure)
    value, rival_value = value_of(own, measure), value_of(top, measure)
    higher = bool(own["higher_is_better"])
    leads = value > rival_value if higher else value < rival_value
    detail = LeadCase(
        leader=label_of(top) if not leads else label_of(own),
        next=label_of(top),
        subject=label_of(own),
        subject_value=value,
        next_value=rival_value,
        units=own["units"] + (" per GPU" if measure == "per-gpu" else ""),
        subject_per_gpu=value_of(own, "per-gpu"),
        next_per_gpu=value_of(top, "per-gpu"),
        field=field_of(own, rivals),
        ahead=() if leads else _ahead(own, rivals, measure),
        note=note,
    )
    found.used.append(pd.DataFrame([own, top]))
    found.table.append(_leaders_row(label, detail, leads))
    figure = (value / rival_value if higher else rival_value / value, "x", leads)
    chose = chosen("subject", own) + chosen("rival", top) if selected else ()
    return lead(label, scenario, figure, (own["location"], top["location"]), detail, chose)


def _unranked_case(label: str, scenario: str, own: pd.Series, note: str | None, *, selected: bool) -> Case:
    """A case with no figure: the subject has none in the measure (``note`` None), or no rival
    is there to set it against (uncontested, unless ``note`` says why the others are not ranked)."""
    if note is None:
        detail = LeadCase(subject=label_of(own), note=no_per_gpu_figure(own.to_frame().T))
    else:
        detail = LeadCase(note=note or NO_RIVAL, uncontested=not note)
    chose = chosen("subject", own) if selected else ()
    return lead(label, scenario, (None, "x", None), (own["location"],), detail, chose)


def _rankable(own: pd.Series, rivals: pd.DataFrame, measure: str) -> tuple[pd.DataFrame, str | None]:
    """The rivals a case ranks the subject among, and what it says of the others: per GPU, a
    system without accelerators (a CPU-only one) has no figure, so it is said and the rest are
    judged; None when the subject itself has none."""
    if measure != "per-gpu":
        return rivals, ""
    if int(own["total_accelerators"]) <= 0:
        return rivals, None
    without = rivals[rivals["total_accelerators"] <= 0]
    note = f"{no_per_gpu_figure(without)}; the rest are judged" if not without.empty else ""
    return rivals[rivals["total_accelerators"] > 0], note


def _leaders_row(label: str, detail: LeadCase, leads: bool) -> dict:
    """A row of the leaders table: the subject's best and the best other, in the case's measure."""
    return {
        "case": label,
        "subject": detail.subject,
        "subject_value": detail.subject_value,
        "best_other": detail.next,
        "best_other_value": detail.next_value,
        "units": detail.units,
        "leads": leads,
        "subject_per_gpu": detail.subject_per_gpu,
        "best_other_per_gpu": detail.next_per_gpu,
    }


def value_of(row: pd.Series, measure: str) -> float | None:
    """A result's figure in a measure; None per GPU for a system without accelerators."""
    if measure != "per-gpu":
        return float(row["result"])
    gpus = int(row["total_accelerators"])
    return float(row["result"]) / gpus if gpus > 0 else None


def no_per_gpu_figure(rows: pd.DataFrame) -> str:
    """What a per-GPU reading says of the systems it cannot rank: they have no accelerators."""
    names = sorted(dict.fromkeys(label_of(row) for _, row in rows.iterrows()))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"no per-GPU figure for {shown} (no accelerators)"


def best_of(rows: pd.DataFrame, measure: str) -> pd.Series:
    """The best of ``rows`` in a measure; per GPU, among systems with accelerators (the best
    whole system where none has any: the case then says it has no per-GPU figure)."""
    with_gpus = rows[rows["total_accelerators"] > 0]
    if measure != "per-gpu" or with_gpus.empty:
        return best_row(rows)
    per_gpu = with_gpus.assign(result=with_gpus["result"] / with_gpus["total_accelerators"])
    return with_gpus.loc[best_row(per_gpu).name]


# -- scope history: the earlier rounds the book has ------------------------------------------


def earlier_rounds(earlier: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The earlier rounds the book has in full (a results summary) and those it has only some
    results of, each in order."""
    full = sorted(set(earlier.loc[earlier["source_type"] == "mlperf-summary", "round"]), key=round_order)
    return full, sorted(set(earlier["round"]) - set(full), key=round_order)


def rounds_note(data: Data, current_round: str, tail: str) -> str:
    """What the book has of the rounds before ``current_round``, and so how far back it checks."""
    full, partial = earlier_rounds(data.earlier)
    return (
        f"For rounds before {current_round} the book has "
        + (f"full results of {', '.join(full)} and " if full else "no full results file, only ")
        + (f"partial figures of {', '.join(partial)}" if partial else "no figures")
        + tail
    )


def lead_bars(check, data: Data) -> list:
    """A bar per case: the subject's best over the best other (above 1: ahead)."""
    bars = tuple(
        kinds.Bar(
            case.label, case.measured, case.claimed, case.reaches, str(case.detail.next or case.detail.note)
        )
        for case in check.cases
        if case.measured is not None
    )
    if not bars:
        return []
    return [
        kinds.CaseBars(
            bars,
            "How far ahead of the best other result",
            "Bar chart: for each case, the claim's best result divided by the best other result "
            "(above 1 means ahead); the dashed line marks level.",
            "x",
            1.0,
            "level",
        )
    ]
