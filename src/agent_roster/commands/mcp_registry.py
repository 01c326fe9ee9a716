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

Writes go through the file as :mod:`.writes` says (edits in place against a ``base_hash``,
then synced). Every result carries the server with its secrets already masked
(:func:`agent_roster.redact.server_dict`), so no surface can show a token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NamedTuple

import msgspec
from msgspec import UNSET, Meta, UnsetType

from agent_roster import literal_secrets
from agent_roster.commands.context import RosterContext
from agent_roster.commands.project_files import remove_file
from agent_roster.commands.writes import AllowLiteralSecret, BaseHash, Wait, check_base, synced
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.redact import server_dict
from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.vault import patch
from agent_roster.vault.guard import read_diagnostic, read_in_vault
from agent_roster.vault.loader import load_vault
from agent_roster.vault.mcp_parser import SERVER_KEYS, TRANSPORTS, parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment
from agent_roster.vault.render import render_mcp_server
from agent_roster.vault.writer import content_hash, write_in_vault

BUILTIN = "builtin"
SYSTEM = "system"
PROJECT = "project"

ServerName = Annotated[str, Meta(description="the registry name: its file mcp-servers/<name>.md")]
ProjectScope = Annotated[
    str | None, Meta(description="the project's registry (projects/<pid>/mcp-servers/)")
]


# -- results ------------------------------------------------------------------------------
class ServerRow(msgspec.Struct, frozen=True, kw_only=True):
    """One registry entry. ``active`` is false when another entry shadows it
    (``shadowed_by``) or when its file has errors (``diagnostics``); ``server`` has its
    secrets masked; ``content_hash`` is what an edit or delete must send back."""

    name: str
    scope: Annotated[str, Meta(description="builtin, system or project")]
    project: str | None
    path: str | None
    active: bool
    shadowed_by: str | None
    server: Annotated[dict[str, Any] | None, Meta(description="the entry, secrets masked")]
    diagnostics: list[Diagnostic]
    content_hash: str | None = None


class ServerList(msgspec.Struct, frozen=True, kw_only=True):
    """The built-in entry, the system entries and the project's, sorted by name, and what
    the scan left out for a reason the user must hear (``diagnostics``: a registry folder
    that is a symlink leading outside the vault, ``path-outside-vault``)."""

    project: str | None
    servers: list[ServerRow]
    diagnostics: list[Diagnostic] = []


class ServerWritten(ServerRow, frozen=True, kw_only=True):
    """A created or edited entry, and whether the database has synced it."""

    synced: bool = False


class ServerRemoved(msgspec.Struct, frozen=True, kw_only=True):
    """What a delete removed, the system entry a project's profiles now get instead (if
    any), and whether the database has seen the file gone."""

    removed: list[str]
    falls_back_to: str | None
    synced: bool


# -- parameters ---------------------------------------------------------------------------
class ListMcpServersParams(msgspec.Struct, frozen=True, kw_only=True):
    project: ProjectScope = None


class GetMcpServerParams(msgspec.Struct, frozen=True, kw_only=True):
    name: ServerName
    project: Annotated[
        str | None, Meta(description="resolve from this project (its entry first)")
    ] = None


