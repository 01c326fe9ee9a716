"""Project-scoped profile commands (seed 001 "Project-Scoped Profile CRUD").

A project override is ``projects/<pid>/agent-types/<id>/profile.md``: a partial profile
merged field by field over the system profile of the same id (issue 4, item 2). These
commands work on the vault alone (the source of truth), never on the database:

* ``list_project_profiles``: per agent type, ``override`` (both files), ``inherit`` (system
  only) or ``no-default`` (an override with no system profile under it);
* ``create_project_profile``: a new partial file; ``seed_from_global`` copies the system
  profile's *settings* (Config, Tools, MCP Servers, Install, with its ``extends`` chain
  merged, roster.toml defaults not included) but not its name, description, tags or prose,
  so the prompt keeps following the global profile;
* ``edit_project_profile``: in-place patches (:mod:`agent_roster.vault.patch`);
* ``delete_project_profile``: removes the file (and its folder when empty). There is no flat
  legacy layout that could bring it back, and the next sync marks its row missing;
* ``show_effective_profile``: the merged profile with the origin of every field, computed by
  :class:`~agent_roster.resolve.index.ProfileIndex` from the files involved (the override,
  the system profile and its ``extends`` chain, the MCP servers named), parsed now. A file
  with errors is left out, as sync would refuse it, and its errors are returned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from agent_roster import literal_secrets
from agent_roster.commands.project_files import (
    INHERIT,
    NO_DEFAULT,
    OVERRIDE,
    Loaded,
    load_for,
    remove_file,
    seed_text,
)
from agent_roster.diagnostics import Diagnostic, did_you_mean, list_profiles_hint
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.redact import server_dict
from agent_roster.resolve.config import RosterConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.resolve.merge import Origins
from agent_roster.vault import patch
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment
from agent_roster.vault.profile_blocks import CONFIG_KEYS
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.writer import write_in_vault

__all__ = [
    "INHERIT",
    "NO_DEFAULT",
    "OVERRIDE",
    "create_project_profile",
    "delete_project_profile",
    "edit_project_profile",
    "list_project_profiles",
    "show_effective_profile",
]


class AgentTypeRow(NamedTuple):
    agent_type: str
    status: str
    system_path: str | None
    override_path: str | None

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


class ProjectProfiles(NamedTuple):
    project: str
    rows: tuple[AgentTypeRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"project": self.project, "agent_types": [r.to_dict() for r in self.rows]}


class Written(NamedTuple):
    """A created or edited override: its path, whether the file changed, which fields were
    seeded (create), and the file's warnings."""

    path: str
    changed: bool
    seeded: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "changed": self.changed,
            "seeded": list(self.seeded),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class Removed(NamedTuple):
    removed: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"removed": list(self.removed)}


class EffectiveProfile(NamedTuple):
    """The profile ``agent_type`` as it applies in ``project``."""

    project: str
    agent_type: str
    status: str
    profile: AgentProfile
    origins: Origins
    servers: tuple[McpServer, ...]
    warnings: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    system_path: str | None
    override_path: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "agent_type": self.agent_type,
            "status": self.status,
            "system_path": self.system_path,
            "override_path": self.override_path,
            "profile": self.profile.to_json_dict(),
            "origins": {k: v.to_dict() for k, v in sorted(self.origins.items())},
            "servers": [server_dict(s) for s in self.servers],
            "warnings": list(self.warnings),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def _status(has_system: bool, has_override: bool) -> str:
    if not has_system:
        return NO_DEFAULT
    return OVERRIDE if has_override else INHERIT


def _rel(layout: VaultLayout, profile_id: str, project: str | None) -> str:
    return layout.profile_path(profile_id, project).relative_to(layout.root).as_posix()


