"""Kind ``unnamed-baseline``: "N times better than a single node", the node unnamed.

Every candidate (``candidates`` selects them, e.g. one node) is measured, in three classes: the
claimant's own systems (the natural reading of an unnamed baseline), systems of the claimant's
vendor by other submitters, and rivals' systems. The claims of one sentence (``sentence``) are
judged against one baseline: the claimant's own candidate that reproduces most of the
sentence's figures (else one on the vendor's accelerators); a figure matched only by rivals'
systems never supports a claim. The figure is read by the claim's quantifier; a rack against a
single node compares two sizes, so the claim says how (``measure``), and the card shows the other
reading beside it, with the ratio against the best result of the natural baseline's class.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimbook.claims.registry import Claim
from claimbook.common import formatting
from claimbook.engine import kinds, quantifiers
from claimbook.engine.compare import metric_change
from claimbook.engine.core import (
    Case,
    CaseDetail,
    Data,
    Outcome,
    SizeError,
    benchmarks_of,
    best_row,
    cannot_check,
    chosen,
    finish,
    label_of,
    pick,
    rows_of,
    select_for,
    sizes_differ,
    where,
)
from claimbook.engine.kinds._ratio_context import no_per_gpu_reason, ratio_of
from claimbook.engine.verdict import NOT_SUPPORTED, SUPPORTED

CLASSES = ("claimant's own", "on the claimant's accelerators", "rival")
CLASS_PHRASES = {
    CLASSES[0]: "The claimant's own systems",
    CLASSES[1]: "Other submitters' systems on the claimant's accelerators",
    CLASSES[2]: "Rivals' systems",
}


@dataclass(frozen=True)
class BaselineCase(CaseDetail):
    """The one case: the natural baseline the claim is judged against, and its class."""

    baseline: str = ""  # "Acme node (8 GPUs, NVIDIA B300)"
    baseline_class: str = ""  # one of CLASSES
    note: str = ""
    per_gpu_ratio: float | None = None


SPEC = kinds.KindSpec(
    name="unnamed-baseline",
    description="a comparison against a baseline the claim does not name",
    required=(
        kinds.BENCHMARK,
        kinds.SUBJECT,
        kinds.Field("scenario", "the scenario of the figure"),
        kinds.Field("claimed", 'the claimed ratio, as written ("2.90" keeps its precision)'),
        kinds.Field("candidates", "a selector of the candidate baselines (one node: {nodes: 1})"),
    ),
    optional=(
        kinds.Field("unit", "how the ratio is stated (x)"),
        *kinds.FIGURE_FIELDS,
        kinds.MEASURE,
        kinds.DIVISION,
    ),
    example={
        "id": "acme-unnamed",
        "title": "9x a single node",
        "statement": "Acme's rack generates video nine times as fast as a single node.",
        "kind": "unnamed-baseline",
        "benchmark": "wan-2.2-t2v-a14b",
        "subject": {"organization": "Acme", "system": "Acme-rack"},
        "scenario": "Offline",
        "claimed": 9,
        "candidates": {"nodes": 1},
        "measure": "whole-system",
    },
    detail=BaselineCase,
    selectors=("subject", "candidates"),
    one_per_case=("subject",),
    columns=(
        *kinds.CASE_COLUMNS[:4],
        kinds.Column("Natural baseline", "detail.baseline"),
        kinds.Column("Its class", "detail.baseline_class"),
    ),
    tables={
        "candidates": kinds.Table(
            "Every candidate baseline, its class, and the ratio against it in each scenario of the sentence",
            omit_suffix="location",
        )
    },
)


def validate(claim: Claim) -> None:
    if claim.claimed is None or isinstance(claim.claimed, (dict, list)):
        kinds.fail(claim, "claimed", "the claimed ratio, a number")
    kinds.check_figures(claim)
    if not isinstance(claim.get("scenario"), str):
        kinds.fail(claim, "scenario", "the scenario of the figure")
    kinds.check_measure(claim)


def _reproduces(claim: Claim, ratio: float) -> bool:
    """Whether a candidate gives the claim's figure: the figure itself for a precise word (a
    figure above it does not reproduce it), the bound for another."""
    reading = quantifiers.read(claim)
    judgment = quantifiers.judge(reading, ratio, quantifiers.figure(claim.claimed))
    return bool(judgment.exact if reading.rule.precise else judgment.holds)


def audit(claim: Claim, data: Data) -> list[str]:
    """A subject and candidates of different sizes compared without saying how (``measure``)."""
    if claim.get("measure") is not None:
        return []
    benchmark, subject, missing, rows = _sides(claim, data)
    if missing:
        return []
    mine = sorted({int(gpus) for gpus in subject["total_accelerators"]})
    theirs = sorted({int(gpus) for gpus in rows["total_accelerators"]} - set(mine))
    if not theirs:
        return []
    sides = f"the subject {', '.join(map(str, mine))} GPUs, candidates of {', '.join(map(str, theirs))} GPUs"
    return [str(sizes_differ(claim, "measure", f"{benchmark} {claim.get('scenario')}", sides))]


def _sides(claim: Claim, data: Data) -> tuple:
    """The claim's benchmark, the subject's results on it (and what its selector looked for, where
    it found none), and the candidates' results on it."""
    benchmark = benchmarks_of(claim)[0]
    subject, missing = select_for(data, claim, claim.get("subject"), "subject", {"benchmark": benchmark})
    if missing:
        return benchmark, subject, missing, None
    rows, _ = select_for(data, claim, claim.get("candidates"), "candidates", {"benchmark": benchmark})
    return benchmark, subject, None, rows


