"""``new-announcement``: a registry file started for a new announcement."""

from __future__ import annotations

import sys
from pathlib import Path

from claimbook.cli.shared import held_round, writer_lock
from claimbook.common.errors import UsageError
from claimbook.common.files import replace_file
from claimbook.common.paths import PROJECT_ROOT, inside


def add_commands(commands) -> None:
    """``new-announcement``: a registry file started."""
    new_cmd = commands.add_parser("new-announcement", help="start a registry file for a new announcement")
    new_cmd.add_argument(
        "identifier", metavar="ID", help="the announcement's id, e.g. acme-v6.1 (the file's name)"
    )
    new_cmd.add_argument(
        "--publisher", required=True, help="who made the claims, as the results file names it"
    )
    new_cmd.add_argument("--title", required=True, help="the announcement's title")
    new_cmd.add_argument("--date", required=True, help="its date, YYYY-MM-DD")
    new_cmd.add_argument(
        "--round",
        dest="round_name",
        help="the MLPerf round it is about, one the book holds (default: the newest it holds)",
    )


def _run_new_announcement(args) -> int:
    from claimbook.common import identifiers
    from claimbook.engine import load_registry
    from claimbook.present.scaffold import new_registry

    problem = identifiers.id_problem(args.identifier)
    if problem:
        raise UsageError(f"new-announcement {args.identifier[:80]!r}: an announcement id: {problem}")
    if args.round_name is None:
        from claimbook.common.paths import held_rounds

        args.round_name = (list(held_rounds(PROJECT_ROOT / "data" / "mlperf")) or ["v6.1"])[-1]
    if not identifiers.is_round(args.round_name):
        raise UsageError(f"--round {args.round_name[:80]!r}: a round is {identifiers.ROUND_RULE}")
    held_round(args.round_name, "--round")  # its claims are judged on that round's results
    problem = identifiers.date_problem(args.date)
    if problem:
        raise UsageError(f"--date: {problem}")
    for option, value in (("--title", args.title), ("--publisher", args.publisher)):
        if not value.strip() or identifiers.unsafe_character(value) or len(value) > MAX_ONE_LINE:
            raise UsageError(
                f"{option} {value[:80]!r}: one line of "
                f"text of at most {MAX_ONE_LINE} characters, without control, bidirectional-override "
                "characters or line breaks"
            )
    out = inside(PROJECT_ROOT / "data" / "claims", f"{args.identifier}.yaml")
    if out.exists():
        raise UsageError(f"{out}: exists; a new announcement needs a new id (nothing was written)")
    text = new_registry(
        args.identifier, args.publisher, args.title, args.date, args.round_name, load_registry()
    )
    _reads_with_the_others(text, out)
    with writer_lock(out):
        replace_file(out, text.encode("utf-8"), False, lambda existing: "")
    print(f"wrote {out}: fill in its claims, then run `make book`", file=sys.stderr)
    return 0


MAX_ONE_LINE = 200  # a title or a publisher's name is one line: several times any announcement's


def _reads_with_the_others(text: str, out) -> None:
    """The new registry read with the folder's, before it is written: an id the book gives its
    own pages, or one a claim or chapter has, would make every command fail after it."""
    import tempfile

    from claimbook.claims.registry import RegistryError
    from claimbook.engine import load_registry

    with tempfile.TemporaryDirectory(prefix="claimbook-new-") as folder:
        trial = Path(folder) / out.name
        trial.write_text(text, encoding="utf-8")
        try:
            load_registry(also=trial)
        except RegistryError as exc:
            said = str(exc).replace(str(trial), str(out))
            raise UsageError(f"{said} (nothing was written)") from None
