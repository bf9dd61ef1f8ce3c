"""Downloading a round's results summary from the MLCommons results repository.

MLCommons publishes each round's summary at the root of that round's repository, under the name
and in the shape of that round (v6.1: ``summary.csv``; v5.1: only ``summary_results.json``).
``PUBLISHED`` says which name a round is known to use; the others are tried after it, a name the
server does not have (404) being no error while another remains. The file is installed under the
name its content gives (a JSON summary as ``summary_results.json``, a CSV as ``summary.csv``).

The file is downloaded to a temporary name beside its destination, checked (complete,
readable as a results summary, of the round asked for), and only then put in place with a
checksum record. A server that fails, stalls or sends a truncated file leaves the previous data
exactly as it was; so does a download that differs from the file already there, unless forced.
Files are written only under ``DIR/ROUND/``, with the mode the user's umask gives.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from claimbook.common import identifiers
from claimbook.common.files import (
    ReplaceRefused,
    existing_bytes,
    hold_interrupts,
    install,
    make_directories,
    open_temporary,
    release_interrupts,
    remove_if_empty,
)
from claimbook.common.formatting import count, plural, stated
from claimbook.common.paths import OutsideError, inside
from claimbook.inputs.csvfile import IngestError, TruncatedError, row_changes
from claimbook.inputs.diff import result_changes
from claimbook.inputs.ingest import ingest, summary_versions
from claimbook.inputs.summary_json import looks_like_json

REPOSITORY_URL = "https://raw.githubusercontent.com/mlcommons/inference_results_{round}/main/{name}"
CSV_NAME, JSON_NAME = "summary.csv", "summary_results.json"
SUMMARY_NAMES = (CSV_NAME, JSON_NAME)  # the names a round's summary has been published under
PUBLISHED = {"v5.1": JSON_NAME, "v6.1": CSV_NAME}  # each known round's own
CHUNK = 1 << 16
ROUND = identifiers.ROUND  # v6.1: also the name of the round's folder, so nothing else
URL_SCHEMES = ("http", "https", "file")
# A round's summary is a few MB (v6.1: 0.3 MB; 20,000 results: about 6 MB); nothing larger is
# a summary, and a server (or file:///dev/zero) sending without end must not fill the disk.
MAX_DOWNLOAD = 32 * 1024 * 1024
DEFAULT_TIMEOUT = 120.0


class FetchError(RuntimeError):
    """A download that failed; nothing was replaced."""


class NotPublished(FetchError):
    """The server has no file at that address (404): the next name of a round's summary is tried."""


class FetchRefused(ValueError):
    """A fetch refused for its input (the round, the URL, a file of another round); nothing was
    downloaded or nothing was replaced."""


@dataclass(frozen=True)
class Fetched:
    path: Path
    url: str
    sha256: str
    size: int
    results: int
    unchanged: bool = False  # the file already there was the same; nothing was written


def round_urls(round_name: str) -> list[str]:
    """Where a round's summary may be, in the order tried: its published name, then the others."""
    first = PUBLISHED.get(round_name, CSV_NAME)
    names = [first, *(name for name in SUMMARY_NAMES if name != first)]
    return [REPOSITORY_URL.format(round=round_name, name=name) for name in names]


def check_round(round_name: str) -> str:
    """A round label, vMAJOR.MINOR; anything else (a path, an empty string) is refused."""
    if not ROUND.fullmatch(round_name or ""):
        raise FetchRefused(f"round {round_name!r} is not of the form vMAJOR.MINOR (e.g. v6.1)")
    return round_name


