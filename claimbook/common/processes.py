"""Ending a child process that ends itself when its input closes (the kernel server, the
preview's jupyter-book): its input closed, a while to finish, then killed."""

from __future__ import annotations

import subprocess


def end_child(process: subprocess.Popen, timeout: float) -> None:
    """Close ``process``'s input and wait ``timeout`` seconds for it to end, then kill it."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