def list_project_profiles(vault: str | os.PathLike[str], project: str) -> ProjectProfiles:
    """Every system agent type and every override of ``project``, with its status."""
    layout = VaultLayout(vault)
    check_segment(project, "project id")
    system: set[str] = set()
    overrides: set[str] = set()
    for scanned in layout.iter_entries():
        entry = scanned.entry
        if entry.kind is EntryKind.PROFILE and entry.project is None:
            system.add(entry.id)
        elif entry.kind is EntryKind.PROFILE and entry.project == project:
            overrides.add(entry.id)
    rows = []
    for ident in sorted(system | overrides):
        status = _status(ident in system, ident in overrides)
        rows.append(
            AgentTypeRow(
                ident,
                status,
                _rel(layout, ident, None) if ident in system else None,
                _rel(layout, ident, project) if ident in overrides else None,
            )
        )
    return ProjectProfiles(project, tuple(rows))


def create_project_profile(
    vault: str | os.PathLike[str], project: str, agent_type: str, seed_from_global: bool = False
) -> Written:
    """Write a new partial override; refuses when the file exists."""
    layout = VaultLayout(vault)
    check_segment(project, "project id")
    path = layout.profile_path(agent_type, project)
    rel = _rel(layout, agent_type, project)
    if path.exists():
        raise UsageError(
            f"{rel} already exists",
            hint="edit it with 'roster project-profile edit', or delete it first",
        )
    base: AgentProfile | None = None
    if seed_from_global:
        loaded = load_for(layout, agent_type, None)
        if not loaded.system:
            raise NotFoundError(
                f"cannot seed from agent-types/{agent_type}/profile.md: it does not exist",
                hint=did_you_mean(agent_type, _system_ids(layout)) or "create without --seed",
            )
        if loaded.diagnostics:
            raise InvalidDocumentError(
                f"cannot seed from the system profile {agent_type!r}: it has errors",
                loaded.diagnostics,
            )
        base = _system_chain(loaded.profiles, agent_type)
    text, seeded = seed_text(agent_type, project, base)
    parsed = parse_profile(text, path=rel, expected_id=agent_type, project=project)
    if not parsed.ok:  # cannot happen for a valid source; never write a broken file
        raise InvalidDocumentError(f"the seeded {rel} would have errors", parsed.diagnostics)
    if not write_in_vault(layout, path, text):
        raise UsageError(f"{rel} already exists")
    return Written(rel, True, seeded, parsed.diagnostics)


def _system_chain(profiles: tuple[AgentProfile, ...], agent_type: str) -> AgentProfile:
    """The system profile with its ``extends`` chain merged, without roster.toml defaults
    (those keep applying through the cascade, so a seed must not freeze them)."""
    bare = AgentProfile(id="(none)", name="(none)", source="(none)")
    found = ProfileIndex(RosterConfig(defaults=bare), profiles).effective(agent_type)
    assert found is not None
    return found.profile


def _system_ids(layout: VaultLayout) -> list[str]:
    return [
        s.entry.id
        for s in layout.iter_entries()
        if s.entry.kind is EntryKind.PROFILE and s.entry.project is None
    ]


_FRONTMATTER = ("name", "description", "tags")
_FIELDS = (
    *_FRONTMATTER,
    "allowed_tools",
    "tools_exact",
    "denied_tools",
    "mcp_servers",
    "install",
    "sections",
)


