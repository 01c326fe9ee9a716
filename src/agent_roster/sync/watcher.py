"""Watching the vault with inotify (via watchfiles) and handing settled batches to sync.

STYLE habit 10: the file-system callback only records what changed; one loop waits until
changes settle (``settle_ms`` without a new event), then hands one batch to the sync, and a
failing sync is reported and the loop goes on. Editors save in many ways (write a temp file
and rename it, keep ``.swp``/``~``/``.#`` files, touch ``.obsidian/``), so everything hidden or
temporary is ignored and only paths the vault layout gives meaning to reach the sync. A change
to a folder (a profile folder renamed, a project deleted) asks for a full rescan, which the
stat fast path keeps cheap. If the vault folder itself disappears, the watcher waits for it to
come back and then asks for a full rescan.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

import watchfiles

from agent_roster.vault.paths import (
    AGENT_TYPES,
    CONFIG_FILE,
    MCP_SERVERS,
    PROFILE_FILE,
    PROJECTS,
    classify,
)

log = logging.getLogger(__name__)

_RETRY_FIRST_S = 0.5
_RETRY_MAX_S = 30.0
_TEMP_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".bak", ".part", ".crdownload", "~")


class ChangeBatch(NamedTuple):
    """Vault-relative paths that changed, or ``full_rescan`` when that is not enough."""

    paths: frozenset[str]
    full_rescan: bool


def is_noise(rel_path: str) -> bool:
    """True for editor and temporary files that never carry vault content."""
    parts = rel_path.split("/")
    name = parts[-1]
    if any(part.startswith(".") for part in parts):
        return True  # .obsidian/, .git/, .roster/, vim's .file.swp, our own .tmp files
    if name.startswith(("#", ".#")) or name == "4913":  # emacs autosaves, vim's probe file
        return True
    return name.endswith(_TEMP_SUFFIXES)


def _is_layout_folder(rel_path: str) -> bool:
    """True for a layout folder, or for a path in one that the vault scan reports rather
    than loads (a stray file, an unsafe name, issue 12 item 6): only a full rescan says what
    either means. Deeper paths (memory notes) never are."""
    parts = rel_path.split("/")
    if parts[0] == PROJECTS:
        parts = parts[2:] if len(parts) > 2 else []
        if not parts:
            return True  # projects/ or projects/<pid> itself
    if not parts:
        return True
    if parts[0] == AGENT_TYPES:
        return len(parts) <= 2 or (len(parts) == 3 and parts[2] == PROFILE_FILE)
    if parts[0] == MCP_SERVERS:
        return len(parts) <= 2
    return parts == [PROFILE_FILE]


def classify_changes(root: Path, paths: Iterable[str]) -> ChangeBatch | None:
    """Turn absolute changed paths into a batch, or None when nothing relevant changed."""
    relevant: set[str] = set()
    full = False
    prefix = str(root) + os.sep
    for path in paths:
        if path == str(root):
            full = True
            continue
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix) :].replace(os.sep, "/")
        if is_noise(rel):
            continue
        if classify(rel) is not None or rel == CONFIG_FILE:
            # roster.toml is for the caller to read again (roster up does); sync skips it.
            relevant.add(rel)
        elif _is_layout_folder(rel):
            full = True
    if not relevant and not full:
        return None
    return ChangeBatch(frozenset(relevant), full)


class VaultWatcher:
    """Runs until ``stop`` is set, calling ``on_batch`` once per settled batch.

    Each time a watch is (re-)established (at start, and after the vault folder came back)
    ``on_batch`` first gets a full rescan, then ``on_ready`` is called, which tests and the
    daemon use to know that everything on disk so far is synced and no later event can be
    missed."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        on_batch: Callable[[ChangeBatch], None],
        *,
        settle_ms: int = 15,
        stop: threading.Event | None = None,
        on_ready: Callable[[], None] | None = None,
        reappear_poll_s: float = 0.1,
    ) -> None:
        self.root = Path(root).absolute()
        self.on_batch = on_batch
        self.settle_ms = settle_ms
        self.stop = stop or threading.Event()
        self.on_ready = on_ready
        self.reappear_poll_s = reappear_poll_s
        self.batches = 0
        self.failures = 0
        # After a failed sync its paths are lost from the batch, so the next delivery is a
        # full rescan: with the next change, or on its own after a growing delay.
        self._retry_at: float | None = None
        self._retry_delay = _RETRY_FIRST_S

    def run(self) -> None:
        while not self.stop.is_set():
            if not self.root.is_dir():
                log.warning("vault %s is gone; waiting for it to come back", self.root)
                while not self.root.is_dir():
                    if self.stop.wait(self.reappear_poll_s):
                        return
            self._watch_until_gone()

    def _root_id(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.root)
        except OSError:
            return None
        return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None

    def _watch_until_gone(self) -> None:
        live = False
        # inotify watches the folder, not the path: a vault deleted and created again is a
        # new folder that this watch no longer sees. Its deletion event says so; comparing
        # identities catches the rest (the inode number alone may be reused at once).
        root_id = self._root_id()
        root = str(self.root)
        if root_id is None:
            return
        try:
            for changes in watchfiles.watch(
                self.root,
                step=self.settle_ms,
                debounce=1_000,
                stop_event=self.stop,
                yield_on_timeout=True,
                rust_timeout=200,
                # Ctrl-C must end the watch: with raise_interrupt=False watchfiles swallows it
                # and returns, and run() would simply watch again. (Only the main thread
                # sees signals, so a watcher in a background thread is unaffected.)
                raise_interrupt=True,
                ignore_permission_denied=True,
            ):
                if self._root_id() != root_id or any(
                    path == root and change is not watchfiles.Change.modified
                    for change, path in changes
                ):
                    return
                if not live:
                    # watchfiles creates its inotify watches when the generator first runs,
                    # so only its first yield proves the watch is live. From here on no
                    # change is missed; a full rescan catches whatever happened before
                    # (including during a start or while the vault was gone), and only
                    # then is the watcher ready.
                    live = True
                    self._deliver(ChangeBatch(frozenset(), True))
                    if self.on_ready is not None:
                        self.on_ready()
                    continue
                batch = classify_changes(self.root, (p for _, p in changes)) if changes else None
                if self._retry_at is not None and (
                    batch is not None or time.monotonic() >= self._retry_at
                ):
                    batch = ChangeBatch(frozenset(), True)
                if batch is not None:
                    self._deliver(batch)
        except FileNotFoundError:
            return

    def _deliver(self, batch: ChangeBatch) -> None:
        started = time.perf_counter()
        try:
            self.on_batch(batch)
        except Exception:  # a failing sync must not stop the watcher
            self.failures += 1
            log.exception(
                "sync of %d changed paths failed; still watching, full rescan in "
                "%.1f s or with the next change",
                len(batch.paths),
                self._retry_delay,
            )
            self._retry_at = time.monotonic() + self._retry_delay
            self._retry_delay = min(self._retry_delay * 2, _RETRY_MAX_S)
        else:
            self.batches += 1
            self._retry_at = None
            self._retry_delay = _RETRY_FIRST_S
            log.debug(
                "synced %d paths in %.1f ms",
                len(batch.paths),
                (time.perf_counter() - started) * 1000,
            )
