"""``preview``: the book served on 127.0.0.1, rebuilt and reloaded as its sources change."""

from __future__ import annotations

import sys

from claimbook.cli.exits import EXIT_INTERRUPTED
from claimbook.common.interrupts import as_interrupts
from claimbook.common.paths import PROJECT_ROOT


def add_commands(commands) -> None:
    """``preview``: the book served on 127.0.0.1, rebuilt and reloaded as its sources change."""
    preview_cmd = commands.add_parser(
        "preview",
        help="serve the book on 127.0.0.1 and show each edit of a registry, template, data file or page",
        description="Build the book into _build/preview (never the committed book) and serve it on "
        "127.0.0.1; on each change of data/ (the registries, the chapters, the results), notebooks/ or "
        "the hand-written pages in book/, execute again only the pages the change touches, rewrite "
        "their HTML and reload the browser. Ctrl-C stops it, and everything it started.",
    )
    preview_cmd.add_argument(
        "--port", type=int, default=8000, help="the port on 127.0.0.1 (default 8000; 0: any free port)"
    )


def _run_preview(args) -> int:
    """Serve the preview until Ctrl-C or SIGTERM; what it started ends with it."""
    from claimbook.pipeline.preview import Preview
    from claimbook.pipeline.serve import bound_socket, serve

    def report(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    sock = bound_socket(args.port)  # a taken port is refused before anything starts
    preview = Preview(PROJECT_ROOT, report)
    code = 0
    try:
        with as_interrupts(), _kernel_folders_reaped():
            report("building the preview in _build/preview (the committed book is not touched)")
            preview.start()
            port = sock.getsockname()[1]
            serve(
                preview,
                sock,
                lambda: report(f"serving the book at http://127.0.0.1:{port}/ (Ctrl-C stops the preview)"),
            )
    except KeyboardInterrupt as exc:
        code = _preview_interrupted(exc)
    finally:
        preview.stop()
        sock.close()
    report("preview stopped")
    return code


def _kernel_folders_reaped():
    """The reaper of the preview's kernel folders (each holds its kernel's key): removed as the
    preview dies, even by SIGKILL (``claimbook.pipeline.kernelfolders``)."""
    from claimbook.pipeline.kernelfolders import reaper

    return reaper()


def _preview_interrupted(exc: KeyboardInterrupt) -> int:
    """Ctrl-C is how a preview is stopped (exit 0); SIGTERM or SIGHUP (``as_interrupts`` names
    the signal) end it as they end a build: interrupted, exit 130."""
    return EXIT_INTERRUPTED if exc.args else 0
