"""Projects (seed 001, "Project Extension"): create, get, list, edit.

``default_profile_id`` is the fallback profile for the project's tasks. It must name an
existing system profile; ``None`` clears it.
"""

from __future__ import annotations

import msgspec
from sqlalchemy import Connection, exists, insert, select, update
from sqlalchemy.engine import RowMapping

from agent_roster.errors import NotFoundError, UsageError
from agent_roster.store.common import UNSET, Unset, ordered
from agent_roster.store.profiles import require_system_profile
from agent_roster.store.tables import projects as t
from agent_roster.vault.paths import check_segment


class Project(msgspec.Struct, frozen=True, kw_only=True):
    """A project row."""

    id: str
    name: str = ""
    default_profile_id: str | None = None


def _from_row(row: RowMapping) -> Project:
    return Project(id=row["id"], name=row["name"], default_profile_id=row["default_profile_id"])


def create(conn: Connection, project_id: str, name: str, default_profile_id: str | None) -> Project:
    """Insert a project; its id is a vault path segment (``projects/<id>/``)."""
    check_segment(project_id, "project id")
    if conn.execute(select(exists().where(t.c.id == project_id))).scalar():
        raise UsageError(f"project {project_id!r} already exists")
    if default_profile_id is not None:
        require_system_profile(conn, default_profile_id, f"project {project_id!r}")
    project = Project(id=project_id, name=name, default_profile_id=default_profile_id)
    conn.execute(insert(t), msgspec.structs.asdict(project))
    return project


def get(conn: Connection, project_id: str) -> Project | None:
    """The project ``project_id``, or ``None``."""
    row = conn.execute(select(t).where(t.c.id == project_id)).first()
    return None if row is None else _from_row(row._mapping)


def list_(conn: Connection) -> list[Project]:
    """Every project, sorted by id."""
    query = select(t).order_by(ordered(conn, t.c.id))
    return [_from_row(row._mapping) for row in conn.execute(query)]


def require(conn: Connection, project_id: str) -> Project:
    """The project ``project_id``; NotFoundError naming it when there is none."""
    project = get(conn, project_id)
    if project is None:
        raise NotFoundError(f"project {project_id!r} does not exist")
    return project


def edit(
    conn: Connection,
    project_id: str,
    *,
    name: str | Unset = UNSET,
    default_profile_id: str | Unset | None = UNSET,
) -> Project:
    """Change the given fields; an argument left out keeps its value, ``None`` clears."""
    project = require(conn, project_id)
    changes: dict[str, object] = {}
    if not isinstance(name, Unset):
        changes["name"] = name
    if not isinstance(default_profile_id, Unset):
        if default_profile_id is not None:
            require_system_profile(conn, default_profile_id, f"project {project_id!r}")
        changes["default_profile_id"] = default_profile_id
    if changes:
        conn.execute(update(t).where(t.c.id == project_id).values(changes))
        project = msgspec.structs.replace(project, **changes)
    return project
