"""What a registry must not publish: ``new-announcement``'s placeholders warn on every build and
stop a ``--strict`` one before anything is written; a ``claimant`` that is no organization of the
results and a ``vendor`` that is no accelerator vendor are named with the close names; a
mistyped claim id in ``--only`` or ``--param`` lists the close claim ids."""

from __future__ import annotations

from dataclasses import replace

import pytest

from claimbook.claims import placeholders
from claimbook.engine import load_registry
from tests.helpers.clirun import in_copy, in_process
from tests.helpers.errors import one_error_line
from tests.helpers.project import project_copy, run_copy


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    """A project copy with a registry just as ``new-announcement`` writes it."""
    copy = project_copy(tmp_path_factory.mktemp("scaffold") / "project")
    # (in a child of this process with the copy's package: test_safety runs the real command)
    done = in_copy(
        copy,
        "new-announcement",
        "acme-v6.1",
        "--publisher",
        "Acme",
        "--title",
        "Acme's post",
        "--date",
        "2026-09-18",
    )
    assert done.returncode == 0, done.stderr
    # The analyst writes one claim and forgets the rest of the placeholders.
    registry = copy / "data" / "claims" / "acme-v6.1.yaml"
    registry.write_text(registry.read_text(encoding="utf-8") + FILLED_IN, encoding="utf-8")
    return copy


FILLED_IN = """
  - id: acme-rack-figure
    statement: A rack served a million gpt-oss-120b tokens per second Offline.
    kind: figure
    claimed: 1.1
    scale: 1000000
    unit: million tokens/s
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    subject: {organization: Oracle, system: GB300-NVL72_GB300-288GB_aarch64x72_TRT}
"""


def test_the_scaffold_warns_on_every_build_and_fails_a_strict_one(scaffolded, tmp_path):
    # Run in children forked from this process with the copy's package (tests/helpers/clirun.py), but
    # for the build that executes the page, the real command line.
    only = in_copy(scaffolded, "build", "--no-html", "--out", tmp_path / "a", "--only", "acme-v6.1-example")
    assert only.returncode == 2 and "has no page of its own" in only.stderr, only.stderr
    done = run_copy(scaffolded, "build", "--no-html", "--out", tmp_path / "a", "--only", "acme-rack-figure")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    for field in ("source_url", "source_label", "title", "statement", "reason", "claimant", "vendor"):
        assert any(f"field {field}" in line and "acme-v6.1.yaml" in line for line in warnings), (
            field,
            warnings,
        )
    assert any("'Acme' is no organization of the results" in line for line in warnings), warnings
    again = in_copy(scaffolded, "build", "--no-html", "--out", tmp_path / "a", "--only", "acme-rack-figure")
    assert again.returncode == 0 and "nothing changed" in again.stderr, again.stderr
    assert sum(line.startswith("warning: ") for line in again.stderr.splitlines()) >= 5, again.stderr

    strict = in_copy(
        scaffolded, "build", "--no-html", "--strict", "--out", tmp_path / "b", "--only", "acme-rack-figure"
    )
    one_error_line(strict, "--strict", "source_url", "nothing was written", code=1, among_others=True)
    assert not (tmp_path / "b" / "book").exists()


def test_placeholders_are_found_by_field_and_the_committed_registries_have_none():
    registry = load_registry()
    assert placeholders.placeholder_warnings(registry) == []
    amd = registry.announcements["amd-v6.1"]
    left = replace(
        amd, source_url="https://www.example.org/post", source_label=placeholders.PLACEHOLDER_LABEL
    )
    warnings = placeholders.placeholder_warnings(replace(registry, announcements={"amd-v6.1": left}))
    assert len(warnings) == 2 and all(
        line.startswith("warning: data/claims/amd-v6.1.yaml") for line in warnings
    )
    assert placeholders.strict_refusal(warnings).startswith("--strict: ")
    assert placeholders.strict_refusal([]) is None


def test_claimant_and_vendor_are_checked_with_close_names(committed_results):
    registry = load_registry()
    organizations = set(committed_results["organization"])
    vendors = {"AMD", "Intel", "NVIDIA"}
    assert placeholders.party_warnings(registry, organizations, vendors) == []
    amd = registry.announcements["amd-v6.1"]
    wrong = replace(amd, claimant="Corewave", vendor="Nvidai")
    warnings = placeholders.party_warnings(
        replace(registry, announcements={"amd-v6.1": wrong}), organizations, vendors
    )
    assert len(warnings) == 2, warnings
    assert "claimant 'Corewave'" in warnings[0] and "close: CoreWeave" in warnings[0]
    assert "vendor 'Nvidai'" in warnings[1] and "AMD, Intel, NVIDIA" in warnings[1]
    # Names match as selectors match them: case, spacing and punctuation aside.
    spelt = replace(amd, claimant="core weave", vendor="nvidia")
    assert (
        placeholders.party_warnings(replace(registry, announcements={"x": spelt}), organizations, vendors)
        == []
    )


@pytest.mark.parametrize(
    "arguments, close",
    [
        (("--only", "rubin-dsr1-2.6x"), "rubin-dsr1-2.5x"),
        (("--param", "amd-wan-vs-b30.subject.system=X"), "amd-wan-vs-b300"),
    ],
)
def test_a_mistyped_claim_id_lists_the_close_claim_ids(tmp_path, arguments, close):
    done = in_process("build", "--no-html", "--out", tmp_path / "out", *arguments)
    assert done.returncode == 2, done.stderr
    assert f"close claims: {close}" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_two_announcements_of_one_vendor_each_get_a_placeholder_of_their_own(tmp_path):
    """The placeholder claim's id is the announcement's whole id: a second announcement of the same
    vendor was refused for a duplicate claim id ('acme-example')."""
    copy = project_copy(tmp_path / "project")
    for identifier in ("acme-v6.1", "acme-second-post"):
        done = in_copy(
            copy,
            "new-announcement",
            identifier,
            "--publisher",
            "Acme",
            "--title",
            "T",
            "--date",
            "2026-09-18",
        )
        assert done.returncode == 0, done.stderr
    registry = load_registry(copy / "data" / "claims", copy / "data" / "chapters.yaml")
    assert {"acme-v6.1-example", "acme-second-post-example"} <= {claim.id for claim in registry.all_claims()}
