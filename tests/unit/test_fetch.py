"""fetch against local HTTP servers on 127.0.0.1: one that works, and ones that fail, stall or
truncate. No test touches the internet."""

import http.server
import threading
import time

import pytest

from tests.helpers.clirun import in_process
from tests.helpers.errors import one_error_line
from tests.helpers.summaries import summary_row, write_summary


class Server:
    def __init__(self, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/summary.csv"
        # Polled often: shutting a server down waits for its next poll (0.5 s by default).
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def handler_for(behaviour, body=b""):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if behaviour == "fail":
                self.send_error(500, "Internal Server Error")
                return
            if behaviour == "stall":
                time.sleep(3)
            if behaviour == "trickle":  # all it promises, one byte every 0.3 s
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for byte in body:
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(0.3)
                return
            self.send_response(200)
            declared = len(body) * 2 if behaviour == "truncate" else len(body)
            self.send_header("Content-Length", str(declared))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

    return Handler


@pytest.fixture
def summary_bytes(tmp_path):
    # The round fetched below is v9.9, and fetch checks the file's version column against it.
    rows = [
        summary_row(Scenario="Offline", Result="1000", version="v9.9"),
        summary_row(Scenario="Server", Result="900", version="v9.9"),
    ]
    return write_summary(tmp_path / "fixture.csv", rows).read_bytes()


def fetch(url, folder, timeout=2):
    return in_process("fetch", "v9.9", "--from", url, "--dir", folder, "--timeout", timeout)


def test_fetch_installs_the_file_and_a_checksum(tmp_path, summary_bytes):
    import hashlib
    import json

    server = Server(handler_for("ok", summary_bytes))
    try:
        done = fetch(server.url, tmp_path)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    installed = tmp_path / "v9.9" / "summary.csv"
    assert installed.read_bytes() == summary_bytes
    record = json.loads((tmp_path / "v9.9" / "summary.csv.sha256.json").read_text())
    assert record == {
        "round": "v9.9",
        "url": server.url,
        "sha256": hashlib.sha256(summary_bytes).hexdigest(),
        "bytes": len(summary_bytes),
        "results": 2,
    }


@pytest.mark.parametrize(
    "behaviour, body, message",
    [
        ("fail", b"", "the server answered 500"),
        ("stall", b"x", "took longer than --timeout 1 s"),
        ("truncate", None, "truncated download"),
        ("ok", b"<html>not found</html>", "not a valid results summary"),
    ],
)
def test_a_failed_fetch_keeps_the_previous_data(tmp_path, summary_bytes, behaviour, body, message):
    previous = tmp_path / "v9.9"
    previous.mkdir()
    (previous / "summary.csv").write_bytes(b"previous data")
    (previous / "summary.csv.sha256.json").write_text("previous record")
    server = Server(handler_for(behaviour, summary_bytes if body is None else body))
    try:
        done = fetch(server.url, tmp_path, timeout=1)
    finally:
        server.close()
    one_error_line(done, message, code=1, among_others=True)
    assert (previous / "summary.csv").read_bytes() == b"previous data"
    assert (previous / "summary.csv.sha256.json").read_text() == "previous record"
    assert sorted(path.name for path in previous.iterdir()) == ["summary.csv", "summary.csv.sha256.json"]


def test_nothing_listens(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = fetch(f"http://127.0.0.1:{port}/summary.csv", tmp_path)
    assert done.returncode == 1 and "download failed" in done.stderr
    assert not (tmp_path / "v9.9" / "summary.csv").exists()


def test_a_server_that_trickles_is_stopped_at_the_deadline(tmp_path):
    """--timeout bounds the whole download: a server sending a byte every 0.3 s (each read
    well within the timeout) is stopped after it, and nothing is left behind."""
    server = Server(handler_for("trickle", b"x" * 1000))
    started = time.monotonic()
    try:
        done = fetch(server.url, tmp_path, timeout=1.5)
    finally:
        server.close()
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "took longer than --timeout 1.5 s" in done.stderr and "nothing was installed" in done.stderr
    # (Only the error lines: a server thread of another test may print to the captured stderr.)
    one_error_line(done, among_others=True)
    assert took < 10, f"the download went on for {took:.1f} s"
    assert not list(tmp_path.rglob("*")), list(tmp_path.rglob("*"))  # no .tmp, no empty folder


def test_dev_zero_is_refused_and_an_endless_server_cut_off_at_the_size_cap(tmp_path):
    from claimbook.inputs.fetch import MAX_DOWNLOAD

    done = fetch("file:///dev/zero", tmp_path)
    assert done.returncode == 2 and "not a regular file (a device)" in done.stderr, done.stderr

    class Endless(http.server.BaseHTTPRequestHandler):  # no length: it sends until cut off
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            block = b"0" * (1 << 20)
            try:
                while True:
                    self.wfile.write(block)
            except OSError:
                return

    server = Server(Endless)
    try:
        done = fetch(server.url, tmp_path, timeout=60)
    finally:
        server.close()
    assert done.returncode == 1, done.stderr
    assert f"more than {MAX_DOWNLOAD:,} bytes" in done.stderr, done.stderr
    assert not list(tmp_path.rglob("*")), list(tmp_path.rglob("*"))


def test_an_announced_size_over_the_cap_is_refused_before_downloading(tmp_path):
    from claimbook.inputs.fetch import MAX_DOWNLOAD

    class Huge(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(MAX_DOWNLOAD + 1))
            self.end_headers()
            self.wfile.write(b"Organization,Result\n")

    server = Server(Huge)
    try:
        done = fetch(server.url, tmp_path)
    finally:
        server.close()
    assert done.returncode == 1 and f"announces {MAX_DOWNLOAD + 1:,} bytes" in done.stderr, done.stderr
    assert not list(tmp_path.rglob("*"))


def test_fetch_help_states_the_cap_and_the_deadline():
    from claimbook.inputs.fetch import DEFAULT_TIMEOUT, MAX_DOWNLOAD

    done = in_process("fetch", "--help")
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    assert f"{MAX_DOWNLOAD // (1024 * 1024)} MiB" in text, text
    assert (
        f"whole download may take, however slowly the server sends (default: {DEFAULT_TIMEOUT:g})" in text
    ), text


def handler_by_name(bodies: dict):
    """A server that has only the files ``bodies`` names (by the last part of the path): 404 else."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = bodies.get(self.path.rsplit("/", 1)[-1])
            if body is None:
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def test_each_round_is_looked_for_under_its_published_name_first():
    from claimbook.inputs.fetch import round_urls

    assert [url.rsplit("/", 1)[-1] for url in round_urls("v5.1")] == ["summary_results.json", "summary.csv"]
    assert [url.rsplit("/", 1)[-1] for url in round_urls("v6.1")] == ["summary.csv", "summary_results.json"]
    assert all("inference_results_v9.9/" in url for url in round_urls("v9.9"))


def test_a_round_published_only_as_json_is_found_and_installed_under_its_name(tmp_path, monkeypatch):
    import json

    from claimbook.inputs import fetch as fetch_module
    from tests.unit.test_ingest_json import json_result

    body = json.dumps([json_result(version="v9.9")]).encode()
    server = Server(handler_by_name({"summary_results.json": body}))
    monkeypatch.setattr(fetch_module, "REPOSITORY_URL", server.url.rsplit("/", 1)[0] + "/{round}/{name}")
    try:
        done = in_process("fetch", "v9.9", "--dir", tmp_path, "--timeout", 2)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "v9.9"
    assert sorted(path.name for path in folder.iterdir()) == [
        "summary_results.json",
        "summary_results.json.sha256.json",
    ]
    assert (folder / "summary_results.json").read_bytes() == body
    record = json.loads((folder / "summary_results.json.sha256.json").read_text())
    assert record["url"].endswith("/v9.9/summary_results.json") and record["results"] == 1


def test_a_round_published_under_no_known_name_is_one_line_naming_each_address(tmp_path, monkeypatch):
    from claimbook.inputs import fetch as fetch_module

    server = Server(handler_by_name({}))
    monkeypatch.setattr(fetch_module, "REPOSITORY_URL", server.url.rsplit("/", 1)[0] + "/{round}/{name}")
    try:
        done = in_process("fetch", "v9.9", "--dir", tmp_path, "--timeout", 2)
    finally:
        server.close()
    one_error_line(done, "/v9.9/summary.csv or ", "/v9.9/summary_results.json", code=1, among_others=True)
    assert not any((tmp_path / "v9.9").glob("summary*"))
