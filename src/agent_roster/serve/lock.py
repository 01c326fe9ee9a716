"""The daemon's lock file, ``.roster/roster-up.lock`` beside the database: one ``roster up``
per vault. The daemon holds an exclusive ``flock`` on it for as long as it runs and writes
its address into it; :mod:`agent_roster.resolve.attach` reads it for launches. The kernel
drops the lock when the process ends, however it ends, so a crashed daemon never blocks the
next one. Also the daemon's own token for listening beyond loopback.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from pathlib import Path
from typing import IO

import msgspec

from agent_roster.errors import UsageError
from agent_roster.resolve.attach import LOCK_FILE, Running, decode_running
from agent_roster.vault.paths import state_dir

__all__ = ["LOCK_FILE", "TOKEN_FILE", "Running", "VaultLock", "daemon_token", "state_dir"]

TOKEN_FILE = "daemon.token"  # noqa: S105 - a file name, not a secret


class VaultLock:
    """The exclusive ``flock`` on ``<folder>/roster-up.lock``, held while the daemon runs."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_FILE
        self._file: IO[str] | None = None

    def acquire(self, running: Running) -> None:
        """Take the lock and write ``running`` into the file; a :class:`UsageError` saying
        where the other daemon runs when one holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held while running
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            other = decode_running(handle.read())
            handle.close()
            where = f" (pid {other.pid}) at {other.url}" if other else ""
            raise UsageError(
                f"roster up is already running for this vault{where}",
                hint="stop it first (Ctrl-C or SIGTERM), or use the running one",
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(msgspec.json.encode(running).decode())
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.truncate(0)
            self._file.close()
            self._file = None


def daemon_token(folder: Path) -> str:
    """The daemon's own token, made once and kept 0600 beside the database; needed by every
    request when the daemon listens beyond loopback."""
    path = folder / TOKEN_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made meanwhile by another process: use that one
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token
