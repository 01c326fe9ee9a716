"""``probe_mcp_server`` and ``list_mcp_tool_catalog`` (seed 001 "MCP Server Registry",
issue 15 item 6).

A probe asks registry servers, over their own transport, which tools they offer
(:mod:`agent_roster.probe.client`) and keeps the answer in the database's tool catalog,
together with the hash of the server definition it asked. The catalog is what validation
checks ``mcp__<server>__<tool>`` names against: an entry whose registry file has changed
since is stale and is probed again the next time the catalog is asked for. The embedded
server is never probed: its tools are the command layer's, known in-process.

Probing starts the servers' commands: only the commands of the vault's own registry files,
never anything a request names.
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from agent_roster.commands.context import RosterContext
from agent_roster.diagnostics import did_you_mean
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.model.catalog import ProbedTool, ProbeResult
from agent_roster.model.mcp import McpServer
from agent_roster.probe.client import DEFAULT_TIMEOUT, probe_many
from agent_roster.store.catalog import CatalogEntry
from agent_roster.vault.paths import check_segment

ProjectId = Annotated[
    str | None,
    Meta(description="project id: its registry entries shadow system ones of the same name"),
]
Timeout = Annotated[float, Meta(gt=0, le=300, description="seconds each probe may take")]

#: A catalog entry's state: probed against the current definition, probed against an older
#: one, never probed, or the embedded server (known in-process).
Freshness = Literal["fresh", "stale", "unprobed", "embedded"]


class ProbeParams(msgspec.Struct, frozen=True, kw_only=True):
    name: Annotated[
        str | None, Meta(description="registry server to probe; all active ones when left out")
    ] = None
    project: ProjectId = None
    timeout: Timeout = DEFAULT_TIMEOUT


class ProbeReport(msgspec.Struct, frozen=True, kw_only=True):
    """One result per server probed; failures are results (``ok: false``), never errors."""

    results: list[ProbeResult]


class CatalogParams(msgspec.Struct, frozen=True, kw_only=True):
    project: ProjectId = None
    refresh: Annotated[bool, Meta(description="probe every server again")] = False
    cached: Annotated[
        bool, Meta(description="never probe: report stale and unprobed servers as they are")
    ] = False
    timeout: Timeout = DEFAULT_TIMEOUT


class CatalogServer(msgspec.Struct, frozen=True, kw_only=True):
    """The tools one server offers, as last probed."""

    server: str
    project: str | None
    status: Freshness
    ok: bool
    tools: list[ProbedTool]
    error_code: str | None = None
    error: str | None = None
    probed_at: float | None = None


class Catalog(msgspec.Struct, frozen=True, kw_only=True):
    """Every active registry server of the scope and its tools."""

    project: str | None
    servers: list[CatalogServer]


def probe_mcp_server(ctx: RosterContext, params: ProbeParams) -> ProbeReport:
    """Connect to registry MCP servers and list their tools; the answers update the catalog."""
    servers = _active_servers(ctx, params.project)
    if params.name is not None:
        check_segment(params.name, "server name")
        chosen = [server for server in servers if server.name == params.name]
        if not chosen and params.name != ctx.config().embedded.name:
            raise NotFoundError(
                f"no MCP server {params.name!r} in the registry",
                hint=did_you_mean(params.name, [s.name for s in servers])
                or "'roster mcp list' shows the registry",
            )
        servers = chosen
    results = _probe_and_store(ctx, servers, params.timeout)
    if params.name is None or params.name == ctx.config().embedded.name:
        results.insert(0, _embedded_result(ctx))
    return ProbeReport(results=results)


def list_mcp_tool_catalog(ctx: RosterContext, params: CatalogParams) -> Catalog:
    """The tools each registry server offers, probing servers not probed since they changed."""
    servers = _active_servers(ctx, params.project)
    stored = ctx.store().tool_catalog()
    hashes = {server.name: server_hash(server) for server in servers}
    to_probe = [
        server
        for server in servers
        if params.refresh or _freshness(stored, server, hashes[server.name]) != "fresh"
    ]
    if to_probe and not params.cached:
        _probe_and_store(ctx, to_probe, params.timeout)
        stored = ctx.store().tool_catalog()
    embedded = _embedded_result(ctx)
    rows = [
        CatalogServer(
            server=embedded.server,
            project=None,
            status="embedded",
            ok=True,
            tools=list(embedded.tools),
        )
    ]
    for server in servers:
        entry = stored.get((server.name, server.project))
        status = _freshness(stored, server, hashes[server.name])
        if entry is None:
            rows.append(
                CatalogServer(
                    server=server.name, project=server.project, status=status, ok=False, tools=[]
                )
            )
            continue
        result = entry.result
        rows.append(
            CatalogServer(
                server=server.name,
                project=server.project,
                status=status,
                ok=result.ok,
                tools=list(result.tools),
                error_code=result.error_code,
                error=result.error,
                probed_at=entry.probed_at,
            )
        )
    return Catalog(project=params.project, servers=rows)


def server_hash(server: McpServer) -> str:
    """The hash a catalog entry is checked against: the server definition, so that any
    change to its file's meaningful content makes the entry stale."""
    data = server.to_json_dict()
    for volatile in ("source", "notes", "description"):
        data.pop(volatile, None)
    return hashlib.blake2b(msgspec.json.encode(data), digest_size=16).hexdigest()


def _freshness(
    stored: dict[tuple[str, str | None], CatalogEntry], server: McpServer, digest: str
) -> Freshness:
    entry = stored.get((server.name, server.project))
    if entry is None:
        return "unprobed"
    return "fresh" if entry.server_hash == digest else "stale"


def _active_servers(ctx: RosterContext, project: str | None) -> list[McpServer]:
    from agent_roster.commands.mcp_registry import active_servers

    return active_servers(ctx, project)


def _probe_and_store(
    ctx: RosterContext, servers: list[McpServer], timeout: float
) -> list[ProbeResult]:
    if not servers:
        return []
    results = probe_many(servers, timeout=timeout, cwd=ctx.vault)
    at = time.time()
    ctx.store().save_tool_catalog(
        [
            CatalogEntry(result=result, server_hash=server_hash(server), probed_at=at)
            for server, result in zip(servers, results, strict=True)
        ]
    )
    return results


def _embedded_result(ctx: RosterContext) -> ProbeResult:
    """The embedded server's tools, from the command layer itself (nothing to connect to)."""
    from agent_roster.commands.registry import all_commands

    embedded = ctx.config().embedded
    tools = tuple(
        ProbedTool(
            name=command.name, description=command.summary, input_schema=command.input_schema()
        )
        for command in all_commands()
    )
    return ProbeResult(
        server=embedded.name,
        transport="embedded",
        ok=True,
        tools=tuple(sorted(tools, key=lambda tool: tool.name)),
        server_info="agent-roster (in-process)",
    )


def stored_tool_names(
    vault: str | os.PathLike[str], db: str | None = None
) -> dict[tuple[str | None, str], frozenset[str]]:
    """The probed tools of every server that answered, by (project, server), for
    validation; read-only: no database (or one without a catalog yet) gives none, and
    nothing is created or migrated."""
    from sqlalchemy.exc import SQLAlchemyError

    from agent_roster.store import default_db_url
    from agent_roster.store.readonly import open_read_only

    try:
        store = open_read_only(db or default_db_url(vault))
        if store is None:
            return {}
        with store:
            stored = store.tool_catalog()
    except (SQLAlchemyError, UsageError):
        return {}
    return {
        (project, name): frozenset(tool.name for tool in entry.result.tools)
        for (name, project), entry in stored.items()
        if entry.result.ok
    }