def _candidate(group: pd.DataFrame, announcement, siblings, own_rows: dict) -> dict:
    """One candidate system's row: its class, and in each scenario of the sentence its best
    result, its ratio against the subject's and whether that reproduces the claimed figure."""
    first = group.iloc[0]
    organization = first["organization"]
    klass = (
        CLASSES[0]
        if organization == announcement.claimant
        else CLASSES[1]
        if first["vendor"] == announcement.vendor
        else CLASSES[2]
    )
    record = {
        "organization": organization,
        "system": first["system"],
        "family": first["family"],
        "gpus": int(first["total_accelerators"]),
        "class": klass,
    }
    for sibling in siblings:
        scenario = sibling.get("scenario")
        mine = own_rows.get(scenario)
        theirs = best_row(group[group["scenario"] == scenario])
        ratio = None
        if mine is not None and theirs is not None and mine["units"] == theirs["units"]:
            ratio = ratio_of(mine, theirs, kinds.measure_of(sibling))
        record[f"{scenario} result"] = None if theirs is None else float(theirs["result"])
        record[f"{scenario} ratio"] = ratio
        record[f"{scenario} reproduces"] = None if ratio is None else _reproduces(sibling, ratio)
        record[f"{scenario} location"] = None if theirs is None else theirs["location"]
    return record


def candidates_table(claim: Claim, data: Data) -> tuple[pd.DataFrame, dict, list]:
    """Every candidate with its ratio in each scenario of the sentence, its class and whether it
    reproduces each figure; the subject's row per scenario; and what was missing."""
    siblings = data.registry.sentence(claim)
    announcement = data.announcement(claim)
    benchmark, subject, subject_missing, rows = _sides(claim, data)
    if subject_missing:
        return pd.DataFrame(), {}, [subject_missing]
    rows = rows[
        ~rows["system"].isin(set(subject["system"]))
        | ~rows["organization"].isin(set(subject["organization"]))
    ]
    own_rows = {
        sibling.get("scenario"): pick(
            subject[subject["scenario"] == sibling.get("scenario")],
            claim.get("subject"),
            "subject",
            claim,
            f"{benchmark} {sibling.get('scenario')}",
        )
        for sibling in siblings
    }
    records = [
        _candidate(group, announcement, siblings, own_rows)
        for _, group in rows.groupby(["organization", "system"], sort=True)
    ]
    return pd.DataFrame(records), own_rows, []


