"""Notifications (issue 3, item 5): the event bus, the sync_events log, ``vault_status`` and
``roster status`` in text and JSON."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands.sync import vault_status
from agent_roster.store import Store, SyncEvent
from agent_roster.sync.bus import EventBus
from agent_roster.sync.engine import SyncEngine

from .helpers import CODING, QA, position, replace_in


def _kinds(events: list[SyncEvent]) -> list[tuple[str, str]]:
    return [(e.kind, e.entry_id) for e in events]


def _life_cycle(engine: SyncEngine, vault: Path) -> None:
    """failure → recovery → deleted → restored, one sync each."""
    engine.sync()
    replace_in(vault / CODING, "200000,", "200000,,")
    engine.sync()
    replace_in(vault / CODING, "200000,,", "200000,")
    engine.sync()
    saved = vault.parent / "qa.md"
    shutil.move(vault / QA, saved)
    engine.sync()
    shutil.move(saved, vault / QA)
    engine.sync()


EXPECTED = [("failure", "coding"), ("recovery", "coding"), ("deleted", "qa"), ("restored", "qa")]


def test_subscribers_receive_every_event_in_order(store: Store, vault: Path) -> None:
    bus = EventBus()
    first: list[SyncEvent] = []
    second: list[SyncEvent] = []
    bus.subscribe(first.append)
    bus.subscribe(second.append)

    _life_cycle(SyncEngine(store, vault, bus=bus), vault)

    assert _kinds(first) == EXPECTED
    assert second == first
    # The same events are stored, newest first; published with the time and id they were
    # stored with (the daemon notifies them, and /events resumes from an id).
    stored = store.list_sync_events()
    assert _kinds(list(reversed(stored))) == EXPECTED
    for published, kept in zip(first, reversed(stored), strict=True):
        assert kept.id is not None and kept.at is not None
        assert kept == published
    assert store.list_sync_events(kinds=["failure"])[0].diagnostics == first[0].diagnostics


def test_a_raising_subscriber_does_not_stop_the_others(
    store: Store, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bus = EventBus()
    received: list[SyncEvent] = []

    def broken(event: SyncEvent) -> None:
        raise RuntimeError(f"subscriber bug on {event.kind}")

    bus.subscribe(broken)
    bus.subscribe(received.append)
    gone: list[SyncEvent] = []
    unsubscribe = bus.subscribe(gone.append)
    unsubscribe()

    with caplog.at_level(logging.ERROR, logger="agent_roster.sync.bus"):
        _life_cycle(SyncEngine(store, vault, bus=bus), vault)

    assert _kinds(received) == EXPECTED
    assert gone == []
    assert sum("subscriber" in r.getMessage() for r in caplog.records) == 4
    assert len(store.list_sync_events()) == 4


def test_vault_status_shows_counts_and_each_failing_file(
    db_url: str, store: Store, vault: Path
) -> None:
    assert vault_status(vault, db_url).last_sync is None
    engine = SyncEngine(store, vault)
    engine.sync()
    replace_in(vault / CODING, "200000,", "200000,,")
    replace_in(vault / QA, "name: QA Engineer", "name: [QA")
    engine.sync()

    status = vault_status(vault, db_url)

    assert status.last_sync is not None
    assert status.files == {"profile": {"ok": 5, "failed": 2}, "mcp-server": {"ok": 5}}
    assert [(f.path, f.id) for f in status.failing] == [(CODING, "coding"), (QA, "qa")]
    line, column = position(vault / CODING, "200000,,")
    [diagnostic] = status.failing[0].diagnostics
    assert (diagnostic.line, diagnostic.column) == (line, column + len("200000,"))
    assert status.failing[1].diagnostics[0].line == 4
    assert [e.kind for e in status.recent_events] == ["failure", "failure"]


def test_status_command_text_and_json(
    db_url: str, store: Store, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--vault", str(vault), "--db", db_url]
    assert main([*base, "status"]) == 0
    assert "last sync  never" in capsys.readouterr().out
    engine = SyncEngine(store, vault)
    engine.sync()
    replace_in(vault / CODING, "200000,", "200000,,")
    line, column = position(vault / CODING, "200000,,")
    engine.sync()

    assert main([*base, "status"]) == 1
    out = capsys.readouterr().out
    assert "last sync  never" not in out
    assert "profiles   1 failed, 6 ok" in out
    assert "mcp-servers 5 ok" in out
    assert "1 failing file(s)" in out
    assert f"{CODING}:{line}:{column + 7}: error[json-invalid] invalid JSON in ## Config" in out
    assert "failure" in out.split("recent events:")[1]

    assert main([*base, "status", "--json", "--events", "1"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["last_sync"] is not None
    assert data["files"]["profile"] == {"ok": 6, "failed": 1}
    [failing] = data["failing"]
    assert (failing["path"], failing["id"], failing["project"]) == (CODING, "coding", None)
    assert [(d["line"], d["column"], d["code"]) for d in failing["diagnostics"]] == [
        (line, column + 7, "json-invalid")
    ]
    assert [e["kind"] for e in data["recent_events"]] == ["failure"]

    replace_in(vault / CODING, "200000,,", "200000,")
    engine.sync()
    assert main([*base, "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["failing"] == []
    assert [e["kind"] for e in data["recent_events"]] == ["recovery", "failure"]
    assert main([*base, "status"]) == 0
    assert "failing" not in capsys.readouterr().out
