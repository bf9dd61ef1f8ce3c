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
        chapters, claims, warnings = apply_params(request.overrides, registry, SPECS, root)
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


def load_data(request: BuildRequest, changes: Changes, audited=None) -> Loaded:
    """The inputs of the build, checked (``checked_data``; the selections of the claims
    ``audited`` only, if given: ``claimbook preview``, the claims an edit changed)."""
    from claimbook.inputs.ingest import ingest_as_read

    table = None
    if request.results is not None:
        request.report(f"ingesting {request.results}")
        try:
            table = ingest_as_read(request.results, request.round_name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    data = checked_data(
        request.root, table, changes.claims, None, None if audited is None else lambda _: audited
    )
    if table is not None and len(table):
        from claimbook.engine.context import results_round_line

        request.report(results_round_line(data.registry, str(table["round"].iloc[0])))
    vendors = set(data.reference.accelerators["vendor"]) - {"mixed", "none"}
    parties = party_warnings(data.registry, set(data.results["organization"]), vendors)
    changes = replace(changes, warnings=(*changes.warnings, *unpublishable(request, parties)))
    return Loaded(changes, table, data)


def checked_data(root, table=None, overrides=None, registry_file=None, claims=None):
    """The data a book of ``root`` reads (``table`` in place of the committed round, the claims
    ``overrides``, ``registry_file`` in place of its announcement's registry), checked as every
    command that judges claims checks it, ``build`` and ``check`` alike: every system a claim
    names is known (``check_systems``), and every selector that takes one result finds one
    (``check_selections``; of the claims ``claims(registry)`` chooses, when given: ``check``
    of some claims). A problem is one UsageError line naming the file, claim and field."""
    from claimbook.engine.context import book_data, check_systems

    try:
        data = book_data(root, table, overrides, registry_file)
        check_systems(data)
        check_selections(data, None if claims is None else claims(data.registry))
    except (RegistryError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return data


def judged(claim, data):
    """The engine's check of ``claim``; a registry error it finds only as it judges (a selection
    the audit could not foresee) is the same one line as any other, for ``build`` and ``check``."""
    from claimbook import engine
    from claimbook.engine.core import ClaimSpecError

    try:
        return engine.check(claim, data)
    except ClaimSpecError as exc:
        raise UsageError(str(exc)) from None


def summed_twice(claim, data) -> list[str]:
    """A sum whose items select the same result (one system listed twice, perhaps under two of
    its names): that result would be counted twice. A registry error per sum."""
    from claimbook.claims.selectors import item_selector
    from claimbook.engine import role_selectors
    from claimbook.engine.core import select_for

    found = []
    for item in (claim, *claim.parts):
        for name, selector in role_selectors(item):
            if not isinstance(selector.get("sum"), list):
                continue
            shared = {key: value for key, value in selector.items() if key != "sum"}
            first: dict[str, int] = {}
            for index, entry in enumerate(selector["sum"]):
                rows, _ = select_for(data, item, {**shared, **item_selector(entry)}, name)
                twice = [location for location in rows["location"] if first.get(location, index) != index]
                if twice:
                    found.append(
                        f"{item.where}: field {name}.sum: items {first[twice[0]]} and {index} both select "
                        f"{twice[0]}; a result is counted once per item (say count: 2 to count it twice)"
                    )
                    break
                first.update((location, index) for location in rows["location"])
    return found


def _audit(claim, data) -> list[str]:
    """The registry errors one claim's selections make on ``data`` (``check_selections``)."""
    from claimbook import engine
    from claimbook.engine.core import ClaimSpecError

    try:
        return engine.audit(claim, data) + summed_twice(claim, data)
    except ClaimSpecError as exc:
        return [str(exc)]


def check_selections(data, claims=None) -> None:
    """Every selector that takes one result per case and finds several without saying how they
    combine, and every sum that counts a result twice, among ``claims`` (all of them by
    default): one error listing them all (a claim must always mean the same results)."""
    from claimbook.engine import check_cache

    chosen = data.registry.claims if claims is None else claims
    # Kept between builds, as the checks are: a function of the claim and the data files alone.
    audits = check_cache.kept(chosen, data, "audit", lambda claim: _audit(claim, data))
    found = [problem for claim in chosen for problem in audits[claim.id]]
    if found:
        more = f" (and {len(found) - 1} more: {' / '.join(found[1:])})" if len(found) > 1 else ""
        raise UsageError(found[0] + more)
