"""roster.toml is read again while ``roster up`` runs: a clean one applies at once, a broken
one keeps the last good configuration and is notified once per broken content, and the
fix once as a recovery (issue 14). The daemon's live state on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

from agent_roster.resolve.cascade import resolve
from agent_roster.serve.live import Live

from .conftest import Recorder


def edit(vault: Path, old: str, new: str) -> None:
    path = vault / "roster.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_clean_roster_toml_applies_at_once(live: tuple[Live, Recorder], vault: Path) -> None:
    state, events = live
    assert resolve(state.index()).profile.model == "claude-sonnet-4-6"
    edit(vault, 'model = "claude-sonnet-4-6"', 'model = "claude-opus-4-1"')
    state.sync(["roster.toml"])
    assert state.config().defaults.model == "claude-opus-4-1"
    # The cascade's last level and every memoised effective profile see it.
    assert resolve(state.index()).profile.model == "claude-opus-4-1"
    assert events.about_config() == [("changed", "applied")]
    state.sync(["roster.toml"])  # the same bytes again: nothing happens
    assert events.about_config() == [("changed", "applied")]


def test_a_broken_roster_toml_keeps_the_last_good_one_and_is_notified_once(
    live: tuple[Live, Recorder], vault: Path
) -> None:
    state, events = live
    good = state.config()
    path = vault / "roster.toml"
    original = path.read_text()
    path.write_text(original + "\n[defaults\n")  # not TOML
    state.sync(["roster.toml"])
    assert state.config() is good
    ((kind, message),) = events.about_config()
    assert kind == "failure"
    assert message == "roster.toml has errors; the last good configuration stays in force"
    failure = events.events[-1]
    assert [(d.code, d.path) for d in failure.diagnostics] == [("toml-invalid", "roster.toml")]
    assert failure.diagnostics[0].line == original.count("\n") + 2
    # Saved again unchanged (an editor touching the file): no second notification.
    path.write_text(original + "\n[defaults\n")
    state.sync(["roster.toml"])
    state.sync(None)
    assert len(events.about_config()) == 1
    # Broken differently: that is new broken content, notified once more.
    edit(vault, 'permission_mode = "acceptEdits"', 'permission_mode = "sometimes"')
    path.write_text(path.read_text().replace("\n[defaults\n", "\n"))
    state.sync(["roster.toml"])
    assert [k for k, _ in events.about_config()] == ["failure", "failure"]
    assert [d.code for d in events.events[-1].diagnostics] == ["field-value"]
    assert state.config() is good
    # Fixed: one recovery; the content equals the last good one, so nothing else applies.
    path.write_text(original)
    state.sync(["roster.toml"])
    assert [k for k, _ in events.about_config()] == ["failure", "failure", "recovery"]
    assert state.config() == good
    stored = state.store.list_sync_events(10, path="roster.toml")
    assert [e.kind for e in stored] == ["recovery", "failure", "failure"]


def test_notify_sinks_are_read_with_roster_toml(live: tuple[Live, Recorder], vault: Path) -> None:
    state, events = live
    path = vault / "roster.toml"
    path.write_text(
        path.read_text() + '\n[[notify.webhook]]\nurl = "http://127.0.0.1:9/x"\nretries = 1\n'
    )
    changes: list[tuple[object, object]] = []
    state.config_hooks.append(lambda old, new: changes.append((old.notify, new.notify)))
    state.sync(["roster.toml"])
    ((old, new),) = changes
    assert new != old
    assert state.config().notify.webhook[0].url == "http://127.0.0.1:9/x"
    assert state.config().notify.webhook[0].retries == 1
    # A bad sink is a located diagnostic; the sinks in force stay.
    lines = path.read_text().splitlines()
    lines[-1] = "retries = -1"
    path.write_text("\n".join([*lines, '[[notify.command]]\nargv = "notify-send"\n']))
    state.sync(["roster.toml"])
    failure = events.events[-1]
    assert failure.kind == "failure"
    assert [(d.code, d.line, d.message) for d in failure.diagnostics] == [
        (
            "field-value",
            len(lines) - 2,
            "[[notify.webhook]] retries must be a whole number, 0 or more",
        ),
        (
            "field-value",
            len(lines) + 1,
            "[[notify.command]] argv must be a non-empty list of strings (no shell)",
        ),
    ]
    assert state.config().notify.webhook[0].retries == 1
