"""Serving a preview (``claimbook.pipeline.preview``) on 127.0.0.1, with live reload.

sphinx-autobuild's own pieces serve it: its middleware puts a small script in every HTML page
that reloads the page when the server says so, over a websocket; its ``RebuildServer`` holds
the websocket and watches the sources with watchfiles (starlette serves the files, uvicorn runs
the server). What it does on a change is the preview's step instead of a whole Sphinx build, and
in a thread of this process rather than in a new process per change: the preview's kernel
server and jupyter-book process stay warm between changes. A step that changed the site tells
every open page to reload, each time it changed it.

Watched: the registries and the rest of ``data/``, the templates in ``notebooks/``, the
hand-written pages in ``book/`` (its generated pages are a build's, and the preview writes only
in ``_build/preview``, which is not watched: a step never sets off another). Changes that come
while a step runs are taken together by the next step.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import threading
from pathlib import Path

from claimbook.common.errors import UsageError
from claimbook.common.paths import BOOK_DIR, GENERATED_DIR, TEMPLATES_DIR

HOST = "127.0.0.1"
WATCHED = ("data", TEMPLATES_DIR, BOOK_DIR)
# Not sources: a build's generated pages and folders, editors' and tools' scratch files.
IGNORED_FOLDERS = (f"{BOOK_DIR}/{GENERATED_DIR}", "_build")
IGNORED_NAMES = (
    r"/\.claimbook-",
    r"/__pycache__/",
    r"/\.ipynb_checkpoints/",
    r"(\.sw[a-p]|\.swx|~|\.tmp|\.part)$",
    r"/\.#[^/]*$",
    r"/4913$",  # vim's probe of a folder before it writes a file there
)


def checked_port(port: int) -> int:
    """``port`` if it is one a socket can take (0 to 65535; 0: any free one), else a UsageError."""
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port}: not a port (0 to 65535; 0 for any free one)")
    return port


def bound_socket(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (0: any free port); a UsageError if it is taken
    or is no port."""
    checked_port(port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror}); give another port, "
            "or --port 0 for any free one"
        ) from None
    sock.listen(128)
    return sock


def serve(preview, sock: socket.socket, ready=lambda: None) -> None:
    """Serve ``preview``'s site on ``sock`` until Ctrl-C (or SIGTERM), refreshing it as its
    sources change; ``ready()`` once the sources are watched and a step took what changed
    since the first build (an edit before the watches were in place would be missed otherwise)."""
    import uvicorn
    from sphinx_autobuild.middleware import JavascriptInjectorMiddleware
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Mount, WebSocketRoute
    from starlette.staticfiles import StaticFiles

    root, port = preview.root, sock.getsockname()[1]
    ignore = source_filter(root)
    watcher = _watcher_class()([root / folder for folder in WATCHED], ignore, preview, ready)
    app = Starlette(
        routes=[
            WebSocketRoute("/websocket-reload", watcher, name="reload"),
            Mount("/", app=_whole_files(StaticFiles)(directory=preview.html, html=True), name="static"),
        ],
        middleware=[
            Middleware(LoopbackOnly, port=port),
            Middleware(JavascriptInjectorMiddleware, ws_url=f"{HOST}:{port}"),
        ],
        lifespan=watcher.lifespan,
    )
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def loopback_hosts(port: int) -> set[str]:
    """The ``Host`` values the preview answers: its loopback names with its port (and bare, as
    a browser writes them for port 80)."""
    return {f"{name}:{port}" for name in LOOPBACK_NAMES} | (set(LOOPBACK_NAMES) if port == 80 else set())


