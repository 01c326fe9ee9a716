"""CLI adapters for sync, watch, status and migrate-config."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from pathlib import Path

import click

from agent_roster.cli import output
from agent_roster.cli.app import EXIT_OK, EXIT_PROBLEMS, Settings, pass_settings


def _summary(report: object) -> str:
    from agent_roster.sync.engine import SyncReport

    assert isinstance(report, SyncReport)
    return (
        f"{report.scanned} files, {report.unchanged} unchanged, {report.written} written, "
        f"{report.failed} failed, {report.deleted} deleted, {report.restored} restored, "
        f"{report.recovered} recovered in {report.seconds * 1000:.0f} ms"
        + (f"; {report.failing} file(s) still failing" if report.failing else "")
    )


@click.command()
@click.option(
    "--prune",
    is_flag=True,
    help="Delete rows whose files are gone (clears task and project references to them).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_settings
def sync(settings: Settings, prune: bool, as_json: bool) -> int:
    """Sync the vault into the database once."""
    from agent_roster.commands.sync import sync_vault

    report = sync_vault(settings.vault, settings.db, prune=prune)
    if as_json:
        output.emit_json(report.to_dict())
    else:
        for event in report.events:
            click.echo(f"{event.kind:9} {event.path or event.entry_id}  {event.message}")
            output.print_diagnostics(
                (d for d in event.diagnostics if d.is_error), "text", sys.stdout
            )
        for rel in report.starter_files:
            click.echo(f"starter   {rel}")
        click.echo(_summary(report))
    return EXIT_PROBLEMS if report.failing else EXIT_OK


@click.command()
@click.option(
    "--settle-ms", default=15, show_default=True, help="Quiet time that ends a batch of changes."
)
@pass_settings
def watch(settings: Settings, settle_ms: int) -> int:
    """Sync, then keep the database in step with every saved change (Ctrl-C stops)."""
    from agent_roster.commands.sync import watch_vault

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # migration chatter is not news

    def report(result: object) -> None:
        click.echo(f"{time.strftime('%H:%M:%S')} {_summary(result)}", err=True)

    with contextlib.suppress(KeyboardInterrupt):
        watch_vault(
            settings.vault,
            settings.db,
            on_report=report,
            settle_ms=settle_ms,
            on_ready=lambda: click.echo(f"watching {settings.vault}", err=True),
        )
    return EXIT_OK


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--events", default=10, show_default=True, help="How many recent events to show.")
@pass_settings
def status(settings: Settings, as_json: bool, events: int) -> int:
    """Last sync, failing files with their diagnostics, recent events."""
    from agent_roster.commands.sync import vault_status

    report = vault_status(settings.vault, settings.db, events=events)
    if as_json:
        output.emit_json(report.to_dict())
        return EXIT_PROBLEMS if report.failing else EXIT_OK
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(report.last_sync))
        if report.last_sync
        else "never"
    )
    click.echo(f"database   {report.database}")
    click.echo(f"last sync  {when}")
    for kind, by_status in sorted(report.files.items()):
        parts = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
        click.echo(f"{kind + 's':10} {parts}")
    if report.failing:
        click.echo(
            f"\n{len(report.failing)} failing file(s); the previous version of each stays active:"
        )
        for failing in report.failing:
            output.print_diagnostics(failing.diagnostics, "text", sys.stdout)
    if report.recent_events:
        click.echo("\nrecent events:")
        for event in report.recent_events:
            stamp = time.strftime("%H:%M:%S", time.localtime(event.at or 0))
            click.echo(f"  {stamp} {event.kind:9} {event.path or event.entry_id}  {event.message}")
    return EXIT_PROBLEMS if report.failing else EXIT_OK


@click.command("migrate-config")
@click.argument("config", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_settings
def migrate_config(settings: Settings, config: Path, as_json: bool) -> int:
    """Move config.yaml's agent_profiles into vault markdown (never overwrites)."""
    from agent_roster.commands.migrate_config import migrate_config as run

    report = run(config, settings.vault)
    if as_json:
        output.emit_json(report.to_dict())
    else:
        for rel in report.written:
            click.echo(f"wrote    {rel}")
        for rel, reason in report.skipped:
            click.echo(f"skipped  {rel}: {reason}")
        for profile_id, found in report.failed:
            click.echo(f"failed   {profile_id}:")
            output.print_diagnostics(found, "text", sys.stdout)
        output.print_diagnostics(report.warnings, "text", sys.stdout)
    return EXIT_PROBLEMS if report.failed else EXIT_OK


def register(group: click.Group) -> None:
    for command in (sync, watch, status, migrate_config):
        group.add_command(command)
