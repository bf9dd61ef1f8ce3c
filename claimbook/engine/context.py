"""Everything a chapter reads, loaded the one way: the registry (with any overrides), the round's
results annotated with the reviewed names, the earlier rounds, and the reference tables; a whole
book's data from its root (``book_data``, for the build and ``claimbook check``), and the check
that every system its claims name exists (``check_systems``).

A page's template declares its parameters flat, one typed name a line, as papermill expects
(``PAGE_INPUTS`` are the data every page reads); the build and papermill inject them, the
template passes them on by name, ``page_parameters`` checks and completes them, ``page_data``
loads what they name, and ``chapter_context`` is what a narrative chapter adds to its claims'
checks. ``template_defaults`` reads a template's declared parameters without running it.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from claimbook.claims.mappings import set_path
from claimbook.claims.registry import CHAPTERS_FILE, CLAIMS_DIR, Registry, RegistryError, check_common_fields
from claimbook.common.errors import UsageError
from claimbook.common.paths import (
    BOOK_INPUTS,
    DATA_INPUTS,
    MLPERF_DIR,
    PROJECT_ROOT,
    RESULTS,
    book_root,
    held_rounds,
)
from claimbook.engine import load_registry, preloaded, validate_claim
from claimbook.engine.core import Data, RoundTables
from claimbook.engine.page_call import PageParameterError
from claimbook.inputs.earlier import announced_figures, combine_rounds, load_round_table
from claimbook.inputs.names import closest, squash
from claimbook.inputs.reference import annotate, load_reference, load_result_ids, load_sources
from claimbook.inputs.results import load_results

# The data every page reads, by parameter name, with the committed book's values (paths relative
# to the book's root): the names every template's parameters cell declares and the build passes.
PAGE_INPUTS = {**BOOK_INPUTS, "overrides": {}}


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
            try:
                check_common_fields(updated.fields, updated.where)
                validate_claim(updated)
            except RegistryError as exc:
                raise RegistryError(f"{exc} (as --param set it)") from None
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
    ``registry_file``: a registry file read in place of its announcement's (``claimbook check``).

    In a page's kernel forked by the build's server, what the server read from these very files
    is taken instead of reading them again (``claimbook.engine.preloaded``); the overrides are
    applied to it as to what is read."""
    files = _files(locals())
    read = _read(files, results_table, registry_file)
    registry = apply_overrides(read.registry, overrides or {})
    earlier = combine_rounds([*read.rounds, announced_figures(registry)])
    rounds = held_round_tables(results_path, read.results, read.reference, reference_dir)
    return Data(
        read.results,
        earlier,
        read.reference,
        registry,
        read.result_ids,
        read.sources,
        rounds,
        # (A table given in memory is not the files': its checks are not kept.)
        inputs=_input_files(files) if results_table is None else (),
    )


def _input_files(files: dict) -> tuple[str, ...]:
    """Every data file (or folder) ``load_data`` reads results and tables from, each round held
    beside ``results_path`` among them (the registries are not: a check reads its claim alone)."""
    from claimbook.common.paths import resolve_path

    named = [files["results_path"], *files["earlier_paths"], files["reference_dir"]]
    named += [files["result_ids_path"], files["sources_path"]]
    folder = Path(files["results_path"]).parent  # as given, as the rounds are read (held_round_tables)
    held = held_rounds(resolve_path(files["results_path"]).parent)
    return tuple(dict.fromkeys([*named, *(str(folder / path.name) for path in held.values())]))


def held_round_tables(results_path, results, reference, reference_dir) -> RoundTables:
    """The rounds the book holds: ``results`` for its own round (a ``--results`` table replaces
    the round it holds, and only it), and each other ``vX.Y.csv`` beside ``results_path`` (the
    book's ``data/mlperf``), read as a claim of that round is judged."""
    from claimbook.common.paths import resolve_path

    own = str(results["round"].iloc[0]) if len(results) else None
    folder = Path(results_path).parent  # as given: a page's paths are relative to the book's root
    readers = {
        name: functools.partial(_round_results, str(folder / path.name), reference_dir, reference)
        for name, path in held_rounds(resolve_path(results_path).parent).items()
        if name != own
    }
    return RoundTables(readers, {own: results} if own else {})


