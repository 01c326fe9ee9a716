"""The daemon's start on a database synced before (``roster up`` after a stop): the index is
loaded from the rows first and the first sync applies only what changed meanwhile, so an
edit, a deletion and a broken save made while it was stopped are all in force."""

from __future__ import annotations

from pathlib import Path

from agent_roster.commands.sync import open_store
from agent_roster.resolve.attach import Attachment
from agent_roster.resolve.config import load_config
from agent_roster.serve.live import Live
from agent_roster.sync.bus import EventBus


def start(vault: Path) -> Live:
    """As run_up does it: load the index from the rows, then sync."""
    live = Live(
        open_store(vault),
        vault,
        load_config(vault).config,
        EventBus(),
        Attachment("http://127.0.0.1:1/mcp", b"k"),
    )
    live.load()
    live.sync()
    return live


def test_a_restart_applies_what_changed_while_stopped(vault: Path) -> None:
    first = start(vault)
    assert first.index().effective("qa") is not None
    first.store.close()
    coding = vault / "agent-types" / "coding" / "profile.md"
    good = coding.read_text()
    coding.write_text(good.replace("name: Coding Agent", "name: Coding Agent II", 1))
    qa = vault / "agent-types" / "qa" / "profile.md"
    qa.unlink()
    review = vault / "agent-types" / "code-review" / "profile.md"
    review.write_text(review.read_text().replace("```json\n{", "```json\n{,", 1))
    again = start(vault)
    try:
        index = again.index()
        found = index.effective("coding")
        assert found is not None and found.profile.name == "Coding Agent II"
        assert index.effective("qa") is None  # deleted: it no longer resolves
        kept = index.effective("code-review")  # broken: the last good version stays
        assert kept is not None and kept.profile.name == "Code Reviewer"
        assert index.effective("webshop-missing") is None
        assert index.effective("coding", "webshop") is not None
    finally:
        again.store.close()
