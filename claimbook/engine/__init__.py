"""The claim engine: one check function per kind of claim, one result type, one scorecard.

``check(claim, data)`` dispatches on the claim's kind; a claim made of parts is checked part by
part: its verdict is the weakest of its core parts, and a detail part that does not hold or
cannot be checked is a caveat (``detail-unsettled``), shown on the card. ``validate_claim`` checks a claim's fields against its
kind when the registry is read, so every mistake names the file, the claim and the field.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from claimbook.claims import fields as claim_fields
from claimbook.claims import registry
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, Registry
from claimbook.claims.selectors import SelectorError
from claimbook.claims.selectors import validate as validate_selector
from claimbook.common import formatting
from claimbook.engine import kinds as kinds_package
from claimbook.engine import preloaded
from claimbook.engine.caveats import CODES, ordered, qualifies
from claimbook.engine.core import Check, ClaimSpecError, Data
from claimbook.engine.kinds import KindSpec, spec_of
from claimbook.engine.verdict import (
    CANNOT_BE_CHECKED,
    NOT_SUPPORTED,
    SUPPORTED,
    SUPPORTED_WITH_CAVEATS,
    weakest,
)
from claimbook.inputs.schema import SCENARIOS as SCENARIO_NAMES

KINDS = kinds_package.discover()  # every kind module of engine/kinds, by its kind's name
SPECS: dict[str, KindSpec] = {name: spec_of(module) for name, module in KINDS.items()}
# What ``claimbook draft`` may propose: each kind's own rules (``KindSpec.drafting``).
DRAFTING = {name: spec.drafting for name, spec in SPECS.items() if spec.drafting is not None}
PARENT_KIND = "compound"  # a claim made only of parts
ROLES = ("core", "detail")  # a part is the claim's core (decides) or a detail (a caveat when it fails)


def load_registry(claims_dir=CLAIMS_DIR, chapters_file=CHAPTERS_FILE, also=None) -> Registry:
    """Every registry file (``claimbook.claims.registry.load_registry``), each claim's kind and
    fields checked as it is read, so a mistake names the file, the claim and the field; in a
    page's kernel, a file it holds already read is taken (``claimbook.engine.preloaded``)."""
    return registry.load_registry(
        claims_dir, chapters_file, validate=validate_claim, also=also, through=preloaded.through
    )


def validate_claim(claim) -> None:
    """Raise ClaimSpecError naming the file, claim and field of the first mistake."""

    def fail(field: str, message: str):
        raise ClaimSpecError(f"{claim.where}: field {field}: {message}")

    role = claim.fields.get("role")
    if role is not None and (claim.parent is None or role not in ROLES):
        fail("role", f"a part's role is one of {', '.join(ROLES)} (core unless it says otherwise)")
    decision = claim.fields.get("decision")
    if decision is not None and not (isinstance(decision, str) and decision.strip()):
        fail("decision", "one sentence saying why the book decided as it did")
    if claim.kind == PARENT_KIND:
        return
    module = KINDS.get(claim.kind)
    if module is None:
        fail(
            "kind",
            f"unknown kind {claim.kind!r}; the engine knows {', '.join(KINDS)} (and {PARENT_KIND} for a claim "
            "made of parts)",
        )
    spec = SPECS[claim.kind]
    for name in spec.required_names():
        if claim.fields.get(name) is None:
            fail(name, f"required for {formatting.with_article(claim.kind)} claim")
    for name in spec.selectors:
        if claim.fields.get(name) is not None:
            try:
                validate_selector(claim.fields[name], f"{claim.where}: field {name}")
            except SelectorError as exc:
                raise ClaimSpecError(str(exc)) from None
    for name, selector in role_selectors(claim):
        _check_combining(claim.kind, spec, name, selector, fail)
    acknowledged = claim.fields.get("acknowledges") or []
    unknown = [code for code in acknowledged if code not in CODES] if isinstance(acknowledged, list) else []
    if not isinstance(acknowledged, list) or unknown:
        fail(
            "acknowledges",
            f"a list of caveat codes the claim itself states; unknown: {', '.join(map(str, unknown))}",
        )
    _check_common_shapes(claim, fail)
    benchmark = claim.fields.get("benchmark")
    named = [benchmark] if isinstance(benchmark, str) else benchmark
    if benchmark is not None and not (
        isinstance(named, list) and named and all(isinstance(name, str) and name.strip() for name in named)
    ):
        fail("benchmark", "a benchmark as the book names it (gpt-oss-120b), or a list of them")
    tolerance = claim.fields.get("tolerance")
    if tolerance is not None and not (isinstance(tolerance, (int, float)) and 0 <= tolerance < 1):
        fail("tolerance", "a fraction of the claimed figure, at least 0 and below 1")
    try:
        module.validate(claim)
    except SelectorError as exc:
        raise ClaimSpecError(str(exc)) from None
    _check_fields_used(claim, spec, fail)


