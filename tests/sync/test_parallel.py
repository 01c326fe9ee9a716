"""Parsing in worker processes (issue 3: a cold sync may use every core): results come back
in order and equal to parsing in-process, failures are redone or raised here, and no worker
outlives the sync or its parent."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from agent_roster import parallel as pool
from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import Store, sqlite_url
from agent_roster.sync import engine as sync_engine
from agent_roster.sync.engine import SyncEngine

from .helpers import CODING, replace_in, rows, wait_for

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux")


def _children() -> list[int]:
    found = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children", encoding="ascii") as handle:
            found.extend(int(pid) for pid in handle.read().split())
    return found


def _slow_pid(chunk: int) -> tuple[int, int]:
    time.sleep(0.005)
    return chunk, os.getpid()


def test_results_come_back_in_order_from_workers_and_this_process() -> None:
    results = list(pool.ordered_map(_slow_pid, range(60), workers=2))
    assert [chunk for chunk, _ in results] == list(range(60))
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) > 1  # the parent took part, and a worker did
    assert _children() == []


def test_results_larger_than_the_pipe_and_empty_ones_arrive_whole() -> None:
    # Each worker result spans many reads of its pipe (1 MiB), one encodes to nothing at
    # all, and the parent reads them between chunks of its own: every byte must arrive in
    # its own frame, in order.
    parent = os.getpid()

    def big(chunk: int) -> tuple[int, bytes, bool]:
        if chunk % 7 == 3:
            return chunk, b"", os.getpid() != parent
        time.sleep(0.002)
        return chunk, bytes([chunk % 251]) * (300_000 * (chunk % 5 + 1)), os.getpid() != parent

    def encode(result: tuple[int, bytes, bool]) -> bytes:
        chunk, data, _ = result
        return b"" if not data else chunk.to_bytes(4, "big") + data

    def decode(payload: bytearray) -> tuple[int, bytes, bool]:
        if not payload:
            return -1, b"", True
        return int.from_bytes(payload[:4], "big"), bytes(payload[4:]), True

    results = list(pool.ordered_map(big, range(40), workers=2, encode=encode, decode=decode))
    from_workers = [r for r in results if r[2]]
    assert any(r[1] for r in from_workers)  # workers sent large frames
    assert any(r[0] == -1 for r in from_workers)  # and empty ones
    for chunk, (got, data, _) in enumerate(results):
        if chunk % 7 == 3:
            assert data == b""
            continue
        assert got == chunk
        assert data == bytes([chunk % 251]) * (300_000 * (chunk % 5 + 1))
    assert _children() == []


def test_without_workers_everything_runs_here() -> None:
    results = list(pool.ordered_map(_slow_pid, range(5), workers=0))
    assert results == [(chunk, os.getpid()) for chunk in range(5)]


def test_a_chunk_a_worker_fails_on_is_done_again_here() -> None:
    parent = os.getpid()

    def only_here(chunk: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("workers fail")
        return chunk * 2

    assert list(pool.ordered_map(only_here, range(30), workers=2)) == list(range(0, 60, 2))
    assert _children() == []


def test_the_chunks_of_a_worker_that_dies_are_done_here() -> None:
    parent = os.getpid()

    def dies(chunk: int) -> int:
        if os.getpid() != parent:
            os._exit(3)
        return -chunk

    assert list(pool.ordered_map(dies, range(20), workers=2)) == [-c for c in range(20)]
    assert _children() == []


def test_a_chunk_a_worker_is_late_with_is_done_here() -> None:
    parent = os.getpid()

    def slow_there(chunk: int) -> int:
        time.sleep(0.01 if os.getpid() == parent else 30)  # a worker starved of CPU
        return chunk

    started = time.monotonic()
    assert list(pool.ordered_map(slow_there, range(8), workers=2)) == list(range(8))
    assert time.monotonic() - started < 10
    assert _children() == []


def test_an_error_is_raised_here_and_the_workers_are_reaped() -> None:
    def broken(chunk: int) -> int:
        if chunk == 7:
            raise ValueError("chunk 7 is broken")
        time.sleep(0.002)
        return chunk

    results = pool.ordered_map(broken, range(40), workers=2)
    with pytest.raises(ValueError, match="chunk 7"):
        list(results)
    assert _children() == []


def test_an_abandoned_iteration_reaps_the_workers() -> None:
    results = pool.ordered_map(_slow_pid, range(40), workers=2)
    assert next(results)[0] == 0
    results.close()
    assert _children() == []


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    script = textwrap.dedent(
        r"""
        import os, sys, time
        from agent_roster import parallel as pool

        def forever(chunk):
            os.write(1, f"{os.getpid()}\n".encode())  # one write: lines never interleave
            time.sleep(60)

        list(pool.ordered_map(forever, range(4), workers=2))
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert process.stdout is not None
    pids = {int(process.stdout.readline()) for _ in range(3)} - {process.pid}
    assert len(pids) == 2
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    def gone(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                return handle.read().split(") ")[1].startswith("Z")  # dead, awaiting init
        except FileNotFoundError:
            return True

    wait_for(lambda: all(gone(pid) for pid in pids), 10, "the workers to die")
    assert process.stdout.read() == ""  # and every copy of the pipe was closed


def _state(store: Store) -> dict[str, Any]:
    """Everything a sync writes, less the times and the order of event ids."""
    times = {"created_at", "updated_at", "last_synced_at", "at", "id"}

    def strip(table: str) -> list[dict[str, Any]]:
        found = [
            {k: v for k, v in row.items() if k not in times} for row in rows(store, table).values()
        ]
        return sorted(found, key=repr)

    return {table: strip(table) for table in ("agent_profiles", "mcp_servers", "sync_files")} | {
        "events": strip("sync_events")
    }


def test_a_sync_parsed_by_workers_writes_what_an_in_process_sync_writes(
    db_url: str, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replace_in(vault / CODING, '"max_tokens_per_task": 200000,', '"max_tokens_per_task": ,')
    with Store.open(db_url) as store:
        serial = SyncEngine(store, vault, copy_starter=False).sync()
        expected = _state(store)
    with Store.open(db_url) as store:  # the same database, emptied
        with store.transaction() as conn:
            for table in ("sync_events", "sync_files", "agent_profiles", "mcp_servers"):
                conn.exec_driver_sql(f"DELETE FROM {table}")
        monkeypatch.setattr(sync_engine, "PARALLEL_MIN_FILES", 0)
        monkeypatch.setattr(sync_engine, "CHUNK_FILES", 1)
        monkeypatch.setattr(sync_engine, "CHUNK_FILES_MIN", 1)
        monkeypatch.setattr(pool, "available_workers", lambda: 2)
        threshold = gc.get_threshold()
        parallel = SyncEngine(store, vault, copy_starter=False).sync()
        assert gc.get_threshold() == threshold  # relaxed during the sync only
        assert _children() == []
        assert _state(store) == expected
    assert parallel._replace(seconds=0, events=()) == serial._replace(seconds=0, events=())
    assert [(e.kind, e.path) for e in parallel.events] == [(e.kind, e.path) for e in serial.events]
    assert parallel.failed == 1


def test_profiles_parsed_by_workers_reach_the_index(
    tmp_path: Path, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(vault).config
    with Store.open(sqlite_url(tmp_path / "serial.db")) as store:
        serial = ProfileIndex(config)
        SyncEngine(store, vault, copy_starter=False, index=serial).sync()
    monkeypatch.setattr(sync_engine, "PARALLEL_MIN_FILES", 0)
    monkeypatch.setattr(sync_engine, "CHUNK_FILES", 1)
    monkeypatch.setattr(sync_engine, "CHUNK_FILES_MIN", 1)
    monkeypatch.setattr(pool, "available_workers", lambda: 2)
    with Store.open(sqlite_url(tmp_path / "parallel.db")) as store:
        parallel = ProfileIndex(config)
        SyncEngine(store, vault, copy_starter=False, index=parallel).sync()
    assert parallel.system and parallel.overrides and parallel.servers
    assert (parallel.system, parallel.overrides, parallel.servers) == (
        serial.system,
        serial.overrides,
        serial.servers,
    )
