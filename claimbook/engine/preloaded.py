"""Data loaded once, before the pages' kernels are forked, and taken by the pages that read the
very same files.

Every page reads the book's data (the registries, the round's results, the reference tables)
as it starts: in the real book about 0.25 s of a claim page's 0.6 s of work, more as the
registries grow. The kernels' fork server (``claimbook.pipeline.kernels``) reads it once after its
imports (``claimbook.engine.context.preload``) and keeps what it read here, under the key of the
file arguments as given and the bytes of every file they name. A page forked from it whose
files have that very key takes it instead of reading them again (its overrides are applied to it
as to what is read); any other reads as ever. What a page takes is its own: the page runs in a
forked process of its own, and takes it once.

What is read is a function of those arguments and bytes (and of the code, the same in the
server and its kernels), so a page that takes it gives the notebook a fresh kernel gives; nbval
re-runs every committed page in a fresh kernel, and a test compares both. A read that printed
or warned is not kept: a fresh kernel's page would show what it said.
"""

from __future__ import annotations

import hashlib
import json

from claimbook.common.paths import resolve_path

_KEPT: dict[str, object] = {}


def key(files: dict, paths: list[str]) -> str:
    """What a load reads: its file arguments as given, and the bytes of every file of ``paths``
    (a folder: each of its files, by name)."""
    digest = hashlib.sha256(json.dumps(files, sort_keys=True, default=str).encode())
    for given in paths:
        path = resolve_path(given)
        read = sorted(item for item in path.rglob("*") if item.is_file()) if path.is_dir() else [path]
        for file in read:
            digest.update(b"\0" + str(file.relative_to(path) if file != path else given).encode() + b"\0")
            digest.update(file.read_bytes() if file.is_file() else b"(none)")
    return digest.hexdigest()


def keep(found_key: str, data) -> None:
    _KEPT[found_key] = data


def held() -> bool:
    """Whether this process holds preloaded data (only a kernel forked by the server does)."""
    return bool(_KEPT)


def take(found_key: str):
    """The data kept under ``found_key``, once; None if none is."""
    return _KEPT.pop(found_key, None)


def read_paths(files: dict) -> list[str]:
    """The files and folders a load reads, from its file arguments (``load_data``'s)."""
    return [
        files["results_path"],
        *files["earlier_paths"],
        files["reference_dir"],
        files["registry_dir"],
        files["chapters_file"],
        files["result_ids_path"],
        files["sources_path"],
    ]