def _round_results(path: str, reference_dir: str, reference):
    """A held round's annotated results, as a page's own round is read (and preloaded)."""
    return preloaded.through(
        "results",
        [path, reference_dir],
        (path, reference_dir),
        lambda: annotate(read_results(path), reference),
    )


class _Read(NamedTuple):
    """What ``load_data`` reads from its files, before any override."""

    registry: Registry
    reference: object
    results: object
    rounds: list
    result_ids: object
    sources: object


def _files(given: dict) -> dict:
    """``load_data``'s file arguments, as given (what a preload is keyed by)."""
    names = ("results_path", "reference_dir", "registry_dir", "chapters_file", "result_ids_path")
    files = {name: str(given[name]) for name in (*names, "sources_path")}
    files["earlier_paths"] = [str(path) for path in given["earlier_paths"]]
    return files


def _read(files: dict, results_table=None, registry_file=None) -> _Read:
    """What ``load_data`` reads, part by part: each part is taken from what a page's kernel
    holds for the same files and bytes (``claimbook.engine.preloaded``), or read."""
    registry = load_registry(files["registry_dir"], files["chapters_file"], also=registry_file)
    reference_dir = files["reference_dir"]
    reference = _part("reference", reference_dir, load_reference)
    if results_table is None:  # annotated with the reference: kept under both
        path = files["results_path"]
        read = lambda: annotate(read_results(path), reference)
        results = preloaded.through("results", [path, reference_dir], (path, reference_dir), read)
    else:
        results = annotate(results_table, reference)
    return _Read(
        registry,
        reference,
        results,
        [_part("round", path, load_round_table) for path in files["earlier_paths"]],
        _part("result ids", files["result_ids_path"], load_result_ids),
        _part("sources", files["sources_path"], load_sources),
    )


def _part(name: str, path: str, read):
    """``read(path)``, or the part a page's kernel holds for the same path and bytes."""
    return preloaded.through(name, path, (path,), lambda: read(path))


def read_results(path) -> object:
    """The round's results from ``path``: the book's tidy table, or an MLCommons summary (its CSV
    or its JSON) ingested as it is read (in memory, as ``build --results`` ingests one). Anything else is the
    tidy reader's one-line error."""
    from claimbook.common.paths import resolve_path
    from claimbook.inputs.csvfile import RAW, IngestError, header_kind, read_head, read_header
    from claimbook.inputs.summary_json import looks_like_json

    try:
        # MLCommons' JSON summary, told by its content, or a summary.csv by its header.
        raw = looks_like_json(read_head(resolve_path(path), "results file")[0])
        raw = raw or header_kind(read_header(resolve_path(path), "results file")) == RAW
    except IngestError:
        raw = False  # not a readable CSV: the tidy reader says what it is
    if raw:
        from claimbook.inputs.ingest import ingest_as_read

        return ingest_as_read(resolve_path(path))
    return load_results(path)


def preload() -> None:
    """Read the files a page of the book under ``book_root()`` reads by default, and keep what
    was read for the pages' kernels to take (``claimbook.engine.preloaded``): the fork server
    does this once, before it forks them. A read that printed or warned is not kept (a page
    must show what it said)."""
    import contextlib
    import io
    import warnings

    files = _files(page_parameters({}))
    said = io.StringIO()
    with (
        warnings.catch_warnings(record=True) as warned,
        contextlib.redirect_stdout(said),
        contextlib.redirect_stderr(said),
        preloaded.recording() as recorded,
    ):
        warnings.simplefilter("always")
        read = _read(files)
        # Every other round the book holds, as a page of that round names it.
        rounds = held_round_tables(
            files["results_path"], read.results, read.reference, files["reference_dir"]
        )
        for name in rounds.names:
            rounds.table(name)
    # Each part kept under the bytes it was read from: a file that changed meanwhile loses it.
    if not any(map(_shown_on_a_page, warned)) and not said.getvalue():
        preloaded.keep(recorded)


