"""A database belongs to one vault (issue 13 item 2).

Seen on main: syncing a second vault into a database marked every row of the first one
deleted, without a word. Now the database records the vault it belongs to (``store_meta``):
the vault's real path and its id, a random id kept in the vault's ``.roster-vault-id``
(hidden, so neither the layout nor the watcher sees it; it travels with the vault when the
vault is moved, cloned or synced to another machine, where the real path differs).

A sync is accepted when

* the database belongs to no vault yet (a new database, or one from before this rule): it
  is bound to this vault;
* the vault's id is the database's: the same vault. When its real path changed and the old
  path no longer holds that vault, it was moved, and the new path is recorded; when the old
  path still holds a vault with the same id, this is a copy, and is refused;
* the vault has no id file, at the very path the database recorded: the file was lost, and
  is written again with the recorded id.

Anything else is refused with a ``vault-mismatch`` error naming both vaults; ``roster sync
--rebind`` binds the database to this vault on purpose (then the sync marks the other
vault's rows deleted, as any removed file). Read-only commands check the binding the same
way and never write it.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import NamedTuple

from agent_roster.errors import VaultMismatchError
from agent_roster.store import meta
from agent_roster.store.facade import Store
from agent_roster.store.meta import VaultBinding
from agent_roster.vault.guard import exists_in_vault, read_in_vault
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.writer import write_in_vault

#: The file at the vault's root that holds its id.
VAULT_ID_FILE = ".roster-vault-id"
_HEADER = (
    "# Agent Roster: this vault's id. A database synced from the vault records it, so that\n"
    "# another vault is never synced into it by mistake. Keep the file with the vault.\n"
)


class Bound(NamedTuple):
    """What binding did: the vault the database belonged to before, when it changed."""

    #: The real path the database belonged to before a ``--rebind``, or a move.
    previous: str | None = None
    moved: bool = False
    rebound: bool = False

    @property
    def note(self) -> str:
        """One line for the sync's report, or ``""`` when nothing changed."""
        if self.moved:
            return f"the vault moved from {self.previous}; the database follows it"
        if self.rebound and self.previous:
            return (
                f"the database belonged to the vault at {self.previous}; it belongs to this "
                "vault now, and the other vault's rows are marked deleted"
            )
        return ""


def vault_id(layout: VaultLayout) -> str | None:
    """The id in the vault's ``.roster-vault-id`` (``None``: no such file, or no id in it)."""
    path = layout.root / VAULT_ID_FILE
    if not exists_in_vault(layout, path):
        return None
    text = read_in_vault(layout, path).decode("utf-8", "replace")
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return None


def _write_id(layout: VaultLayout, ident: str, *, overwrite: bool = False) -> str:
    """Write ``ident`` as the vault's id; without ``overwrite``, a file another process
    wrote meanwhile wins, and its id is returned."""
    path = layout.root / VAULT_ID_FILE
    if write_in_vault(layout, path, f"{_HEADER}{ident}\n", overwrite=overwrite):
        return ident
    return vault_id(layout) or _write_id(layout, ident, overwrite=True)


def real_path(layout: VaultLayout) -> str:
    return os.path.realpath(layout.root)


def bind(store: Store, layout: VaultLayout, *, rebind: bool = False) -> Bound:
    """Check that ``store`` belongs to the vault at ``layout`` (binding a database that
    belongs to none); raises VaultMismatchError otherwise, unless ``rebind``."""
    here = real_path(layout)
    ident = vault_id(layout)
    with store.transaction() as conn:
        bound = meta.binding(conn)
        if bound is None or rebind:
            ident = ident or _write_id(layout, uuid.uuid4().hex)
            meta.bind(conn, VaultBinding(here, ident, time.time()))
            previous = bound.path if bound is not None and bound.path != here else None
            return Bound(previous=previous, rebound=rebind and bound is not None)
        problem = _mismatch(bound, here, ident)
        if problem is not None:
            raise problem
        if ident is None:  # the id file was lost, at the very path recorded: put it back
            _write_id(layout, bound.vault_id)
            return Bound()
        if bound.path != here:  # the same vault, moved: record where it is now
            meta.bind(conn, VaultBinding(here, bound.vault_id, bound.bound_at))
            return Bound(previous=bound.path, moved=True)
    return Bound()


def check(store: Store, layout: VaultLayout) -> None:
    """Read-only commands: raise VaultMismatchError when ``store`` belongs to another vault
    (a database no sync has bound yet is taken as this vault's); writes nothing."""
    with store.engine.connect() as conn:
        bound = meta.binding(conn)
    if bound is None:
        return
    problem = _mismatch(bound, real_path(layout), vault_id(layout))
    if problem is not None:
        raise problem


def _mismatch(bound: VaultBinding, here: str, ident: str | None) -> VaultMismatchError | None:
    if ident is not None and ident == bound.vault_id:
        if bound.path == here or not _holds(bound.path, ident):
            return None
        why = f"another vault with the same id is still at {bound.path} (a copy of it?)"
    elif ident is None and bound.path == here:
        return None
    elif ident is None:
        why = f"it belongs to the vault at {bound.path}, and {here} has no {VAULT_ID_FILE}"
    else:
        why = f"it belongs to the vault at {bound.path} (id {bound.vault_id}), not this one"
    return VaultMismatchError(
        f"this database does not belong to the vault at {here}: {why}",
        hint="give this vault its own database (--db URL or $ROSTER_DB), or move the "
        "database to this vault on purpose with 'roster sync --rebind' (the other "
        "vault's rows are then marked deleted)",
    )


def _holds(path: str, ident: str) -> bool:
    """Whether the folder at ``path`` is a vault with id ``ident`` (read directly: it is
    not the vault being synced)."""
    try:
        text = (Path(path) / VAULT_ID_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return ident in (line.strip() for line in text.splitlines())
