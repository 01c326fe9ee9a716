"""CLI adapters for the foundation commands: init, validate, show, schema."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings, pass_settings


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@pass_settings
def init(settings: Settings, directory: Path | None) -> int:
    """Create a vault skeleton with starter templates (never overwrites)."""
    from agent_roster.commands.init import init_vault

    result = init_vault(directory or settings.vault)
    for rel in result.created:
        output.echo(f"created  {rel}")
    for rel in result.skipped:
        output.echo(f"kept     {rel} (already exists)")
    output.print_diagnostics(result.refused, "text", sys.stdout)
    if result.refused:
        output.echo(
            f"vault at {result.root} is incomplete ({len(result.created)} created, "
            f"{len(result.skipped)} kept; a symlink leads outside the vault)"
        )
        return EXIT_PROBLEMS
    output.echo(
        f"vault ready at {result.root} ({len(result.created)} created, {len(result.skipped)} kept)"
    )
    return EXIT_OK


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="Count warnings as failures.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="Output format; github prints workflow annotations.",
)
@output.verbose_option
@pass_settings
def validate(
    settings: Settings, paths: tuple[Path, ...], strict: bool, fmt: str, verbose: bool
) -> int:
    """Check vaults and profile files; exit 1 when there are errors."""
    from agent_roster.commands.validate import validate as run

    report = run(list(paths) or [settings.vault], db=settings.db)
    if fmt == "json":
        output.emit_json(report.to_dict())
    else:
        output.print_diagnostics(report.diagnostics, fmt, sys.stdout, verbose=verbose)
        verdict = "FAILED" if report.failed(strict=strict) else "ok"
        noun = "file" if report.files == 1 else "files"
        summary = (
            f"{report.files} {noun} checked: {report.errors} errors, "
            f"{report.warnings} warnings — {verdict}"
        )
        output.echo(summary, err=fmt == "github")
    return EXIT_PROBLEMS if report.failed(strict=strict) else EXIT_OK


@click.command()
@click.argument("profile_id")
@click.option("--project", metavar="PID", help="Show the project's override instead.")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
@pass_settings
def show(settings: Settings, profile_id: str, project: str | None, as_json: bool) -> int:
    """Show one profile as the vault defines it (no database needed)."""
    from agent_roster.commands.profiles import GetProfileParams, get_profile
    from agent_roster.errors import PathOutsideVaultError

    try:
        with settings.context() as ctx:
            shown = get_profile(ctx, GetProfileParams(id=profile_id, project=project))
    except PathOutsideVaultError as refused:  # a problem of the vault: reported, exit 1
        output.print_diagnostics(refused.diagnostics, "text", sys.stderr)
        return EXIT_PROBLEMS
    if as_json:
        output.emit_json(shown.profile)
    elif shown.profile is not None:
        output.echo(output.profile_text(shown.profile), nl=False)
    output.print_diagnostics(shown.diagnostics, "text", sys.stderr)
    return EXIT_OK if shown.ok else EXIT_PROBLEMS


@click.command()
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write one <name>.schema.json per schema into this folder.",
)
@click.option(
    "--check",
    "check_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Exit 1 if the schemas in this folder differ from the code's.",
)
def schema(out_dir: Path | None, check_dir: Path | None) -> int:
    """Print JSON Schema for the frontmatter and each JSON block."""
    from agent_roster.commands import schema as schemas

    if check_dir is not None:
        stale = schemas.stale_schemas(check_dir)
        for stem in stale:
            output.echo(f"{check_dir / stem}.schema.json is out of date", err=True)
        if stale:
            output.echo("run 'roster schema --out schemas' and commit the result", err=True)
        return EXIT_PROBLEMS if stale else EXIT_OK
    if out_dir is not None:
        for path in schemas.write_schemas(out_dir):
            output.echo(f"wrote {path}")
        return EXIT_OK
    output.emit_json(schemas.build_schemas())
    return EXIT_OK


def register(group: click.Group) -> None:
    for command in (init, validate, show, schema):
        group.add_command(command)
