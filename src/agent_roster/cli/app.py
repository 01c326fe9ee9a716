"""The ``roster`` click application and the error boundary.

Exit codes: 0 success; 1 the command ran and found problems (validation errors, a profile
with errors); 2 the request itself was wrong (usage, unknown id, unsafe name); 70 a bug
(an unexpected exception); 130 interrupted (Ctrl-C); 143 a long-running command (``watch``)
stopped by SIGTERM after a clean shutdown.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from agent_roster import __version__
from agent_roster.errors import InvalidDocumentError, RosterError, error_payload, surface_codes

if TYPE_CHECKING:
    from agent_roster.commands.context import RosterContext

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

    def context(self) -> RosterContext:
        """The context every command runs against (close it, or use it in ``with``)."""
        from agent_roster.commands.context import RosterContext

        return RosterContext(self.vault, self.db)


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
        install_commands,
        profile_commands,
        project_commands,
        registry_commands,
        resolve_commands,
        serve_commands,
        share_commands,
        sync_commands,
    )

    if "validate" not in cli.commands:
        profile_commands.register(cli)
        sync_commands.register(cli)
        resolve_commands.register(cli)
        project_commands.register(cli)
        registry_commands.register(cli)
        harness_commands.register(cli)
        serve_commands.register(cli)
        share_commands.register(cli)
        install_commands.register(cli)
        # Last: registry commands without a hand-written adapter get a generated one.
        generated.register(cli)


def run() -> NoReturn:
    """The ``roster`` executable: :func:`main` with the process's arguments, then exit
    with its code. (Tests call :func:`main`, which leaves the process as it found it.)"""
    code = main()
    # The process ends here. Its last collection would walk every object the command left
    # (0.15 s after a 10,000-profile render) to free memory the system takes back anyway:
    # frozen objects are skipped.
    gc.freeze()
    _leave(code)


def _leave(code: int) -> NoReturn:
    """End the process with ``code``: exit handlers run and output is flushed, as at any
    exit, but the interpreter does not then free every module and object one by one
    (tens of milliseconds after a large render: the system takes the memory back whole).
    With other threads still running, the usual exit, which waits for them."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: the status the interpreter gives
            code = _EXIT_FLUSH_FAILED
    os._exit(code)


#: The status CPython exits with when flushing stdout fails at exit.
_EXIT_FLUSH_FAILED = 120


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (never raises for user errors). Everything it
    prints passes the one redaction function (``agent_roster.redact``), and a crash report
    names only the exception's type and where in roster it happened: an exception's text
    may quote the file it choked on, secrets included (issue 11 item 3)."""
    _register()
    _redact_log_lines()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result: Any = cli.main(args=args, prog_name="roster", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        _say(_click_message(exc))
        return EXIT_USAGE
    except click.exceptions.Abort:
        _say("aborted")
        return EXIT_INTERRUPTED
    except RosterError as exc:
        report_error(exc, args)
        return surface_codes(exc).exit_code
    except KeyboardInterrupt:
        _say("interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:  # the boundary: anything else is our bug
        if os.environ.get("ROSTER_DEBUG"):
            raise
        report_crash(exc, args)
        return EXIT_BUG
    return int(result or 0)


class _RedactingHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Python's last-resort handler (a warning logged while no handler is configured goes
    to stderr), with the line's secrets masked: a log line is output too."""

    def format(self, record: logging.LogRecord) -> str:
        from agent_roster.redact import redact_text

        return redact_text(super().format(record))


def _redact_log_lines() -> None:
    if not isinstance(logging.lastResort, _RedactingHandler):
        logging.lastResort = _RedactingHandler()
        logging.lastResort.setLevel(logging.WARNING)


def _say(text: str) -> None:
    from agent_roster.redact import redact_text

    click.echo(redact_text(text), err=True)


def _click_message(exc: click.ClickException) -> str:
    import io

    buffer = io.StringIO()
    exc.show(file=buffer)
    return buffer.getvalue().rstrip("\n")


def _wants_json(args: Sequence[str]) -> bool:
    return "--json" in args or any(
        a in ("--format=json",) or (a == "json" and i > 0 and args[i - 1] == "--format")
        for i, a in enumerate(args)
    )


def crash_report(exc: BaseException) -> str:
    """What a crash prints: the exception's type and the innermost place in roster's own
    code it passed through; never its text, which may quote a file (a token included)."""
    import traceback

    package = Path(__file__).resolve().parents[1]
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if path.is_relative_to(package):
            module = path.relative_to(package.parent).as_posix()
            where = f" at {module}:{frame.lineno} in {frame.name}"
    return (
        f"internal error (a bug in roster; please report it): {type(exc).__name__}{where}\n"
        "hint: run again with ROSTER_DEBUG=1 for the traceback (it may quote your files)"
    )


def report_crash(exc: BaseException, args: Sequence[str]) -> None:
    """Print a bug: :func:`crash_report` on stderr, and the bug payload with ``--json``."""
    if _wants_json(args):
        from agent_roster.cli.output import emit_json

        emit_json(error_payload(exc), sys.stdout)
    _say(crash_report(exc))


def report_error(exc: RosterError, args: Sequence[str]) -> None:
    """Print a user error in the shape the command's output format uses: the one payload
    of :func:`error_payload` for JSON, ``error:``/``hint:`` lines for a terminal."""
    if _wants_json(args):
        from agent_roster.cli.output import emit_json

        emit_json(error_payload(exc), sys.stdout)
        return
    if isinstance(exc, InvalidDocumentError):
        from agent_roster.cli.output import print_diagnostics

        print_diagnostics(exc.diagnostics, "text", sys.stderr)
    _say(f"error: {exc.message}")
    if exc.hint:
        _say(f"hint: {exc.hint}")
