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
from agent_roster.vault.writer import atomic_write

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


def _write(path: Path, text: str, atomic: bool) -> None:
    if atomic:  # a hidden temp file renamed over the target: never seen half-written
        atomic_write(path, text)
    else:  # in place, as many editors save: a reader may catch it half-written
        path.write_text(text, encoding="utf-8")


def replace_in(path: Path, old: str, new: str, *, atomic: bool = False) -> None:
    """Replace the first ``old`` in ``path`` (which must contain it)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    _write(path, text.replace(old, new, 1), atomic)


def position(path: Path, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``needle`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def set_max_tokens(path: Path, value: int, *, atomic: bool = False) -> None:
    text = path.read_text(encoding="utf-8")
    new, count = re.subn(r'("max_tokens_per_task": )\d+', rf"\g<1>{value}", text, count=1)
    assert count == 1, path
    _write(path, new, atomic)


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
    """What a watcher hands over (sync reports, or batches), read back with timeouts."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Any] = queue.Queue()
        self.seen: list[Any] = []

    def put(self, item: Any) -> None:
        self.queue.put(item)

    def next(self, timeout: float = 30) -> Any:
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing reported within {timeout} s") from None
        self.seen.append(item)
        return item

    def until(self, condition: Callable[[], object], timeout: float = 45) -> list[Any]:
        """Read reports until ``condition()`` holds (checked before the first and after
        each); returns the reports read. The report that made it hold may still be queued:
        assert on counts with :meth:`next` instead."""
        deadline = time.monotonic() + timeout
        got: list[Any] = []
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"condition not met within {timeout} s; reports: {got}")
            got.append(self.next(timeout=left))
        return got

    def drain(self) -> list[Any]:
        """Reports already queued, without waiting."""
        got = []
        while True:
            try:
                got.append(self.queue.get_nowait())
            except queue.Empty:
                return got
