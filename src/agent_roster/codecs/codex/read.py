"""Reading Codex agent role files the way Codex 0.169.0 does (docs/codecs/codex.md §1 to §3).

A role file is ``name``, ``description``, ``developer_instructions`` and
``nickname_candidates`` on top of a partial ``config.toml`` layer. Codex skips (without a
word on stderr) a role file that fails to parse, has an unknown key, lacks a required field
or has an invalid ``sandbox_mode``; the other roles still load. Each refusal here is an
error diagnostic quoting the message Codex's loader uses for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.codecs.codex.mcp import import_server
from agent_roster.codecs.native_io import TomlProblem, parse_toml, read_text
from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer

ROLE_KEYS = ("name", "description", "developer_instructions", "nickname_candidates")

#: ``config.toml`` keys a role file may set. Codex's config struct rejects unknown keys;
#: roster accepts the documented ones (checked against 0.169.0, see tests/codecs).
CONFIG_KEYS = frozenset(
    {
        "model",
        "model_provider",
        "model_reasoning_effort",
        "model_reasoning_summary",
        "model_verbosity",
        "model_context_window",
        "model_auto_compact_token_limit",
        "service_tier",
        "personality",
        "sandbox_mode",
        "sandbox_workspace_write",
        "approval_policy",
        "web_search",
        "tools",
        "features",
        "skills",
        "mcp_servers",
        "hide_agent_reasoning",
        "show_raw_agent_reasoning",
        "shell_environment_policy",
    }
)
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
APPROVAL_POLICIES = ("untrusted", "on-request", "on-failure", "never")
_NICKNAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_")


class RoleFile(NamedTuple):
    """One role file that Codex would accept (so far: the description may still come from a
    lower layer): its table, path and the servers declared inside it."""

    name: str
    data: dict[str, Any]
    path: Path
    servers: tuple[McpServer, ...]
    notes: tuple[str, ...]


def key_line(text: str, key: str) -> int:
    """The 1-based line where ``key`` is assigned at the start of a line (1 when not found)."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.lstrip()
        if stripped.startswith((f"{key} ", f"{key}=", f"[{key}", f'"{key}"')):
            return number
    return 1


def read_role(path: Path, out: list[Diagnostic]) -> RoleFile | None:
    """One role file, or ``None`` with an error in ``out`` when Codex would skip it."""
    where = str(path)
    text = read_text(path, out, hint="Codex skips this role until it reads as UTF-8")
    if text is None:
        return None
    data = parse_toml(text)
    if isinstance(data, TomlProblem):
        out.append(
            harness_diagnostic(
                "harness-invalid",
                f"failed to parse agent role file at {path}: {data.message}",
                path=where,
                line=data.line,
                column=data.column,
                hint=f"{data.hint}; Codex skips this role until it parses",
            )
        )
        return None

    def fail(code: str, message: str, key: str, hint: str) -> None:
        out.append(
            harness_diagnostic(code, message, path=where, line=key_line(text, key), hint=hint)
        )

    for key in data:
        if key not in ROLE_KEYS and key not in CONFIG_KEYS:
            fail(
                "harness-field-unknown",
                f"agent role file at {path}: unknown field `{key}`",
                key,
                "Codex refuses a role file with a key it does not know; remove it",
            )
            return None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        fail(
            "harness-invalid",
            f"agent role file at {path} must define a non-empty `name`",
            "name",
            'add name = "<agent name>"',
        )
        return None
    for key in ("description", "developer_instructions", "model"):
        if key in data and not isinstance(data[key], str):
            fail(
                "harness-field-type",
                f"agent role `{name}`: invalid type for `{key}`: expected a string",
                key,
                f"write {key} as a TOML string",
            )
            return None
    if isinstance(data.get("description"), str) and not data["description"].strip():
        fail(
            "harness-invalid",
            f"agent role `{name}`: description cannot be blank",
            "description",
            "write a one-line description of when to use this agent",
        )
        return None
    instructions = data.get("developer_instructions")
    if instructions is None or not instructions.strip():
        fail(
            "harness-invalid",
            f"agent role `{name}` must define `developer_instructions`"
            if instructions is None
            else f"agent role `{name}`: developer_instructions cannot be blank",
            "developer_instructions",
            "developer_instructions holds the agent's prompt; it is required",
        )
        return None
    for key, allowed in (("sandbox_mode", SANDBOX_MODES), ("approval_policy", APPROVAL_POLICIES)):
        if key in data and data[key] not in allowed:
            fail(
                "harness-field-type",
                f"agent role `{name}`: unknown variant `{data[key]}` for `{key}`, expected one "
                "of " + ", ".join(f"`{v}`" for v in allowed),
                key,
                f"use one of {', '.join(allowed)}",
            )
            return None
    nicknames = data.get("nickname_candidates")
    if nicknames is not None and (
        not isinstance(nicknames, list)
        or not nicknames
        or len(set(map(str, nicknames))) != len(nicknames)
        or not all(
            isinstance(n, str) and n.strip() and set(n) <= _NICKNAME_CHARS for n in nicknames
        )
    ):
        fail(
            "harness-field-type",
            f"agent role `{name}`: nickname_candidates must be a non-empty list of unique "
            "nicknames made of ASCII letters, digits, spaces, '-' and '_'",
            "nickname_candidates",
            "fix or remove nickname_candidates",
        )
        return None
    servers: list[McpServer] = []
    notes: list[str] = []
    tables = data.get("mcp_servers", {})
    if not isinstance(tables, dict):
        fail(
            "harness-field-type",
            f"agent role `{name}`: mcp_servers: invalid type: expected a table",
            "mcp_servers",
            "write each server as [mcp_servers.<name>]",
        )
        return None
    for server_name, table in tables.items():
        imported = import_server(server_name, table, where)
        if imported.server is None:
            fail(
                "harness-invalid",
                f"agent role `{name}`: {imported.error}",
                f"mcp_servers.{server_name}",
                "a server needs exactly one of command (stdio) or url (streamable HTTP)",
            )
            return None
        servers.append(imported.server)
        notes.extend(imported.notes)
    return RoleFile(name.strip(), data, path, tuple(servers), tuple(notes))


def trusted(workspace: Path, home: Path) -> bool | None:
    """Whether the user's ``config.toml`` trusts ``workspace`` (or a folder above it);
    ``None`` when it says nothing (Codex then ignores the project's ``.codex/``)."""
    config = home / ".codex" / "config.toml"
    # A broken config is reported where it is checked (codec._check_config).
    text = read_text(config, []) if config.is_file() else None
    data = parse_toml(text) if text is not None else None
    if not isinstance(data, dict):
        return None
    projects = data.get("projects")
    if not isinstance(projects, dict):
        return None
    resolved = workspace.resolve()
    for folder in (resolved, *resolved.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and "trust_level" in entry:
            return bool(entry["trust_level"] == "trusted")
    return None
