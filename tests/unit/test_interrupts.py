"""``claimbook.common.interrupts``: SIGTERM and SIGHUP end a command as Ctrl-C does, and a
signal the command was started ignoring (``nohup``) stays ignored. Each case runs in a Python of
its own: signal handlers belong to a process's main thread, and a test worker's are its own."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from claimbook.common.interrupts import as_interrupts

    number = getattr(signal, sys.argv[1])
    # as a shell starts a command, or as nohup does (whatever this test run was started with)
    signal.signal(number, signal.SIG_IGN if sys.argv[2] == "ignored" else signal.SIG_DFL)
    before = signal.getsignal(number)
    try:
        with as_interrupts():
            os.kill(os.getpid(), number)
            time.sleep(0.5)
            print("went on")
    except KeyboardInterrupt as interrupted:
        print("interrupted", interrupted.args[0])
    print("restored", signal.getsignal(number) == before)
    """
)


def _run(name: str, start: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, name, start], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[:-1]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_the_signal_interrupts_once_and_the_handler_is_restored(name):
    assert _run(name, "default") == [f"interrupted {name}", "restored True"]


def test_a_hangup_the_command_was_started_ignoring_stays_ignored():
    assert _run("SIGHUP", "ignored") == ["went on", "restored True"]
