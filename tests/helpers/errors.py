"""The one assertion that a command failed with exactly one error line: an error of the project
is one line naming what is wrong and where (CONTRIBUTING.md, "Style"), never a traceback."""

from __future__ import annotations

import subprocess

SHOWN = 4000  # the characters of standard error a failure message shows (its end)


def one_error_line(
    done: subprocess.CompletedProcess | str,
    *phrases: str,
    code: int | None = None,
    starts: str = "error: ",
    stdout: str | None = None,
    among_others: bool = False,
) -> str:
    """The error line of the finished command ``done`` (a ``CompletedProcess``, or the text of its
    standard error), asserted to be its one error line; returned without its line end.

    Its standard error is that one line, ended by a line end, and nothing else (no traceback);
    with ``among_others``, other lines (warnings, what moved, what a server thread printed) may
    stand around it, but it is the only one that starts with ``error:``. The line starts with
    ``starts`` (``error: `` and what should follow it) and holds every one of ``phrases``. With
    ``code``, the command exited with that code; with ``stdout``, it printed exactly that."""
    assert starts.startswith("error: "), f"an error line starts with 'error: ', not {starts!r}"
    stderr = done if isinstance(done, str) else done.stderr
    said = f"standard error:\n{stderr[-SHOWN:]}"
    if code is not None:
        assert not isinstance(done, str), "an exit code is checked on a CompletedProcess"
        assert done.returncode == code, f"exit {done.returncode}, expected {code}; {said}"
    if stdout is not None:
        assert not isinstance(done, str), "standard output is checked on a CompletedProcess"
        assert done.stdout == stdout, f"standard output {done.stdout[-SHOWN:]!r}, expected {stdout!r}"
    lines = stderr.splitlines()
    if among_others:
        errors = [line for line in lines if line.startswith("error:")]
        assert len(errors) == 1, f"expected exactly one error line, found {len(errors)}; {said}"
        line = errors[0]
    else:
        assert "Traceback" not in stderr, f"a traceback, not one error line; {said}"
        assert len(lines) == 1 and stderr == lines[0] + "\n", f"expected exactly one line; {said}"
        line = lines[0]
    assert line.startswith(starts), f"the error line does not start with {starts!r}: {line}"
    for phrase in phrases:
        assert phrase in line, f"the error line does not say {phrase!r}: {line}"
    return line