def edit_project_profile(
    vault: str | os.PathLike[str],
    project: str,
    agent_type: str,
    *,
    config: Mapping[str, Any] | None = None,
    allow_literal_secret: bool = False,
    **fields: Any,
) -> Written:
    """Patch an existing override in place. ``config`` maps Config keys to JSON values
    (``None`` removes the key; Config keys may also be passed directly, ``model="x"``).
    ``fields``: ``name``, ``description``, ``tags`` (frontmatter), ``allowed_tools``,
    ``tools_exact``, ``denied_tools``, ``mcp_servers`` (lists), ``install`` ({list name: list}) and
    ``sections`` ({heading: body}); ``None`` removes what it names. A literal secret among
    the new values is refused unless ``allow_literal_secret`` (``literal_secrets``)."""
    layout = VaultLayout(vault)
    check_segment(project, "project id")
    config = dict(config or {})
    literal_secrets.refuse(
        literal_secrets.find({"config": config, **fields}, owner=agent_type),
        target=_rel(layout, agent_type, project),
        allow=allow_literal_secret,
    )
    edits: list[patch.Edit] = []
    tools: dict[str, Any] = {}
    for name, value in fields.items():
        if name in CONFIG_KEYS:
            config[name] = value
        elif name in _FRONTMATTER:
            edits.append(patch.set_frontmatter(name, patch.REMOVE if value is None else value))
        elif name in ("allowed_tools", "denied_tools"):
            tools[name.split("_")[0]] = patch.REMOVE if value is None else value
        elif name == "tools_exact":
            tools["exact"] = patch.REMOVE if value is None else value
        elif name == "mcp_servers":
            edits.append(patch.set_mcp_servers(patch.REMOVE if value is None else value))
        elif name == "install":
            lists = value or {}
            edits.append(
                patch.set_install({k: patch.REMOVE if v is None else v for k, v in lists.items()})
            )
        elif name == "sections":
            for heading, body in (value or {}).items():
                edits.append(
                    patch.remove_section(heading)
                    if body is None
                    else patch.set_section(heading, body)
                )
        else:
            hint = did_you_mean(name, (*_FIELDS, *CONFIG_KEYS))
            raise UsageError(f"{name!r} is not a field an override can edit", hint=hint)
    if tools:
        edits.append(patch.set_tools(**tools))
    if config:
        edits.insert(
            0, patch.set_config({k: patch.REMOVE if v is None else v for k, v in config.items()})
        )
    if not edits:
        raise UsageError("nothing to change", hint="give a Config key or a field to set")
    rel = _rel(layout, agent_type, project)
    if not layout.profile_path(agent_type, project).exists():
        raise NotFoundError(
            f"project {project!r} has no override of {agent_type!r} ({rel} does not exist)",
            hint="create it with 'roster project-profile create'",
        )
    patched = patch.patch_profile(layout, agent_type, edits, project=project)
    return Written(rel, patched.changed, (), patched.diagnostics)


def delete_project_profile(vault: str | os.PathLike[str], project: str, agent_type: str) -> Removed:
    """Remove the override file, then its folder and ``agent-types/`` when left empty."""
    layout = VaultLayout(vault)
    check_segment(project, "project id")
    path = layout.profile_path(agent_type, project)
    if not path.exists():
        raise NotFoundError(
            f"project {project!r} has no override of {agent_type!r} "
            f"({_rel(layout, agent_type, project)} does not exist)"
        )
    return Removed(remove_file(layout, path))


def show_effective_profile(
    vault: str | os.PathLike[str], project: str, agent_type: str
) -> EffectiveProfile:
    """The effective profile of ``agent_type`` in ``project``, with origins and status."""
    layout = VaultLayout(vault)
    check_segment(project, "project id")
    loaded: Loaded = load_for(layout, agent_type, project)
    config = load_config(vault).config
    index = ProfileIndex(config, loaded.profiles, loaded.servers)
    found = index.effective(agent_type, project)
    system_path = _rel(layout, agent_type, None) if loaded.system else None
    override_path = _rel(layout, agent_type, project) if loaded.override else None
    if found is None:
        if loaded.diagnostics:
            raise InvalidDocumentError(
                f"the profile {agent_type!r} of project {project!r} has errors",
                loaded.diagnostics,
            )
        raise NotFoundError(
            f"no profile {agent_type!r} in project {project!r} or the system",
            hint=did_you_mean(agent_type, _system_ids(layout)) or list_profiles_hint(project),
        )
    status = _status(found.has_system, found.has_override)
    # found.warnings covers the extends chain and MCP names the registry lacks.
    warnings = [*loaded.warnings, *found.warnings]
    return EffectiveProfile(
        project,
        agent_type,
        status,
        found.profile,
        found.origins,
        found.servers,
        tuple(warnings),
        loaded.diagnostics,
        system_path,
        override_path,
    )
