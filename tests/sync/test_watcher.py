"""``roster watch`` with real inotify events (issue 3, item 4). Every wait has a timeout: on
a report queue, a threading.Event, or a condition polled against a deadline; no bare sleeps."""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_roster.commands.sync import watch_vault
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine
from agent_roster.sync.watcher import ChangeBatch, VaultWatcher

from .helpers import CODING, QA, REVIEW, Reports, replace_in, set_max_tokens

SUPERVISOR = "agent-types/supervisor/profile.md"

# Generous: the limits catch hangs, not slowness on a busy 2-core machine.
pytestmark = pytest.mark.timeout(150)


class Watch:
    def __init__(self) -> None:
        self.reports = Reports()
        self.ready = threading.Event()
        self.readies = 0
        self.stop = threading.Event()
        self.errors: list[BaseException] = []

    def on_ready(self) -> None:
        self.readies += 1
        self.ready.set()


@contextmanager
def running(target: Callable[[Watch], None]) -> Iterator[Watch]:
    watch = Watch()

    def run() -> None:
        try:
            target(watch)
        except BaseException as exc:  # surfaced by the assertion below
            watch.errors.append(exc)

    thread = threading.Thread(target=run, name="watcher", daemon=True)
    thread.start()
    try:
        assert watch.ready.wait(60), f"the watcher never became ready: {watch.errors}"
        watch.reports.drain()  # the first full sync
        yield watch
    finally:
        watch.stop.set()
        thread.join(30)
    assert not thread.is_alive(), "the watcher did not stop"
    assert watch.errors == []


@contextmanager
def watching(vault: Path, db_url: str, settle_ms: int = 20) -> Iterator[Watch]:
    def target(watch: Watch) -> None:
        watch_vault(
            vault,
            db_url,
            stop=watch.stop,
            on_report=watch.reports.put,
            on_ready=watch.on_ready,
            settle_ms=settle_ms,
        )

    with running(target) as watch:
        yield watch


def _max_tokens(store: Store, profile_id: str) -> int | None:
    profile = store.get_profile(profile_id)
    return None if profile is None else profile.max_tokens_per_task


def test_the_first_sync_runs_before_ready(db_url: str, store: Store, vault: Path) -> None:
    with watching(vault, db_url):
        assert _max_tokens(store, "coding") == 200000
        assert len(store.list_profiles()) == 6


def test_a_plain_edit_reaches_the_database(db_url: str, store: Store, vault: Path) -> None:
    with watching(vault, db_url) as watch:
        set_max_tokens(vault / CODING, 111)
        watch.reports.until(lambda: _max_tokens(store, "coding") == 111)


def test_editor_saves_sync_once_and_temp_files_never_trigger_a_batch(
    db_url: str, store: Store, vault: Path
) -> None:
    folder = vault / "agent-types" / "coding"
    with watching(vault, db_url) as watch:
        # Noise only: swap, backup, lock and temp files, Obsidian state, hidden folders.
        (folder / ".profile.md.swp").write_bytes(b"b0VIM 9.0")
        (folder / "profile.md~").write_text("backup", encoding="utf-8")
        (folder / ".#profile.md").write_text("user@host.1234", encoding="utf-8")
        (folder / "4913").write_text("", encoding="utf-8")
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
        (vault / ".trash" / "agent-types" / "old").mkdir(parents=True)
        (vault / ".trash" / "agent-types" / "old" / "profile.md").write_text("x")
        (vault / "notes.md").write_text("# notes\n", encoding="utf-8")
        # A sentinel save: the next report must be its own, so the noise made no batch.
        set_max_tokens(vault / QA, 1, atomic=True)
        report = watch.reports.next()
        assert (report.scanned, report.written, _max_tokens(store, "qa")) == (1, 1, 1)

        # Write-to-temp then rename, the way most editors and atomic writers save.
        text = (folder / "profile.md").read_text(encoding="utf-8")
        temp = folder / ".profile.md.tmp1234"
        temp.write_text(text.replace("200000", "222222"), encoding="utf-8")
        os.replace(temp, folder / "profile.md")
        report = watch.reports.next()
        assert (report.scanned, report.written, report.deleted, report.failed) == (1, 1, 0, 0)
        assert _max_tokens(store, "coding") == 222222
        set_max_tokens(vault / QA, 2, atomic=True)
        report = watch.reports.next()  # the sentinel again: no second sync of the save
        assert (report.scanned, report.written, _max_tokens(store, "qa")) == (1, 1, 2)
        assert store.list_sync_events() == []

        # Vim's default: rename the original to a backup, write a new file, drop the backup.
        # The file is briefly absent (and then half-written), so on a busy machine a batch
        # may see that and record deleted/restored or failure/recovery; the end state holds.
        os.rename(folder / "profile.md", folder / "profile.md~")
        (folder / "profile.md").write_text(text.replace("200000", "333333"), encoding="utf-8")
        (folder / "profile.md~").unlink()
        watch.reports.until(lambda: _max_tokens(store, "coding") == 333333)


