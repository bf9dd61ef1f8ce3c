"""What is made of each claim's check kept between processes (``kept``), so that a page reading
every claim (where the announcements meet: what it reads of each check, ``crossref.seen``)
checks again only the claims whose inputs changed: a book's cost of one changed claim then
follows the change, not the number of claims. A build's audits are kept alike.

A check is a function of the claim (its fields, parts, announcement and the other claims of its
sentence, exactly as the registry gives them), of the bytes of every data file the book reads
(the round's results, every round held, the earlier rounds, the reference tables, the result
IDs, the sources), of the package's own source and of the libraries' versions: the entry's key
is the digest of all of them, so an entry is found only for those very inputs, and a page that
takes it shows what checking again shows (a test compares both).

Entries are kept in the machine's cache folder (``$CLAIMBOOK_CACHE_DIR``, else the XDG cache
folder: ``claimbook.common.paths.cache_folder``), pickled. An entry is read only if it carries
the signature of a key that this user alone can read, made with the folder: a file placed there
by anyone else, or altered, is never unpickled (it is checked again, and replaced). The folder is
kept to ``MAX_ENTRIES``, the least recently used going first; what goes is only what this module
wrote. ``CLAIMBOOK_CHECK_CACHE=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import pickle
import platform
import re
import secrets
import stat
import tempfile
from pathlib import Path

from claimbook.common.paths import PACKAGE_DIR, cache_folder, resolve_path
from claimbook.engine import preloaded

SWITCH = "CLAIMBOOK_CHECK_CACHE"
FOLDER = "checks"
KEY_FILE = "signing-key"
SUFFIX = ".check"
MAX_ENTRIES, KEPT_AFTER_PRUNING = 20_000, 15_000
_SIGNATURE_BYTES = hashlib.sha256().digest_size


def kept(claims, data, what: str, compute) -> dict:
    """``{claim id: compute(claim)}``, a function of the claim and ``data`` alone that ``what``
    names ("check", "audit"): each from the cache where an entry holds it, else computed (and kept)."""
    folder = _folder(data)
    if folder is None:
        return {claim.id: compute(claim) for claim in claims}
    found = {}
    inputs = inputs_digest(data.inputs)
    wrote = False
    for claim in claims:
        key = entry_key(claim, data, inputs, what)
        value = _read(folder, key, claim)
        if value is _ABSENT:
            value = compute(claim)
            _write(folder, key, claim, value)
            wrote = True
        found[claim.id] = value
    if wrote:  # (only a write adds an entry: a run that only read lists no folder of thousands)
        _prune(folder)
    return found


def entry_key(claim, data, inputs: str | None = None, what: str = "check") -> str:
    """The digest of everything ``engine.check(claim, data)`` reads (``inputs``: the data files'
    digest, ``inputs_digest``, where it is known already)."""
    registry = data.registry
    announcement = registry.announcements.get(claim.announcement)
    material = {
        "what": what,
        "claim": _claim_material(claim),
        "announcement": None if announcement is None else announcement.__dict__,
        "sentence": [_claim_material(other) for other in registry.sentence(claim)],
        # (joined to the earlier rounds' results, which a check that looks back reads)
        "announced": registry.announced_digest,
        "inputs": inputs or inputs_digest(data.inputs),
        "code": CODE,
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=repr).encode()).hexdigest()


def _claim_material(claim) -> dict:
    fields = {name: getattr(claim, name) for name in claim.__dataclass_fields__ if name != "parts"}
    return {**fields, "parts": [_claim_material(part) for part in claim.parts]}


def inputs_digest(paths) -> str:
    """The bytes of the data files (a folder: each of its files) a check reads, read again
    whenever one of them changed (its size, times or inode: a long-lived process, the preview,
    sees every edit)."""
    listed = []
    for named in paths:
        path = resolve_path(named)
        files = sorted(item for item in path.rglob("*") if item.is_file()) if path.is_dir() else [path]
        for file in files:
            try:
                info = file.stat()
                listed.append(
                    (named, str(file), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
                )
            except OSError:
                listed.append((named, str(file), None))
    return _inputs_digest(tuple(paths), tuple(listed))


@functools.lru_cache(maxsize=16)
def _inputs_digest(paths: tuple, stats: tuple) -> str:
    return preloaded.key("check inputs", list(paths), paths)


@functools.cache
def _code_digest() -> str:
    """The package's source and what else shapes a check: the Python and library versions. Read
    once, as this module is imported (``CODE``): the source of the code that runs, not of an
    edit made since (a kernel forked from a server that imported the package before it)."""
    import numpy
    import pandas

    digest = hashlib.sha256(f"{platform.python_version()} {pandas.__version__} {numpy.__version__}".encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if "__pycache__" not in path.parts:
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _folder(data) -> Path | None:
    """The cache's folder, made if need be; None when it is off, when the data do not say what
    files they were read from, or when the folder is not this user's alone."""
    if os.environ.get(SWITCH, "1") == "0" or not getattr(data, "inputs", ()):
        return None
    folder = cache_folder() / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = folder.stat()
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None
        _signing_key(folder)
    except OSError:
        return None
    return folder