def natural_baseline(claim: Claim, data: Data, table: pd.DataFrame) -> tuple[pd.Series | None, str]:
    """The baseline the sentence is judged against: the claimant's own candidate reproducing
    most of its figures, else one on the claimant's accelerators; rivals never."""
    siblings = data.registry.sentence(claim)
    scenarios = [sibling.get("scenario") for sibling in siblings]
    ratios, reproduces = (
        [f"{scenario} {column}" for scenario in scenarios] for column in ("ratio", "reproduces")
    )
    for klass in CLASSES[:2]:
        pool = table[table["class"] == klass]
        pool = pool[pool[ratios].notna().any(axis=1)]
        if pool.empty:
            continue
        score = pool[reproduces].fillna(False).astype(bool).sum(axis=1)
        complete = pool[ratios].notna().sum(axis=1)
        ranked = pool.assign(_score=score, _complete=complete).sort_values(
            ["_score", "_complete", "organization", "system"],
            ascending=[False, False, True, True],
            kind="stable",
        )
        return ranked.iloc[0].drop(["_score", "_complete"]), klass
    return None, ""


def used_row(data: Data, location: str) -> pd.Series:
    return data.results[data.results["location"] == location].iloc[0]


def check(claim: Claim, data: Data):
    sizes = audit(claim, data)
    if sizes:
        raise SizeError(sizes[0])
    table, own_rows, missing_texts = candidates_table(claim, data)
    if missing_texts:
        return cannot_check(
            claim,
            f"The system the claim is about is not in the data: {missing_texts[0]}.",
            missing=missing_texts,
        )
    scenario = claim.get("scenario")
    mine = own_rows.get(scenario)
    tables = {"candidates": table}
    if mine is None:
        why = kinds.looked_for(data, claim, "subject", benchmark=benchmarks_of(claim)[0], scenario=scenario)
        return cannot_check(
            claim, f"The system has no published {scenario} result: {why}.", tables=tables, missing=[why]
        )
    if table.empty:
        return cannot_check(claim, "No candidate baseline is in the data.", tables=tables)
    baseline, klass = natural_baseline(claim, data, table)
    codes = {"unnamed-baseline", "derived-metric"}
    notes = _reproducing_notes(claim, data, table)
    if baseline is None or pd.isna(baseline[f"{scenario} ratio"]):
        return cannot_check(
            claim,
            f"Neither the claimant nor another submitter on its accelerators has a candidate "
            f"with a {scenario} result, so the claim has no natural baseline.",
            tables=tables,
            codes=codes,
            rows=rows_of([pd.DataFrame([mine])]),
        )
    return _against(
        claim,
        data,
        mine,
        baseline,
        klass,
        Outcome(NOT_SUPPORTED, "", codes=codes, notes=notes, tables=tables),
    )


def _reproducing_notes(claim: Claim, data: Data, table: pd.DataFrame) -> list[str]:
    """Which candidates give the claimed figure, class by class, and which give every figure of
    the claim's sentence."""
    scenario, notes = claim.get("scenario"), []
    claimed = quantifiers.figure(claim.claimed).value
    reproducing = table[table[f"{scenario} reproduces"].fillna(False).astype(bool)]
    by_class = {name: reproducing[reproducing["class"] == name] for name in CLASSES}
    for name, found in by_class.items():
        if not found.empty:
            listed = "; ".join(
                f"{row.organization} {row.system} ({formatting.plural(row.gpus, 'GPU')}, {row.family}): "
                f"{formatting.times(row[f'{scenario} ratio'])}"
                for _, row in found.iterrows()
            )
            notes.append(f"{CLASS_PHRASES[name]} that give {formatting.stated(claimed, 'x')}: {listed}")
    if reproducing.empty:
        values = table[f"{scenario} ratio"].dropna()
        notes.append(
            f"No candidate gives {formatting.stated(claimed, 'x')}; the candidates give {formatting.times(values.min())} to {formatting.times(values.max())}"
        )
    elif by_class[CLASSES[0]].empty and by_class[CLASSES[1]].empty:
        notes.append(
            "Only rivals' systems give the figure, and a match found only in a rival's systems never "
            "supports a claim"
        )
    siblings = data.registry.sentence(claim)
    if len(siblings) > 1:
        columns = [f"{sibling.get('scenario')} reproduces" for sibling in siblings]
        whole = table[table[columns].fillna(False).astype(bool).all(axis=1)]
        notes.append(
            "No candidate gives every figure of the sentence"
            if whole.empty
            else "Candidates giving every figure of the sentence: " + ", ".join(whole["system"])
        )
    return notes


