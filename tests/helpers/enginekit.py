"""Small worlds for engine tests: results made through the real ingest, claims written as YAML."""

from __future__ import annotations

from pathlib import Path

import yaml

from claimbook.engine import load_registry
from claimbook.engine.core import Data
from claimbook.inputs.earlier import announced_figures, combine_rounds
from claimbook.inputs.reference import annotate, load_reference
from tests.helpers.project import ROOT
from tests.helpers.summaries import summary_row, tidy_from_rows

HEADER = {
    "id": "acme-v6.1",
    "title": "Acme's post",
    "publisher": "Acme",
    "claimant": "Acme",
    "vendor": "NVIDIA",
    "date": "2026-09-17",
    "round": "v6.1",
}


def result(
    organization: str,
    system: str,
    scenario: str,
    value: float,
    *,
    gpus: int = 8,
    nodes: int = 1,
    accelerator: str = "NVIDIA B300-SXM-270GB",
    model: str = "gpt-oss-120b",
    units: str = "Tokens/s",
    **extra,
) -> dict:
    """One raw summary row with the fields engine tests care about."""
    return summary_row(
        Organization=organization,
        system=system,
        Scenario=scenario,
        Result=repr(float(value)),
        Model=model,
        accelerator_model_name=accelerator,
        number_of_nodes=str(nodes),
        accelerators_per_node=str(gpus // nodes),
        total_accelerators=str(gpus),
        Units=units,
        **extra,
    )


def world(tmp_path: Path, rows: list[dict], claims: list[dict], header: dict | None = None) -> Data:
    """Data for the engine: the rows ingested, one registry file with ``claims``."""
    folder = tmp_path / "claims"
    folder.mkdir(exist_ok=True)
    (folder / "acme-v6.1.yaml").write_text(
        yaml.safe_dump({"announcement": {**HEADER, **(header or {})}, "claims": claims}, sort_keys=False)
    )
    (tmp_path / "chapters.yaml").write_text("{}\n")
    registry = load_registry(folder, tmp_path / "chapters.yaml")
    reference = load_reference(ROOT / "data" / "reference")
    results = annotate(tidy_from_rows(tmp_path, rows), reference)
    earlier = combine_rounds([announced_figures(registry)])
    return Data(results, earlier, reference, registry)


def check(data: Data, claim_id: str):
    from claimbook import engine

    return engine.check(data.registry.claim(claim_id), data)
