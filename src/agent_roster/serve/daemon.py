"""``roster up``: the live system (issue 14 item 6).

One process keeps the vault, the database and the agents in step:

1. it takes the vault's lock (a second ``roster up`` on the same vault says where the first
   one runs), and writes its address into the lock file;
2. it syncs the vault once, with a progress bar on a large vault;
3. it starts the watcher, which syncs every settled batch of saves and keeps the resolution
   index current, so a request never syncs first;
4. it serves the HTTP API, the embedded MCP server (``/mcp``) and ``/events`` on
   127.0.0.1:8737 (configurable), until Ctrl-C or SIGTERM: then the server stops taking
   requests, the watcher finishes the batch it is syncing, and the database is closed.

A sync failure and its recovery are printed, sent as server-sent events, and handed to the
sinks of roster.toml ``[notify]`` (:mod:`.notify`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from agent_roster.commands.context import RosterContext
from agent_roster.errors import UsageError
from agent_roster.resolve.config import RosterConfig
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import Store
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus
from agent_roster.sync.engine import SyncEngine, SyncReport
from agent_roster.sync.watcher import ChangeBatch, VaultWatcher

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8737
LOCK_FILE = "roster-up.lock"
TOKEN_FILE = "daemon.token"  # noqa: S105 - a file name, not a secret
#: Below this many changed files the first sync prints no progress bar.
PROGRESS_MIN_FILES = 500


class UpSettings(msgspec.Struct, frozen=True, kw_only=True):
    vault: str
    db: str | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    settle_ms: int = 15


class Running(msgspec.Struct, frozen=True, kw_only=True):
    """What the lock file says about the daemon holding it."""

    pid: int
    url: str
    vault: str


def state_dir(vault: str | os.PathLike[str]) -> Path:
    """The ``.roster`` folder beside the vault: lock, token and the default database."""
    from agent_roster.store import default_db_path

    return default_db_path(vault).parent


class VaultLock:
    """An exclusive ``flock`` on ``.roster/roster-up.lock``; released when the process ends
    however it ends, so a crashed daemon never blocks the next one."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_FILE
        self._file: IO[str] | None = None

    def acquire(self, running: Running) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held while running
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            text = handle.read()
            handle.close()
            other = _running(text)
            where = f" (pid {other.pid}) at {other.url}" if other else ""
            raise UsageError(
                f"roster up is already running for this vault{where}",
                hint="stop it first, or use the running one",
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(msgspec.json.encode(running).decode())
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.truncate(0)
            self._file.close()
            self._file = None


def _running(text: str) -> Running | None:
    try:
        return msgspec.json.decode(text, type=Running)
    except msgspec.DecodeError:
        return None


def daemon_token(folder: Path) -> str:
    """The daemon's own token, made once and kept 0600 beside the database; needed by every
    request when the daemon listens beyond loopback."""
    path = folder / TOKEN_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


class Live:
    """The daemon's live state (:class:`~agent_roster.commands.context.LiveState`): the
    index the watcher keeps current, the last good roster.toml, and a condition writers
    wait on until the watcher has synced their file."""

    def __init__(self, store: Store, vault: Path, config: RosterConfig, bus: EventBus) -> None:
        self.store = store
        self.vault = vault
        self._config = config
        self.bus = bus
        self._index = ProfileIndex(config, (), ())
        self.engine = SyncEngine(
            store, vault, bus=bus, embedded=config.embedded.name, index=self._index
        )
        self._synced = threading.Condition()
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self.generation = 0

    # LiveState
    def index(self) -> ProfileIndex:
        return self._index

    def config(self) -> RosterConfig:
        return self._config

    def wait_synced(self, path: Path, content_hash: str, timeout: float) -> bool:
        rel = Path(path).resolve().relative_to(self.vault.resolve()).as_posix()
        with self._synced:
            return self._synced.wait_for(lambda: self._has(rel, content_hash), timeout)

    def _has(self, rel: str, digest: str) -> bool:
        state = self.engine.file_state(rel)
        return state is not None and state.content_hash == digest

    # syncing
    def load(self) -> None:
        """Fill the index from the database (after the first sync)."""
        store = self.store
        self._index.apply(profiles=store.all_profiles(), servers=store.all_mcp_servers())
        self._index.project_defaults.update(
            {p.id: p.default_profile_id for p in store.list_projects()}
        )
        self._index.task_profiles.update(
            {t.id: (t.project_id, t.profile_id) for t in store.list_tasks()}
        )

    def sync(
        self, paths: list[str] | None = None, progress: Callable[[int, int], None] | None = None
    ) -> SyncReport:
        """Sync (everything, or the watcher's batch); a batch's files whose content changed
        and now sync cleanly are recorded and published as ``changed`` events."""
        with self._lock:
            before = {p: self.engine.file_state(p) for p in paths or ()}
            report = self.engine.sync(paths, progress=progress)
            changed = []
            for path, old in before.items():
                state = self.engine.file_state(path)
                if state is None or state.status != "ok":
                    continue
                if old is None or old.content_hash != state.content_hash:
                    changed.append(
                        self.store.record_sync_event(
                            "changed",
                            entry_kind=state.entry_kind,
                            entry_id=state.entry_id,
                            project=state.project,
                            path=path,
                            message="created" if old is None else "changed",
                        )
                    )
        for event in changed:
            self.bus.publish(event)
        with self._synced:
            self.generation += 1
            self._synced.notify_all()
        return report


def run_up(settings: UpSettings, *, echo: Callable[[str], None] | None = None) -> int:
    """Run the daemon until it is stopped; returns the exit code."""
    import uvicorn

    from agent_roster.commands.sync import open_store
    from agent_roster.resolve.config import load_config
    from agent_roster.serve.gate import LaunchGate
    from agent_roster.serve.http import build_app, close_streams
    from agent_roster.serve.notify import Notifier, build_sinks
    from agent_roster.serve.security import GuardSettings

    say = echo or _print
    # Sync's own log lines would repeat what the notifier prints, in another format.
    logging.getLogger("agent_roster.sync").setLevel(logging.ERROR)
    vault = Path(settings.vault)
    folder = state_dir(vault)
    url = f"http://{_display_host(settings.host)}:{settings.port}"
    lock = VaultLock(folder)
    lock.acquire(Running(pid=os.getpid(), url=url, vault=str(vault.resolve())))
    stop = threading.Event()
    try:
        loaded = load_config(vault)
        config = loaded.config
        store = open_store(vault, settings.db)
        bus = EventBus()
        live = Live(store, vault, config, bus)
        notify_config = _notify_config(vault)
        notifier = Notifier(build_sinks(notify_config), echo=say)
        bus.subscribe(notifier)
        with _progress(say) as progress:
            first = live.sync(progress=progress)
        live.load()
        say(
            f"synced {first.scanned} files in {first.seconds:.2f} s"
            + (f"; {first.failing} failing (roster status lists them)" if first.failing else "")
        )
        context = RosterContext(vault, settings.db, live=live)
        context._store = store  # the daemon's one store, shared by every request
        loopback = settings.host in ("127.0.0.1", "localhost", "::1")
        token = None if loopback else daemon_token(folder)
        guard = GuardSettings(port=settings.port, bind=settings.host, token=token)
        gate = LaunchGate.for_folder(folder, token)
        app = build_app(context, guard=guard, gate=gate, events=live)
        ready = threading.Event()

        def handle(batch: ChangeBatch) -> None:
            live.sync(None if batch.full_rescan else list(batch.paths))

        watcher = VaultWatcher(
            vault, handle, settle_ms=settings.settle_ms, stop=stop, on_ready=ready.set
        )
        watching = threading.Thread(target=watcher.run, name="roster-watch", daemon=True)
        watching.start()
        ready.wait(30)
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


def _display_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _notify_config(vault: Path) -> Any:
    import tomllib

    from agent_roster.serve.notify import NotifyConfig

    try:
        data = tomllib.loads((vault / "roster.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return NotifyConfig()
    section = data.get("notify", {})
    try:
        return msgspec.convert(section, NotifyConfig)
    except msgspec.ValidationError as exc:
        raise UsageError(f"roster.toml [notify]: {exc}") from None


def _print(line: str) -> None:
    sys.stdout.write(line + "\n")
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


def describe_event(event: SyncEvent) -> str:
    return json.dumps(msgspec.to_builtins(event))
