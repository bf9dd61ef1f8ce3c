import pytest
from summaries import summary_row, tidy_from_rows

from claimbook.claims import load_registry
from claimbook.ecosystem import (
    check_multinode_count,
    check_partner_count,
    check_presence,
    framework_note,
    load_partner_names,
    match_partners,
    multinode_definitions,
    per_gpu_against,
    presence_rows,
    submitters,
)
from claimbook.ingest import IngestError
from claimbook.verdict import NOT_SUPPORTED, SUPPORTED, SUPPORTED_WITH_CAVEATS

PARAMS = load_registry().chapter_parameters("ecosystem")


def row(organization, accelerator="NVIDIA GB300", nodes=18, gpus=72, system="GB300-NVL72_x72", **extra):
    return summary_row(Organization=organization, accelerator_model_name=accelerator, number_of_nodes=str(nodes),
                       accelerators_per_node=str(gpus // nodes), total_accelerators=str(gpus), system=system, **extra)


@pytest.fixture
def data(tmp_path):
    return tidy_from_rows(tmp_path, [
        row("Vendor"),
        row("ASUSTeK", nodes=1, gpus=8, accelerator="NVIDIA B300-SXM-270GB", system="B300x8"),
        row("Oracle"),
        row("Stranger"),  # not named in the claim
        row("Cisco", nodes=2, gpus=16, accelerator="NVIDIA B300-SXM-270GB", system="B300x16"),
        row("Other", accelerator="AMD Instinct MI355X", nodes=9, gpus=72, system="MI355Xx72"),
        row("Dell", system="XE9712x18"),  # a GB300 rack whose name does not say NVL72
    ])


@pytest.fixture
def mapping(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("announcement_name,organization\nASUS,ASUSTeK\nOracle Cloud Infrastructure,Oracle\nCisco,Cisco\nDell Technologies,Dell\nLambda,Lambda\n")
    return load_partner_names(path)


NAMED = ["ASUS", "Oracle Cloud Infrastructure", "Cisco", "Dell Technologies", "Lambda"]


def test_submitters_exclude_the_vendor_and_other_accelerators(data):
    assert submitters(data, "Vendor", "nvidia") == ["ASUSTeK", "Cisco", "Dell", "Oracle", "Stranger"]


def test_matching_is_explicit(data, mapping):
    match = match_partners(submitters(data, "Vendor", "nvidia"), NAMED, mapping)
    assert list(match.matched.partner) == ["ASUS", "Oracle Cloud Infrastructure", "Cisco", "Dell Technologies"]
    assert match.data_only == ["Stranger"] and match.announcement_only == ["Lambda"]
    verdict = check_partner_count(5, match, 5)
    assert verdict.verdict == NOT_SUPPORTED and "missing: Lambda" in verdict.reason


def test_all_named_present_is_supported_with_extra_organizations_as_caveat(data, mapping):
    match = match_partners(submitters(data, "Vendor", "nvidia"), NAMED[:4], mapping[mapping.announcement_name != "Lambda"])
    verdict = check_partner_count(4, match, 5)
    assert verdict.verdict == SUPPORTED_WITH_CAVEATS and "Stranger" in verdict.text()


def test_mapping_table_is_validated(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("announcement_name,organization\nASUS,ASUSTeK\nAsus Inc,ASUSTeK\n")
    with pytest.raises(IngestError, match="ASUSTeK map to more than one name"):
        load_partner_names(path)
    path.write_text("announcement_name,organization\nASUS,\n")
    with pytest.raises(IngestError, match="line 2: organization is empty"):
        load_partner_names(path)


def test_multinode_definitions(data):
    definitions = multinode_definitions(
        data, vendor="Vendor", named_organizations=["ASUSTeK", "Cisco", "Dell", "Oracle"],
        rack_accelerators=PARAMS["rack_accelerators"], blackwell_accelerators=PARAMS["blackwell_accelerators"],
    )
    values = list(definitions.values())
    assert values[0] == ["Dell", "Oracle"]  # tested definition
    assert values[1] == ["Dell", "Oracle", "Stranger"]  # any organization
    assert values[2] == ["Oracle"]  # 'NVL72' in the name
    assert values[3] == ["Cisco", "Dell", "Oracle"]  # any Blackwell GPU
    assert check_multinode_count(2, definitions).verdict == SUPPORTED_WITH_CAVEATS
    outcome = check_multinode_count(3, definitions)
    assert outcome.verdict == NOT_SUPPORTED and "only if one counts" in outcome.text()


def test_presence_and_framework(committed_results):
    edge = presence_rows(committed_results, organization="NVIDIA", accelerators=PARAMS["edge_accelerators"], model="qwen3.6-27b")
    assert len(edge) == 1
    assert check_presence(edge, "x").verdict == SUPPORTED
    assert framework_note(edge, "TensorRT Edge-LLM")  # the data says "TensorRT 10.16"
    assert framework_note(edge, "TensorRT") == ()
    assert check_presence(edge.iloc[0:0], "Jetson result").verdict == NOT_SUPPORTED


def test_nebius_per_gpu_against_the_vendor(committed_results):
    nebius = presence_rows(committed_results, organization="Nebius", accelerators=PARAMS["rubin_accelerators"])
    vendor = presence_rows(committed_results, organization="NVIDIA", accelerators=PARAMS["rubin_accelerators"])
    assert check_presence(nebius, "x").verdict == SUPPORTED_WITH_CAVEATS  # preview
    table = per_gpu_against(nebius, vendor).set_index("scenario")
    offline_nebius = nebius.set_index("scenario").loc["Offline"]
    offline_vendor = vendor[vendor.model == "deepseek-r1"].set_index("scenario").loc["Offline"]
    assert table.loc["Offline", "per_gpu_ratio"] == pytest.approx(
        (offline_nebius.result / 36) / (offline_vendor.result / 72)
    )


def test_committed_counts_independent(committed_results):
    """Recount straight from the tidy table with plain pandas."""
    nvidia = committed_results[committed_results.accelerator.str.lower().str.contains("nvidia")]
    others = set(nvidia.organization) - {"NVIDIA"}
    assert len(others) == 26
    mapping = load_partner_names("data/partner_names.csv")
    named = load_registry().claim("partners-19").names
    match = match_partners(sorted(others), list(named), mapping)
    assert len(match.matched) == 19 and match.announcement_only == []
    multi = nvidia[(nvidia.nodes > 1) & nvidia.accelerator.isin(["NVIDIA GB200", "NVIDIA GB300"])]
    named_orgs = set(mapping.organization)
    assert sorted(set(multi.organization) & named_orgs) == ["Azure", "CoreWeave", "Crusoe", "Dell", "HPE", "Nebius", "Oracle"]


def test_results_per_organization_and_definitions_table(data):
    from claimbook.ecosystem import definitions_table, results_per_organization

    counts = results_per_organization(data, "Vendor", "nvidia", ["ASUSTeK", "Oracle"]).set_index("organization")
    assert counts.loc["ASUSTeK", "results"] == 1 and counts.loc["ASUSTeK", "named"] == "named partner"
    assert counts.loc["Stranger", "named"] == "not named"
    assert "Vendor" not in counts.index and "Other" not in counts.index  # the vendor; AMD accelerators
    table = definitions_table({"first": ["A", "B"], "second": []})
    assert table.to_dict("records") == [
        {"definition": "first", "count": 2, "organizations": "A, B"},
        {"definition": "second", "count": 0, "organizations": ""},
    ]
