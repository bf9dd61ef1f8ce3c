"""The vocabulary of an MLCommons results summary, and the tidy table the book reads.

Scenarios and units are fixed by the MLPerf Inference rules; everything else (divisions,
availability, organizations, models) is taken from the data itself.
"""

from __future__ import annotations

# A flag's spellings in a summary (``inferred``, ``has_power``); empty is false, anything else an error.
FLAG_TRUE = ("1", "True", "true", "TRUE")
FLAG_FALSE = ("", "0", "False", "false", "FALSE")

# Columns every MLCommons Inference summary.csv has had since v4.x. Later rounds add
# ``total_accelerators``, ``design_power_watts`` and ``PrivateID``; those are optional here.
REQUIRED_COLUMNS = (
    "Organization",
    "Availability",
    "Division",
    "SystemType",
    "SystemName",
    "Model",
    "Scenario",
    "Result",
    "number_of_nodes",
    "accelerator_model_name",
    "accelerators_per_node",
    "Location",
    "Units",
)
OPTIONAL_COLUMNS = (
    "MlperfModel",
    "framework",
    "inferred",
    "has_power",
    "notes",
    "total_accelerators",
    "PrivateID",
    "weight_data_types",
)

# Canonical spelling of each scenario; summaries sometimes write them in lower case.
SCENARIOS = ("Offline", "Server", "Interactive", "SingleStream", "MultiStream")
SCENARIO_BY_LOWER = {name.lower(): name for name in SCENARIOS}

# Unit -> (metric kind, higher is better). Latency units are lower-is-better.
UNITS = {
    "Tokens/s": ("throughput", True),
    "Samples/s": ("throughput", True),
    "Queries/s": ("throughput", True),
    "Tasks/s": ("throughput", True),
    "Latency (s)": ("latency", False),
    "Latency (ms)": ("latency", False),
}

# The tidy table, in column order. ``location`` is the provenance of every number:
# the result's folder in the MLCommons results repository.
TIDY_COLUMNS = (
    "round",
    "organization",
    "division",
    "availability",
    "system_type",
    "system",
    "system_name",
    "accelerator",
    "nodes",
    "accelerators_per_node",
    "total_accelerators",
    "model",
    "mlperf_model",
    "scenario",
    "result",
    "units",
    "metric",
    "higher_is_better",
    "per_accelerator",
    "gpu_watts",
    "has_power",
    "framework",
    "weight_data_types",
    "inferred",
    "result_id",
    "location",
)

# What a citation reads of the results it cites (``present.blocks.citation``: each round's
# version, divisions, scenarios, benchmarks and result IDs), and ``location`` that tells two
# results apart: a page that cites hundreds of results keeps only these of each.
CITED_COLUMNS = (
    "round",
    "division",
    "scenario",
    "benchmark",
    "result_id",
    "organization",
    "system",
    "location",
)

# A result is identified by who ran what on which system: two rows with the same key are
# the same result published twice.
RESULT_KEY = ("organization", "division", "system", "model", "scenario")
