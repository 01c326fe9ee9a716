"""Crash test (issue 3, item 9): ``roster sync`` runs as a real process over a large edit and
is killed with SIGKILL at random points, several times in a row. After every kill, each
profile row must be wholly what it was before that run or wholly the new version (all
columns compared), the file bookkeeping must agree with the row, and the next sync must
converge: every row new, and a further sync writes nothing.

Kill points come from a seeded ``random.Random``. Odd kills use a delay drawn uniformly
within the run's expected duration (start-up, reading and parsing included). Even kills
poll the database (with a deadline) until the run writes, then kill after a random fraction
of a second: on SQLite after its first committed batch, so the kill lands between or inside
later batches of the 10,000-profile sync (2,000 files per batch and transaction); on
PostgreSQL (500 profiles, one batch) while its one write transaction is open."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy import func, select, text

from agent_roster.store import Store, sqlite_url
from agent_roster.store import tables as t
from agent_roster.sync.engine import SyncEngine

from .conftest import REPO, fresh_database
from .helpers import rows, wait_for

SEED = 20240325
NEW_TOKENS = 77_777  # not among vaultgen's values
REVISION = "Revision 2 of this role: keep answers short.\n"
TIMES = ("created_at", "updated_at", "last_synced_at")
Rows = dict[Any, dict[str, Any]]


def _vaultgen() -> ModuleType:
    name = "_roster_bench_vaultgen"
    if name not in sys.modules:
        # vaultgen imports its sibling bench/shapes.py by name.
        if str(REPO / "bench") not in sys.path:
            sys.path.insert(0, str(REPO / "bench"))
        spec = importlib.util.spec_from_file_location(name, REPO / "bench" / "vaultgen.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while being built
        spec.loader.exec_module(module)
    return sys.modules[name]


@contextmanager
def _database(backend: str, folder: Path) -> Iterator[str]:
    yield from fresh_database(backend, folder)


def _sync(vault: Path, url: str, *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "agent_roster", "--vault", str(vault), "--db", url, "sync"]
    return subprocess.Popen([*command, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _sync_json(vault: Path, url: str) -> dict[str, Any]:
    process = _sync(vault, url, "--json")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()
    return json.loads(out)


def _edit(vaultgen: ModuleType, manifest: Any) -> int:
    """Change Config's max_tokens_per_task and the Role text of every system profile (one
    write each, in place) and the budget of every project override."""
    tokens = re.compile(r'("max_tokens_per_task": )\d+')
    for profile_id in manifest.profiles:
        path = manifest.profile_path(profile_id)
        body, count = tokens.subn(rf"\g<1>{NEW_TOKENS}", path.read_text(encoding="utf-8"), 1)
        assert count == 1 and "## Role\n" in body
        path.write_text(body.replace("## Role\n", "## Role\n" + REVISION, 1), encoding="utf-8")
    edited = len(manifest.profiles)
    for project, ids in manifest.overrides.items():
        for profile_id in ids:
            vaultgen.edit_profile(manifest.profile_path(profile_id, project), 1)
            edited += 1
    return edited


def _strip(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in TIMES}


class Check:
    """What the database must hold: the original rows, and the new version of each."""

    def __init__(self, store: Store, old: Rows, new: Rows) -> None:
        self.store = store
        self.old = old
        self.new = {key: _strip(row) for key, row in new.items()}
        self.servers = rows(store, "mcp_servers")
        assert set(new) == set(old)
        assert all(self.new[key] != _strip(row) for key, row in old.items())

    def is_new(self, key: Any, row: dict[str, Any]) -> bool:
        return _strip(row) == self.new[key] and row["created_at"] == self.old[key]["created_at"]

    def whole_rows(self, before: Rows) -> tuple[Rows, int]:
        """Every row is exactly as before this run, or wholly new; returns the rows and how
        many are new."""
        now = rows(self.store, "agent_profiles")
        assert set(now) == set(self.old)
        files = rows(self.store, "sync_files")
        new = 0
        for key, row in now.items():
            is_new = self.is_new(key, row)
            if is_new:
                new += 1
            else:
                assert row == before[key], f"{key}: neither its previous nor its new version"
            if row["project"] is None:  # the edit, spelled out: budget, Role and hash together
                assert (row["max_tokens_per_task"] == NEW_TOKENS) is is_new, key
                assert ("Revision 2 of this role" in row["sections"]) is is_new, key
                assert (row["content_hash"] == self.new[key]["content_hash"]) is is_new, key
            # The file bookkeeping was committed with the row: same content hash.
            assert files[row["source_path"]]["content_hash"] == row["content_hash"], key
            assert files[row["source_path"]]["status"] == "ok", key
        assert rows(self.store, "mcp_servers") == self.servers
        if self.store.engine.dialect.name == "sqlite":
            with self.store.engine.connect() as conn:
                assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        return now, new


def _writing(store: Store, since: float) -> bool:
    """SQLite: the run has committed its first batch. PostgreSQL: the run's write
    transaction is open (it holds a row lock on agent_profiles in this test's schema)."""
    with store.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            query = (
                select(func.count())
                .select_from(t.sync_files)
                .where(t.sync_files.c.updated_at > since)
            )
        else:
            query = text(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = current_schema() AND c.relname = 'agent_profiles'"
                " AND l.mode = 'RowExclusiveLock' AND l.pid <> pg_backend_pid()"
            )
        return bool(conn.execute(query).scalar())


def _crash_and_converge(tmp_path: Path, backend: str, profiles: int, kills: int) -> None:
    vaultgen = _vaultgen()
    scale = max(1, profiles // 100)
    manifest = vaultgen.generate(
        tmp_path / "vault", profiles=profiles, servers=2 * scale, projects=scale, seed=SEED
    )
    vault: Path = manifest.root
    files = manifest.profile_files + manifest.server_files
    with _database(backend, tmp_path / "main") as url, Store.open(url) as store:
        cold = SyncEngine(store, vault).sync()
        assert (cold.written, cold.failed) == (files, 0)
        old = rows(store, "agent_profiles")
        started = time.perf_counter()
        assert _sync_json(vault, url)["written"] == 0
        startup = time.perf_counter() - started

        assert _edit(vaultgen, manifest) == manifest.profile_files
        # The new version of every row: a cold sync of the edited vault into a scratch file.
        with Store.open(sqlite_url(tmp_path / "reference.db")) as reference:
            started = time.perf_counter()
            assert SyncEngine(reference, vault).sync().written == files
            duration = startup + time.perf_counter() - started
            check = Check(store, old, rows(reference, "agent_profiles"))

        rng = random.Random(SEED)
        before, new, outcomes = old, 0, []
        for kill in range(1, kills + 1):
            remaining = len(old) - new
            if not remaining:
                outcomes.append(f"kill {kill}: not run, every row is new already")
                break
            expected = startup + (duration - startup) * remaining / len(old)
            since = time.time()
            process = _sync(vault, url)
            if kill % 2:
                delay = rng.uniform(0.1, 1.0) * expected
                plan = f"after {delay:.2f} s"
            else:
                wait_for(
                    lambda p=process, s=since: p.poll() is not None or _writing(store, s),
                    10 * duration,
                    "the run to start writing",
                )
                delay = rng.uniform(0.0, 0.3 if backend == "sqlite" else 0.05)
                event = "the first commit" if backend == "sqlite" else "its write began"
                plan = f"{delay:.2f} s after {event}"
            try:
                process.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
            # The run can end between the timeout and the signal (a CI run saw it): then it
            # exited 0 on its own, which is a finished run, not a kill.
            assert process.returncode in (0, -signal.SIGKILL)
            killed = process.returncode == -signal.SIGKILL
            process.communicate()
            before, new = check.whole_rows(before)
            outcomes.append(
                f"kill {kill} {plan}: {'killed' if killed else 'finished first'}, "
                f"{new}/{len(old)} rows new"
            )
        print(
            f"\n{backend}, {len(old)} profile rows, expected sync {duration:.2f} s:",
            *outcomes,
            sep="\n  ",
        )

        final = _sync_json(vault, url)
        assert final["failed"] == 0
        assert check.whole_rows(before)[1] == len(old)  # converged: every row new
        again = _sync_json(vault, url)
        assert (again["written"], again["events"]) == (0, [])
        assert not store.list_sync_events(kinds=["failure"])


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigkill_during_a_10k_profile_sync_on_sqlite(tmp_path: Path) -> None:
    _crash_and_converge(tmp_path, "sqlite", profiles=10_000, kills=5)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigkill_during_a_500_profile_sync_on_postgresql(tmp_path: Path) -> None:
    _crash_and_converge(tmp_path, "postgresql", profiles=500, kills=5)
