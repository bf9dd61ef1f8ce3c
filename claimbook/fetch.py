"""Downloading a round's ``summary.csv`` from the MLCommons results repository.

The file is downloaded to a temporary name beside its destination, checked (complete,
readable as a results summary), and only then put in place with a checksum record. A server
that fails, stalls or sends a truncated file leaves the previous data exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from claimbook.ingest import IngestError, ingest

DEFAULT_URL = "https://raw.githubusercontent.com/mlcommons/inference_results_{round}/main/summary.csv"
CHUNK = 1 << 16


class FetchError(RuntimeError):
    """A download that failed; nothing was replaced."""


@dataclass(frozen=True)
class Fetched:
    path: Path
    url: str
    sha256: str
    size: int
    results: int


def round_url(round_name: str) -> str:
    return DEFAULT_URL.format(round=round_name)


def fetch_summary(round_name: str, destination_dir: Path, url: str | None = None, timeout: float = 30.0,
                  progress: bool = False) -> Fetched:
    """Download, verify and install ``destination_dir/ROUND/summary.csv`` and its checksum record."""
    url = url or round_url(round_name)
    target = Path(destination_dir) / round_name / "summary.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".summary.", suffix=".part")
    digest = hashlib.sha256()
    size = 0
    try:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response, os.fdopen(handle, "wb") as stream:
                expected = response.headers.get("Content-Length")
                expected = int(expected) if expected and expected.isdigit() else None
                bar = _progress_bar(expected, progress)
                while True:
                    chunk = response.read(CHUNK)
                    if not chunk:
                        break
                    stream.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)
                    bar.update(len(chunk))
                bar.close()
        except urllib.error.HTTPError as exc:
            raise FetchError(f"{url}: the server answered {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FetchError(f"{url}: download failed ({reason})") from None
        except Exception as exc:  # http.client.IncompleteRead and friends
            raise FetchError(f"{url}: download failed ({type(exc).__name__}: {exc})") from None
        if expected is not None and size != expected:
            raise FetchError(f"{url}: truncated download, {size} of {expected} bytes")
        if size == 0:
            raise FetchError(f"{url}: the server sent an empty file")
        try:
            table = ingest(temporary, round_name)
        except IngestError as exc:
            raise FetchError(f"{url}: the download is not a valid results summary: {exc}") from None
        record = {"round": round_name, "url": url, "sha256": digest.hexdigest(), "bytes": size, "results": len(table)}
        checksum = target.with_name("summary.csv.sha256.json")
        checksum_temporary = checksum.with_suffix(".part")
        checksum_temporary.write_text(json.dumps(record, indent=2) + "\n")
        os.replace(temporary, target)
        os.replace(checksum_temporary, checksum)
        return Fetched(target, url, record["sha256"], size, len(table))
    finally:
        Path(temporary).unlink(missing_ok=True)


class _NoBar:
    def update(self, _):
        pass

    def close(self):
        pass


def _progress_bar(total, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="B", unit_scale=True, desc="summary.csv", leave=False)