# What the fields several kinds share must be: a word where the engine reads one, a list where it
# reads a list (a name where a list is read would be read letter by letter), a known scenario.
DIVISION_WORDS = ("closed", "open", "any")


def _check_common_shapes(claim, fail) -> None:
    scenarios = claim.fields.get("scenarios")
    if scenarios is not None and not (
        isinstance(scenarios, list) and scenarios and all(name in SCENARIO_NAMES for name in scenarios)
    ):
        fail("scenarios", f"a list of scenarios, each one of {', '.join(SCENARIO_NAMES)}, not {scenarios!r}")
    scenario = claim.fields.get("scenario")
    if scenario is not None and scenario not in SCENARIO_NAMES:
        fail("scenario", f"one of {', '.join(SCENARIO_NAMES)}, not {scenario!r}")
    division = claim.fields.get("division")
    if division is not None and division not in DIVISION_WORDS:
        fail("division", f"one of {', '.join(DIVISION_WORDS)}, not {division!r}")
    unit = claim.fields.get("unit")
    if unit is not None and not (isinstance(unit, str) and unit.strip()):
        fail("unit", f"the unit of the claimed figure, as text (x, %, tokens/s), not {unit!r}")
    history = claim.fields.get("history")
    if history is not None and not isinstance(history, bool):
        fail("history", f"true or false, not {history!r}")


def _check_fields_used(claim, spec: KindSpec, fail) -> None:
    """Every field a claim writes is one its kind uses, for its form, mode and quantifier (a
    field it inherited from its parent and does not use is not its own words, and is let be)."""
    for name in claim.fields:
        if name in claim_fields.NAMES:
            continue
        item = spec.field(name)
        if item is None:
            if name in claim.inherited:
                continue
            fail(
                name,
                f"not a field of {formatting.with_article(claim.kind)} claim; it has {', '.join(spec.field_names())}",
            )
        if not item.used_by(claim) and name not in claim.inherited:
            fail(
                name,
                f"{formatting.with_article(claim.kind)} claim{spec.described(claim)} does not use it; "
                f"{name} is for {item.needs or 'another form of the claim'}",
            )


def role_of(part) -> str:
    return str(part.get("role") or "core")


def role_selectors(claim):
    """(field, selector) of each selector a claim names, a ratio's labelled baselines included."""
    for name in ("subject", "small", "large", "rows", "evidence", "candidates", "field"):
        value = claim.fields.get(name)
        if isinstance(value, dict):
            yield name, value
    baseline = claim.fields.get("baseline")
    if isinstance(baseline, dict):
        yield "baseline", baseline
    elif isinstance(baseline, list):
        for entry in baseline:
            if isinstance(entry, dict):
                yield "baseline", entry


def _check_combining(kind: str, spec: KindSpec, name: str, selector: dict, fail) -> None:
    """``combine`` and ``sum`` only where the kind takes one result per case and can combine so."""
    combine = selector.get("combine")
    if combine is not None and name not in spec.one_per_case:
        fail(
            f"{name}.combine",
            f"the {name} of {formatting.with_article(kind)} claim is a set of results; combine applies to a selector that "
            f"takes one result per case ({', '.join(spec.one_per_case) or 'none in this kind'})",
        )
    if combine == "each" and name not in spec.each:
        fail(
            f"{name}.combine",
            f"each (one case per match) is not supported for the {name} of {formatting.with_article(kind)} claim; "
            f"use best, or name one result",
        )
    if "sum" in selector and name not in spec.sums:
        fail(
            f"{name}.sum",
            f"a sum is not supported for the {name} of {formatting.with_article(kind)} claim"
            + (f"; it is for {', '.join(spec.sums)}" if spec.sums else ""),
        )