class LoopbackOnly:
    """An ASGI middleware that answers only requests made to the preview's loopback names: a
    page of another site that a DNS rebinding points at 127.0.0.1 sends its own ``Host`` (400),
    and a websocket it opens its own ``Origin`` (closed, 1008). A websocket without an Origin
    (no browser's) is let through."""

    def __init__(self, app, port: int):
        self.app, self.hosts = app, loopback_hosts(port)
        self.origins = {f"http://{host}" for host in self.hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            headers = {name.lower(): value for name, value in scope.get("headers", ())}
            host = headers.get(b"host", b"").decode("latin-1").lower()
            origin = headers.get(b"origin")
            if host not in self.hosts:
                return await _refuse(
                    scope, send, "this preview answers only for 127.0.0.1, localhost and [::1]"
                )
            if (
                scope["type"] == "websocket"
                and origin is not None
                and origin.decode("latin-1").lower() not in self.origins
            ):
                return await _refuse(scope, send, "a page of another origin")
        await self.app(scope, receive, send)


async def _refuse(scope, send, why: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": why})
        return
    body = f"{why}\n".encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def source_filter(root: Path):
    """Whether a path of the project is not a source the preview watches (sphinx-autobuild's
    filter: a path given, or a name pattern)."""
    from sphinx_autobuild.filter import IgnoreFilter

    return IgnoreFilter([str(root / folder) for folder in IGNORED_FOLDERS], IGNORED_NAMES)


def sources_stamp(root: Path, ignore) -> tuple:
    """The watched sources as they are now: each file's path, size and time of change (a save
    the watcher would report changes it)."""
    found = []
    for folder in WATCHED:
        for path in sorted((root / folder).rglob("*")):
            with contextlib.suppress(OSError):  # gone meanwhile: not there now
                if not ignore(str(path)) and path.is_file():
                    stat = path.stat()
                    found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def _changed_since(root: Path, ignore, stamp: tuple) -> bool:
    return sources_stamp(root, ignore) != stamp


def _whole_files(static_files):
    """starlette's ``StaticFiles``, each file read whole before it is sent, never cached: Sphinx
    rewrites a page in place, and a file streamed while it changes would not match the length
    sent first (a broken response); read whole, it is one version or the other, and the page's
    reload comes once it is written."""
    import mimetypes

    from starlette.responses import Response

    class WholeFiles(static_files):
        def file_response(self, full_path, stat_result, scope, status_code=200):
            media_type = mimetypes.guess_type(str(full_path))[0] or "application/octet-stream"
            content = Path(full_path).read_bytes()
            return Response(content, status_code, {"Cache-Control": "no-store"}, media_type)

    return WholeFiles


def _watcher_class():
    """sphinx-autobuild's ``RebuildServer``, whose change runs the preview's step in a thread
    (its own runs a callback in a new process for each change) and reloads the pages each
    time the step changed the site."""
    import watchfiles
    from sphinx_autobuild.server import RebuildServer

    class PreviewWatcher(RebuildServer):
        def __init__(self, paths, ignore, preview, ready):
            super().__init__(paths, ignore, change_callback=preview.refresh)
            self.preview, self.ready = preview, ready

        async def watch(self) -> None:
            loop = asyncio.get_running_loop()
            self.preview.on_html = lambda: loop.call_soon_threadsafe(self.flag.set)
            watching = False
            # An empty set every 200 ms without a change: the first says the watches are in place.
            async for changes in watchfiles.awatch(
                *self.paths,
                watch_filter=lambda _, path: not self.ignore(path),
                rust_timeout=200,
                yield_on_timeout=True,
            ):
                if not watching:
                    # What changed while the preview started, taken before it says it serves: an
                    # edit saved after that is a step of its own, never caught half-way by this one.
                    watching = True
                    await _in_thread(self.preview.refresh)
                    self.ready()
                    continue
                if not changes:
                    continue
                shown = sorted({_shown(Path(path), self.preview.root) for _, path in changes})
                self.preview.report(f"changed: {', '.join(shown[:5])}{' ...' if len(shown) > 5 else ''}")
                # A save during the step is reported by the next turn of this loop, which runs the
                # step it needs: the step that runs now stops short of what that one would redo.
                stamp = sources_stamp(self.preview.root, self.ignore)
                self.preview.newer = functools.partial(_changed_since, self.preview.root, self.ignore, stamp)
                await _in_thread(self.preview.refresh)

    return PreviewWatcher


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


async def _in_thread(function):
    """``function()`` in a thread of its own, awaited: a server shutting down stops waiting
    for it (the preview's ``stop`` ends what it runs) instead of waiting for it to end."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def settle(result):
        if not done.done():
            done.set_result(result)

    def run():
        result = None
        try:
            result = function()
        finally:
            with contextlib.suppress(RuntimeError):  # the server ended meanwhile (its loop is closed)
                loop.call_soon_threadsafe(settle, result)

    threading.Thread(target=run, daemon=True).start()
    return await done
