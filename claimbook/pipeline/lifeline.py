"""Processes that end with the build that started them, however it ends.

A build starts a kernel server, the kernels it forks and a jupyter-book process. A build that
ends normally, fails or is interrupted stops them itself; one killed outright (SIGKILL: an
out-of-memory killer, a CI timeout, ``kill -9 -PGID``) cannot. So each of them asks the system
to kill it the moment its parent ends: on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, which the
kernel delivers as the parent exits, whatever killed it, with no thread of the child's own
having to run. (The parent is the thread that started the child: the build starts them from
its main thread, the server is single-threaded, and the preview starts its jupyter-book from a
thread kept for that, ``sphinx_warm``.) A parent that ended before the call was made is seen by
the child's next look at its parent's pid, and the child ends at once.

Where the call does not exist (not Linux), a kernel still watches its server (ipykernel's parent
poller, ``claimbook.pipeline.kernels``) and the server its build (its standard input closes).

``DIE_WITH_PARENT`` is source code, for the processes started with ``python -c``.
"""

from __future__ import annotations

DIE_WITH_PARENT = r'''
def die_with_parent(parent):
    """SIGKILL for this process as soon as ``parent`` (its parent's pid) ends; ends at once if it
    already has."""
    import os
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (AttributeError, ImportError, OSError):  # not Linux: the other watches remain
        pass
    if os.getppid() != parent:
        os._exit(1)
'''
