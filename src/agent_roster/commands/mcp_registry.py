"""MCP server registry CRUD (seed 001 "MCP Server Registry", issue 4 item 4).

Entries are ``mcp-servers/<name>.md`` (system) and ``projects/<pid>/mcp-servers/<name>.md``
(project); a project entry shadows the system entry of the same name. The embedded server
(roster.toml ``[embedded_server] name``) is built in: it is listed, never written, replaced
or deleted. Entries are keyed by file name everywhere (the original keyed by frontmatter
``name`` but deleted by file name, leaving stale entries).

Deleting refuses while a profile would lose the server: for the system scope, any effective
system profile and any project override in a project that has no entry of its own naming it;
for a project scope, that project's effective profiles (its overrides and the system
profiles as they apply there), unless a system entry of the same name remains for the
references to fall back to (the result says so). References are found on the effective
profiles (``extends`` and overrides merged), and each is reported with the file that sets
the ``## MCP Servers`` list. Profiles with errors count with whatever part of them parsed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from agent_roster import literal_secrets
from agent_roster.commands.project_files import remove_file
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.redact import server_dict
from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault import patch
from agent_roster.vault.guard import read_diagnostic
from agent_roster.vault.loader import load_vault
from agent_roster.vault.mcp_parser import SERVER_KEYS, TRANSPORTS, parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment
from agent_roster.vault.render import render_mcp_server
from agent_roster.vault.writer import write_in_vault

BUILTIN = "builtin"
SYSTEM = "system"
PROJECT = "project"


class ServerRow(NamedTuple):
    """One registry entry. ``active`` is False when another entry shadows it
    (``shadowed_by``) or when its file has errors (``diagnostics``)."""

    name: str
    scope: str
    project: str | None
    path: str | None
    active: bool
    shadowed_by: str | None
    server: McpServer | None
    diagnostics: tuple[Diagnostic, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "project": self.project,
            "path": self.path,
            "active": self.active,
            "shadowed_by": self.shadowed_by,
            "server": server_dict(self.server) if self.server else None,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class ServerList(NamedTuple):
    project: str | None
    rows: tuple[ServerRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"project": self.project, "servers": [r.to_dict() for r in self.rows]}


class ServerRemoved(NamedTuple):
    removed: tuple[str, ...]
    falls_back_to: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"removed": list(self.removed), "falls_back_to": self.falls_back_to}


class Reference(NamedTuple):
    profile_id: str
    project: str | None
    path: str

    def describe(self) -> str:
        where = f" in project {self.project!r}" if self.project else ""
        return f"{self.profile_id}{where} ({self.path})"


def _embedded(vault: str | os.PathLike[str]) -> McpServer:
    return ProfileIndex(load_config(vault).config).embedded_server()


def _row(layout: VaultLayout, name: str, project: str | None) -> ServerRow | None:
    path = layout.mcp_server_path(name, project)
    if not path.is_file():
        return None
    rel = layout.relative(path)
    problems: list[Diagnostic] = []
    raw = read_diagnostic(layout, path, problems, missing_ok=True)
    server = None
    if raw is not None:
        parsed = parse_mcp_server(raw, path=rel, expected_name=name, project=project)
        problems.extend(parsed.diagnostics)
        server = parsed.server if parsed.ok else None
    errors = tuple(d for d in problems if d.is_error)
    scope = PROJECT if project else SYSTEM
    return ServerRow(name, scope, project, rel, server is not None, None, server, errors)


def _builtin_row(vault: str | os.PathLike[str]) -> ServerRow:
    server = _embedded(vault)
    return ServerRow(server.name, BUILTIN, None, None, True, None, server, ())


def list_mcp_servers(vault: str | os.PathLike[str], project: str | None = None) -> ServerList:
    """The built-in entry, then every system entry and (with ``project``) every entry of
    that project, sorted by name; shadowed entries are listed inactive."""
    layout = VaultLayout(vault)
    if project is not None:
        check_segment(project, "project id")
    builtin = _builtin_row(vault)
    names = sorted(
        {
            s.entry.id
            for s in layout.iter_entries()
            if s.entry.kind is EntryKind.MCP_SERVER and s.entry.project in (None, project)
        }
    )
    rows = [builtin]
    for name in names:
        local = _row(layout, name, project) if project else None
        system = _row(layout, name, None)
        for row in (local, system):
            if row is None:
                continue
            if name == builtin.name:
                row = row._replace(active=False, shadowed_by=BUILTIN)
            elif row is system and local is not None:
                row = row._replace(active=False, shadowed_by=PROJECT)
            rows.append(row)
    return ServerList(project, tuple(rows))


def get_mcp_server(
    vault: str | os.PathLike[str], name: str, project: str | None = None
) -> ServerRow:
    """The entry ``name`` resolves to from ``project`` (project, then system; the embedded
    name is always the built-in entry). A file with errors comes back with its diagnostics."""
    layout = VaultLayout(vault)
    check_segment(name, "server name")
    builtin = _builtin_row(vault)
    if name == builtin.name:
        return builtin
    for scope in (project, None) if project else (None,):
        row = _row(layout, name, scope)
        if row is not None:
            return row
    known = [r.name for r in list_mcp_servers(vault, project).rows]
    where = f" of project {project!r} or the system" if project else ""
    raise NotFoundError(
        f"no MCP server {name!r} in the registry{where}",
        hint=did_you_mean(name, known) or f"create it with 'roster mcp add {name} ...'",
    )


def create_mcp_server(
    vault: str | os.PathLike[str],
    name: str,
    transport: str,
    *,
    command: str = "",
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    url: str = "",
    headers: Mapping[str, str] | None = None,
    description: str = "",
    project: str | None = None,
    allow_literal_secret: bool = False,
) -> ServerRow:
    """Write a new registry file; refuses the embedded name, an existing file, any
    content that would not parse cleanly, and a literal secret (a ``${VAR}`` reference
    goes in its place) unless ``allow_literal_secret``."""
    layout = VaultLayout(vault)
    check_segment(name, "server name")
    embedded = _embedded(vault)
    if name == embedded.name:
        raise UsageError(
            f"{name!r} is the built-in embedded server; it cannot be replaced",
            hint="choose another name, or configure it in roster.toml [embedded_server]",
        )
    if transport not in TRANSPORTS:
        raise UsageError(
            f"transport {transport!r} is not one of {', '.join(TRANSPORTS)}",
            hint=did_you_mean(transport, TRANSPORTS),
        )
    path = layout.mcp_server_path(name, project)
    rel = path.relative_to(layout.root).as_posix()
    if path.exists():
        raise UsageError(f"{rel} already exists", hint="change it with 'roster mcp edit'")
    server = McpServer(
        name=name,
        transport=Transport(transport),
        command=command,
        args=tuple(args),
        env=dict(env or {}),
        url=url,
        headers=dict(headers or {}),
        description=description,
    )
    literal_secrets.refuse(
        literal_secrets.in_server(server), target=rel, allow=allow_literal_secret
    )
    text = render_mcp_server(server)
    parsed = parse_mcp_server(text, path=rel, expected_name=name, project=project)
    if not parsed.ok or parsed.server is None:
        raise InvalidDocumentError(
            f"the server {name!r} would not be valid; nothing was written",
            [d for d in parsed.diagnostics if d.is_error],
        )
    if not write_in_vault(layout, path, text):
        raise UsageError(f"{rel} already exists")
    scope = PROJECT if project else SYSTEM
    return ServerRow(name, scope, project, rel, True, None, parsed.server, parsed.diagnostics)


EDITABLE = tuple(k for k in SERVER_KEYS if k != "name")


def edit_mcp_server(
    vault: str | os.PathLike[str],
    name: str,
    /,
    project: str | None = None,
    allow_literal_secret: bool = False,
    **changes: Any,
) -> ServerRow:
    """Set frontmatter keys of an existing entry in place (``None`` removes a key); the
    result must parse without errors, and a new value must not be a literal secret unless
    ``allow_literal_secret``. The name cannot change (it is the file name)."""
    layout = VaultLayout(vault)
    check_segment(name, "server name")
    if name == _embedded(vault).name:
        raise UsageError(
            f"{name!r} is the built-in embedded server; it cannot be edited",
            hint="configure it in roster.toml [embedded_server]",
        )
    for key in changes:
        if key == "name":
            raise UsageError(
                "an MCP server cannot be renamed: its name is its file name",
                hint="create the new name, move the profiles over, then remove the old one",
            )
        if key not in EDITABLE:
            raise UsageError(
                f"{key!r} is not an MCP server setting",
                hint=did_you_mean(key, EDITABLE) or "settings: " + ", ".join(EDITABLE),
            )
    if not changes:
        raise UsageError("nothing to change", hint="give at least one setting")
    path = layout.mcp_server_path(name, project)
    if not path.is_file():
        rel = path.relative_to(layout.root).as_posix()
        hint = "create it with 'roster mcp add'"
        if project and layout.mcp_server_path(name).is_file():
            hint = "the system entry exists: edit it without --project, or add a project entry"
        raise NotFoundError(f"{rel} does not exist", hint=hint)
    values = {
        k: patch.REMOVE if v is None else list(v) if isinstance(v, tuple) else v
        for k, v in changes.items()
    }
    literal_secrets.refuse(
        literal_secrets.find(
            {k: v for k, v in values.items() if v is not patch.REMOVE}, owner=name
        ),
        target=layout.relative(path),
        allow=allow_literal_secret,
    )
    patched = patch.patch_mcp_server(layout, name, values, project=project)
    row = _row(layout, name, project)
    assert row is not None
    return row._replace(diagnostics=patched.diagnostics)


def references(
    vault: str | os.PathLike[str], name: str, project: str | None = None
) -> list[Reference]:
    """Effective profiles that would resolve ``name`` to the entry of scope ``project``."""
    config = load_config(vault).config
    snapshot = load_vault(vault, embedded=config.embedded.name, commands=config.embedded.commands)
    profiles = [p.profile for p in snapshot.profiles.values() if p.profile is not None]
    servers = [s.server for s in snapshot.servers.values() if s.server is not None]
    index = ProfileIndex(config, profiles, servers)
    shadowed = {p for (p, n) in snapshot.servers if p is not None and n == name}
    checks: list[tuple[str, str | None]] = []
    if project is None:
        checks.extend((ident, None) for ident in index.system)
        checks.extend((i, p) for (p, i) in index.overrides if p not in shadowed)
    else:
        ids = set(index.system) | {i for (p, i) in index.overrides if p == project}
        checks.extend((ident, project) for ident in sorted(ids))
    found: dict[str, Reference] = {}
    for ident, scope in checks:
        effective = index.effective(ident, scope)
        if effective is None or name not in effective.profile.mcp_servers:
            continue
        origin = effective.origins.get("mcp_servers")
        where = origin.path if origin else effective.profile.source
        found.setdefault(where, Reference(ident, scope, where))
    return sorted(found.values(), key=lambda r: r.path)


def delete_mcp_server(
    vault: str | os.PathLike[str], name: str, project: str | None = None
) -> ServerRemoved:
    """Remove a registry file; refuses for the built-in entry and while referenced."""
    layout = VaultLayout(vault)
    check_segment(name, "server name")
    if name == _embedded(vault).name:
        raise UsageError(f"{name!r} is the built-in embedded server; it cannot be deleted")
    path = layout.mcp_server_path(name, project)
    rel = path.relative_to(layout.root).as_posix()
    if not path.is_file():
        raise NotFoundError(f"{rel} does not exist")
    fallback = layout.mcp_server_path(name) if project else None
    falls_back = fallback is not None and fallback.is_file()
    if not falls_back:
        refs = references(vault, name, project)
        if refs:
            listed = "; ".join(r.describe() for r in refs)
            raise UsageError(
                f"cannot delete MCP server {name!r}: {len(refs)} profile file(s) still "
                f"use it: {listed}",
                hint="remove the name from their ## MCP Servers lists first",
            )
    removed = remove_file(layout, path, folders=1 if project else 0)
    back = fallback.relative_to(layout.root).as_posix() if falls_back and fallback else None
    return ServerRemoved(removed, back)
