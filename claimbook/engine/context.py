"""Everything a chapter reads, loaded the one way: the registry (with any overrides), the round's
results annotated with the reviewed names, the earlier rounds, and the reference tables."""

from __future__ import annotations

from dataclasses import replace

from claimbook.claims.mappings import set_path
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, Registry, RegistryError
from claimbook.engine import load_registry, validate_claim
from claimbook.engine.core import Data
from claimbook.inputs.earlier import announced_figures, combine_rounds, load_round_table
from claimbook.inputs.reference import annotate, load_reference, load_result_ids, load_sources
from claimbook.inputs.results import load_results


def apply_overrides(registry: Registry, overrides: dict) -> Registry:
    """The registry with claim fields changed: ``{claim id: {dotted field: value}}``."""
    if not overrides:
        return registry
    known = {claim.id for claim in registry.all_claims()}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise RegistryError(f"override of unknown claim(s) {', '.join(unknown)}")

    def changed(claim):
        fields = claim.fields
        for path, value in (overrides.get(claim.id) or {}).items():
            fields = set_path(fields, path, value)
        updated = replace(claim, fields=fields, parts=tuple(changed(part) for part in claim.parts))
        if updated.fields is not claim.fields:
            validate_claim(updated)
        return updated

    return replace(registry, claims=tuple(changed(claim) for claim in registry.claims))


def load_data(
    results_path: str,
    earlier_paths=(),
    reference_dir: str = "data/reference",
    registry_dir: str = CLAIMS_DIR,
    chapters_file: str = CHAPTERS_FILE,
    overrides: dict | None = None,
    result_ids_path: str = "data/result_ids.csv",
    sources_path: str = "data/mlperf/sources.csv",
    results_table=None,
    registry_file=None,
) -> Data:
    """The registry, the round's annotated results, earlier rounds (with the figures
    announcements state for them), the reviewed tables, the cited result IDs and the sources.
    ``registry_file``: a registry file read in place of its announcement's (``claimbook check``)."""
    registry = apply_overrides(
        load_registry(registry_dir, chapters_file, also=registry_file), overrides or {}
    )
    reference = load_reference(reference_dir)
    results = annotate(load_results(results_path) if results_table is None else results_table, reference)
    earlier = combine_rounds(
        [load_round_table(path) for path in earlier_paths] + [announced_figures(registry)]
    )
    return Data(
        results, earlier, reference, registry, load_result_ids(result_ids_path), load_sources(sources_path)
    )
