"""CLI adapters for sharing: ``roster export`` and the SOURCE form of ``roster import``.
Reading a file or stdin happens here, at the user's own terminal; the command layer takes
only text or a gist reference."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings, pass_settings
from agent_roster.errors import UsageError

if TYPE_CHECKING:
    from agent_roster.commands.install import InstallResult
    from agent_roster.commands.share import ImportResult


@click.command()
@click.argument("profile_id")
@click.option("--project", metavar="PID", help="Export the project's override.")
@click.option("--gist", is_flag=True, help="Also publish it as a public gist (needs gh).")
@click.option("--out", "out", metavar="FILE", help="Write the YAML to FILE instead of stdout.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_settings
def export(
    settings: Settings,
    profile_id: str,
    project: str | None,
    gist: bool,
    out: str | None,
    as_json: bool,
) -> int:
    """Export a profile and the MCP servers it uses as one shareable YAML file."""
    from agent_roster.commands.context import RosterContext
    from agent_roster.commands.registry import encode
    from agent_roster.commands.share import ExportParams, export_profile

    with RosterContext(settings.vault, settings.db) as ctx:
        result = export_profile(ctx, ExportParams(id=profile_id, project=project, gist=gist))
    if out:
        from agent_roster.vault.writer import atomic_write

        atomic_write(out, result.yaml)
    if as_json:
        output.emit_json(encode(result))
    elif not out:
        output.echo(result.yaml, nl=False)
    if result.gist_url and not as_json:
        output.echo(result.gist_url, err=not out)
    return EXIT_OK


def import_shared(
    settings: Settings,
    source: str,
    new_id: str | None,
    overwrite: bool,
    install: bool,
    as_json: bool,
    allow_literal_secret: bool = False,
) -> int:
    from agent_roster.commands.context import RosterContext
    from agent_roster.commands.install import InstallProfileParams, install_profile
    from agent_roster.commands.registry import encode
    from agent_roster.commands.share import ImportParams, import_profile
    from agent_roster.share.gist import gist_id

    text: str | None = None
    gist: str | None = None
    if source == "-":
        text = sys.stdin.read()
    elif Path(source).is_file():
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {source}: {exc}") from None
    elif gist_id(source):
        gist = source
    else:
        raise UsageError(
            f"{source!r} is neither a file nor a gist URL", hint="give a file, - or a gist URL"
        )
    params = ImportParams(
        yaml=text,
        gist=gist,
        id=new_id,
        overwrite=overwrite,
        install=install,
        allow_literal_secret=allow_literal_secret,
    )
    with RosterContext(settings.vault, settings.db) as ctx:
        result = import_profile(ctx, params)
        ask = result.imported and result.missing and not as_json and source != "-"
        if ask and sys.stdin.isatty():
            output.echo("it needs: " + ", ".join(result.missing))
            if click.confirm("Install these now?", default=False):
                done = install_profile(ctx, InstallProfileParams(id=result.id or "", yes=True))
                result = _with_install(result, done)
    if as_json:
        output.emit_json(encode(result))
        return EXIT_OK if result.imported else EXIT_PROBLEMS
    output.print_diagnostics(result.diagnostics, "text", sys.stderr)
    if not result.imported:
        output.echo("not imported: the diagnostics above say why", err=True)
        return EXIT_PROBLEMS
    for path in result.servers_written:
        output.echo(f"wrote      {path}")
    output.echo(f"wrote      {result.path}")
    for name in result.servers_kept:
        output.echo(f"kept       mcp-servers/{name}.md (the vault's)")
    for spec in result.installed:
        output.echo(f"installed  {spec}")
    if result.missing:
        output.echo(f"not installed: {', '.join(result.missing)} (roster install {result.id})")
    for spec in result.manual:
        output.echo(f"manual     {spec}: install it yourself")
    return EXIT_OK


def _with_install(result: ImportResult, done: InstallResult) -> ImportResult:
    import msgspec

    return msgspec.structs.replace(
        result,
        missing=[],
        installed=done.installed,
        already_present=done.already_present,
        manual=done.manual,
        ready=done.ready,
    )


def register(group: click.Group) -> None:
    group.add_command(export)
