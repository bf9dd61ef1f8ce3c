import os
import sys

from claimbook.cli import main

code = main()
# Every file the command wrote is closed by now, and the processes it started have ended: ending
# here, without the interpreter's teardown (tenths of a second of freeing pandas, altair and
# zmq), is the same end, sooner.
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BrokenPipeError:  # the reader left (``| head``): what it did not read is not lost
    pass
except OSError:  # a full disk under a redirected output: the command did not fully succeed
    code = code or 1
os._exit(code)
