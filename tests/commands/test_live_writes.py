"""Writes in a live context (the daemon's situation): the command changes the file, the
watcher syncs it, and the result says so once it has (seed 000 §3). The live state here is
made of the real parts the daemon uses: a sync engine keeping a resolution index current,
fed by the inotify watcher in a thread."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_roster.commands import mcp_registry as reg
from agent_roster.commands import project_profiles as pp
from agent_roster.commands import projects, resolve, sync
from agent_roster.commands.context import RosterContext
from agent_roster.errors import UsageError
from agent_roster.resolve.config import RosterConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine, SyncReport
from agent_roster.sync.watcher import ChangeBatch, VaultWatcher

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"


class WatchedVault:
    """A :class:`~agent_roster.commands.context.LiveState`: the watcher syncs every settled
    batch into the store and the index, and wakes writers waiting for their file."""

    def __init__(self, store: Store, vault: Path) -> None:
        self._config = load_config(vault).config
        self._index = ProfileIndex(self._config)
        embedded = self._config.embedded
        self.engine = SyncEngine(
            store, vault, embedded=embedded.name, commands=embedded.commands, index=self._index
        )
        self.vault = vault
        self._synced = threading.Condition()
        self._lock = threading.Lock()

    def index(self) -> ProfileIndex:
        return self._index

    def config(self) -> RosterConfig:
        return self._config

    def daemon(self) -> None:
        """No server runs here, so launch specs attach none."""
        return None

    def sync(self, paths: list[str] | None = None) -> SyncReport:
        with self._lock:
            report = self.engine.sync(paths)
        with self._synced:
            self._synced.notify_all()
        return report

    def wait_synced(self, path: Path, content_hash: str, timeout: float) -> bool:
        rel = path.resolve().relative_to(self.vault.resolve()).as_posix()

        def arrived() -> bool:
            state = self.engine.file_state(rel)
            return state is not None and state.content_hash == content_hash

        with self._synced:
            return self._synced.wait_for(arrived, timeout)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[RosterContext]:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLES, vault)
    with RosterContext(vault) as plain:
        store = plain.store()
        watched = WatchedVault(store, vault)
        watched.sync()
        stop, ready = threading.Event(), threading.Event()

        def batch(changes: ChangeBatch) -> None:
            watched.sync(None if changes.full_rescan else sorted(changes.paths))

        watcher = VaultWatcher(vault, batch, stop=stop, on_ready=ready.set)
        thread = threading.Thread(target=watcher.run, daemon=True)
        thread.start()
        assert ready.wait(10)
        ctx = RosterContext(vault, live=watched)
        ctx._store = store  # the daemon's one store, as roster up shares it
        try:
            yield ctx
        finally:
            stop.set()
            thread.join(10)


def test_writes_return_once_the_watcher_has_synced_them(live: RosterContext) -> None:
    store = live.store()
    created = pp.create_project_profile(
        live, pp.CreateProjectProfileParams(project="web", agent_type="qa")
    )
    assert created.synced
    assert store.get_profile("qa", "web") is not None
    assert ("web", "qa") in live.index().overrides
    edited = pp.edit_project_profile(
        live,
        pp.EditProjectProfileParams(
            project="web", agent_type="qa", base_hash=created.content_hash, config={"max_turns": 4}
        ),
    )
    assert edited.synced
    assert live.index().overrides[("web", "qa")].max_turns == 4
    removed = pp.delete_project_profile(
        live,
        pp.DeleteProjectProfileParams(
            project="web", agent_type="qa", base_hash=edited.content_hash
        ),
    )
    assert removed.synced
    assert ("web", "qa") not in live.index().overrides


def test_a_server_written_live_reaches_the_index(live: RosterContext) -> None:
    created = reg.create_mcp_server(
        live, reg.CreateMcpServerParams(name="docs", url="https://docs.example/mcp")
    )
    assert created.synced and (None, "docs") in live.index().servers
    removed = reg.delete_mcp_server(
        live, reg.DeleteMcpServerParams(name="docs", base_hash=created.content_hash or "")
    )
    assert removed.synced and (None, "docs") not in live.index().servers


def test_tasks_and_projects_reach_the_live_index_at_once(live: RosterContext) -> None:
    projects.create_project(
        live, projects.CreateProjectParams(id="webshop", default_profile_id="qa")
    )
    projects.create_task(live, projects.CreateTaskParams(id="t1", project_id="webshop"))
    resolved = resolve.resolve_profile(live, resolve.ResolveProfileParams(task="t1"))
    assert (resolved.level, resolved.profile_id) == ("project", "qa")
    projects.edit_task(live, projects.EditTaskParams(id="t1", profile_id="coding"))
    resolved = resolve.resolve_profile(live, resolve.ResolveProfileParams(task="t1"))
    assert (resolved.level, resolved.profile_id) == ("task", "coding")


def test_sync_uses_the_live_engine_and_refuses_to_prune(live: RosterContext) -> None:
    report = sync.sync_vault(live, sync.SyncVaultParams())
    assert report.written == 0 and report.unchanged == report.scanned
    with pytest.raises(UsageError, match="runs only without it"):
        sync.sync_vault(live, sync.SyncVaultParams(prune=True))
