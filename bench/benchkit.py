"""Helpers every benchmark shares: repeated timings and pinning to the idlest CPU."""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from functools import cache
from typing import NamedTuple


class Timing(NamedTuple):
    """One measurement's label and its repeated runs, in seconds."""

    label: str
    runs: list[float]

    @property
    def best(self) -> float:
        return min(self.runs) if self.runs else math.nan

    @property
    def median(self) -> float:
        return statistics.median(self.runs) if self.runs else math.nan


@cache  # a bench measures several shapes: node is asked once
def machine() -> dict[str, str | int]:
    """What a result depends on besides the code: the CPU model and count, and the Python and
    Node.js that run the two sides. A ratio against rulesync moves with the machine: the same
    code measured 11x on one 2-CPU machine and 4x on another, where rulesync ran 2.5x faster
    and roster no faster. So a figure is read with the machine it came from."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(
                (line.partition(":")[2].strip() for line in info if line.startswith("model name")),
                "",
            )
    except OSError:
        pass
    try:
        node = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        node = ""
    return {
        "cpu": model or platform.processor() or platform.machine(),
        "cpus": os.cpu_count() or 0,
        "python": platform.python_version(),
        "node": node or "not found",
    }


def machine_line(found: dict[str, str | int]) -> str:
    """:func:`machine` as one line of a bench's header."""
    return (
        f"machine: {found['cpus']} x {found['cpu']}; python {found['python']}, node {found['node']}"
    )


def timed(fn: Callable[[], object]) -> float:
    """Seconds for one call, after a full collection so earlier garbage is not billed."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _cpu_idle_ticks() -> dict[int, int]:
    """Idle + iowait ticks per CPU from ``/proc/stat`` (empty where unavailable)."""
    ticks: dict[int, int] = {}
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            for line in handle:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit():
                    ticks[int(name[3:])] = int(fields[3]) + int(fields[4])
    except (OSError, ValueError, IndexError):
        return {}
    return ticks


def idlest_cpu(allowed: Iterable[int]) -> int:
    """The CPU among ``allowed`` that was idlest over a quarter of a second, so a busy
    neighbour (another test run on a shared machine) does not sit on the same core."""
    cpus = sorted(allowed)
    before = _cpu_idle_ticks()
    time.sleep(0.25)
    after = _cpu_idle_ticks()
    idle = {cpu: after.get(cpu, 0) - before.get(cpu, 0) for cpu in cpus}
    return max(cpus, key=lambda c: (idle[c], -c))


def pin_one_core() -> int | None:
    """Pin this process to the idlest allowed CPU; None where unsupported."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = idlest_cpu(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def _status_kib(pid: int, field: str) -> int:
    """A ``kB`` field of ``/proc/<pid>/status`` (0 once the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it, from ``/proc/<pid>/task/*/children``."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    todo.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return found


class TreeRss:
    """Samples the summed resident size (``VmRSS``) of a process and its descendants in a
    background thread, keeping the peak, and the process's own peak (its ``VmHWM``,
    :attr:`root_peak_kib`). ``ru_maxrss`` covers one process only (a reaped child's figure
    replaces, never adds to, its parent's), so a parent that parses in worker processes
    needs this. Pages the workers share with the parent copy-on-write count once per
    process, so the sum errs high.

    Start it once ``pid`` has exec'd (``subprocess.Popen`` returns only then). Do not take
    an exec'd child's own peak from ``ru_maxrss`` (``os.wait4``): Linux carries the peak of
    the memory it replaced at exec into it, so a child of a 600 MB process reports at least
    600 MB even when it is ``/bin/true``. ``VmHWM`` belongs to the memory the program got at
    exec; sampled until the end, it is the program's own peak (to within one interval)."""

    def __init__(self, pid: int, interval: float = 0.005) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self.root_peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = _descendants(self.pid)
            self.peak_kib = max(self.peak_kib, sum(_status_kib(p, "VmRSS") for p in pids))
            self.root_peak_kib = max(self.root_peak_kib, _status_kib(self.pid, "VmHWM"))
            self._stop.wait(self.interval)

    def stop(self) -> int:
        """Stop sampling; the peak in KiB."""
        self._stop.set()
        self._thread.join()
        return self.peak_kib
