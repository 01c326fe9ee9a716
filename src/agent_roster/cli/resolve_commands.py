"""CLI adapters for resolve and run."""

from __future__ import annotations

import sys

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, Settings, pass_settings


<<<<<<< main
def _resolved(
    settings: Settings, task: str | None, profile: str | None, project: str | None
) -> object:
    from agent_roster.commands.resolve import resolve_launch, running_daemon
    from agent_roster.commands.vault_view import read_view

    # Read-only: the vault as it is now, the database only read (issue 13 item 3).
    view = read_view(settings.vault, settings.db)
    if profile is not None:
        problem = view.unusable(profile, project)
        if problem is not None:
            raise problem
    resolved = resolve_launch(
        view.index,
        settings.vault,
        task=task,
        profile=profile,
        project=project,
        daemon=running_daemon(settings.vault),
        config=view.config.diagnostics,
    )
    found = resolved.resolution
    return resolved._replace(notes=tuple(view.notes_for(found.profile_id, found.project)))


def _config_warnings(diagnostics: tuple[object, ...]) -> None:
    """roster.toml's problems on stderr, and what they mean for the resolution."""
    from agent_roster.diagnostics import Diagnostic

    found = [d for d in diagnostics if isinstance(d, Diagnostic)]
    output.print_diagnostics(found, "text", sys.stderr)
    if any(d.is_error for d in found):
        output.echo(
            "warning: roster.toml has errors; built-in defaults stand in for what it could "
            "not say (fix it: roster validate)",
            err=True,
        )


=======
>>>>>>> layer
@click.command()
@click.option("--task", metavar="ID", help="Resolve the profile for this task (the cascade).")
@click.option("--profile", metavar="ID", help="Resolve this profile.")
@click.option("--project", metavar="PID", help="With --profile: apply this project's override.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def resolve(
    settings: Settings, task: str | None, profile: str | None, project: str | None, as_json: bool
) -> int:
    """The effective profile (with where every field comes from) and its launch spec."""
<<<<<<< main
    from agent_roster.commands.resolve import Resolved

    resolved = _resolved(settings, task, profile, project)
    assert isinstance(resolved, Resolved)
    _config_warnings(resolved.config)
    for note in resolved.notes:
        output.echo(f"warning: {note}", err=True)
    if as_json:
        output.emit_json(resolved.to_dict())
        return EXIT_OK
    r = resolved.resolution
    output.echo(f"level      {r.level}")
    output.echo(
        f"profile    {r.profile_id or '(system default)'}"
        + (f" in project {r.project}" if r.project else "")
    )
    for warning in r.warnings:
        output.echo(f"warning    {warning}", err=True)
    output.echo("")
    width = max((len(k) for k in r.origins), default=0)
    for field, origin in sorted(r.origins.items()):
        output.echo(f"  {field.ljust(width)}  {origin.path} ({origin.section})")
    output.echo("")
    spec = resolved.launch
    output.echo(f"runtime    {spec.runtime}")
    if spec.argv:
        output.echo("argv       " + " ".join(_quote(a) for a in spec.command("<prompt>")))
    if spec.tools:
        output.echo("tools      " + ", ".join(spec.tools))
    for path in spec.files:
        output.echo(f"file       {path}")
    for note in spec.notes:
        output.echo(f"note       {note}")
=======
    from agent_roster.commands.resolve import ResolveProfileParams, resolve_profile

    params = ResolveProfileParams(task=task, profile=profile, project=project)
    with settings.context() as ctx:
        r = resolve_profile(ctx, params)

    def text() -> None:
        output.echo(f"level      {r.level}")
        output.echo(
            f"profile    {r.profile_id or '(system default)'}"
            + (f" in project {r.project}" if r.project else "")
        )
        for warning in r.warnings:
            output.echo(f"warning    {warning}", err=True)
        output.echo("")
        width = max((len(k) for k in r.origins), default=0)
        for field, origin in sorted(r.origins.items()):
            output.echo(f"  {field.ljust(width)}  {origin.path} ({origin.section})")
        output.echo("")
        spec = r.launch
        output.echo(f"runtime    {spec['runtime']}")
        if r.command:
            output.echo("argv       " + " ".join(_quote(a) for a in r.command))
        if spec["tools"]:
            output.echo("tools      " + ", ".join(spec["tools"]))
        for path in spec["files"]:
            output.echo(f"file       {path}")
        for note in spec["notes"]:
            output.echo(f"note       {note}")

    output.emit(r, as_json, text)
>>>>>>> layer
    return EXIT_OK


def _quote(arg: str) -> str:
    import shlex

    text = shlex.quote(arg)
    return text if len(text) <= 80 else text[:77] + "...'"


@click.command(context_settings={"ignore_unknown_options": True})
@click.option("--task", metavar="ID", help="Run with the profile resolved for this task.")
@click.option("--profile", metavar="ID", help="Run with this profile.")
@click.option("--project", metavar="PID", help="With --profile: apply this project's override.")
@click.argument("prompt", nargs=-1, required=True)
@pass_settings
def run(
    settings: Settings,
    task: str | None,
    profile: str | None,
    project: str | None,
    prompt: tuple[str, ...],
) -> int:
    """Resolve, then execute the runtime's CLI with PROMPT (write it after --)."""
    from agent_roster.commands.resolve import resolve_for, run_launch

<<<<<<< main
    resolved = _resolved(settings, task, profile, project)
    assert isinstance(resolved, Resolved)
    if not any(d.is_error for d in resolved.config):  # errors: run_launch refuses with them
        _config_warnings(resolved.config)
    for warning in (*resolved.notes, *resolved.resolution.warnings):
=======
    with settings.context() as ctx:
        resolved = resolve_for(ctx, task=task, profile=profile, project=project)
    for warning in resolved.resolution.warnings:
>>>>>>> layer
        output.echo(f"warning: {warning}", err=True)
    sys.stdout.flush()
    return run_launch(resolved, " ".join(prompt))


def register(group: click.Group) -> None:
    for command in (resolve, run):
        group.add_command(command)
