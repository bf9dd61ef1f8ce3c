"""The derived inputs of the selection tests (unit and pipeline): the committed round re-spelt,
with a system published twice or without one, read as the build reads it; and a heterogeneous
cluster's claim written as an analyst would."""

from __future__ import annotations

import pandas as pd

from claimbook.engine.context import load_data
from tests.helpers.project import ROOT

RUBIN = "VR-NVL72_VR-288GB_aarch64x72_TRT"
EARLIER = [str(ROOT / "data" / "mlperf" / "earlier_rounds.csv")]


def respelt(table):
    """The round with NVIDIA's "Vera Rubin" spelt "VeraRubin" in its text columns, nothing else."""
    mine = table["organization"] == "NVIDIA"
    changed = table.copy()
    for column in ("accelerator", "system_name"):
        changed.loc[mine, column] = changed.loc[mine, column].str.replace("Vera Rubin", "VeraRubin")
    assert (changed["accelerator"] != table["accelerator"]).sum() == 6
    return changed


def duplicated(table):
    """The round with NVIDIA's Vera Rubin rack published twice, the copy in a folder whose name
    differs only by punctuation (``..._aarch64x72-TRT``)."""
    rack = table[(table["organization"] == "NVIDIA") & (table["system"] == RUBIN)]
    twin = RUBIN.replace("_TRT", "-TRT")
    copy = rack.assign(system=twin, location=rack["location"].str.replace(RUBIN, twin))
    return pd.concat([table, copy], ignore_index=True)


def without_rubin(table):
    return table[~((table["organization"] == "NVIDIA") & (table["system"] == RUBIN))]


def data_of(table, **paths):
    return load_data(str(ROOT / "data" / "mlperf" / "v6.1.csv"), EARLIER, results_table=table, **paths)


CLUSTER = "2x8xMI355X_2x8xMI300X"
MI355X_NODE, MI300X_NODE = ("Dell_MangoBoost", "XE9785L"), ("MangoBoost", "8xMI300X_2xEPYC_9534")
HETEROGENEOUS = f"""
  - id: dell-mangoboost-heterogeneous-scaling
    title: "A heterogeneous four-node cluster scales at 97% / 94%"
    statement: >-
      Dell and MangoBoost's four-node cluster (two MI355X nodes and two MI300X nodes) reaches 97%
      Offline and 94% Server of the sum of its nodes' single-node gpt-oss-120b results.
    kind: scaling
    claimed: {{Offline: 97, Server: 94}}
    unit: "%"
    benchmark: gpt-oss-120b
    scenarios: [Offline, Server]
    large: {{organization: Dell_MangoBoost, system: {CLUSTER}}}
    small:
      sum:
        - {{organization: {MI355X_NODE[0]}, system: {MI355X_NODE[1]}, count: 2}}
        - {{organization: {MI300X_NODE[0]}, system: {MI300X_NODE[1]}, count: 2}}
"""