def _signing_key(folder: Path) -> bytes:
    """The key entries are signed with: made once, readable by this user alone (an existing key
    anyone else could read or write is refused: OSError)."""
    path = folder / KEY_FILE
    with contextlib.suppress(FileExistsError):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(32))
    info = path.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077 or not stat.S_ISREG(info.st_mode):
        raise OSError(f"{path}: not this user's alone")
    return _key_bytes(str(path), info.st_mtime_ns, info.st_ino)


@functools.lru_cache(maxsize=4)
def _key_bytes(path: str, mtime_ns: int, inode: int) -> bytes:
    key = Path(path).read_bytes()
    if len(key) != 32:
        raise OSError(f"{path}: not a key this module made")
    return key


def _signature(folder: Path, payload: bytes) -> bytes:
    return hmac.new(_signing_key(folder), payload, hashlib.sha256).digest()


_ABSENT = object()


def _read(folder: Path, key: str, claim):
    """What an entry holds for ``claim``, or ``_ABSENT`` (no entry, or one not signed by this
    user's key, or not of this very claim)."""
    path = folder / f"{key}{SUFFIX}"
    try:
        blob = path.read_bytes()
        signature, payload = blob[:_SIGNATURE_BYTES], blob[_SIGNATURE_BYTES:]
        if not hmac.compare_digest(signature, _signature(folder, payload)):
            return _ABSENT
        stored = pickle.loads(payload)  # signed with this user's own key (above)
        os.utime(path)  # recently used: pruned last
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return _ABSENT
    if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == claim):
        return _ABSENT
    return stored[1]


def _write(folder: Path, key: str, claim, value) -> None:
    """Keep ``value`` for ``claim`` under ``key`` (written whole, then renamed: a reader never
    sees half)."""
    try:
        payload = pickle.dumps((claim, value), protocol=pickle.HIGHEST_PROTOCOL)
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".writing-", suffix=SUFFIX)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(_signature(folder, payload) + payload)
            os.replace(temporary, folder / f"{key}{SUFFIX}")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return  # what cannot be kept is computed again next time


def _prune(folder: Path) -> None:
    """At most ``MAX_ENTRIES`` entries: past that, the least recently used go, down to
    ``KEPT_AFTER_PRUNING`` (only this module's own files: named by a digest and ``SUFFIX``)."""
    try:
        entries = [entry for entry in os.scandir(folder) if _is_entry(entry.name)]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
        for entry in entries[: len(entries) - KEPT_AFTER_PRUNING]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    except OSError:
        return


def _is_entry(name: str) -> bool:
    return _ENTRY_NAME.fullmatch(name) is not None


_ENTRY_NAME = re.compile("[0-9a-f]{64}" + re.escape(SUFFIX))


CODE = _code_digest()
