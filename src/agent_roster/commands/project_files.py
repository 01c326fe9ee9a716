"""File-level helpers for the project-profile and registry commands: reading just the files
one resolution needs, writing a seeded override, and removing files with their folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.vault.guard import read_diagnostic, remove_in_vault
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.render import config_block, to_json

OVERRIDE = "override"
INHERIT = "inherit"
NO_DEFAULT = "no-default"


class Loaded(NamedTuple):
    """The profiles and servers that decide one agent type in one scope. ``profiles`` and
    ``servers`` hold only files without errors; the others add a warning and their errors
    to ``diagnostics``. ``system``/``override`` say whether those files exist."""

    profiles: tuple[AgentProfile, ...]
    servers: tuple[McpServer, ...]
    system: bool
    override: bool
    warnings: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]


def _read(
    layout: VaultLayout, kind: EntryKind, ident: str, project: str | None, out: list[Diagnostic]
) -> tuple[str, bytes] | None:
    if kind is EntryKind.PROFILE:
        path = layout.profile_path(ident, project)
    else:
        path = layout.mcp_server_path(ident, project)
    raw = read_diagnostic(layout, path, out, missing_ok=True)
    return None if raw is None else (layout.relative(path), raw)


def load_for(layout: VaultLayout, agent_type: str, project: str | None) -> Loaded:
    """Parse the override of ``agent_type`` in ``project`` (if any), the system profile and
    its ``extends`` chain, and every MCP server (both scopes) those profiles name."""
    problems: list[Diagnostic] = []
    warnings: list[str] = []
    profiles: list[AgentProfile] = []
    exists = {"system": False, "override": False}

    def parse(ident: str, scope: str | None) -> AgentProfile | None:
        found = _read(layout, EntryKind.PROFILE, ident, scope, problems)
        if found is None:
            return None
        rel, raw = found
        if ident == agent_type:
            exists["override" if scope else "system"] = True
        parsed = parse_profile(raw, path=rel, expected_id=ident, project=scope)
        if not parsed.ok or parsed.profile is None:
            problems.extend(d for d in parsed.diagnostics if d.is_error)
            warnings.append(
                f"{rel} has errors and is left out (sync keeps its last good version "
                "in the database until it is fixed)"
            )
            return None
        profiles.append(parsed.profile)
        return parsed.profile

    if project is not None:
        parse(agent_type, project)
    current: str | None = agent_type
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        profile = parse(current, None)
        current = profile.extends if profile is not None else None
    servers: list[McpServer] = []
    for name in sorted({n for p in profiles for n in p.mcp_servers}):
        for scope in (project, None) if project else (None,):
            found = _read(layout, EntryKind.MCP_SERVER, name, scope, problems)
            if found is None:
                continue
            rel, raw = found
            parsed_server = parse_mcp_server(raw, path=rel, expected_name=name, project=scope)
            if parsed_server.ok and parsed_server.server is not None:
                servers.append(parsed_server.server)
            else:
                problems.extend(d for d in parsed_server.diagnostics if d.is_error)
                warnings.append(f"{rel} has errors and is left out")
    return Loaded(
        tuple(profiles),
        tuple(servers),
        exists["system"],
        exists["override"],
        tuple(warnings),
        tuple(problems),
    )


def seed_text(
    agent_type: str, project: str, base: AgentProfile | None
) -> tuple[str, tuple[str, ...]]:
    """A new override's text and the fields it sets. With ``base``, its settings are copied:
    every Config key it sets, its non-empty tool lists, MCP server names and Install lists."""
    parts = [
        f"---\nid: {agent_type}\n---\n\n# {agent_type} ({project} override)\n\n"
        f"Overrides `agent-types/{agent_type}/profile.md` in project `{project}`. Only what is\n"
        "written here differs; every field and section left out is inherited.\n"
    ]
    seeded: list[str] = []
    if base is not None:
        config = config_block(base)
        if config:
            parts.append(_block("Config", config))
            seeded.extend(config)
        tools: dict[str, Any] = {
            key: list(value)
            for key, value in (("allowed", base.allowed_tools), ("denied", base.denied_tools))
            if value
        }
        if base.tools_exact:
            tools["allowed"] = list(base.allowed_tools)
        if tools:
            seeded.extend(f"{key}_tools" for key in tools)
            if base.tools_exact:
                tools["exact"] = True
                seeded.append("tools_exact")
            parts.append(_block("Tools", tools))
        if base.mcp_servers:
            parts.append(_block("MCP Servers", list(base.mcp_servers)))
            seeded.append("mcp_servers")
        install = {
            key: list(getattr(base.install, key))
            for key in ("npm", "pip", "commands")
            if getattr(base.install, key)
        }
        if install:
            parts.append(_block("Install", install))
            seeded.extend(f"install.{key}" for key in install)
    return "\n".join(parts), tuple(seeded)


def _block(heading: str, value: object) -> str:
    return f"## {heading}\n\n```json\n{to_json(value)}\n```\n"


def remove_file(layout: VaultLayout, path: Path, folders: int = 2) -> tuple[str, ...]:
    """Delete ``path``, then up to ``folders`` parent folders while they are empty; returns
    the vault-relative paths removed (folders end with ``/``). Through the vault guard: a
    folder on the way that a symlink leads outside the vault is refused."""
    return remove_in_vault(layout, path, folders)
