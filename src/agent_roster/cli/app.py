"""The ``roster`` click application and the error boundary.

Exit codes: 0 success; 1 the command ran and found problems (validation errors, a profile
with errors); 2 the request itself was wrong (usage, unknown id, unsafe name); 70 a bug
(an unexpected exception); 130 interrupted (Ctrl-C); 143 a long-running command (``watch``)
stopped by SIGTERM after a clean shutdown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from agent_roster import __version__
from agent_roster.errors import InvalidDocumentError, RosterError, error_payload, surface_codes

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_BUG = 70
EXIT_INTERRUPTED = 130
#: A long-running command (``watch``) stopped by SIGTERM, after a clean shutdown.
EXIT_TERMINATED = 143


class Settings:
    """Global options, resolved once: where the vault and the database are."""

    def __init__(self, vault: str | None, db: str | None) -> None:
        self.vault = Path(vault or os.environ.get("ROSTER_VAULT") or "vault")
        self.db = db or os.environ.get("ROSTER_DB") or None


pass_settings = click.make_pass_decorator(Settings)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--vault", metavar="PATH", help="Vault folder [default: $ROSTER_VAULT or ./vault].")
@click.option(
    "--db",
    metavar="URL",
    help="Database URL [default: $ROSTER_DB or a SQLite file in .roster/ beside the vault].",
)
@click.version_option(__version__, "--version", prog_name="roster")
@click.pass_context
def cli(ctx: click.Context, vault: str | None, db: str | None) -> None:
    """Agent Roster: markdown agent profiles as the single source of truth."""
    ctx.obj = Settings(vault, db)


def _register() -> None:
    # Imported here, not at module top, so `import agent_roster.cli` stays cheap.
    from agent_roster.cli import (
        generated,
        harness_commands,
        profile_commands,
        registry_commands,
        resolve_commands,
        serve_commands,
        sync_commands,
    )

    if "validate" not in cli.commands:
        profile_commands.register(cli)
        sync_commands.register(cli)
        resolve_commands.register(cli)
        registry_commands.register(cli)
        harness_commands.register(cli)
        serve_commands.register(cli)
        # Last: registry commands without a hand-written adapter get a generated one.
        generated.register(cli)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (never raises for user errors)."""
    _register()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result: Any = cli.main(args=args, prog_name="roster", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return EXIT_INTERRUPTED
    except RosterError as exc:
        report_error(exc, args)
        return surface_codes(exc).exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the boundary: anything else is our bug
        click.echo(f"internal error (a bug in roster; please report it): {exc!r}", err=True)
        if os.environ.get("ROSTER_DEBUG"):
            raise
        return EXIT_BUG
    return int(result or 0)


def report_error(exc: RosterError, args: Sequence[str]) -> None:
    """Print a user error in the shape the command's output format uses: the one payload
    of :func:`error_payload` for JSON, ``error:``/``hint:`` lines for a terminal."""
    wants_json = "--json" in args or any(
        a in ("--format=json",) or (a == "json" and i > 0 and args[i - 1] == "--format")
        for i, a in enumerate(args)
    )
    if wants_json:
        from agent_roster.cli.output import emit_json

        emit_json(error_payload(exc), sys.stdout)
        return
    if isinstance(exc, InvalidDocumentError):
        from agent_roster.cli.output import print_diagnostics

        print_diagnostics(exc.diagnostics, "text", sys.stderr)
    click.echo(f"error: {exc.message}", err=True)
    if exc.hint:
        click.echo(f"hint: {exc.hint}", err=True)