def audit(claim, data: Data) -> list[str]:
    """The registry errors a claim's selectors make on these data: a selector that takes one
    result per case and finds several without saying how they combine (every one, for one
    message listing them all), two sides of a comparison that find the very same results, and
    what its kind's own ``audit`` finds (two sides of different sizes compared without saying
    how)."""
    from claimbook.engine.core import several, where

    data = data.for_claim(claim)  # a claim's own round, never another's
    found = []
    for item in (claim, *claim.parts):
        spec = SPECS.get(item.kind)
        if spec is None:
            continue
        for name, selector in role_selectors(item):
            roles = spec.takes_one(item)
            if name not in roles or "sum" in selector or selector.get("combine"):
                continue
            if name == "baseline" and item.get("prefer"):
                continue  # the claim's own rule picks: its owner's best, else the best partner's
            rows = _selected(item, data, name, selector)
            case = _first_with_several(rows)
            if case is not None:
                group = where(rows, benchmark=case[0], scenario=case[1])
                found.append(several(item, name, group, f"{case[0]} {case[1]}"))
        found += _same_sides(item, data)
        kind_audit = getattr(KINDS.get(item.kind), "audit", None)
        if kind_audit is not None and not found:
            found += kind_audit(item, data)
    return found


def _first_with_several(rows) -> tuple | None:
    """The first (benchmark, scenario), in sorted order, of which ``rows`` hold several results."""
    counts = Counter(zip(rows["benchmark"], rows["scenario"]))
    several = [case for case, count in counts.items() if count > 1 and all(pd.notna(value) for value in case)]
    return min(several) if several else None


def _selected(claim, data: Data, name: str, selector: dict):
    """The results a selector of ``claim`` finds in the claim's benchmarks and scenarios."""
    from claimbook.engine.core import benchmarks_of, select_for

    rows, _ = select_for(data, claim, {k: v for k, v in selector.items() if k != "label"}, name)
    benchmarks = benchmarks_of(claim)
    scenarios = claim.get("scenarios") or ([claim.get("scenario")] if claim.get("scenario") else None)
    if not benchmarks and not scenarios:
        return rows
    mask = np.ones(len(rows), dtype=bool)
    if benchmarks:
        mask &= rows["benchmark"].isin(benchmarks).to_numpy(dtype=bool)
    if scenarios:
        mask &= rows["scenario"].isin(scenarios).to_numpy(dtype=bool)
    return rows[mask]


# The selectors a claim sets against each other: a subject and its baseline, a larger
# configuration and its smaller one.
SIDES = (("subject", "baseline"), ("large", "small"))


def _same_sides(claim, data: Data) -> list[str]:
    """Two sides of a comparison that find the very same results (one system written two ways:
    another case, other spaces, an invisible character, another of its names): every figure
    would be 1 by construction, a verdict no one could sign. A registry error naming both
    spellings, one per pair of sides."""
    selectors = list(role_selectors(claim))
    found = []
    for first, second in SIDES:
        for one in [selector for name, selector in selectors if name == first]:
            rows = _selected(claim, data, first, one)
            if rows.empty:
                continue
            for other in [selector for name, selector in selectors if name == second]:
                if set(_selected(claim, data, second, other)["location"]) == set(rows["location"]):
                    systems = list(
                        dict.fromkeys(f"{row.organization} {row.system}" for row in rows.itertuples())
                    )
                    found.append(
                        f"{claim.where}: field {second}: finds the same "
                        f"{formatting.plural(len(rows), 'result')} as the {first} ({', '.join(systems[:3])}"
                        f"{' ...' if len(systems) > 3 else ''}): the {first} is written {_spelled(one)} and "
                        f"the {second} {_spelled(other)}, so every comparison would be 1 by construction; "
                        f"name the {second}'s own results"
                    )
                    break
    return found


def _spelled(selector: dict) -> str:
    """A selector as the registry writes it, an invisible character shown ("organization 'nvidia\\u200b'")."""
    return ", ".join(f"{field} {value!r}" for field, value in selector.items() if field != "label")


