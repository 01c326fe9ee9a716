"""defect's MCP servers: ``[mcp.servers.<name>]`` and ``[mcp] enabled_servers`` in its main
``config.toml`` (docs/codecs/defect.md §6). Profiles cannot declare servers; a subagent uses
the parent session's, and reaches them through ``mcp__<server>__*`` allow globs.

defect expands no ``${VAR}`` in server values, so a canonical reference cannot be written
(README D10): such a server is an error for render, never written literally.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import tomlkit

from agent_roster.model.mcp import McpServer, Transport

PROJECT_CONFIG = ".defect/config.toml"
USER_CONFIG = ".config/defect/config.toml"


def server_to_native(server: McpServer) -> tuple[dict[str, Any] | None, list[str]]:
    """A canonical server as a ``[mcp.servers.<name>]`` table, or the reasons it cannot be."""
    problems: list[str] = []
    native: dict[str, Any] = {"transport": server.transport.value}
    if server.transport is Transport.STDIO:
        native["command"] = server.command
        if server.args:
            native["args"] = list(server.args)
        if server.env:
            native["env"] = dict(server.env)
        values = {f"env {k}": v for k, v in server.env.items()}
        values.update({f"args[{i}]": a for i, a in enumerate(server.args)})
        values["command"] = server.command
    else:
        native["url"] = server.url
        if server.headers:
            native["headers"] = dict(server.headers)
        values = {f"headers {k}": v for k, v in server.headers.items()}
        values["url"] = server.url
    for where, value in values.items():
        if "${" in value:
            problems.append(
                f"{where} = {value!r}: defect does not expand ${{VAR}}; it would send the "
                "text literally"
            )
    return (None, problems) if problems else (native, [])


def server_from_native(name: str, raw: dict[str, Any]) -> tuple[McpServer | None, list[str]]:
    """A ``[mcp.servers.<name>]`` table in canonical form, or defect's own error texts."""
    where = f"mcp.servers.{name}"
    transport = raw.get("transport")
    if transport is None:
        return None, [f"{where}.transport is required"]
    if transport not in ("stdio", "http", "sse"):
        return None, [f"{where}.transport: unknown variant `{transport}`"]
    problems: list[str] = []
    if transport == "stdio":
        if not raw.get("command"):
            problems.append(f"{where}.command is required for stdio transport")
        for key in ("url", "headers"):
            if key in raw:
                problems.append(f"{where}.{key} is not allowed for stdio transport")
    else:
        if not raw.get("url"):
            problems.append(f"{where}.url is required for {transport} transport")
        for key in ("command", "args", "env"):
            if key in raw:
                problems.append(f"{where}.{key} is not allowed for {transport} transport")
    if problems:
        return None, problems
    return (
        McpServer(
            name=name,
            transport=Transport(transport),
            command=str(raw.get("command") or ""),
            args=tuple(str(a) for a in raw.get("args") or ()),
            env={str(k): str(v) for k, v in (raw.get("env") or {}).items()},
            url=str(raw.get("url") or ""),
            headers={str(k): str(v) for k, v in (raw.get("headers") or {}).items()},
        ),
        [],
    )


def read_servers(paths: list[Path]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Server tables from the config layers in order (later layers win per name), and the
    file each came from. Unreadable configs are left to defect's main loader to report."""
    servers: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for path in paths:
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        mcp = data.get("mcp")
        table = mcp.get("servers") if isinstance(mcp, dict) else None
        if isinstance(table, dict):
            for name, raw in table.items():
                if isinstance(raw, dict):
                    servers[name] = raw
                    sources[name] = str(path)
    return servers, sources


def merge_config(existing: str | None, servers: dict[str, dict[str, Any]]) -> str:
    """``existing`` config text with ``servers`` set under ``[mcp.servers]`` and enabled,
    every other key and comment kept (tomlkit round-trips the document)."""
    doc = tomlkit.parse(existing) if existing else tomlkit.document()
    mcp = doc.get("mcp")
    if mcp is None:
        mcp = tomlkit.table()
        doc["mcp"] = mcp
    table = mcp.get("servers")
    if table is None:
        table = tomlkit.table(is_super_table=True)
        mcp["servers"] = table
    defined_before = list(table.keys())
    for name, native in servers.items():
        entry = tomlkit.table()
        for key, value in native.items():
            if isinstance(value, dict):
                inline = tomlkit.inline_table()
                inline.update(value)
                entry[key] = inline
            else:
                entry[key] = value
        table[name] = entry
    enabled = mcp.get("enabled_servers")
    if enabled is None:
        # No list yet: start one that keeps every server already defined enabled too.
        mcp["enabled_servers"] = [*defined_before, *(n for n in servers if n not in defined_before)]
    else:
        for name in servers:
            if name not in enabled:
                enabled.append(name)
    return tomlkit.dumps(doc)
