"""Reading the small text inputs a user writes or takes from someone else (registries, the
chapters file, ``--param`` values) with bounds: only regular files (a FIFO would block, a link
to ``/dev/zero`` would never end), at most ``MAX_TEXT`` bytes, and YAML whose aliases expand to a
bounded number of values (a "billion laughs" document is a few lines that stand for gigabytes).
"""

from __future__ import annotations

import datetime
import functools
import os
import re
import stat
from pathlib import Path

import yaml

from claimbook.common.formatting import plural

MAX_TEXT = 4 * 1024 * 1024  # a registry is tens of kB; this leaves a hundred times that
MAX_VALUES = 1_000_000  # values a document may stand for once its aliases are expanded

# The safe loader, in C where PyYAML was built with libyaml (ten times faster on the registries).
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TextLoader(_BASE):
    """A safe loader that keeps dates as the text they are written as (``date: 2026-09-19`` is
    the string "2026-09-19"): a registry's dates are shown and compared as text."""


# Numbers only in decimal, as a registry's reader means them: YAML 1.1 also reads "2:1" as
# sexagesimal (121), "017" as octal (15), "0x1F" and "0b11" as hexadecimal and binary; such a
# value stays the text it is written as (a figure of text is read, or refused, by its field).
_NUMBERS = {
    "tag:yaml.org,2002:int": re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)$"),
    "tag:yaml.org,2002:float": re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
        |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.VERBOSE,
    ),
}

_TextLoader.yaml_implicit_resolvers = {
    first: [
        (tag, _NUMBERS.get(tag, pattern))
        for tag, pattern in resolvers
        if tag != "tag:yaml.org,2002:timestamp"
    ]
    for first, resolvers in _BASE.yaml_implicit_resolvers.items()
}


def _text_keyed_map(loader, node):
    """A mapping whose keys are text, each once. YAML keeps the last of two equal keys and takes
    any scalar as a key: a key written twice would lose a field unseen, and a number or a null
    as a key names nothing the book reads (every input's keys are names)."""
    seen: dict = {}
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.tag == "tag:yaml.org,2002:merge":
            continue  # "<<: *anchor": its keys are merged, and may be overridden
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is not text: a key is a name", key_node.start_mark
            )
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key[:80]!r} twice (first at line {seen[key] + 1})", key_node.start_mark
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_yaml_map(node)


_TextLoader.add_constructor("tag:yaml.org,2002:map", _text_keyed_map)


class InputError(ValueError):
    """An input that is not a readable, bounded text file or YAML document; one line."""


def read_text(path: str | os.PathLike, label: str, what: str, limit: int = MAX_TEXT) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; ``InputError`` otherwise."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the check below refuses it.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{label}: cannot read the {what} ({exc.strerror})") from None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                f"{label}: not a regular file ({_kind(info.st_mode)}); the {what} must be a file"
            )
        if info.st_size > limit:
            raise InputError(
                f"{label}: {plural(info.st_size, 'byte')}; the {what} may be at most {plural(limit, 'byte')}"
            )
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(
            f"{label}: more than {plural(limit, 'byte')}; the {what} may be at most {plural(limit, 'byte')}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{label}: not UTF-8 text; save the {what} as UTF-8") from None


def check_regular(path: str | os.PathLike, label: str, what: str) -> None:
    """Refuse a path that exists and is not a regular file (a FIFO, a device, a folder)."""
    try:
        info = os.stat(path)
    except OSError:
        return  # the reader says what is wrong with a missing file
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{label}: not a regular file ({_kind(info.st_mode)}); the {what} must be a file")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def load_yaml(text: str, label: str):
    """A YAML document as plain data: mappings, lists, strings, numbers, booleans, nulls; dates
    stay text. Aliases are counted as what they stand for: a document that would expand to more
    than ``MAX_VALUES`` values ("billion laughs"), or an alias inside its own anchor (a value
    that contains itself), is refused. Errors are ``yaml.YAMLError`` (a syntax error) or
    ``InputError`` (too large, self-referencing)."""
    # (a fresh copy each time: the caller's own, whatever it does with it)
    return _dates_as_text(_loaded(text, label) if len(text) <= KEPT_TEXT else _parsed(text, label))


KEPT_TEXT = 256 * 1024  # a document this long or shorter is parsed once (a registry's is tens of kB)


@functools.lru_cache(maxsize=64)
def _loaded(text: str, label: str):
    """The document ``text`` as read, once per process for the same text (a build reads each
    registry twice: to compare digests, then checked); never handed out itself."""
    return _parsed(text, label)


def _parsed(text: str, label: str):
    _check_expansion(text, label)
    try:
        return yaml.load(text, Loader=_TextLoader)
    except (ValueError, RecursionError) as exc:  # (not a YAMLError: Python's own limits)
        why = "nested too deeply" if isinstance(exc, RecursionError) else "a number too long to read"
        raise InputError(f"{label}: not readable as YAML ({why})") from None


MAX_DEPTH = 100  # lists and mappings inside each other: a registry's deepest is 5


def _check_expansion(text: str, label: str) -> None:
    sizes: dict[str, int] = {}  # anchor -> how many values its node stands for
    stack: list[list] = [[0, None]]  # per open collection: values so far, its anchor
    open_anchors: set[str] = set()
    total = 0
    for event in yaml.parse(text, Loader=_TextLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([1, event.anchor])
            if len(stack) > MAX_DEPTH:
                raise InputError(
                    f"{label}, line {event.start_mark.line + 1}: not readable as YAML (nested more than "
                    f"{MAX_DEPTH} deep)"
                )
            if event.anchor:
                open_anchors.add(event.anchor)
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            count, anchor = stack.pop()
            if anchor:
                sizes[anchor] = count
                open_anchors.discard(anchor)
        elif isinstance(event, yaml.ScalarEvent):
            count = 1
            if event.anchor:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor in open_anchors:
                raise InputError(
                    f"{label}, line {event.start_mark.line + 1}: the alias *{event.anchor} is inside its "
                    "own anchor (a value that contains itself)"
                )
            count = sizes.get(event.anchor, 1)
        else:
            continue
        stack[-1][0] += count
        total += count
        if total > MAX_VALUES:
            raise InputError(
                f"{label}, line {event.start_mark.line + 1}: its aliases expand to more than "
                f"{plural(MAX_VALUES, 'value')}; write the values out"
            )


def _dates_as_text(value):
    """Explicitly tagged timestamps (``!!timestamp``) as ISO text, like every other date; every
    collection a new one (``!!set``, ``!!omap`` and ``!!pairs`` give sets and pairs)."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {_dates_as_text(key): _dates_as_text(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return type(value)(_dates_as_text(item) for item in value)
    return value


def yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error in a few words, with its line when known: ", line 3: not valid YAML (...)"."""
    mark = getattr(exc, "problem_mark", None)
    where = f", line {mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{where}: not valid YAML ({problem})"


def read_yaml(path: Path, label: str, what: str):
    """A bounded, alias-free YAML file; ``InputError`` for every problem, one line."""
    text = read_text(path, label, what)
    try:
        return load_yaml(text, label)
    except yaml.YAMLError as exc:
        raise InputError(f"{label}{yaml_problem(exc)}") from None
