"""Content digests of what a chapter's executed notebook depends on.

A chapter runs again only when one of these changed: its template, its parameters, the files
and folders they name (by content, not by name or date), the claims it checks, the modules of
this package its template imports (and what they import, transitively), the pinned
requirements, or the Python version. Touching a module no template imports (the command line,
the build itself) re-executes nothing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
import sys
from pathlib import Path

from claimbook.common.paths import PACKAGE_DIR, PROJECT_ROOT

PACKAGE = "claimbook"
# Packages that find their modules at run time rather than import them by name: each depends on
# every module of its folder (a kind module, claimbook.engine.kinds.discover).
DISCOVERED = ("claimbook.engine.kinds",)
# Modules that read files of the package as they run: each depends on that folder too (the
# templates the book's HTML is written with), so an edit of a template re-executes its pages.
READS = {"claimbook.present.templating": PACKAGE_DIR / "present" / "templates"}


def bytes_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """The digest of a file's bytes, read once per version of the file in a process: every page
    names the same data files and modules."""
    info = os.stat(path)
    return _file_digest(os.path.abspath(path), info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, size: int, mtime_ns: int, inode: int, ctime_ns: int) -> str:
    return bytes_digest(Path(path).read_bytes())


def folder_digest(path: Path, skip: tuple[str, ...] = ()) -> str:
    """The digest of a folder's files, by name and content; ``skip``: folders of its top level
    left out (what the project does not track)."""
    digest = hashlib.sha256()
    for item in sorted(Path(path).rglob("*")):
        if item.is_file() and "__pycache__" not in item.parts and item.relative_to(path).parts[0] not in skip:
            digest.update(item.relative_to(path).as_posix().encode())
            digest.update(file_digest(item).encode())
    return digest.hexdigest()


def with_file_digests(value, root: Path, skip=(), memo: dict | None = None):
    """Parameters with every path to an existing file or folder (relative to ``root``) replaced
    by the digest of its content; ``memo``: the digests found so far for the same files (every
    page of a plan names the same data files)."""
    if isinstance(value, dict):
        return {
            key: (item if key in skip else with_file_digests(item, root, skip, memo))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [with_file_digests(item, root, skip, memo) for item in value]
    if memo is not None and isinstance(value, str):
        key = (value, str(root))
        if key not in memo:
            memo[key] = with_file_digests(value, root, skip)
        return memo[key]
    if isinstance(value, str) and value and len(value) < 4096 and "\n" not in value:
        path = Path(value) if Path(value).is_absolute() else root / value
        try:
            if path.is_file():
                return f"file:{file_digest(path)}"
            # A folder of the book's own data (never the book root or anything above it).
            resolved, base = path.resolve(), root.resolve()
            if path.is_dir() and resolved != base and resolved.is_relative_to(base):
                return f"folder:{folder_digest(path)}"
        except OSError:
            pass
    return value


@functools.cache
def _module_file(name: str) -> Path | None:
    """The source file of a module of this package, or None if it is not one."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    relative = Path(*name.split("."))
    # From where the package is (a checkout, or site-packages once installed).
    source = PACKAGE_DIR.parent
    for candidate in (source / relative.with_suffix(".py"), source / relative / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(source: str, package: str, fast: bool = False) -> set[str]:
    """Names of the modules a piece of code imports (anywhere in it, functions included);
    ``fast``: from its import statements alone (``import_statements``)."""
    found = set()
    for node in import_statements(source) if fast else ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import inside the package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # "from pkg import module"
    return found


# A line that begins an import statement. The package keeps one statement to a line (ruff's
# E701 and E702), so each import it makes begins a line; such a line inside a string only adds a
# name, and a name more only makes a page depend on more, never on less.
_IMPORT_LINE = re.compile(r"^[ \t]*(?:import|from)[ \t]", re.MULTILINE)


def import_statements(source: str) -> list[ast.stmt]:
    """The import statements of a module, each parsed alone: parsing every module of the package
    whole took half a second of each build that executes a page."""
    found = []
    for match in _IMPORT_LINE.finditer(source):
        start, end = match.start(), _line_end(source, match.start())
        first = source[start:end]
        # A statement in brackets, or continued with a backslash, goes on over the next lines.
        while end < len(source) and (
            source[start:end].count("(") > source[start:end].count(")") or source[start:end].endswith("\\")
        ):
            end = _line_end(source, end + 1)
        for text in (source[start:end], first):  # (a bracket in a comment: the line alone)
            try:
                found += ast.parse(text.strip()).body
                break
            except SyntaxError:
                continue
    return [node for node in found if isinstance(node, ast.Import | ast.ImportFrom)]


def _line_end(source: str, start: int) -> int:
    end = source.find("\n", start)
    return len(source) if end < 0 else end


@functools.cache
def _module_imports(name: str) -> frozenset:
    """The modules of this package one module imports, itself parsed once per process."""
    path = _module_file(name)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    parents = {".".join(name.split(".")[:index]) for index in range(1, len(name.split(".")))}
    found = _imports(path.read_text(encoding="utf-8"), package, fast=True) | parents
    if name in DISCOVERED:
        found |= {
            f"{name}.{module.stem}" for module in path.parent.glob("*.py") if not module.name.startswith("_")
        }
    return frozenset(other for other in found if _module_file(other))


@functools.cache
def _module_closure(start: frozenset) -> tuple[str, ...]:
    seen, todo = set(), [name for name in start if _module_file(name)]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(other for other in _module_imports(name) if other not in seen)
    return tuple(sorted(seen))


def template_modules(template: Path) -> tuple[str, ...]:
    """Every module of this package a template's code imports, transitively."""
    info = Path(template).stat()
    return _template_modules(str(template), info.st_mtime_ns, info.st_size)


@functools.cache
def _template_modules(template: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """(Read once per version of the file: every page of a kind shares its template.)"""
    # Read as JSON, not with nbformat: a rebuild with nothing to do then never imports it.
    notebook = json.loads(Path(template).read_text(encoding="utf-8"))
    names = set()
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            try:
                names |= _imports("".join(source) if isinstance(source, list) else source, "")
            except SyntaxError:
                continue
    return _module_closure(frozenset(names))


def modules_digest(modules) -> dict[str, str]:
    found = {name: file_digest(_module_file(name)) for name in modules}
    for name, folder in READS.items():
        if name in found:
            found[f"{name} {folder.name}"] = folder_digest(folder)
    return found


def environment_digest() -> str:
    """The pinned requirements and the Python version: what else shapes an output."""
    requirements = PROJECT_ROOT / "requirements.txt"
    data = requirements.read_bytes() if requirements.is_file() else b""
    return bytes_digest(data + f"{sys.version_info.major}.{sys.version_info.minor}".encode())


def chapter_digest(template: Path, parameters: dict, root: Path, claims: list, skip=(), memo=None) -> str:
    """The digest of everything one executed notebook depends on; ``memo``: what the other
    pages of the same plan found for the same files and templates (a dict, or None)."""
    if memo is None:
        modules = modules_digest(template_modules(template))
    else:
        key = ("modules", str(template))
        if key not in memo:
            memo[key] = modules_digest(template_modules(template))
        modules = memo[key]
    inputs = {
        "template": file_digest(template),
        "parameters": with_file_digests(parameters, root, skip, memo),
        "claims": claims,
        "modules": modules,
        "environment": environment_digest(),
    }
    return bytes_digest(json.dumps(inputs, sort_keys=True, default=str).encode())
