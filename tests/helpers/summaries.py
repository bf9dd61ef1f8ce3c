"""Small MLCommons-style summary files for tests, in the current or the older column layout."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

CURRENT_LAYOUT = [
    "Organization",
    "Availability",
    "Division",
    "SystemType",
    "SystemName",
    "Platform",
    "Model",
    "MlperfModel",
    "Scenario",
    "Result",
    "Accuracy",
    "number_of_nodes",
    "host_processor_model_name",
    "host_processors_per_node",
    "host_processor_core_count",
    "accelerator_model_name",
    "accelerators_per_node",
    "total_accelerators",
    "Location",
    "framework",
    "operating_system",
    "notes",
    "compliance",
    "errors",
    "version",
    "inferred",
    "has_power",
    "Units",
    "weight_data_types",
    "design_power_watts",
    "PrivateID",
]
OLDER_LAYOUT = [
    name for name in CURRENT_LAYOUT if name not in ("total_accelerators", "design_power_watts", "PrivateID")
]


def summary_row(**values) -> dict:
    """One raw result; keyword arguments override the defaults (a GB300 NVL72 DeepSeek-R1 run)."""
    organization = values.pop("Organization", "Acme")
    system = values.pop("system", "GB300-NVL72_GB300-288GB_aarch64x72_TRT")
    model = values.pop("Model", "deepseek-r1")
    scenario = values.pop("Scenario", "Offline")
    row = {
        "Organization": organization,
        "Availability": "available",
        "Division": "closed",
        "SystemType": "datacenter",
        "SystemName": f"{organization} {system}",
        "Platform": system,
        "Model": model,
        "MlperfModel": model,
        "Scenario": scenario,
        "Result": "1000.0",
        "Accuracy": "",
        "number_of_nodes": "18",
        "host_processor_model_name": "Grace",
        "host_processors_per_node": "2",
        "host_processor_core_count": "72",
        "accelerator_model_name": "NVIDIA GB300",
        "accelerators_per_node": "4",
        "total_accelerators": "72",
        "Location": f"./{values.get('Division', 'closed')}/{organization}/results/{system}/{model}/{scenario}/performance/run_1",
        "framework": "TensorRT",
        "operating_system": "Linux",
        "notes": "1400W TGP Per GPU",
        "compliance": "closed",
        "errors": "0",
        "version": "v6.1",
        "inferred": "0",
        "has_power": "False",
        "Units": "Tokens/s",
        "weight_data_types": "fp4",
        "design_power_watts": "None",
        "PrivateID": "",
    }
    row.update(values)
    return row


def write_summary(path: Path, rows: list[dict], layout: list[str] = CURRENT_LAYOUT) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=layout, extrasaction="ignore", quoting=csv.QUOTE_MINIMAL)
        writer.writeheader()
        writer.writerows(rows)
    return path


def summary_from_tidy(tidy: pd.DataFrame, path: Path, layout: list[str] = CURRENT_LAYOUT) -> Path:
    """Turn tidy rows back into a raw summary (for builds from modified data)."""
    rows = []
    for item in tidy.itertuples(index=False):
        rows.append(
            summary_row(
                Organization=item.organization,
                system=item.system,
                Availability=item.availability,
                Division=item.division,
                SystemType=item.system_type,
                SystemName=item.system_name,
                Model=item.model,
                MlperfModel=item.mlperf_model,
                Scenario=item.scenario,
                Result=repr(float(item.result)),
                number_of_nodes=str(item.nodes),
                accelerator_model_name=item.accelerator,
                accelerators_per_node=str(item.accelerators_per_node),
                total_accelerators=str(item.total_accelerators),
                Location=item.location,
                framework=item.framework,
                notes="" if pd.isna(item.gpu_watts) else f"{item.gpu_watts:.0f}W TGP Per GPU",
                version=item.round,
                Units=item.units,
                weight_data_types=item.weight_data_types,
                inferred="1" if item.inferred else "0",
                has_power="True" if item.has_power else "False",
                PrivateID=item.result_id,
            )
        )
    return write_summary(path, rows, layout)


def tidy_from_rows(tmp_path: Path, rows: list[dict], round_name: str = "v6.1") -> pd.DataFrame:
    """A tidy results table, through the real ingest, from raw rows made with ``summary_row``."""
    from claimbook.inputs.ingest import ingest, write_tidy
    from claimbook.inputs.results import load_results

    summary = write_summary(tmp_path / f"summary-{round_name}.csv", rows)
    return load_results(write_tidy(ingest(summary, round_name), tmp_path / f"{round_name}.csv"))


def rack(organization: str, gpus: int, scenario: str, result: float, **extra) -> dict:
    """A GB300 result at ``gpus`` GPUs (4 per node), for scaling tests."""
    system = extra.pop("system", f"GB300_x{gpus}")
    return summary_row(
        Organization=organization,
        system=system,
        Scenario=scenario,
        Result=str(result),
        number_of_nodes=str(max(1, gpus // 4)),
        accelerators_per_node=str(min(4, gpus)),
        total_accelerators=str(gpus),
        **extra,
    )


# Text a hostile results file might carry. Each payload, if it ever ran, would set window.__pwned.
SCRIPT = "<script>window.__pwned=1</script>"
IMAGE = '<img src=x onerror="window.__pwned=2">'
JAVASCRIPT_LINK = "javascript:window.__pwned=3"
SVG = "<svg onload=window.__pwned=4>"
# Right-to-left script and zero-width characters (a bidirectional override is refused by ingest:
# tests/unit/test_hostile_inputs.py).
RIGHT_TO_LEFT = "\u05e8\u05e2evil\u200b\u200dname"
LONG = "L" * 3000


def hostile_rows() -> list[dict]:
    """Rows whose text fields carry markup, script, links, bidi and zero-width characters and a
    very long name; they form a scaling pair, a WAN 2.2 single node and priced token results,
    so they reach the tables and charts of every chapter."""
    # (its Location's organization folder is the same text: a Location names its row's own folder)
    organization = f"{JAVASCRIPT_LINK}{IMAGE}{RIGHT_TO_LEFT}"
    common = {
        "Organization": organization,
        "accelerator_model_name": "NVIDIA B200-SXM-180GB",
        "SystemName": f"{SCRIPT}{LONG}",
        "framework": f"{JAVASCRIPT_LINK} {SCRIPT}",
        "notes": f"{SCRIPT} 1000W TGP per GPU",
    }
    rows = []
    for gpus, nodes in ((8, 1), (16, 2)):
        system = f"{SVG}x{gpus}"
        for scenario, result in (("Offline", 60000.0 * gpus / 8), ("Server", 50000.0 * gpus / 8)):
            rows.append(
                summary_row(
                    system=system,
                    Model="deepseek-r1",
                    Scenario=scenario,
                    Result=str(result),
                    number_of_nodes=str(nodes),
                    accelerators_per_node="8",
                    total_accelerators=str(gpus),
                    **common,
                )
            )
    for scenario, result, units in (("Offline", 0.05, "Samples/s"), ("SingleStream", 20.0, "Latency (s)")):
        rows.append(
            summary_row(
                system=f"{SVG}x8",
                Model="wan-2.2-t2v-a14b",
                Scenario=scenario,
                Result=str(result),
                Units=units,
                number_of_nodes="1",
                accelerators_per_node="8",
                total_accelerators="8",
                **common,
            )
        )
    return rows
