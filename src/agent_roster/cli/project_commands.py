"""CLI adapters for projects, tasks and project-scoped profiles: options in, the registry
command's parameters out; its result printed as text or (``--json``) in the JSON form every
surface gives."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from agent_roster.cli import options, output
from agent_roster.cli.app import EXIT_OK, Settings, pass_settings
from agent_roster.errors import UsageError

if TYPE_CHECKING:
    from agent_roster.store.projects import Project
    from agent_roster.store.tasks import Task

_JSON = options.AS_JSON
_BASE = options.BASE_HASH
_NO_WAIT = options.NO_WAIT


def _either(value: Any, clear: bool, what: str) -> Any:
    """A ``--X VALUE`` / ``--clear-X`` pair as one parameter: the value, ``None`` to clear,
    or left out."""
    from msgspec import UNSET

    if value is not None and clear:
        raise UsageError(f"give --{what} or --clear-{what}, not both")
    return None if clear else UNSET if value is None else value


# -- projects and tasks ---------------------------------------------------------------------
@click.group()
def project() -> None:
    """Projects and their default profile."""


@project.command("create")
@click.argument("project_id")
@click.option("--name", default="", help="Display name [default: the id].")
@click.option("--default-profile", metavar="ID", help="System profile for tasks without one.")
@_JSON
@pass_settings
def project_create(
    settings: Settings, project_id: str, name: str, default_profile: str | None, as_json: bool
) -> int:
    """Create a project."""
    from agent_roster.commands.projects import CreateProjectParams, create_project

    params = CreateProjectParams(id=project_id, name=name, default_profile_id=default_profile)
    with settings.context() as ctx:
        result = create_project(ctx, params)
    output.emit(result, as_json, lambda: _project_line(result))
    return EXIT_OK


@project.command("edit")
@click.argument("project_id")
@click.option("--name", help="New display name.")
@click.option("--default-profile", metavar="ID", help="Set the default profile.")
@click.option("--clear-default-profile", is_flag=True, help="Remove the default profile.")
@_JSON
@pass_settings
def project_edit(
    settings: Settings,
    project_id: str,
    name: str | None,
    default_profile: str | None,
    clear_default_profile: bool,
    as_json: bool,
) -> int:
    """Change a project's name or default profile."""
    from msgspec import UNSET

    from agent_roster.commands.projects import EditProjectParams, edit_project

    params = EditProjectParams(
        id=project_id,
        name=UNSET if name is None else name,
        default_profile_id=_either(default_profile, clear_default_profile, "default-profile"),
    )
    with settings.context() as ctx:
        result = edit_project(ctx, params)
    output.emit(result, as_json, lambda: _project_line(result))
    return EXIT_OK


@project.command("list")
@_JSON
@pass_settings
def project_list(settings: Settings, as_json: bool) -> int:
    """List projects."""
    from agent_roster.commands.projects import ListProjectsParams, list_projects

    with settings.context() as ctx:
        result = list_projects(ctx, ListProjectsParams())

    def text() -> None:
        for item in result.projects:
            _project_line(item)

    output.emit(result, as_json, text)
    return EXIT_OK


def _project_line(item: Project) -> None:
    default = item.default_profile_id or "(system default)"
    output.echo(f"{item.id}  name={item.name!r}  default_profile={default}")


@click.group()
def task() -> None:
    """Tasks and their profile."""


@task.command("create")
@click.argument("task_id")
@click.option("--project", "project_id", required=True, metavar="PID", help="Its project.")
@click.option("--title", default="", help="Task title.")
@click.option("--profile", metavar="ID", help="System profile for this task.")
@_JSON
@pass_settings
def task_create(
    settings: Settings,
    task_id: str,
    project_id: str,
    title: str,
    profile: str | None,
    as_json: bool,
) -> int:
    """Create a task in a project."""
    from agent_roster.commands.projects import CreateTaskParams, create_task

    params = CreateTaskParams(id=task_id, project_id=project_id, title=title, profile_id=profile)
    with settings.context() as ctx:
        result = create_task(ctx, params)
    output.emit(result, as_json, lambda: _task_line(result))
    return EXIT_OK


@task.command("edit")
@click.argument("task_id")
@click.option("--title", help="New title.")
@click.option("--profile", metavar="ID", help="Set the task's profile.")
@click.option("--clear-profile", is_flag=True, help="Remove the task's profile.")
@_JSON
@pass_settings
def task_edit(
    settings: Settings,
    task_id: str,
    title: str | None,
    profile: str | None,
    clear_profile: bool,
    as_json: bool,
) -> int:
    """Change a task's title or profile."""
    from msgspec import UNSET

    from agent_roster.commands.projects import EditTaskParams, edit_task

    params = EditTaskParams(
        id=task_id,
        title=UNSET if title is None else title,
        profile_id=_either(profile, clear_profile, "profile"),
    )
    with settings.context() as ctx:
        result = edit_task(ctx, params)
    output.emit(result, as_json, lambda: _task_line(result))
    return EXIT_OK


@task.command("show")
@click.argument("task_id")
@_JSON
@pass_settings
def task_show(settings: Settings, task_id: str, as_json: bool) -> int:
    """Show a task with its profile id."""
    from agent_roster.commands.projects import GetTaskParams, get_task

    with settings.context() as ctx:
        result = get_task(ctx, GetTaskParams(id=task_id))
    output.emit(result, as_json, lambda: _task_line(result))
    return EXIT_OK


def _task_line(item: Task) -> None:
    profile = item.profile_id or "(none: the project's default applies)"
    output.echo(f"{item.id}  project={item.project_id}  title={item.title!r}  profile={profile}")


