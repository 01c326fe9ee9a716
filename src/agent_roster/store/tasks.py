"""Tasks and archived tasks (seed 001, "Task Extension"): create, get, list, edit, archive.

``profile_id`` must name an existing system profile; ``None`` clears it. Archived tasks
keep their ``profile_id`` as history, without a foreign key (seed 001, "Migrations").
"""

from __future__ import annotations

import msgspec
from sqlalchemy import Connection, delete, exists, insert, select, update
from sqlalchemy.engine import RowMapping

from agent_roster.errors import NotFoundError, UsageError
from agent_roster.store import projects
from agent_roster.store.common import UNSET, Unset, ordered
from agent_roster.store.profiles import require_system_profile
from agent_roster.store.tables import archived_tasks
from agent_roster.store.tables import tasks as t


class Task(msgspec.Struct, frozen=True, kw_only=True):
    """A task row (live or archived)."""

    id: str
    project_id: str
    title: str = ""
    profile_id: str | None = None


def _from_row(row: RowMapping) -> Task:
    return Task(
        id=row["id"], project_id=row["project_id"], title=row["title"], profile_id=row["profile_id"]
    )


def create(
    conn: Connection, task_id: str, project_id: str, title: str, profile_id: str | None
) -> Task:
    """Insert a task into an existing project."""
    if not task_id:
        raise UsageError("a task id must not be empty")
    if conn.execute(select(exists().where(t.c.id == task_id))).scalar():
        raise UsageError(f"task {task_id!r} already exists")
    projects.require(conn, project_id)
    if profile_id is not None:
        require_system_profile(conn, profile_id, f"task {task_id!r}")
    task = Task(id=task_id, project_id=project_id, title=title, profile_id=profile_id)
    conn.execute(insert(t), msgspec.structs.asdict(task))
    return task


def get(conn: Connection, task_id: str) -> Task | None:
    """The live task ``task_id``, or ``None``."""
    row = conn.execute(select(t).where(t.c.id == task_id)).first()
    return None if row is None else _from_row(row._mapping)


def list_(conn: Connection, project_id: str | None) -> list[Task]:
    """Live tasks sorted by id; only ``project_id``'s when given."""
    query = select(t).order_by(ordered(conn, t.c.id))
    if project_id is not None:
        query = query.where(t.c.project_id == project_id)
    return [_from_row(row._mapping) for row in conn.execute(query)]


def edit(
    conn: Connection,
    task_id: str,
    *,
    title: str | Unset = UNSET,
    profile_id: str | Unset | None = UNSET,
) -> Task:
    """Change the given fields; an argument left out keeps its value, ``None`` clears."""
    task = get(conn, task_id)
    if task is None:
        raise NotFoundError(f"task {task_id!r} does not exist")
    changes: dict[str, object] = {}
    if not isinstance(title, Unset):
        changes["title"] = title
    if not isinstance(profile_id, Unset):
        if profile_id is not None:
            require_system_profile(conn, profile_id, f"task {task_id!r}")
        changes["profile_id"] = profile_id
    if changes:
        conn.execute(update(t).where(t.c.id == task_id).values(changes))
        task = msgspec.structs.replace(task, **changes)
    return task


def archive(conn: Connection, task_id: str) -> Task:
    """Move a live task to ``archived_tasks`` (one transaction); returns it."""
    task = get(conn, task_id)
    if task is None:
        raise NotFoundError(f"task {task_id!r} does not exist")
    if get_archived(conn, task_id) is not None:
        raise UsageError(f"task {task_id!r} is already in the archive")
    conn.execute(insert(archived_tasks), msgspec.structs.asdict(task))
    conn.execute(delete(t).where(t.c.id == task_id))
    return task


def get_archived(conn: Connection, task_id: str) -> Task | None:
    """The archived task ``task_id``, or ``None``."""
    row = conn.execute(select(archived_tasks).where(archived_tasks.c.id == task_id)).first()
    return None if row is None else _from_row(row._mapping)
