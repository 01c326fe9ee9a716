"""sync_events: record and list, newest first."""

from __future__ import annotations

import time

import pytest

from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.errors import UsageError
from agent_roster.store import Store, SyncEvent, SyncEventKind

DIAGNOSTICS = (
    Diagnostic(
        path="agent-types/coding/profile.md",
        line=7,
        column=3,
        severity=Severity.ERROR,
        code="json-invalid",
        message="Expecting ',' delimiter — ünïcode",
        hint="add a comma",
    ),
    Diagnostic(
        path="agent-types/coding/profile.md",
        line=1,
        column=1,
        severity=Severity.WARNING,
        code="field-unknown",
        message="unknown key 'modle'",
    ),
)


def test_an_event_round_trips_with_every_diagnostic(store: Store) -> None:
    before = time.time()
    recorded = store.record_sync_event(
        SyncEventKind.FAILURE,
        entry_id="coding",
        path="agent-types/coding/profile.md",
        diagnostics=DIAGNOSTICS,
        message="kept the previous version",
    )

    assert recorded.id is not None
    assert recorded.at is not None and before <= recorded.at <= time.time()
    assert store.list_sync_events() == [
        SyncEvent(
            id=recorded.id,
            at=recorded.at,
            kind="failure",
            entry_kind="profile",
            entry_id="coding",
            project=None,
            path="agent-types/coding/profile.md",
            diagnostics=DIAGNOSTICS,
            message="kept the previous version",
        )
    ]


def test_events_list_newest_first_with_limit_and_filters(store: Store) -> None:
    store.record_sync_event("failure", path="a.md", at=1.0)
    store.record_sync_event("recovery", path="a.md", at=3.0)
    store.record_sync_event("deleted", path="b.md", entry_kind="mcp-server", at=2.0)
    store.record_sync_event("restored", path="b.md", project="webshop", at=3.0)

    assert [(e.kind, e.at) for e in store.list_sync_events()] == [
        ("restored", 3.0),  # same time: the later-recorded one first
        ("recovery", 3.0),
        ("deleted", 2.0),
        ("failure", 1.0),
    ]
    assert [e.kind for e in store.list_sync_events(2)] == ["restored", "recovery"]
    assert [e.kind for e in store.list_sync_events(kinds=["failure", "recovery"])] == [
        "recovery",
        "failure",
    ]
    assert [e.kind for e in store.list_sync_events(kinds="deleted")] == ["deleted"]
    assert [e.kind for e in store.list_sync_events(path="b.md")] == ["restored", "deleted"]
    assert store.list_sync_events(0) == []
    with pytest.raises(UsageError):
        store.list_sync_events(-1)


def test_many_events_are_recorded_in_one_call(store: Store) -> None:
    events = [
        SyncEvent(kind=SyncEventKind.FAILURE, path=f"p{i}.md", diagnostics=DIAGNOSTICS[:1])
        for i in range(2500)
    ]

    assert store.record_sync_events(events) == 2500

    listed = store.list_sync_events(3000)
    assert len(listed) == 2500
    assert {e.kind for e in listed} == {"failure"}
    assert listed[0].diagnostics == DIAGNOSTICS[:1]
