"""CLI adapters for resolve and run."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, Settings, pass_settings

if TYPE_CHECKING:
    from agent_roster.diagnostics import Diagnostic


def _config_warnings(diagnostics: Sequence[Diagnostic]) -> None:
    """roster.toml's problems on stderr, and what they mean for the resolution."""
    found = list(diagnostics)
    output.print_diagnostics(found, "text", sys.stderr)
    if any(d.is_error for d in found):
        output.echo(
            "warning: roster.toml has errors; built-in defaults stand in for what it could "
            "not say (fix it: roster validate)",
            err=True,
        )


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
    from agent_roster.commands.resolve import ResolveProfileParams, resolve_profile

    params = ResolveProfileParams(task=task, profile=profile, project=project)
    with settings.context() as ctx:
        r = resolve_profile(ctx, params)
    _config_warnings(r.config)
    for note in r.notes:
        output.echo(f"warning: {note}", err=True)

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

    with settings.context() as ctx:
        resolved = resolve_for(ctx, task=task, profile=profile, project=project)
    if not any(d.is_error for d in resolved.config):  # errors: run_launch refuses with them
        _config_warnings(resolved.config)
    for warning in (*resolved.notes, *resolved.resolution.warnings):
        output.echo(f"warning: {warning}", err=True)
    sys.stdout.flush()
    return run_launch(resolved, " ".join(prompt))


def register(group: click.Group) -> None:
    for command in (resolve, run):
        group.add_command(command)