def _natural_caveats(sides: tuple, judgment, codes: set, notes: list) -> None:
    """What the natural baseline brings (``sides``: the subject's result, the baseline's row,
    its class): another's system where the claimant has none, another size, a claim that
    understates."""
    mine, baseline, klass = sides
    if klass != CLASSES[0]:
        notes.append(
            f"The claimant has no candidate of its own; the natural baseline is {baseline['organization']}'s "
            f"system on the claimant's accelerators"
        )
    if int(baseline["gpus"]) != int(mine["total_accelerators"]):
        codes.add("different-size")
    if judgment.understates:
        codes.add("understated")


def _against(claim: Claim, data: Data, mine: pd.Series, baseline: pd.Series, klass: str, gathered: Outcome):
    """The claim judged against its natural baseline: the one case, its reason and caveats."""
    scenario, claimed = claim.get("scenario"), quantifiers.figure(claim.claimed)
    codes, notes = set(gathered.codes), list(gathered.notes)
    measured = float(baseline[f"{scenario} ratio"])
    reading = quantifiers.read(claim)
    judgment = quantifiers.judge(reading, measured, claimed)
    _natural_caveats((mine, baseline, klass), judgment, codes, notes)
    base_label = (
        f"{baseline['organization']} {baseline['system']} ({baseline['gpus']} GPUs, {baseline['family']})"
    )
    location = baseline[f"{scenario} location"]
    selected = chosen("subject", mine) + (
        ("baseline", str(baseline["organization"]), str(baseline["system"]), location, 1),
    )
    base_row = used_row(data, location)
    case = Case(
        scenario,
        scenario,
        measured,
        claimed.value,
        "x",
        judgment.holds,
        (mine["location"], location),
        selected=selected,
        detail=BaselineCase(
            baseline=base_label, baseline_class=klass, per_gpu_ratio=ratio_of(mine, base_row, "per-gpu")
        ),
    )
    used = data.results[data.results["location"].isin([mine["location"], location])]
    outcome = Outcome(
        SUPPORTED if judgment.holds else NOT_SUPPORTED,
        _reason(claim, data, mine, baseline, base_label, measured),
        cases=(case,),
        deciding=scenario,
        rows=rows_of([used]),
        codes=codes,
        notes=notes,
        tables=gathered.tables,
        context=(
            reading.sentence(claimed, "x"),
            *_other_reading(claim, data, gathered.tables["candidates"], mine, baseline, judgment.holds),
            *_beside(claim, data, mine, base_row),
        ),
    )
    return finish(claim, outcome)


def _other_reading(
    claim: Claim, data: Data, table: pd.DataFrame, mine: pd.Series, baseline: pd.Series, holds: bool
) -> list[str]:
    """The other natural reading of an unnamed baseline: a node of the subject's own accelerator
    (a rack's own tray) where the natural baseline is of another; its figures in every scenario of
    the sentence, and why the natural one decides, with whether the verdict would differ."""
    if baseline["family"] == mine["family"]:
        return []
    scenario = claim.get("scenario")
    scenarios = [sibling.get("scenario") for sibling in data.registry.sentence(claim)]
    pool = table[(table["family"] == mine["family"]) & table[f"{scenario} ratio"].notna()]
    if pool.empty:
        return []
    other = pool.sort_values([f"{scenario} ratio", "organization", "system"], kind="stable").iloc[0]
    figures = ", ".join(
        f"{name} {formatting.times(other[f'{name} ratio'])}"
        for name in scenarios
        if pd.notna(other[f"{name} ratio"])
    )
    judged = quantifiers.judge(
        quantifiers.read(claim), float(other[f"{scenario} ratio"]), quantifiers.figure(claim.claimed)
    )
    same = bool(judged.holds) == bool(holds)
    return [
        f"Read instead as a node of the subject's own accelerator ({mine['family']}), the strongest such "
        f"node, {other['organization']} {other['system']} ({formatting.plural(int(other['gpus']), 'GPU')}), gives "
        f"{figures}. The natural baseline, {baseline['organization']} {baseline['system']} "
        f"({formatting.plural(int(baseline['gpus']), 'GPU')}), the {baseline['class']}, decides, since an unnamed "
        "baseline is read first as the claimant's own comparable system; "
        + (
            "the verdict is the same under either reading"
            if same
            else "under the other reading the verdict would differ"
        )
    ]


