"""Concurrent syncs (issue 11 item 7): two ``roster sync`` runs, or a sync beside
``roster watch``, on a new or an existing database both succeed or one waits; never
"database is locked" reported as exit 2. On SQLite and PostgreSQL, with real processes,
repeated to catch the race.

Seen on main: two syncs on a brand-new SQLite database sometimes failed with exit 2,
"cannot open database ...: database is locked". Switching a new file to WAL needs an
exclusive lock, and SQLite refuses it at once, without the busy timeout, while another
process does the same; a whole sync now also holds a per-database lock, so the second
sync waits and then finds nothing to do.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_roster.store import Store, head_revision, sqlite_url

from .conftest import EXAMPLE_VAULT, fresh_database
from .helpers import CODING, set_max_tokens

ROSTER = str(Path(sys.executable).with_name("roster"))
ROUNDS = 4
#: Files the example vault syncs (profiles and servers).
FILES = 12


def _sync_all(vault: Path, db: str, count: int) -> list[dict[str, object]]:
    """``count`` ``roster sync --json`` processes started together; each one's report."""
    command = [ROSTER, "--vault", str(vault), "--db", db, "sync", "--json"]
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(count)
    ]
    reports = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        assert "locked" not in err
        reports.append(json.loads(out))
    return reports


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def databases(backend: str, tmp_path: Path) -> Iterator[list[str]]:
    """``ROUNDS`` empty databases of the backend."""
    with contextlib.ExitStack() as stack:
        urls = [
            stack.enter_context(
                contextlib.contextmanager(fresh_database)(backend, tmp_path / f"r{n}")
            )
            for n in range(ROUNDS)
        ]
        yield urls


@pytest.mark.timeout(900)
def test_concurrent_first_syncs_all_succeed_and_one_writes(
    databases: list[str], tmp_path: Path
) -> None:
    for n, db in enumerate(databases):
        vault = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / f"vault{n}"))
        reports = _sync_all(vault, db, 3)
        # One sync wrote the vault; the others waited for it and found nothing to do.
        assert sorted(r["written"] for r in reports) == [0, 0, FILES], reports
        assert sorted(r["unchanged"] for r in reports) == [0, FILES, FILES]
        starters = [f for r in reports for f in r["starter_files"]]  # type: ignore[attr-defined]
        assert len(starters) == len(set(starters)) > 0  # each starter file copied once
        with Store.open(db) as store:
            assert len(store.list_profiles()) == 6


@pytest.mark.timeout(900)
def test_concurrent_syncs_of_an_edit_on_an_existing_database(
    databases: list[str], tmp_path: Path
) -> None:
    vault = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault"))
    db = databases[0]
    _sync_all(vault, db, 1)
    for tokens in range(1000, 1000 + ROUNDS):
        set_max_tokens(vault / CODING, tokens)
        reports = _sync_all(vault, db, 2)
        assert sorted(r["written"] for r in reports) == [0, 1], reports
        with Store.open(db) as store:
            coding = store.get_profile("coding")
            assert coding is not None and coding.max_tokens_per_task == tokens


@pytest.mark.timeout(600)
def test_sync_beside_watch(backend: str, tmp_path: Path) -> None:
    """A watcher and two syncs start together on a new database: all succeed."""
    for n in range(2):
        with contextlib.contextmanager(fresh_database)(backend, tmp_path / f"w{n}") as db:
            vault = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / f"vault{n}"))
            command = [ROSTER, "--vault", str(vault), "--db", db, "watch", "--settle-ms", "20"]
            watch = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
            try:
                _sync_all(vault, db, 2)
                set_max_tokens(vault / CODING, 4242)
                _sync_all(vault, db, 1)
                deadline = time.monotonic() + 60
                with Store.open(db) as store:
                    while (p := store.get_profile("coding")) and p.max_tokens_per_task != 4242:
                        assert time.monotonic() < deadline
                        time.sleep(0.1)
                assert watch.poll() is None, "the watcher stopped"
                watch.send_signal(signal.SIGTERM)
                assert watch.wait(60) == 143
            finally:
                if watch.poll() is None:
                    watch.kill()
                    watch.wait()
            err = watch.stderr.read() if watch.stderr else ""
            assert "locked" not in err and "Traceback" not in err, err


def test_a_new_file_another_process_is_writing_is_waited_for(tmp_path: Path) -> None:
    """The race itself, made certain: another connection holds the write lock of a new
    database that is not in WAL mode yet (a first migration in another process). Opening
    the store switches the file to WAL; on main that failed at once with "database is
    locked", now it waits for the lock like any write."""
    path = tmp_path / "db" / "roster.db"
    path.parent.mkdir()
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE first_migration(x)")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    try:
        with Store.open(sqlite_url(path)) as store:
            assert store.current_revision() == head_revision()
            with store.engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        release.join()
        other.close()
    assert time.monotonic() - started >= 0.4  # it waited for the other writer