# Warnings Python's default filters ignore (a kernel's too, but a deprecation its user's own code
# sets off; a page's code calls the package, which reads): a page would show none of them. A file
# left open by whatever ran before, closed as the read goes on, is no word of the read's.
_IGNORED_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def _shown_on_a_page(warning) -> bool:
    return not issubclass(warning.category, _IGNORED_BY_DEFAULT)


def book_data(root: Path, table=None, overrides=None, registry_file=None) -> Data:
    """What the book of ``root`` reads, loaded the one way (``load_data``): ``table`` in place of
    the committed round, ``registry_file`` in place of its announcement's registry."""
    return load_data(
        str(root / RESULTS),
        [str(root / path) for path in DATA_INPUTS["earlier_paths"]],
        str(root / DATA_INPUTS["reference_dir"]),
        str(root / CLAIMS_DIR),
        str(root / CHAPTERS_FILE),
        overrides,
        str(root / DATA_INPUTS["result_ids_path"]),
        str(root / DATA_INPUTS["sources_path"]),
        results_table=table,
        registry_file=registry_file,
    )


def _known_system_names(frames) -> set[str]:
    """Every name a system goes by in these tables (its id, SystemName, result folder), squashed."""
    names = set()
    for frame in frames:
        for column in ("system", "system_name"):
            if column in frame:
                names |= {str(value) for value in frame[column].dropna()}
        if "location" in frame:
            names |= {str(value) for value in frame["location"].dropna()}
            names |= {
                str(value).split("/results/")[0]
                + "/results/"
                + str(value).split("/results/")[1].split("/")[0]
                for value in frame["location"].dropna()
                if "/results/" in str(value)
            }
    return {squash(name) for name in names}


def _named_systems(value):
    """Every system a claim's field names, however deep in its selectors."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "system":
                yield from (item if isinstance(item, list) else [item])
            else:
                yield from _named_systems(item)
    elif isinstance(value, list):
        for item in value:
            yield from _named_systems(item)


def _with_parts(claim):
    yield claim
    for part in claim.parts:
        yield from _with_parts(part)


def results_round_line(registry, round_name: str, claims=None) -> str:
    """What a results file of ``round_name`` given in place of the committed round replaces, in
    one line naming the rounds: the claims of that round are judged on it, the others on their
    own rounds' committed results (``claims``: the top-level claims judged; all by default)."""
    from collections import Counter

    from claimbook.common.formatting import count, plural

    chosen = registry.claims if claims is None else claims
    by_round = Counter(registry.announcements[claim.announcement].round for claim in chosen)
    others = [
        f"{plural(count, 'claim')} of {name}"
        for name, count in sorted(by_round.items())
        if name != round_name
    ]
    line = (
        f"the results given hold round {round_name} and replace only the book's {round_name} results: "
        f"{plural(by_round.get(round_name, 0), 'claim')} of {round_name} judged on them"
    )
    if not others:
        return line
    # A claim of a later round that looks back on this one (its from_round) meets the file too.
    looking_back = [
        claim.id
        for claim in chosen
        if registry.announcements[claim.announcement].round != round_name
        and any(str(part.get("from_round")) == round_name for part in _with_parts(claim))
    ]
    back = (
        f" ({count(len(looking_back))} of them also on the {round_name} results given, their from_round: "
        f"{', '.join(looking_back[:5])}{' ...' if len(looking_back) > 5 else ''})"
        if looking_back
        else ""
    )
    return line + f"; {', '.join(others)} judged on their own round's committed results{back}"


