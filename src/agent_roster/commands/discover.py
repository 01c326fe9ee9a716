"""``discover`` and ``import``: the agents a harness would load, and copying them into the
vault as profile.md files (their MCP servers as registry entries).

Discovery is the codec's job (each harness's own precedence and refusals); import adds the
vault's rules: names must be safe path segments, nothing is overwritten without
``overwrite``, and every file is validated by the vault parser before it is written, so an
import can never leave a file ``roster validate`` rejects.

Nothing literal is written silently (issue 13 item 4): an MCP server's literal secret (an
env value, a header, an argument, a URL credential) is written as a ``${VAR}`` reference,
with a ``literal-secret`` warning naming the variable to set; an agent holding one in its
prompt or pass-through settings is not imported (an error saying where). With
``allow_literal_secret`` both are written as they are.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import msgspec
from msgspec import Meta

from agent_roster import diagnostics as dx
from agent_roster import literal_secrets
from agent_roster.codecs import get_codec
from agent_roster.codecs.base import Discovery, Loss, LossOutcome, Roots
from agent_roster.codecs.opencode.rules import first_difference
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import PathOutsideVaultError
from agent_roster.known_tools import KnownTools
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.config import load_config
from agent_roster.vault.guard import exists_in_vault, read_in_vault
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment, segment_problem
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.render import render_mcp_server, render_profile
from agent_roster.vault.writer import content_hash, write_in_vault

if TYPE_CHECKING:
    from agent_roster.commands.context import RosterContext

Harness = Annotated[str, Meta(description="the harness: claude, opencode, codex, gemini, ...")]
Workspace = Annotated[
    str | None, Meta(description="the project folder it reads (default: the current folder)")
]
Home = Annotated[str | None, Meta(description="the user's home it reads (default: yours)")]


def same_rules(imported: AgentProfile, written: AgentProfile) -> bool:
    """Whether the profile the vault reads back decides every call as the imported one."""
    if imported.permission == written.permission:
        return True
    return first_difference(imported.permission, written.permission) is None


class DiscoverAgentsParams(msgspec.Struct, frozen=True, kw_only=True):
    harness: Harness
    workspace: Workspace = None
    home: Home = None


class Discovered(msgspec.Struct, frozen=True, kw_only=True):
    """The agents the harness would load (``source``: the file each came from), the MCP
    servers they use (secrets masked), what could not be carried over, and the harness's
    own refusals (``refused``: it would refuse a file or the whole load)."""

    profiles: Annotated[list[dict[str, Any]], Meta(description="profiles, JSON form")]
    diagnostics: list[Diagnostic]
    servers: list[dict[str, Any]]
    losses: list[Loss]
    refused: bool


def discover_agents(ctx: RosterContext, params: DiscoverAgentsParams) -> Discovered:
    """List the agents a harness would load from a workspace and home, by its own rules."""
    from agent_roster.redact import server_dict

    found = discover(params.harness, workspace=params.workspace, home=params.home)
    return Discovered(
        profiles=[p.to_json_dict() for p in found.profiles],
        diagnostics=list(found.diagnostics),
        servers=[server_dict(s) for s in found.servers],
        losses=list(found.losses),
        refused=found.refused,
    )


class ImportFromHarnessParams(msgspec.Struct, frozen=True, kw_only=True):
    harness: Harness
    workspace: Workspace = None
    home: Home = None
    project: Annotated[str | None, Meta(description="import as this project's overrides")] = None
    overwrite: Annotated[bool, Meta(description="replace vault files that differ")] = False
    dry_run: Annotated[bool, Meta(description="report what would be written; write nothing")] = (
        False
    )
    allow_literal_secret: Annotated[
        bool,
        Meta(
            description="keep secrets' values as they are; by default a server's become "
            "${VAR} references and an agent holding one is not imported"
        ),
    ] = False
    wait: Annotated[bool, Meta(description="wait until the database has synced the files")] = True


class ImportedFile(msgspec.Struct, frozen=True, kw_only=True):
    kind: Annotated[str, Meta(description="profile or mcp-server")]
    name: str
    path: Annotated[str, Meta(description="relative to the vault")]
    status: Annotated[str, Meta(description="created, overwritten, unchanged or skipped")]


class ImportResult(msgspec.Struct, frozen=True, kw_only=True):
    """Every vault file the import wrote, would write or left alone, every field it could
    not carry over, the vault's diagnostics on what it wrote, and whether the database has
    synced what was written."""

    files: list[ImportedFile]
    losses: list[Loss]
    diagnostics: list[Diagnostic]
    refused: bool
    dry_run: bool
    synced: bool

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def import_from_harness(ctx: RosterContext, params: ImportFromHarnessParams) -> ImportResult:
    """Write the agents a harness would load into the vault as profile.md files."""
    from agent_roster.commands.writes import synced_all

    report = import_agents(
        ctx.vault,
        params.harness,
        workspace=params.workspace,
        home=params.home,
        project=params.project,
        overwrite=params.overwrite,
        dry_run=params.dry_run,
        allow_literal_secret=params.allow_literal_secret,
    )
    layout = ctx.layout
    written: list[tuple[Path, str | None]] = []
    if not params.dry_run:
        for item in report.files:
            if item.status in ("created", "overwritten"):
                path = layout.root / item.path
                written.append((path, content_hash(read_in_vault(layout, path))))
    return ImportResult(
        files=[ImportedFile(**item._asdict()) for item in report.files],
        losses=list(report.losses),
        diagnostics=list(report.diagnostics),
        refused=report.refused,
        dry_run=report.dry_run,
        synced=not params.dry_run and synced_all(ctx, written, params.wait),
    )


def discover(
    harness: str,
    *,
    workspace: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> Discovery:
    """The agents ``harness`` would load from ``workspace`` (default: the current folder)
    and ``home`` (default: the user's home), decided by that harness's rules."""
    codec = get_codec(harness)
    roots = Roots(
        workspace=Path(workspace) if workspace is not None else Path.cwd(),
        home=Path(home) if home is not None else Path.home(),
    )
    return codec.discover(roots)


class Imported(NamedTuple):
    """One vault file an import wrote, would write, or left alone."""

    kind: str  # "profile" or "mcp-server"
    name: str
    path: str  # relative to the vault
    status: str  # "created", "overwritten", "unchanged", "skipped"


class ImportReport(NamedTuple):
    files: tuple[Imported, ...]
    losses: tuple[Loss, ...]
    diagnostics: tuple[Diagnostic, ...]
    refused: bool
    dry_run: bool

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def import_agents(
    vault: str | os.PathLike[str],
    harness: str,
    *,
    workspace: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    project: str | None = None,
    overwrite: bool = False,
    dry_run: bool = False,
    allow_literal_secret: bool = False,
) -> ImportReport:
    """Write what ``harness`` would load into the vault (the system scope, or ``project``'s
    overrides and registry); literal secrets as the module docstring says."""
    if project is not None:
        check_segment(project, "project id")
    found = discover(harness, workspace=workspace, home=home)
    run = _Import(VaultLayout(vault), project, overwrite=overwrite, dry_run=dry_run)
    run.allow_literal_secret = allow_literal_secret
    run.diagnostics.extend(found.diagnostics)
    for server in found.servers:
        run.server(server)
    embedded = load_config(vault).config.embedded
    known = KnownTools(run.server_names(), embedded=embedded.name, commands=embedded.commands)
    for profile in found.profiles:
        run.profile(profile, known)
    return ImportReport(
        tuple(run.files),
        (*found.losses, *run.losses),
        tuple(run.diagnostics),
        found.refused,
        dry_run,
    )


class _Import:
    def __init__(
        self, layout: VaultLayout, project: str | None, *, overwrite: bool, dry_run: bool
    ) -> None:
        self.layout = layout
        self.project = project
        self.overwrite = overwrite
        self.dry_run = dry_run
        self.files: list[Imported] = []
        self.diagnostics: list[Diagnostic] = []
        self.allow_literal_secret = False
        self.losses: list[Loss] = []

    def server_names(self) -> set[str]:
        """Registry names visible in the import's scope: the vault's and those imported.
        Vault files that are not loaded (and why) join the report: the import's checks
        rest on that registry."""
        names = {f.name for f in self.files if f.kind == "mcp-server"}
        names.update(
            scanned.entry.id
            for scanned in self.layout.iter_entries(self.diagnostics)
            if scanned.entry.kind is EntryKind.MCP_SERVER
            and scanned.entry.project in (None, self.project)
        )
        return names

    def _unsafe(self, name: str, what: str, source: str) -> bool:
        problem = segment_problem(name)
        if problem is None:
            return False
        self.diagnostics.append(
            dx.make(
                "name-unsafe",
                f"cannot import {what} {name!r}: {problem}",
                path=source or name,
                hint="rename it in the harness first; vault names are single path segments",
            )
        )
        return True

    def server(self, server: McpServer) -> None:
        if self._unsafe(server.name, "MCP server", server.source):
            return
        server = msgspec.structs.replace(server, project=self.project, source="")
        path = self.layout.mcp_server_path(server.name, self.project)
        rel = self.layout.relative(path)
        literals: list[literal_secrets.Literal] = []
        if not self.allow_literal_secret:
            server, literals = literal_secrets.referenced(server)
        text = render_mcp_server(server)
        for item in literals:
            at = text.find(item.form)
            line = text.count("\n", 0, at) + 1 if at >= 0 else 1
            self.diagnostics.append(
                dx.make(
                    "literal-secret",
                    f"the MCP server {server.name!r} held a literal secret in {item.where}; "
                    f"it is written as {item.form}",
                    path=rel,
                    line=line,
                    column=at - text.rfind("\n", 0, at) if at >= 0 else 1,
                    hint=f"set {item.variable} in the environment the harness runs in "
                    "(rendered files reference it), or import with --allow-literal-secret "
                    "to keep the value in the vault",
                )
            )
        parsed = parse_mcp_server(text, path=rel, expected_name=server.name, project=self.project)
        if not parsed.ok or parsed.server is None:
            self.diagnostics.extend(parsed.diagnostics)
            return
        try:
            raw = read_in_vault(self.layout, path)
        except PathOutsideVaultError as exc:
            self.diagnostics.extend(exc.diagnostics)
            self.files.append(Imported("mcp-server", server.name, rel, "skipped"))
            return
        except OSError:
            raw = None  # missing (or unreadable: the write below decides)
        if raw is not None:
            existing = parse_mcp_server(
                raw, path=rel, expected_name=server.name, project=self.project
            )
            if (
                existing.ok
                and existing.server is not None
                and _same_server(existing.server, parsed.server)
            ):
                self.files.append(Imported("mcp-server", server.name, rel, "unchanged"))
                return
        self._write("mcp-server", server.name, path, rel, text)

    def profile(self, profile: AgentProfile, known: KnownTools) -> None:
        if self._unsafe(profile.id, "agent", profile.source):
            return
        profile = self._storable(profile)
        profile = msgspec.structs.replace(profile, project=self.project, source="")
        path = self.layout.profile_path(profile.id, self.project)
        rel = self.layout.relative(path)
        if not self.allow_literal_secret and self._holds_literal(profile, rel):
            return
        text = render_profile(profile)
        parsed = parse_profile(
            text, path=rel, expected_id=profile.id, project=self.project, known_tools=known
        )
        # The vault's warnings about what we write (a tool no registry knows) are the import's
        # too; its errors mean the file would be rejected, so nothing is written.
        self.diagnostics.extend(parsed.diagnostics)
        if not parsed.ok:
            return
        if parsed.profile is not None and not same_rules(profile, parsed.profile):
            # The Config "permission" object holds each key once: rules a harness keeps at
            # two places of its list cannot be written without changing a decision.
            self.diagnostics.append(
                dx.make(
                    "import-inexact",
                    f"the permission rules of agent {profile.id!r} cannot be written as one "
                    "permission object without changing a decision; not imported",
                    path=profile.source or rel,
                    hint="simplify the agent's rules in the harness (each key's rules together)",
                )
            )
            self.files.append(Imported("profile", profile.id, rel, "skipped"))
            return
        self._write("profile", profile.id, path, rel, text)

    def _holds_literal(self, profile: AgentProfile, rel: str) -> bool:
        """An agent with a literal secret in its prompt or settings is not imported: a
        prompt cannot reference an environment variable. In the prompt only a value that
        gives itself away counts (a token of a known shape, a password in a URL): prompts
        show keys and code (``token: process.env.X``) that are no secret."""
        found = literal_secrets.find(
            {
                "description": profile.description,
                "config.harness": profile.harness,
                "config": profile.extra_config,
                "metadata": profile.metadata,
            },
            owner=profile.id,
        )
        prose = literal_secrets.in_prose(
            {s.heading or "Role": s.body for s in profile.sections}, owner=profile.id
        )
        for item in found:
            self.diagnostics.append(
                dx.make(
                    "literal-secret",
                    f"agent {profile.id!r} is not imported: its {item.where} holds a literal "
                    "secret",
                    path=rel,
                    severity=dx.Severity.ERROR,
                    hint=f"remove it from the harness's file (a setting can take {item.form} "
                    f"and {item.variable} set in the environment), or import with "
                    "--allow-literal-secret",
                )
            )
        for item in prose:
            self.diagnostics.append(
                dx.make(
                    "literal-secret",
                    f"agent {profile.id!r} is not imported: its {item.where} holds a literal "
                    f"secret ({item.form.strip()[:120]})",
                    path=rel,
                    severity=dx.Severity.ERROR,
                    hint="remove it from the prompt in the harness's file (a prompt cannot "
                    "read the environment), or import with --allow-literal-secret",
                )
            )
        found += prose
        if found:
            self.files.append(Imported("profile", profile.id, rel, "skipped"))
        return bool(found)

    def _storable(self, profile: AgentProfile) -> AgentProfile:
        """``profile`` without the values a vault file cannot hold (JSON has no date or
        time, NaN or infinity: TOML and YAML do), each reported as a dropped field."""
        changes: dict[str, Any] = {}
        for field in ("temperature", "top_p"):
            value = getattr(profile, field)
            if value is not None and not math.isfinite(value):
                changes[field] = None
                self._dropped(profile, field, repr(value))
        harness: dict[str, dict[str, Any]] = {}
        for codec, block in profile.harness.items():
            kept = {key: value for key, value in block.items() if _storable(value)}
            for key in block.keys() - kept.keys():
                self._dropped(profile, f"harness.{codec}.{key}", "a date, a time, NaN or infinity")
            harness[codec] = kept
        if harness != profile.harness:
            changes["harness"] = {codec: block for codec, block in harness.items() if block}
        return msgspec.structs.replace(profile, **changes) if changes else profile

    def _dropped(self, profile: AgentProfile, field: str, what: str) -> None:
        self.losses.append(
            Loss(
                profile=profile.id,
                field=field,
                outcome=LossOutcome.DROPPED,
                detail=f"holds {what}, which a vault file (JSON) cannot hold; not imported",
            )
        )

    def _write(self, kind: str, name: str, path: Path, rel: str, text: str) -> None:
        try:
            exists = exists_in_vault(self.layout, path)
            current = read_in_vault(self.layout, path) if exists else None
        except PathOutsideVaultError as exc:
            self.diagnostics.extend(exc.diagnostics)
            self.files.append(Imported(kind, name, rel, "skipped"))
            return
        except OSError:
            current = None
        if current is not None and current.decode("utf-8", errors="replace") == text:
            self.files.append(Imported(kind, name, rel, "unchanged"))
            return
        if exists and not self.overwrite:
            self.diagnostics.append(
                dx.make(
                    "import-exists",
                    f"{rel} already exists and differs from the imported {kind} {name!r}",
                    path=rel,
                    hint="pass --overwrite to replace it, or rename the agent in the harness",
                )
            )
            self.files.append(Imported(kind, name, rel, "skipped"))
            return
        if not self.dry_run:
            try:
                write_in_vault(self.layout, path, text, overwrite=True)
            except PathOutsideVaultError as exc:
                self.diagnostics.extend(exc.diagnostics)
                self.files.append(Imported(kind, name, rel, "skipped"))
                return
        self.files.append(Imported(kind, name, rel, "overwritten" if exists else "created"))


def _same_server(a: McpServer, b: McpServer) -> bool:
    ignore = {"source", "notes"}
    fields = [f for f in a.__struct_fields__ if f not in ignore]
    return all(getattr(a, f) == getattr(b, f) for f in fields)


def _storable(value: Any) -> bool:
    """Whether JSON holds ``value`` exactly (walked without recursion: parsed files nest
    as deep as their parsers allow)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif not (item is None or isinstance(item, bool | int | str)):
            return False
    return True
