"""``discover`` and ``import``: the agents a harness would load, and copying them into the
vault as profile.md files (their MCP servers as registry entries).

Discovery is the codec's job (each harness's own precedence and refusals); import adds the
vault's rules: names must be safe path segments, nothing is overwritten without
``overwrite``, and every file is validated by the vault parser before it is written, so an
import can never leave a file ``roster validate`` rejects.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.codecs import get_codec
from agent_roster.codecs.base import Discovery, Loss, Roots
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
from agent_roster.vault.writer import write_in_vault


def discover_agents(
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

    def to_dict(self) -> dict[str, object]:
        return {
            "files": [f._asdict() for f in self.files],
            "losses": [loss.to_dict() for loss in self.losses],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "refused": self.refused,
            "dry_run": self.dry_run,
        }


def import_agents(
    vault: str | os.PathLike[str],
    harness: str,
    *,
    workspace: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    project: str | None = None,
    overwrite: bool = False,
    dry_run: bool = False,
) -> ImportReport:
    """Write what ``harness`` would load into the vault (the system scope, or ``project``'s
    overrides and registry)."""
    if project is not None:
        check_segment(project, "project id")
    found = discover_agents(harness, workspace=workspace, home=home)
    run = _Import(VaultLayout(vault), project, overwrite=overwrite, dry_run=dry_run)
    run.diagnostics.extend(found.diagnostics)
    for server in found.servers:
        run.server(server)
    embedded = load_config(vault).config.embedded.name
    known = KnownTools(run.server_names(), embedded=embedded)
    for profile in found.profiles:
        run.profile(profile, known)
    return ImportReport(
        tuple(run.files), found.losses, tuple(run.diagnostics), found.refused, dry_run
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
        text = render_mcp_server(server)
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
        profile = msgspec.structs.replace(profile, project=self.project, source="")
        path = self.layout.profile_path(profile.id, self.project)
        rel = self.layout.relative(path)
        text = render_profile(profile)
        parsed = parse_profile(
            text, path=rel, expected_id=profile.id, project=self.project, known_tools=known
        )
        if not parsed.ok:
            # The vault would reject what we write: report where, in the file we would write.
            self.diagnostics.extend(parsed.diagnostics)
            return
        self._write("profile", profile.id, path, rel, text)

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
