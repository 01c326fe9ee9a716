"""What every write command shares (seed 000 §3: writes go through the file).

A write changes the markdown, never the database: a create renders a new file, an edit
patches the touched span in place (:mod:`agent_roster.vault.patch`), a delete removes the
file. Every edit and delete carries the ``content_hash`` the caller read (``base_hash``); a
file that changed since is refused with a :class:`ConflictError`, never overwritten. After
the write the database is brought in step and the result says whether it was
(``synced``): in the daemon the watcher syncs the file and the command waits for it; run
alone, the command syncs the vault itself.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

from msgspec import Meta

from agent_roster.commands.context import RosterContext
from agent_roster.errors import ConflictError, NotFoundError
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.paths import EntryKind, VaultLayout, classify
from agent_roster.vault.writer import content_hash

BaseHash = Annotated[
    str,
    Meta(
        description="content_hash of the file as last read; "
        "a file changed since is refused as a conflict"
    ),
]
Wait = Annotated[bool, Meta(description="wait until the database has synced the change")]
AllowLiteralSecret = Annotated[
    bool,
    Meta(
        description="write a secret's value (a token, a key) into the vault as given; "
        "refused by default: write a ${VAR} reference instead"
    ),
]

#: How long a write waits for the daemon's watcher to sync it.
SYNC_WAIT_SECONDS = 5.0


def current_hash(layout: VaultLayout, path: Path) -> str:
    """The ``content_hash`` of a vault file as it is now (read through the vault guard)."""
    try:
        return content_hash(read_in_vault(layout, path))
    except FileNotFoundError:
        raise NotFoundError(f"{layout.relative(path)} does not exist") from None


def check_base(layout: VaultLayout, path: Path, raw: bytes, base_hash: str, verb: str) -> None:
    """Refuse a write based on another version of ``path`` than ``raw`` (its bytes now)."""
    if content_hash(raw) != base_hash:
        raise ConflictError(
            f"{layout.relative(path)} changed since it was read; nothing was {verb}",
            hint="read it again and retry with its current content_hash",
        )


def synced(ctx: RosterContext, path: Path, digest: str | None, wait: bool) -> bool:
    """Bring the database in step with a write of ``path`` (``digest``: its new content
    hash; ``None``: the file was deleted). In the daemon, wait (when ``wait``) for its
    watcher; run alone, sync the vault here. True when the database holds the change."""
    return synced_all(ctx, [(path, digest)], wait)


def _left_index(ctx: RosterContext, path: Path, timeout: float) -> bool:
    """Wait until the daemon's index no longer holds what the deleted ``path`` defined (the
    watcher removes it when it syncs the deletion)."""
    assert ctx.live is not None
    entry = classify(ctx.layout.relative(path))
    if entry is None:
        return True
    deadline = time.monotonic() + timeout
    while True:
        index = ctx.live.index()
        if entry.kind is EntryKind.PROFILE:
            held = (
                entry.id in index.system
                if entry.project is None
                else (entry.project, entry.id) in index.overrides
            )
        else:
            held = (entry.project, entry.id) in index.servers
        if not held:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def synced_all(ctx: RosterContext, written: list[tuple[Path, str | None]], wait: bool) -> bool:
    """:func:`synced` for several files at once (one sync when run alone)."""
    if not written:
        return True
    if ctx.live is not None:
        if not wait:
            return False
        deadline = time.monotonic() + SYNC_WAIT_SECONDS
        for path, digest in written:
            left = max(0.0, deadline - time.monotonic())
            if digest is None:
                if not _left_index(ctx, path, left):
                    return False
            elif not ctx.live.wait_synced(path, digest, left):
                return False
        return True
    from agent_roster.sync.engine import SyncEngine

    store = ctx.store()
    embedded = ctx.config().embedded
    SyncEngine(store, ctx.vault, embedded=embedded.name, commands=embedded.commands).sync()
    states = [(s.source_path, s.content_hash, s.present) for s in store.profile_states()]
    states += [(s.source_path, s.content_hash, s.present) for s in store.mcp_server_states()]
    for path, digest in written:
        rel = ctx.layout.relative(path)
        if digest is None:
            if any(p == rel and present for p, _, present in states):
                return False
        elif not any(p == rel and h == digest and present for p, h, present in states):
            return False
    return True
