"""``mcp_tool_catalog``: the last probe of each registry server (see
``tables.mcp_tool_catalog``)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from sqlalchemy import Connection, delete, select

from agent_roster.model.catalog import ProbedTool, ProbeResult
from agent_roster.store.common import upsert_writer
from agent_roster.store.tables import mcp_tool_catalog as t


class CatalogEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A stored probe result and the hash of the server definition it was made against."""

    result: ProbeResult
    server_hash: str
    probed_at: float


_COLUMNS = (
    "key",
    "name",
    "project",
    "server_hash",
    "ok",
    "tools",
    "error_code",
    "error",
    "server_info",
    "probed_at",
    "elapsed_ms",
)
_tools_encoder = msgspec.json.Encoder()
_tools_decoder = msgspec.json.Decoder(list[ProbedTool])


def _key(name: str, project: str | None) -> str:
    return f"{project}/{name}" if project else name


def save(conn: Connection, entries: Iterable[CatalogEntry]) -> None:
    """Insert or replace the entries (one row per server and scope)."""
    write = upsert_writer(conn, t, ["key"], [], _COLUMNS)
    write(
        [
            (
                _key(entry.result.server, entry.result.project),
                entry.result.server,
                entry.result.project,
                entry.server_hash,
                entry.result.ok,
                _tools_encoder.encode(list(entry.result.tools)).decode(),
                entry.result.error_code or "",
                entry.result.error or "",
                entry.result.server_info or "",
                entry.probed_at,
                entry.result.elapsed_ms,
            )
            for entry in entries
        ]
    )


def load_all(conn: Connection) -> dict[tuple[str, str | None], CatalogEntry]:
    """Every stored entry, keyed by (server name, project)."""
    entries: dict[tuple[str, str | None], CatalogEntry] = {}
    for row in conn.execute(select(*(t.c[name] for name in _COLUMNS[1:]))):
        name, project, server_hash, ok, tools, code, error, info, probed_at, elapsed = row
        result = ProbeResult(
            server=name,
            project=project,
            transport="",
            ok=bool(ok),
            tools=tuple(_tools_decoder.decode(tools)),
            error_code=code or None,
            error=error or None,
            server_info=info or None,
            elapsed_ms=elapsed,
        )
        entries[(name, project)] = CatalogEntry(
            result=result, server_hash=server_hash, probed_at=probed_at
        )
    return entries


def delete_others(conn: Connection, keep: Iterable[tuple[str, str | None]]) -> int:
    """Drop entries of servers no longer in the registry."""
    wanted = {_key(name, project) for name, project in keep}
    stale = [key for (key,) in conn.execute(select(t.c.key)) if key not in wanted]
    if not stale:
        return 0
    return conn.execute(delete(t).where(t.c.key.in_(stale))).rowcount
