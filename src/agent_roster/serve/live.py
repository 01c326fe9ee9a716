"""The daemon's live state: the index the watcher keeps current, the last good roster.toml,
and a condition writers wait on until the watcher has synced their file.

roster.toml is reloaded while ``roster up`` runs (issue 14): a clean version applies at
once (resolution defaults, launch specs, the embedded server's commands as the gate sees
them, the notify sinks); one with errors keeps the last good configuration in force and is
notified as a ``failure`` event once per broken content, and the fix as a ``recovery``,
exactly like a profile.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from agent_roster.diagnostics import Diagnostic
from agent_roster.resolve.attach import Attachment
from agent_roster.resolve.config import LoadedConfig, RosterConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import Store
from agent_roster.store.events import SyncEvent, SyncEventKind
from agent_roster.store.sync_files import MISSING
from agent_roster.sync.bus import EventBus
from agent_roster.sync.engine import SyncEngine, SyncReport
from agent_roster.vault.paths import CONFIG_FILE

#: ``entry_kind`` of the events about roster.toml.
CONFIG_KIND = "config"
#: Called with the old and the new configuration after a clean roster.toml applied.
ConfigHook = Callable[[RosterConfig, RosterConfig], None]


def config_digest(vault: Path) -> str:
    """The hash of roster.toml's bytes (of nothing when it is absent)."""
    try:
        data = (vault / CONFIG_FILE).read_bytes()
    except OSError:
        data = b""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def config_errors(loaded: LoadedConfig) -> tuple[Diagnostic, ...]:
    return tuple(d for d in loaded.diagnostics if d.is_error)


class Live:
    """:class:`~agent_roster.commands.context.LiveState` of ``roster up``."""

    def __init__(
        self,
        store: Store,
        vault: Path,
        config: RosterConfig,
        bus: EventBus,
        attachment: Attachment,
    ) -> None:
        self.store = store
        self.attachment = attachment
        self.vault = vault
        self._config = config
        self._config_digest = config_digest(vault)
        #: The digest of the broken roster.toml last notified (``None``: it is clean).
        self._config_failing: str | None = None
        self.config_hooks: list[ConfigHook] = []
        self.bus = bus
        self._index = ProfileIndex(config, (), ())
        self.engine = SyncEngine(
            store,
            vault,
            bus=bus,
            embedded=config.embedded.name,
            commands=config.embedded.commands,
            index=self._index,
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

    def daemon(self) -> Attachment:
        return self.attachment

    def wait_synced(self, path: Path, content_hash: str, timeout: float) -> bool:
        rel = Path(path).resolve().relative_to(self.vault.resolve()).as_posix()
        with self._synced:
            return self._synced.wait_for(lambda: self._has(rel, content_hash), timeout)

    def _has(self, rel: str, digest: str) -> bool:
        state = self.engine.file_state(rel)
        if not digest:  # a deletion: synced once sync has seen the file gone
            return state is None or state.status == MISSING
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
        and now sync cleanly are recorded and published as ``changed`` events. roster.toml
        is read again first when the batch names it (or on a full rescan)."""
        events: list[SyncEvent] = []
        with self._lock:
            if paths is None or CONFIG_FILE in paths:
                events.extend(self._reload_config())
            before = {p: self.engine.file_state(p) for p in paths or ()}
            report = self.engine.sync(paths, progress=progress)
            for path, old in before.items():
                state = self.engine.file_state(path)
                if state is None or state.status != "ok":
                    continue
                if old is None or old.content_hash != state.content_hash:
                    events.append(
                        self.store.record_sync_event(
                            "changed",
                            entry_kind=state.entry_kind,
                            entry_id=state.entry_id,
                            project=state.project,
                            path=path,
                            message="created" if old is None else "changed",
                        )
                    )
        for event in events:
            self.bus.publish(event)
        with self._synced:
            self.generation += 1
            self._synced.notify_all()
        return report

    def _reload_config(self) -> list[SyncEvent]:
        """roster.toml again, if its bytes changed; the events to publish."""
        digest = config_digest(self.vault)
        if digest == self._config_digest:
            return []
        self._config_digest = digest
        loaded = load_config(self.vault)
        errors = config_errors(loaded)
        if errors:
            if self._config_failing == digest:
                return []
            self._config_failing = digest
            return [
                self.store.record_sync_event(
                    SyncEventKind.FAILURE,
                    entry_kind=CONFIG_KIND,
                    entry_id=CONFIG_FILE,
                    path=CONFIG_FILE,
                    diagnostics=loaded.diagnostics,
                    message=f"{CONFIG_FILE} has errors; the last good configuration stays in force",
                )
            ]
        events = []
        if self._config_failing is not None:
            self._config_failing = None
            events.append(
                self.store.record_sync_event(
                    SyncEventKind.RECOVERY,
                    entry_kind=CONFIG_KIND,
                    entry_id=CONFIG_FILE,
                    path=CONFIG_FILE,
                    message=f"{CONFIG_FILE} is valid again",
                )
            )
        old, new = self._config, loaded.config
        if new != old:
            self._apply_config(old, new)
            events.append(
                self.store.record_sync_event(
                    "changed",
                    entry_kind=CONFIG_KIND,
                    entry_id=CONFIG_FILE,
                    path=CONFIG_FILE,
                    diagnostics=loaded.diagnostics,
                    message="applied",
                )
            )
        return events

    def _apply_config(self, old: RosterConfig, new: RosterConfig) -> None:
        self._config = new
        self._index.reconfigure(new)
        # Profiles parsed from now on know the new embedded server; the ones already
        # synced are checked against it when they next change (roster validate: at once).
        self.engine.embedded = new.embedded.name
        self.engine.commands = new.embedded.commands
        for hook in self.config_hooks:
            hook(old, new)
