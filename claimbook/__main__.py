import os
import sys

from claimbook.cli import main

code = main()
# Every file the command wrote is closed by now, and the processes it started have ended: ending
# here, without the interpreter's teardown (tenths of a second of freeing pandas, altair and
# zmq), is the same end, sooner.
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
