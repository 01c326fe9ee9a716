"""CLI adapter for ``roster up``, the daemon."""

from __future__ import annotations

import click

from agent_roster.cli.app import Settings, pass_settings


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; beyond loopback every request needs the token.",
)
@click.option("--port", default=8737, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--settle-ms",
    default=15,
    show_default=True,
    type=int,
    help="Quiet time before a batch of saves is synced.",
)
@pass_settings
def up(settings: Settings, host: str, port: int, settle_ms: int) -> int:
    """Run the live system: sync, watch, and serve the HTTP API and the MCP server."""
    from agent_roster.serve.daemon import UpSettings, run_up

    return run_up(
        UpSettings(
            vault=str(settings.vault), db=settings.db, host=host, port=port, settle_ms=settle_ms
        )
    )


def register(group: click.Group) -> None:
    group.add_command(up)
