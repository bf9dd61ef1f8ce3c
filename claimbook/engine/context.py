"""Everything a chapter reads, loaded the one way: the registry (with any overrides), the round's
results annotated with the reviewed names, the earlier rounds, and the reference tables.

A page's template takes one mapping of parameters (the build injects it); ``page_data`` loads
what it names, and ``chapter_context`` is what a narrative chapter adds to its claims' checks.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from claimbook.claims.mappings import set_path
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, Registry, RegistryError
from claimbook.engine import load_registry, validate_claim
from claimbook.engine.core import Data
from claimbook.inputs.earlier import announced_figures, combine_rounds, load_round_table
from claimbook.inputs.reference import annotate, load_reference, load_result_ids, load_sources
from claimbook.inputs.results import load_results

# The data a book reads, relative to its root: what a page's parameters name unless they say
# otherwise (the build gives every page these, an --out book its own copies).
BOOK_INPUTS = {
    "results_path": "data/mlperf/v6.1.csv",
    "earlier_paths": ["data/mlperf/earlier_rounds.csv"],
    "reference_dir": "data/reference",
    "registry_dir": CLAIMS_DIR,
    "chapters_file": CHAPTERS_FILE,
    "result_ids_path": "data/result_ids.csv",
    "sources_path": "data/mlperf/sources.csv",
}


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
    reference_dir: str = BOOK_INPUTS["reference_dir"],
    registry_dir: str = CLAIMS_DIR,
    chapters_file: str = CHAPTERS_FILE,
    overrides: dict | None = None,
    result_ids_path: str = BOOK_INPUTS["result_ids_path"],
    sources_path: str = BOOK_INPUTS["sources_path"],
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


def page_parameters(parameters: dict, book_root: str) -> dict:
    """A page's parameters: those the build injected (all of them), or a template's own run by
    hand, completed with the committed book's data."""
    return {**BOOK_INPUTS, "book_root": book_root, "overrides": {}, **parameters}


def page_data(parameters: dict) -> Data:
    """The data a page's parameters (``page_parameters``) name, loaded the one way."""
    return load_data(
        parameters["results_path"],
        parameters["earlier_paths"],
        parameters["reference_dir"],
        parameters["registry_dir"],
        parameters["chapters_file"],
        parameters["overrides"],
        parameters["result_ids_path"],
        parameters["sources_path"],
    )


def chapter_context(claim, data: Data, chapter: str, parameters: dict) -> dict:
    """What narrative chapter ``chapter`` adds to ``claim``'s check, from the parameters its page
    runs with (the economics chapter's break-even notes): its page and ``claimbook check`` both
    ask here, so both give the same verdict. Keyed by template: a chapter's name is data."""
    from claimbook.engine import economics

    contexts = {"economics.ipynb": economics.chapter_context}
    known = data.registry.chapters.get(chapter)
    if claim.parent or known is None or Path(known.template).name not in contexts:
        return {}
    return contexts[Path(known.template).name](claim, data, chapter, parameters)
