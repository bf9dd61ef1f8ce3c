"""The garbage collector's pace in the book's own processes.

Such a process keeps most of its objects until it ends (pandas' import alone makes hundreds of
thousands): the collector's default pace, a pass every 700 new objects and a full one over all
of them every 70,000, costs a tenth of a second or more a process, for cycles that are rare. The
commands, the kernel server (and the kernels it forks) and jupyter-book's processes run at this
pace instead.
"""

THRESHOLDS = (20_000, 10, 10)

# The same, as source code for the processes started with ``python -c``.
SET_PACE = f"import gc\ngc.set_threshold{THRESHOLDS}\n"
