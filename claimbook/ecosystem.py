"""Who submitted what: partner counts, multi-node submitters, and presence claims.

Organization names in the results file are not the names an announcement uses ("ASUSTeK"
for "ASUS"). They are matched through an explicit mapping table (``data/partner_names.csv``)
that a reviewer can read line by line, never by fuzzy guessing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from claimbook.csvfile import IngestError, read_table
from claimbook.results import resolve_path
from claimbook.verdict import (
    NOT_SUPPORTED,
    SUPPORTED,
    SUPPORTED_WITH_CAVEATS,
    Verdict,
    availability_caveat,
)

MAPPING_COLUMNS = ("announcement_name", "organization")


def on_accelerators(results: pd.DataFrame, pattern: str) -> pd.DataFrame:
    """Results on accelerators whose name matches ``pattern`` (a regular expression, any case)."""
    expression = re.compile(pattern, re.IGNORECASE)
    return results[[bool(expression.search(name)) for name in results["accelerator"]]]


def submitters(results: pd.DataFrame, vendor: str, vendor_accelerators: str) -> list[str]:
    """Organizations other than the vendor with at least one result on its accelerators."""
    rows = on_accelerators(results, vendor_accelerators)
    return sorted(set(rows["organization"]) - {vendor})


def load_partner_names(path: str | os.PathLike) -> pd.DataFrame:
    """The reviewed mapping from announcement names to results-file organizations."""
    path = resolve_path(path)
    records = read_table(Path(path), "partner name mapping", MAPPING_COLUMNS, "names")
    rows = []
    for line, record in records:
        values = {name: (record[name] or "").strip() for name in MAPPING_COLUMNS}
        empty = [name for name, value in values.items() if not value]
        if empty:
            raise IngestError(f"{path}, line {line}: {', '.join(empty)} is empty")
        rows.append(values)
    mapping = pd.DataFrame(rows, columns=list(MAPPING_COLUMNS))
    repeated = mapping[mapping.duplicated("organization", keep=False)]
    if not repeated.empty:
        raise IngestError(f"{path}: organization(s) {', '.join(sorted(set(repeated['organization'])))} map to more than one name")
    return mapping


@dataclass(frozen=True)
class PartnerMatch:
    matched: pd.DataFrame  # announcement name -> organizations found in the data
    data_only: list[str]  # organizations in the data the announcement does not name
    announcement_only: list[str]  # named partners with no result on the vendor's accelerators


def match_partners(organizations: list[str], named: list[str], mapping: pd.DataFrame) -> PartnerMatch:
    """Match the data's organizations to the announcement's names through ``mapping``."""
    by_organization = dict(zip(mapping["organization"], mapping["announcement_name"]))
    unknown_names = sorted(set(mapping["announcement_name"]) - set(named))
    if unknown_names:
        raise ValueError(f"the mapping names partner(s) the claim does not: {', '.join(unknown_names)}")
    found: dict[str, list[str]] = {name: [] for name in named}
    data_only = []
    for organization in organizations:
        name = by_organization.get(organization)
        if name is None:
            data_only.append(organization)
        else:
            found[name].append(organization)
    matched = pd.DataFrame(
        [{"partner": name, "organizations": ", ".join(orgs)} for name, orgs in found.items() if orgs],
        columns=["partner", "organizations"],
    )
    return PartnerMatch(matched, data_only, [name for name, orgs in found.items() if not orgs])


def check_partner_count(claimed: int, match: PartnerMatch, total: int) -> Verdict:
    """The claim names its partners: it holds when each named partner has results."""
    present = len(match.matched)
    if match.announcement_only:
        return Verdict(
            NOT_SUPPORTED,
            f"{present} of the {claimed:g} named partners have results on the vendor's accelerators; "
            f"missing: {', '.join(match.announcement_only)}.",
        )
    caveats = ()
    if match.data_only:
        caveats = (
            f"The data has {total} organizations besides the vendor on its accelerators; "
            f"{len(match.data_only)} are not among the named partners ({', '.join(match.data_only)})",
        )
    return Verdict(
        SUPPORTED_WITH_CAVEATS if caveats else SUPPORTED,
        f"All {claimed:g} named partners have results on the vendor's accelerators.",
        caveats,
    )


def multinode_definitions(
    results: pd.DataFrame, *, vendor: str, named_organizations: list[str], rack_accelerators: str,
    blackwell_accelerators: str,
) -> dict[str, list[str]]:
    """Organizations with a multi-node Blackwell NVL72 result, under the definition the book
    tests (first) and the obvious alternatives. Patterns are regular expressions on the
    accelerator name: ``rack_accelerators`` for the Grace Blackwell superchips that NVL72 racks
    are built from, ``blackwell_accelerators`` for any Blackwell GPU."""
    multi = results[(results["nodes"] > 1) & (results["organization"] != vendor)]
    rack = on_accelerators(multi, rack_accelerators)
    named_in_name = rack[
        rack["system"].str.contains("NVL72", case=False) | rack["system_name"].str.contains("NVL72", case=False)
    ]
    any_blackwell = on_accelerators(multi, blackwell_accelerators)
    single_or_multi_rack = on_accelerators(results[results["organization"] != vendor], rack_accelerators)
    nvl72_named_any_size = single_or_multi_rack[
        single_or_multi_rack["system"].str.contains("NVL72", case=False)
        | single_or_multi_rack["system_name"].str.contains("NVL72", case=False)
    ]

    def named(rows):
        return sorted(set(rows["organization"]) & set(named_organizations))

    return {
        "named partners, more than one node, on a Grace Blackwell (NVL72) rack": named(rack),
        "any organization, more than one node, on a Grace Blackwell (NVL72) rack": sorted(set(rack["organization"])),
        "named partners, more than one node, 'NVL72' in the system's name": named(named_in_name),
        "named partners, more than one node, any Blackwell GPU": named(any_blackwell),
        "named partners, an 'NVL72' system of any size (one node included)": named(nvl72_named_any_size),
    }


def check_multinode_count(claimed: int, definitions: dict[str, list[str]]) -> Verdict:
    """Judge the count under the first definition; the others say how much hangs on it."""
    (primary, organizations), *others = definitions.items()
    reaching = [name for name, orgs in others if len(orgs) == claimed]
    alternatives = "; ".join(f"{name}: {len(orgs)}" for name, orgs in others)
    if len(organizations) == claimed:
        caveats = () if all(len(orgs) == claimed for _, orgs in others) else (
            f"The count depends on the definition ({alternatives})",
        )
        return Verdict(SUPPORTED_WITH_CAVEATS if caveats else SUPPORTED,
                       f"Under the tested definition ({primary}) the count is {claimed:g}: {', '.join(organizations)}.", caveats)
    caveats = (f"The count is {claimed:g} only if one counts {' or '.join(reaching)}",) if reaching else ()
    return Verdict(
        NOT_SUPPORTED,
        f"Under the tested definition ({primary}) the count is {len(organizations)}, not {claimed:g}: "
        f"{', '.join(organizations) or 'none'}. Other definitions give {alternatives}.",
        caveats,
    )


def check_presence(rows: pd.DataFrame, what: str, notes: tuple[str, ...] = ()) -> Verdict:
    """A claim that a result exists: supported when the data has it."""
    if rows.empty:
        return Verdict(NOT_SUPPORTED, f"The data has no {what}.")
    caveat = availability_caveat(dict(zip(rows["organization"] + " " + rows["system"], rows["availability"])))
    listed = "; ".join(f"{row.model} {row.scenario}" for row in rows.itertuples())
    reason = f"The data has {len(rows)} such result(s): {listed}." + "".join(f" {note}." for note in notes)
    return Verdict(SUPPORTED_WITH_CAVEATS if caveat else SUPPORTED, reason, (caveat,) if caveat else ())


def framework_note(rows: pd.DataFrame, expected: str) -> tuple[str, ...]:
    """A note when the stated software is not what the claim names."""
    stated = sorted(set(rows["framework"]))
    if not stated or all(re.search(re.escape(expected), text, re.IGNORECASE) for text in stated):
        return ()
    return (f"The results state the software as {'; '.join(stated)}, not {expected} by that name",)


def presence_rows(results: pd.DataFrame, *, organization: str, accelerators: str, model: str | None = None) -> pd.DataFrame:
    rows = on_accelerators(results[results["organization"] == organization], accelerators)
    return rows if model is None else rows[rows["model"] == model]


def per_gpu_against(rows: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Throughput per GPU of ``rows`` beside the reference system's, scenario by scenario."""
    merged = rows.merge(reference, on=["model", "scenario"], suffixes=("", "_reference"))
    table = merged[["organization", "system", "model", "scenario", "total_accelerators", "result", "per_accelerator",
                    "organization_reference", "system_reference", "total_accelerators_reference", "per_accelerator_reference"]].copy()
    table["per_gpu_ratio"] = table["per_accelerator"] / table["per_accelerator_reference"]
    return table


