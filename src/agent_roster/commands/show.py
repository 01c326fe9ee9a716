"""``show``: one profile, read straight from the vault (no database needed)."""

from __future__ import annotations

import os
from typing import NamedTuple

from agent_roster.diagnostics import Diagnostic, did_you_mean, list_profiles_hint
from agent_roster.errors import NotFoundError
from agent_roster.known_tools import KnownTools
from agent_roster.model.profile import AgentProfile
from agent_roster.resolve.config import load_config
from agent_roster.vault.loader import read_bytes, server_names
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.writer import content_hash


class ShownProfile(NamedTuple):
    """The profile as the file defines it, the file's diagnostics, and the ``content_hash``
    of the bytes read (empty when the file could not be read)."""

    profile: AgentProfile | None
    diagnostics: tuple[Diagnostic, ...]
    content_hash: str = ""

    @property
    def ok(self) -> bool:
        return self.profile is not None and not any(d.is_error for d in self.diagnostics)


def show_profile(
    vault: str | os.PathLike[str], profile_id: str, *, project: str | None = None
) -> ShownProfile:
    """Parse ``agent-types/<id>/profile.md`` (or the project's override) with the vault's
    MCP registry as context. Raises NotFoundError, with a did-you-mean, when it is absent."""
    layout = VaultLayout(vault)
    check_segment(profile_id, "profile id")
    path = layout.profile_path(profile_id, project)
    problems: list[Diagnostic] = []
    skipped: list[Diagnostic] = []
    servers = {}
    profile_ids: list[str] = []
    target = None
    for scanned in layout.iter_entries(skipped):
        entry = scanned.entry
        if entry.kind is EntryKind.MCP_SERVER and entry.project in (None, project):
            raw = read_bytes(scanned, problems)
            if raw is not None:
                servers[(entry.project, entry.id)] = parse_mcp_server(
                    raw, path=entry.rel_path, expected_name=entry.id, project=entry.project
                )
        elif entry.kind is EntryKind.PROFILE and entry.project == project:
            profile_ids.append(entry.id)
            if entry.id == profile_id:
                target = scanned
    rel = layout.relative(path)
    if target is None:
        # Not loaded for a reason the scan gives (behind a link leading out of the vault, in
        # a folder that cannot be read): that reason, rather than "no such profile".
        why = [d for d in skipped if rel == d.path or rel.startswith(f"{d.path}/")]
        if why:
            return ShownProfile(None, tuple(why))
        where = f" in project {project!r}" if project else ""
        hint = did_you_mean(profile_id, profile_ids) or (
            f"create {rel}, or " + list_profiles_hint(project)
        )
        raise NotFoundError(f"no profile {profile_id!r}{where} in vault {layout.root}", hint=hint)
    raw = read_bytes(target, problems)
    if raw is None:
        return ShownProfile(None, tuple(problems))
    embedded = load_config(layout.root).config.embedded
    known = KnownTools(
        server_names(servers, project), embedded=embedded.name, commands=embedded.commands
    )
    parsed = parse_profile(
        raw,
        path=target.entry.rel_path,
        expected_id=profile_id,
        project=project,
        known_tools=known,
    )
    return ShownProfile(parsed.profile, (*problems, *parsed.diagnostics), content_hash(raw))
