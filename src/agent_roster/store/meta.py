"""``store_meta``: the vault a database belongs to (issue 13 item 2)."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Connection, delete, insert, select

from agent_roster.store.tables import store_meta as t

_PATH, _ID, _AT = "vault.path", "vault.id", "vault.bound_at"


class VaultBinding(NamedTuple):
    """The vault a database belongs to: its real path when it was last synced, its id (the
    content of its ``.roster-vault-id``) and when the database was bound to it."""

    path: str
    vault_id: str
    bound_at: float


def binding(conn: Connection) -> VaultBinding | None:
    """The database's vault, or ``None`` when no sync has bound it yet."""
    values = {key: value for key, value in conn.execute(select(t.c.key, t.c.value))}
    if _PATH not in values:
        return None
    return VaultBinding(values[_PATH], values.get(_ID, ""), float(values.get(_AT, "0") or 0))


def bind(conn: Connection, found: VaultBinding) -> None:
    """Record ``found`` as the database's vault (replacing any other)."""
    conn.execute(delete(t).where(t.c.key.in_((_PATH, _ID, _AT))))
    conn.execute(
        insert(t),
        [
            {"key": _PATH, "value": found.path},
            {"key": _ID, "value": found.vault_id},
            {"key": _AT, "value": repr(found.bound_at)},
        ],
    )
