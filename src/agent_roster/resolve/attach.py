"""Launches attach the running daemon's embedded MCP server (issue 14 item 3).

While ``roster up`` runs for a vault it holds an exclusive ``flock`` on
``.roster/roster-up.lock`` beside the database and keeps its address in that file
(:class:`Running`; ``serve/lock.py`` writes it). The kernel drops the lock when the process
ends, however it ends, so :func:`running` believes the file only while the lock is held: a
crashed daemon's address is never taken for a live one.

:func:`find` gives every claude_sdk launch built for the vault (``roster resolve``, ``roster
run``, the resolve command on any surface) the daemon's MCP endpoint and the vault's launch
key, and ``launch.py`` attaches the server there with a token bound to the launch's task and
profile (:mod:`.tokens`). When no daemon runs, the spec says so in its notes.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import NamedTuple

import msgspec

from agent_roster.resolve import tokens
from agent_roster.resolve.cascade import Resolution

LOCK_FILE = "roster-up.lock"


class Running(msgspec.Struct, frozen=True, kw_only=True):
    """What the lock file says about the daemon holding it. ``url`` is where it can be
    reached from this machine (a daemon bound to every interface is reached on loopback)."""

    pid: int
    url: str
    vault: str

    @property
    def mcp_url(self) -> str:
        """The embedded MCP server's streamable HTTP endpoint."""
        return f"{self.url}/mcp"


def decode_running(text: str) -> Running | None:
    try:
        return msgspec.json.decode(text, type=Running)
    except msgspec.DecodeError:
        return None  # the daemon is between taking the lock and writing its address


def running(folder: Path) -> Running | None:
    """The daemon serving the vault whose state folder is ``folder``, or ``None`` when no
    ``roster up`` holds the lock (a left-over file of a stopped one says nothing)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            # A shared lock we can take means nobody holds the exclusive one.
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return decode_running(os.read(fd, 4096).decode("utf-8", "replace"))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class Attachment(NamedTuple):
    """A running daemon as a launch reaches it: its MCP endpoint and the vault's launch
    key (to mint each launch's token)."""

    mcp_url: str
    key: bytes

    def token(self, resolution: Resolution) -> str:
        """A token naming the resolution's profile (``""``: the system default of
        roster.toml), project and task."""
        return tokens.mint(
            self.key,
            resolution.profile_id or "",
            project=resolution.project,
            task=resolution.task,
        )


def find(folder: Path) -> Attachment | None:
    """The ``roster up`` serving the vault whose state folder (``.roster``) is ``folder``,
    or ``None`` when none runs."""
    daemon = running(folder)
    if daemon is None:
        return None
    return Attachment(daemon.mcp_url, tokens.launch_key(folder))
