"""Fixtures for the resolution tests: a private copy of the example vault, and a real SQLite
store synced from it with projects and tasks created the way the runtime creates them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_roster.store import Store, sqlite_url
from agent_roster.sync.engine import SyncEngine

from .helpers import copy_example


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A private copy of examples/vault (sync writes starter packs into it)."""
    return copy_example(tmp_path / "vault")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return sqlite_url(tmp_path / "db" / "roster.db")


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url) as opened:
        yield opened


@pytest.fixture
def synced(store: Store, example: Path) -> Store:
    """The example vault synced, plus: project webshop (default profile qa) with tasks
    t-review (profile code-review) and t-coding (profile coding) and t-plain (none); project
    blank (no default) with task t-bare (none)."""
    SyncEngine(store, example).sync()
    store.create_project("webshop", "Web shop", default_profile_id="qa")
    store.create_project("blank", "No default")
    store.create_task("t-review", "webshop", "Review PR 12", profile_id="code-review")
    store.create_task("t-coding", "webshop", "Fix the cart", profile_id="coding")
    store.create_task("t-plain", "webshop", "Anything")
    store.create_task("t-bare", "blank", "Anything")
    return store
