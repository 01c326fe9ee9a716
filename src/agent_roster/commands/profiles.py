"""System profile CRUD (seed 001 "Profile CRUD"): list, get, create, edit, delete.

Every write goes through the markdown file (seed 000 §3), never the database: create renders
a new ``agent-types/<id>/profile.md``, edit patches only the touched frontmatter key, JSON
member or prose section in place (:mod:`agent_roster.vault.patch`), delete removes the file.
Each edit and delete carries the content hash the caller read (``base_hash``); a file that
changed since is refused with a ``conflict`` error, never overwritten. A write whose result
would not parse cleanly is refused with the exact location and leaves the file untouched.

After a write the database is brought in step: in the daemon the watcher syncs the file and
the command waits for it (``synced`` says whether it arrived in time); elsewhere the command
syncs the vault itself. Delete also clears ``tasks.profile_id`` and
``projects.default_profile_id`` that name the profile (seed 001), which live only in the
database.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from agent_roster import literal_secrets
from agent_roster.commands.context import RosterContext
from agent_roster.diagnostics import Diagnostic, did_you_mean
from agent_roster.errors import ConflictError, InvalidDocumentError, NotFoundError, UsageError
from agent_roster.vault import patch
from agent_roster.vault.guard import read_in_vault
from agent_roster.vault.paths import EntryKind, check_segment
from agent_roster.vault.profile_blocks import CONFIG_KEYS
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.writer import content_hash, write_in_vault

ProfileId = Annotated[str, Meta(description="the profile id: its folder under agent-types/")]
BaseHash = Annotated[
    str,
    Meta(
        description="content_hash of the file as the caller last read it (get_profile); "
        "the write is refused as a conflict when the file has changed since"
    ),
]
Wait = Annotated[
    bool, Meta(description="wait until the database has synced the change (daemon only)")
]
ProfileJson = Annotated[
    dict[str, Any], Meta(description="the profile's JSON form (as 'roster show --json')")
]

#: How long a write waits for the daemon's watcher to sync it.
SYNC_WAIT_SECONDS = 5.0


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
    """Every system profile of the vault, sorted by name."""

    profiles: list[ProfileSummary]


class ProfileFile(msgspec.Struct, frozen=True, kw_only=True):
    """A profile as its file defines it now: ``profile`` is ``None`` when the file has
    errors (they are in ``diagnostics``); ``content_hash`` is what an edit must send back."""

    id: str
    path: str
    content_hash: str
    profile: ProfileJson | None
    diagnostics: list[Diagnostic]


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
    (their profile reference is now cleared)."""

    id: str
    removed: list[str]
    cleared_tasks: list[str]
    cleared_projects: list[str]


# -- parameters ---------------------------------------------------------------------------
class ListProfilesParams(msgspec.Struct, frozen=True, kw_only=True):
    tag: Annotated[str | None, Meta(description="only profiles with this tag")] = None


class GetProfileParams(msgspec.Struct, frozen=True, kw_only=True):
    id: ProfileId


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
    allow_literal_secret: Annotated[
        bool,
        Meta(
            description="write a secret's value (a token, a key) into the vault as given; "
            "refused by default: write a ${VAR} reference instead"
        ),
    ] = False


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
    return ProfileList(profiles=rows)


def get_profile(ctx: RosterContext, params: GetProfileParams) -> ProfileFile:
    """Show one profile in full as its file defines it, with the hash an edit must send."""
    layout = ctx.layout
    path = layout.profile_path(check_segment(params.id, "profile id"))
    rel = layout.relative(path)
    text, source = _read(ctx, params.id)
    parsed = parse_profile(text, path=rel, expected_id=params.id)
    profile = parsed.profile.to_json_dict() if parsed.ok and parsed.profile else None
    return ProfileFile(
        id=params.id,
        path=rel,
        content_hash=content_hash(source.raw),
        profile=profile,
        diagnostics=list(parsed.diagnostics),
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
    _refuse_literal_secrets(params, rel)
    name = params.name if isinstance(params.name, str) else ident
    skeleton = AgentProfile(id=ident, name=name, source=rel)
    text = _skeleton_text(skeleton)
    edits = _edits(params, creating=True)
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
        synced=_synced(ctx, path, digest, params.wait),
    )


def edit_profile(ctx: RosterContext, params: EditProfileParams) -> Written:
    """Change fields of a profile in place; everything else in the file stays byte for byte."""
    layout = ctx.layout
    ident = check_segment(params.id, "profile id")
    edits = _edits(params, creating=False)
    if not edits:
        raise UsageError("nothing to change", hint="give at least one field to set")
    _read(ctx, ident)  # a clear not-found before anything else
    _refuse_literal_secrets(params, layout.relative(layout.profile_path(ident)))
    patched = patch.patch_profile(layout, ident, edits, base_hash=params.base_hash)
    path = layout.profile_path(ident)
    digest = content_hash(read_in_vault(layout, path)) if patched.changed else params.base_hash
    return Written(
        id=ident,
        path=layout.relative(path),
        content_hash=digest,
        changed=patched.changed,
        diagnostics=list(patched.diagnostics),
        synced=_synced(ctx, path, digest, params.wait) if patched.changed else True,
    )


def delete_profile(ctx: RosterContext, params: DeleteProfileParams) -> Deleted:
    """Delete a profile and clear the task and project references to it."""
    from agent_roster.commands.project_files import remove_file

    layout = ctx.layout
    ident = check_segment(params.id, "profile id")
    path = layout.profile_path(ident)
    _text, source = _read(ctx, ident)
    if content_hash(source.raw) != params.base_hash:
        raise ConflictError(
            f"{layout.relative(path)} changed since it was read; nothing was deleted",
            hint="read it again (get_profile) and retry with its content_hash",
        )
    store = ctx.store()
    tasks = [t.id for t in store.list_tasks() if t.profile_id == ident]
    projects = [p.id for p in store.list_projects() if p.default_profile_id == ident]
    removed = remove_file(layout, path, folders=1)
    store.delete_profile(ident)
    return Deleted(id=ident, removed=list(removed), cleared_tasks=tasks, cleared_projects=projects)


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


def _refuse_literal_secrets(fields: ProfileFields, target: str) -> None:
    """No literal secret among the values to write, unless the caller allows it."""
    values = {
        f: getattr(fields, f)
        for f in ProfileFields.__struct_fields__
        if f != "allow_literal_secret" and getattr(fields, f) not in (UNSET, None)
    }
    found = literal_secrets.find(values, owner=getattr(fields, "id", ""))
    literal_secrets.refuse(found, target=target, allow=fields.allow_literal_secret)


def _skeleton_text(profile: Any) -> str:
    from agent_roster.vault.render import render_profile

    return render_profile(profile)


def _edits(fields: ProfileFields, *, creating: bool) -> list[patch.Edit]:
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


def _synced(ctx: RosterContext, path: Any, digest: str, wait: bool) -> bool:
    """Bring the database in step with a write: the daemon's watcher (waited for), or a
    sync run here. True when the database holds the file's new content."""
    if ctx.live is not None:
        return wait and ctx.live.wait_synced(path, digest, SYNC_WAIT_SECONDS)
    from agent_roster.sync.engine import SyncEngine

    store = ctx.store()
    SyncEngine(store, ctx.vault, embedded=ctx.config().embedded.name).sync()
    rel = ctx.layout.relative(path)
    return any(s.source_path == rel and s.content_hash == digest for s in store.profile_states())
