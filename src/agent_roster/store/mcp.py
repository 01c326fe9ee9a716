"""The synced copy of the MCP server registry (``mcp-servers/<name>.md`` files).

Rows are keyed like profiles: ``name`` for system scope, ``<project>/<name>`` for project
scope (a project entry shadows the system entry of the same name at resolution time).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import Connection, delete, select, update
from sqlalchemy.sql.elements import ColumnElement

from agent_roster.model import McpServer
from agent_roster.store.common import batched, bulk_upsert, dumps, loads, ordered, scoped_key
from agent_roster.store.tables import mcp_servers as t

_PLAIN = ("name", "project", "command", "url", "description", "notes", "builtin")
_JSON = ("args", "env", "headers")


class SyncedMcpServer(NamedTuple):
    """A registry entry parsed from the vault, with the hash of its file's content."""

    server: McpServer
    content_hash: str = ""


class McpServerState(NamedTuple):
    """Sync bookkeeping of one stored registry entry."""

    name: str
    project: str | None
    source_path: str
    content_hash: str
    present: bool
    last_synced_at: float | None


def server_to_row(
    server: McpServer, *, at: float, content_hash: str = "", synced_at: float | None = None
) -> dict[str, Any]:
    """The full column mapping for ``server``."""
    row: dict[str, Any] = {name: getattr(server, name) for name in _PLAIN}
    for name in _JSON:
        row[name] = dumps(getattr(server, name))
    row["key"] = scoped_key(server.name, server.project, "server name")
    row["transport"] = server.transport.value
    row["source_path"] = server.source
    row["content_hash"] = content_hash
    row["present"] = True
    row["created_at"] = row["updated_at"] = at
    row["last_synced_at"] = synced_at
    return row


def row_to_server(row: Mapping[Any, Any]) -> McpServer:
    """The registry entry a row holds."""
    data: dict[str, Any] = {name: row[name] for name in _PLAIN}
    for name in _JSON:
        data[name] = loads(row[name])
    data["transport"] = row["transport"]
    data["source"] = row["source_path"]
    return msgspec.convert({k: v for k, v in data.items() if v is not None}, McpServer)


def _scope(project: str | None) -> ColumnElement[bool]:
    return t.c.project.is_(None) if project is None else t.c.project == project


def upsert_many(
    conn: Connection,
    items: Iterable[McpServer | SyncedMcpServer],
    *,
    at: float,
    synced_at: float | None,
) -> int:
    """Insert or replace entries in batches, marking them present; keeps ``created_at``."""
    write = bulk_upsert(conn, t, ["key"], keep=["created_at"])
    written = 0
    for batch in batched(items):
        rows = []
        for item in batch:
            server, content_hash = (item, "") if isinstance(item, McpServer) else item
            rows.append(
                server_to_row(server, at=at, content_hash=content_hash, synced_at=synced_at)
            )
        write(rows)
        written += len(rows)
    return written


def get(
    conn: Connection, name: str, project: str | None, *, include_missing: bool = False
) -> McpServer | None:
    """The entry ``name`` in exactly ``project``'s scope (``None``: system), or ``None``."""
    query = select(t).where(t.c.key == scoped_key(name, project, "server name"))
    if not include_missing:
        query = query.where(t.c.present)
    row = conn.execute(query).first()
    return None if row is None else row_to_server(row._mapping)


def list_(
    conn: Connection, project: str | None, *, include_missing: bool = False
) -> list[McpServer]:
    """The entries of one scope, sorted by name."""
    query = select(t).where(_scope(project)).order_by(ordered(conn, t.c.name))
    if not include_missing:
        query = query.where(t.c.present)
    return [row_to_server(row._mapping) for row in conn.execute(query)]


def list_all(conn: Connection) -> list[McpServer]:
    """Every present entry of every scope."""
    return [row_to_server(row._mapping) for row in conn.execute(select(t).where(t.c.present))]


def set_present(conn: Connection, keys: Iterable[tuple[str, str | None]], present: bool) -> int:
    """Mark the entries named by ``(name, project)`` present or missing; returns how many
    rows changed."""
    changed = 0
    for batch in batched(scoped_key(n, p, "server name") for n, p in keys):
        result = conn.execute(
            update(t).where(t.c.key.in_(batch), t.c.present != present).values(present=present)
        )
        changed += result.rowcount
    return changed


def delete_one(conn: Connection, name: str, project: str | None) -> bool:
    """Delete one entry; True if it existed."""
    key = scoped_key(name, project, "server name")
    return conn.execute(delete(t).where(t.c.key == key)).rowcount > 0


def prune_missing(conn: Connection) -> list[tuple[str, str | None]]:
    """Delete every entry marked missing; returns the ``(name, project)`` pairs deleted."""
    rows = conn.execute(
        select(t.c.key, t.c.name, t.c.project).where(~t.c.present).order_by(ordered(conn, t.c.key))
    ).all()
    for batch in batched([r.key for r in rows]):
        conn.execute(delete(t).where(t.c.key.in_(batch)))
    return [(r.name, r.project) for r in rows]


def states(conn: Connection) -> list[McpServerState]:
    """Sync bookkeeping of every entry, in every scope."""
    query = select(
        t.c.name, t.c.project, t.c.source_path, t.c.content_hash, t.c.present, t.c.last_synced_at
    ).order_by(ordered(conn, t.c.key))
    return [McpServerState(*row) for row in conn.execute(query)]
