"""CLI adapters for projects, tasks and project-scoped profiles."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, Settings, pass_settings
from agent_roster.errors import UsageError


def emit(result: Any, as_json: bool, text: Callable[[], None]) -> int:
    if as_json:
        output.emit_json(result.to_dict())
    else:
        text()
    return EXIT_OK


def pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    """``K=V`` options as a mapping."""
    found: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{what} {item!r} is not KEY=VALUE")
        found[key] = value
    return found


def _json_value(text: str) -> Any:
    """A ``--set`` value: JSON when it parses as JSON, else the text as a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


# -- projects and tasks ---------------------------------------------------------------------
@click.group()
def project() -> None:
    """Projects and their default profile."""


@project.command("create")
@click.argument("project_id")
@click.option("--name", default="", help="Display name [default: the id].")
@click.option("--default-profile", metavar="ID", help="System profile for tasks without one.")
@click.option("--json", "as_json", is_flag=True, help="Print the project as JSON.")
@pass_settings
def project_create(
    settings: Settings, project_id: str, name: str, default_profile: str | None, as_json: bool
) -> int:
    """Create a project."""
    from agent_roster.commands import projects

    with projects.open_synced(settings.vault, settings.db) as store:
        result = projects.create_project(store, project_id, name, default_profile)
    return emit(result, as_json, lambda: _project_line(result.project))


@project.command("edit")
@click.argument("project_id")
@click.option("--name", help="New display name.")
@click.option("--default-profile", metavar="ID", help="Set the default profile.")
@click.option("--clear-default-profile", is_flag=True, help="Remove the default profile.")
@click.option("--json", "as_json", is_flag=True, help="Print the project as JSON.")
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
    from agent_roster.commands import projects
    from agent_roster.store import UNSET

    if default_profile is not None and clear_default_profile:
        raise UsageError("give --default-profile or --clear-default-profile, not both")
    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = name
    if default_profile is not None or clear_default_profile:
        changes["default_profile_id"] = default_profile
    if not changes:
        raise UsageError("nothing to change", hint="give --name or --default-profile")
    with projects.open_synced(settings.vault, settings.db) as store:
        result = projects.edit_project(
            store,
            project_id,
            name=changes.get("name", UNSET),
            default_profile_id=changes.get("default_profile_id", UNSET),
        )
    return emit(result, as_json, lambda: _project_line(result.project))


@project.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the projects as JSON.")
@pass_settings
def project_list(settings: Settings, as_json: bool) -> int:
    """List projects."""
    from agent_roster.commands import projects

    result = projects.list_projects_read_only(settings.vault, settings.db)

    def text() -> None:
        for item in result.projects:
            _project_line(item)

    return emit(result, as_json, text)


def _project_line(item: Any) -> None:
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
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
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
    from agent_roster.commands import projects

    with projects.open_synced(settings.vault, settings.db) as store:
        result = projects.create_task(store, task_id, project_id, title, profile)
    return emit(result, as_json, lambda: _task_line(result.task))


@task.command("edit")
@click.argument("task_id")
@click.option("--title", help="New title.")
@click.option("--profile", metavar="ID", help="Set the task's profile.")
@click.option("--clear-profile", is_flag=True, help="Remove the task's profile.")
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
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
    from agent_roster.commands import projects
    from agent_roster.store import UNSET

    if profile is not None and clear_profile:
        raise UsageError("give --profile or --clear-profile, not both")
    if title is None and profile is None and not clear_profile:
        raise UsageError("nothing to change", hint="give --title, --profile or --clear-profile")
    with projects.open_synced(settings.vault, settings.db) as store:
        result = projects.edit_task(
            store,
            task_id,
            title=UNSET if title is None else title,
            profile_id=profile if (profile is not None or clear_profile) else UNSET,
        )
    return emit(result, as_json, lambda: _task_line(result.task))


