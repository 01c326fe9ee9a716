"""Projects and tasks with their profile references (seed 001 "Modified Commands").

``create_task`` and ``edit_task`` take an optional ``profile_id`` (``null`` clears it on
edit), ``edit_project`` an optional ``default_profile_id``, and ``get_task`` returns the
``profile_id``. A referenced profile must be a system profile the database holds as present:
run alone, a write syncs the vault first so that is the vault as it is now; in the daemon
the watcher keeps the database current. A missing one is a NotFoundError naming it.

Projects and tasks live only in the database (the vault has no file for them), so these
writes change rows, field by field: an edit changes only the fields it is given. In the
daemon the live index learns the new references at once, so the next resolution sees them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, UnsetType

from agent_roster.commands.context import RosterContext
from agent_roster.commands.sync import open_store
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.resolve.config import load_config
from agent_roster.store import UNSET as KEEP
from agent_roster.store import Store
from agent_roster.store.projects import Project
from agent_roster.store.tasks import Task
from agent_roster.sync.engine import SyncEngine

ProjectId = Annotated[str, Meta(description="the project id (its folder name under projects/)")]
TaskId = Annotated[str, Meta(description="the task id")]
ProfileRef = Annotated[
    str | None, Meta(description="a system profile id (agent-types/<id>); null for none")
]


# -- results ------------------------------------------------------------------------------
class ProjectList(msgspec.Struct, frozen=True, kw_only=True):
    """Every project, sorted by id."""

    projects: list[Project]


# -- parameters ---------------------------------------------------------------------------
class ListProjectsParams(msgspec.Struct, frozen=True, kw_only=True):
    pass


class CreateProjectParams(msgspec.Struct, frozen=True, kw_only=True):
    id: ProjectId
    name: Annotated[str, Meta(description="display name (default: the id)")] = ""
    default_profile_id: ProfileRef = None


class EditProjectParams(msgspec.Struct, frozen=True, kw_only=True):
    id: ProjectId
    name: Annotated[str | UnsetType, Meta(description="new display name")] = UNSET
    default_profile_id: Annotated[
        str | UnsetType | None,
        Meta(description="the profile for the project's tasks without one; null clears it"),
    ] = UNSET


class CreateTaskParams(msgspec.Struct, frozen=True, kw_only=True):
    id: TaskId
    project_id: ProjectId
    title: str = ""
    profile_id: ProfileRef = None


class EditTaskParams(msgspec.Struct, frozen=True, kw_only=True):
    id: TaskId
    title: Annotated[str | UnsetType, Meta(description="new title")] = UNSET
    profile_id: Annotated[
        str | UnsetType | None,
        Meta(description="the task's profile; null clears it (the project's default applies)"),
    ] = UNSET


class GetTaskParams(msgspec.Struct, frozen=True, kw_only=True):
    id: TaskId


# -- commands -----------------------------------------------------------------------------
def list_projects(ctx: RosterContext, params: ListProjectsParams) -> ProjectList:
    """List every project with its default profile."""
    with _read_only(ctx) as store:
        return ProjectList(projects=store.list_projects() if store is not None else [])


def create_project(ctx: RosterContext, params: CreateProjectParams) -> Project:
    """Create a project, optionally with a default profile for its tasks."""
    project = _synced(ctx).create_project(
        params.id, params.name or params.id, default_profile_id=params.default_profile_id
    )
    _publish_project(ctx, project)
    return project


def edit_project(ctx: RosterContext, params: EditProjectParams) -> Project:
    """Change a project's name or default profile (null clears the default)."""
    if params.name is UNSET and params.default_profile_id is UNSET:
        raise UsageError("nothing to change", hint="give a name or a default_profile_id")
    project = _synced(ctx).edit_project(
        params.id,
        name=KEEP if isinstance(params.name, UnsetType) else params.name,
        default_profile_id=KEEP
        if isinstance(params.default_profile_id, UnsetType)
        else params.default_profile_id,
    )
    _publish_project(ctx, project)
    return project


def create_task(ctx: RosterContext, params: CreateTaskParams) -> Task:
    """Create a task in a project, optionally with its own profile."""
    task = _synced(ctx).create_task(
        params.id, params.project_id, params.title, profile_id=params.profile_id
    )
    _publish_task(ctx, task)
    return task


def edit_task(ctx: RosterContext, params: EditTaskParams) -> Task:
    """Change a task's title or profile (null clears the profile)."""
    if params.title is UNSET and params.profile_id is UNSET:
        raise UsageError("nothing to change", hint="give a title or a profile_id")
    task = _synced(ctx).edit_task(
        params.id,
        title=KEEP if isinstance(params.title, UnsetType) else params.title,
        profile_id=KEEP if isinstance(params.profile_id, UnsetType) else params.profile_id,
    )
    _publish_task(ctx, task)
    return task


def get_task(ctx: RosterContext, params: GetTaskParams) -> Task:
    """Show a task with its profile id."""
    with _read_only(ctx) as store:
        if store is None:
            raise NotFoundError(
                f"task {params.id!r} does not exist (the vault has no database yet)",
                hint="create it with 'roster task create'",
            )
        task = store.get_task(params.id)
    if task is None:
        raise NotFoundError(f"task {params.id!r} does not exist", hint="list tasks of a project")
    return task


# -- helpers ------------------------------------------------------------------------------
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


def _synced(ctx: RosterContext) -> Store:
    """The store, holding the vault as it is now: the daemon's watcher keeps it so;
    otherwise it is synced here."""
    store = ctx.store()
    if ctx.live is None:
        embedded = ctx.config().embedded
        SyncEngine(store, ctx.vault, embedded=embedded.name, commands=embedded.commands).sync()
    return store


@contextlib.contextmanager
def _read_only(ctx: RosterContext) -> Iterator[Store | None]:
    """The store opened read-only, checked to belong to this vault (``None``: there is no
    database yet). Read-only commands create and change nothing (issue 13 item 3); in the
    daemon, its one store."""
    from agent_roster.sync import binding

    store = ctx.read_store()
    if store is None:
        yield None
        return
    try:
        binding.check(store, ctx.layout)
        yield store
    finally:
        if store is not ctx._store:
            store.close()


def _publish_project(ctx: RosterContext, project: Project) -> None:
    if ctx.live is not None:
        ctx.live.index().project_defaults[project.id] = project.default_profile_id


def _publish_task(ctx: RosterContext, task: Task) -> None:
    if ctx.live is not None:
        ctx.live.index().task_profiles[task.id] = (task.project_id, task.profile_id)
