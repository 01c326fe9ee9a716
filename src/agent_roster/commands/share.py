"""``export_profile`` and ``import_profile`` (seed 001 "Export / Import & Sharing", issue 15
items 3 and 4).

Export writes one self-contained YAML file (:mod:`agent_roster.share.yaml_format`): the
profile as the vault defines it (``extends`` and the project override merged, roster.toml's
defaults left to the importer's vault), and the registry servers it uses with secrets turned
into ``${VAR}`` references. ``gist`` publishes it with ``gh gist create``.

Import takes that text (or a gist, fetched with ``gh gist view``), renders the profile.md it
describes and parses it with the vault's own parser before anything is written: a profile
that would not validate is not imported (``imported: false`` with the diagnostics). It keeps
exactly the tools and permissions the file states, never more. It writes the registry
servers the file brings (their literal secrets turned into ``${VAR}`` references; never
replacing a different one without ``overwrite``) and the profile (a literal secret in its
fields or prose is refused, ``literal-secret``, unless ``allow_literal_secret``), then
syncs, and says whether the sync took it. Dependencies are checked and listed; they are
installed only with ``install`` (the CLI asks at a terminal), never because a file asked.
Reading a file or stdin is the CLI's job: over HTTP and MCP a path would let a caller read
any file, so those surfaces take the text itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec
from msgspec import Meta

from agent_roster import literal_secrets
from agent_roster.commands.context import RosterContext
from agent_roster.commands.install import InstallProfileParams, install_profile, vault_index
from agent_roster.commands.writes import AllowLiteralSecret
from agent_roster.diagnostics import Diagnostic, Severity, did_you_mean
from agent_roster.diagnostics import make as diagnostic
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.known_tools import KnownTools
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.share import gist, yaml_format
from agent_roster.vault.guard import exists_in_vault, read_in_vault
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, check_segment
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.render import render_mcp_server, render_profile
from agent_roster.vault.writer import content_hash, write_in_vault

#: The largest export file import reads.
MAX_IMPORT_BYTES = 1 << 20
SOURCE = "<import>"


class ExportParams(msgspec.Struct, frozen=True, kw_only=True):
    id: Annotated[str, Meta(description="the profile id")]
    project: Annotated[str | None, Meta(description="project id: export its override")] = None
    gist: Annotated[bool, Meta(description="also publish it as a public gist (gh)")] = False


class Exported(msgspec.Struct, frozen=True, kw_only=True):
    profile_id: str
    yaml: str
    servers: list[str]
    gist_url: str | None = None


class ImportParams(msgspec.Struct, frozen=True, kw_only=True):
    yaml: Annotated[str | None, Meta(description="the export file's text")] = None
    gist: Annotated[str | None, Meta(description="a gist URL or id to fetch it from")] = None
    id: Annotated[str | None, Meta(description="import under this id instead")] = None
    overwrite: Annotated[
        bool, Meta(description="replace an existing profile and differing servers")
    ] = False
    install: Annotated[
        bool, Meta(description="install missing npm/pip dependencies after importing")
    ] = False
    allow_literal_secret: AllowLiteralSecret = False


class ImportResult(msgspec.Struct, frozen=True, kw_only=True):
    """Seed 001's ``{imported, name, installed, already_present, manual, ready}``, plus what
    was written and why not when nothing was."""

    imported: bool
    id: str | None
    name: str | None
    path: str | None
    servers_written: list[str]
    servers_kept: list[str]
    synced: bool
    diagnostics: list[Diagnostic]
    #: dependencies not installed (without ``install``: what it would install)
    missing: list[str]
    installed: list[str]
    already_present: list[str]
    manual: list[str]
    refused: list[str]
    ready: bool


def export_profile(ctx: RosterContext, params: ExportParams) -> Exported:
    """Export a profile and the MCP servers it uses as one shareable YAML file."""
    ident = check_segment(params.id, "profile id")
    if params.project is not None:
        check_segment(params.project, "project id")
    index = vault_index(ctx)
    profile = index.defined(ident, params.project)
    if profile is None:
        raise NotFoundError(
            f"no profile {ident!r}",
            hint=did_you_mean(ident, index.system) or "'roster profile list' shows them",
        )
    servers = [
        server
        for name in profile.mcp_servers
        if (server := index.server(name, params.project)) is not None and not server.builtin
    ]
    text = yaml_format.export_text(profile, servers)
    url = None
    if params.gist:
        url = gist.create(f"{ident}.yaml", text, f"Agent Profile: {profile.name}")
    return Exported(profile_id=ident, yaml=text, servers=[s.name for s in servers], gist_url=url)


def import_profile(ctx: RosterContext, params: ImportParams) -> ImportResult:
    """Import a shared profile (YAML text or a gist) into the vault, then sync it."""
    if (params.yaml is None) == (params.gist is None):
        raise UsageError("give the export's text or a gist, not both and not neither")
    text = params.yaml if params.yaml is not None else gist.fetch(params.gist or "")
    if len(text.encode("utf-8", "replace")) > MAX_IMPORT_BYTES:
        raise UsageError(f"the file is larger than {MAX_IMPORT_BYTES} bytes")
    try:
        body, unknown = yaml_format.read_export(text)
        ident = check_segment(params.id or str(body.get("id") or ""), "profile id")
        profile = yaml_format.profile_from(body, ident)
        servers = [yaml_format.secret_free(s) for s in yaml_format.servers_from(body)]
    except yaml_format.ImportProblem as problem:
        return _refused([_located("import-invalid", str(problem))])
    notes = [
        _located("field-unknown", f"agent_profile.{key} is not part of the format; ignored")
        for key in unknown
    ]
    layout = ctx.layout
    path = layout.profile_path(ident)
    rel = layout.relative(path)
    if exists_in_vault(layout, path) and not params.overwrite:
        raise UsageError(
            f"profile {ident!r} already exists ({rel})",
            hint="import it under another id with --id, or replace it with --overwrite",
        )
    # The servers' secrets became references above; the profile's own fields and prose are
    # refused as every other write refuses them (issue 13 item 4): a shared file is no
    # reason to put a token into a folder people sync and commit.
    literal_secrets.refuse(
        _profile_literals(profile), target=rel, allow=params.allow_literal_secret
    )
    server_texts, kept, server_problems = _servers_to_write(ctx, servers, params.overwrite)
    profile_text = render_profile(msgspec.structs.replace(profile, source=rel))
    known = KnownTools(
        _registry_names(ctx) | {s.name for s in servers},
        embedded=ctx.config().embedded.name,
        commands=ctx.config().embedded.commands,
    )
    parsed = parse_profile(profile_text, path=rel, expected_id=ident, known_tools=known)
    found = [*notes, *server_problems, *parsed.diagnostics]
    if any(d.is_error for d in found):
        return _refused(found, ident=ident, name=profile.name)
    written = []
    for server_path, server_text in server_texts:
        write_in_vault(layout, server_path, server_text, overwrite=True)
        written.append(layout.relative(server_path))
    write_in_vault(layout, path, profile_text, overwrite=True)
    synced = _synced(ctx, path, content_hash(profile_text.encode()))
    # Checked always, installed only with consent: a shared file never runs anything.
    deps = install_profile(ctx, InstallProfileParams(id=ident, yes=params.install))
    return ImportResult(
        imported=synced,
        id=ident,
        name=profile.name,
        path=rel,
        servers_written=written,
        servers_kept=kept,
        synced=synced,
        diagnostics=found,
        missing=[] if deps.consented else [spec for step in deps.plan for spec in step.specs],
        installed=deps.installed,
        already_present=deps.already_present,
        manual=deps.manual,
        refused=[f"{issue.spec}: {issue.detail}" for issue in deps.refused],
        ready=deps.ready,
    )


def _profile_literals(profile: AgentProfile) -> list[literal_secrets.Literal]:
    """The literal secrets among what the profile.md would hold: its fields, and its prose
    by section heading (``sections.Role``)."""
    data = msgspec.to_builtins(profile)
    for key in ("id", "source", "project", "created_at", "updated_at", "fields_set"):
        data.pop(key, None)
    data.pop("sections", None)
    prose = {section.heading or "Role": section.body for section in profile.sections}
    # In prose only values that give themselves away count (literal_secrets.in_prose).
    return literal_secrets.find(data, owner=profile.id) + literal_secrets.in_prose(
        prose, owner=profile.id
    )


def _servers_to_write(
    ctx: RosterContext, servers: list[McpServer], overwrite: bool
) -> tuple[list[tuple[Path, str]], list[str], list[Diagnostic]]:
    """The server files to write, the names kept as the vault has them, and problems."""
    layout = ctx.layout
    builtin = ctx.config().embedded.name
    writes: list[tuple[Path, str]] = []
    kept: list[str] = []
    problems: list[Diagnostic] = []
    for server in servers:
        name = check_segment(server.name, "server name")
        if name == builtin:
            problems.append(
                _located("import-invalid", f"server {name!r} is the embedded server's name")
            )
            continue
        path = layout.mcp_server_path(name)
        text = render_mcp_server(server)
        if exists_in_vault(layout, path):
            current = parse_mcp_server(
                read_in_vault(layout, path), path=layout.relative(path), expected_name=name
            ).server
            same = current is not None and _same_server(current, server)
            if same or not overwrite:
                kept.append(name)
                if not same:
                    problems.append(
                        _located(
                            "import-server-differs",
                            f"the vault's server {name!r} differs from the file's; kept the "
                            "vault's (--overwrite replaces it)",
                            severity=Severity.WARNING,
                        )
                    )
                continue
        parsed = parse_mcp_server(text, path=layout.relative(path), expected_name=name)
        problems.extend(parsed.diagnostics)
        writes.append((path, text))
    return writes, kept, problems


def _same_server(a: McpServer, b: McpServer) -> bool:
    left, right = a.to_json_dict(), b.to_json_dict()
    keys = yaml_format.SERVER_FIELDS
    return all(left[k] == right[k] for k in keys if k != "description")


def _registry_names(ctx: RosterContext) -> set[str]:
    return {
        entry.entry.id
        for entry in ctx.layout.iter_entries()
        if entry.entry.kind is EntryKind.MCP_SERVER and entry.entry.project is None
    }


def _synced(ctx: RosterContext, path: Path, digest: str) -> bool:
    from agent_roster.commands.writes import synced

    return synced(ctx, path, digest, wait=True)


def _located(code: str, message: str, *, severity: Severity | None = None) -> Diagnostic:
    return diagnostic(
        code,
        message,
        path=SOURCE,
        hint="an export file is '# Agent Profile: <name>' then an agent_profile: mapping",
        severity=severity,
    )


def _refused(
    found: list[Diagnostic], *, ident: str | None = None, name: str | None = None
) -> ImportResult:
    return ImportResult(
        imported=False,
        id=ident,
        name=name,
        path=None,
        servers_written=[],
        servers_kept=[],
        synced=False,
        diagnostics=found,
        missing=[],
        installed=[],
        already_present=[],
        manual=[],
        refused=[],
        ready=False,
    )
