"""Every scorecard row, recomputed from the data with plain pandas.

Each expected figure and verdict below is computed here, from the results file, with pandas and
the editorial rules of ``book/method.md``; nothing of ``claimbook`` is imported, so a mistake in a
selector, a check or a caveat shows as a disagreement with the committed
``book/generated/scorecard.json``. The raw MLCommons summary (``../shared/mlperf/v6.1/summary.csv``)
is used when it is there, else the committed tidy table; ``load`` gives both the same columns,
and when both are there the first test checks they hold the same results. A scorecard row of the
project's own announcements (``own_registries``) this module does not check is a failure: a new
claim of theirs must come with its recomputation here. Other registries are the generic tests'.
Where a page shows what the engine computes beyond the scorecard, the comparison with the package
is in ``test_recompute_against_engine.py``, which also holds this module to importing nothing of it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.helpers.own_registries import own_registry_files, own_rows

ROOT = Path(__file__).resolve().parents[2]
RAW_SUMMARY = ROOT.parent / "shared" / "mlperf" / "v6.1" / "summary.csv"
TIDY_TABLE = ROOT / "data" / "mlperf" / "v6.1.csv"
EARLIER = ROOT / "data" / "mlperf" / "earlier_rounds.csv"
SCORECARD = ROOT / "book" / "generated" / "scorecard.json"
REGISTRIES = ROOT / "data" / "claims"
SOURCE = "raw" if RAW_SUMMARY.is_file() else "tidy"  # the tidy table is the same results (see the first test)

SUPPORTED, WITH_CAVEATS = "supported", "supported with caveats"
NOT_SUPPORTED, CANNOT = "not supported", "cannot be checked"
LABEL_ONLY = {"derived-metric", "board-power-spec"}  # caveats that label a figure, never qualify a verdict
SCENARIOS = {
    name.lower(): name for name in ("Offline", "Server", "Interactive", "SingleStream", "MultiStream")
}
THREE = ("Offline", "Server", "Interactive")

VR = "VR-NVL72_VR-288GB_aarch64x72_TRT"
GB300_RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
GB300_4RACKS = "GB300-NVL72_GB300-288GB_aarch64x288_TRT"
AMD_8 = "8xMI355X_2xEPYC_9575F"
AMD_72 = "9x8xMI355X_2xEPYC_9575F"
DSR1, QWEN, WAN, GPTOSS = "deepseek-r1", "qwen3-vl-235b-a22b", "wan-2.2-t2v-a14b", "gpt-oss-120b"
LLAMA2, LLAMA31, DLRM = "llama2-70b-99.9", "llama3.1-8b", "dlrm-v3"
DISPLAY = {
    DSR1: "DeepSeek-R1",
    QWEN: "Qwen3-VL 235B",
    WAN: "WAN 2.2 text-to-video",
    GPTOSS: "gpt-oss-120b",
    LLAMA2: "Llama 2 70B (99.9%)",
    LLAMA31: "Llama 3.1 8B",
    DLRM: "DLRM-v3",
}

# Accelerator name -> (family, vendor); the first pattern found wins (mixed systems first).
FAMILIES = (
    (r"H200.*MI350X", "mixed", "mixed"),
    (r"MI300X.*MI355X", "AMD MI300X + MI355X", "AMD"),
    (r"Vera Rubin|VR200", "NVIDIA Vera Rubin", "NVIDIA"),
    (r"GB300", "NVIDIA GB300", "NVIDIA"),
    (r"GB200", "NVIDIA GB200", "NVIDIA"),
    (r"B300", "NVIDIA B300", "NVIDIA"),
    (r"B200", "NVIDIA B200", "NVIDIA"),
    (r"H200", "NVIDIA H200", "NVIDIA"),
    (r"RTX PRO 6000 Blackwell", "NVIDIA RTX PRO 6000 Blackwell", "NVIDIA"),
    (r"RTX PRO 4500 Blackwell", "NVIDIA RTX PRO 4500 Blackwell", "NVIDIA"),
    (r"GB10", "NVIDIA GB10", "NVIDIA"),
    (r"Jetson AGX Thor", "NVIDIA Jetson AGX Thor", "NVIDIA"),
    (r"MI355X", "AMD MI355X", "AMD"),
    (r"MI350X", "AMD MI350X", "AMD"),
    (r"MI350P", "AMD MI350P", "AMD"),
    (r"MI300X", "AMD MI300X", "AMD"),
    (r"Radeon", "AMD Radeon 8060S", "AMD"),
    (r"Arc\(TM\) Pro B70|Arc Pro B70", "Intel Arc Pro B70", "Intel"),
)
PCIE = {"NVIDIA RTX PRO 6000 Blackwell", "NVIDIA RTX PRO 4500 Blackwell", "AMD MI350P", "Intel Arc Pro B70"}
# The kinds of benchmark the announcements name (text-to-video is text in, video out: multimodal too).
CATEGORIES = {
    "recommendation": {DLRM},
    "reasoning": {DSR1, GPTOSS},
    "language": {DSR1, GPTOSS, LLAMA2, LLAMA31, "llama3.1-8b-edge", "qwen3.6-27b"},
    "video": {WAN},
    "multimodal": {QWEN, WAN},
}


# ---------------------------------------------------------------------------------------------
# The data, read with pandas
# ---------------------------------------------------------------------------------------------


def _family(accelerator: str) -> tuple[str, str]:
    for pattern, family, vendor in FAMILIES:
        if re.search(pattern, accelerator):
            return family, vendor
    return "CPU only", "none"


def load(source: str) -> pd.DataFrame:
    """The round's results, one row each, with the same columns from either file."""
    if source == "raw":
        raw = pd.read_csv(RAW_SUMMARY, dtype=str, keep_default_na=False)
        frame = pd.DataFrame(
            {
                "organization": raw["Organization"],
                "division": raw["Division"],
                "availability": raw["Availability"],
                "suite": raw["SystemType"],
                "system": raw["Location"].str.extract(r"results/([^/]+)/", expand=False),
                "accelerator": raw["accelerator_model_name"],
                "nodes": raw["number_of_nodes"].astype(int),
                "gpus": raw["number_of_nodes"].astype(int) * raw["accelerators_per_node"].astype(int),
                "model": raw["Model"],
                "scenario": raw["Scenario"].str.lower().map(SCENARIOS),
                "result": raw["Result"].astype(float),
                "units": raw["Units"],
                "framework": raw["framework"],
                "weights": raw["weight_data_types"],
                "inferred": raw["inferred"].astype(int).astype(bool),
                "has_power": raw["has_power"].map({"True": True, "False": False}),
                "result_id": raw["PrivateID"],
                "location": raw["Location"],
            }
        )
    else:
        tidy = pd.read_csv(TIDY_TABLE, dtype=str, keep_default_na=False)
        frame = pd.DataFrame(
            {
                "organization": tidy["organization"],
                "division": tidy["division"],
                "availability": tidy["availability"],
                "suite": tidy["system_type"],
                "system": tidy["system"],
                "accelerator": tidy["accelerator"],
                "nodes": tidy["nodes"].astype(int),
                "gpus": tidy["total_accelerators"].astype(int),
                "model": tidy["model"],
                "scenario": tidy["scenario"],
                "result": tidy["result"].astype(float),
                "units": tidy["units"],
                "framework": tidy["framework"],
                "weights": tidy["weight_data_types"],
                "inferred": tidy["inferred"].eq("True"),
                "has_power": tidy["has_power"].map({"True": True, "False": False}),
                "result_id": tidy["result_id"],
                "location": tidy["location"],
            }
        )
    frame["benchmark"] = frame["model"].replace({"llama3_1-8b": LLAMA31})  # one benchmark, two spellings
    frame["higher"] = ~frame["units"].str.startswith("Latency")
    families = frame["accelerator"].map(_family)
    frame["family"], frame["vendor"] = families.str[0], families.str[1]
    return frame.sort_values("location", kind="stable").reset_index(drop=True)


def pick(frame: pd.DataFrame, **wanted) -> pd.DataFrame:
    mask = pd.Series(True, index=frame.index)
    for column, value in wanted.items():
        mask &= (
            frame[column].isin(value) if isinstance(value, (list, set, tuple)) else frame[column].eq(value)
        )
    return frame[mask]


def one(frame: pd.DataFrame, **wanted) -> pd.Series:
    rows = pick(frame, **wanted)
    assert len(rows) == 1, f"expected one result for {wanted}, found {len(rows)}"
    return rows.iloc[0]


def best(rows: pd.DataFrame, per_gpu: bool = False) -> pd.Series | None:
    """The best result: highest throughput or lowest latency (per GPU if asked); first location wins ties."""
    if rows.empty:
        return None
    values = rows["result"] / rows["gpus"] if per_gpu else rows["result"]
    return rows.loc[values.idxmax() if rows["higher"].iloc[0] else values.idxmin()]


def better(new: pd.Series, base: pd.Series, per_gpu: bool = False) -> float:
    """How many times better ``new`` is than ``base`` (latency: base over new)."""
    a, b = (
        (new["result"] / new["gpus"], base["result"] / base["gpus"])
        if per_gpu
        else (new["result"], base["result"])
    )
    return a / b if new["higher"] else b / a


def percent(ratio: float) -> float:
    return 100.0 * (ratio - 1.0)


# ---------------------------------------------------------------------------------------------
# The editorial rules (book/method.md), as plain functions
# ---------------------------------------------------------------------------------------------


def decimals(claimed: float) -> int:
    text = repr(float(claimed))
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def matches(measured: float, claimed: float) -> bool:
    """A stated figure is the measurement rounded (half up) or truncated at the figure's precision."""
    step = Decimal(1).scaleb(-decimals(claimed))
    value, target = Decimal(repr(float(measured))), Decimal(repr(float(claimed))).quantize(step)
    return target in (value.quantize(step, ROUND_HALF_UP), value.quantize(step, ROUND_DOWN))


def reaches(measured: float, claimed: float, higher: bool = True) -> bool:
    return matches(measured, claimed) or (measured > claimed if higher else measured < claimed)


def row_caveats(*frames) -> set[str]:
    """Caveats the results themselves carry: preview, research, Open division, inferred."""
    rows = pd.concat([pd.DataFrame([f]) if isinstance(f, pd.Series) else f for f in frames])
    found = set()
    if (rows["availability"] == "preview").any():
        found.add("preview")
    if (rows["availability"] == "rdi").any():
        found.add("rdi")
    if (rows["division"] == "open").any():
        found.add("open-division")
    if rows["inferred"].any():
        found.add("inferred")
    return found


def verdict(holds: bool | None, caveats=(), acknowledged=()) -> str:
    if holds is None:
        return CANNOT
    if not holds:
        return NOT_SUPPORTED
    return WITH_CAVEATS if set(caveats) - set(acknowledged) - LABEL_ONLY else SUPPORTED


def weakest(*verdicts: str) -> str:
    return min(verdicts, key=(NOT_SUPPORTED, CANNOT, WITH_CAVEATS, SUPPORTED).index)


@dataclass(frozen=True)
class Row:
    measured: float | None
    verdict: str
    caveats: frozenset = frozenset()  # caveats the row must carry (it may carry more)
    reaches: bool | None | str = "any"  # the row's reaches_claim, when the check pins it
    claimed: float | None | str = "any"