def check(claim, data: Data) -> Check:
    """The claim's check: its kind's, or for a compound claim its parts': the weakest verdict of
    its core parts, with a caveat for each detail that does not hold or cannot be checked. A claim
    is judged on the results of its announcement's round (``Data.for_claim``)."""
    data = data.for_claim(claim)
    if claim.parts:
        parts = tuple(check(part, data) for part in claim.parts)
        core = [part for part in parts if role_of(part.claim) == "core"] or list(parts)
        # A part with no other submitter in any of its cases neither supports nor refutes: shown,
        # it decides only where every core part is uncontested (the uncontested rule).
        uncontested = [part for part in core if _uncontested(part)]
        core = [part for part in core if part not in uncontested] or core
        details = [part for part in parts if role_of(part.claim) == "detail"]
        unsettled = [part for part in details if part.verdict in (NOT_SUPPORTED, CANNOT_BE_CHECKED)]
        verdict = weakest(part.verdict for part in core)
        codes = {code for part in parts for code in part.caveats}
        if unsettled:
            codes.add("detail-unsettled")
        acknowledged = ordered(
            {code for part in parts for code in part.acknowledged}
            | (set(claim.get("acknowledges") or ()) & codes)
        )
        if verdict == SUPPORTED and qualifies(codes - set(acknowledged)):
            verdict = SUPPORTED_WITH_CAVEATS
        reason = " ".join(
            f"{part.claim.id.rsplit('.', 1)[-1]}{' (a detail)' if role_of(part.claim) == 'detail' else ''}"
            f"{' (uncontested, not deciding)' if part in uncontested and part not in core else ''}: {part.verdict}."
            for part in parts
        )
        lead = f"Made of {len(parts)} parts"
        if details:
            lead += f"; the verdict follows the core part{'s' if len(core) != 1 else ''}"
            if unsettled:
                lead += (
                    f", and the detail{'s' if len(unsettled) != 1 else ''} "
                    f"{', '.join(part.claim.id.rsplit('.', 1)[-1] for part in unsettled)} "
                    f"{'is' if len(unsettled) == 1 else 'are'} a caveat"
                )
        return Check(
            claim=claim,
            verdict=verdict,
            reason=f"{lead}. {reason}",
            parts=parts,
            caveats=ordered(codes),
            missing=tuple(text for part in parts for text in part.missing),
            acknowledged=acknowledged,
        )
    return KINDS[claim.kind].check(claim, data)


def _uncontested(part: Check) -> bool:
    """Whether a part's every case is one no other submitter contests (nothing judged)."""
    return (
        part.verdict == CANNOT_BE_CHECKED
        and bool(part.cases)
        and all(case.reaches is None and case.detail.uncontested for case in part.cases)
    )


# The role a kind names a selector by in what it looked for, where it is not the field's name.
ROLE_FIELDS = {"smaller configuration": "small", "larger configuration": "large"}


def param_path(claim, missing: str) -> str:
    """The ``--param`` path of the selector field a "no result" text names (``select_for``'s
    name, then the field that emptied the selection): ``subject.system``, ``small.system``,
    ``baseline.1.family`` for a list's second baseline, ``subject.sum.0.system`` for a sum's
    first item, ``entries.2.subject.system``, ``items.1.family``. Every path it gives is one
    ``--param`` accepts."""
    import re

    head = missing.split(" (", 1)[0].split(":", 1)[0].strip()
    column = re.search(r"no result with (\w+)=", missing)
    column = column.group(1) if column and column.group(1) != "exclude" else "system"
    item = re.fullmatch(r"(.+?) item (\d+)", head)
    summed = None
    if item and not head.startswith("item "):
        head, summed = item.group(1), int(item.group(2)) - 1
    path = _role_path(claim, head)
    if summed is not None:
        path += f".sum.{summed}"
    top = {"benchmark": "benchmark", "scenario": "scenarios"}.get(column)
    if top and claim.get(top) is not None and column not in _selector_at(claim.fields, path):
        return top  # the kind narrowed the selector to the claim's own benchmark or scenarios
    return f"{path}.{column}"


def _selector_at(fields: dict, path: str) -> dict:
    """The selector a dotted path names inside a claim's fields ({} where it names none)."""
    value = fields
    for step in path.split("."):
        if isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        elif isinstance(value, dict):
            value = value.get(step, {})
        else:
            return {}
    return value if isinstance(value, dict) else {}


def _labelled(entries, label: str) -> int:
    """The index of the entry of a list whose ``label`` is ``label`` (0 if none is)."""
    labels = [str(entry.get("label", "")) if isinstance(entry, dict) else "" for entry in entries or []]
    return labels.index(label) if label in labels else 0


def _role_path(claim, head: str) -> str:
    if head in ROLE_FIELDS:
        return ROLE_FIELDS[head]
    for prefix, field in (("baseline", "baseline"), ("entry", "entries"), ("item", "items")):
        if head == prefix or head.startswith(prefix + " "):
            value = claim.get(field)
            if not isinstance(value, list):
                return field
            index = _labelled(value, head[len(prefix) + 1 :])
            return f"{field}.{index}.subject" if field == "entries" else f"{field}.{index}"
    return head.split(" ", 1)[0]