# -- project-scoped profiles ----------------------------------------------------------------
@click.group("project-profile")
def project_profile() -> None:
    """Project overrides of system profiles (projects/<pid>/agent-types/<id>/profile.md)."""


@project_profile.command("list")
@click.argument("project_id")
@_JSON
@pass_settings
def pp_list(settings: Settings, project_id: str, as_json: bool) -> int:
    """Every agent type in a project: override, inherit or no-default."""
    from agent_roster.commands.project_profiles import (
        ListProjectProfilesParams,
        list_project_profiles,
    )

    with settings.context() as ctx:
        result = list_project_profiles(ctx, ListProjectProfilesParams(project=project_id))

    def text() -> None:
        for row in result.agent_types:
            output.echo(
                f"{row.agent_type:24} {row.status:10} {row.override_path or row.system_path}"
            )

    output.emit(result, as_json, text)
    return EXIT_OK


@project_profile.command("create")
@click.argument("project_id")
@click.argument("agent_type")
@click.option("--seed", is_flag=True, help="Copy the system profile's settings into it.")
@_NO_WAIT
@_JSON
@pass_settings
def pp_create(
    settings: Settings, project_id: str, agent_type: str, seed: bool, no_wait: bool, as_json: bool
) -> int:
    """Create a project override (a partial profile)."""
    from agent_roster.commands.project_profiles import (
        CreateProjectProfileParams,
        create_project_profile,
    )

    params = CreateProjectProfileParams(
        project=project_id, agent_type=agent_type, seed_from_global=seed, wait=not no_wait
    )
    with settings.context() as ctx:
        result = create_project_profile(ctx, params)

    def text() -> None:
        output.echo(f"created  {result.path}")
        if result.seeded:
            output.echo("seeded   " + ", ".join(result.seeded))

    output.emit(result, as_json, text)
    return EXIT_OK


@project_profile.command("edit")
@click.argument("project_id")
@click.argument("agent_type")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Set a Config key.")
@click.option("--unset", "unsets", multiple=True, metavar="KEY", help="Remove a Config key.")
@options.ALLOW_LITERAL_SECRET
@_BASE
@_NO_WAIT
@_JSON
@pass_settings
def pp_edit(
    settings: Settings,
    project_id: str,
    agent_type: str,
    sets: tuple[str, ...],
    unsets: tuple[str, ...],
    allow_literal_secret: bool,
    base_hash: str | None,
    no_wait: bool,
    as_json: bool,
) -> int:
    """Change Config keys of an override in place (VALUE is JSON, or else a string)."""
    from msgspec import UNSET

    from agent_roster.cli import params as read
    from agent_roster.commands.project_profiles import (
        EditProjectProfileParams,
        edit_project_profile,
    )

    config: dict[str, Any] = {k: read.json_value(v) for k, v in read.pairs(sets, "--set").items()}
    config.update(dict.fromkeys(unsets))
    with settings.context() as ctx:
        path = ctx.layout.profile_path(agent_type, project_id)
        params = EditProjectProfileParams(
            project=project_id,
            agent_type=agent_type,
            base_hash=read.base_hash(ctx.layout, path, base_hash),
            config=config or UNSET,
            allow_literal_secret=allow_literal_secret,
            wait=not no_wait,
        )
        result = edit_project_profile(ctx, params)

    def text() -> None:
        output.echo(f"{'edited ' if result.changed else 'unchanged'}  {result.path}")
        output.print_diagnostics(result.diagnostics, "text", sys.stderr)

    output.emit(result, as_json, text)
    return EXIT_OK


@project_profile.command("delete")
@click.argument("project_id")
@click.argument("agent_type")
@_BASE
@_NO_WAIT
@_JSON
@pass_settings
def pp_delete(
    settings: Settings,
    project_id: str,
    agent_type: str,
    base_hash: str | None,
    no_wait: bool,
    as_json: bool,
) -> int:
    """Delete an override; the agent type inherits the system profile again."""
    from agent_roster.cli import params as read
    from agent_roster.commands.project_profiles import (
        DeleteProjectProfileParams,
        delete_project_profile,
    )

    with settings.context() as ctx:
        path = ctx.layout.profile_path(agent_type, project_id)
        params = DeleteProjectProfileParams(
            project=project_id,
            agent_type=agent_type,
            base_hash=read.base_hash(ctx.layout, path, base_hash),
            wait=not no_wait,
        )
        result = delete_project_profile(ctx, params)

    def text() -> None:
        for rel in result.removed:
            output.echo(f"removed  {rel}")

    output.emit(result, as_json, text)
    return EXIT_OK


@project_profile.command("show")
@click.argument("project_id")
@click.argument("agent_type")
@_JSON
@pass_settings
def pp_show(settings: Settings, project_id: str, agent_type: str, as_json: bool) -> int:
    """The effective profile in a project, with the origin of every field."""
    from agent_roster.commands.project_profiles import (
        ShowEffectiveProfileParams,
        show_effective_profile,
    )

    params = ShowEffectiveProfileParams(project=project_id, agent_type=agent_type)
    with settings.context() as ctx:
        result = show_effective_profile(ctx, params)

    def text() -> None:
        output.echo(f"status   {result.status}")
        output.echo(output.profile_text(result.profile), nl=False)
        output.echo("")
        width = max((len(k) for k in result.origins), default=0)
        for field, origin in sorted(result.origins.items()):
            output.echo(f"  {field.ljust(width)}  {origin.path} ({origin.section})")
        for warning in result.warnings:
            output.echo(f"warning  {warning}", err=True)
        output.print_diagnostics(result.diagnostics, "text", sys.stderr)

    output.emit(result, as_json, text)
    return EXIT_OK


def register(group: click.Group) -> None:
    for command in (project, task, project_profile):
        group.add_command(command)
