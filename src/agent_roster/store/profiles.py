"""Profile CRUD (seed 001, "CRUD Methods") and the batched upsert that sync uses.

Every function takes a Connection inside a transaction the caller owns (``Store`` opens
one per call), so several of them can be combined atomically.

A row whose file has disappeared is kept but marked ``present = false`` (issue 3: "its
row stops resolving"); lookups skip such rows unless asked for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import Connection, delete, exists, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import ColumnElement

from agent_roster.diagnostics import did_you_mean
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.model import AgentProfile
from agent_roster.store.common import batched, ordered, scoped_key, upsert_writer
from agent_roster.store.profile_rows import (
    ROW_COLUMNS,
    merge_fields,
    profile_to_row,
    profile_values,
    row_to_profile,
)
from agent_roster.store.tables import agent_profiles as t
from agent_roster.store.tables import projects, tasks

#: Fields ``update_profile`` accepts: the model's, less identity and managed timestamps.
UPDATABLE_FIELDS = frozenset(
    f.name for f in msgspec.structs.fields(AgentProfile) if f.name not in {"id", "project"}
) - {"created_at", "updated_at"}


class SyncedProfile(NamedTuple):
    """A profile parsed from the vault, with the hash of the file content it came from."""

    profile: AgentProfile
    content_hash: str = ""


class ProfileState(NamedTuple):
    """What sync needs to know about a stored row without decoding the whole profile."""

    id: str
    project: str | None
    source_path: str
    content_hash: str
    present: bool
    last_synced_at: float | None


def _scope(project: str | None) -> ColumnElement[bool]:
    return t.c.project.is_(None) if project is None else t.c.project == project


def create(conn: Connection, profile: AgentProfile, *, at: float) -> AgentProfile:
    """Insert ``profile``; a profile with the same id in the same scope is a UsageError."""
    row = profile_to_row(profile, at=at)
    if conn.execute(select(exists().where(t.c.key == row["key"]))).scalar():
        raise _exists(profile.id, profile.project)
    try:
        conn.execute(insert(t), row)
    except IntegrityError as exc:  # a concurrent writer got there first
        raise _exists(profile.id, profile.project) from exc
    return row_to_profile(row)


def get(
    conn: Connection, profile_id: str, project: str | None, *, include_missing: bool = False
) -> AgentProfile | None:
    """The profile ``profile_id`` in ``project`` (``None``: system scope), or ``None``."""
    query = select(t).where(t.c.key == scoped_key(profile_id, project, "profile id"))
    if not include_missing:
        query = query.where(t.c.present)
    row = conn.execute(query).first()
    return None if row is None else row_to_profile(row._mapping)


def list_(
    conn: Connection, project: str | None, *, include_missing: bool = False
) -> list[AgentProfile]:
    """The profiles of one scope sorted by name (then id, since names may repeat)."""
    order = ordered(conn, t.c.name), ordered(conn, t.c.id)
    query = select(t).where(_scope(project)).order_by(*order)
    if not include_missing:
        query = query.where(t.c.present)
    return [row_to_profile(row._mapping) for row in conn.execute(query)]


def list_all(conn: Connection) -> list[AgentProfile]:
    """Every present profile of every scope (what the resolution index is built from)."""
    query = select(t).where(t.c.present)
    return [row_to_profile(row._mapping) for row in conn.execute(query)]


def update_fields(
    conn: Connection, profile_id: str, project: str | None, fields: Mapping[str, Any], at: float
) -> AgentProfile:
    """Seed 001's partial update: change only ``fields`` and bump ``updated_at``."""
    unknown = sorted(set(fields) - UPDATABLE_FIELDS)
    if unknown:
        hint = did_you_mean(unknown[0], UPDATABLE_FIELDS)
        if "system_prompt_suffix" in unknown:
            hint = "system_prompt_suffix is derived from `sections`; update those instead"
        raise UsageError(f"cannot update profile field(s) {', '.join(unknown)}", hint=hint)
    current = get(conn, profile_id, project, include_missing=True)
    if current is None:
        raise _missing(profile_id, project)
    try:
        merged = merge_fields(current, fields)
    except (msgspec.ValidationError, TypeError) as exc:
        raise UsageError(f"invalid value for profile {profile_id!r}: {exc}") from exc
    merged = msgspec.structs.replace(merged, updated_at=at)
    row = profile_to_row(merged, at=at)
    for name in ("key", "content_hash", "present", "last_synced_at"):
        del row[name]  # identity and sync bookkeeping are not the caller's to change here
    conn.execute(update(t).where(t.c.key == scoped_key(profile_id, project)).values(row))
    return merged


