"""``roster up``: the live system (issue 14 item 6).

One process keeps the vault, the database and the agents in step:

1. it takes the vault's lock (a second ``roster up`` on the same vault says where the first
   one runs), and writes its address into the lock file;
2. it starts the watcher, then syncs the vault once (with a progress bar on a large vault);
   from then on the watcher syncs every settled batch of saves and keeps the resolution
   index current, so a request never syncs first;
4. it serves the HTTP API, the embedded MCP server (``/mcp``) and ``/events`` on
   127.0.0.1:8737 (configurable), until Ctrl-C or SIGTERM: then the server stops taking
   requests, the watcher finishes the batch it is syncing, and the database is closed.

A sync failure and its recovery are printed, sent as server-sent events, and handed to the
sinks of roster.toml ``[notify]`` (:mod:`.notify`). roster.toml itself is read again when it
changes (:mod:`.live`: a broken one keeps the last good configuration and is notified). While
it runs, launch specs attach its embedded MCP server (:mod:`.attach`).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from agent_roster.commands.context import RosterContext
from agent_roster.errors import InvalidDocumentError
from agent_roster.resolve.attach import Attachment
from agent_roster.resolve.config import RosterConfig
from agent_roster.serve.lock import TOKEN_FILE, Running, VaultLock, daemon_token, state_dir
from agent_roster.sync.bus import EventBus
from agent_roster.sync.watcher import ChangeBatch, VaultWatcher

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8737
#: Below this many changed files the first sync prints no progress bar.
PROGRESS_MIN_FILES = 500
#: Bind addresses meaning "every interface": clients reach those on loopback.
_ANY = ("0.0.0.0", "::", "")  # noqa: S104 - names, not a bind


class UpSettings(msgspec.Struct, frozen=True, kw_only=True):
    vault: str
    db: str | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    settle_ms: int = 15


def run_up(settings: UpSettings, *, echo: Callable[[str], None] | None = None) -> int:
    """Run the daemon until it is stopped; returns the exit code."""
    import uvicorn

    from agent_roster.commands.sync import open_store
    from agent_roster.resolve.config import load_config
    from agent_roster.serve.gate import LaunchGate
    from agent_roster.serve.http import build_app, close_streams
    from agent_roster.serve.live import Live, config_errors
    from agent_roster.serve.notify import Notifier, build_sinks
    from agent_roster.serve.security import GuardSettings

    say = echo or _print
    # Sync's own log lines would repeat what the notifier prints, in another format.
    logging.getLogger("agent_roster.sync").setLevel(logging.ERROR)
    vault = Path(settings.vault)
    folder = state_dir(vault)
    url = f"http://{_display_host(settings.host)}:{settings.port}"
    reach = f"http://{_display_host(_reach_host(settings.host))}:{settings.port}"
    lock = VaultLock(folder)
    lock.acquire(Running(pid=os.getpid(), url=reach, vault=str(vault.resolve())))
    stop = threading.Event()
    try:
        loaded = load_config(vault)
        errors = config_errors(loaded)
        if errors:
            # No last good configuration to keep yet: starting on a half-read one would
            # launch agents with settings nobody wrote.
            raise InvalidDocumentError(
                "roster.toml has errors; roster up starts only with a valid one",
                loaded.diagnostics,
                hint="fix them and start again (later edits are reloaded while it runs)",
            )
        config = loaded.config
        store = open_store(vault, settings.db)
        bus = EventBus()
        loopback = settings.host in ("127.0.0.1", "localhost", "::1")
        token = None if loopback else daemon_token(folder)
        gate = LaunchGate.for_folder(folder, token)
        live = Live(store, vault, config, bus, Attachment(f"{reach}/mcp", gate.key))
        notifier = Notifier(build_sinks(config.notify), echo=lambda line: say(_stamped(line)))
        bus.subscribe(notifier)

        def renotify(old: RosterConfig, new: RosterConfig) -> None:
            say(_stamped("roster.toml applied"))
            if new.notify != old.notify:
                notifier.replace(build_sinks(new.notify))

        live.config_hooks.append(renotify)
        # The watch goes live first, then the vault is synced once: a save made meanwhile
        # is an event the watcher delivers after that sync, so the watcher's own opening
        # rescan would only repeat it (a second pass over every file) and is skipped.
        synced_once = threading.Event()
        ready = threading.Event()

        def handle(batch: ChangeBatch) -> None:
            if synced_once.is_set():
                live.sync(None if batch.full_rescan else list(batch.paths))

        watcher = VaultWatcher(
            vault, handle, settle_ms=settings.settle_ms, stop=stop, on_ready=ready.set
        )
        watching = threading.Thread(target=watcher.run, name="roster-watch", daemon=True)
        watching.start()
        if not ready.wait(60):
            say(_stamped("warning: the file watch did not start within 60 s; syncing anyway"))
        # Rows synced earlier first (nothing on a new database); the sync then applies
        # only what changed since, to the index as it goes.
        live.load()
        synced_once.set()
        with _progress(say) as progress:
            first = live.sync(progress=progress)
        say(
            f"synced {first.scanned} files in {first.seconds:.2f} s"
            + (f"; {first.failing} failing (roster status lists them)" if first.failing else "")
        )
        context = RosterContext(vault, settings.db, live=live)
        context._store = store  # the daemon's one store, shared by every request
        guard = GuardSettings(port=settings.port, bind=settings.host, token=token)
        app = build_app(context, guard=guard, gate=gate, events=live)
        server = _Server(
            lambda: close_streams(live),
            uvicorn.Config(
                app,
                host=settings.host,
                port=settings.port,
                log_level="warning",
                access_log=False,
                lifespan="on",
                # Open /events streams never end on their own; give them this long.
                timeout_graceful_shutdown=2,
            ),
        )
        say(f"roster up: serving {vault} ({store.engine.url.render_as_string(hide_password=True)})")
        say(f"  API        {url}/api/   (OpenAPI: {url}/openapi.json)")
        say(f"  MCP        {url}/mcp    (embedded server '{config.embedded.name}')")
        say(f"  events     {url}/events")
        if token is not None:
            say(f"  token      {folder / TOKEN_FILE}")
        say("Ctrl-C (or SIGTERM) stops it; edits to the vault are synced as they are saved")
        # What is loaded now (the index, a large vault's profiles, the app) lives as long as
        # the daemon: out of the collector's way, or every full collection walks all of it
        # (on 10,000 profiles a pause of tens of ms in the middle of some request).
        gc.freeze()
        server.run()
        stop.set()
        watching.join(10)
        notifier.close()
        store.close()
        say("roster up: stopped")
        return 130 if signal.SIGINT in server.signals else 0
    finally:
        stop.set()
        lock.release()


def _stamped(line: str) -> str:
    """An event line as ``roster watch`` prints them: ``HH:MM:SS message``."""
    return f"{time.strftime('%H:%M:%S')} {line}"


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, except that a signal only asks it to stop: uvicorn re-raises
        SIGTERM/SIGINT after shutting down, which would kill the process before the watcher
        and the database are closed."""

        def __init__(self, on_exit: Callable[[], None], config: uvicorn.Config) -> None:
            super().__init__(config)
            self.on_exit = on_exit
            self.signals: list[int] = []

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            previous = {s: signal.signal(s, self._stop) for s in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

        def _stop(self, sig: int, frame: Any) -> None:
            self.signals.append(sig)
            self.on_exit()
            self.handle_exit(sig, frame)
            self._captured_signals.clear()

    return Server


def _Server(on_exit: Callable[[], None], config: Any) -> Any:
    return _server_class()(on_exit, config)


def _reach_host(host: str) -> str:
    """Where a client on this machine reaches a daemon bound to ``host``."""
    return "127.0.0.1" if host in _ANY else host


def _display_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _print(line: str) -> None:
    from agent_roster.redact import redact_text

    sys.stdout.write(redact_text(line) + "\n")
    sys.stdout.flush()


@contextlib.contextmanager
def _progress(say: Callable[[str], None]) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar for the first sync of a large vault (nothing on a small one)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar: Progress | None = None
    task: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar, task
        if total < PROGRESS_MIN_FILES:
            return
        if bar is None:
            bar = Progress(
                "syncing", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
            )
            bar.start()
            task = bar.add_task("sync", total=total)
        if done % 100 == 0 or done == total:
            bar.update(task, completed=done)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.stop()
