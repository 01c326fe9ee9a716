"""AGH's own validation rules, as data and small pure functions (docs/codecs/agh.md).

Both directions use these: ``discover`` to refuse what AGH refuses, ``render`` to never
write what AGH would refuse. Error texts follow AGH's (``internal/config/agent.go``,
``tool_grammar.go``, ``internal/tools/id.go``, ``mcpjson.go``, ``provider.go``) so a
diagnostic reads like the message the operator would see from ``agh``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import PermissionAction, PermissionRule

AGENTS_DIR = ".agh/agents"

#: ``permissions`` → canonical rules on import (permissions.md §3, AGH row).
PERMISSION_RULES: dict[str, tuple[PermissionRule, ...]] = {
    "deny-all": (PermissionRule(permission="*", action=PermissionAction.DENY),),
    "approve-all": (PermissionRule(permission="*", action=PermissionAction.ALLOW),),
    "approve-reads": (
        PermissionRule(permission="*", action=PermissionAction.ASK),
        PermissionRule(permission="read", action=PermissionAction.ALLOW),
    ),
}

#: Frontmatter keys AGH's ``parsedAgentDef`` accepts; anything else is ``unknown field``.
FIELDS = (
    "name",
    "provider",
    "command",
    "model",
    "tools",
    "toolsets",
    "deny_tools",
    "permissions",
    "skills",
    "category_path",
    "mcp_servers",
    "hooks",
)
STRING_FIELDS = ("name", "provider", "command", "model", "permissions")
LIST_FIELDS = ("tools", "toolsets", "deny_tools", "category_path")

#: ``PermissionMode`` values (``internal/config/config.go``).
PERMISSION_MODES = ("deny-all", "approve-reads", "approve-all")

#: Keys of one MCP server object (inline list item; ``mcp.json`` values have no ``name``).
SERVER_FIELDS = ("name", "transport", "command", "args", "env", "secret_env", "url", "auth")

_MAX_ID = 64

# ``vault.SecretLikeEnvName``: names that must use ``secret_env`` instead of ``env``.
_SECRET_PARTS = (
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "PRIVATEKEY",
    "AUTHORIZATION",
    "BEARER",
    "CREDENTIAL",
)
_SECRET_EXEMPT_SUFFIXES = ("_URL", "_URI", "_PATH", "_FILE", "_DIR")
_FORBIDDEN_ENV = frozenset({"NODE_OPTIONS", "PYTHONPATH", "PYTHONHOME", "LD_PRELOAD"})
# ``vault.EnvNamePattern`` and the ``mcp`` namespace of ``vaultRefPattern``.
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_VAULT_REF = re.compile(r"^vault:mcp/[a-z0-9][a-z0-9_.-]*(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)*$")
# A canonical env value that is exactly one reference: ``${VAR}``.
_ENV_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def agent_name_error(name: str) -> str | None:
    """``ValidateAgentName``: non-empty, not ``.``/``..``, no path separators."""
    trimmed = name.strip()
    if not trimmed:
        return "agent name is required"
    if trimmed in {".", ".."} or "/" in trimmed or "\\" in trimmed:
        return f"agent name {_go_quote(trimmed)} is invalid"
    return None


def permissions_error(value: str) -> str | None:
    """``PermissionMode.Validate("agent.permissions")``."""
    if value.strip() in PERMISSION_MODES:
        return None
    allowed = ", ".join(_go_quote(m) for m in PERMISSION_MODES)
    return f"agent.permissions must be one of {allowed}: {_go_quote(value)}"


@lru_cache(maxsize=8192)
def segmented_id_error(value: str) -> str | None:
    """``validateSegmentedID``: the ToolID/ToolsetID grammar of ``internal/tools/id.go``."""
    # Once per distinct id: every profile that names a server's tool asks it again.
    if not value:
        return "id is required"
    if len(value) > _MAX_ID:
        return "id exceeds 64 characters"
    if "___" in value:
        return "reserved separator is ambiguous"
    for segment in value.split("__"):
        if not segment:
            return "id contains an empty segment"
        if segment.startswith("_") or segment.endswith("_"):
            return "segment uses reserved underscore boundary"
        if not ("a" <= segment[0] <= "z"):
            return "segment must start with a lowercase letter"
        if any(not (c.isascii() and (c.islower() or c.isdigit() or c == "_")) for c in segment):
            return "segment contains an unsupported character"
    return None


def tool_pattern_error(value: str, where: str) -> str | None:
    """``validateAgentToolPattern``: an exact ToolID or a namespace-prefix wildcard (one
    ``*``, last, after ``_`` or ``__``); every id needs the ``__`` separator. ``where`` is
    AGH's field path, e.g. ``agent.tools[0]``."""
    trimmed = value.strip()
    if not trimmed:
        return f"{where} is required"
    if "*" in trimmed:
        prefix = trimmed[:-1]
        if trimmed.count("*") != 1 or not trimmed.endswith("*") or not prefix.endswith("_"):
            return (
                f"{where} must be exact canonical ToolID or namespace-prefix wildcard: "
                f"{_go_quote(trimmed)}"
            )
        return _atom_error(prefix + "x", where)
    return _atom_error(trimmed, where)


