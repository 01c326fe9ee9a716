"""System profile CRUD (seed 001 "Profile CRUD"): list, get, create, edit, delete.

Every write goes through the markdown file (seed 000 §3, :mod:`.writes`), never the
database: create renders a new ``agent-types/<id>/profile.md``, edit patches only the
touched frontmatter key, JSON member or prose section in place (:mod:`agent_roster.vault.patch`),
delete removes the file. Each edit and delete carries the content hash the caller read
(``base_hash``); a file that changed since is refused with a ``conflict`` error, never
overwritten. A write whose result would not parse cleanly is refused with the exact location
and leaves the file untouched; ``synced`` says whether the database has the change.

Delete also clears ``tasks.profile_id`` and ``projects.default_profile_id`` that name the
profile (seed 001), which live only in the database: that is the one database write here,
the cascade of the file's removal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from agent_roster import literal_secrets
from agent_roster.commands.context import RosterContext
from agent_roster.commands.writes import AllowLiteralSecret, BaseHash, Wait, check_base, synced
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.errors import (
    InvalidDocumentError,
    NotFoundError,
    PathOutsideVaultError,
    UsageError,
)
from agent_roster.vault import patch
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.paths import EntryKind, check_segment
from agent_roster.vault.profile_blocks import CONFIG_KEYS
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.writer import content_hash, write_in_vault

ProfileId = Annotated[str, Meta(description="the profile id: its folder under agent-types/")]
ProjectId = Annotated[str | None, Meta(description="read the project's override instead")]
ProfileJson = Annotated[
    dict[str, Any], Meta(description="the profile's JSON form (as 'roster show --json')")
]


# -- results ------------------------------------------------------------------------------
class ProfileSummary(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    description: str
    model: str
    runtime: str | None
    tags: list[str]
    source: str


class ProfileList(msgspec.Struct, frozen=True, kw_only=True):
    """Every system profile of the vault, sorted by name, and what the scan left out for a
    reason the user must hear (``diagnostics``: an ``agent-types/`` that is a symlink
    leading outside the vault, ``path-outside-vault``); with one, ``ok`` is false."""

    profiles: list[ProfileSummary]
    diagnostics: list[Diagnostic] = []

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


class ProfileFile(msgspec.Struct, frozen=True, kw_only=True):
    """A profile as its file defines it now, with the file's ``diagnostics``: with errors,
    ``profile`` is what could be read (``None`` when nothing could) and ``ok`` is false;
    ``content_hash`` is what an edit must send back."""

    id: str
    project: str | None
    path: str
    content_hash: str
    profile: ProfileJson | None
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        """The file defines a profile without errors."""
        return self.profile is not None and not any(d.is_error for d in self.diagnostics)


class Written(msgspec.Struct, frozen=True, kw_only=True):
    """A created or edited profile file: its new ``content_hash`` (for the next edit),
    whether the file changed, its warnings, and whether the database has synced it."""

    id: str
    path: str
    content_hash: str
    changed: bool
    diagnostics: list[Diagnostic]
    synced: bool


class Deleted(msgspec.Struct, frozen=True, kw_only=True):
    """What delete removed: vault paths, and the tasks and projects that named the profile
    (their profile reference is now cleared); ``synced``: the database row is gone."""

    id: str
    removed: list[str]
    cleared_tasks: list[str]
    cleared_projects: list[str]
    synced: bool


# -- parameters ---------------------------------------------------------------------------
class ListProfilesParams(msgspec.Struct, frozen=True, kw_only=True):
    tag: Annotated[str | None, Meta(description="only profiles with this tag")] = None


class GetProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    id: ProfileId
    project: ProjectId = None


class ProfileFields(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Fields to set. Left out: unchanged. ``null``: removed (edit only)."""

    name: Annotated[str | UnsetType, Meta(description="display name")] = UNSET
    description: str | UnsetType | None = UNSET
    tags: list[str] | UnsetType | None = UNSET
    config: Annotated[
        dict[str, Any] | UnsetType,
        Meta(description="Config keys to set (model, permission_mode, runtime, ...); null removes"),
    ] = UNSET
    allowed_tools: list[str] | UnsetType | None = UNSET
    tools_exact: Annotated[
        bool | UnsetType | None,
        Meta(description="true: allowed_tools is the whole tool set ([] = no tools)"),
    ] = UNSET
    denied_tools: list[str] | UnsetType | None = UNSET
    mcp_servers: Annotated[list[str] | UnsetType | None, Meta(description="MCP registry names")] = (
        UNSET
    )
    install: Annotated[
        dict[str, list[str] | None] | UnsetType,
        Meta(description="install lists by kind: npm, pip, commands; null removes one"),
    ] = UNSET
    sections: Annotated[
        dict[str, str | None] | UnsetType,
        Meta(description="prose sections by heading (Role, Rules, ...); null removes one"),
    ] = UNSET
    allow_literal_secret: AllowLiteralSecret = False