@task.command("show")
@click.argument("task_id")
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
@pass_settings
def task_show(settings: Settings, task_id: str, as_json: bool) -> int:
    """Show a task with its profile id."""
    from agent_roster.commands import projects

    result = projects.get_task_read_only(settings.vault, settings.db, task_id)
    return emit(result, as_json, lambda: _task_line(result.task))


def _task_line(item: Any) -> None:
    profile = item.profile_id or "(none: the project's default applies)"
    output.echo(f"{item.id}  project={item.project_id}  title={item.title!r}  profile={profile}")


# -- project-scoped profiles ----------------------------------------------------------------
@click.group("project-profile")
def project_profile() -> None:
    """Project overrides of system profiles (projects/<pid>/agent-types/<id>/profile.md)."""


@project_profile.command("list")
@click.argument("project_id")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@pass_settings
def pp_list(settings: Settings, project_id: str, as_json: bool) -> int:
    """Every agent type in a project: override, inherit or no-default."""
    from agent_roster.commands.project_profiles import list_project_profiles

    result = list_project_profiles(settings.vault, project_id)

    def text() -> None:
        for row in result.rows:
            output.echo(
                f"{row.agent_type:24} {row.status:10} {row.override_path or row.system_path}"
            )

    return emit(result, as_json, text)


@project_profile.command("create")
@click.argument("project_id")
@click.argument("agent_type")
@click.option("--seed", is_flag=True, help="Copy the system profile's settings into it.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def pp_create(
    settings: Settings, project_id: str, agent_type: str, seed: bool, as_json: bool
) -> int:
    """Create a project override (a partial profile)."""
    from agent_roster.commands.project_profiles import create_project_profile

    result = create_project_profile(settings.vault, project_id, agent_type, seed)

    def text() -> None:
        output.echo(f"created  {result.path}")
        if result.seeded:
            output.echo("seeded   " + ", ".join(result.seeded))

    return emit(result, as_json, text)


@project_profile.command("edit")
@click.argument("project_id")
@click.argument("agent_type")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Set a Config key.")
@click.option("--unset", "unsets", multiple=True, metavar="KEY", help="Remove a Config key.")
@click.option(
    "--allow-literal-secret",
    is_flag=True,
    help="Write a secret's value into the vault [default: refused; write ${VAR} instead].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def pp_edit(
    settings: Settings,
    project_id: str,
    agent_type: str,
    sets: tuple[str, ...],
    unsets: tuple[str, ...],
    allow_literal_secret: bool,
    as_json: bool,
) -> int:
    """Change Config keys of an override in place (VALUE is JSON, or else a string)."""
    from agent_roster.commands.project_profiles import edit_project_profile

    config: dict[str, Any] = {k: _json_value(v) for k, v in pairs(sets, "--set").items()}
    config.update(dict.fromkeys(unsets))
    result = edit_project_profile(
        settings.vault,
        project_id,
        agent_type,
        config=config,
        allow_literal_secret=allow_literal_secret,
    )

    def text() -> None:
        output.echo(f"{'edited ' if result.changed else 'unchanged'}  {result.path}")
        output.print_diagnostics(result.diagnostics, "text", sys.stderr)

    return emit(result, as_json, text)


@project_profile.command("delete")
@click.argument("project_id")
@click.argument("agent_type")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def pp_delete(settings: Settings, project_id: str, agent_type: str, as_json: bool) -> int:
    """Delete an override; the agent type inherits the system profile again."""
    from agent_roster.commands.project_profiles import delete_project_profile

    result = delete_project_profile(settings.vault, project_id, agent_type)

    def text() -> None:
        for rel in result.removed:
            output.echo(f"removed  {rel}")

    return emit(result, as_json, text)


@project_profile.command("show")
@click.argument("project_id")
@click.argument("agent_type")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def pp_show(settings: Settings, project_id: str, agent_type: str, as_json: bool) -> int:
    """The effective profile in a project, with the origin of every field."""
    from agent_roster.commands.project_profiles import show_effective_profile

    result = show_effective_profile(settings.vault, project_id, agent_type)

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

    return emit(result, as_json, text)


COMMANDS = (project, task, project_profile)