def toolset_error(value: str, where: str) -> str | None:
    """``validateAgentToolsets`` for one entry."""
    trimmed = value.strip()
    if not trimmed:
        return f"{where} is required"
    return _atom_error(trimmed, where)


def _atom_error(value: str, where: str) -> str | None:
    reason = segmented_id_error(value)
    if reason is not None:
        return f"{where}: {reason}"
    if "__" not in value:
        return f'{where} must include canonical namespace separator "__": {_go_quote(value)}'
    return None


def category_segment_error(segment: str, index: int) -> str | None:
    """``validateAgentCategoryPath`` for one (trimmed) segment."""
    where = f"agent.category_path[{index}]"
    if not segment:
        return f"{where}: blank segment"
    if segment in {".", ".."}:
        return f"{where}: {_go_quote(segment)} is not a valid segment"
    if "/" in segment or "\\" in segment:
        return f"{where}: {_go_quote(segment)} must not contain '/' or '\\\\'"
    return None


def secret_like(name: str) -> bool:
    """Whether AGH treats an env name as a secret that must go through ``secret_env``."""
    upper = name.upper()
    if upper.endswith(_SECRET_EXEMPT_SUFFIXES):
        return False
    return any(part in upper for part in _SECRET_PARTS)


def forbidden_env(name: str) -> bool:
    """Env names AGH refuses for MCP servers whatever the value."""
    upper = name.upper()
    return upper in _FORBIDDEN_ENV or upper.startswith("DYLD_")


def effective_transport(raw: dict[str, Any]) -> str:
    """``MCPServer.EffectiveTransport``: the written transport, else http with a url."""
    written = str(raw.get("transport") or "").strip()
    if written:
        return written
    return "http" if str(raw.get("url") or "").strip() else "stdio"


def server_errors(raw: dict[str, Any], where: str, *, inline: bool) -> list[str]:
    """``MCPServer.Validate(where)`` for one native server object, in AGH's order (AGH stops
    at the first; we list them all). ``inline`` objects carry their ``name``; ``mcp.json``
    values are keyed by it, so a ``name`` field there is unknown."""
    allowed = SERVER_FIELDS if inline else SERVER_FIELDS[1:]
    problems = [f'unknown field "{k}"' for k in raw if k not in allowed]
    for key in ("env", "secret_env"):
        value = raw.get(key)
        if value is not None and not (
            isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        ):
            problems.append(f"{where}.{key} must be a map of strings")
            return problems
    args = raw.get("args")
    if args is not None and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        problems.append(f"{where}.args must be a list of strings")
    transport = effective_transport(raw)
    if transport not in ("stdio", "http", "sse"):
        problems.append(f"{where}.transport must be one of stdio, http, or sse")
        return problems
    stdio = transport == "stdio"
    command = str(raw.get("command") or "").strip()
    url = str(raw.get("url") or "").strip()
    if inline and not str(raw.get("name") or "").strip():
        problems.append(f"{where}.name is required")
    if stdio and not command:
        problems.append(f"{where}.command is required")
    if stdio and url:
        problems.append(f"{where}.url requires remote transport")
    if not stdio and not url:
        problems.append(f"{where}.url is required for {transport} transport")
    if not stdio and command:
        problems.append(f"{where}.command is only valid for stdio transport")
    if stdio and raw.get("auth"):
        problems.append(f"{where}.auth is only valid for remote MCP servers")
    if not stdio and raw.get("secret_env"):
        problems.append(f"{where}.secret_env is only valid for stdio transport")
    if stdio:
        for name in raw.get("env") or {}:
            if forbidden_env(name):
                problems.append(f"{where}.env.{name.strip()} is forbidden for stdio MCP servers")
            elif secret_like(name):
                problems.append(
                    f"{where}.env.{name.strip()} must move secret-like values to secret_env"
                )
        for name, ref in (raw.get("secret_env") or {}).items():
            problem = secret_ref_error(ref)
            if not _ENV_NAME.match(name.strip()):
                problems.append(f"{where}.secret_env.{name} must be an environment variable name")
            elif problem:
                problems.append(f"{where}.secret_env.{name.strip()} is invalid: {problem}")
    return problems