def check_url(url: str) -> str:
    """An http, https or file URL with somewhere to go."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        return url
    if parts.scheme == "file" and parts.path:
        from claimbook.common.safe_read import InputError, check_regular

        try:
            check_regular(urllib.request.url2pathname(parts.path), f"--from {url}", "download")
        except InputError as exc:
            raise FetchRefused(str(exc)) from None
        return url
    raise FetchRefused(f"--from {url!r} is not an {', '.join(URL_SCHEMES[:-1])} or {URL_SCHEMES[-1]} URL")


def round_folder(destination_dir: Path, round_name: str) -> Path:
    """``DIR/ROUND``, checked to lie inside DIR once links are followed."""
    try:
        return inside(destination_dir, round_name).resolve()
    except OutsideError as exc:
        raise FetchRefused(str(exc)) from None


def check_timeout(timeout: float) -> float:
    if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
        raise FetchRefused(f"--timeout {timeout}: give the seconds the download may take, a number above 0")
    return float(timeout)


def fetch_summary(
    round_name: str,
    destination_dir: Path,
    url: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: bool = False,
    force: bool = False,
) -> Fetched:
    """Download, verify and install ``destination_dir/ROUND/NAME`` (``summary.csv`` or
    ``summary_results.json``, as its content is) and its checksum record.

    An existing different summary is replaced only with ``force``; an identical one is left
    as it is (``Fetched.unchanged``).
    """
    check_round(round_name)
    check_timeout(timeout)
    urls = [check_url(url)] if url else round_urls(round_name)
    folder = round_folder(destination_dir, round_name)
    held = hold_interrupts()
    created, stream, temporary, installed = [], None, None, False
    try:
        created = make_directories(folder)
        stream, temporary = open_temporary(folder / CSV_NAME)
        release_interrupts(held)  # an interrupt from meanwhile is raised here, inside the clean-up
        url, size, sha256 = _download_first(urls, stream, temporary, timeout, progress)
        table = _verify(temporary, url, round_name, size)
        with open(temporary, "rb") as head:
            target = folder / (JSON_NAME if looks_like_json(head.read(1024)) else CSV_NAME)
        data = temporary.read_bytes()
        existing = existing_bytes(target)
        if existing == data:
            return Fetched(target, url, sha256, size, len(table), unchanged=True)
        if existing is not None and not force:
            change = _summary_changes(target, round_name, existing, data, table)
            raise ReplaceRefused(f"{target} exists and differs: {change}; pass --force to replace it")
        record = {"round": round_name, "url": url, "sha256": sha256, "bytes": size, "results": len(table)}
        _install(temporary, target, record)
        installed = True
        return Fetched(target, url, sha256, size, len(table))
    finally:
        release_interrupts(held)
        if stream is not None:
            stream.close()
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        if not installed:
            remove_if_empty(created)


@dataclass
class _Transfer:
    """One download under way: where from, its deadline, and what came so far."""

    url: str
    deadline: float
    progress: bool
    size: int = 0
    expected: int | None = None
    digest: object = None

    def announced(self, response) -> None:
        """The size the server announces, refused at once if over ``MAX_DOWNLOAD``."""
        expected = response.headers.get("Content-Length")
        self.expected = int(expected) if expected and expected.isdigit() else None
        if self.expected is not None and self.expected > MAX_DOWNLOAD:
            raise FetchError(
                f"{self.url}: the server announces {plural(self.expected, 'byte')}; a results summary is at most "
                f"{count(MAX_DOWNLOAD)}; nothing was installed"
            )

    def copy(self, response, stream: BinaryIO) -> None:
        """The response's body into ``stream``, while the deadline and the size cap allow."""
        read = getattr(response, "read1", response.read)  # what has come, not a full chunk
        bar = _progress_bar(self.expected, self.progress)
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            _wait_at_most(response, remaining)
            chunk = read(CHUNK)
            if not chunk:
                break
            self.size += len(chunk)
            if self.size > MAX_DOWNLOAD:
                raise FetchError(
                    f"{self.url}: more than {plural(MAX_DOWNLOAD, 'byte')}; a results summary is smaller, so "
                    "the download was stopped and nothing was installed"
                )
            stream.write(chunk)
            self.digest.update(chunk)
            bar.update(len(chunk))
        bar.close()


def _download_first(
    urls: list[str], stream: BinaryIO, temporary: Path, timeout: float, progress: bool
) -> tuple[str, int, str]:
    """The first of ``urls`` the server has, downloaded into ``temporary``: its URL, size and
    SHA-256. A 404 moves on to the next; where none has the file, one line names them all."""
    for position, url in enumerate(urls):
        if position:
            stream = open(temporary, "wb")  # noqa: SIM115 -- closed by _download
        try:
            size, sha256 = _download(url, stream, timeout, progress)
            return url, size, sha256
        except NotPublished:
            if len(urls) == 1:
                raise
    raise FetchError(
        f"no results summary at {' or '.join(urls)} (the server answered 404 Not Found for each); "
        "nothing was installed (pass --from URL if the round publishes it elsewhere)"
    )


