"""Helping an analyst write a new registry: an example claim of each kind, the errors a mistake
gives, and an empty registry file to start from."""

from __future__ import annotations

import yaml

from claimbook import engine
from claimbook.claims import placeholders
from claimbook.claims.registry import Announcement, RegistryError, _claim
from claimbook.common import formatting, identifiers
from claimbook.common.safe_read import load_yaml

EXAMPLE_FILE = "data/claims/acme-v6.1.yaml"
EXAMPLE_SUFFIX = "-example"  # the placeholder claim's id: the announcement's, and this
# Mistakes the how-to page shows, each with the message the book's own validation gives.
MISTAKES = (
    ("an unknown kind", {"id": "acme-fast", "statement": "Acme is fast.", "kind": "speed"}),
    (
        "a field the kind does not have",
        {
            "id": "acme-fast",
            "statement": "Acme is fast.",
            "kind": "figure",
            "benchmark": "gpt-oss-120b",
            "subject": {"organization": "Acme"},
            "scenarios": ["Offline"],
            "claimed": 1000,
            "colour": "red",
        },
    ),
    (
        "a missing claimed value",
        {
            "id": "acme-fast",
            "statement": "Acme is up to 2x faster.",
            "kind": "ratio",
            "form": "figure",
            "quantifier": "up-to",
            "benchmark": "gpt-oss-120b",
            "subject": {"organization": "Acme"},
            "baseline": {"organization": "Other"},
        },
    ),
    (
        "a field the claim's quantifier does not use",
        {
            "id": "acme-about",
            "statement": "Acme delivers about 80% of Other's throughput.",
            "kind": "ratio",
            "form": "figure",
            "quantifier": "about",
            "within": 5,
            "claimed": 0.8,
            "benchmark": "gpt-oss-120b",
            "subject": {"organization": "Acme"},
            "baseline": {"organization": "Other"},
        },
    ),
    (
        "a word the book does not read",
        {
            "id": "acme-roughly",
            "statement": "Acme is roughly twice as fast.",
            "kind": "ratio",
            "form": "figure",
            "quantifier": "roughly",
            "claimed": 2,
            "benchmark": "gpt-oss-120b",
            "subject": {"organization": "Acme"},
            "baseline": {"organization": "Other"},
        },
    ),
    (
        "a selector field that does not exist",
        {
            "id": "acme-fast",
            "statement": "Acme is fast.",
            "kind": "figure",
            "benchmark": "gpt-oss-120b",
            "subject": {"company": "Acme"},
            "scenarios": ["Offline"],
            "claimed": 1000,
        },
    ),
    (
        "several matches combined where the claim takes every match",
        {
            "id": "acme-present",
            "statement": "Acme submitted results.",
            "kind": "presence",
            "rows": {"organization": "Acme", "combine": "best"},
        },
    ),
    (
        "a sum item counted zero times",
        {
            "id": "acme-scaling",
            "statement": "Acme's two-node cluster scales at 95% of its two nodes.",
            "kind": "scaling",
            "benchmark": "gpt-oss-120b",
            "scenarios": ["Offline"],
            "claimed": 95,
            "large": {"organization": "Acme", "system": "cluster"},
            "small": {"sum": [{"organization": "Acme", "system": "node", "count": 0}]},
        },
    ),
)


def claim_entry(claim) -> dict:
    """A claim as it is written in its registry file."""
    entry = {"id": claim.id, "title": claim.get("title"), "statement": claim.statement, "kind": claim.kind}
    entry.update({key: value for key, value in claim.fields.items() if key != "title"})
    if claim.parts:
        entry["parts"] = [claim_entry(part) for part in claim.parts]
    return {key: value for key, value in entry.items() if value is not None}


def kind_examples(registry) -> dict[str, dict]:
    """The first claim of each kind in the registry (a part counts too), then the example of its
    spec for each kind the registry has none of."""
    found = {}
    for claim in registry.all_claims():
        if claim.kind in engine.KINDS and claim.kind not in found:
            found[claim.kind] = claim_entry(claim)
    for name, spec in engine.SPECS.items():
        if name not in found and spec.example.get("id"):
            found[name] = dict(spec.example)
    return found


def _example_announcement() -> Announcement:
    return Announcement(
        "acme-v6.1",
        "Acme's MLPerf Inference v6.1 post",
        "Acme",
        "Acme",
        "Acme",
        "2026-09-18",
        "v6.1",
        EXAMPLE_FILE,
    )


def mistakes() -> list[tuple[str, dict, str]]:
    """Each mistake of ``MISTAKES`` with the message the registry's validation gives."""
    shown = []
    for what, entry in MISTAKES:
        try:
            _claim(entry, EXAMPLE_FILE, 0, _example_announcement(), validate=engine.validate_claim)
            message = "(accepted)"
        except RegistryError as exc:
            message = f"error: {exc}"
        shown.append((what, entry, message))
    return shown


def new_registry(identifier: str, publisher: str, title: str, date: str, round_name: str, registry) -> str:
    """A registry file for a new announcement: its header, and an example of each kind commented out."""
    header = {
        "announcement": {
            "id": identifier,
            "title": title,
            "publisher": publisher,
            "claimant": publisher,
            "vendor": publisher,
            "date": date,
            "round": round_name,
            "source_url": placeholders.PLACEHOLDER_URL,
            "source_label": placeholders.PLACEHOLDER_LABEL,
            "results_retrieved": date,
            "division": "closed",
            "result_ids": [],
        }
    }
    lines = [
        f"# Claims of {' '.join(title.split())}, paraphrased: each claim's figures as stated, in the book's own words.",
        "# Uncomment an example, make it this announcement's claim, and build: python -m claimbook build",
        yaml.safe_dump(header, sort_keys=False).rstrip(),
        "claims:",
        # The announcement's whole id: two announcements of one vendor (acme-v6.1, acme-v7.0) each
        # hold their own placeholder, and claim ids are unique across the book.
        "  - id: " + identifier[: identifiers.MAX_ID - len(EXAMPLE_SUFFIX)].rstrip("-.") + EXAMPLE_SUFFIX,
        "    title: " + placeholders.PLACEHOLDER_TITLE,
        "    statement: " + placeholders.PLACEHOLDER_STATEMENT,
        "    kind: not-checkable",
        "    reason: " + placeholders.PLACEHOLDER_REASON,
    ]
    for kind, entry in kind_examples(registry).items():
        lines.append(f"  # --- {formatting.with_article(kind)} claim: {engine.SPECS[kind].description}")
        dumped = yaml.safe_dump([entry], sort_keys=False, width=100, allow_unicode=True)
        lines += ["  # " + line for line in dumped.rstrip().splitlines()]
    text = "\n".join(lines) + "\n"
    # What is written must read back as a registry with this header (a title is one line).
    document = load_yaml(text, EXAMPLE_FILE)
    if document.get("announcement", {}).get("title") != title:
        raise RegistryError(f"the title {title[:80]!r} does not survive as YAML; give it as one line of text")
    return text
