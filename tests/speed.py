"""How fast this machine runs Python, for tests whose targets are absolute times.

Issue 11's linear-time target (100,000 items under 2 s) was set and met on one machine:
the 100,000-item cases took 1.36-1.43 s of CPU there. The same code takes 2.0-3.2 s on a
later CI machine (2 shared cores whose speed varies from minute to minute), which runs
:func:`calibration` in 0.30-0.45 s with the collector off; the reference figure below is
its fastest run divided by 1.65, the slowdown of the same cases between the two. A bound
scaled by :func:`machine_factor` holds the code to the same speed on every machine, and
never to less than the issue says.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable

#: :func:`calibration`'s CPU time on the machine where the targets were met (inferred as
#: the module's docstring says).
REFERENCE_SECONDS = 0.18


def calibration() -> int:
    """A fixed piece of the work those tests do: 100,000 small records built, written as
    JSON and read back (as many objects as a 100,000-item report, not a loop in cache)."""
    items = [
        {"path": f"agent-types/p{i}/profile.md", "line": i, "message": f"unknown key k{i}"}
        for i in range(100_000)
    ]
    text = json.dumps(items)
    return len(json.loads(text))


def machine_factor() -> float:
    """How many times slower than the reference machine this one runs the calibration
    now (the best of three, so a moment's load does not count); never below 1."""
    best = float("inf")
    # The collector's work depends on what the process already holds: left out.
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(3):
            start = time.process_time()
            calibration()
            best = min(best, time.process_time() - start)
    finally:
        if enabled:
            gc.enable()
    return max(1.0, best / REFERENCE_SECONDS)


def within_budget(
    measure: Callable[[], float], budget: float, attempts: int = 3
) -> tuple[float, float]:
    """``(seconds, bound)`` of the best of up to ``attempts`` runs of ``measure`` (CPU
    seconds), each judged against ``budget`` scaled by the machine's speed read just
    before and after that very run (the slower reading): a machine whose speed varies from
    minute to minute then slows the bound with the run. Stops at the first run within its
    bound; work that grows quadratically (seconds where the budget is one) fails every
    attempt."""
    best: tuple[float, float] | None = None
    for _ in range(attempts):
        before = machine_factor()
        seconds = measure()
        bound = budget * max(before, machine_factor())
        if best is None or seconds / bound < best[0] / best[1]:
            best = (seconds, bound)
        if seconds < bound:
            break
    assert best is not None
    return best