def check_systems(data: Data) -> None:
    """A selector naming a system no data the book knows has is a registry mistake (a typo),
    not a missing result: a UsageError naming the file, the claim, the field and the closest real
    names. A system may be named by the book's id, its SystemName or its result folder, in any
    case, spacing and punctuation (``claimbook.claims.selectors``). One the book's own table of
    the round has, missing from results given in its place, is a missing result (the claim's
    check says so), not a typo."""
    committed = PROJECT_ROOT / RESULTS
    extra = [load_results(committed)] if committed.is_file() else []
    names_of: dict = {}  # per round: the names its systems go by, and their ids
    for claim in data.registry.all_claims():
        results = data.for_claim(claim).results  # a round the book lacks: the error naming those it has
        round_name = str(results["round"].iloc[0]) if len(results) else ""
        if round_name not in names_of:
            frames = [results, data.earlier, *extra]
            ids = sorted({str(value) for frame in frames for value in frame["system"].dropna()})
            names_of[round_name] = (_known_system_names(frames), ids)
        known, ids = names_of[round_name]
        for name, value in claim.fields.items():
            for system in _named_systems(value):
                if squash(system) not in known and not _in_committed_round(round_name, system, names_of):
                    near = closest(system, ids)
                    raise UsageError(
                        f"{claim.where}: field {name}: unknown system {system!r}; no results file the "
                        "book has names it (as its id, SystemName or result folder)"
                        + (f"; closest: {', '.join(near)}" if near else "")
                    )


def _in_committed_round(round_name: str, system: str, names_of: dict) -> bool:
    """Whether the book's own table of the round names ``system``: results given in its place
    (``--results``) that lack it miss a result, which the claim's check says; no typo."""
    key = ("committed", round_name)
    if key not in names_of:
        path = held_rounds(PROJECT_ROOT / MLPERF_DIR).get(round_name)
        names_of[key] = _known_system_names([load_results(path)]) if path else set()
    return squash(system) in names_of[key]


def page_parameters(given: dict) -> dict:
    """A page's parameters: those its template was run with (by the build, which passes every
    one, or by papermill, or by hand), completed with the committed book's data inputs, each
    data input checked to be of its kind; a UsageError of one line naming the parameter
    otherwise."""
    parameters = {**PAGE_INPUTS, **given}
    for name, default in PAGE_INPUTS.items():
        value = parameters[name]
        if isinstance(default, list):
            good = isinstance(value, list) and all(isinstance(item, str) for item in value)
            kind = "a list of paths (papermill: -y 'NAME: [FILE, ...]')"
        elif isinstance(default, dict):
            good, kind = isinstance(value, dict), "a mapping (papermill: -y 'NAME: {...}')"
        else:
            good, kind = isinstance(value, str) and bool(value), "a path"
        if not good:
            raise PageParameterError(
                f"page parameter {name}: {kind.replace('NAME', name)}, not {type(value).__name__} "
                f"{str(value)[:60]!r}"
            )
    return parameters


def located(path: str) -> str:
    """A data path as a page's parameter gives it: absolute as it is; relative, from the book's
    root (as the build records them, so an executed page means the same thing anywhere), or, if
    it is not there but is in the working directory (a page run by hand with papermill from
    elsewhere), from there. Missing from both: as given (the reader says it is missing)."""
    given = Path(path)
    if given.is_absolute() or (book_root() / given).exists():
        return path
    try:
        here = Path.cwd() / given
    except OSError:
        return path
    return str(here) if here.exists() else path


def page_data(parameters: dict) -> Data:
    """The data a page's parameters (``page_parameters``) name, loaded the one way."""
    return load_data(
        located(parameters["results_path"]),
        [located(path) for path in parameters["earlier_paths"]],
        located(parameters["reference_dir"]),
        located(parameters["registry_dir"]),
        located(parameters["chapters_file"]),
        parameters["overrides"],
        located(parameters["result_ids_path"]),
        located(parameters["sources_path"]),
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
