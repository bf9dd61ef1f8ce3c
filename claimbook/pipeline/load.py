"""Reading a build's inputs, and refusing bad ones before anything is written: the registry
with the ``--param`` changes applied, then the data (another round's results ingested), with
the systems and the selections the claims name checked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from claimbook.claims import registry as claims_registry
from claimbook.claims.params import ParamError
from claimbook.claims.params import apply as apply_params
from claimbook.claims.placeholders import party_warnings, placeholder_warnings, strict_refusal
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, RegistryError
from claimbook.common.errors import BuildError, UsageError
from claimbook.pipeline.plan import Changes
from claimbook.pipeline.request import BuildRequest


@dataclass(frozen=True)
class Loaded:
    """A build's inputs, read and checked: what ``--param`` changes, the results table ingested
    from ``--results`` (None for the committed round), and the data the book reads."""

    changes: Changes
    table: object
    data: object


def read_registry(request: BuildRequest):
    """The registry and what the ``--param`` texts change in it; a bad one is a UsageError.

    A plain rebuild reads the registry without validating its claims against the engine's kinds
    (its last build validated them, and a rebuild of unchanged inputs needs neither the engine
    nor pandas); any other build validates them."""
    root = request.root
    try:
        if request.plain:  # (nor any --param: the kinds' specs are not needed either)
            registry = claims_registry.load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
            return registry, Changes({}, {}, unpublishable(request, placeholder_warnings(registry)))
        from claimbook.engine import SPECS, load_registry

        registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
        chapters, claims, warnings = apply_params(request.overrides, registry, SPECS)
    except (RegistryError, ParamError) as exc:
        raise UsageError(str(exc)) from None
    return registry, Changes(
        chapters, claims, (*warnings, *unpublishable(request, placeholder_warnings(registry)))
    )


def unpublishable(request: BuildRequest, warnings: list[str]) -> tuple[str, ...]:
    """What a registry must not publish (``claims.placeholders``): warnings, or under --strict
    an error (exit 1) once they are listed, before anything is written."""
    refusal = strict_refusal(warnings) if request.strict else None
    if refusal:
        for warning in warnings:
            request.report(warning)
        raise BuildError(refusal)
    return tuple(warnings)


def load_data(request: BuildRequest, changes: Changes) -> Loaded:
    """The inputs of the build, checked: every system a claim names is known, and every selector that
    takes one result finds one (``check_selections``)."""
    from claimbook.engine.context import book_data, check_systems
    from claimbook.inputs.ingest import ingest_as_read

    table = None
    try:
        if request.results is not None:
            request.report(f"ingesting {request.results}")
            table = ingest_as_read(request.results, request.round_name)
        data = book_data(request.root, table, changes.claims)
        check_systems(data)
        check_selections(data)
    except (RegistryError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    vendors = set(data.reference.accelerators["vendor"]) - {"mixed", "none"}
    parties = party_warnings(data.registry, set(data.results["organization"]), vendors)
    changes = replace(changes, warnings=(*changes.warnings, *unpublishable(request, parties)))
    return Loaded(changes, table, data)


def check_selections(data) -> None:
    """Every selector that takes one result per case and finds several without saying how they
    combine: one error listing them all (a claim must always mean the same results)."""
    from claimbook import engine
    from claimbook.engine.core import ClaimSpecError

    found = []
    for claim in data.registry.claims:
        try:
            found += engine.audit(claim, data)
        except ClaimSpecError as exc:
            found.append(str(exc))
    if found:
        more = f" (and {len(found) - 1} more: {' / '.join(found[1:])})" if len(found) > 1 else ""
        raise UsageError(found[0] + more)
