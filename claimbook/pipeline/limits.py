"""What a build needs of the system before it starts: enough files open at once, and enough
address space (``ulimit -v``).

Each page's kernel holds a few dozen file descriptors in the build (its sockets, the threads of
its messaging library, its streams), on top of what the build itself opens. A process allowed
fewer (``ulimit -n 64``) used to fail halfway, with tracebacks from the messaging threads. The
build raises its own soft limit as far as the system allows; if that is not enough for the pages
it would run at once, it stops before starting anything, in one line.
"""

from __future__ import annotations

from claimbook.common.errors import BuildError

BASE_FILES = 64  # the build itself, the server's and Sphinx's pipes, the files it reads
FILES_PER_PAGE = 32  # one page's kernel, as the build holds it (about 25 measured)
RAISED_TO = 4096  # the soft limit asked for when it must be raised (within the hard limit)


def needed_files(workers: int) -> int:
    return BASE_FILES + FILES_PER_PAGE * max(1, workers)


def pages_the_limit_allows() -> int | None:
    """How many pages at once the system's hard limit of open files allows; None where it sets
    none (or the system has no such limit)."""
    try:
        import resource
    except ImportError:
        return None
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY:
        return None
    return max(1, (hard - BASE_FILES) // FILES_PER_PAGE)


def ensure_open_files(workers: int) -> None:
    """Raise this process's limit of open files to what ``workers`` pages at once need (its
    children inherit it); a BuildError if the system's hard limit is below that."""
    try:
        import resource
    except ImportError:  # not POSIX: nothing to look at
        return
    needed = needed_files(workers)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise BuildError(
            f"a build of {workers} page(s) at once needs about {needed} open files, but this process may "
            f"open {hard} (ulimit -n); raise the limit (ulimit -n {needed}) or lower --jobs; nothing was written"
        )
    wanted = max(needed, RAISED_TO) if hard == resource.RLIM_INFINITY else min(hard, max(needed, RAISED_TO))
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (OSError, ValueError) as exc:
        raise BuildError(
            f"a build of {workers} page(s) at once needs about {needed} open files, but this process may "
            f"open {soft} (ulimit -n) and could not raise it ({exc}); nothing was written"
        ) from None


# Below this much address space a build cannot run a page: measured, 800 MB made a page's kernel
# fail in its first cell, 600 MB made the messaging library abort the build (SIGABRT, its message
# only), 1.2 GB built a page. A limit under it is said before anything starts.
ADDRESS_SPACE = 1 << 30


class AddressSpaceError(MemoryError):
    """A build allowed too little memory to run (``ulimit -v``); one line, nothing written."""


def ensure_address_space(needed: int = ADDRESS_SPACE) -> None:
    """Raise this process's soft limit of address space to ``needed`` if it is lower and the
    hard limit allows (its children inherit it); an ``AddressSpaceError`` if it does not."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard == resource.RLIM_INFINITY or hard >= needed:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (needed, hard))
            return
        except (OSError, ValueError):
            pass
    raise AddressSpaceError(
        f"before the build began: it may use {soft >> 20} MB of address space (ulimit -v "
        f"{soft >> 10}) and needs about {needed >> 20} MB; raise the limit (ulimit -v {needed >> 10}); "
        "nothing was written"
    )
