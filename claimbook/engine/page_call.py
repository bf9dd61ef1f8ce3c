"""A page's parameters as papermill gives them, checked where the page opens its data.

papermill writes what ``-p``/``-y`` set into a cell of its own (tagged ``injected-parameters``,
opening with ``# Parameters``) after the template's ``parameters`` cell, and turns ``-p claim_id 5``
into the number 5. The page's opening call (``open_claim_page`` / ``open_chapter``) is passed
every parameter its template declares, by name; from the kernel's own history of cells it reads
what papermill injected and the types the template declared, so that a name the template does not
declare, or a value of the wrong kind, stops the page with one line instead of a default page or
a traceback deep in the book.
"""

from __future__ import annotations

import ast
import sys

from claimbook.common.errors import UsageError
from claimbook.common.suggest import close_names

INJECTED_MARK = "# Parameters"  # the comment papermill opens its injected cell with


class PageParameterError(UsageError):
    """A page's parameter that is not one of its own or not of its kind: one line, in a notebook
    too (IPython shows ``_render_traceback_``'s lines in place of a traceback, and papermill's
    ``PapermillExecutionError`` repeats them)."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class PageInputError(PageParameterError):
    """A data file the page's parameters name that cannot be read (missing, malformed): its
    error's one line, naming the file, as a parameter's is."""


def read_inputs(read, parameters: dict):
    """``read(parameters)``, the page's data; an input's error (a results table, a registry, a
    summary, a file that is not one) becomes the page's one line."""
    from claimbook.claims.registry import RegistryError
    from claimbook.common.safe_read import InputError
    from claimbook.inputs.csvfile import IngestError
    from claimbook.inputs.results import ResultsError

    try:
        return read(parameters)
    except (ResultsError, RegistryError, IngestError, InputError) as exc:
        raise PageInputError(str(exc)) from None


def _cells() -> list[str]:
    """The sources of the cells this kernel has run, oldest first (none outside IPython)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    return [str(source) for source in history or ()]


def _parsed(source: str) -> list[ast.stmt]:
    try:
        return ast.parse(source).body
    except SyntaxError:
        return []


def injected_names(cells: list[str]) -> list[str]:
    """The names papermill's injected cell (the last one run) assigns."""
    injected = [source for source in cells if source.lstrip().startswith(INJECTED_MARK)]
    if not injected:
        return []
    return [
        target.id
        for node in _parsed(injected[-1])
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]


def declared_types(cells: list[str]) -> dict[str, str]:
    """``{name: annotation}`` of the template's parameters cell: the last cell run that is made
    of annotated assignments alone (``name: type = default``)."""
    for source in reversed(cells):
        body = _parsed(source)
        if body and all(
            isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) for node in body
        ):
            return {node.target.id: ast.get_source_segment(source, node.annotation) or "" for node in body}
    return {}


# What each declared type accepts, and how to say it (with how papermill gives one).
KINDS = {
    "str": (lambda value: isinstance(value, str), "text (papermill: -p NAME TEXT, or -r NAME TEXT)"),
    "bool": (lambda value: isinstance(value, bool), "True or False (papermill: -p NAME True)"),
    "int": (lambda value: isinstance(value, int) and not isinstance(value, bool), "a whole number"),
    "float": (
        lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
        "a number (papermill: -p NAME 2.5)",
    ),
    "list": (lambda value: isinstance(value, list), "a list (papermill: -y 'NAME: [...]')"),
    "dict": (lambda value: isinstance(value, dict), "a mapping (papermill: -y 'NAME: {...}')"),
}


def of_kind(name: str, value, annotation: str):
    """``value`` as parameter ``name`` declared ``annotation`` takes it: a number given where
    text is declared is read as its text (papermill's ``-p claim_id 5`` is the id "5"); a value
    of another kind is a PageParameterError saying what the parameter takes and what it got."""
    base = annotation.split("[", 1)[0].strip()
    if base == "str" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if base not in KINDS or value is None and annotation.replace(" ", "").endswith("|None"):
        return value
    accepts, kind = KINDS[base]
    if accepts(value):
        return value
    raise PageParameterError(
        f"page parameter {name}: {kind.replace('NAME', name)}, not {type(value).__name__} {repr(value)[:60]}"
    )


def checked_call(passed: dict) -> dict:
    """The parameters a template passed to its opening call (every one it declares, by name),
    checked against what papermill injected and the types declared: a name papermill set that the
    template does not declare is an error naming the declared ones (never a default page)."""
    cells = _cells()
    for name in injected_names(cells):
        if name not in passed:
            close = close_names(name, passed)
            raise PageParameterError(
                f"page parameter {name}: this page has no such parameter"
                + (f" (did you mean {' or '.join(close)}?)" if close else "")
                + f"; its parameters: {', '.join(passed)} (papermill --help-notebook lists them)"
            )
    types = declared_types(cells)
    return {name: of_kind(name, value, types.get(name, "")) for name, value in passed.items()}


def known_claims(registry, claim_ids, parameter: str) -> None:
    """Every id of ``claim_ids`` names a claim of the registry; else one line naming the close ones."""
    known = [claim.id for claim in registry.all_claims()]
    for claim_id in claim_ids:
        if claim_id not in known:
            close = close_names(str(claim_id), known)
            hint = f"; close claims: {', '.join(close)}" if close else "; claimbook list shows every claim"
            raise PageParameterError(
                f"page parameter {parameter}: no claim {claim_id!r} in the registry{hint}"
            )


def known_benchmarks(data, parameters: dict) -> None:
    """A chapter's parameter that names a benchmark (``context_benchmark``) names one of a result
    the book holds, this round's or an earlier one's; else one line naming the close ones (a
    misspelt one showed an empty history, unsaid)."""
    named = {name: value for name, value in parameters.items() if name.endswith("benchmark")}
    if not named:
        return
    known = set(data.results["benchmark"].astype(str))
    for round_name in data.rounds.names if data.rounds is not None else ():
        known |= set(data.rounds.table(round_name)["benchmark"].astype(str))
    known |= {data.reference.benchmark(str(model)) for model in set(data.earlier.get("model", ()))}
    for name, value in named.items():
        if str(value) not in known:
            close = close_names(str(value), sorted(known))
            hint = f"; close benchmarks: {', '.join(close)}" if close else ""
            raise PageParameterError(
                f"page parameter {name}: no result of the benchmark {str(value)[:80]!r} in the rounds the book holds{hint}"
            )
