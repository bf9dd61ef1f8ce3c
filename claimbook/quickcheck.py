"""``claimbook check``: claims' verdicts in seconds, in this process, with no kernel and no HTML.

The same engine, the same data loading and the same scorecard rows as the book's pages
(``scorecard.rows_for``), so a verdict or a figure here is never different from the built page's.
Nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path

from claimbook.common.errors import UsageError
from claimbook.common.formatting import quantity
from claimbook.common.identifiers import terminal_text
from claimbook.common.paths import PROJECT_ROOT
from claimbook.common.suggest import close_names

RESULT_COLUMNS = ("organization", "system", "division", "availability", "model", "scenario", "location")


def load(
    root: Path = PROJECT_ROOT, registry_file=None, results=None, round_name=None, overrides=None, claims=None
):
    """The data a build of ``root`` reads, with ``registry_file`` in place of its announcement's
    committed file and ``results`` (a summary.csv, ingested as the build ingests it) in place of
    the committed round, checked as the build checks it (``claimbook.pipeline.load.checked_data``:
    the selections of the claims ``claims(registry)`` chooses); raises UsageError on bad input,
    naming the file."""
    from claimbook.pipeline.load import checked_data

    table = None
    if results is not None:
        from claimbook.inputs.ingest import ingest_as_read

        try:
            table = ingest_as_read(results, round_name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if registry_file is not None:
            same_round(registry_file, results, str(table["round"].iloc[0]) if len(table) else "")
    return checked_data(root, table, overrides, registry_file, claims)


def same_round(registry_file, results, results_round: str) -> None:
    """``--registry R --results F`` of different rounds: a UsageError naming both (a claim is
    judged on its own round's results, never another's)."""
    from claimbook.claims.registry import RegistryError, read_registry_file

    try:
        registry_round = read_registry_file(Path(registry_file), str(registry_file))[0].round
    except RegistryError as exc:
        raise UsageError(str(exc)) from None
    if registry_round and registry_round != results_round:
        raise UsageError(
            f"{registry_file}: its announcement is of round {registry_round} but --results {results} "
            f"holds round {results_round}; a claim is judged on its own round's results (pass that round's summary)"
        )


def chosen_claims(registry, ids, registry_file=None) -> list:
    """The claims named (parts too), in the order given; none named: every claim of the
    ``registry_file``, or of the registry. An unknown id is a UsageError naming the close ones."""
    if not ids:
        if registry_file is not None:
            return [claim for claim in registry.claims if claim.where.startswith(f"{registry_file}:")]
        return list(registry.claims)
    known = {claim.id: claim for claim in registry.all_claims()}
    unknown = [claim_id for claim_id in ids if claim_id not in known]
    if unknown:
        close = close_names(unknown[0], known)
        hint = (
            f"; close: {', '.join(close)}" if close else f"; {len(known)} claims, `claimbook list` shows them"
        )
        raise UsageError(f"unknown claim {unknown[0]!r}{hint}{registry.left_out_note()}")
    return [known[claim_id] for claim_id in dict.fromkeys(ids)]


def chapter_of(claim, registry) -> str:
    """The chapter a claim's scorecard rows name: its narrative chapter, else its announcement."""
    top = registry.claim(claim.parent) if claim.parent else claim
    return top.chapter or top.announcement


def verdict(claim, data, root: Path = PROJECT_ROOT, by_location=None) -> dict:
    """One claim's check as the book records it: its scorecard rows (parts included) and the
    published results it used (``by_location``: ``located(data.results)``, made once for many)."""
    from claimbook.engine import scorecard
    from claimbook.engine.kinds.not_checkable import with_notes
    from claimbook.pipeline.load import judged

    check = with_notes(judged(claim, data), _chapter_context(claim, data, root).get("notes", ()))
    return {
        "claim": claim.id,
        "announcement": claim.announcement,
        "statement": claim.statement,
        "verdict": check.verdict,
        "rows": scorecard.normalise(scorecard.rows_for(check, chapter_of(claim, data.registry))),
        "results": results_used(
            check, located(data.for_claim(claim).results) if by_location is None else by_location
        ),
    }


def located(results):
    """The results by location (the first of each), the index ``results_used`` reads."""
    return results.drop_duplicates("location").set_index("location", drop=False)


def results_used(check, by_location) -> list[dict]:
    """The published results a check stands on (its rows, its parts'), then the others its
    cases cite as evidence (a rival's best, the pairs compared), each once; ``by_location``:
    ``located(results)``."""
    checks = (check, *check.parts)
    locations = [
        location
        for item in checks
        if item.rows is not None and not item.rows.empty
        for location in item.rows["location"]
    ]
    locations += [location for item in checks for case in item.cases for location in case.evidence]
    wanted = [location for location in dict.fromkeys(locations) if location in by_location.index]
    return by_location.loc[wanted, list(RESULT_COLUMNS)].to_dict("records")


def _chapter_context(claim, data, root: Path) -> dict:
    """What a narrative chapter adds to its claims' checks (the economics chapter's break-even
    notes), from the parameters its page runs with: its template's, then the chapter's own."""
    from claimbook.engine.context import chapter_context

    chapter = data.registry.chapters.get(claim.chapter or "")
    if claim.parent or chapter is None:
        return {}
    from claimbook.pipeline.plan import declared_parameters

    parameters = {**declared_parameters(root / chapter.template), **chapter.parameters}
    return chapter_context(claim, data, chapter.name, parameters)


