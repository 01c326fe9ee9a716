"""Projects and tasks with their profile references (seed 001 "Modified Commands").

``create_task`` and ``edit_task`` take an optional ``profile_id`` (``None`` clears it on
edit), ``edit_project`` an optional ``default_profile_id``, and ``get_task`` returns the
``profile_id``. A referenced profile must be a system profile the database holds as present,
so callers sync first (:func:`open_synced`); a missing one is a NotFoundError naming it.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from agent_roster.commands.sync import open_store
from agent_roster.errors import NotFoundError
from agent_roster.resolve.config import load_config
from agent_roster.store import UNSET, Store, Unset
from agent_roster.store.projects import Project
from agent_roster.store.tasks import Task
from agent_roster.sync.engine import SyncEngine


class ProjectResult(NamedTuple):
    project: Project

    def to_dict(self) -> dict[str, Any]:
        p = self.project
        return {"id": p.id, "name": p.name, "default_profile_id": p.default_profile_id}


class ProjectList(NamedTuple):
    projects: tuple[Project, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"projects": [ProjectResult(p).to_dict() for p in self.projects]}


class TaskResult(NamedTuple):
    task: Task

    def to_dict(self) -> dict[str, Any]:
        t = self.task
        return {
            "id": t.id,
            "project_id": t.project_id,
            "title": t.title,
            "profile_id": t.profile_id,
        }


def open_synced(vault: str | os.PathLike[str], db: str | None = None) -> Store:
    """Open the vault's store and sync it once, so profile references are checked against
    what the vault holds now (the caller closes the store)."""
    store = open_store(vault, db)
    try:
        embedded = load_config(vault).config.embedded
        SyncEngine(store, vault, embedded=embedded.name, commands=embedded.commands).sync()
    except BaseException:
        store.close()
        raise
    return store


def create_project(
    store: Store, project_id: str, name: str = "", default_profile_id: str | None = None
) -> ProjectResult:
    """Create a project (its id is a vault path segment: ``projects/<id>/``)."""
    return ProjectResult(
        store.create_project(project_id, name or project_id, default_profile_id=default_profile_id)
    )


def edit_project(
    store: Store,
    project_id: str,
    *,
    name: str | Unset = UNSET,
    default_profile_id: str | Unset | None = UNSET,
) -> ProjectResult:
    """Change the given fields; ``default_profile_id=None`` clears the default."""
    return ProjectResult(
        store.edit_project(project_id, name=name, default_profile_id=default_profile_id)
    )


def list_projects(store: Store) -> ProjectList:
    return ProjectList(tuple(store.list_projects()))


def list_projects_read_only(vault: str | os.PathLike[str], db: str | None = None) -> ProjectList:
    """The projects, read without writing (none while there is no database yet)."""
    store = _read_only(vault, db)
    if store is None:
        return ProjectList(())
    with store:
        return list_projects(store)


def get_task_read_only(vault: str | os.PathLike[str], db: str | None, task_id: str) -> TaskResult:
    """:func:`get_task`, read without writing."""
    store = _read_only(vault, db)
    if store is None:
        raise NotFoundError(
            f"task {task_id!r} does not exist (the vault has no database yet)",
            hint="create it with 'roster task create'",
        )
    with store:
        return get_task(store, task_id)


def _read_only(vault: str | os.PathLike[str], db: str | None) -> Store | None:
    from agent_roster.commands.vault_view import open_existing
    from agent_roster.sync import binding
    from agent_roster.vault.paths import VaultLayout

    store = open_existing(vault, db)
    if store is not None:
        try:
            binding.check(store, VaultLayout(vault))
        except BaseException:
            store.close()
            raise
    return store


def create_task(
    store: Store, task_id: str, project_id: str, title: str = "", profile_id: str | None = None
) -> TaskResult:
    """Create a task in an existing project, optionally naming its profile."""
    return TaskResult(store.create_task(task_id, project_id, title, profile_id=profile_id))


def edit_task(
    store: Store,
    task_id: str,
    *,
    title: str | Unset = UNSET,
    profile_id: str | Unset | None = UNSET,
) -> TaskResult:
    """Change the given fields; ``profile_id=None`` clears the task's profile."""
    return TaskResult(store.edit_task(task_id, title=title, profile_id=profile_id))


def get_task(store: Store, task_id: str) -> TaskResult:
    """The task with its ``profile_id``; NotFoundError when there is none."""
    task = store.get_task(task_id)
    if task is None:
        raise NotFoundError(f"task {task_id!r} does not exist", hint="list tasks of a project")
    return TaskResult(task)