def _beside(claim: Claim, data: Data, mine: pd.Series, base_row: pd.Series) -> list[str]:
    """What a buyer reads beside the figure: the other reading of two sizes (per GPU beside whole
    systems, or whole systems beside per GPU), and the ratio against the best result of the
    natural baseline's class (its accelerator and size) by any submitter."""
    measure = kinds.measure_of(claim)
    notes = []
    if int(mine["total_accelerators"]) != int(base_row["total_accelerators"]):
        other = "per-gpu" if measure != "per-gpu" else "whole-system"
        ratio = ratio_of(mine, base_row, other)
        reading = "Per GPU" if other == "per-gpu" else "As whole systems"
        notes.append(
            f"{reading}, beside the claim's reading (the two differ in size): "
            + (
                f"{formatting.times(ratio)} against {label_of(base_row)}"
                if ratio is not None
                else f"none, {no_per_gpu_reason(mine, base_row)}"
            )
        )
    alike = ("family", "total_accelerators", "benchmark", "scenario", "division")
    top = best_row(where(data.results, **{column: base_row[column] for column in alike}))
    if top is not None and top["location"] != base_row["location"]:
        notes.append(
            f"Against the best {top['family']} result of {formatting.plural(int(top['total_accelerators']), 'GPU')} by any "
            f"submitter, {label_of(top)}: {formatting.times(ratio_of(mine, top, measure))}"
        )
    return notes


def _reason(
    claim: Claim, data: Data, mine: pd.Series, baseline: pd.Series, base_label: str, measured: float
) -> str:
    """The figure against the natural baseline, and what the same baseline gives for the other
    figures of the sentence."""
    scenario = claim.get("scenario")
    direction = "higher" if bool(mine["higher_is_better"]) else "lower"
    others = []
    for sibling in data.registry.sentence(claim):
        other = sibling.get("scenario")
        if sibling.id != claim.id and pd.notna(baseline.get(f"{other} ratio")):
            others.append(
                f"{other} {formatting.times(baseline[f'{other} ratio'])} (claimed {quantifiers.figure(sibling.claimed).text('x')})"
            )
    change = ""
    if not bool(mine["higher_is_better"]):
        # a gain on a lower-is-better metric: the speedup and the signed change of the metric itself
        base_value = float(used_row(data, baseline[f"{scenario} location"])["result"])
        change = f", {mine['metric']} {formatting.signed_percent(metric_change(mine['result'], base_value))}"
    reason = (
        f"Against the natural baseline, {base_label}, the {scenario} figure is {formatting.times(measured)} {direction}"
        f"{change} (claimed {quantifiers.figure(claim.claimed).text('x')})"
    )
    if others:
        reason += (
            f"; the same baseline gives {', '.join(others)} for the sentence's other "
            f"figure{'s' if len(others) > 1 else ''}"
        )
    return reason + "."


def charts(check, data: Data) -> list:
    """The ratio against every candidate baseline, labelled with its class, the claimed figure
    a dashed line."""
    table = check.tables.get("candidates")
    scenario = check.claim.get("scenario")
    if table is None or table.empty or f"{scenario} ratio" not in table:
        return []
    rows = check.rows if check.rows is not None and not check.rows.empty else None
    mine = rows[rows["scenario"] == scenario] if rows is not None else []
    higher = bool(mine["higher_is_better"].iloc[0]) if len(mine) else scenario != "SingleStream"
    direction = "higher" if higher else "lower"
    return [
        kinds.CandidateBars(
            table,
            scenario,
            quantifiers.figure(check.claim.claimed).value,
            direction,
            f"The claimed system against every candidate, {scenario}",
            "Bar chart of the ratio against each candidate baseline, labelled with its class; "
            "the dashed line marks the claimed figure.",
        )
    ]
