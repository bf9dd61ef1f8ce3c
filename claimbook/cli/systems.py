"""``systems``: the results searched for systems, each line starting with the selector that picks it."""

from __future__ import annotations

import sys
from pathlib import Path

from claimbook.cli.exits import EXIT_FAILED
from claimbook.cli.shared import held_round
from claimbook.common.errors import UsageError
from claimbook.common.paths import PROJECT_ROOT, RESULTS, held_rounds


def add_commands(commands) -> None:
    systems_cmd = commands.add_parser(
        "systems",
        help="search the results for systems; each line starts with the selector that picks it",
        description="Names match as a registry's selectors match them (case, spacing and punctuation "
        "aside). Every division unless --division says one. Exit 1 when no system matches (as grep).",
    )
    for name in ("organization", "system", "family", "vendor", "benchmark", "scenario"):
        systems_cmd.add_argument(f"--{name}", action="append", metavar="NAME", help="repeatable: any of them")
    systems_cmd.add_argument("--gpus", metavar="N|MIN-MAX", help="the system's accelerators: 8, or 8-72")
    systems_cmd.add_argument("--division", help="closed or open (default: both)")
    systems_cmd.add_argument(
        "--results", type=Path, help="a tidy results table (default: the newest round the book holds)"
    )
    systems_cmd.add_argument(
        "--round", dest="round_name", help="a round the book holds, e.g. v5.1 (default: the newest it holds)"
    )


def _gpus_filter(text: str | None):
    """``--gpus 8`` or ``--gpus 8-72`` as a selector value."""
    if text is None:
        return None
    low, dash, high = text.partition("-")
    if not (low.strip().isdigit() and (not dash or high.strip().isdigit())):
        raise UsageError(f"--gpus {text[:40]!r}: a whole number (8) or a range (8-72)")
    return {"min": int(low), "max": int(high)} if dash else int(low)


def _run_systems(args) -> int:
    from claimbook.claims import systems
    from claimbook.inputs.reference import annotate, load_reference
    from claimbook.inputs.results import load_results

    filters = {name: getattr(args, name) for name in systems.FILTERS if name not in ("gpus", "division")}
    filters["gpus"] = _gpus_filter(args.gpus)
    filters["division"] = args.division
    if args.results is not None and args.round_name is not None:
        raise UsageError("--results and --round: give one (--round names a round the book holds)")
    held = held_rounds(PROJECT_ROOT / "data" / "mlperf")
    # The newest round the book holds by default: a new announcement's systems are in it.
    path = args.results or (
        held_round(args.round_name, "--round") if args.round_name else next(reversed(held.values()), None)
    )
    results = annotate(load_results(path or PROJECT_ROOT / RESULTS), load_reference())
    found = systems.search(results, filters)
    for system in found:
        print(systems.describe(system))
    if not found:
        why = systems.why_none(results, filters)
        searched = ", ".join(sorted(set(results["round"].astype(str)))) or "no round"
        others = [name for name in held if name != searched]
        hint = (
            f"; --round names another the book holds ({', '.join(others)})"
            if others and not args.results
            else ""
        )
        print(f"no system matches in {searched}: {why.text() if why else 'no result'}{hint}", file=sys.stderr)
    # As grep: a script can tell a search that found nothing from one that found systems.
    return 0 if found else EXIT_FAILED
