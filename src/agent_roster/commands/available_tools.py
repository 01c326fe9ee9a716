"""``list_available_tools`` (seed 001 "Discovery Command", issue 15 item 7): every tool name
a profile can allow, and MCP servers worth adding, so a user can find names before writing
a profile.

Tools come from four places: Claude Code's built-ins (the one table in
:mod:`agent_roster.known_tools`), the embedded server's commands (the command layer), the
tools registry servers reported when last probed (the catalog in the database; this command
never probes, ``list_mcp_tool_catalog`` does), and well-known servers with their package
(:mod:`agent_roster.known_servers`). Read-only: without a database it lists no probed tools
rather than create one.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from agent_roster.commands.context import RosterContext
from agent_roster.known_servers import KNOWN_MCP_SERVERS
from agent_roster.known_tools import CLAUDE_CODE_TOOLS
from agent_roster.store.catalog import CatalogEntry

ToolSource = Literal["claude", "embedded", "mcp"]


class ToolsParams(msgspec.Struct, frozen=True, kw_only=True):
    project: Annotated[
        str | None, Meta(description="project id: include its registry servers' tools")
    ] = None
    retired: Annotated[bool, Meta(description="also list Claude Code tools no current CLI has")] = (
        False
    )


class AvailableTool(msgspec.Struct, frozen=True, kw_only=True):
    """A name as a profile's Tools block writes it. ``status``: for Claude tools
    current/interactive/retired; for probed tools fresh or stale (the server's file changed
    since the probe)."""

    name: str
    description: str
    source: ToolSource
    server: str | None = None
    status: str = "current"


class AvailableServer(msgspec.Struct, frozen=True, kw_only=True):
    """An MCP server: in the registry already, or well known and installable."""

    name: str
    description: str
    in_registry: bool
    probed: bool = False
    manager: str | None = None
    package: str | None = None
    url: str | None = None


class AvailableTools(msgspec.Struct, frozen=True, kw_only=True):
    tools: list[AvailableTool]
    mcp_servers: list[AvailableServer]


def list_available_tools(ctx: RosterContext, params: ToolsParams) -> AvailableTools:
    """Every tool name a profile can allow, and MCP servers with their packages."""
    from agent_roster.commands.probe import _active_servers, server_hash
    from agent_roster.commands.registry import all_commands

    tools = [
        AvailableTool(name=t.name, description=t.description, source="claude", status=t.status)
        for t in CLAUDE_CODE_TOOLS
        if params.retired or t.status != "retired"
    ]
    embedded = ctx.config().embedded.name
    tools += [
        AvailableTool(name=c.name, description=c.summary, source="embedded", server=embedded)
        for c in all_commands()
    ]
    servers = _active_servers(ctx, params.project)
    stored = _stored_catalog(ctx)
    probed: set[str] = set()
    for server in servers:
        entry = stored.get((server.name, server.project))
        if entry is None or not entry.result.ok:
            continue
        probed.add(server.name)
        status = "fresh" if entry.server_hash == server_hash(server) else "stale"
        tools += [
            AvailableTool(
                name=f"mcp__{server.name}__{tool.name}",
                description=_first_line(tool.description),
                source="mcp",
                server=server.name,
                status=status,
            )
            for tool in entry.result.tools
        ]
    registry = {server.name: server for server in servers}
    listed = [
        AvailableServer(
            name=server.name,
            description=server.description,
            in_registry=True,
            probed=server.name in probed,
        )
        for server in servers
    ]
    listed += [
        AvailableServer(
            name=known.name,
            description=known.description,
            in_registry=False,
            manager=known.manager,
            package=known.package or None,
            url=known.url or None,
        )
        for known in KNOWN_MCP_SERVERS
        if known.name not in registry
    ]
    return AvailableTools(tools=tools, mcp_servers=listed)


def _stored_catalog(ctx: RosterContext) -> dict[tuple[str, str | None], CatalogEntry]:
    """The catalog if a database exists (read-only); an empty one rather than creating it."""
    store = ctx.read_store()
    if store is None:
        return {}
    try:
        return store.tool_catalog()
    finally:
        if store is not ctx._store:
            store.close()


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0][:200]
