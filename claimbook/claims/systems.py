"""Searching the results for systems: which systems an organization, an accelerator family, a
benchmark, a scenario, a GPU count or a division picks, each with the selector that picks it.

A search is a selector (``claimbook.claims.selectors``), so names match here exactly as they
match in a registry: whatever their case, spacing and punctuation, a system by its id, its
published name or its result folder. What a line prints as the system's selector is what a
registry writes to name it: ``{organization: AMD, system: 8xMI355X_2xEPYC_9575F}`` (with
``division: open`` for an Open-division system, since a claim reads Closed unless it says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import yaml

from claimbook.claims.selectors import ANY, Missing, missing, select
from claimbook.common.formatting import plural

# The search's options and the selector field each one fills.
FILTERS = ("organization", "system", "family", "vendor", "benchmark", "scenario", "gpus", "division")
# A registry's claims read the Closed division unless they say otherwise (``division: any``).
DEFAULT_DIVISION = "closed"


@dataclass(frozen=True)
class FoundSystem:
    """One system the search found: who submitted it, what it is, and what it ran."""

    organization: str
    system: str
    system_name: str
    family: str
    gpus: int
    nodes: int
    division: str
    availability: str
    benchmarks: dict  # benchmark -> its scenarios, in the data's order

    @property
    def selector(self) -> dict:
        """The selector fields that pick this system and no other."""
        found = {"organization": self.organization, "system": self.system}
        if self.division.lower() != DEFAULT_DIVISION:
            found["division"] = self.division
        return found


def search(results: pd.DataFrame, filters: dict) -> list[FoundSystem]:
    """The systems of ``results`` (annotated with families and benchmarks) that every filter
    accepts, by organization and system. ``filters`` is a selector; ``division`` defaults to any."""
    selector = {"division": ANY, **{name: value for name, value in filters.items() if value is not None}}
    rows = select(results, selector)
    found = []
    for (organization, system, division), group in rows.groupby(
        ["organization", "system", "division"], sort=True, dropna=False
    ):
        first = group.iloc[0]
        benchmarks: dict[str, list[str]] = {}
        for benchmark, scenario in zip(group["benchmark"], group["scenario"]):
            scenarios = benchmarks.setdefault(str(benchmark), [])
            if str(scenario) not in scenarios:
                scenarios.append(str(scenario))
        found.append(
            FoundSystem(
                organization=str(organization),
                system=str(system),
                system_name=str(first["system_name"]),
                family=str(first["family"]),
                gpus=int(first["total_accelerators"]),
                nodes=int(first["nodes"]),
                division=str(division),
                availability=str(first["availability"]),
                benchmarks=benchmarks,
            )
        )
    return found


def why_none(results: pd.DataFrame, filters: dict) -> Missing | None:
    """Which filter emptied a search, and the closest names the data has (None if it found some)."""
    selector = {"division": ANY, **{name: value for name, value in filters.items() if value is not None}}
    return missing(results, selector)


def flow(selector: dict) -> str:
    """A selector as a registry writes it on one line: ``{organization: AMD, system: X}``."""
    return yaml.safe_dump(selector, default_flow_style=True, sort_keys=False, width=10_000).strip()


def describe(found: FoundSystem) -> str:
    """One line of ``claimbook systems``: the selector first (to copy into a registry), then what
    the system is and which benchmarks and scenarios it has results for."""
    ran = "; ".join(
        f"{benchmark} ({', '.join(scenarios)})" for benchmark, scenarios in found.benchmarks.items()
    )
    what = f"{found.family}, {plural(found.gpus, 'GPU')}, {found.division}, {found.availability}"
    return f"{flow(found.selector)}  # {what}; {ran}"