def _download(url: str, stream: BinaryIO, timeout: float, progress: bool) -> tuple[int, str]:
    """Copy the response into ``stream`` (and close it); the size and SHA-256 of what came.

    ``timeout`` bounds the whole download, not each read: a server that sends a byte now and
    then is stopped all the same. At most ``MAX_DOWNLOAD`` bytes are taken."""
    transfer = _Transfer(url, time.monotonic() + timeout, progress, digest=hashlib.sha256())
    try:
        with stream, urllib.request.urlopen(url, timeout=timeout) as response:
            transfer.announced(response)
            transfer.copy(response, stream)
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        error = NotPublished if exc.code == 404 else FetchError
        raise error(f"{url}: the server answered {exc.code} {exc.reason}") from None
    except Exception as exc:  # noqa: BLE001 -- worded by _download_error, other http.client errors included
        raise _download_error(exc, transfer, timeout) from None
    size, expected = transfer.size, transfer.expected
    if expected is not None and size != expected:
        raise FetchError(f"{url}: truncated download, {size} of {expected} bytes")
    if size == 0:
        raise FetchError(f"{url}: the server sent an empty file")
    return size, transfer.digest.hexdigest()


def _download_error(exc: Exception, transfer: _Transfer, timeout: float) -> FetchError:
    """What went wrong with a download, in one line naming the URL."""
    url, size = transfer.url, transfer.size
    if isinstance(exc, urllib.error.HTTPError):
        return FetchError(f"{url}: the server answered {exc.code} {exc.reason}")
    if isinstance(exc, http.client.IncompleteRead):
        return FetchError(
            f"{url}: truncated download, {size + len(exc.partial)} of {transfer.expected} bytes"
        )
    if isinstance(exc, TimeoutError):
        return FetchError(
            f"{url}: the download took longer than --timeout {stated(timeout, 's')} ({plural(size, 'byte')} received); "
            "nothing was installed"
        )
    if isinstance(exc, (urllib.error.URLError, OSError)):
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return FetchError(
                f"{url}: no answer within --timeout {stated(timeout, 's')}; nothing was installed"
            )
        return FetchError(f"{url}: download failed ({reason})")
    return FetchError(f"{url}: download failed ({type(exc).__name__}: {exc})")


def _wait_at_most(response, seconds: float) -> None:
    """Let the next read of an HTTP response wait no longer than ``seconds`` (what is left of the
    deadline); a local file's reads do not wait."""
    raw = getattr(getattr(response, "fp", None), "raw", None)
    sock = getattr(raw, "_sock", None)
    if sock is not None and hasattr(sock, "settimeout"):
        sock.settimeout(max(seconds, 0.001))


def _verify(temporary: Path, url: str, round_name: str, size: int) -> pd.DataFrame:
    """The download, ingested: a valid results summary of ``round_name`` (by its version
    column, when it has one). Errors name the URL, never the temporary file."""
    try:
        table = ingest(temporary, round_name)
    except TruncatedError as exc:
        raise FetchError(
            f"{url}: truncated download: {size} bytes received and the last record "
            f"(line {exc.line}) is cut off"
        ) from None
    except IngestError as exc:
        # (ingest refuses a round its version column contradicts: said as the round it is)
        _refuse_other_round(temporary, url, round_name)
        raise FetchError(
            f"{url}: the download is not a valid results summary ({size} bytes): "
            f"{_without_path(str(exc), temporary)}"
        ) from None
    _refuse_other_round(temporary, url, round_name)
    return table


def _refuse_other_round(temporary: Path, url: str, round_name: str) -> None:
    """A download whose version column gives another round than the one asked for: refused."""
    try:
        versions = summary_versions(temporary)
    except IngestError:
        return  # not a summary: the ingest error says so
    if versions and versions != {round_name}:
        raise FetchRefused(
            f"{url}: the file is of round {', '.join(sorted(versions))} (its version column), "
            f"not {round_name}; nothing was installed"
        )


def _without_path(message: str, path: Path) -> str:
    """An ingest error about the temporary file, worded without it ("line 3: ...")."""
    name = str(path)
    if message.startswith(name):
        message = message[len(name) :].lstrip(",: ")
    return message.replace(name, "the download")


def _summary_changes(target: Path, round_name: str, existing: bytes, data: bytes, table: pd.DataFrame) -> str:
    """What installing the download would change: by result when the file there is a valid
    summary too, else by whole rows."""
    try:
        return result_changes(ingest(target, round_name), table)
    except IngestError:
        return row_changes(existing, data)


def _install(temporary: Path, target: Path, record: dict) -> None:
    """Put the verified download and its checksum record in place, the summary first."""
    checksum = target.with_name(f"{target.name}.sha256.json")
    stream, checksum_temporary = open_temporary(checksum)
    try:
        with stream:
            stream.write((json.dumps(record, indent=2) + "\n").encode("utf-8"))
        install(temporary, target)
        install(checksum_temporary, checksum)
    finally:
        checksum_temporary.unlink(missing_ok=True)


class _NoBar:
    def update(self, _):
        pass

    def close(self):
        pass


def _progress_bar(total, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="B", unit_scale=True, desc="summary", leave=False)