def rows_of(
    verdict_: str, measured: dict, caveats=(), reached: dict | None = None, claimed: dict | None = None
):
    return {
        label: Row(
            value,
            verdict_,
            frozenset(caveats),
            (reached or {}).get(label, "any"),
            (claimed or {}).get(label, "any"),
        )
        for label, value in measured.items()
    }


# ---------------------------------------------------------------------------------------------
# NVIDIA's announcement
# ---------------------------------------------------------------------------------------------


def rubin_over_gb300(d, benchmark):
    ratios, used = {}, []
    for scenario in THREE:
        vr = one(
            d, organization="NVIDIA", system=VR, benchmark=benchmark, scenario=scenario, division="closed"
        )
        gb = one(
            d,
            organization="NVIDIA",
            system=GB300_RACK,
            benchmark=benchmark,
            scenario=scenario,
            division="closed",
        )
        ratios[scenario] = better(vr, gb)
        used += [vr, gb]
    return ratios, row_caveats(pd.DataFrame(used))


def up_to(d, benchmark, claimed):
    ratios, caveats = rubin_over_gb300(d, benchmark)
    reached = {scenario: reaches(ratio, claimed) for scenario, ratio in ratios.items()}
    holds = reaches(max(ratios.values()), claimed)
    if not all(reached.values()):
        caveats.add("best-case-only")
    if holds and not matches(max(ratios.values()), claimed):
        caveats.add("understated")
    return rows_of(
        verdict(holds, caveats, {"preview"}), ratios, caveats, reached, dict.fromkeys(ratios, claimed)
    )


def exp_rubin_more_tokens(d, e, reg):
    ratios, caveats = rubin_over_gb300(d, DSR1)
    assert all(ratio > 1 for ratio in ratios.values())
    return rows_of(verdict(True, caveats), ratios, caveats, {s: r > 1 for s, r in ratios.items()})


def scaling_pairs(d: pd.DataFrame) -> pd.DataFrame:
    """Every pair of one submitter's results on one accelerator family, benchmark, scenario and
    suite (datacenter or edge) at two GPU counts (Closed division, throughput)."""
    rows = pick(d, division="closed")
    rows = rows[rows["higher"] & (rows["gpus"] > 0)]
    on = ["organization", "family", "benchmark", "scenario", "suite"]
    pairs = rows.merge(rows, on=on, suffixes=("_s", "_l"))
    pairs = pairs[pairs["gpus_l"] > pairs["gpus_s"]].copy()
    pairs["efficiency"] = 100 * (pairs["result_l"] / pairs["result_s"]) / (pairs["gpus_l"] / pairs["gpus_s"])
    return pairs


def nvidia_288_efficiency(d, scenario):
    small = one(
        d, organization="NVIDIA", system=GB300_RACK, benchmark=DSR1, scenario=scenario, division="closed"
    )
    large = one(
        d, organization="NVIDIA", system=GB300_4RACKS, benchmark=DSR1, scenario=scenario, division="closed"
    )
    assert (small["gpus"], large["gpus"]) == (72, 288)
    return 100 * (large["result"] / small["result"]) / (large["gpus"] / small["gpus"]), [small, large]


def exp_scaling_288(d, e, reg):
    offline, used = nvidia_288_efficiency(d, "Offline")
    server, used_server = nvidia_288_efficiency(d, "Server")
    holds = reaches(offline, 99)
    caveats = row_caveats(pd.DataFrame(used + used_server))
    if not reaches(server, 99):  # Server, which the headline does not name, falls short of 99%
        caveats.add("other-scenarios")
    return rows_of(
        verdict(holds, caveats),
        {"Offline": offline, "Server": server},
        caveats,
        {"Offline": holds, "Server": None},
        {"Offline": 99.0, "Server": None},
    )


DEFINITIONS = {
    "beyond one rack (more than 72 GPUs)": lambda p: p["gpus_l"] > 72,
    "any scale-out across nodes": lambda p: p["nodes_l"] > p["nodes_s"],
}


def efficiency_field(d):
    """The rival pairs: every other scaling pair (not NVIDIA's four racks from any start), those above
    101% left out as signs of a weak smaller configuration."""
    pairs = scaling_pairs(d)
    rivals = pairs[~((pairs["organization"] == "NVIDIA") & (pairs["system_l"] == GB300_4RACKS))]
    return rivals[rivals["efficiency"] <= 101.0], rivals[rivals["efficiency"] > 101.0]


def exp_scaling_leading(d, e, reg):
    eligible, flagged = efficiency_field(d)
    pair = {scenario: nvidia_288_efficiency(d, scenario) for scenario in ("Offline", "Server")}
    own = {scenario: efficiency for scenario, (efficiency, _) in pair.items()}
    leads = {}
    for name, rule in DEFINITIONS.items():
        for scenario, efficiency in own.items():
            field = eligible[rule(eligible) & (eligible["scenario"] == scenario)]
            leads[(name, scenario)] = efficiency >= field["efficiency"].max()
    named = [leads[(name, "Offline")] for name in DEFINITIONS]
    holds = any(named)  # the claim names Offline; each definition is a reading of "leading"
    caveats = row_caveats(pd.DataFrame([row for _, rows in pair.values() for row in rows]))
    if holds and not all(named):
        caveats.add("definition-dependent")
    if not all(leads[(name, "Server")] for name in DEFINITIONS):
        caveats.add("other-scenarios")  # a rival leads in a scenario the claim does not name
    if (flagged[flagged["scenario"] == "Offline"]["efficiency"] > own["Offline"]).any():
        caveats.add("superlinear-baseline")
    result = {}
    for (name, scenario), led in leads.items():
        result[f"{name} · {scenario}"] = Row(
            own[scenario], verdict(holds, caveats), frozenset(caveats), led if scenario == "Offline" else None
        )
    return result


def exp_wan_figure(d, scenario, claimed):
    row = one(
        d, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario=scenario, division="closed"
    )
    holds = reaches(row["result"], claimed, bool(row["higher"]))
    caveats = row_caveats(row) | ({"understated"} if holds and not matches(row["result"], claimed) else set())
    return {scenario: Row(row["result"], verdict(holds, caveats), frozenset(caveats), holds, claimed)}


def wan_candidates(d) -> pd.DataFrame:
    """Every single-node WAN 2.2 result (Closed) against the GB300 NVL72 rack: the rack's advantage in
    each scenario (throughput ratio Offline, latency ratio SingleStream)."""
    rack = {
        s: one(d, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario=s, division="closed")
        for s in ("Offline", "SingleStream")
    }
    rows = pick(d, benchmark=WAN, division="closed", nodes=1)
    table, used = [], {}
    for (organization, system), group in rows.groupby(["organization", "system"]):
        record = {
            "organization": organization,
            "system": system,
            "vendor": group["vendor"].iloc[0],
            "gpus": int(group["gpus"].iloc[0]),
        }
        for scenario, mine in rack.items():
            theirs = best(pick(group, scenario=scenario))
            record[scenario] = None if theirs is None else better(mine, theirs)
            used[(organization, system, scenario)] = theirs
        table.append(record)
    return pd.DataFrame(table), rack, used


def exp_wan_unnamed(d, scenario, claimed):
    table, rack, used = wan_candidates(d)
    own = table[table["organization"] == "NVIDIA"]
    assert list(own["system"]) == ["B300-SXM-270GBx8_TRT"]  # NVIDIA's one single-node WAN 2.2 system
    baseline = own.iloc[0]
    measured = baseline[scenario]
    holds = reaches(measured, claimed)
    caveats = {"unnamed-baseline"} | row_caveats(
        rack[scenario], used[("NVIDIA", baseline["system"], scenario)]
    )
    if baseline["gpus"] != rack[scenario]["gpus"]:
        caveats.add("different-size")
    if holds and not matches(measured, claimed):
        caveats.add("understated")
    return {scenario: Row(measured, verdict(holds, caveats), frozenset(caveats), holds, claimed)}


# The 19 partners as the results file names them (ASUS is ASUSTeK, Red Hat is RedHat_Supermicro ...).
NVIDIA_PARTNERS = {
    "ASUS": "ASUSTeK",
    "Azure": "Azure",
    "Cisco": "Cisco",
    "CoreWeave": "CoreWeave",
    "Crusoe": "Crusoe",
    "Dell Technologies": "Dell",
    "Fujitsu": "Fujitsu",
    "Giga Computing": "GigaComputing",
    "HPE": "HPE",
    "Inventec": "Inventec",
    "Lambda": "Lambda",
    "MiTAC Computing": "MiTAC",
    "Nebius": "Nebius",
    "Oracle Cloud Infrastructure": "Oracle",
    "Quanta Cloud Technology": "Quanta_Cloud_Technology",
    "Red Hat": "RedHat_Supermicro",
    "ScitiX": "ScitiX",
    "Supermicro": "Supermicro",
    "Wiwynn": "Wiwynn",
}


