"""Helpers every benchmark shares: repeated timings and pinning to the idlest CPU."""

from __future__ import annotations

import gc
import math
import os
import statistics
import time
from collections.abc import Callable, Iterable
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