def secret_ref_error(ref: str) -> str | None:
    """``vault.ValidateRefNamespace(ref, "mcp")``: ``env:NAME`` or ``vault:mcp/...``."""
    ref = ref.strip()
    if ref.startswith("env:"):
        if _ENV_NAME.match(ref[4:].strip()):
            return None
        return f'vault: unsupported secret ref: invalid env ref "{ref}"'
    if _VAULT_REF.match(ref):
        return None
    return f"vault: unsupported secret ref: {ref}"


def server_to_native(server: McpServer) -> tuple[dict[str, Any] | None, list[str]]:
    """A canonical server as an AGH ``mcp.json`` value (README D10: ``${V}`` becomes
    ``secret_env: {K: "env:V"}``), or ``None`` and the reasons AGH cannot express it."""
    problems: list[str] = []
    native: dict[str, Any] = {}
    if server.transport is Transport.STDIO:
        native["command"] = server.command
        if server.args:
            native["args"] = list(server.args)
        env: dict[str, str] = {}
        secret_env: dict[str, str] = {}
        for key, value in server.env.items():
            ref = _ENV_REF.match(value)
            if forbidden_env(key):
                problems.append(f"env.{key} is forbidden for stdio MCP servers")
            elif ref:
                secret_env[key] = f"env:{ref.group(1)}"
            elif "${" in value:
                problems.append(
                    f"env {key}={value!r}: AGH does not expand placeholders; only a whole "
                    "${VAR} reference can become secret_env"
                )
            elif secret_like(key):
                problems.append(
                    f"env {key} holds a literal secret; AGH requires secret-like names in "
                    "secret_env (write the value as ${VAR} in the registry)"
                )
            else:
                env[key] = value
        if env:
            native["env"] = env
        if secret_env:
            native["secret_env"] = secret_env
    else:
        native["transport"] = server.transport.value
        native["url"] = server.url
        if "${" in server.url:
            problems.append(f"url {server.url!r}: AGH does not expand placeholders")
        if server.headers:
            problems.append(
                "headers " + ", ".join(server.headers) + ": AGH MCP servers have no headers "
                "field (only OAuth through auth)"
            )
    return (None, problems) if problems else (native, [])


def server_from_native(name: str, raw: dict[str, Any]) -> tuple[McpServer, list[str]]:
    """A validated native server in canonical form, and what could not be carried."""
    notes: list[str] = []
    transport = effective_transport(raw)
    env = {str(k): str(v) for k, v in (raw.get("env") or {}).items()}
    for key, ref in (raw.get("secret_env") or {}).items():
        if ref.startswith("env:"):
            env[key] = "${" + ref[4:] + "}"
        else:
            env[key] = "${" + key + "}"
            notes.append(
                f"secret_env {key} comes from AGH's vault ({ref}); the registry names ${{{key}}}"
            )
    if raw.get("auth"):
        notes.append("auth (OAuth) has no registry field and was not carried over")
    server = McpServer(
        name=name,
        transport=Transport(transport),
        command=str(raw.get("command") or "").strip(),
        args=tuple(str(a) for a in raw.get("args") or ()),
        env=env,
        url=str(raw.get("url") or "").strip(),
    )
    return server, notes


def _go_quote(value: str) -> str:
    # Go's %q for the plain strings these messages carry.
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
