"""Project-scoped profile commands (seed 001 "Project-Scoped Profile CRUD").

A project override is ``projects/<pid>/agent-types/<id>/profile.md``: a partial profile
merged field by field over the system profile of the same id (issue 4, item 2). The vault
is the source of truth: these commands read and write its files (writes as :mod:`.writes`
says: in place, against a ``base_hash``, then synced), never the database rows:

* ``list_project_profiles``: per agent type, ``override`` (both files), ``inherit`` (system
  only) or ``no-default`` (an override with no system profile under it);
* ``create_project_profile``: a new partial file; ``seed_from_global`` copies the system
  profile's *settings* (Config, Tools, MCP Servers, Install, with its ``extends`` chain
  merged, roster.toml defaults not included) but not its name, description, tags or prose,
  so the prompt keeps following the global profile;
* ``edit_project_profile``: in-place patches (:mod:`agent_roster.vault.patch`);
* ``delete_project_profile``: removes the file (and its folder when empty). There is no flat
  legacy layout that could bring it back (the seed's system cleaned up both layouts so a
  stray file could not resurrect; ours has one), and the sync marks its row missing;
* ``show_effective_profile``: the merged profile with the origin of every field, computed by
  :class:`~agent_roster.resolve.index.ProfileIndex` from the files involved (the override,
  the system profile and its ``extends`` chain, the MCP servers named), parsed now. A file
  with errors is left out, as sync would refuse it, and its errors are returned.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from agent_roster.commands.context import RosterContext
from agent_roster.commands.profiles import ProfileFields, edits_for, refuse_literal_secrets
from agent_roster.commands.project_files import (
    INHERIT,
    NO_DEFAULT,
    OVERRIDE,
    Loaded,
    load_for,
    remove_file,
    seed_text,
)
from agent_roster.commands.writes import BaseHash, Wait, check_base, synced
from agent_roster.diagnostics import Diagnostic, did_you_mean, list_profiles_hint
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.model.profile import AgentProfile
from agent_roster.redact import server_dict
from agent_roster.resolve.config import RosterConfig, load_config
from agent_roster.resolve.index import Effective, ProfileIndex
from agent_roster.vault import patch
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.writer import content_hash, write_in_vault

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

ProjectId = Annotated[str, Meta(description="the project id (its folder under projects/)")]
AgentType = Annotated[str, Meta(description="the agent type: the profile id it overrides")]


# -- results ------------------------------------------------------------------------------
class AgentTypeRow(msgspec.Struct, frozen=True, kw_only=True):
    agent_type: str
    status: Annotated[str, Meta(description="override, inherit or no-default")]
    system_path: str | None
    override_path: str | None


class ProjectProfiles(msgspec.Struct, frozen=True, kw_only=True):
    """Every agent type of a project, with its status."""

    project: str
    agent_types: list[AgentTypeRow]


class Written(msgspec.Struct, frozen=True, kw_only=True):
    """A created or edited override: its path, whether the file changed, which fields were
    seeded (create), the file's warnings, its new ``content_hash`` (for the next edit) and
    whether the database has synced it."""

    path: str
    changed: bool
    seeded: list[str]
    diagnostics: list[Diagnostic]
    content_hash: str
    synced: bool


class Removed(msgspec.Struct, frozen=True, kw_only=True):
    """The vault paths a delete removed (folders end with ``/``), and whether the database
    has seen the file gone."""

    removed: list[str]
    synced: bool


class Origin(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    section: str


class EffectiveProfile(msgspec.Struct, frozen=True, kw_only=True):
    """The profile ``agent_type`` as it applies in ``project``: merged, with the file and
    section every field comes from, the MCP servers it resolves to (secrets redacted), and
    the files left out for their errors."""

    project: str
    agent_type: str
    status: str
    system_path: str | None
    override_path: str | None
    profile: Annotated[dict[str, Any], Meta(description="the effective profile's JSON form")]
    origins: dict[str, Origin]
    servers: Annotated[list[dict[str, Any]], Meta(description="MCP servers, secrets redacted")]
    warnings: list[str]
    diagnostics: list[Diagnostic]


# -- parameters ---------------------------------------------------------------------------
class ListProjectProfilesParams(msgspec.Struct, frozen=True, kw_only=True):
    project: ProjectId


class CreateProjectProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    project: ProjectId
    agent_type: AgentType
    seed_from_global: Annotated[
        bool, Meta(description="copy the system profile's settings (not its prose)")
    ] = False
    wait: Wait = True


class EditProjectProfileParams(ProfileFields, frozen=True, kw_only=True):
    project: ProjectId
    agent_type: AgentType
    base_hash: BaseHash
    wait: Wait = True


class DeleteProjectProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    project: ProjectId
    agent_type: AgentType
    base_hash: BaseHash
    wait: Wait = True


class ShowEffectiveProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    project: ProjectId
    agent_type: AgentType


def _status(has_system: bool, has_override: bool) -> str:
    if not has_system:
        return NO_DEFAULT
    return OVERRIDE if has_override else INHERIT


def _rel(layout: VaultLayout, profile_id: str, project: str | None) -> str:
    return layout.profile_path(profile_id, project).relative_to(layout.root).as_posix()


def list_project_profiles(ctx: RosterContext, params: ListProjectProfilesParams) -> ProjectProfiles:
    """List each agent type of a project: override, inherit or no-default."""
    layout = ctx.layout
    project = check_segment(params.project, "project id")
    system: set[str] = set()
    overrides: set[str] = set()
    for scanned in layout.iter_entries():
        entry = scanned.entry
        if entry.kind is EntryKind.PROFILE and entry.project is None:
            system.add(entry.id)
        elif entry.kind is EntryKind.PROFILE and entry.project == project:
            overrides.add(entry.id)
    rows = [
        AgentTypeRow(
            agent_type=ident,
            status=_status(ident in system, ident in overrides),
            system_path=_rel(layout, ident, None) if ident in system else None,
            override_path=_rel(layout, ident, project) if ident in overrides else None,
        )
        for ident in sorted(system | overrides)
    ]
    return ProjectProfiles(project=project, agent_types=rows)


def create_project_profile(ctx: RosterContext, params: CreateProjectProfileParams) -> Written:
    """Create a project override of an agent type, optionally seeded from the system one."""
    layout = ctx.layout
    project = check_segment(params.project, "project id")
    agent_type = check_segment(params.agent_type, "profile id")
    path = layout.profile_path(agent_type, project)
    rel = _rel(layout, agent_type, project)
    if path.exists():
        raise UsageError(
            f"{rel} already exists",
            hint="edit it with edit_project_profile, or delete it first",
        )
    base: AgentProfile | None = None
    if params.seed_from_global:
        loaded = load_for(layout, agent_type, None)
        if not loaded.system:
            raise NotFoundError(
                f"cannot seed from agent-types/{agent_type}/profile.md: it does not exist",
                hint=did_you_mean(agent_type, _system_ids(layout)) or "create it without seeding",
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
    digest = content_hash(text.encode())
    return Written(
        path=rel,
        changed=True,
        seeded=list(seeded),
        diagnostics=list(parsed.diagnostics),
        content_hash=digest,
        synced=synced(ctx, path, digest, params.wait),
    )


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


def edit_project_profile(ctx: RosterContext, params: EditProjectProfileParams) -> Written:
    """Change fields of a project override in place; everything else stays byte for byte.
    A literal secret among the new values is refused unless ``allow_literal_secret``."""
    layout = ctx.layout
    project = check_segment(params.project, "project id")
    agent_type = check_segment(params.agent_type, "profile id")
    refuse_literal_secrets(params, _rel(layout, agent_type, project), agent_type)
    edits = edits_for(params, creating=False)
    if not edits:
        raise UsageError("nothing to change", hint="give a Config key or a field to set")
    path = layout.profile_path(agent_type, project)
    rel = _rel(layout, agent_type, project)
    if not path.exists():
        raise NotFoundError(
            f"project {project!r} has no override of {agent_type!r} ({rel} does not exist)",
            hint="create it with create_project_profile",
        )
    patched = patch.patch_profile(
        layout, agent_type, edits, project=project, base_hash=params.base_hash
    )
    digest = content_hash(read_in_vault(layout, path)) if patched.changed else params.base_hash
    return Written(
        path=rel,
        changed=patched.changed,
        seeded=[],
        diagnostics=list(patched.diagnostics),
        content_hash=digest,
        synced=synced(ctx, path, digest, params.wait) if patched.changed else True,
    )


def delete_project_profile(ctx: RosterContext, params: DeleteProjectProfileParams) -> Removed:
    """Delete a project override; the agent type inherits the system profile again."""
    layout = ctx.layout
    project = check_segment(params.project, "project id")
    agent_type = check_segment(params.agent_type, "profile id")
    path = layout.profile_path(agent_type, project)
    try:
        raw = read_in_vault(layout, path)
    except FileNotFoundError:
        raise NotFoundError(
            f"project {project!r} has no override of {agent_type!r} "
            f"({_rel(layout, agent_type, project)} does not exist)"
        ) from None
    check_base(layout, path, raw, params.base_hash, "deleted")
    removed = remove_file(layout, path)
    return Removed(removed=list(removed), synced=synced(ctx, path, None, params.wait))


def show_effective_profile(
    ctx: RosterContext, params: ShowEffectiveProfileParams
) -> EffectiveProfile:
    """Resolve a project and agent type to the effective profile, with every field's origin."""
    layout = ctx.layout
    project = check_segment(params.project, "project id")
    agent_type = params.agent_type
    found, loaded = effective_in(layout, agent_type, project)
    # found.warnings covers the extends chain and MCP names the registry lacks.
    return EffectiveProfile(
        project=project,
        agent_type=agent_type,
        status=_status(found.has_system, found.has_override),
        system_path=_rel(layout, agent_type, None) if loaded.system else None,
        override_path=_rel(layout, agent_type, project) if loaded.override else None,
        profile=found.profile.to_json_dict(),
        origins={
            k: Origin(path=v.path, section=v.section) for k, v in sorted(found.origins.items())
        },
        servers=[server_dict(s) for s in found.servers],
        warnings=[*loaded.warnings, *found.warnings],
        diagnostics=list(loaded.diagnostics),
    )


def effective_in(layout: VaultLayout, agent_type: str, project: str) -> tuple[Effective, Loaded]:
    """The effective profile of ``agent_type`` in ``project`` from the files that decide
    it, parsed now, and what was read; NotFoundError or InvalidDocumentError when there is
    none."""
    check_segment(project, "project id")
    loaded = load_for(layout, agent_type, project)
    index = ProfileIndex(load_config(layout.root).config, loaded.profiles, loaded.servers)
    found = index.effective(agent_type, project)
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
    return found, loaded