def test_a_burst_of_writes_ends_with_the_final_content_in_fewer_batches(
    store: Store, vault: Path
) -> None:
    engine = SyncEngine(store, vault)
    targets = {"coding": CODING, "qa": QA, "code-review": REVIEW}

    def target(watch: Watch) -> None:
        def on_batch(batch: ChangeBatch) -> None:
            engine.sync(None if batch.full_rescan else batch.paths)
            watch.reports.put(batch)

        VaultWatcher(vault, on_batch, settle_ms=20, stop=watch.stop, on_ready=watch.on_ready).run()

    with running(target) as watch:
        for write in range(20):  # in place, as fast as Python can: 7 + 7 + 6 writes
            pid = list(targets)[write % 3]
            set_max_tokens(vault / targets[pid], 1000 + write)
        # A sentinel save after the burst: every batch before its own belongs to the burst.
        set_max_tokens(vault / SUPERVISOR, 1, atomic=True)
        got = watch.reports.until(lambda: any(SUPERVISOR in b.paths for b in watch.reports.seen))
    burst = [b for b in got if b.paths - {SUPERVISOR}]
    assert 1 <= len(burst) < 20
    assert {p for b in burst for p in b.paths} <= set(targets.values()) | {SUPERVISOR}
    assert {pid: _max_tokens(store, pid) for pid in targets} == {
        "coding": 1018,
        "qa": 1019,
        "code-review": 1017,
    }


def test_a_broken_save_keeps_the_previous_row_until_the_fix(
    db_url: str, store: Store, vault: Path
) -> None:
    with watching(vault, db_url) as watch:
        before = store.get_profile("coding")
        replace_in(vault / CODING, "200000,", "200000,,", atomic=True)
        report = watch.reports.next()
        assert (report.failed, report.written) == (1, 0)
        assert store.get_profile("coding") == before

        replace_in(vault / CODING, "200000,,", "1234,", atomic=True)
        report = watch.reports.next()
        assert (report.recovered, report.written) == (1, 1)
        assert _max_tokens(store, "coding") == 1234
    assert [e.kind for e in store.list_sync_events()] == ["recovery", "failure"]


def test_renaming_a_profile_folder(db_url: str, store: Store, vault: Path) -> None:
    (vault / "agent-types" / "a").mkdir()
    (vault / "agent-types" / "a" / "profile.md").write_text(
        "---\nname: Movable\n---\n## Role\nMove me.\n", encoding="utf-8"
    )
    with watching(vault, db_url) as watch:
        assert store.get_profile("a") is not None
        os.rename(vault / "agent-types" / "a", vault / "agent-types" / "b")
        watch.reports.until(
            lambda: store.get_profile("a") is None and store.get_profile("b") is not None
        )
    assert store.get_profile("a", include_missing=True) is not None
    moved = store.get_profile("b")
    assert moved is not None and moved.role == "Move me."


