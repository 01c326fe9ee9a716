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

import re
from pathlib import PurePath
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from agent_roster.commands.context import RosterContext
from agent_roster.known_servers import KNOWN_MCP_SERVERS, KnownServer
from agent_roster.known_tools import CLAUDE_CODE_TOOLS
from agent_roster.model.mcp import McpServer
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
    """An MCP server: in the registry already, or well known and installable. ``manager``
    (npm, pip or remote), ``package`` and ``url`` say how it is had; for a registry server
    they are read from its entry, and null when the entry does not say (a local program)."""

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
    known = {server.name: server for server in KNOWN_MCP_SERVERS}
    listed = []
    for server in servers:
        manager, package, url = installed_by(server, known.get(server.name))
        listed.append(
            AvailableServer(
                name=server.name,
                description=server.description,
                in_registry=True,
                probed=server.name in probed,
                manager=manager,
                package=package,
                url=url,
            )
        )
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


_NPM_RUNNERS = frozenset({"npx", "pnpx", "bunx"})
_PIP_RUNNERS = frozenset({"uvx", "pipx"})
#: Where a package name ends and its version or extras begin (``@playwright/mcp@latest``,
#: ``mcp-server-git==1.2``, ``pkg[extra]``).
_VERSION = re.compile(r"(?<=.)[@=<>~!\[;]")


def installed_by(
    server: McpServer, known: KnownServer | None
) -> tuple[str | None, str | None, str | None]:
    """How a registry server is had: ``(manager, package, url)``, read from its own entry
    (a URL is ``remote``; ``npx PKG`` is npm, ``uvx PKG`` and ``pipx run PKG`` pip), else
    from the well-known server of its name when the entry runs that server's package
    (``command: mcp-server-time``). The entry wins over the well-known table: a vault's
    ``github`` may run another package than the one the table names (issue 15 item 7)."""
    if server.url:
        return "remote", None, server.url
    program = PurePath(server.command).name if server.command else ""
    words = [a for a in server.args if not a.startswith("-")]
    if program == "pipx" and words[:1] == ["run"]:
        words = words[1:]
    if words and program in _NPM_RUNNERS:
        return "npm", _package_name(words[0]), None
    if words and program in _PIP_RUNNERS:
        given = dict(zip(server.args, server.args[1:], strict=False)).get("--from")
        return "pip", _package_name(given or words[0]), None
    if known is not None and known.package:
        runs = {program, *(_package_name(word) for word in words)}
        if known.package in runs:
            return known.manager, known.package, None
    return None, None, None


def _package_name(spec: str) -> str:
    found = _VERSION.search(spec)
    return spec[: found.start()] if found else spec


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
