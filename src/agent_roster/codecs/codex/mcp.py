"""Codex ``[mcp_servers.<name>]`` tables ↔ canonical MCP servers (docs/codecs/codex.md §6).

Codex never expands ``${VAR}`` in a value (checked on 0.169.0: ``env = {FOO = "${BAR}"}``
reaches the server as the literal text). Environment references therefore become Codex's own
forwarding keys: ``env_vars`` (same name only), ``bearer_token_env_var`` and
``env_http_headers``. A reference Codex cannot express (a renamed variable, a default, a
reference inside a longer value) and the SSE transport are errors, never a silent downgrade
(README D10).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agent_roster.model.mcp import McpServer, Transport

#: ``codex mcp add`` accepts only these server names (``validate_server_name``).
SERVER_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_BEARER = re.compile(r"^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$")

#: Keys of a server table Codex accepts (``mcp_types.rs``); anything else fails the config.
STDIO_KEYS = frozenset({"command", "args", "env", "env_vars", "cwd"})
HTTP_KEYS = frozenset(
    {
        "url",
        "bearer_token_env_var",
        "http_headers",
        "env_http_headers",
        "oauth",
        "oauth_resource",
        "scopes",
    }
)
SHARED_KEYS = frozenset(
    {
        "startup_timeout_sec",
        "startup_timeout_ms",
        "tool_timeout_sec",
        "enabled",
        "required",
        "enabled_tools",
        "disabled_tools",
        "default_tools_approval_mode",
        "tools",
    }
)
#: Keys whose meaning roster carries elsewhere (tool filters) or by design not at all.
_FILTER_KEYS = frozenset({"enabled", "enabled_tools", "disabled_tools"})


class RenderedServer(NamedTuple):
    """A server as a Codex table (``None`` when it cannot be written) and why not."""

    table: dict[str, Any] | None
    error: str
    hint: str = ""


def render_server(server: McpServer) -> RenderedServer:
    """The ``[mcp_servers.<name>]`` table for ``server``, or the reason Codex cannot hold it."""
    if not SERVER_NAME.match(server.name):
        return RenderedServer(
            None,
            f"invalid server name '{server.name}' (use letters, numbers, '-', '_')",
            "rename the registry entry",
        )
    if server.transport is Transport.SSE:
        return RenderedServer(
            None,
            "Codex has no SSE transport (only stdio and streamable HTTP)",
            "use the server's streamable HTTP endpoint if it has one",
        )
    if server.transport is Transport.STDIO:
        table: dict[str, Any] = {"command": server.command}
        if server.args:
            table["args"] = list(server.args)
        literal: dict[str, str] = {}
        forwarded: list[str] = []
        for key, value in server.env.items():
            ref = _REF.match(value)
            if ref and ref[1] == key:
                forwarded.append(key)
            elif "${" in value:
                return RenderedServer(
                    None,
                    f"env {key} = {value!r}: Codex forwards a variable only under its own name "
                    f"(env_vars) and never expands ${{...}}",
                    f'write {key}: "${{{key}}}" in the registry entry and export {key} where '
                    "Codex runs, or render this profile for another harness",
                )
            else:
                literal[key] = value
        if literal:
            table["env"] = literal
        if forwarded:
            table["env_vars"] = forwarded
        return RenderedServer(table, "")
    table = {"url": server.url}
    headers: dict[str, str] = {}
    env_headers: dict[str, str] = {}
    for key, value in server.headers.items():
        bearer = _BEARER.match(value)
        ref = _REF.match(value)
        if key.casefold() == "authorization" and bearer and "bearer_token_env_var" not in table:
            table["bearer_token_env_var"] = bearer[1]
        elif ref:
            env_headers[key] = ref[1]
        elif "${" in value:
            return RenderedServer(
                None,
                f"header {key} = {value!r}: Codex reads a header from the environment only as "
                "a whole value (env_http_headers) or as 'Bearer ${VAR}' (bearer_token_env_var)",
                f'write {key}: "${{VAR}}" with the whole value in one variable',
            )
        else:
            headers[key] = value
    if headers:
        table["http_headers"] = headers
    if env_headers:
        table["env_http_headers"] = env_headers
    return RenderedServer(table, "")


class ImportedServer(NamedTuple):
    """A Codex table as a canonical server, the problem that makes Codex refuse it (empty
    when valid), and the keys roster could not carry (one sentence each)."""

    server: McpServer | None
    error: str
    notes: tuple[str, ...]


def import_server(name: str, table: Any, source: str) -> ImportedServer:
    """Read one ``[mcp_servers.<name>]`` table the way Codex validates it."""
    if not isinstance(table, dict):
        return ImportedServer(None, f"mcp_servers.{name}: invalid type: expected a table", ())
    has_command, has_url = "command" in table, "url" in table
    if has_command == has_url:
        return ImportedServer(None, f"mcp_servers.{name}: invalid transport", ())
    allowed = (STDIO_KEYS if has_command else HTTP_KEYS) | SHARED_KEYS
    other = STDIO_KEYS | HTTP_KEYS
    for key in table:
        if key in other and key not in allowed:
            kind = "stdio" if has_command else "streamable_http"
            return ImportedServer(
                None, f"mcp_servers.{name}: {key} is not supported for {kind}", ()
            )
        if key not in allowed:
            return ImportedServer(None, f"mcp_servers.{name}: unknown field `{key}`", ())
    notes = [
        f"mcp_servers.{name}.{key} has no canonical field and was not imported"
        for key in table
        if key in SHARED_KEYS - _FILTER_KEYS or key in {"cwd", "oauth", "oauth_resource", "scopes"}
    ]
    try:
        if has_command:
            env = {str(k): _text(v, f"env.{k}") for k, v in _table(table, "env").items()}
            for entry in _list(table, "env_vars"):
                var = entry.get("name") if isinstance(entry, dict) else entry
                if isinstance(entry, dict) and entry.get("source", "local") != "local":
                    notes.append(f"mcp_servers.{name}.env_vars {var}: source kept only as local")
                env[_text(var, "env_vars")] = f"${{{var}}}"
            server = McpServer(
                name=name,
                transport=Transport.STDIO,
                command=_text(table["command"], "command"),
                args=tuple(_text(a, "args") for a in _list(table, "args")),
                env=env,
                source=source,
            )
        else:
            headers: dict[str, str] = {}
            if "bearer_token_env_var" in table:
                var = _text(table["bearer_token_env_var"], "bearer_token_env_var")
                headers["Authorization"] = f"Bearer ${{{var}}}"
            for key, value in _table(table, "http_headers").items():
                headers[str(key)] = _text(value, f"http_headers.{key}")
            for key, value in _table(table, "env_http_headers").items():
                headers[str(key)] = "${" + _text(value, f"env_http_headers.{key}") + "}"
            server = McpServer(
                name=name,
                transport=Transport.HTTP,
                url=_text(table["url"], "url"),
                headers=headers,
                source=source,
            )
    except TypeError as exc:
        return ImportedServer(None, f"mcp_servers.{name}.{exc}", ())
    return ImportedServer(server, "", tuple(notes))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: invalid type: expected a string")
    return value


def _table(table: dict[str, Any], key: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise TypeError(f"{key}: invalid type: expected a table")
    return value


def _list(table: dict[str, Any], key: str) -> list[Any]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise TypeError(f"{key}: invalid type: expected an array")
    return value


def tool_filters(table: Any) -> tuple[list[str] | None, list[str], bool]:
    """``enabled_tools`` (``None`` when absent: every tool), ``disabled_tools`` and
    ``enabled`` of a server table."""
    if not isinstance(table, dict):
        return None, [], True
    enabled = table.get("enabled_tools")
    disabled = table.get("disabled_tools")
    return (
        [str(t) for t in enabled] if isinstance(enabled, list) else None,
        [str(t) for t in disabled] if isinstance(disabled, list) else [],
        table.get("enabled", True) is not False,
    )
