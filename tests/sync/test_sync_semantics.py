"""One-way sync semantics (issue 3, item 3) on SQLite and PostgreSQL: cold sync, idempotence,
edits, touches, broken edits, deletions, restores and --prune."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import msgspec

from agent_roster.model import AgentProfile
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine, content_hash
from agent_roster.vault.loader import load_vault

from .helpers import (
    CODING,
    GITHUB,
    QA,
    REVIEW,
    WEBSHOP_CODING,
    WEBSHOP_POSTGRES,
    position,
    replace_in,
    rows,
    set_max_tokens,
    snapshot,
)

BROKEN_CONFIG = ('"max_tokens_per_task": 200000,', '"max_tokens_per_task": 200000,,')


def _without_times(profile: AgentProfile) -> AgentProfile:
    return msgspec.structs.replace(profile, created_at=None, updated_at=None)


def test_cold_sync_creates_every_row_with_the_parsed_fields(
    engine: SyncEngine, store: Store, vault: Path
) -> None:
    report = engine.sync()

    assert (report.scanned, report.unchanged, report.written, report.failed) == (12, 0, 12, 0)
    expected = load_vault(vault)
    assert not [d for d in expected.all_diagnostics() if d.is_error]
    for (project, profile_id), parsed in expected.profiles.items():
        got = store.get_profile(profile_id, project)
        assert got is not None, (project, profile_id)
        assert _without_times(got) == parsed.profile
        assert got.created_at is not None and got.updated_at is not None
    for (project, name), parsed_server in expected.servers.items():
        assert store.get_mcp_server(name, project) == parsed_server.server
    assert [p.id for p in store.list_profiles()] == [
        "code-review",
        "coding",
        "qa",
        "security-review",
        "supervisor",
        "web-developer",
    ]  # sorted by name: Code Reviewer, Coding Agent, QA Engineer, ...
    states = {s.source_path: s for s in store.profile_states()}
    assert len(states) == 7
    for rel, state in states.items():
        assert state.content_hash == content_hash((vault / rel).read_bytes())
        assert state.present

    coding = store.get_profile("coding")
    assert coding is not None
    assert (coding.model, coding.max_tokens_per_task, coding.permission_mode) == (
        "claude-sonnet-4-6",
        200000,
        "acceptEdits",
    )
    assert coding.mcp_servers == ("github",)
    assert "mcp__github__create_pull_request" in coding.allowed_tools
    assert coding.denied_tools[0] == "Bash(git push --force:*)"
    assert coding.role.startswith("You are a software engineering agent")
    assert coding.source == CODING


def test_project_overrides_and_servers_sync_under_their_project(
    engine: SyncEngine, store: Store
) -> None:
    engine.sync()

    override = store.get_profile("coding", project="webshop")
    assert override is not None
    assert (override.project, override.max_tokens_per_task, override.source) == (
        "webshop",
        300000,
        WEBSHOP_CODING,
    )
    assert override.fields_set >= {"max_tokens_per_task"}
    system = store.get_profile("coding")
    assert system is not None and system.max_tokens_per_task == 200000
    assert [p.id for p in store.list_profiles("webshop")] == ["coding"]
    assert store.get_mcp_server("postgres") is None
    server = store.get_mcp_server("postgres", "webshop")
    assert server is not None and server.project == "webshop"
    assert [s.name for s in store.list_mcp_servers()] == [
        "context7",
        "filesystem",
        "github",
        "playwright",
    ]


def test_second_sync_writes_nothing(engine: SyncEngine, store: Store, vault: Path) -> None:
    engine.sync()
    before = snapshot(store)

    again = engine.sync()
    fresh = SyncEngine(store, vault).sync()  # a new process: bookkeeping comes from the DB

    for report in (again, fresh):
        assert (report.written, report.unchanged, report.scanned) == (0, 12, 12)
        assert report.events == () and report.starter_files == ()
    assert snapshot(store) == before


def test_an_edit_changes_only_that_row(engine: SyncEngine, store: Store, vault: Path) -> None:
    engine.sync()
    before = snapshot(store)

    set_max_tokens(vault / CODING, 123456)
    report = engine.sync()

    assert (report.written, report.unchanged, report.events) == (1, 11, ())
    after = snapshot(store)
    changed = {
        k for k, row in after["agent_profiles"].items() if before["agent_profiles"][k] != row
    }
    assert changed == {"coding"}
    old, new = before["agent_profiles"]["coding"], after["agent_profiles"]["coding"]
    assert new["max_tokens_per_task"] == 123456
    assert new["created_at"] == old["created_at"] and new["updated_at"] > old["updated_at"]
    assert new["content_hash"] == content_hash((vault / CODING).read_bytes())
    assert after["mcp_servers"] == before["mcp_servers"]
    assert after["sync_events"] == before["sync_events"]


def test_a_touch_rereads_but_writes_no_row(engine: SyncEngine, store: Store, vault: Path) -> None:
    engine.sync()
    before = snapshot(store)
    stat = (vault / CODING).stat()
    os.utime(vault / CODING, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))

    report = engine.sync()

    assert (report.written, report.unchanged, report.events) == (0, 11, ())
    after = snapshot(store)
    assert after["agent_profiles"] == before["agent_profiles"]
    assert after["mcp_servers"] == before["mcp_servers"]
    assert after["sync_files"][CODING]["mtime_ns"] == stat.st_mtime_ns + 5_000_000_000
    # The new mtime is remembered, so the next sync does not even read the file.
    assert engine.sync().unchanged == 12


def test_broken_edit_keeps_the_previous_row_and_is_reported_once(
    engine: SyncEngine, store: Store, vault: Path
) -> None:
    engine.sync()
    good = rows(store, "agent_profiles")["coding"]
    replace_in(vault / CODING, *BROKEN_CONFIG)
    line, column = position(vault / CODING, "200000,,")

    report = engine.sync()

    assert (report.failed, report.written) == (1, 0)
    assert rows(store, "agent_profiles")["coding"] == good  # byte-equal, still present
    assert store.get_profile("coding") is not None
    [event] = report.events
    assert (event.kind, event.entry_id, event.path) == ("failure", "coding", CODING)
    [diagnostic] = event.diagnostics
    assert (diagnostic.path, diagnostic.line, diagnostic.column, diagnostic.code) == (
        CODING,
        line,
        column + len("200000,"),
        "json-invalid",
    )
    stored = store.list_sync_events()
    assert [(e.kind, e.path, e.diagnostics) for e in stored] == [
        ("failure", CODING, event.diagnostics)
    ]

    # The same broken content again (same engine, a touch, a new process): no new event.
    assert engine.sync().events == ()
    stat = (vault / CODING).stat()
    os.utime(vault / CODING, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert engine.sync().events == ()
    assert SyncEngine(store, vault).sync().events == ()
    assert len(store.list_sync_events()) == 1

    # Different broken content is a new failure.
    replace_in(vault / CODING, "200000,,", "200000,,,")
    assert [e.kind for e in engine.sync().events] == ["failure"]

    replace_in(vault / CODING, "200000,,,", "777777,")
    fixed = engine.sync()
    assert (fixed.recovered, fixed.written, fixed.failed) == (1, 1, 0)
    assert [(e.kind, e.path) for e in fixed.events] == [("recovery", CODING)]
    coding = store.get_profile("coding")
    assert coding is not None and coding.max_tokens_per_task == 777777
    assert [e.kind for e in store.list_sync_events()] == ["recovery", "failure", "failure"]


def test_one_bad_file_never_blocks_the_others(
    engine: SyncEngine, store: Store, vault: Path
) -> None:
    replace_in(vault / QA, "name: QA Engineer", "name: [unclosed")  # broken from the start
    engine.sync()
    assert store.get_profile("qa") is None
    replace_in(vault / CODING, *BROKEN_CONFIG)
    set_max_tokens(vault / REVIEW, 4242)
    replace_in(vault / GITHUB, "description: GitHub", "description: Changed GitHub")
    shutil.copytree(vault / "agent-types" / "supervisor", vault / "agent-types" / "extra")
    replace_in(vault / "agent-types/extra/profile.md", "id: supervisor", "id: extra")

    report = engine.sync()

    assert (report.failed, report.written) == (1, 3)
    review, extra = store.get_profile("code-review"), store.get_profile("extra")
    server = store.get_mcp_server("github")
    assert review is not None and review.max_tokens_per_task == 4242
    assert extra is not None and extra.source == "agent-types/extra/profile.md"
    assert server is not None and server.description.startswith("Changed GitHub")
    coding = store.get_profile("coding")
    assert coding is not None and coding.max_tokens_per_task == 200000
    assert {(e.kind, e.path) for e in store.list_sync_events()} == {
        ("failure", QA),
        ("failure", CODING),
    }


def test_deleted_file_marks_the_row_missing_and_its_return_restores_it(
    engine: SyncEngine, store: Store, vault: Path
) -> None:
    engine.sync()
    store.create_project("webshop", default_profile_id="coding")
    store.create_task("t1", "webshop", "Fix it", profile_id="coding")
    saved = (vault / CODING).read_bytes()
    (vault / CODING).unlink()

    report = engine.sync()

    assert (report.deleted, report.written) == (1, 0)
    assert [(e.kind, e.entry_id, e.path) for e in report.events] == [("deleted", "coding", CODING)]
    assert store.get_profile("coding") is None
    assert "coding" not in [p.id for p in store.list_profiles()]
    kept = store.get_profile("coding", include_missing=True)
    assert kept is not None and kept.max_tokens_per_task == 200000
    assert store.get_profile("coding", project="webshop") is not None  # the override stays
    task, project = store.get_task("t1"), store.get_project("webshop")
    assert task is not None and task.profile_id == "coding"
    assert project is not None and project.default_profile_id == "coding"
    assert engine.sync().events == ()  # reported once

    (vault / CODING).write_bytes(saved)
    back = engine.sync()

    assert (back.restored, back.written) == (1, 1)
    assert [(e.kind, e.path) for e in back.events] == [("restored", CODING)]
    assert store.get_profile("coding") is not None
    task = store.get_task("t1")
    assert task is not None and task.profile_id == "coding"


def test_prune_deletes_missing_rows_and_clears_references(
    engine: SyncEngine, store: Store, vault: Path
) -> None:
    engine.sync()
    store.create_project("webshop", default_profile_id="coding")
    store.create_task("t1", "webshop", profile_id="coding")
    store.create_task("t2", "webshop", profile_id="qa")
    shutil.rmtree(vault / "agent-types" / "coding")
    (vault / WEBSHOP_POSTGRES).unlink()
    engine.sync()

    report = engine.sync(prune=True)

    assert report.pruned == 2
    assert sorted((e.kind, e.entry_kind, e.entry_id, e.project) for e in report.events) == [
        ("pruned", "mcp-server", "postgres", "webshop"),
        ("pruned", "profile", "coding", None),
    ]
    assert store.get_profile("coding", include_missing=True) is None
    assert store.get_mcp_server("postgres", "webshop", include_missing=True) is None
    t1, t2, project = store.get_task("t1"), store.get_task("t2"), store.get_project("webshop")
    assert t1 is not None and t1.profile_id is None
    assert t2 is not None and t2.profile_id == "qa"
    assert project is not None and project.default_profile_id is None
    assert CODING not in rows(store, "sync_files")
    assert engine.sync(prune=True).events == ()