def strongest_rows(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """For each value of ``column``, its results of the strongest standing (Closed and available first)."""
    weakness = (rows["division"] != "closed") * 2 + (rows["availability"] != "available")
    return rows[weakness == weakness.groupby(rows[column]).transform("min")]


def exp_partners_19(d, e, reg):
    rows = d[(d["vendor"] == "NVIDIA") & (d["organization"] != "NVIDIA")]  # either division
    present = [name for name, org in NVIDIA_PARTNERS.items() if org in set(rows["organization"])]
    kept = strongest_rows(rows[rows["organization"].isin(NVIDIA_PARTNERS.values())], "organization")
    caveats = row_caveats(kept) - {"inferred"}
    holds = len(present) == len(NVIDIA_PARTNERS) == 19
    return {
        "organization count": Row(
            float(len(present)), verdict(holds, caveats), frozenset(caveats), holds, 19.0
        )
    }


def multinode_partners(d, families=("NVIDIA GB200", "NVIDIA GB300"), division="closed", named=True):
    rows = d[d["family"].isin(families) & (d["nodes"] >= 2) & (d["organization"] != "NVIDIA")]
    if division != "any":
        rows = rows[rows["division"] == division]
    found = set(rows["organization"])
    return sorted(found & set(NVIDIA_PARTNERS.values())) if named else sorted(found)


def exp_partners_multinode(d, e, reg):
    counted = multinode_partners(d)
    holds = len(counted) == 8
    return {
        "organization count": Row(
            float(len(counted)), verdict(holds), frozenset({"definition-dependent"}), holds, 8.0
        )
    }


def vera_rubin_rows(d):
    return pick(d, family="NVIDIA Vera Rubin", division="closed")


def exp_nebius_rubin(d, e, reg):
    rows = pick(vera_rubin_rows(d), organization="Nebius")
    caveats = row_caveats(rows) - {"inferred"}
    if set(rows["gpus"]) != {72}:
        caveats.add("different-size")
    return {
        "results": Row(
            float(len(rows)), verdict(not rows.empty, caveats, {"preview"}), frozenset(caveats), True
        )
    }


def exp_jetson(d, e, reg):
    rows = pick(
        d, organization="NVIDIA", family="NVIDIA Jetson AGX Thor", benchmark="qwen3.6-27b", division="closed"
    )
    caveats = {"detail-mismatch"} if not rows["framework"].str.contains("TensorRT Edge-LLM").all() else set()
    return {"results": Row(float(len(rows)), verdict(not rows.empty, caveats), frozenset(caveats), True)}


def exp_rubin_items(d, checks):
    """Presence items: (label, benchmark, column, pattern) each must hold on every NVIDIA Vera Rubin result."""
    rows = pick(vera_rubin_rows(d), organization="NVIDIA")
    held, measured = {}, {}
    for label, benchmark, column, pattern in checks:
        mine = pick(rows, benchmark=benchmark)
        measured[label] = float(len(mine))
        held[label] = not mine.empty and mine[column].str.contains(pattern, case=False, regex=True).all()
    caveats = row_caveats(rows) - {"inferred"}
    return rows_of(verdict(all(held.values()), caveats), measured, caveats, held)


def exp_rubin_frameworks(d, e, reg):
    expected = exp_rubin_items(
        d,
        [
            ("Qwen3-VL with vLLM and Dynamo", QWEN, "framework", r"(?=.*vllm)(?=.*dynamo)"),
            ("DeepSeek-R1 with TensorRT-LLM", DSR1, "framework", r"TensorRT-LLM|TRTLLM|TRT-LLM"),
        ],
    )
    rubin = pick(vera_rubin_rows(d), organization="NVIDIA")
    # one framework text for both benchmarks: the field cannot say which ran which
    assert (
        pick(rubin, benchmark=QWEN)["framework"].unique().tolist()
        == pick(rubin, benchmark=DSR1)["framework"].unique().tolist()
    )
    return {
        label: Row(row.measured, "supported with caveats", row.caveats | {"incomplete-data"}, row.reaches)
        for label, row in expected.items()
    }


def exp_nvfp4_weights(d, e, reg):
    """Weights must be 4-bit ("fp4") where the submissions use it: the claim names no benchmark, so
    one benchmark whose weights are fp4 is enough (the others are shown). Where the results do not
    write "nvfp4", the claim's name for the format is not confirmed (a detail mismatch)."""
    rows = pick(vera_rubin_rows(d), organization="NVIDIA")
    held, measured, caveats = {}, {}, row_caveats(rows) - {"inferred"}
    for label, benchmark in (("DeepSeek-R1 weights in NVFP4", DSR1), ("Qwen3-VL weights in NVFP4", QWEN)):
        mine = pick(rows, benchmark=benchmark)
        measured[label] = float(len(mine))
        held[label] = not mine.empty and mine["weights"].str.contains("fp4", case=False).all()
        if held[label] and not mine["weights"].str.contains("nvfp4", case=False).all():
            caveats.add("not-recorded")  # the summary records fp4, not whether it is NVFP4
    assert held == {"DeepSeek-R1 weights in NVFP4": True, "Qwen3-VL weights in NVFP4": False}
    return rows_of(verdict(any(held.values()), caveats, {"preview"}), measured, caveats, held)


def categories_present(rows: pd.DataFrame, named) -> list[str]:
    return [name for name in named if set(rows["benchmark"]) & CATEGORIES[name]]


def exp_platform(d, e, reg):
    """A named kind of benchmark with no result cannot be checked (the data cannot tell a result
    never submitted from one published under another name): never evidence against the claim."""
    rows = pick(d, vendor="NVIDIA", division="closed")
    found = categories_present(rows, ["recommendation", "reasoning", "language", "video"])
    holds = True if len(found) == 4 else None
    return {"category count": Row(float(len(found)), verdict(holds), reaches=holds)}


def exp_result_entries(d, e, reg):
    rows = pick(d, organization="NVIDIA", system=[VR, GB300_RACK, GB300_4RACKS])
    assert len(rows) == 19 and set(rows["division"]) == {"closed"}
    assert set(rows["result_id"]) == {""}  # the summary carries no IDs: 6.1-0106 etc. cannot be tied to rows
    return {"": Row(None, CANNOT)}


def leading_result(subject, field, benchmarks, measures=("total", "per-gpu")):
    """The subject's best result against the best other result of the field, per benchmark and scenario."""
    names = {"total": "as a whole system", "per-gpu": "per GPU"}
    cases = {}
    for measure in measures:
        per_gpu = measure == "per-gpu"
        for benchmark in benchmarks:
            mine = pick(subject, benchmark=benchmark)
            for scenario in [s for s in SCENARIOS.values() if s in set(mine["scenario"])]:
                own = best(pick(mine, scenario=scenario), per_gpu)
                rivals = pick(field, benchmark=benchmark, scenario=scenario)
                rivals = rivals[rivals["higher"]] if per_gpu else rivals
                label = f"{names[measure]} · {DISPLAY[benchmark]} · {scenario}"
                if rivals.empty:
                    cases[label] = (None, None, own, None)
                    continue
                top = best(rivals, per_gpu)
                margin = better(own, top, per_gpu)
                cases[label] = (margin, margin > 1, own, top)
    return cases


def leading_verdict(cases, acknowledged=()):
    """Each reading holds when the subject leads in every case it has a rival in."""
    readings = {}
    for label, (_, led, _, _) in cases.items():
        if led is not None:
            readings.setdefault(label.split(" · ")[0], []).append(led)
    holding = [name for name, found in readings.items() if all(found)]
    used = [row for (_, _, own, top) in cases.values() if top is not None for row in (own, top)]
    caveats = row_caveats(pd.DataFrame(used))
    if holding and len(holding) < len(readings):
        caveats.add("definition-dependent")
    return verdict(bool(holding), caveats, acknowledged), caveats


def exp_rubin_leading(d, e, reg):
    subject = vera_rubin_rows(d)
    field = d[(d["division"] == "closed") & ~d["location"].isin(set(subject["location"]))]
    cases = leading_result(subject, field, [DSR1, QWEN])
    result_verdict, caveats = leading_verdict(cases, {"preview"})
    return {
        label: Row(margin, result_verdict, frozenset(caveats), led)
        for label, (margin, led, _, _) in cases.items()
    }


NOT_CHECKABLE = (
    "disaggregated-serving",
    "rubin-lower-cost-per-token",
    "agentx-30x",
    "mlperf-endpoints-upcoming",
    "nvlink-packet-rate",
    "post-submission-gains",
    "amd-breadth.fifth-round",
    "amd-dlrm-vs-b200-v60.lead-over-v60",
    "nvfp4-precision.attention-kv-cache",
    "qwen3vl-gain-causes.precision-kernels",
)


def exp_gpu_count(d, e, reg):
    rows = pick(d, division="closed")
    rows = rows[rows["higher"] & (rows["gpus"] > 0)]
    pairs = rows.merge(rows, on=["organization", "family", "benchmark", "scenario"], suffixes=("_s", "_l"))
    ratio = pairs["gpus_l"] / pairs["gpus_s"]
    gain = percent(pairs["result_l"] / pairs["result_s"])
    assert not (ratio.between(1.6, 2.0) & (gain >= 0) & (gain < 10)).any()  # no own scale-out fits it
    return {"": Row(None, CANNOT)}


def exp_software_gains(d, e, reg):
    v60 = e[(e["round"] == "v6.0") & (e["organization"] == "NVIDIA") & (e["model"] == QWEN)]
    assert GB300_RACK not in set(v60["system"]) and set(v60["system"]) == {"unspecified"}
    return {"": Row(None, CANNOT)}


# ---------------------------------------------------------------------------------------------
# AMD's post
# ---------------------------------------------------------------------------------------------


def amd(d, system, benchmark, scenario, division="closed"):
    return one(
        d, organization="AMD", system=system, benchmark=benchmark, scenario=scenario, division=division
    )


def exp_amd_scaling(d, e, reg):
    claimed = {"Offline": 94.9, "Server": 94.6}
    measured, used = {}, []
    for scenario in claimed:
        small, large = amd(d, AMD_8, GPTOSS, scenario), amd(d, AMD_72, GPTOSS, scenario)
        measured[scenario] = 100 * (large["result"] / small["result"]) / (large["gpus"] / small["gpus"])
        used += [small, large]
    reached = {s: reaches(measured[s], claimed[s]) for s in claimed}
    caveats = row_caveats(pd.DataFrame(used))
    return rows_of(verdict(all(reached.values()), caveats), measured, caveats, reached, claimed)


def exp_amd_gain(d, reg, claim_id, benchmark, claimed):
    stated = reg[claim_id]["stated"]  # the post's own v6.0 figures, as the registry holds them
    measured, used = {}, []
    for scenario, before in stated["figures"].items():
        now = amd(d, AMD_8, benchmark, scenario)
        measured[scenario] = percent(now["result"] / before if now["higher"] else before / now["result"])
        used.append(now)
        # the v6.1 figures the post states are the published ones at their precision
        assert matches(now["result"], reg[claim_id]["stated_current"][scenario])
    caveats = {"vendor-source"} | row_caveats(pd.DataFrame(used))
    if stated["division"] != "closed":  # Open against Closed: shown, never judged (method page)
        caveats |= {"open-division", "cross-division"}
        return rows_of(CANNOT, measured, caveats, dict.fromkeys(claimed), claimed)
    reached = {s: reaches(measured[s], claimed[s]) for s in claimed}
    return rows_of(verdict(all(reached.values()), caveats), measured, caveats, reached, claimed)


def exp_amd_gains_llama2(d, e, reg):
    return exp_amd_gain(d, reg, "amd-gains-llama2", LLAMA2, {"Offline": 2.9, "Server": 3.0})


def exp_amd_gains_gptoss(d, e, reg):
    return exp_amd_gain(d, reg, "amd-gains-gptoss", GPTOSS, {"Offline": 28.0, "Server": 38.0})


def exp_amd_gains_wan(d, e, reg):
    return exp_amd_gain(d, reg, "amd-gains-wan", WAN, {"SingleStream": 70.0})


def nvidia_baseline(rows: pd.DataFrame) -> pd.Series | None:
    """The claim's method: NVIDIA's own result where it has one, else its best partner's."""
    own = pick(rows, organization="NVIDIA")
    return best(own) if not own.empty else best(rows)


def against_nvidia(d, subject_system, benchmark, scenarios, classes, gpus):
    """Per class (label, family) and scenario: (lead % as the claim chooses, lead % against the best
    of the class by anyone, the rows)."""
    cases = {}
    for label, family in classes:
        for scenario in scenarios:
            mine = amd(d, subject_system, benchmark, scenario)
            rows = pick(
                d, family=family, gpus=gpus, benchmark=benchmark, scenario=scenario, division="closed"
            )
            base = nvidia_baseline(rows)
            key = scenario if label is None else f"{label} · {scenario}"
            if base is None:
                cases[key] = (None, None, mine, None)
                continue
            cases[key] = (percent(better(mine, base)), percent(better(mine, best(rows))), mine, base)
    return cases


def ratio_rows(cases, holds_each, claimed=None):
    used = [row for (_, _, mine, base) in cases.values() if base is not None for row in (mine, base)]
    measured = {key: value for key, (value, _, _, _) in cases.items()}
    reached = {key: (None if value is None else holds_each(key, value)) for key, value in measured.items()}
    judged = [value for value in reached.values() if value is not None]
    caveats = row_caveats(pd.DataFrame(used))
    holds = bool(judged) and all(judged)
    if holds and any(
        not holds_each(key, best_any) for key, (_, best_any, _, _) in cases.items() if best_any is not None
    ):
        caveats.add("not-best-rival")
    if any(value is None for value in measured.values()):
        caveats.add("incomplete-data")
    return rows_of(verdict(holds, caveats), measured, caveats, reached, claimed)


def exp_amd_wan_b300(d, e, reg):
    claimed = {"Offline": 18.0, "SingleStream": 11.0}
    cases = against_nvidia(d, AMD_8, WAN, claimed, [(None, "NVIDIA B300")], 8)
    return ratio_rows(cases, lambda key, value: reaches(value, claimed[key]), claimed)


def exp_amd_gptoss_b200_b300(d, e, reg):
    cases = against_nvidia(
        d, AMD_8, GPTOSS, ["Offline", "Server"], [("B200", "NVIDIA B200"), ("B300", "NVIDIA B300")], 8
    )
    return ratio_rows(cases, lambda key, value: value > 0)


def exp_amd_gptoss_72(d, e, reg):
    claimed = {"Offline": 18.0, "Server": 7.0}
    cases = against_nvidia(d, AMD_72, GPTOSS, claimed, [(None, "NVIDIA GB200")], 72)
    return ratio_rows(cases, lambda key, value: reaches(value, claimed[key]), claimed)


LLAMA2_OUTCOMES = {
    "B200": {"Offline": "lead", "Server": "tie", "Interactive": "lead"},
    "B300": {"Offline": "tie", "Server": "tie", "Interactive": "lead"},
}


def outcome(lead_percent: float, tie_within: float = 3.0) -> str:
    return "lead" if lead_percent > tie_within else "trail" if lead_percent < -tie_within else "tie"


def exp_amd_llama2_ties(d, e, reg):
    cases = against_nvidia(d, AMD_8, LLAMA2, THREE, [("B200", "NVIDIA B200"), ("B300", "NVIDIA B300")], 8)

    def holds(key, value):
        label, scenario = key.split(" · ")
        return outcome(value) == LLAMA2_OUTCOMES[label][scenario]

    return ratio_rows(cases, holds)


def exp_mi350p_vs_rtxpro(d, e, reg):
    cases = {}
    for benchmark in (GPTOSS, LLAMA2, LLAMA31, WAN, DLRM, "whisper"):
        mine_all = pick(d, family="AMD MI350P", gpus=8, benchmark=benchmark, division="closed")
        for scenario in [s for s in SCENARIOS.values() if s in set(mine_all["scenario"])]:
            mine = best(pick(mine_all, scenario=scenario))
            rows = pick(
                d,
                family="NVIDIA RTX PRO 6000 Blackwell",
                gpus=8,
                benchmark=benchmark,
                scenario=scenario,
                division="closed",
            )
            if rows.empty:
                continue  # "where a direct comparison exists"
            cases[f"{DISPLAY[benchmark]} · {scenario}"] = (
                percent(better(mine, nvidia_baseline(rows))),
                percent(better(mine, best(rows))),
                mine,
                nvidia_baseline(rows),
            )
    return ratio_rows(cases, lambda key, value: value > 0)


def exp_mi350p_pcie_top(d, e, reg):
    subject = pick(d, family="AMD MI350P", division="closed")
    field = d[
        (d["division"] == "closed") & d["family"].isin(PCIE) & ~d["location"].isin(set(subject["location"]))
    ]
    cases = leading_result(subject, field, [GPTOSS, LLAMA2, LLAMA31, WAN, DLRM])
    result_verdict, caveats = leading_verdict(cases)
    return {
        label: Row(margin, result_verdict, frozenset(caveats), led)
        for label, (margin, led, _, _) in cases.items()
    }


def exp_crusoe_largest(d, e, reg):
    subject = pick(d, organization="Crusoe", family="AMD MI355X", division="closed")
    others = d[(d["division"] == "closed") & ~d["location"].isin(set(subject["location"]))]
    earlier = e[e["round"] != "v6.1"].dropna(subset=["total_accelerators"])
    top_earlier = earlier.loc[earlier["total_accelerators"].idxmax()]
    this_round = subject["gpus"].max() / others["gpus"].max()
    before = subject["gpus"].max() / top_earlier["total_accelerators"]
    caveats = {"incomplete-data"} | (
        {"vendor-source"} if top_earlier["source_type"] == "vendor-announcement" else set()
    )
    holds = this_round > 1 and before > 1
    return rows_of(
        verdict(holds, caveats),
        {"v6.1": this_round, "earlier rounds": before},
        caveats,
        {"v6.1": this_round > 1, "earlier rounds": before > 1},
    )


def crusoe_gptoss_offline(d):
    return one(
        d,
        organization="Crusoe",
        family="AMD MI355X",
        gpus=512,
        benchmark=GPTOSS,
        scenario="Offline",
        division="closed",
    )


def exp_crusoe_figure(d, e, reg):
    row = crusoe_gptoss_offline(d)
    measured = row["result"] / 1e6
    return {
        "Offline": Row(
            measured, verdict(reaches(measured, 5.75), row_caveats(row)), reaches=True, claimed=5.75
        )
    }


def exp_crusoe_record(d, e, reg):
    mine = crusoe_gptoss_offline(d)
    # the field is every other system: the same system's other scenarios are not its rivals, and
    # neither is the same hardware under another name (Crusoe's 512 MI355X run on DeepSeek-R1)
    others = d[
        (d["division"] == "closed")
        & (d["units"] == "Tokens/s")
        & ~((d["organization"] == mine["organization"]) & (d["system"] == mine["system"]))
        & ~(
            (d["organization"] == mine["organization"])
            & (d["family"] == mine["family"])
            & (d["gpus"] == mine["gpus"])
        )
    ]
    same = pick(others, benchmark=GPTOSS, scenario="Offline")
    earlier = e[(e["round"] != "v6.1") & (e["units"] == "Tokens/s")]
    top_earlier = earlier.loc[earlier["result"].idxmax()]
    measured = {
        "all Tokens/s results": mine["result"] / others["result"].max(),
        "gpt-oss-120b · Offline": mine["result"] / same["result"].max(),
        "earlier rounds": mine["result"] / top_earlier["result"],
    }
    caveats = {"incomplete-data"} | (
        {"vendor-source"} if top_earlier["source_type"] == "vendor-announcement" else set()
    )
    reached = {label: value > 1 for label, value in measured.items()}
    return rows_of(verdict(all(reached.values()), caveats), measured, caveats, reached)


def exp_crusoe_first_dsr1(d, e, reg):
    rows = pick(d, vendor="AMD", benchmark=DSR1, division="closed")
    assert set(rows["organization"]) == {"Crusoe"}
    assert e[
        (e["model"] == DSR1) & e["organization"].isin(["AMD", "Crusoe"])
    ].empty  # none earlier that the book has
    return {
        "results": Row(
            float(len(rows)),
            verdict(not rows.empty, {"incomplete-data"}),
            frozenset({"incomplete-data"}),
            True,
        )
    }


AMD_PARTNERS = {
    "Crusoe": ["Crusoe"],
    "Dell": ["Dell", "Dell_AMD", "Dell_MangoBoost"],
    "HPE": ["HPE"],
    "MangoBoost": ["MangoBoost", "Dell_MangoBoost"],
    "MiTAC": ["MiTAC"],
    "Oracle": ["Oracle"],
    "Supermicro": ["Supermicro"],
}
AMD_PARTNER_ORGS = sorted({org for orgs in AMD_PARTNERS.values() for org in orgs})


def exp_partners_count(d, e, reg):
    rows = d[(d["vendor"] == "AMD") & (d["organization"] != "AMD") & (d["division"] == "closed")]
    present = [name for name, orgs in AMD_PARTNERS.items() if set(orgs) & set(rows["organization"])]
    holds = len(present) == len(AMD_PARTNERS) == 7
    caveats = row_caveats(
        strongest_rows(rows[rows["organization"].isin(AMD_PARTNER_ORGS)], "organization")
    ) - {"inferred"}
    return {
        "organization count": Row(float(len(present)), verdict(holds, caveats), reaches=holds, claimed=7.0)
    }


def exp_partners_gpus(d, e, reg):
    rows = pick(d, vendor="AMD", organization=AMD_PARTNER_ORGS, division="closed")
    named = ["AMD MI355X", "AMD MI350X", "AMD MI300X", "AMD MI350P"]
    present = [family for family in named if family in set(rows["family"])]
    holds = len(present) == 4
    return {"family count": Row(float(len(present)), verdict(holds), reaches=holds, claimed=4.0)}


def close_to_amd(d):
    """Each partner result on AMD GPUs against AMD's own best result of the same GPU, GPU count,
    benchmark and scenario (where AMD has one): the gap in percent."""
    partners = pick(
        d,
        vendor="AMD",
        organization=AMD_PARTNER_ORGS,
        division="closed",
        benchmark=[GPTOSS, LLAMA2, WAN, DLRM, LLAMA31, DSR1],
    )
    own = pick(d, organization="AMD", division="closed")
    cases, used = {}, []
    for _, row in partners.iterrows():
        base = best(
            pick(
                own,
                family=row["family"],
                gpus=row["gpus"],
                benchmark=row["benchmark"],
                scenario=row["scenario"],
            )
        )
        if base is None:
            continue
        label = f"{DISPLAY[row['benchmark']]} · {row['scenario']} · {row['organization']} {row['system']}"
        cases[label] = percent(better(row, base))
        used += [row, base]
    return cases, pd.DataFrame(used)


def exp_partners_close(d, e, reg):
    """ "A few percent" is read as a gap of at most 5%, stated in whole percent: a gap beyond 5% by
    less than one point is a caveat (near the bound), not a failure."""
    cases, used = close_to_amd(d)
    within = {label: abs(value) - 5 < 1 for label, value in cases.items()}
    caveats = row_caveats(used)  # one reading of "a few percent": no other reading to depend on
    if any(5 < abs(value) < 6 for value in cases.values()):
        caveats.add("near-bound")
    return rows_of(verdict(all(within.values()), caveats), cases, caveats, within, dict.fromkeys(cases, 5.0))


def exp_dlrm_only(d, e, reg):
    rows = pick(d, benchmark=DLRM, division="closed")
    vendors = set(rows["vendor"])
    return {
        "vendor": Row(
            float(len(vendors)), verdict(vendors == {"AMD"}), reaches=vendors == {"AMD"}, claimed=1.0
        )
    }


def exp_dlrm_stated(d, e, reg):
    claimed = {"Server": 16194.40, "Offline": 16363.00}
    result, used = {}, []
    for scenario, figure in claimed.items():
        closed, opened = amd(d, AMD_8, DLRM, scenario), amd(d, AMD_8, DLRM, scenario, division="open")
        assert not matches(closed["result"], figure)  # the post's figures are not the Closed results ...
        assert matches(opened["result"], figure)  # ... but the Open ones
        result[scenario] = opened["result"]
        used.append(opened)
    caveats = row_caveats(pd.DataFrame(used))
    return rows_of(verdict(True, caveats), result, caveats, dict.fromkeys(result, True), claimed)


def exp_breadth_categories(d, e, reg):
    rows = pick(d, vendor="AMD", division="closed")
    found = categories_present(rows, ["recommendation", "multimodal", "reasoning", "language"])
    return {"category count": Row(float(len(found)), verdict(len(found) == 4), reaches=len(found) == 4)}


def stated_text(text) -> tuple[float, int]:
    """A figure as the registry writes it and the decimals it is written with ("12,198.80" -> 2)."""
    if isinstance(text, (int, float)):
        return float(text), decimals(float(text))
    cleaned = str(text).replace(",", "")
    return float(cleaned), len(cleaned.split(".")[1]) if "." in cleaned else 0


def matches_at(measured: float, claimed: float, places: int) -> bool:
    step = Decimal(1).scaleb(-places)
    value, target = Decimal(repr(float(measured))), Decimal(repr(float(claimed))).quantize(step)
    return target in (value.quantize(step, ROUND_HALF_UP), value.quantize(step, ROUND_DOWN))


def exp_amd_entry_figures(d, e, reg):
    """Every figure of AMD's per-entry table against the published Closed result of its system."""
    measured, held, used, stated_values = {}, {}, [], {}
    for entry in reg["amd-entry-figures"]["entries"]:
        subject = entry["subject"]
        for benchmark, scenarios in entry["figures"].items():
            for scenario, text in scenarios.items():
                value, places = stated_text(text)
                row = best(
                    pick(
                        d,
                        organization=subject["organization"],
                        system=subject["system"],
                        benchmark=benchmark,
                        scenario=scenario,
                        division="closed",
                    )
                )
                label = f"{entry['label']} · {DISPLAY[benchmark]} · {scenario}"
                measured[label], stated_values[label] = row["result"], value
                held[label] = matches_at(row["result"], value, places)
                used.append(row)
    assert len(measured) == 31 and all(held.values())  # every figure is the published result as stated
    caveats = row_caveats(pd.DataFrame(used))
    assert caveats == {"inferred"}  # two Interactive results are flagged inferred
    return rows_of(verdict(True, caveats), measured, caveats, held, stated_values)


def exp_amd_entry_benchmarks(d, e, reg):
    """Each benchmark AMD's entry table lists for a result ID, against the results of the system
    the book's table of result IDs gives that ID (in that ID's division)."""
    ids = pd.read_csv(ROOT / "data" / "result_ids.csv", dtype=str, keep_default_na=False)
    ids = ids[(ids["stated_by"] == "amd-v6.1") & (ids["round"] == "v6.1")]
    measured, held, used = {}, {}, []
    for _, entry in ids.iterrows():
        for benchmark in entry["benchmarks"].split(";"):
            label = f"{entry['id']} · {DISPLAY[benchmark]}"
            if not entry["system"]:
                measured[label], held[label] = None, None
                continue
            found = pick(
                d,
                organization=entry["organization"],
                system=entry["system"],
                benchmark=benchmark,
                division=entry["division"],
            )
            measured[label], held[label] = float(len(found)), not found.empty
            used.append(found)
    missing = sorted(label for label, value in held.items() if value is False)
    assert missing == [f"{entry} · DeepSeek-R1" for entry in ("6.1-0037", "6.1-0050", "6.1-0084", "6.1-0099")]
    caveats = {"incomplete-data"} | (row_caveats(pd.concat(used)) - {"inferred"})
    return rows_of(NOT_SUPPORTED, measured, caveats, held)


def exp_rubin_two_benchmarks(d, e, reg):
    rows = pick(vera_rubin_rows(d), organization="NVIDIA")
    holds = set(rows["benchmark"]) == {DSR1, QWEN} and (rows["availability"] == "preview").all()
    caveats = row_caveats(rows) - {"inferred"}
    return {"benchmark": Row(2.0, verdict(holds, caveats, {"preview"}), frozenset(caveats), holds, 2.0)}


def exp_rubin_first(d, e, reg):
    rows = vera_rubin_rows(d)
    family_of = dict(zip(d["system"], d["family"]))
    earlier_families = e["system"].map(family_of)
    assert not (earlier_families == "NVIDIA Vera Rubin").any()  # no Vera Rubin system in earlier figures
    caveats = {"incomplete-data"} | (row_caveats(rows) - {"inferred"})
    return {"results": Row(float(len(rows)), verdict(True, caveats, {"preview"}), frozenset(caveats), True)}


def exp_nvfp4_quality(d, e, reg):
    """A Closed result is published only if it meets its benchmark's accuracy target, so NVFP4's
    "minimal loss of quality" holds where the Closed Vera Rubin results use 4-bit weights."""
    rows = pick(vera_rubin_rows(d), organization="NVIDIA")
    held, measured, caveats = {}, {}, row_caveats(rows) - {"inferred"}
    for name, benchmark in (("DeepSeek-R1", DSR1), ("Qwen3-VL", QWEN)):
        label = f"{name} in NVFP4, Closed division"
        mine = pick(rows, benchmark=benchmark)
        measured[label] = float(len(mine))
        held[label] = not mine.empty and mine["weights"].str.contains("fp4", case=False).all()
        if held[label] and not mine["weights"].str.contains("nvfp4", case=False).all():
            caveats.add("not-recorded")
    return rows_of(verdict(any(held.values()), caveats, {"preview"}), measured, caveats, held)


def exp_qwen3vl_software(d, e, reg):
    rows = pick(d, organization="NVIDIA", system=GB300_RACK, benchmark=QWEN, division="closed")
    holds = not rows.empty and rows["framework"].str.contains(r"(?=.*vllm)(?=.*dynamo)", case=False).all()
    caveats = row_caveats(rows) - {"inferred"}
    return rows_of(
        verdict(holds, caveats),
        {"Qwen3-VL with vLLM and Dynamo": float(len(rows))},
        caveats,
        {"Qwen3-VL with vLLM and Dynamo": holds},
    )


def exp_edge_agentic_new(d, e, reg):
    rows = pick(d, benchmark="qwen3.6-27b", division="closed")
    assert e[e["model"] == "qwen3.6-27b"].empty  # no earlier figure of the benchmark in the book
    caveats = {"incomplete-data"} | (row_caveats(rows) - {"inferred"})
    return {"results": Row(float(len(rows)), verdict(not rows.empty, caveats), frozenset(caveats), True)}


def exp_amd_closed(d, e, reg):
    rows = pick(d, organization="AMD")
    divisions = set(rows["division"])
    assert divisions == {"closed", "open"}  # the Open DLRM-v3 results are shown as not named
    caveats = row_caveats(pick(rows, division="closed")) - {"inferred"}  # it stands on the Closed ones
    return {"division count": Row(1.0, verdict("closed" in divisions, caveats), frozenset(caveats), True)}


def exp_amd_512_dsr1(d, e, reg):
    # DeepSeek-R1 only (the claim names its benchmark): the subject's best in each of its
    # scenarios against every other submitter's best of that scenario
    mine_all = pick(
        d, organization="Crusoe", family="AMD MI355X", gpus=512, benchmark=DSR1, division="closed"
    )
    others = pick(d, benchmark=DSR1, division="closed")
    others = others[
        ~((others["organization"] == "Crusoe") & (others["gpus"] == 512) & (others["family"] == "AMD MI355X"))
    ]
    measured = {}
    for scenario in sorted(set(mine_all["scenario"])):
        mine = best(pick(mine_all, scenario=scenario))
        measured[scenario] = mine["result"] / pick(others, scenario=scenario)["result"].max()
    reached = {label: value > 1 for label, value in measured.items()}
    return rows_of(verdict(all(reached.values())), measured, set(), reached)


def exp_amd_wan_b300_only(d, e, reg):
    rows = pick(d, vendor="NVIDIA", benchmark=WAN, gpus=8, division="closed")
    families = set(rows["family"])
    holds = families == {"NVIDIA B300"}
    caveats = row_caveats(rows) - {"inferred"}
    return {"family": Row(float(len(families)), verdict(holds, caveats), frozenset(caveats), holds, 1.0)}


# ---------------------------------------------------------------------------------------------
# Every claim of the scorecard, and the compounds made of its parts
# ---------------------------------------------------------------------------------------------


def cannot(d, e, reg):
    return {"": Row(None, CANNOT)}


EXPECTATIONS = {
    "rubin-qwen3vl-3.7x": lambda d, e, reg: up_to(d, QWEN, 3.7),
    "rubin-dsr1-2.5x": lambda d, e, reg: up_to(d, DSR1, 2.5),
    "rubin-more-tokens-per-rack": exp_rubin_more_tokens,
    "rubin-leading-debut": exp_rubin_leading,
    "rubin-frameworks": exp_rubin_frameworks,
    "nvfp4-precision.weights": exp_nvfp4_weights,
    "rubin-preview-two-benchmarks": exp_rubin_two_benchmarks,
    "rubin-first-preview": exp_rubin_first,
    "scaling-288gpu-99pct": exp_scaling_288,
    "scaling-leading-efficiency": exp_scaling_leading,
    "gpu-count-single-digit": exp_gpu_count,
    "software-gains-1.6x": exp_software_gains,
    "wan-throughput-0.65": lambda d, e, reg: exp_wan_figure(d, "Offline", 0.65),
    "wan-latency-5.7s": lambda d, e, reg: exp_wan_figure(d, "SingleStream", 5.7),
    "wan-9x-throughput": lambda d, e, reg: exp_wan_unnamed(d, "Offline", 9.0),
    "wan-7.5x-latency": lambda d, e, reg: exp_wan_unnamed(d, "SingleStream", 7.5),
    "jetson-thor-edge-agentic": exp_jetson,
    "nvfp4-output-quality": exp_nvfp4_quality,
    "qwen3vl-gain-causes.software": exp_qwen3vl_software,
    "edge-agentic-new": exp_edge_agentic_new,
    "amd-closed-division": exp_amd_closed,
    "amd-512-dsr1-highest": exp_amd_512_dsr1,
    "amd-wan-b300-only": exp_amd_wan_b300_only,
    "partners-19": exp_partners_19,
    "partners-multinode-8": exp_partners_multinode,
    "nebius-rubin-preview": exp_nebius_rubin,
    "platform-fungibility": exp_platform,
    "result-entries": exp_result_entries,
    "amd-gptoss-scaling-72": exp_amd_scaling,
    "amd-gains-llama2": exp_amd_gains_llama2,
    "amd-gains-gptoss": exp_amd_gains_gptoss,
    "amd-gains-wan": exp_amd_gains_wan,
    "amd-wan-vs-b300": exp_amd_wan_b300,
    "amd-gptoss-vs-b200-b300": exp_amd_gptoss_b200_b300,
    "amd-gptoss-72-vs-gb200": exp_amd_gptoss_72,
    "amd-llama2-ties": exp_amd_llama2_ties,
    "amd-dlrm-vs-b200-v60.only-submitter": exp_dlrm_only,
    "amd-dlrm-vs-b200-v60.stated-figures": exp_dlrm_stated,
    "amd-mi350p-pcie-top": exp_mi350p_pcie_top,
    "amd-mi350p-vs-rtxpro": exp_mi350p_vs_rtxpro,
    "amd-crusoe-largest": exp_crusoe_largest,
    "amd-crusoe-highest-throughput.figure": exp_crusoe_figure,
    "amd-crusoe-highest-throughput.record": exp_crusoe_record,
    "amd-crusoe-first-dsr1": exp_crusoe_first_dsr1,
    "amd-partners-7.count": exp_partners_count,
    "amd-partners-7.gpus": exp_partners_gpus,
    "amd-partners-7.close-to-amd": exp_partners_close,
    "amd-breadth.categories": exp_breadth_categories,
    "amd-entry-figures": exp_amd_entry_figures,
    "amd-entry-benchmarks": exp_amd_entry_benchmarks,
    **{claim: cannot for claim in NOT_CHECKABLE},
}
# A claim made of parts follows its core parts (the weakest of them); a detail that does not hold
# or cannot be checked is a caveat. Each part with its role, as the method page defines them.
CORE, DETAIL = "core", "detail"
COMPOUNDS = {
    "amd-dlrm-vs-b200-v60": (
        ("amd-dlrm-vs-b200-v60.only-submitter", CORE),
        ("amd-dlrm-vs-b200-v60.stated-figures", CORE),
        ("amd-dlrm-vs-b200-v60.lead-over-v60", CORE),
    ),
    "amd-crusoe-highest-throughput": (
        ("amd-crusoe-highest-throughput.figure", CORE),
        ("amd-crusoe-highest-throughput.record", CORE),
    ),
    "amd-partners-7": (
        ("amd-partners-7.count", CORE),
        ("amd-partners-7.gpus", CORE),
        ("amd-partners-7.close-to-amd", CORE),
    ),
    "amd-breadth": (("amd-breadth.categories", CORE), ("amd-breadth.fifth-round", DETAIL)),
    "nvfp4-precision": (("nvfp4-precision.weights", CORE), ("nvfp4-precision.attention-kv-cache", DETAIL)),
    "qwen3vl-gain-causes": (
        ("qwen3vl-gain-causes.software", CORE),
        ("qwen3vl-gain-causes.precision-kernels", DETAIL),
    ),
}


def compound_row(parts: dict[str, Row], roles: dict[str, str]) -> Row:
    core = [row.verdict for name, row in parts.items() if roles[name] == CORE]
    unsettled = any(
        row.verdict in (NOT_SUPPORTED, CANNOT) for name, row in parts.items() if roles[name] == DETAIL
    )
    result = weakest(*core)
    if result == SUPPORTED and unsettled:
        result = WITH_CAVEATS
    return Row(None, result, frozenset({"detail-unsettled"} if unsettled else ()))


def registry_claims() -> dict[str, dict]:
    """Every claim and part of the project's own registries, by id, as ``yaml.safe_load`` reads them."""
    found = {}
    for path in own_registry_files(REGISTRIES):
        for claim in yaml.safe_load(path.read_text(encoding="utf-8"))["claims"]:
            found[claim["id"]] = claim
            for part in claim.get("parts") or []:
                found[part["id"]] = part
    return found


def expected_rows(d: pd.DataFrame, earlier: pd.DataFrame, registry: dict) -> dict[tuple[str, str], Row]:
    rows = {}
    for claim, compute in EXPECTATIONS.items():
        for label, row in compute(d, earlier, registry).items():
            rows[(claim, label)] = row
    for claim, parts in COMPOUNDS.items():
        roles = dict(parts)
        assert {name: registry[name].get("role", CORE) for name in roles} == roles  # the registry agrees
        # a part's verdict is the same on each of its rows
        part_rows = {name: row for (name, _), row in rows.items() if name in roles}
        rows[(claim, "")] = compound_row(part_rows, roles)
    return rows


@pytest.fixture(scope="module")
def scorecard() -> dict[tuple[str, str], dict]:
    rows = own_rows(json.loads(SCORECARD.read_text(encoding="utf-8")))
    keyed = {(row["claim"], row["scenario"]): row for row in rows}
    assert len(keyed) == len(rows), "two scorecard rows share a claim and case"
    return keyed


@pytest.fixture(scope="module")
def earlier() -> pd.DataFrame:
    return pd.read_csv(EARLIER)


@pytest.fixture(scope="module")
def registry() -> dict[str, dict]:
    return registry_claims()


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return load(SOURCE)


@pytest.fixture(scope="module")
def expected(data, earlier, registry) -> dict[tuple[str, str], Row]:
    return expected_rows(data, earlier, registry)


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------


def test_both_files_give_the_same_table():
    tidy = load("tidy")
    assert len(tidy) == 492 and tidy["location"].is_unique
    assert not tidy["scenario"].isna().any() and (tidy["gpus"] >= 0).all()
    assert set(tidy["benchmark"]) >= {DSR1, QWEN, WAN, GPTOSS, LLAMA2, LLAMA31, DLRM}
    if RAW_SUMMARY.is_file():
        pd.testing.assert_frame_equal(load("raw"), tidy)


def test_every_scorecard_row_is_recomputed(scorecard, expected):
    unchecked = sorted(set(scorecard) - set(expected))
    assert not unchecked, f"scorecard rows this module does not recompute (add them): {unchecked}"
    gone = sorted(set(expected) - set(scorecard))
    assert not gone, f"rows recomputed here that the scorecard lacks: {gone}"


def test_every_registry_claim_is_in_the_scorecard(scorecard, registry):
    assert {claim for claim, _ in scorecard} == set(registry)


SCORECARD_KEYS = sorted(
    {(row["claim"], row["scenario"]) for row in own_rows(json.loads(SCORECARD.read_text(encoding="utf-8")))}
)


@pytest.mark.parametrize("key", SCORECARD_KEYS, ids=lambda key: f"{key[0]}|{key[1]}")
def test_row(key, scorecard, expected):
    assert key in expected, f"no recomputation for {key}"
    row, want = scorecard[key], expected[key]
    if want.measured is None:
        assert row["measured"] is None
    else:
        assert row["measured"] == pytest.approx(want.measured, rel=1e-6)
    assert row["verdict"] == want.verdict
    assert want.caveats <= set(row["caveats"]), (
        f"missing caveats {sorted(want.caveats - set(row['caveats']))}"
    )
    if want.reaches != "any":
        assert row["reaches_claim"] == want.reaches
    if want.claimed != "any":
        assert row["claimed"] == (None if want.claimed is None else pytest.approx(want.claimed))


# The findings behind the verdicts, spelled out where the brief names them.


def test_rubin_ratios_and_their_caveats(data, scorecard):
    for claim, benchmark, figure, deciding in (
        ("rubin-qwen3vl-3.7x", QWEN, 3.7, 3.7407),
        ("rubin-dsr1-2.5x", DSR1, 2.5, 2.5749),
    ):
        ratios, _ = rubin_over_gb300(data, benchmark)
        assert max(ratios, key=ratios.get) == "Interactive"
        assert ratios["Interactive"] == pytest.approx(deciding, abs=1e-4)
        assert all(
            not reaches(ratios[s], figure) for s in ("Offline", "Server")
        )  # only the best case reaches it
        for scenario in THREE:
            row = scorecard[(claim, scenario)]
            assert {"best-case-only", "inferred", "preview"} <= set(row["caveats"])
            assert row["acknowledged"] == ["preview"]


def test_four_racks_scale_at_99_percent_offline(data):
    offline, _ = nvidia_288_efficiency(data, "Offline")
    server, _ = nvidia_288_efficiency(data, "Server")
    assert round(offline, 2) == 99.49 and matches(offline, 99)
    assert round(server, 2) == 84.93


def test_the_288_gpu_headline_says_its_server_spread_beside_the_same_step_of_others(data, scorecard):
    """The audit: the headline names no scenario, and Server is 84.9%; Azure's GB200 pair on the
    same step (72 to 288 GPUs) scales at 93.6% in Server. A caveat, in the ledger and the reason."""
    server, _ = nvidia_288_efficiency(data, "Server")
    pairs = scaling_pairs(data)
    same_step = pairs[
        (pairs["benchmark"] == DSR1)
        & (pairs["scenario"] == "Server")
        & (pairs["gpus_s"] == 72)
        & (pairs["gpus_l"] == 288)
        & (pairs["organization"] != "NVIDIA")
    ]
    assert list(zip(same_step["organization"], same_step["family"])) == [("Azure", "NVIDIA GB200")]
    azure = float(same_step["efficiency"].iloc[0])
    assert round(azure, 1) == 93.6
    row = scorecard[("scaling-288gpu-99pct", "Offline")]
    assert row["verdict"] == WITH_CAVEATS and "other-scenarios" in row["caveats"]
    assert f"In Server, which the claim does not name, the same pair scales at {server:.1f}%" in row["reason"]
    assert f"Azure deepseek-r1, 72->288 NVIDIA GB200 {azure:.1f}%" in row["reason"]


def test_leading_efficiency_depends_on_the_definition(data):
    eligible, flagged = efficiency_field(data)

    def top(name, scenario):
        field = eligible[DEFINITIONS[name](eligible) & (eligible["scenario"] == scenario)]
        return field.loc[field["efficiency"].idxmax()]

    beyond, scale_out = DEFINITIONS
    rival = top(beyond, "Offline")  # beyond one rack: Azure GB200 72 -> 288
    assert (rival["organization"], rival["family"], rival["gpus_s"], rival["gpus_l"]) == (
        "Azure",
        "NVIDIA GB200",
        72,
        288,
    )
    assert round(rival["efficiency"], 1) == 96.4
    rival = top(scale_out, "Offline")  # any scale-out: Oracle gpt-oss 4 -> 72, ahead of NVIDIA's 99.49%
    assert (rival["organization"], rival["benchmark"], rival["gpus_s"], rival["gpus_l"]) == (
        "Oracle",
        GPTOSS,
        4,
        72,
    )
    assert round(rival["efficiency"], 1) == 100.4
    rival = top(beyond, "Server")  # Azure 93.6% against NVIDIA's 84.9%
    assert rival["organization"] == "Azure" and round(rival["efficiency"], 1) == 93.6
    assert round(nvidia_288_efficiency(data, "Server")[0], 1) == 84.9
    assert len(flagged) == 15 and (flagged["efficiency"] > 101).all()


def test_wan_figures_and_the_unnamed_single_node(data):
    offline = one(data, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario="Offline")
    latency = one(data, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario="SingleStream")
    assert round(offline["result"], 4) == 0.6546 and matches(offline["result"], 0.65)
    assert round(latency["result"], 4) == 5.8077 and not matches(latency["result"], 5.7)
    assert round(percent(5.7 / latency["result"]), 1) == -1.9  # the claim is 1.9% below, in NVIDIA's favour
    table, _, _ = wan_candidates(data)
    table = table.set_index(["organization", "system"])
    nvidia_node = table.loc[("NVIDIA", "B300-SXM-270GBx8_TRT")]
    assert round(nvidia_node["Offline"], 2) == 10.53 and round(nvidia_node["SingleStream"], 2) == 3.10
    gives_9 = table[[matches(value, 9) for value in table["Offline"]]]
    gives_75 = table[[value is not None and matches(value, 7.5) for value in table["SingleStream"]]]
    assert set(gives_9["vendor"]) == {"AMD"}  # only rivals' MI355X nodes give 9x
    assert sorted(org for org, _ in gives_9.index) == ["AMD", "HPE", "Oracle"]
    assert gives_75.empty  # no candidate gives 7.5x, so none gives both
    assert round(table["SingleStream"].min(), 2) == 2.78 and round(table["SingleStream"].max(), 2) == 7.20


def test_the_nine_times_card_gives_a_buyer_the_per_gpu_and_best_node_figures(data, scorecard):
    """The audit: beside 10.5x against NVIDIA's own node, per GPU (1.17x) and against the best
    measured 8-GPU B300 node by any submitter (8.35x)."""
    rack = one(data, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario="Offline")
    node = one(data, organization="NVIDIA", system="B300-SXM-270GBx8_TRT", benchmark=WAN, scenario="Offline")
    best_node = best(
        pick(data, family="NVIDIA B300", gpus=8, benchmark=WAN, scenario="Offline", division="closed")
    )
    per_gpu, against_best = better(rack, node, per_gpu=True), better(rack, best_node)
    assert (round(per_gpu, 2), round(against_best, 2)) == (1.17, 8.35)
    reason = reason_of(scorecard, "wan-9x-throughput")
    assert (
        f"Per GPU, beside the claim's reading (the two differ in size): {per_gpu:.2f}x against {label(node)}"
        in reason
    )
    assert f"by any submitter, {label(best_node)}: {against_best:.2f}x" in reason


def test_partner_counts(data):
    rows = data[(data["vendor"] == "NVIDIA") & (data["organization"] != "NVIDIA")]
    by_org = rows.groupby("organization")["division"].agg(set)
    assert all(org in by_org for org in NVIDIA_PARTNERS.values())
    assert by_org["ScitiX"] == {"open"}  # ScitiX counts only through an Open-division result
    assert multinode_partners(data) == ["Azure", "CoreWeave", "Crusoe", "Dell", "HPE", "Nebius", "Oracle"]
    assert multinode_partners(data, named=False) == sorted(multinode_partners(data) + ["Google"])
    nebius = pick(vera_rubin_rows(data), organization="Nebius")
    assert len(nebius) == 2 and set(nebius["gpus"]) == {36}


def test_presence_details(data):
    jetson = one(data, organization="NVIDIA", family="NVIDIA Jetson AGX Thor", benchmark="qwen3.6-27b")
    assert "Edge-LLM" not in jetson["framework"]
    qwen = pick(vera_rubin_rows(data), organization="NVIDIA", benchmark=QWEN)
    assert set(qwen["weights"]) == {"bf16"}  # Qwen3-VL weights are not NVFP4
    nvidia = pick(data, vendor="NVIDIA", division="closed")
    assert DLRM not in set(nvidia["benchmark"])  # no recommendation result on NVIDIA accelerators


def test_rubin_leads_per_gpu_but_not_as_a_whole_system(data):
    subject = vera_rubin_rows(data)
    assert set(subject["organization"]) == {"NVIDIA", "Nebius"}
    field = data[(data["division"] == "closed") & ~data["location"].isin(set(subject["location"]))]
    cases = leading_result(subject, field, [DSR1, QWEN])
    per_gpu = {label: led for label, (_, led, _, _) in cases.items() if label.startswith("per GPU")}
    whole = {label: led for label, (_, led, _, top) in cases.items() if label.startswith("as a whole")}
    assert len(per_gpu) == 6 and all(per_gpu.values())
    assert sorted(label for label, led in whole.items() if not led) == [
        "as a whole system · DeepSeek-R1 · Offline",
        "as a whole system · DeepSeek-R1 · Server",
    ]
    assert cases["as a whole system · DeepSeek-R1 · Offline"][3]["system"] == "512xMI355X_Crusoe_DS"


def test_amd_comparisons_with_nvidia(data, registry):
    scaling = exp_amd_scaling(data, None, None)
    assert round(scaling["Offline"].measured, 2) == 94.85 and round(scaling["Server"].measured, 2) == 94.63
    wan = against_nvidia(data, AMD_8, WAN, ["Offline", "SingleStream"], [(None, "NVIDIA B300")], 8)
    assert wan["Offline"][3]["organization"] == "NVIDIA"
    assert round(wan["Offline"][0], 1) == 17.6 and round(wan["SingleStream"][0], 1) == 11.5
    best_b300 = best(
        pick(data, family="NVIDIA B300", gpus=8, benchmark=WAN, scenario="Offline", division="closed")
    )
    assert best_b300["organization"] == "VibeHPC" and round(wan["Offline"][1], 1) == -6.7
    gptoss = against_nvidia(
        data, AMD_8, GPTOSS, ["Offline", "Server"], [("B200", "NVIDIA B200"), ("B300", "NVIDIA B300")], 8
    )
    assert pick(
        data, organization="NVIDIA", family="NVIDIA B200", benchmark=GPTOSS
    ).empty  # no own B200: best partner
    assert gptoss["B200 · Offline"][3]["organization"] != "NVIDIA"
    b300_server = best(
        pick(data, family="NVIDIA B300", gpus=8, benchmark=GPTOSS, scenario="Server", division="closed")
    )
    assert b300_server["organization"] == "HPE" and round(gptoss["B300 · Server"][1], 1) == -0.4
    gb200 = against_nvidia(data, AMD_72, GPTOSS, ["Offline", "Server"], [(None, "NVIDIA GB200")], 72)
    assert round(gb200["Offline"][0], 1) == 17.7 and round(gb200["Server"][0], 1) == 7.3
    llama = against_nvidia(data, AMD_8, LLAMA2, THREE, [("B200", "NVIDIA B200"), ("B300", "NVIDIA B300")], 8)
    assert round(llama["B300 · Server"][0], 1) == -3.4 and outcome(llama["B300 · Server"][0]) == "trail"
    assert llama["B200 · Interactive"][0] is None and llama["B300 · Interactive"][0] is None
    assert registry["amd-gains-wan"]["stated"]["division"] == "open"


def test_amd_records_and_partners(data, earlier):
    crusoe = pick(data, organization="Crusoe", family="AMD MI355X")
    others = data[(data["division"] == "closed") & ~data["location"].isin(set(crusoe["location"]))]
    assert crusoe["gpus"].max() == 512 and others["gpus"].max() == 288
    assert crusoe_gptoss_offline(data)["result"] == 5749440.0
    assert set(pick(data, vendor="AMD", benchmark=DSR1)["organization"]) == {"Crusoe"}
    cases, _ = close_to_amd(data)
    outside = {label: round(value, 1) for label, value in cases.items() if abs(value) > 5}
    assert len(cases) == 33 and outside == {
        "gpt-oss-120b · Offline · Dell_MangoBoost XE9785": -5.4,
        "gpt-oss-120b · Offline · Oracle 8xMI355X_2xEPYC-9575F": -5.1,
    }
    dlrm = pick(data, benchmark=DLRM, division="closed")
    assert set(dlrm["vendor"]) == {"AMD"}


def test_what_no_data_can_check(data, earlier):
    assert not data["benchmark"].str.contains("agentx|endpoint", case=False).any()
    assert pick(earlier, model=DLRM).empty  # no v6.0 DLRM-v3 figure of NVIDIA's eight-B200 system
    assert set(earlier["round"]) == {"v5.1", "v6.0"}  # too few rounds to count AMD's fifth


def test_a_post_submission_gain_card_says_no_nvidia_dlrm_result_exists(data, scorecard):
    """The audit: the claim names gains on GPT-OSS-120B and DLRMv3, and NVIDIA has no DLRM-v3
    result in the round for a gain to improve on."""
    nvidia = pick(data, organization="NVIDIA", division="closed")
    gpt = pick(nvidia, benchmark=GPTOSS)
    assert pick(nvidia, benchmark=DLRM).empty and not gpt.empty
    reason = reason_of(scorecard, "post-submission-gains")
    assert f"{len(gpt)} results on gpt-oss-120b; none on DLRM-v3" in reason


def test_platform_fungibility_is_cannot_be_checked_on_recommenders(data, scorecard):
    """The audit: v6.1 has no NVIDIA recommender result; by the book's own rule a named item
    without a result is cannot be checked, never evidence against the claim."""
    rows = pick(data, vendor="NVIDIA", division="closed")
    assert not set(rows["benchmark"]) & CATEGORIES["recommendation"]
    assert categories_present(rows, ["reasoning", "language", "video"]) == ["reasoning", "language", "video"]
    row = scorecard[("platform-fungibility", "category count")]
    assert row["verdict"] == CANNOT and row["reaches_claim"] is None
    # the round has recommenders from other systems only: no such system submitted it
    others = data[data["benchmark"].isin(CATEGORIES["recommendation"])]
    vendors = " and ".join(sorted(set(others["vendor"])))
    said = f"(which the round has from other systems only ({len(others)} results, on {vendors} GPUs)"
    assert "no result of the claim's systems for recommendation" in row["reason"]
    assert said[1:] in row["reason"] and "a missing submission is no evidence either way" in row["reason"]
    assert "another name" not in row["reason"]


def test_the_dlrm_figures_quoted_are_open_and_the_card_shows_the_closed_ones(data, scorecard):
    """The audit: the post's DLRM-v3 figures are AMD's Open results; the card sets AMD's Closed
    results of the same system beside them."""
    for scenario in ("Server", "Offline"):
        closed, opened = amd(data, AMD_8, DLRM, scenario), amd(data, AMD_8, DLRM, scenario, division="open")
        reason = scorecard[("amd-dlrm-vs-b200-v60.stated-figures", scenario)]["reason"]
        assert f"In {scenario} the figure is the Open-division result" in reason
        assert (
            f"{closed['result']:,.0f}"
            in reason.split(f"In {scenario} the figure is the Open-division result")[1][:200]
        )
        assert opened["result"] > closed["result"]


def test_the_cost_card_says_public_price_nodes_are_cheaper_per_token(data, scorecard):
    """The audit: the break-even "yes" rests on two assumed prices, while systems with a public
    price are cheaper per token: the cheapest Offline one, recomputed from the price list."""
    prices = pd.read_csv(ROOT / "data" / "prices" / "gpu_hour_prices.csv")
    # per family, its lowest on-demand price (the chapter's pricing), else its lowest of any kind
    any_kind = prices.groupby("accelerator")["usd_per_gpu_hour"].min()
    on_demand = prices[prices["pricing"] == "on-demand"].groupby("accelerator")["usd_per_gpu_hour"].min()
    on_demand = on_demand.combine_first(any_kind)
    tokens = pick(data, benchmark=DSR1, scenario="Offline", division="closed", units="Tokens/s")
    tokens = tokens[tokens["family"].isin(on_demand.index) & (tokens["gpus"] > 0)]
    cost = tokens["gpus"] * tokens["family"].map(on_demand) * 1e6 / (tokens["result"] * 3600)
    cheapest = tokens.loc[cost.idxmin()]
    reason = reason_of(scorecard, "rubin-lower-cost-per-token")
    assert "rests on assumed prices per GPU-hour" in reason
    assert f"DeepSeek-R1 Offline: {cheapest['organization']} {cheapest['system']}" in reason
    assert f"at {cost.min():.2f} USD per million tokens" in reason


# ---------------------------------------------------------------------------------------------
# Comparisons and context (book/method.md): each figure recomputed from the raw rows
# ---------------------------------------------------------------------------------------------


def signed_text(value: float) -> str:
    return f"{value:+.1f}%".replace("+0.0%", "0.0%").replace("-0.0%", "0.0%")


def label(row: pd.Series) -> str:
    return f"{row['organization']} {row['system']} ({row['gpus']} GPU{'s' if row['gpus'] != 1 else ''})"


def reason_of(scorecard, claim: str) -> str:
    return next(row["reason"] for (name, _), row in scorecard.items() if name == claim)


def test_the_best_of_the_class_is_a_72_gpu_gb300_result(data, scorecard):
    """Against the best GB300 NVL72 rack of any submitter (Nebius for DeepSeek-R1 Offline and
    Server), not against the best result of the benchmark (Crusoe's 512 MI355X)."""
    expected = {}
    for claim, benchmark in (
        ("rubin-qwen3vl-3.7x", QWEN),
        ("rubin-dsr1-2.5x", DSR1),
        ("rubin-more-tokens-per-rack", DSR1),
    ):
        for scenario in THREE:
            vr = one(data, organization="NVIDIA", system=VR, benchmark=benchmark, scenario=scenario)
            racks = pick(
                data,
                family="NVIDIA GB300",
                gpus=72,
                benchmark=benchmark,
                scenario=scenario,
                division="closed",
            )
            top = best(racks)
            expected[(claim, scenario)] = better(vr, top)
            assert scorecard[(claim, scenario)]["measured_vs_best_any"] == pytest.approx(
                expected[(claim, scenario)], rel=1e-9
            )
            assert scorecard[(claim, scenario)]["best_any_class"] == "NVIDIA GB300, 72 GPUs"
    assert round(expected[("rubin-dsr1-2.5x", "Offline")], 3) == 1.715
    assert round(expected[("rubin-dsr1-2.5x", "Server")], 3) == 1.950
    nebius = one(data, organization="Nebius", system=GB300_RACK, benchmark=DSR1, scenario="Offline")
    assert nebius["result"] == 689961.0


def test_a_record_is_set_against_another_system(data, scorecard):
    mine = crusoe_gptoss_offline(data)
    ratio = scorecard[("amd-crusoe-highest-throughput.record", "all Tokens/s results")]["measured"]
    nvidia = one(data, organization="NVIDIA", system=GB300_4RACKS, benchmark=DSR1, scenario="Offline")
    assert ratio == pytest.approx(mine["result"] / nvidia["result"]) and round(ratio, 2) == 2.13
    reason = reason_of(scorecard, "amd-crusoe-highest-throughput.record")
    field = data[(data["division"] == "closed") & ~data["location"].isin([mine["location"]])]
    crusoe_rivals = field[(field["organization"] == "Crusoe") & (field["family"] != mine["family"])]
    what = "other system" if not crusoe_rivals.empty else "other submitter"  # the field, named
    assert f"2.13x the next best {what}, {label(nvidia)}" in reason
    # per GPU beside the whole systems, for context
    per_gpu = f"{mine['result'] / mine['gpus']:,.0f} against {nvidia['result'] / nvidia['gpus']:,.0f} Tokens/s per GPU"
    assert per_gpu in reason


def test_a_latency_gain_reads_as_a_speedup_and_a_fall_of_the_latency(data, registry, scorecard):
    before = registry["amd-gains-wan"]["stated"]["figures"]["SingleStream"]
    now = amd(data, AMD_8, WAN, "SingleStream")["result"]
    speedup, change = before / now, percent(now / before)
    assert round(speedup, 2) == 1.70 and round(change, 1) == -41.1
    row = scorecard[("amd-gains-wan", "SingleStream")]
    assert (
        f"{speedup:.2f}x as fast, latency {signed_text(change)} ({before:.4g} s → {now:.4g} s)"
        in row["reason"]
    )
    assert f"latency {signed_text(change)}" in row["range"]
    # a lead on a latency too: AMD's eight MI355X against NVIDIA's eight B300
    b300 = one(
        data, organization="NVIDIA", family="NVIDIA B300", gpus=8, benchmark=WAN, scenario="SingleStream"
    )
    lead = b300["result"] / now
    assert (
        f"SingleStream {lead:.2f}x as fast, latency {signed_text(percent(now / b300['result']))}"
        in reason_of(scorecard, "amd-wan-vs-b300")
    )


def test_ahead_of_cards_show_the_best_rival_at_the_claimants_size(data, scorecard):
    cases = {
        "amd-gptoss-72-vs-gb200": (AMD_72, GPTOSS, ["Offline", "Server"]),
        "amd-wan-vs-b300": (AMD_8, WAN, ["Offline", "SingleStream"]),
    }
    found = {}
    for claim, (system, benchmark, scenarios) in cases.items():
        reason = reason_of(scorecard, claim)
        for scenario in scenarios:
            mine = amd(data, system, benchmark, scenario)
            rivals = data[
                (data["vendor"] != "AMD")
                & (data["benchmark"] == benchmark)
                & (data["scenario"] == scenario)
                & (data["gpus"] == mine["gpus"])
                & (data["division"] == "closed")
            ]
            top = best(rivals)
            gap = percent(better(mine, top))
            found[(claim, scenario)] = (top, gap)
            assert f"the claimant's result {signed_text(gap)} against it" in reason
    top, gap = found[("amd-gptoss-72-vs-gb200", "Offline")]
    assert (top["organization"], top["family"], round(gap, 1)) == ("CoreWeave", "NVIDIA GB300", -13.2)
    assert round(found[("amd-gptoss-72-vs-gb200", "Server")][1], 1) == -16.9
    assert f"Offline {label(top)}, NVIDIA GB300" in reason_of(scorecard, "amd-gptoss-72-vs-gb200")


def test_a_ratio_of_inferred_against_measured_results_says_so(data, scorecard):
    mixed = []
    for scenario in THREE:
        vr = one(data, organization="NVIDIA", system=VR, benchmark=DSR1, scenario=scenario)
        gb = one(data, organization="NVIDIA", system=GB300_RACK, benchmark=DSR1, scenario=scenario)
        if vr["inferred"] != gb["inferred"]:
            mixed.append((scenario, label(vr if vr["inferred"] else gb)))
    assert mixed == [
        ("Offline", label(one(data, organization="NVIDIA", system=VR, benchmark=DSR1, scenario="Offline"))),
        ("Server", label(one(data, organization="NVIDIA", system=VR, benchmark=DSR1, scenario="Server"))),
    ]
    assert f"{mixed[0][1]} is inferred in Offline, Server" in reason_of(scorecard, "rubin-dsr1-2.5x")


def test_a_missed_figure_matching_another_system_of_the_vendor_is_shown_as_context(data, scorecard):
    rack = one(data, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario="SingleStream")
    same = pick(data, vendor="NVIDIA", benchmark=WAN, scenario="SingleStream", division="closed")
    at_claim = pd.Series([matches(value, 5.7) for value in same["result"]], index=same.index)
    others = same[at_claim & (same["location"] != rack["location"])]
    assert len(others) == 1 and not matches(rack["result"], 5.7)
    other = others.iloc[0]
    assert other["system"] == "GB200-NVL72_GB200-186GB_aarch64x72_TRT" and round(other["result"], 2) == 5.73
    row = scorecard[("wan-latency-5.7s", "SingleStream")]
    assert row["verdict"] == NOT_SUPPORTED  # context, never support
    assert (
        "For context, not support: the claimed 5.7 is the published SingleStream result of another NVIDIA system"
        in row["reason"]
    )
    assert f"{label(other)}, NVIDIA GB200, at {other['result']:.4g} s" in row["reason"]


def test_partners_of_a_vendor_are_counted_from_every_system_with_its_gpus(data, scorecard):
    with_amd = data[
        data["accelerator"].str.contains(r"\bAMD\b|MI3\d\d", regex=True) & (data["organization"] != "AMD")
    ]
    closed = with_amd[with_amd["division"] == "closed"]
    unnamed = sorted(set(closed["organization"]) - set(AMD_PARTNER_ORGS))
    assert "Cisco" in unnamed  # Cisco's H200 + MI350X system has AMD GPUs
    reason = scorecard[("amd-partners-7.count", "organization count")]["reason"]
    assert (
        f"The data also has {len(unnamed)} organizations the claim does not name: {', '.join(unnamed)}."
        in reason
    )


def test_counts_agree_with_their_nouns_and_reasons_carry_no_command_line(scorecard):
    for (claim, case), row in scorecard.items():
        assert "(s) " not in row["reason"] and "(s)." not in row["reason"], (claim, case)
        assert "--param" not in row["reason"] and "--" not in row["reason"].replace("—", ""), (claim, case)


def test_the_cost_reason_gives_both_break_even_prices_with_units(data, scorecard):
    reason = reason_of(scorecard, "rubin-lower-cost-per-token")
    assumed = float(re.search(r"at an assumed ([0-9.]+) USD per GPU-hour", reason).group(1))
    per_gpu = {
        scenario: better(
            one(data, organization="NVIDIA", system=VR, benchmark=DSR1, scenario=scenario),
            one(data, organization="NVIDIA", system=GB300_RACK, benchmark=DSR1, scenario=scenario),
            per_gpu=True,
        )
        for scenario in THREE
    }
    low, high = assumed * min(per_gpu.values()), assumed * max(per_gpu.values())
    assert f"priced below {low:.2f} USD per GPU-hour" in reason
    assert f"below {high:.2f} USD per GPU-hour." in reason


def test_pages_say_no_result_measures_a_claim_only_when_none_was_used(scorecard):
    evidence = {}
    for (claim, _), row in scorecard.items():
        evidence[claim] = evidence.get(claim, False) or bool(row["evidence"])
    parents = {row["part_of"] for row in scorecard.values() if row["part_of"]}
    for claim in parents:
        evidence[claim] = evidence[claim] or any(
            evidence[part] for (part, _), row in scorecard.items() if row["part_of"] == claim
        )
    pages = list((ROOT / "book" / "generated").glob("*/*.ipynb"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if "No chart: no published result measures this claim." in text:
            assert not evidence.get(page.stem), f"{page.name} says no result measures it but uses some"
    assert "No chart: no published result measures this claim." not in (
        ROOT / "book" / "generated" / "nvidia-v6.1" / "nvfp4-precision.ipynb"
    ).read_text(encoding="utf-8")


def test_every_page_showing_results_cites_version_and_division():
    # a claim's page cites its announcement's round (the folder is the announcement's id); the
    # chapters and the pages of the round cite v6.1
    rounds = {
        path.stem: yaml.safe_load(path.read_text(encoding="utf-8"))["announcement"]["round"]
        for path in REGISTRIES.glob("*.yaml")
    }
    generated = ROOT / "book" / "generated"
    for page in generated.glob("**/*.ipynb"):
        text = page.read_text(encoding="utf-8")
        folder = page.parent.name if page.parent != generated else ""
        version = re.escape(rounds.get(folder, "v6.1"))
        if "claimbook-table" in text:  # a page that shows a table of results cites them in full
            assert re.search(rf"MLPerf® Inference {version}, (Closed|Open)", text), page.name
    gains = (ROOT / "book" / "generated" / "software_gains.ipynb").read_text(encoding="utf-8")
    assert "MLPerf® Inference v6.1, Closed division" in gains
    meet = (ROOT / "book" / "generated" / "where_they_meet.ipynb").read_text(encoding="utf-8")
    assert "MLPerf® Inference v6.1, Closed division" in meet


def test_a_leading_efficiency_gives_both_figures_not_a_ratio_of_percentages(data, scorecard):
    eligible, _ = efficiency_field(data)
    beyond = next(iter(DEFINITIONS))
    field = eligible[DEFINITIONS[beyond](eligible) & (eligible["scenario"] == "Offline")]
    rival = field.loc[field["efficiency"].idxmax()]
    mine, _ = nvidia_288_efficiency(data, "Offline")
    reason = reason_of(scorecard, "scaling-leading-efficiency")
    assert f"leads in 1 of 1 case ({mine:.1f}% against {rival['efficiency']:.1f}%, Azure" in reason
    assert "x the next best" not in reason


def test_a_lower_latency_against_the_natural_baseline_gives_the_fall_of_the_latency(data, scorecard):
    rack = one(data, organization="NVIDIA", system=GB300_RACK, benchmark=WAN, scenario="SingleStream")
    node = one(
        data, organization="NVIDIA", system="B300-SXM-270GBx8_TRT", benchmark=WAN, scenario="SingleStream"
    )
    change = percent(rack["result"] / node["result"])
    assert round(change, 1) == -67.7
    reason = scorecard[("wan-7.5x-latency", "SingleStream")]["reason"]
    assert (
        f"is {node['result'] / rack['result']:.2f}x lower, latency {signed_text(change)} (claimed 7.5x)"
        in reason
    )
