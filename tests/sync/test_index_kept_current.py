"""Sync keeps the resolution index current: edits, new files and deletions show up in
resolution without rebuilding the index or querying the database."""

from __future__ import annotations

import shutil
from pathlib import Path

from agent_roster.resolve.cascade import resolve
from agent_roster.resolve.config import load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import Store, sqlite_url
from agent_roster.sync.engine import SyncEngine

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vault"


def test_sync_applies_changes_to_the_index(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE, vault)
    with Store.open(sqlite_url(tmp_path / "roster.db")) as store:
        index = ProfileIndex(load_config(vault).config)
        engine = SyncEngine(store, vault, index=index)
        engine.sync()
        assert (
            resolve(index, profile="qa").profile.name == "QA Agent"
            or resolve(index, profile="qa").profile.id == "qa"
        )
        before = resolve(index, profile="coding", project="webshop").profile.max_tokens_per_task

        override = vault / "projects/webshop/agent-types/coding/profile.md"
        text = override.read_text()
        assert str(before) in text
        override.write_text(text.replace(str(before), "123456", 1))
        engine.sync(["projects/webshop/agent-types/coding/profile.md"])
        after = resolve(index, profile="coding", project="webshop").profile
        assert after.max_tokens_per_task == 123456

        (vault / "agent-types/qa/profile.md").unlink()
        engine.sync()
        assert not index.exists("qa")
        fallback = resolve(index, project=None, task_profile="qa", task="t1")
        assert fallback.level == "default"
        assert any("'qa', which does not exist" in w for w in fallback.warnings)