class CreateProfileParams(ProfileFields, frozen=True, kw_only=True):
    id: ProfileId
    wait: Wait = True


class EditProfileParams(ProfileFields, frozen=True, kw_only=True):
    id: ProfileId
    base_hash: BaseHash
    wait: Wait = True


class DeleteProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    id: ProfileId
    base_hash: BaseHash


# -- commands -----------------------------------------------------------------------------
def list_profiles(ctx: RosterContext, params: ListProfilesParams) -> ProfileList:
    """List every system profile, sorted by name, with a summary of each."""
    index = ctx.index()
    rows = [
        ProfileSummary(
            id=p.id,
            name=p.name,
            description=p.description,
            model=p.model,
            runtime=p.runtime.value if p.runtime else None,
            tags=list(p.tags),
            source=p.source,
        )
        for p in index.system.values()
        if params.tag is None or params.tag in p.tags
    ]
    rows.sort(key=lambda r: (r.name.casefold(), r.id))
    # The index never holds what lies behind a link out of the vault: an empty list must
    # say why (one more listing of the layout's folders, no file is read).
    skipped: list[Diagnostic] = []
    for _ in ctx.layout.iter_entries(skipped):
        pass
    outside = [
        d
        for d in skipped
        if d.code == "path-outside-vault" and Path(d.path).parts[:1] == ("agent-types",)
    ]
    return ProfileList(profiles=rows, diagnostics=outside)


def get_profile(ctx: RosterContext, params: GetProfileParams) -> ProfileFile:
    """Show one profile in full as its file defines it, with the hash an edit must send."""
    from agent_roster.commands.show import show_profile

    layout = ctx.layout
    path = layout.profile_path(check_segment(params.id, "profile id"), params.project)
    shown = show_profile(ctx.vault, params.id, project=params.project)
    if shown.profile is None:
        for found in shown.diagnostics:
            if found.code == "path-outside-vault":  # never served, on any surface
                raise PathOutsideVaultError(found.message, found, hint=found.hint)
    return ProfileFile(
        id=params.id,
        project=params.project,
        path=layout.relative(path),
        content_hash=shown.content_hash,
        profile=shown.profile.to_json_dict() if shown.profile is not None else None,
        diagnostics=list(shown.diagnostics),
    )


def create_profile(ctx: RosterContext, params: CreateProfileParams) -> Written:
    """Create a profile in the vault; refused when it exists or would not parse cleanly."""
    from agent_roster.model.profile import AgentProfile

    layout = ctx.layout
    ident = check_segment(params.id, "profile id")
    path = layout.profile_path(ident)
    rel = layout.relative(path)
    if path.exists():
        raise UsageError(
            f"profile {ident!r} already exists ({rel})",
            hint="change it with edit_profile, or delete it first",
        )
    refuse_literal_secrets(params, rel, params.id)
    name = params.name if isinstance(params.name, str) else ident
    skeleton = AgentProfile(id=ident, name=name, source=rel)
    text = _skeleton_text(skeleton)
    edits = edits_for(params, creating=True)
    patched = patch.apply_edits(text, edits, path=rel, expected_id=ident) if edits else None
    text = patched.text if patched else text
    parsed = parse_profile(text, path=rel, expected_id=ident)
    errors = [d for d in parsed.diagnostics if d.is_error]
    if errors:
        raise InvalidDocumentError(f"the new {rel} would have errors; nothing was written", errors)
    if not write_in_vault(layout, path, text):
        raise UsageError(f"profile {ident!r} already exists ({rel})")
    digest = content_hash(text.encode())
    return Written(
        id=ident,
        path=rel,
        content_hash=digest,
        changed=True,
        diagnostics=list(parsed.diagnostics),
        synced=synced(ctx, path, digest, params.wait),
    )


def edit_profile(ctx: RosterContext, params: EditProfileParams) -> Written:
    """Change fields of a profile in place; everything else in the file stays byte for byte."""
    layout = ctx.layout
    ident = check_segment(params.id, "profile id")
    edits = edits_for(params, creating=False)
    if not edits:
        raise UsageError("nothing to change", hint="give at least one field to set")
    _read(ctx, ident)  # a clear not-found before anything else
    refuse_literal_secrets(params, layout.relative(layout.profile_path(ident)), ident)
    patched = patch.patch_profile(layout, ident, edits, base_hash=params.base_hash)
    path = layout.profile_path(ident)
    digest = content_hash(read_in_vault(layout, path)) if patched.changed else params.base_hash
    return Written(
        id=ident,
        path=layout.relative(path),
        content_hash=digest,
        changed=patched.changed,
        diagnostics=list(patched.diagnostics),
        synced=synced(ctx, path, digest, params.wait) if patched.changed else True,
    )


