"""``build``: the committed book, or a whole book with ``--out``."""

from __future__ import annotations

from pathlib import Path

from claimbook.cli.options import add_rename
from claimbook.common.errors import UsageError
from claimbook.common.paths import PROJECT_ROOT


def add_commands(commands) -> None:
    """``build``: the committed book, or a whole book with --out."""
    build_cmd = commands.add_parser(
        "build",
        help="execute the pages, write the scorecard and the ledger, compile the HTML",
        description="Without options: the committed book from the committed data (book/generated, _toc.yml and _build/html). "
        "With --out DIR: a whole book, its data included, in DIR (a new or empty folder, or one an "
        "earlier --out made); --results, --param and --only need --out.",
    )
    _add_source_options(build_cmd)
    _add_change_options(build_cmd)
    _add_run_options(build_cmd)


def _add_source_options(build_cmd) -> None:
    """What the book is built from, where it goes, and whether it is compiled to HTML."""
    build_cmd.add_argument(
        "--results", type=Path, help="build from this summary.csv instead of the committed data (needs --out)"
    )
    build_cmd.add_argument(
        "--round",
        dest="round_name",
        help="the round of --results where its version column is empty (a round the column contradicts is refused)",
    )
    build_cmd.add_argument(
        "--out", type=Path, help="build a whole book into this folder; the committed book is untouched"
    )
    build_cmd.add_argument(
        "--no-html", action="store_true", help="execute the pages and write the scorecard only"
    )


def _add_change_options(build_cmd) -> None:
    """What an --out book leaves out or says otherwise: --only, --param, --rename."""
    build_cmd.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="a book of only this chapter, claim, page or announcement (every page of its claims; needs --out); repeatable",
    )
    build_cmd.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="TARGET.NAME=VALUE",
        help="change one chapter parameter or claim field (needs --out); VALUE is read as YAML, and a mapping merges "
        "into the one it changes (null removes a key), e.g. economics.assumed_prices='{\"NVIDIA GB300\": 12}' "
        "or rubin-dsr1-2.5x.subject.system=NAME; a number picks an item of a list (rubin-frameworks.items.1.family=NAME); "
        "repeatable",
    )
    add_rename(build_cmd)


def _add_run_options(build_cmd) -> None:
    """How the build runs: how many pages at once, whether the cache is trusted, how strict it is."""
    build_cmd.add_argument(
        "--jobs",
        type=int,
        help="pages executed at once (default: twice the number of cores, within the limit of open files)",
    )
    build_cmd.add_argument(
        "--force",
        action="store_true",
        help="execute every page (or every --only page), whatever the cache says, and copy the whole site afresh",
    )
    build_cmd.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a claim finds no result for what it names, or now stands on other results than the committed scorecard records (CI builds the committed book so)",
    )


def _rename_params(texts) -> list[str]:
    """The --param changes ``--rename`` stands for (every claim naming an old system)."""
    if not texts:
        return []
    from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, load_registry
    from claimbook.claims.renaming import refuse_unnamed, rename_params
    from claimbook.inputs.renames import parse

    registry, renames = load_registry(PROJECT_ROOT / CLAIMS_DIR, PROJECT_ROOT / CHAPTERS_FILE), parse(texts)
    refuse_unnamed(registry, renames)
    return rename_params(registry, renames)


def _run_build(args) -> int:
    from claimbook.pipeline.request import BuildRequest

    if args.rename and args.out is None:
        raise UsageError("--rename changes what the book says, so it needs --out")
    request = BuildRequest(  # checked as it is made, before the build's imports
        results=args.results,
        round_name=args.round_name,
        out=args.out,
        html=not args.no_html,
        only=args.only,
        overrides=[*args.param, *_rename_params(args.rename)],
        jobs=args.jobs,
        force=args.force,
        strict=args.strict,
    )
    from claimbook.pipeline.book import build  # the build's imports (notebooks, charts) only when building

    build(request)
    return 0
