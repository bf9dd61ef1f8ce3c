"""``--param TARGET.NAME=VALUE``: change one parameter of a chapter or one field of a claim.

TARGET is a chapter name (``economics``) or a claim id (``rubin-dsr1-2.5x``; a part's id has a
dot of its own, so the longest known name wins); NAME is a parameter of that chapter or a field
of that claim, dotted to reach inside a mapping (``subject.system``). VALUE is read as YAML. A
mapping merges into the one it replaces, key by key (``null`` removes a key), so a price table
given on the command line changes only the prices it names.
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml

from claimbook.claims.mappings import set_path
from claimbook.claims.parameter_values import parameter_problem
from claimbook.claims.registry import Registry, RegistryError, check_numbers, refuse_unsafe_text
from claimbook.common import formatting
from claimbook.common.paths import PROJECT_ROOT, is_path_parameter, path_problem
from claimbook.common.safe_read import InputError, load_yaml, yaml_problem
from claimbook.common.suggest import closest_hint


class ParamError(ValueError):
    """A --param that names no chapter, claim or parameter, or has a value that is not YAML."""


def parse(text: str, registry: Registry) -> tuple[str, str, str, object]:
    """(``chapter`` or ``claim``, the target's name, the dotted name, the value)."""
    target_name, equals, raw_value = text.partition("=")
    shown = text if len(text) <= 100 else text[:97] + "..."
    if not equals or "." not in target_name:
        raise ParamError(f"--param {shown!r}: expected CLAIM.NAME=VALUE or CHAPTER.NAME=VALUE")
    try:
        value = load_yaml(raw_value, f"--param {shown!r}")
    except yaml.YAMLError as exc:
        raise ParamError(f"--param {shown!r}: the value is{yaml_problem(exc).split(':', 1)[1]}") from None
    except InputError as exc:
        raise ParamError(str(exc).replace(", line 1:", ":")) from None
    claims = {claim.id for claim in registry.all_claims()}
    candidates = [(name, "chapter") for name in registry.chapters] + [(name, "claim") for name in claims]
    matches = [(name, kind) for name, kind in candidates if target_name.startswith(name + ".")]
    if not matches:
        target = target_name.rsplit(".", 1)[0]
        raise ParamError(
            f"--param {text!r}: {target!r} is neither a chapter nor a claim"
            f"{closest_hint(target, sorted(claims), 'claims')}; chapters: {', '.join(registry.chapters)}"
        )
    name, kind = max(matches, key=lambda match: len(match[0]))
    path = target_name[len(name) + 1 :]
    if not path:
        raise ParamError(f"--param {text!r}: expected CLAIM.NAME=VALUE or CHAPTER.NAME=VALUE")
    try:
        check_numbers(value, f"--param {shown!r}", name=path)
    except RegistryError as exc:
        raise ParamError(str(exc)) from None
    return kind, name, path, value


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "null"


def shape_problem(before, after, where: str) -> str | None:
    """What is wrong with a chapter parameter after a change (None if nothing): each value keeps
    the kind it had (a number stays a number, a mapping a mapping), and a key added to a mapping
    takes the kind of the values beside it, so a page never meets a value it cannot read."""
    if before is None or after is None:
        return None
    if _kind(before) != _kind(after):
        return f"{where} takes {_kind(before)}, not {_kind(after)}"
    if isinstance(before, dict):
        kinds = {_kind(value) for value in before.values() if value is not None}
        for key, value in after.items():
            if key in before:
                problem = shape_problem(before[key], value, f"{where}.{key}")
            elif len(kinds) == 1 and value is not None and _kind(value) not in kinds:
                problem = f"{where}.{key} must be {kinds.pop()} like the other entries of {where}, not {_kind(value)}"
            else:
                problem = None
            if problem:
                return problem
    return None


def _path_problem(name: str, value, root) -> str | None:
    """What is wrong with a chapter parameter that names files (None if nothing, or not one)."""
    if not is_path_parameter(name):
        return None
    for item in value if isinstance(value, list) else [value]:
        problem = path_problem(item, root, folder=name.endswith("_dir"))
        if problem:
            return f"{name}: {problem}"
    return None


def _changed_chapter(parameters: dict, text: str, path: str, value, root) -> dict:
    """A chapter's parameters with one ``--param`` applied, checked as ``data/chapters.yaml`` is:
    its text, each value's kind, the files it names, a price's rules."""
    top = path.split(".")[0]
    try:
        changed = set_path(parameters, path, value)
        refuse_unsafe_text(value, f"--param {text[:100]!r}", path)
    except RegistryError as exc:
        message = str(exc)
        raise ParamError(
            message if message.startswith("--param ") else f"--param {text!r}: {message}"
        ) from None
    problem = (
        shape_problem(parameters[top], changed[top], top)
        or _path_problem(top, changed[top], root)
        or parameter_problem(top, changed[top])
    )
    if problem:
        raise ParamError(f"--param {text!r}: {problem}")
    return changed


def apply(texts, registry: Registry, kinds: Mapping, root=PROJECT_ROOT) -> tuple[dict, dict, list[str]]:
    """Chapter parameter changes ``{chapter: parameters}``, claim overrides ``{claim: {path:
    value}}`` and warnings (a price that a merge removed, for instance).

    ``kinds``: the engine's kinds' specs by name (``claimbook.engine.SPECS``), each naming the
    fields a claim of that kind may have (``field_names()``). A parameter that names a file
    (``prices_path``) names one inside the project ``root``, relative to it: a page never reads,
    nor a book publishes, a file from elsewhere."""
    chapters: dict[str, dict] = {}
    claims: dict[str, dict] = {}
    warnings = []
    for text in texts:
        kind, name, path, value = parse(text, registry)
        if kind == "chapter":
            parameters = chapters.get(name, dict(registry.chapters[name].parameters))
            top = path.split(".")[0]
            if top not in parameters:
                known = ", ".join(parameters) or "none"
                raise ParamError(f"--param {text!r}: chapter {name} has no parameter {top!r}; it has {known}")
            before = parameters[top]
            chapters[name] = _changed_chapter(parameters, text, path, value, root)
            if isinstance(before, dict) and isinstance(chapters[name][top], dict):
                lost = [key for key in before if key not in chapters[name][top]]
                warnings += [
                    f"warning: --param {name}.{top}: {key} has no value now (a null removed it); what "
                    "needed it (a price, for instance) leaves the chapter's tables"
                    for key in lost
                ]
        else:
            claim = registry.claim(name)
            spec = kinds.get(claim.kind)
            top = path.split(".")[0]
            allowed = set(spec.field_names()) if spec else set()
            if top not in allowed and top not in claim.fields:
                raise ParamError(
                    f"--param {text!r}: {formatting.with_article(claim.kind)} claim has no field {top!r}; it has "
                    f"{', '.join(sorted(allowed | set(claim.fields)))}"
                )
            claims.setdefault(name, {})[path] = value
    return chapters, claims, warnings