def delete_one(conn: Connection, profile_id: str, project: str | None) -> bool:
    """Delete one profile; for a system profile first clear ``tasks.profile_id`` and
    ``projects.default_profile_id`` that name it (seed 001). True if a row was deleted."""
    key = scoped_key(profile_id, project, "profile id")
    if project is None:
        _clear_references(conn, [key])
    return conn.execute(delete(t).where(t.c.key == key)).rowcount > 0


def _clear_references(conn: Connection, keys: list[str]) -> None:
    for batch in batched(keys):
        conn.execute(update(tasks).where(tasks.c.profile_id.in_(batch)).values(profile_id=None))
        conn.execute(
            update(projects)
            .where(projects.c.default_profile_id.in_(batch))
            .values(default_profile_id=None)
        )


def upsert_many(
    conn: Connection,
    items: Iterable[AgentProfile | SyncedProfile],
    *,
    at: float,
    synced_at: float | None,
) -> int:
    """Insert or replace profiles in batches; an existing row keeps its ``created_at``.
    Every upserted row is marked present. Returns how many rows were written."""
    written = 0
    for batch in batched(items):
        rows = []
        for item in batch:
            profile, content_hash = (item, "") if isinstance(item, AgentProfile) else item
            rows.append(
                profile_values(profile, at=at, content_hash=content_hash, synced_at=synced_at)
            )
        written += upsert_rows(conn, rows)
    return written


def upsert_rows(conn: Connection, rows: Sequence[Sequence[Any]]) -> int:
    """:func:`upsert_many` for rows already built by ``profile_rows.profile_values`` (sync
    builds them where it parses, possibly in another process)."""
    write = upsert_writer(conn, t, ["key"], ["created_at"], ROW_COLUMNS)
    for batch in batched(rows):
        write(batch)
    return len(rows)


def set_present(conn: Connection, keys: Iterable[tuple[str, str | None]], present: bool) -> int:
    """Mark the rows named by ``(id, project)`` pairs present or missing; returns how many
    rows changed."""
    changed = 0
    for batch in batched(scoped_key(i, p, "profile id") for i, p in keys):
        result = conn.execute(
            update(t).where(t.c.key.in_(batch), t.c.present != present).values(present=present)
        )
        changed += result.rowcount
    return changed


def prune_missing(conn: Connection) -> list[tuple[str, str | None]]:
    """Delete every row marked missing, with seed 001's reference clearing; returns the
    ``(id, project)`` pairs deleted."""
    rows = conn.execute(
        select(t.c.key, t.c.id, t.c.project).where(~t.c.present).order_by(ordered(conn, t.c.key))
    ).all()
    _clear_references(conn, [r.key for r in rows if r.project is None])
    for batch in batched([r.key for r in rows]):
        conn.execute(delete(t).where(t.c.key.in_(batch)))
    return [(r.id, r.project) for r in rows]


def states(conn: Connection) -> list[ProfileState]:
    """Sync bookkeeping of every row, in every scope."""
    query = select(
        t.c.id, t.c.project, t.c.source_path, t.c.content_hash, t.c.present, t.c.last_synced_at
    ).order_by(ordered(conn, t.c.key))
    return [ProfileState(*row) for row in conn.execute(query)]


def require_system_profile(conn: Connection, profile_id: str, what: str) -> None:
    """Raise NotFoundError unless ``profile_id`` names a present system profile."""
    row = conn.execute(select(t.c.present).where(t.c.key == profile_id, _scope(None))).first()
    if row is None:
        raise NotFoundError(
            f"{what}: profile {profile_id!r} does not exist",
            hint="name a system profile (agent-types/<id>/profile.md), or null to clear",
        )
    if not row.present:
        raise NotFoundError(
            f"{what}: profile {profile_id!r} is missing from the vault (its file was deleted)",
            hint="restore agent-types/<id>/profile.md, or name another profile",
        )


def _exists(profile_id: str, project: str | None) -> UsageError:
    where = f" in project {project!r}" if project else ""
    return UsageError(
        f"profile {profile_id!r}{where} already exists", hint="use update_profile to change it"
    )


def _missing(profile_id: str, project: str | None) -> NotFoundError:
    where = f" in project {project!r}" if project else ""
    return NotFoundError(f"profile {profile_id!r}{where} does not exist")