def delete_profile(ctx: RosterContext, params: DeleteProfileParams) -> Deleted:
    """Delete a profile and clear the task and project references to it."""
    from agent_roster.commands.project_files import remove_file

    layout = ctx.layout
    ident = check_segment(params.id, "profile id")
    path = layout.profile_path(ident)
    _text, source = _read(ctx, ident)
    check_base(layout, path, source.raw, params.base_hash, "deleted")
    store = ctx.store()
    tasks = [t for t in store.list_tasks() if t.profile_id == ident]
    projects = [p for p in store.list_projects() if p.default_profile_id == ident]
    removed = remove_file(layout, path, folders=1)
    # The cascade (seed 001): the row goes, and the references to it are cleared.
    store.delete_profile(ident)
    if ctx.live is not None:
        index = ctx.live.index()
        index.apply(removed_profiles=[(ident, None)])
        for task in tasks:
            index.task_profiles[task.id] = (task.project_id, None)
        for project in projects:
            index.project_defaults[project.id] = None
    return Deleted(
        id=ident,
        removed=list(removed),
        cleared_tasks=[t.id for t in tasks],
        cleared_projects=[p.id for p in projects],
        synced=store.get_profile(ident, include_missing=True) is None,
    )


# -- helpers ------------------------------------------------------------------------------
def _read(ctx: RosterContext, ident: str) -> tuple[str, patch.Source]:
    layout = ctx.layout
    path = layout.profile_path(ident)
    if not path.exists():
        known = [
            s.entry.id
            for s in layout.iter_entries()
            if s.entry.kind is EntryKind.PROFILE and s.entry.project is None
        ]
        raise NotFoundError(
            f"no profile {ident!r} in the vault",
            hint=did_you_mean(ident, known) or "list_profiles shows what the vault holds",
        )
    return patch.read_text(layout, path)


def refuse_literal_secrets(fields: ProfileFields, target: str, owner: str) -> None:
    """No literal secret among the values to write, unless the caller allows it
    (``owner``, the profile id, names the variable to use instead)."""
    values = {
        f: getattr(fields, f)
        for f in ProfileFields.__struct_fields__
        if f != "allow_literal_secret" and getattr(fields, f) not in (UNSET, None)
    }
    sections = values.pop("sections", None)
    found = literal_secrets.find(values, owner=owner)
    if isinstance(sections, dict):  # prose: only values that give themselves away count
        found += literal_secrets.in_prose(
            {str(k): v for k, v in sections.items() if isinstance(v, str)}, owner=owner
        )
    literal_secrets.refuse(found, target=target, allow=fields.allow_literal_secret)


def _skeleton_text(profile: Any) -> str:
    from agent_roster.vault.render import render_profile

    return render_profile(profile)


def edits_for(fields: ProfileFields, *, creating: bool) -> list[patch.Edit]:
    """The in-place edits ``fields`` asks for, Config first."""
    edits: list[patch.Edit] = []
    set_ = {
        f: getattr(fields, f)
        for f in ProfileFields.__struct_fields__
        if getattr(fields, f) is not UNSET and f != "allow_literal_secret"
    }
    if creating:
        set_.pop("name", None)  # the skeleton already carries it
    for key in ("name", "description", "tags"):
        if key in set_:
            value = set_.pop(key)
            if key == "name" and value is None:
                raise UsageError("a profile must keep its name")
            edits.append(patch.set_frontmatter(key, patch.REMOVE if value is None else value))
    config = set_.pop("config", {})
    unknown = sorted(k for k in config if k not in CONFIG_KEYS)
    if unknown:
        raise UsageError(
            f"{unknown[0]!r} is not a Config key",
            hint=did_you_mean(unknown[0], CONFIG_KEYS) or "Config keys: " + ", ".join(CONFIG_KEYS),
        )
    if config:
        edits.insert(
            0, patch.set_config({k: patch.REMOVE if v is None else v for k, v in config.items()})
        )
    tools = {
        key.split("_")[0]: patch.REMOVE if set_[key] is None else set_[key]
        for key in ("allowed_tools", "denied_tools")
        if key in set_
    }
    if "tools_exact" in set_:
        tools["exact"] = patch.REMOVE if set_["tools_exact"] is None else set_["tools_exact"]
    if tools:
        edits.append(patch.set_tools(**tools))
    if "mcp_servers" in set_:
        servers = set_["mcp_servers"]
        edits.append(patch.set_mcp_servers(patch.REMOVE if servers is None else servers))
    if "install" in set_:
        lists = set_["install"]
        edits.append(
            patch.set_install({k: patch.REMOVE if v is None else v for k, v in lists.items()})
        )
    for heading, body in (set_.get("sections") or {}).items():
        edits.append(
            patch.remove_section(heading) if body is None else patch.set_section(heading, body)
        )
    return edits