def count_rows(claim_id: str, chapter: str, claimed: float, count: int, verdict: Verdict, evidence: str) -> dict:
    return {
        "claim": claim_id, "chapter": chapter, "scenario": "", "claimed": claimed, "measured": count,
        "unit": "organizations", "verdict": verdict.verdict, "reaches_claim": count == claimed,
        "reason": verdict.text(), "evidence": evidence,
    }


def presence_row(claim_id: str, chapter: str, rows: pd.DataFrame, verdict: Verdict) -> dict:
    return {
        "claim": claim_id, "chapter": chapter, "scenario": "", "claimed": None, "measured": len(rows),
        "unit": "results", "verdict": verdict.verdict, "reaches_claim": not rows.empty,
        "reason": verdict.text(), "evidence": "; ".join(rows["location"]) if not rows.empty else "",
    }



def results_per_organization(results: pd.DataFrame, vendor: str, vendor_accelerators: str,
                             named_organizations: list[str]) -> pd.DataFrame:
    """How many results each organization other than the vendor published on its accelerators,
    and whether the announcement names it."""
    rows = on_accelerators(results, vendor_accelerators)
    counts = rows[rows["organization"] != vendor].groupby("organization").size().rename("results").reset_index()
    counts["named"] = counts["organization"].isin(named_organizations).map({True: "named partner", False: "not named"})
    return counts


def definitions_table(definitions: dict[str, list[str]]) -> pd.DataFrame:
    """Each definition of the multi-node claim, its count and its organizations."""
    return pd.DataFrame(
        {
            "definition": list(definitions),
            "count": [len(organizations) for organizations in definitions.values()],
            "organizations": [", ".join(organizations) for organizations in definitions.values()],
        }
    )
