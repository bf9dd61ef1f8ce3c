"""The ``claimbook`` command (and ``python -m claimbook``).

``-C DIR`` (or ``--project DIR``) before the command names the project, as ``git -C`` and ``make
-C`` do: it is read here, before the package finds its project, and passed on as
``CLAIMBOOK_PROJECT`` (so the pages' kernels find the same project)."""

import gc
import os
import sys

PROJECT_OPTIONS = ("-C", "--project")


def project_from_argv(argv: list[str]) -> None:
    """Set ``CLAIMBOOK_PROJECT`` from a ``-C DIR`` among the options before the command."""
    for index, argument in enumerate(argv):
        if not argument.startswith("-"):
            return  # the command: what follows is its own
        value = None
        if argument in PROJECT_OPTIONS and index + 1 < len(argv):
            value = argv[index + 1]
        elif argument.startswith("--project="):
            value = argument.split("=", 1)[1]
        elif argument.startswith("-C") and len(argument) > 2:
            value = argument[2:]
        if value is not None:
            os.environ["CLAIMBOOK_PROJECT"] = os.path.abspath(os.path.expanduser(value))


def _memory_ran_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a MemoryError, or an import that failed for one (numpy's says so)."""
    while exc is not None:
        if isinstance(exc, MemoryError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def run() -> None:
    # A command's objects mostly live until it ends (pandas' import alone makes hundreds of
    # thousands): the collector's default pace, a pass every 700 new objects and a full one over
    # all of them every 70,000, costs a tenth of a second a command, for cycles that are rare.
    gc.set_threshold(20_000, 10, 10)
    project_from_argv(sys.argv[1:])
    try:
        from claimbook.cli import main

        code = main()
    except (MemoryError, ImportError) as exc:  # before the command could say it (its imports)
        if not _memory_ran_out(exc):
            raise
        os.write(2, b"error: memory ran out (MemoryError); raise the limit (ulimit -v) or free memory\n")
        os._exit(3)
    # Every file the command wrote is closed by now, and the processes it started have ended:
    # ending here, without the interpreter's teardown (tenths of a second of freeing pandas,
    # altair and zmq), is the same end, sooner.
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # a stream the command was started without (``>&-``)
                stream.flush()
        except BrokenPipeError:  # the reader left (``| head``): what it did not read is not lost
            pass
        except OSError as exc:  # a full disk under a redirected output: the command did not fully succeed
            os.write(2, f"error: writing the output: {exc.strerror or exc}\n".encode())
            code = code or 1
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    run()
