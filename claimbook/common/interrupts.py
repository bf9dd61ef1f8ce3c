"""SIGTERM and SIGHUP end a command as Ctrl-C does.

A `kill`, a CI job's timeout or a closed terminal sends SIGTERM or SIGHUP; Python's default for
both is to end at once, with no clean-up and no word. While ``as_interrupts`` is entered (in the
main thread), each raises ``KeyboardInterrupt`` instead, so the command cleans up on its way out
(a build's kernels, their folders, its staging folder; a download's temporary file) and says
"interrupted" in one line, exit 130. The clean-up runs once: a second such signal meanwhile is
ignored (it is bounded: a build gives its pages' threads seconds, not minutes). A signal the
process was started with ignored (``nohup``) stays ignored.
"""

from __future__ import annotations

import contextlib
import signal
import threading

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def as_interrupts():
    """While entered, SIGTERM and SIGHUP raise KeyboardInterrupt in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield  # an embedding program's thread: signals are the program's own business
        return
    previous = {}

    def interrupt(signum, frame):
        for number in previous:
            signal.signal(number, signal.SIG_IGN)
        raise KeyboardInterrupt(signal.Signals(signum).name)  # (Ctrl-C's has no argument)

    for number in SIGNALS:
        if signal.getsignal(number) is signal.SIG_IGN:
            continue
        try:
            previous[number] = signal.signal(number, interrupt)
        except (OSError, ValueError):
            continue
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
