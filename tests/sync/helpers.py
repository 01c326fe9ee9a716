"""Helpers for the sync tests: raw database snapshots, file edits, bounded waits."""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import select

from agent_roster.store import Store
from agent_roster.store import tables as t
from agent_roster.sync.engine import SyncReport

T = TypeVar("T")

CODING = "agent-types/coding/profile.md"
QA = "agent-types/qa/profile.md"
REVIEW = "agent-types/code-review/profile.md"
GITHUB = "mcp-servers/github.md"
WEBSHOP_CODING = "projects/webshop/agent-types/coding/profile.md"
WEBSHOP_POSTGRES = "projects/webshop/mcp-servers/postgres.md"


def rows(store: Store, table: str) -> dict[Any, dict[str, Any]]:
    """Every row of ``table`` exactly as stored (all columns), keyed by primary key."""
    tab = t.metadata.tables[table]
    key = next(iter(tab.primary_key.columns)).name
    with store.engine.connect() as conn:
        return {row[key]: dict(row) for row in (r._mapping for r in conn.execute(select(tab)))}


def snapshot(store: Store) -> dict[str, dict[Any, dict[str, Any]]]:
    """All synced state: profiles, servers, file bookkeeping and events."""
    return {
        name: rows(store, name)
        for name in ("agent_profiles", "mcp_servers", "sync_files", "sync_events")
    }


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in ``path`` (which must contain it)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def position(path: Path, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``needle`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def set_max_tokens(path: Path, value: int) -> None:
    text = path.read_text(encoding="utf-8")
    new, count = re.subn(r'("max_tokens_per_task": )\d+', rf"\g<1>{value}", text, count=1)
    assert count == 1, path
    path.write_text(new, encoding="utf-8")


def wait_for(condition: Callable[[], T], timeout: float, what: str) -> T:
    """Poll ``condition`` until it returns something truthy; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        pause.wait(0.02)


class Reports:
    """Reports a watcher hands to ``on_report``, read back with timeouts."""

    def __init__(self) -> None:
        self.queue: queue.Queue[SyncReport] = queue.Queue()
        self.seen: list[SyncReport] = []

    def put(self, report: SyncReport) -> None:
        self.queue.put(report)

    def next(self, timeout: float = 10) -> SyncReport:
        try:
            report = self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no sync report within {timeout} s") from None
        self.seen.append(report)
        return report

    def until(self, condition: Callable[[], object], timeout: float = 15) -> list[SyncReport]:
        """Read reports until ``condition()`` holds (checked after each report and
        before the first); returns the reports read."""
        deadline = time.monotonic() + timeout
        got: list[SyncReport] = []
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"condition not met within {timeout} s; reports: {got}")
            got.append(self.next(timeout=left))
        return got

    def drain(self) -> list[SyncReport]:
        """Reports already queued, without waiting."""
        got = []
        while True:
            try:
                got.append(self.queue.get_nowait())
            except queue.Empty:
                return got