def text(report: dict) -> str:
    """A claim's verdict for a terminal: the verdict, each case's figure (the deciding one
    marked), caveats, the results used and the reason; parts indented under their claim."""
    rows = report["rows"]
    lines = [f"{report['claim']} ({report['announcement']}): {report['verdict']}", f"  {report['statement']}"]
    for claim_id in dict.fromkeys(row["claim"] for row in rows):
        own = [row for row in rows if row["claim"] == claim_id]
        indent = "  " if claim_id == report["claim"] else "    "
        if claim_id != report["claim"]:
            lines.append(f"  part {claim_id}: {own[0]['verdict']}")
        for row in own:
            if row["measured"] is None and row["claimed"] is None and not row["scenario"]:
                continue
            lines.append(
                f"{indent}{'* ' if row['deciding'] and len(own) > 1 else '- '}{row['scenario'] or 'figure'}: "
                f"measured {quantity(row['measured'], row['unit'] or '')}, claimed {quantity(row['claimed'], row['unit'] or '')}"
                + {True: " (holds)", False: " (does not hold)", None: ""}[row["reaches_claim"]]
            )
        deciding = next((row["scenario"] for row in own if row["deciding"] and row["scenario"]), "")
        if deciding and len(own) > 1:
            lines.append(f"{indent}deciding case: {deciding}")
        if own[0]["caveats"]:
            lines.append(f"{indent}caveats: {', '.join(own[0]['caveats'])}")
        if own[0]["missing"]:
            lines.append(f"{indent}missing: {'; '.join(own[0]['missing'])}")
        lines.append(f"{indent}reason: {own[0]['reason']}")
    if report["results"]:
        lines.append(f"  results used ({len(report['results'])}):")
        lines += [
            f"    {item['organization']} {item['system']} · {item['model']} {item['scenario']} · {item['location']}"
            for item in report["results"]
        ]
    # Names come from a results file: what a terminal would act on is shown, escaped.
    return "\n".join(terminal_text(line) for line in lines)


def run(
    ids,
    registry_file=None,
    results=None,
    round_name=None,
    as_json=False,
    root=PROJECT_ROOT,
    report=None,
    renames=(),
) -> str:
    """The output of ``claimbook check``. Claims that now stand on other results than the
    committed scorecard records are listed through ``report`` (stderr), as a build lists them;
    a subject moved to another organization's system is the build's error, here too.
    ``renames``: ``--rename`` values (every claim naming an old system checked against the new
    name)."""

    def chosen(registry) -> list:  # the top-level claims checked (a part's, its parent)
        return [
            registry.claim(claim.parent) if claim.parent else claim
            for claim in chosen_claims(registry, ids, registry_file)
        ]

    data = load(root, registry_file, results, round_name, None, chosen)
    if renames:
        from claimbook.claims.renaming import refuse_unnamed
        from claimbook.engine.result_diff import rename_overrides
        from claimbook.inputs.renames import parse

        refuse_unnamed(data.registry, parse(renames))
        overrides = rename_overrides(data.registry, parse(renames))
        data = load(root, registry_file, results, round_name, overrides, chosen)
    reports = _verdicts(data, root, chosen_claims(data.registry, ids, registry_file))
    if results is not None and len(data.results):
        from claimbook.engine.context import results_round_line

        (report or _to_stderr)(
            results_round_line(data.registry, str(data.results["round"].iloc[0]), chosen(data.registry))
        )
    _report_drift(root, reports, report or _to_stderr)
    return _output(reports, data, root, as_json, with_moves=results is not None)


def _output(reports: list[dict], data, root: Path, as_json: bool, with_moves: bool) -> str:
    """The reports as JSON, or as text followed (``with_moves``: a check of other results) by
    what moved against the committed scorecard; escaped for a terminal either way."""
    if as_json:  # (JSON escapes control characters itself; the bidirectional ones too, here)
        shown = json.dumps(reports, indent=2, ensure_ascii=False, default=str)
        return "\n".join(terminal_text(line) for line in shown.splitlines())
    output = "\n\n".join(text(report) for report in reports)
    moved = moved_table(reports, data, root) if with_moves else ""
    return output + ("\n\n" + "\n".join(map(terminal_text, moved.splitlines())) if moved else "")


def _verdicts(data, root: Path, claims) -> list[dict]:
    """Each claim's report; each round's results are indexed by location once, for all its claims."""
    by_round: dict = {}
    reports = []
    for claim in claims:
        own = data.for_claim(claim).results
        by_location = by_round.setdefault(id(own), located(own))
        reports.append(verdict(claim, data, root, by_location))
    return reports


def _report_drift(root: Path, reports: list[dict], report) -> None:
    """The claims that now stand on other results than the committed scorecard records, listed
    through ``report`` as a build lists them; a subject moved to another organization's system
    is the build's error, raised."""
    from claimbook.pipeline import verify

    found = verify.drifted(root, [row for item in reports for row in item["rows"]])
    if found:
        verify.report_drift(found, report)
        switched = verify.switched_error(found)
        if switched is not None:
            raise switched


def _to_stderr(message: str) -> None:
    import sys

    print(message, file=sys.stderr)


def moved_table(reports, data, root: Path) -> str:
    """What moved against the committed scorecard for these claims (``engine.moves``): the table
    a check of other results ends with ("" when nothing moved)."""
    from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, round_results_path
    from claimbook.engine import drift, moves
    from claimbook.inputs.renames import detect
    from claimbook.inputs.results import load_results

    committed = drift.read_committed(root / BOOK_DIR / GENERATED_DIR / "scorecard.json")
    built = [row for report in reports for row in report["rows"]]
    # Within a round: the other results against the committed table of the round they hold.
    committed_round = root / round_results_path(str(data.results["round"].iloc[0]))
    old = load_results(committed_round) if len(data.results) and committed_round.is_file() else None
    renamed = detect(old, data.results) if old is not None else None
    return moves.table(
        moves.compare(committed, built, old, data.results, drift.compare(committed, built), renamed)
    )