class ServerSettings(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Settings to set. Left out: unchanged. ``null``: removed (edit only)."""

    transport: Annotated[
        str | UnsetType | None,
        Meta(description="stdio, http or sse (create: http when only url is given, else stdio)"),
    ] = UNSET
    command: Annotated[str | UnsetType | None, Meta(description="program to run (stdio)")] = UNSET
    args: Annotated[list[str] | UnsetType | None, Meta(description="its arguments")] = UNSET
    env: Annotated[dict[str, str] | UnsetType | None, Meta(description="its environment")] = UNSET
    url: Annotated[str | UnsetType | None, Meta(description="server URL (http, sse)")] = UNSET
    headers: Annotated[dict[str, str] | UnsetType | None, Meta(description="HTTP headers")] = UNSET
    description: str | UnsetType | None = UNSET

    def given(self) -> dict[str, Any]:
        """The settings that were given (``None`` for one to remove)."""
        return {
            f: getattr(self, f)
            for f in ServerSettings.__struct_fields__
            if getattr(self, f) is not UNSET
        }


class CreateMcpServerParams(ServerSettings, frozen=True, kw_only=True):
    name: ServerName
    project: ProjectScope = None
    allow_literal_secret: AllowLiteralSecret = False
    wait: Wait = True


class EditMcpServerParams(ServerSettings, frozen=True, kw_only=True):
    name: ServerName
    project: ProjectScope = None
    base_hash: BaseHash
    allow_literal_secret: AllowLiteralSecret = False
    wait: Wait = True


class DeleteMcpServerParams(msgspec.Struct, frozen=True, kw_only=True):
    name: ServerName
    project: ProjectScope = None
    base_hash: BaseHash
    wait: Wait = True


class _Entry(NamedTuple):
    """A registry file as read: its row fields and the parsed server."""

    name: str
    scope: str
    project: str | None
    path: str | None
    server: McpServer | None
    diagnostics: tuple[Diagnostic, ...]
    content_hash: str | None

    def row(self, *, active: bool | None = None, shadowed_by: str | None = None) -> ServerRow:
        return ServerRow(
            name=self.name,
            scope=self.scope,
            project=self.project,
            path=self.path,
            active=self.server is not None if active is None else active,
            shadowed_by=shadowed_by,
            server=server_dict(self.server) if self.server is not None else None,
            diagnostics=list(self.diagnostics),
            content_hash=self.content_hash,
        )


class Reference(NamedTuple):
    profile_id: str
    project: str | None
    path: str

    def describe(self) -> str:
        where = f" in project {self.project!r}" if self.project else ""
        return f"{self.profile_id}{where} ({self.path})"


def _embedded(vault: Path) -> McpServer:
    return ProfileIndex(load_config(vault).config).embedded_server()


def _entry(layout: VaultLayout, name: str, project: str | None) -> _Entry | None:
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
    digest = content_hash(raw) if raw is not None else None
    return _Entry(name, scope, project, rel, server, errors, digest)


def _builtin(vault: Path) -> _Entry:
    server = _embedded(vault)
    return _Entry(server.name, BUILTIN, None, None, server, (), None)


# -- commands -----------------------------------------------------------------------------
def list_mcp_servers(ctx: RosterContext, params: ListMcpServersParams) -> ServerList:
    """List MCP servers in the registry: built-in, system and the project's."""
    skipped: list[Diagnostic] = []
    listed = _listing(ctx, params.project, skipped)
    return ServerList(
        project=params.project,
        servers=[entry.row(active=active, shadowed_by=by) for entry, active, by in listed],
        # A linked mcp-servers/ (or projects/, projects/<p>/) read as empty must be said;
        # links of the profile folders are the profile commands' to report.
        diagnostics=[
            d
            for d in skipped
            if d.code == "path-outside-vault" and "agent-types" not in Path(d.path).parts
        ],
    )


def active_servers(ctx: RosterContext, project: str | None) -> list[McpServer]:
    """The registry entries in effect from ``project`` (or the system scope), as they are:
    with their secrets, for work in this process (probing); never a command's result."""
    return [
        entry.server
        for entry, active, _by in _listing(ctx, project)
        if active and entry.server is not None and not entry.server.builtin
    ]


def _listing(
    ctx: RosterContext, project: str | None, skipped: list[Diagnostic] | None = None
) -> list[tuple[_Entry, bool, str | None]]:
    """Every entry (built-in first, then by name, the project's before the system's), with
    whether it is in effect and what shadows it; what the scan left out goes to
    ``skipped``."""
    layout = ctx.layout
    if project is not None:
        check_segment(project, "project id")
    builtin = _builtin(ctx.vault)
    names = sorted(
        {
            s.entry.id
            for s in layout.iter_entries(skipped)
            if s.entry.kind is EntryKind.MCP_SERVER and s.entry.project in (None, project)
        }
    )
    rows: list[tuple[_Entry, bool, str | None]] = [(builtin, True, None)]
    for name in names:
        local = _entry(layout, name, project) if project else None
        system = _entry(layout, name, None)
        for entry in (local, system):
            if entry is None:
                continue
            if name == builtin.name:
                rows.append((entry, False, BUILTIN))
            elif entry is system and local is not None:
                rows.append((entry, False, PROJECT))
            else:
                rows.append((entry, entry.server is not None, None))
    return rows


def get_mcp_server(ctx: RosterContext, params: GetMcpServerParams) -> ServerRow:
    """Show the MCP server a name resolves to (project first, then system, then built in)."""
    layout = ctx.layout
    name, project = params.name, params.project
    check_segment(name, "server name")
    builtin = _builtin(ctx.vault)
    if name == builtin.name:
        return builtin.row()
    for scope in (project, None) if project else (None,):
        entry = _entry(layout, name, scope)
        if entry is not None:
            return entry.row()
    known = [r.name for r in list_mcp_servers(ctx, ListMcpServersParams(project=project)).servers]
    where = f" of project {project!r} or the system" if project else ""
    raise NotFoundError(
        f"no MCP server {name!r} in the registry{where}",
        hint=did_you_mean(name, known) or f"create it with 'roster mcp add {name} ...'",
    )


def create_mcp_server(ctx: RosterContext, params: CreateMcpServerParams) -> ServerWritten:
    """Add an MCP server to the registry; refused when it exists or would not be valid.

    A secret's value (a token, an Authorization header) is refused too, unless
    ``allow_literal_secret``: write a ``${VAR}`` reference and set VAR in the environment."""
    layout = ctx.layout
    name, project = params.name, params.project
    check_segment(name, "server name")
    if project is not None:
        check_segment(project, "project id")
    if name == _embedded(ctx.vault).name:
        raise UsageError(
            f"{name!r} is the built-in embedded server; it cannot be replaced",
            hint="choose another name, or configure it in roster.toml [embedded_server]",
        )
    given = {k: v for k, v in params.given().items() if v is not None}
    # Left out, the transport follows from what is given: a URL alone means HTTP.
    transport = given.get("transport") or (
        "http" if given.get("url") and not given.get("command") else "stdio"
    )
    if transport not in TRANSPORTS:
        raise UsageError(
            f"transport {transport!r} is not one of {', '.join(TRANSPORTS)}",
            hint=did_you_mean(transport, TRANSPORTS),
        )
    path = layout.mcp_server_path(name, project)
    rel = path.relative_to(layout.root).as_posix()
    if path.exists():
        raise UsageError(f"{rel} already exists", hint="change it with edit_mcp_server")
    server = McpServer(
        name=name,
        transport=Transport(transport),
        command=given.get("command", ""),
        args=tuple(given.get("args", ())),
        env=dict(given.get("env", {})),
        url=given.get("url", ""),
        headers=dict(given.get("headers", {})),
        description=given.get("description", ""),
    )
    literal_secrets.refuse(
        literal_secrets.in_server(server), target=rel, allow=params.allow_literal_secret
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
    digest = content_hash(text.encode())
    return ServerWritten(
        name=name,
        scope=PROJECT if project else SYSTEM,
        project=project,
        path=rel,
        active=True,
        shadowed_by=None,
        server=server_dict(parsed.server),
        diagnostics=list(parsed.diagnostics),
        content_hash=digest,
        synced=synced(ctx, path, digest, params.wait),
    )


EDITABLE = tuple(k for k in SERVER_KEYS if k != "name")


def edit_mcp_server(ctx: RosterContext, params: EditMcpServerParams) -> ServerWritten:
    """Change an MCP server's settings in place (args, env and headers are replaced whole).

    A new value that is a secret's value is refused, unless ``allow_literal_secret``."""
    layout = ctx.layout
    name, project = params.name, params.project
    check_segment(name, "server name")
    if name == _embedded(ctx.vault).name:
        raise UsageError(
            f"{name!r} is the built-in embedded server; it cannot be edited",
            hint="configure it in roster.toml [embedded_server]",
        )
    changes = params.given()
    if not changes:
        raise UsageError("nothing to change", hint="give at least one setting")
    path = layout.mcp_server_path(name, project)
    if not path.is_file():
        rel = path.relative_to(layout.root).as_posix()
        hint = "create it with create_mcp_server"
        if project and layout.mcp_server_path(name).is_file():
            hint = "the system entry exists: edit it without a project, or add a project entry"
        raise NotFoundError(f"{rel} does not exist", hint=hint)
    values = {k: patch.REMOVE if v is None else v for k, v in changes.items()}
    literal_secrets.refuse(
        literal_secrets.find({k: v for k, v in changes.items() if v is not None}, owner=name),
        target=layout.relative(path),
        allow=params.allow_literal_secret,
    )
    patched = patch.patch_mcp_server(
        layout, name, values, project=project, base_hash=params.base_hash
    )
    entry = _entry(layout, name, project)
    assert entry is not None
    digest = entry.content_hash or ""
    row = entry.row()
    return ServerWritten(
        name=row.name,
        scope=row.scope,
        project=row.project,
        path=row.path,
        active=row.active,
        shadowed_by=row.shadowed_by,
        server=row.server,
        diagnostics=list(patched.diagnostics),
        content_hash=digest,
        synced=synced(ctx, path, digest, params.wait) if patched.changed else True,
    )


def references(vault: Path, name: str, project: str | None = None) -> list[Reference]:
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


def delete_mcp_server(ctx: RosterContext, params: DeleteMcpServerParams) -> ServerRemoved:
    """Remove an MCP server from the registry; refused while a profile still uses it."""
    layout = ctx.layout
    name, project = params.name, params.project
    check_segment(name, "server name")
    if name == _embedded(ctx.vault).name:
        raise UsageError(f"{name!r} is the built-in embedded server; it cannot be deleted")
    path = layout.mcp_server_path(name, project)
    rel = path.relative_to(layout.root).as_posix()
    try:
        raw = read_in_vault(layout, path)
    except FileNotFoundError:
        raise NotFoundError(f"{rel} does not exist") from None
    check_base(layout, path, raw, params.base_hash, "deleted")
    fallback = layout.mcp_server_path(name) if project else None
    falls_back = fallback is not None and fallback.is_file()
    if not falls_back:
        refs = references(ctx.vault, name, project)
        if refs:
            listed = "; ".join(r.describe() for r in refs)
            raise UsageError(
                f"cannot delete MCP server {name!r}: {len(refs)} profile file(s) still "
                f"use it: {listed}",
                hint="remove the name from their ## MCP Servers lists first",
            )
    removed = remove_file(layout, path, folders=1 if project else 0)
    back = fallback.relative_to(layout.root).as_posix() if falls_back and fallback else None
    return ServerRemoved(
        removed=list(removed), falls_back_to=back, synced=synced(ctx, path, None, params.wait)
    )
