"""The cascade (seed 001): task.profile_id → project.default_profile_id → system default,
answered from the in-memory index over a real SQLite store kept current by the real sync."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from agent_roster.commands.resolve import build_index, resolve_launch
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.resolve.cascade import resolve, resolve_task
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine

from .helpers import override, system

MISSING = "which does not exist (its file is missing or never synced); falling through"


def index_for(store: Store, vault: Path) -> Any:
    return build_index(store, vault)


def test_each_level_of_the_cascade(synced: Store, example: Path) -> None:
    index = index_for(synced, example)
    review = resolve_task(index, "t-review")
    assert (review.level, review.profile_id, review.project) == ("task", "code-review", "webshop")
    assert review.profile.name == "Code Reviewer" and review.warnings == ()
    plain = resolve_task(index, "t-plain")
    assert (plain.level, plain.profile_id) == ("project", "qa")
    assert plain.profile.mcp_servers == ("playwright", "github")
    bare = resolve_task(index, "t-bare")
    assert (bare.level, bare.profile_id, bare.project) == ("default", None, "blank")
    assert (bare.profile.model, bare.profile.permission_mode) == (
        "claude-sonnet-4-6",
        "acceptEdits",
    )
    assert bare.profile.allowed_tools == ("Read", "Glob", "Grep", "Edit", "Write", "Bash")
    assert bare.origins["model"].to_dict() == {"path": "roster.toml", "section": "[defaults]"}
    assert bare.origins["allowed_tools"].section == "[defaults]"


def test_a_task_in_a_project_gets_the_project_override(synced: Store, example: Path) -> None:
    index = index_for(synced, example)
    coding = resolve_task(index, "t-coding")
    assert (coding.level, coding.profile_id) == ("task", "coding")
    assert coding.profile.max_tokens_per_task == 300000
    assert coding.origins["max_tokens_per_task"].path == override("webshop", "coding")
    assert coding.origins["model"].path == system("coding")
    # The same profile outside the project has no override.
    global_coding = resolve(index, profile="coding")
    assert global_coding.profile.max_tokens_per_task == 200000
    assert resolve(index, profile="coding", project="blank").profile.max_tokens_per_task == 200000


def test_a_missing_profile_warns_and_falls_through(synced: Store, example: Path) -> None:
    engine = SyncEngine(synced, example)
    (example / system("code-review")).unlink()
    (example / system("security-review")).unlink()  # it extends code-review
    engine.sync()
    index = index_for(synced, example)
    assert synced.get_task("t-review") is not None  # the task keeps its profile_id
    found = resolve_task(index, "t-review")
    assert (found.level, found.profile_id) == ("project", "qa")
    assert found.warnings == (
        f"task 't-review' names profile 'code-review', {MISSING} to the next level",
    )
    (example / system("qa")).unlink()
    engine.sync()
    index = index_for(synced, example)
    found = resolve_task(index, "t-review")
    assert found.level == "default"
    assert found.warnings == (
        f"task 't-review' names profile 'code-review', {MISSING} to the next level",
        f"project 'webshop' defaults to 'qa', {MISSING} to the next level",
    )
    assert resolve_task(index, "t-plain").warnings == (
        f"project 'webshop' defaults to 'qa', {MISSING} to the next level",
    )


def test_unknown_ids_are_errors_not_fallbacks(synced: Store, example: Path) -> None:
    index = index_for(synced, example)
    with pytest.raises(NotFoundError, match="no task 'nope'"):
        resolve_task(index, "nope")
    with pytest.raises(NotFoundError, match="no profile 'nope' in project 'webshop'"):
        resolve(index, profile="nope", project="webshop")
    with pytest.raises(UsageError, match="exactly one of --task and --profile"):
        resolve_launch(index, example)
    with pytest.raises(UsageError, match="--project goes with --profile"):
        resolve_launch(index, example, task="t-plain", project="webshop")


def test_resolution_runs_no_sql(synced: Store, example: Path) -> None:
    index = index_for(synced, example)
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(synced.engine, "before_cursor_execute", count)
    try:
        synced.get_task("t-plain")  # the listener sees queries when there are any
        assert any(s.startswith("SELECT") for s in statements)
        statements.clear()
        for _ in range(2000):
            for task in ("t-review", "t-coding", "t-plain", "t-bare"):
                resolve_launch(index, example, task=task)
            resolve_launch(index, example, profile="security-review", project="webshop")
        assert statements == []
    finally:
        event.remove(synced.engine, "before_cursor_execute", count)


def test_apply_drops_the_memo(synced: Store, example: Path) -> None:
    index = index_for(synced, example)
    engine = SyncEngine(synced, example)
    assert resolve_task(index, "t-review").profile.model == "claude-sonnet-4-6"
    assert resolve(index, profile="security-review").profile.model == "claude-sonnet-4-6"
    spec = resolve_launch(index, example, task="t-review").launch
    path = example / system("code-review")
    path.write_text(
        path.read_text().replace('"model": "claude-sonnet-4-6"', '"model": "claude-opus-4-6"')
    )
    engine.sync()
    # Until apply, the index answers from memory: the old value.
    assert resolve_task(index, "t-review").profile.model == "claude-sonnet-4-6"
    changed = synced.get_profile("code-review")
    assert changed is not None and changed.model == "claude-opus-4-6"
    index.apply(profiles=[changed])
    assert resolve_task(index, "t-review").profile.model == "claude-opus-4-6"
    # security-review extends code-review: its memoised merge is dropped too.
    assert resolve(index, profile="security-review").profile.model == "claude-opus-4-6"
    new_spec = resolve_launch(index, example, task="t-review").launch
    assert new_spec is not spec and "--model=claude-opus-4-6" in new_spec.argv
    # Removing a profile makes the cascade fall through.
    index.apply(removed_profiles=[("code-review", None)])
    assert resolve_task(index, "t-review").level == "project"
    # Project defaults and task profiles are plain dicts the caller keeps current.
    index.project_defaults["webshop"] = "supervisor"
    assert resolve_task(index, "t-plain").profile_id == "supervisor"


def test_memoised_answers_are_shared(synced: Store, example: Path) -> None:
    index = index_for(synced, example)
    first = resolve_launch(index, example, task="t-plain")
    again = resolve_launch(index, example, task="t-plain")
    assert again.launch is first.launch
    assert again.resolution.profile is first.resolution.profile
    # The explicit form resolves to the same effective profile and launch spec.
    explicit = resolve_launch(index, example, profile="qa", project="webshop")
    assert explicit.launch is first.launch and explicit.resolution.level == "profile"


def test_every_resolution_is_logged(
    synced: Store, example: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = index_for(synced, example)
    with caplog.at_level(logging.INFO, logger="agent_roster.resolve.cascade"):
        resolve_task(index, "t-plain")
        resolve_task(index, "t-bare")
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0].startswith(
        "resolved project for task t-plain: profile=qa tools=Read,Glob,Grep,Edit,Write,Bash,"
    )
    assert messages[0].endswith("servers=playwright,github")
    assert messages[1] == (
        "resolved default for task t-bare: profile=(system default) "
        "tools=Read,Glob,Grep,Edit,Write,Bash servers="
    )
