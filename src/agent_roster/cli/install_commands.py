"""CLI adapters for ``check_profile`` and ``install_profile``: a readable report, the plan
shown before anything is installed, and a question at a terminal unless ``--yes``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings, pass_settings

if TYPE_CHECKING:
    from agent_roster.commands.install import Step


@click.command()
@click.argument("profile_id")
@click.option("--project", metavar="PID", help="Check the project's override.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def check(settings: Settings, profile_id: str, project: str | None, as_json: bool) -> int:
    """Check that what a profile's Install manifest needs is present; exit 1 when not."""
    from agent_roster.commands.context import RosterContext
    from agent_roster.commands.install import InstallParams, check_profile
    from agent_roster.commands.registry import encode

    with RosterContext(settings.vault, settings.db) as ctx:
        result = check_profile(ctx, InstallParams(id=profile_id, project=project))
    if as_json:
        from agent_roster.cli.output import emit_json

        emit_json(encode(result))
    else:
        for issue in result.issues:
            output.echo(f"{issue.problem:9} {issue.manager:7} {issue.spec}: {issue.detail}")
        verdict = "ready" if result.valid else f"{len(result.issues)} not ready"
        output.echo(f"{result.profile_id}: {verdict} (pip checks {result.python})")
    return EXIT_OK if result.valid else EXIT_PROBLEMS


@click.command()
@click.argument("profile_id")
@click.option("--project", metavar="PID", help="Install for the project's override.")
@click.option("--yes", is_flag=True, help="Install without asking.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def install(
    settings: Settings, profile_id: str, project: str | None, yes: bool, as_json: bool
) -> int:
    """Install the npm and pip packages a profile needs; shows the plan and asks first.

    Programs are listed as manual steps. Without --yes and without a terminal to ask at,
    nothing is installed: the plan is printed and the exit code is 1."""
    from agent_roster.commands.context import RosterContext
    from agent_roster.commands.install import InstallProfileParams, install_profile
    from agent_roster.commands.registry import encode

    with RosterContext(settings.vault, settings.db) as ctx:
        # --yes is the parameter itself (consented in the result, as on HTTP and MCP).
        params = InstallProfileParams(id=profile_id, project=project, yes=yes)
        result = install_profile(ctx, params)
        if result.plan and not yes and not as_json and sys.stdin.isatty():
            _show_plan(result.plan)
            if click.confirm("Install these now?", default=False):
                result = install_profile(
                    ctx, InstallProfileParams(id=profile_id, project=project, yes=True)
                )
    if as_json:
        from agent_roster.cli.output import emit_json

        emit_json(encode(result))
        return EXIT_OK if result.ready else EXIT_PROBLEMS
    if not result.consented and result.plan:
        _show_plan(result.plan)
        output.echo("nothing installed: run again with --yes to install")
    for spec in result.installed:
        output.echo(f"installed  {spec}")
    for issue in result.failed:
        output.echo(f"failed     {issue.spec}: {issue.detail}")
    for issue in result.refused:
        output.echo(f"refused    {issue.spec}: {issue.detail}")
    for spec in result.manual:
        output.echo(f"manual     {spec}: install it yourself, then run 'roster check'")
    state = "ready" if result.ready else "not ready"
    output.echo(f"{result.profile_id}: {state} ({len(result.already_present)} already present)")
    return EXIT_OK if result.ready else EXIT_PROBLEMS


def _show_plan(plan: list[Step]) -> None:
    output.echo("plan:")
    for step in plan:
        output.echo("  " + " ".join(step.argv))


def register(group: click.Group) -> None:
    group.add_command(check)
    group.add_command(install)
