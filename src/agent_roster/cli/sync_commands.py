"""CLI adapters for sync, watch, status and migrate-config."""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_roster.cli import output
from agent_roster.cli.app import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_TERMINATED,
    Settings,
    pass_settings,
)
from agent_roster.redact import redact_text

if TYPE_CHECKING:
    from agent_roster.commands.sync import SyncResult
    from agent_roster.sync.engine import SyncReport


def _summary(report: SyncReport | SyncResult) -> str:
    from agent_roster.vault.paths import CONFIG_FILE

    return (
        f"{report.scanned} files, {report.unchanged} unchanged, {report.written} written, "
        f"{report.failed} failed, {report.deleted} deleted, {report.restored} restored, "
        f"{report.recovered} recovered in {report.seconds * 1000:.0f} ms"
        + (f"; {report.failing} file(s) still failing" if report.failing else "")
        + (f"; {len(report.diagnostics)} not loaded" if report.diagnostics else "")
        + (
            f"; {CONFIG_FILE} has errors, built-in defaults stand in"
            if any(d.is_error for d in report.config)
            else ""
        )
    )


@click.command()
@click.option(
    "--prune",
    is_flag=True,
    help="Delete rows whose files are gone (clears task and project references to them).",
)
@click.option(
    "--rebind",
    is_flag=True,
    help="Make the database belong to this vault, though it belongs to another (that "
    "vault's rows are then marked deleted).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@output.verbose_option
@pass_settings
def sync(settings: Settings, prune: bool, rebind: bool, as_json: bool, verbose: bool) -> int:
    """Sync the vault into the database once.

    A database belongs to one vault: syncing another vault into it is refused
    (vault-mismatch) unless --rebind says to move it."""
    from agent_roster.commands.sync import SyncVaultParams, sync_vault

    # The report says everything the engine logs (a line per failing file, for `watch`).
    quiet = logging.NullHandler()
    engine_log = logging.getLogger("agent_roster.sync")
    engine_log.addHandler(quiet)
    try:
        with settings.context() as ctx:
            report = sync_vault(ctx, SyncVaultParams(prune=prune, rebind=rebind))
    finally:
        engine_log.removeHandler(quiet)

    def text() -> None:
        if report.vault_note:
            output.echo(f"vault     {report.vault_note}")
        if verbose:  # each event with its errors
            for event in report.events:
                output.echo(f"{event.kind:9} {event.path or event.entry_id}  {event.message}")
                output.print_diagnostics(
                    (d for d in event.diagnostics if d.is_error), "text", sys.stdout, verbose=True
                )
        else:  # the events, then their errors grouped
            events = [f"{e.kind:9} {e.path or e.entry_id}  {e.message}" for e in report.events]
            for line in output.capped_lines(events, "events", verbose=False):
                output.echo(line)
            errors = [d for e in report.events for d in e.diagnostics if d.is_error]
            output.print_diagnostics(errors, "text", sys.stdout)
        starters = [f"starter   {rel}" for rel in report.starter_files]
        for line in output.capped_lines(starters, "starter files", verbose=verbose):
            output.echo(line)
        output.print_diagnostics(report.diagnostics, "text", sys.stdout, verbose=verbose)
        output.print_diagnostics(report.config, "text", sys.stdout, verbose=verbose)
        output.echo(_summary(report))

    output.emit(report, as_json, text)
    return EXIT_PROBLEMS if report.problems else EXIT_OK


@click.command()
@click.option(
    "--settle-ms", default=15, show_default=True, help="Quiet time that ends a batch of changes."
)
@pass_settings
def watch(settings: Settings, settle_ms: int) -> int:
    """Sync, then keep the database in step with every saved change.

    One line per event on stderr: the time, then what happened (problems start with
    "warning:" or "error:"). Ctrl-C stops it with exit 130, SIGTERM with 143."""
    from agent_roster.commands.sync import watch_vault

    stop = threading.Event()
    stopped_by: list[int] = []

    def terminate(signum: int, _frame: object) -> None:
        if signum == signal.SIGINT and stopped_by:
            raise KeyboardInterrupt  # a second Ctrl-C: stop now, mid-sync if need be
        stopped_by.append(signum)
        stop.set()  # the watch loop sees it within its poll interval and ends cleanly

    with _watch_log() as log:
        # Ctrl-C ends the watch as SIGTERM does, through the stop event, rather than by a
        # KeyboardInterrupt raised wherever the main thread happens to be: a CI run on 3.13
        # twice saw the process still running 30 s after Ctrl-C (not reproduced since).
        previous = {sig: signal.signal(sig, terminate) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            watch_vault(
                settings.vault,
                settings.db,
                stop=stop,
                on_report=lambda result: log.info(_summary(result)),
                settle_ms=settle_ms,
                on_ready=lambda: log.info(f"watching {settings.vault}"),
            )
        except KeyboardInterrupt:
            log.info("stopped (interrupted)")
            return EXIT_INTERRUPTED
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if stopped_by and stopped_by[0] == signal.SIGINT:
            log.info("stopped (interrupted)")
            return EXIT_INTERRUPTED
        log.info("stopped (terminated)" if stopped_by else "stopped")
    return EXIT_TERMINATED if stopped_by else EXIT_OK


class _WatchFormatter(logging.Formatter):
    """``roster watch``'s one line format: ``HH:MM:SS message``; a warning or an error
    says so before the message (issue 13: watchfiles' own lines and a second timestamp
    format used to be mixed in)."""

    def __init__(self) -> None:
        super().__init__(datefmt="%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.levelno >= logging.WARNING:
            text = f"{record.levelname.lower()}: {text}"
        line = f"{self.formatTime(record, self.datefmt)} {text}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return redact_text(line)


@contextlib.contextmanager
def _watch_log() -> Iterator[logging.Logger]:
    """Route every log line of the watch through one handler and format: roster's own at
    INFO, everybody else's (watchfiles, alembic) only when it is a warning or worse."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_WatchFormatter())
    root = logging.getLogger()
    ours = logging.getLogger("agent_roster")
    handlers, root_level, our_level = root.handlers[:], root.level, ours.level
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    ours.setLevel(logging.INFO)
    try:
        yield logging.getLogger("agent_roster.cli.watch")
    finally:
        root.handlers[:] = handlers
        root.setLevel(root_level)
        ours.setLevel(our_level)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--events", default=10, show_default=True, help="How many recent events to show.")
@output.verbose_option
@pass_settings
def status(settings: Settings, as_json: bool, events: int, verbose: bool) -> int:
    """Last sync, failing files with their diagnostics, recent events."""
    from agent_roster.commands.sync import GetStatusParams, get_status

    with settings.context() as ctx:
        report = get_status(ctx, GetStatusParams(events=events))
    if as_json:
        output.emit(report, True, lambda: None)
        return EXIT_PROBLEMS if report.problems else EXIT_OK
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(report.last_sync))
        if report.last_sync
        else "never"
    )
    output.echo(
        f"database   {report.database}"
        + ("" if report.exists else " (none yet: 'roster sync' creates it)")
    )
    output.echo(f"last sync  {when}")
    for kind, by_status in sorted(report.files.items()):
        parts = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
        output.echo(f"{kind + 's':10} {parts}")
    if report.failing:
        output.echo(
            f"\n{len(report.failing)} failing file(s); the previous version of each stays active:"
        )
        found = [d for failing in report.failing for d in failing.diagnostics]
        output.print_diagnostics(found, "text", sys.stdout, verbose=verbose)
    if report.unloaded:
        output.echo(f"\n{len(report.unloaded)} file(s) in the vault not loaded:")
        output.print_diagnostics(report.unloaded, "text", sys.stdout, verbose=verbose)
    if report.config:
        output.echo("\nroster.toml:")
        output.print_diagnostics(report.config, "text", sys.stdout, verbose=verbose)
    if report.recent_events:
        output.echo("\nrecent events:")
        for event in report.recent_events:
            stamp = time.strftime("%H:%M:%S", time.localtime(event.at or 0))
            output.echo(f"  {stamp} {event.kind:9} {event.path or event.entry_id}  {event.message}")
    return EXIT_PROBLEMS if report.problems else EXIT_OK


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
            output.echo(f"wrote    {rel}")
        for rel, reason in report.skipped:
            output.echo(f"skipped  {rel}: {reason}")
        for profile_id, found in report.failed:
            output.echo(f"failed   {profile_id}:")
            output.print_diagnostics(found, "text", sys.stdout)
        output.print_diagnostics(report.warnings, "text", sys.stdout)
    return EXIT_PROBLEMS if report.failed else EXIT_OK


def register(group: click.Group) -> None:
    for command in (sync, watch, status, migrate_config):
        group.add_command(command)
