"""Reading a build's inputs, and refusing bad ones before anything is written: the registry
with the ``--param`` changes applied, then the data (another round's results ingested), with
the systems and the selections the claims name checked.
"""

from __future__ import annotations

from dataclasses import dataclass

from claimbook.claims import registry as claims_registry
from claimbook.claims.params import ParamError
from claimbook.claims.params import apply as apply_params
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, RegistryError
from claimbook.common.errors import UsageError
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
            return registry, Changes({}, {}, ())
        from claimbook.engine import SPECS, load_registry

        registry = load_registry(root / CLAIMS_DIR, root / CHAPTERS_FILE)
        chapters, claims, warnings = apply_params(request.overrides, registry, SPECS)
    except (RegistryError, ParamError) as exc:
        raise UsageError(str(exc)) from None
    return registry, Changes(chapters, claims, tuple(warnings))


def load_data(request: BuildRequest, changes: Changes, audited=None) -> Loaded:
    """The inputs of the build, checked: every system a claim names is known, and every selector that
    takes one result finds one (``check_selections``; of the claims ``audited`` only, if given)."""
    from claimbook.engine.context import book_data, check_systems
    from claimbook.inputs.ingest import ingest_as_read

    table = None
    try:
        if request.results is not None:
            request.report(f"ingesting {request.results}")
            table = ingest_as_read(request.results, request.round_name)
        data = book_data(request.root, table, changes.claims)
        check_systems(data)
        check_selections(data, audited)
    except (RegistryError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return Loaded(changes, table, data)


def check_selections(data, claims=None) -> None:
    """Every selector that takes one result per case and finds several without saying how they
    combine: one error listing them all (a claim must always mean the same results). ``claims``:
    only those (``claimbook preview``: the claims an edit changed, the data being the same)."""
    from claimbook import engine
    from claimbook.engine.core import ClaimSpecError

    found = []
    for claim in data.registry.claims if claims is None else claims:
        try:
            found += engine.audit(claim, data)
        except ClaimSpecError as exc:
            found.append(str(exc))
    if found:
        more = f" (and {len(found) - 1} more: {' / '.join(found[1:])})" if len(found) > 1 else ""
        raise UsageError(found[0] + more)
