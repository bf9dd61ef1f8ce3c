import json

import nbformat
import pytest
import yaml

from claimbook.claims import ClaimsError, load_registry
from conftest import ROOT

REQUIRED_IDS = {
    "rubin-qwen3vl-3.7x", "rubin-dsr1-2.5x", "scaling-288gpu-99pct", "software-gains-1.6x",
    "wan-throughput-0.65", "wan-latency-5.7s", "wan-9x-throughput", "wan-7.5x-latency",
    "partners-19", "partners-multinode-8", "nebius-rubin-preview", "jetson-thor-edge-agentic",
    "agentx-30x", "post-submission-gains", "nvlink-packet-rate",
}


def test_registry_has_every_claim_of_the_announcement():
    registry = load_registry()
    assert REQUIRED_IDS <= {claim.id for claim in registry.claims}


def test_every_claim_has_a_chapter_or_a_reason():
    for claim in load_registry().claims:
        assert claim.chapter or claim.uncheckable_reason, claim.id


def template_defaults(template):
    notebook = nbformat.read(ROOT / template, as_version=4)
    cells = [cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(cells) == 1, f"{template}: exactly one parameters cell"
    namespace = {}
    exec(cells[0].source, namespace)  # literal assignments only
    return {name: value for name, value in namespace.items() if not name.startswith("__")}


def test_template_defaults_agree_with_the_registry():
    """The template runs on its own with the same inputs the build passes it."""
    registry = load_registry()
    for chapter in registry.written_chapters():
        defaults = template_defaults(chapter.template)
        for name, value in registry.chapter_parameters(chapter.name).items():
            assert json.dumps(defaults.get(name), sort_keys=True) == json.dumps(value, sort_keys=True), (chapter.name, name)


def write(tmp_path, document):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.mark.parametrize(
    "document, message",
    [
        ({"claims": [{"id": "a", "statement": "s", "kind": "k", "chapter": "nowhere"}]}, "names chapter 'nowhere'"),
        ({"claims": [{"id": "a", "statement": "s", "kind": "k"}]}, "needs a chapter or an uncheckable_reason"),
        ({"claims": [{"id": "a", "statement": "s", "kind": "k", "uncheckable_reason": "r", "colour": 1}]}, "unknown field"),
        ({"claims": [{"id": "a", "kind": "k", "uncheckable_reason": "r"}]}, "'statement' is required"),
        ({"claims": [{"id": "a", "statement": "s", "kind": "k", "figure": "lots", "uncheckable_reason": "r"}]}, "figure must be a number"),
        ({"claims": [{"id": "a", "statement": "s", "kind": "k", "uncheckable_reason": "r"}] * 2}, "appear more than once"),
        ({"nothing": 1}, "expected a mapping"),
    ],
)
def test_malformed_registries_are_rejected(tmp_path, document, message):
    with pytest.raises(ClaimsError, match=message):
        load_registry(write(tmp_path, document))
