"""Where a command's CPU goes, by kind of process: ``benchmarks/run.py --only-tests --by-process``.

``getrusage`` gives one total, and only for the processes that were waited for (Chromium's
renderers, for one, are not). Here a thread reads ``/proc`` every tenth of a second while the
command runs and keeps, for every process it saw, its command line's kind, its parent and the
CPU it had used when last seen. The machine's own counters (``/proc/stat``) give what the cores
did in all, busy and idle, so the sampled total can be checked against them: a process that
lives less than a tenth of a second, and the last tenth of each process, are not seen. Linux
only; the sampler's own reading of ``/proc`` is part of the machine's total.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path
from typing import Self

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

# Text found in the command line of the processes the book starts with ``python -c SOURCE``
# (claimbook.pipeline.kernels, .jupyterbook, .sphinx_warm): the source is the command line.
KERNEL_SERVER_MARK = "become_kernel"
PREVIEW_SPHINX_MARK = "SaveLater"
SPHINX_MARK = "without_execution"
XDIST_WORKER_MARK = "import sys;exec(eval(sys.stdin.readline()))"


def machine_ticks() -> tuple[int, int]:
    """The cores' busy and idle time since boot, in clock ticks (``/proc/stat``'s first line:
    user, nice, system, irq and softirq are busy; idle and iowait are not)."""
    fields = [int(value) for value in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = fields[:7]
    return user + nice + system + irq + softirq, idle + iowait


def kind(command: str, parent_command: str | None) -> str:
    """What a process is, from its command line and its parent's."""
    if KERNEL_SERVER_MARK in command:
        forked = parent_command is not None and KERNEL_SERVER_MARK in parent_command
        return "page kernel forked by a kernel server" if forked else "kernel server (a build's)"
    if PREVIEW_SPHINX_MARK in command:
        return "Sphinx kept by a preview"
    if SPHINX_MARK in command:
        return "Sphinx (a build's jupyter-book)"
    if "ipykernel_launcher" in command:
        return "fresh kernel (nbval, papermill, kernel tests)"
    if XDIST_WORKER_MARK in command:
        worker = parent_command is not None and XDIST_WORKER_MARK not in parent_command
        return "test worker" if worker else "command forked by a test (tests/helpers/clirun.py)"
    if "chromium" in command.split(" ", 1)[0]:
        return "Chromium"
    if "playwright" in command:
        return "Playwright's driver"
    if " -m pytest" in command:
        return "pytest (the controller, or a suite a test runs)"
    words = command.split()
    if "-m" in words and words.index("-m") + 1 < len(words) and words[words.index("-m") + 1] == "claimbook":
        rest = words[words.index("-m") + 2 :]
        return f"claimbook {rest[0] if rest else ''}".strip()
    if any(Path(word).name == "claimbook" for word in words[:2]):
        return "claimbook (installed command)"
    if words and "python" in Path(words[0]).name:
        return "other Python"
    return "other (the system's threads and agents, git, shells)"


class ProcessSampler:
    """``with ProcessSampler() as sampler: ...``; then ``sampler.summary()``. With
    ``processes=False`` only the machine's totals are read (nothing runs beside the command)."""

    def __init__(self, interval: float = 0.1, processes: bool = True):
        self.interval = interval
        self.processes = processes
        # (pid, start tick): [command, ppid, CPU ticks when last seen, CPU ticks when first seen if
        # it ran before the sampling started, else 0]
        self.seen: dict[tuple[int, int], list] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._own = os.getpid()

    def __enter__(self) -> Self:
        self._machine_before = machine_ticks()
        if self.processes:
            self._sample(before=True)  # what the processes already running had used is not counted
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.processes:
            self._stop.set()
            self._thread.join()
            self._sample()
        busy, idle = machine_ticks()
        self.machine_busy = (busy - self._machine_before[0]) / TICKS
        self.machine_idle = (idle - self._machine_before[1]) / TICKS

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _sample(self, before: bool = False) -> None:
        for entry in os.scandir(PROC):
            if not entry.name.isdigit() or int(entry.name) == self._own:
                continue
            try:
                stat = (PROC / entry.name / "stat").read_text()
                after_name = stat[stat.rindex(")") + 2 :].split()
                ppid, ticks = int(after_name[1]), int(after_name[11]) + int(after_name[12])
                key = (int(entry.name), int(after_name[19]))
                if key in self.seen:
                    self.seen[key][2] = ticks
                    continue
                raw = (PROC / entry.name / "cmdline").read_bytes()
            except (OSError, ValueError, IndexError):  # it ended between the reads
                continue
            # The system's own threads have no command line: their name, as ps shows it.
            command = raw.replace(b"\0", b" ").decode(errors="replace").strip()
            command = command or f"[{stat[stat.index('(') + 1 : stat.rindex(')')]}]"
            self.seen[key] = [command, ppid, ticks, ticks if before else 0]

    def summary(self) -> dict:
        """CPU seconds and process counts by kind, largest first, with the machine's totals."""
        by_pid = {pid: record for (pid, _), record in self.seen.items()}
        totals: dict[str, list] = defaultdict(lambda: [0.0, 0])
        for command, ppid, ticks, earlier in self.seen.values():
            parent = by_pid.get(ppid)
            total = totals[kind(command, parent[0] if parent else None)]
            total[0] += (ticks - earlier) / TICKS
            total[1] += 1
        kinds = sorted(totals.items(), key=lambda item: -item[1][0])
        machine = {
            "machine_busy_cpu_s": round(self.machine_busy, 1),
            "machine_idle_cpu_s": round(self.machine_idle, 1),
        }
        if not self.processes:
            return machine
        return {
            **machine,
            "sampled_cpu_s": round(sum(cpu for cpu, _ in totals.values()), 1),
            "by_kind": [
                {"kind": name, "processes": count, "cpu_s": round(cpu, 1)}
                for name, (cpu, count) in kinds
                if cpu >= 0.05
            ],
        }