@pytest.mark.parametrize("wait_until_gone", [True, False], ids=["slow", "quick"])
def test_the_vault_folder_disappearing_and_coming_back(
    db_url: str,
    store: Store,
    vault: Path,
    wait_until_gone: bool,
) -> None:
    fresh = vault.parent / "fresh"
    shutil.copytree(vault, fresh)
    set_max_tokens(fresh / CODING, 5555)
    shutil.rmtree(fresh / "agent-types" / "qa")
    gone = threading.Event()

    class Noticed(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "is gone" in record.getMessage():
                gone.set()

    handler = Noticed()
    logging.getLogger("agent_roster.sync.watcher").addHandler(handler)
    try:
        with watching(vault, db_url) as watch:
            shutil.rmtree(vault)
            if wait_until_gone:
                assert gone.wait(30), "the watcher did not notice the vault was gone"
            shutil.copytree(fresh, vault)
            watch.reports.until(
                lambda: _max_tokens(store, "coding") == 5555 and store.get_profile("qa") is None
            )
            set_max_tokens(vault / REVIEW, 4321)  # and the new folder is watched
            watch.reports.until(lambda: _max_tokens(store, "code-review") == 4321)
            assert watch.readies >= 2  # the watch was set up again on the new folder
    finally:
        logging.getLogger("agent_roster.sync.watcher").removeHandler(handler)
    assert store.get_profile("qa", include_missing=True) is not None


def test_the_watcher_survives_a_failing_sync(
    store: Store, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = SyncEngine(store, vault)
    failures: list[ChangeBatch] = []

    def target(watch: Watch) -> None:
        def on_batch(batch: ChangeBatch) -> None:
            if watch.ready.is_set() and not failures:
                failures.append(batch)
                raise RuntimeError("database went away")
            watch.reports.put(engine.sync(None if batch.full_rescan else batch.paths))

        VaultWatcher(vault, on_batch, settle_ms=20, stop=watch.stop, on_ready=watch.on_ready).run()

    with caplog.at_level(logging.ERROR, logger="agent_roster.sync.watcher"), running(target) as w:
        set_max_tokens(vault / CODING, 999, atomic=True)  # one batch, and it fails
        # The failed batch is retried (as a full rescan), so the edit is not lost.
        w.reports.until(lambda: _max_tokens(store, "coding") == 999)
        set_max_tokens(vault / QA, 998)
        w.reports.until(lambda: _max_tokens(store, "qa") == 998)
    assert len(failures) == 1
    assert [r.getMessage() for r in caplog.records if "still watching" in r.getMessage()]


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (["agent-types/coding/profile.md"], ({"agent-types/coding/profile.md"}, False)),
        (["projects/web/mcp-servers/pg.md"], ({"projects/web/mcp-servers/pg.md"}, False)),
        (["agent-types/coding"], (set(), True)),  # a folder renamed, created or deleted
        (["projects/web"], (set(), True)),
        (["projects/web/agent-types/coding"], (set(), True)),
        ([""], (set(), True)),  # the vault folder itself
        # Files the scan reports instead of loading: only a full rescan finds out why.
        (["agent-types/a:b/profile.md"], (set(), True)),
        (["agent-types/stray.md"], (set(), True)),
        (["projects/web/mcp-servers/notes.txt"], (set(), True)),
        (["profile.md"], (set(), True)),
        (["agent-types/coding/memory/notes.md", "templates/knowledge/qa/x.md"], None),
        (["agent-types/coding/.profile.md.swp", "agent-types/coding/profile.md~"], None),
        (["agent-types/coding/.#profile.md", "agent-types/coding/#profile.md#"], None),
        (["agent-types/coding/4913", "agent-types/coding/.profile.md.x1.tmp"], None),
        ([".obsidian/workspace.json", ".git/index", ".roster/roster.db-wal"], None),
        ([".trash/agent-types/old/profile.md", "agent-types/.hidden/profile.md"], None),
        (["README.md", "notes/agent-types/x/profile.md"], None),
        # roster.toml is handed on, for roster up to read again.
        (["README.md", "roster.toml"], ({"roster.toml"}, False)),
    ],
)
def test_classify_changes(
    tmp_path: Path, changed: list[str], expected: tuple[set[str], bool] | None
) -> None:
    from agent_roster.sync.watcher import classify_changes

    root = tmp_path / "vault"
    absolute = [str(root / rel) if rel else str(root) for rel in changed]
    absolute.append(str(tmp_path / "elsewhere" / "agent-types" / "x" / "profile.md"))
    batch = classify_changes(root, absolute)
    assert (None if batch is None else (set(batch.paths), batch.full_rescan)) == expected
