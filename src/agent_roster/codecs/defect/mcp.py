"""defect's MCP servers: ``[mcp.servers.<name>]`` and ``[mcp] enabled_servers`` in its main
``config.toml`` (docs/codecs/defect.md §6). Profiles cannot declare servers; a subagent uses
the parent session's, and reaches them through ``mcp__<server>__*`` allow globs.

defect expands no ``${VAR}`` in server values, so a canonical reference cannot be written
(README D10): such a server is an error for render, never written literally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import tomlkit

from agent_roster.codecs.defect.read import serde_type
from agent_roster.codecs.native_io import (
    TomlProblem,
    merge_refused,
    parse_toml,
    read_text,
    shape_problem,
    toml_merge_target,
    toml_merged,
)
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.vault.toml_syntax import toml_position

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


#: ``McpServerConfig`` fields and the serde type each takes.
_SERVER_TYPES = {
    "transport": "a string",
    "command": "a string",
    "args": "a sequence",
    "env": "a map",
    "url": "a string",
    "headers": "a map",
}


def server_from_native(
    name: str, raw: dict[str, Any]
) -> tuple[McpServer | None, list[tuple[str, str]]]:
    """A ``[mcp.servers.<name>]`` table in canonical form, or defect's own error texts,
    each with the key it is about (for its position)."""
    where = f"mcp.servers.{name}"
    problems: list[tuple[str, str]] = []
    for key, kind in _SERVER_TYPES.items():
        value = raw.get(key)
        if value is None:
            continue
        ok = (
            isinstance(value, str)
            if kind == "a string"
            else isinstance(value, list) and all(isinstance(v, str) for v in value)
            if kind == "a sequence"
            else isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        )
        if not ok:
            problems.append(
                (key, f"{where}.{key}: invalid type: {serde_type(value)}, expected {kind}")
            )
    if problems:
        return None, problems
    transport = raw.get("transport")
    if transport is None:
        return None, [("", f"{where}.transport is required")]
    if transport not in ("stdio", "http", "sse"):
        return None, [("transport", f"{where}.transport: unknown variant `{transport}`")]
    if transport == "stdio":
        if not raw.get("command"):
            problems.append(("", f"{where}.command is required for stdio transport"))
        for key in ("url", "headers"):
            if key in raw:
                problems.append((key, f"{where}.{key} is not allowed for stdio transport"))
    else:
        if not raw.get("url"):
            problems.append(("", f"{where}.url is required for {transport} transport"))
        for key in ("command", "args", "env"):
            if key in raw:
                problems.append((key, f"{where}.{key} is not allowed for {transport} transport"))
    if problems:
        return None, problems
    return (
        McpServer(
            name=name,
            transport=Transport(transport),
            command=raw.get("command") or "",
            args=tuple(raw.get("args") or ()),
            env=dict(raw.get("env") or {}),
            url=raw.get("url") or "",
            headers=dict(raw.get("headers") or {}),
        ),
        [],
    )


_STARTUP = "defect refuses to start while its config does not load"


class ConfigServers(NamedTuple):
    """The servers the config layers define (later layers win per name): each winner as
    a canonical server, or ``None`` when defect refuses its table; and its file."""

    servers: dict[str, McpServer | None]
    sources: dict[str, str]


def read_servers(paths: list[Path], out: list[Diagnostic]) -> ConfigServers:
    """Server tables from the config layers in order (later layers win per name). A
    config that cannot be read, does not parse, or holds a server defect refuses is an
    error in ``out``: defect's config loader fails on it, so defect does not start."""
    found = ConfigServers({}, {})
    for path in paths:
        if not path.is_file():
            continue
        where = str(path)
        text = read_text(path, out, hint=_STARTUP)
        if text is None:
            continue
        data = parse_toml(text)
        if isinstance(data, TomlProblem):
            out.append(
                harness_diagnostic(
                    "harness-invalid",
                    f"TOML parse error: {data.message}",
                    path=where,
                    line=data.line,
                    column=data.column,
                    hint=f"{data.hint}; {_STARTUP}",
                )
            )
            continue
        mcp = data.get("mcp")
        table = mcp.get("servers") if isinstance(mcp, dict) else None
        shapes: tuple[tuple[tuple[str, ...], Any, str], ...] = (
            (("mcp",), mcp, "struct"),
            (("mcp", "servers"), table, "a map"),
        )
        for where_key, value, kind in shapes:
            if value is not None and not isinstance(value, dict):
                line, column = toml_position(text, where_key)
                shown = serde_type(value)
                out.append(
                    harness_diagnostic(
                        "harness-field-type",
                        f"{'.'.join(where_key)}: invalid type: {shown}, expected {kind}",
                        path=where,
                        line=line,
                        column=column,
                        hint=_STARTUP,
                    )
                )
        if not isinstance(table, dict):
            continue
        for name, raw in table.items():
            server: McpServer | None = None
            if not isinstance(raw, dict):
                problems = [
                    ("", f"mcp.servers.{name}: invalid type: {serde_type(raw)}, expected struct")
                ]
            else:
                server, problems = server_from_native(name, raw)
            for key, problem in problems:
                at = ("mcp", "servers", name, key) if key else ("mcp", "servers", name)
                line, column = toml_position(text, at)
                out.append(
                    harness_diagnostic(
                        "harness-field-type" if "invalid type" in problem else "harness-invalid",
                        problem,
                        path=where,
                        line=line,
                        column=column,
                        hint=_STARTUP,
                    )
                )
            found.servers[name] = server
            found.sources[name] = where
    return found


def merge_config(
    existing: str | None, servers: dict[str, dict[str, Any]], rel: str, out: list[Diagnostic]
) -> str | None:
    """``existing`` config text with ``servers`` set under ``[mcp.servers]`` and enabled,
    every other key and comment kept (tomlkit round-trips the document); ``None`` with an
    error in ``out`` when the file does not parse or its ``[mcp]`` is shaped otherwise."""
    what = "MCP servers"
    doc = toml_merge_target(existing, rel, out, what=what)
    if doc is None:
        return None
    shape = shape_problem(
        existing or "",
        doc.unwrap(),
        (
            (("mcp",), "a table", dict),
            (("mcp", "servers"), "a table", dict),
            (("mcp", "enabled_servers"), "an array", list),
        ),
    )
    if shape is not None:
        hint = "make it what defect expects, then render again"
        merge_refused(out, rel, what, shape[0], hint, shape[1])
        return None
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
    return toml_merged(doc, rel, out, what=what)
