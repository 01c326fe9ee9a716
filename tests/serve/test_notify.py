"""Notifications (issue 14 item 5): a sync failure is notified once per broken content and
its recovery once, to a real local HTTP receiver (POST of the event JSON, retries with
backoff, a bounded queue) and to a command (argv, no shell, the event JSON on stdin). A dead
or hanging receiver never blocks a sync."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agent_roster.resolve.notify_config import CommandConfig, NotifyConfig, WebhookConfig
from agent_roster.serve.live import Live
from agent_roster.serve.notify import CommandSink, Notifier, WebhookSink, build_sinks
from agent_roster.store.events import SyncEvent

from .conftest import Recorder, free_port
from .receiver import receiving

CODING = "agent-types/coding/profile.md"


def failure(path: str = CODING) -> SyncEvent:
    return SyncEvent(kind="failure", id=7, at=1.0, entry_id="coding", path=path, message="x")


def break_profile(vault: Path) -> tuple[str, str]:
    """Break the coding profile's Config JSON; returns the good and the broken text."""
    path = vault / CODING
    good = path.read_text()
    broken = good.replace('"runtime": "claude_sdk"', '"runtime": "claude_sdk",,', 1)
    assert broken != good
    path.write_text(broken)
    return good, broken


def test_a_webhook_posts_the_event_json() -> None:
    with receiving() as receiver:
        sink = WebhookSink(WebhookConfig(url=receiver.url))
        sink.submit({"kind": "failure", "path": CODING})
        receiver.wait(1)
        sink.close()
    assert receiver.posts == [{"kind": "failure", "path": CODING}]
    assert receiver.headers[0]["content-type"] == "application/json"
    assert (sink.delivered, sink.failed, sink.dropped) == (1, 0, 0)


def test_a_webhook_retries_with_backoff_until_the_receiver_takes_it() -> None:
    naps: list[float] = []
    with receiving(fail_first=2) as receiver:
        sink = WebhookSink(WebhookConfig(url=receiver.url, retries=3, backoff=0.25), naps.append)
        sink.submit({"kind": "failure"})
        receiver.wait(1)
        sink.close()
    assert receiver.attempts == 3
    assert naps == [0.25, 0.5]  # doubling from ``backoff``
    assert (sink.delivered, sink.failed) == (1, 0)


def test_a_dead_receiver_is_given_up_after_the_retries() -> None:
    url = f"http://127.0.0.1:{free_port()}/nobody"
    sink = WebhookSink(WebhookConfig(url=url, retries=2, backoff=0.01))
    sink.submit({"kind": "failure"})
    sink.close(timeout=30)
    assert (sink.delivered, sink.failed) == (0, 1)


def test_a_hanging_receiver_blocks_nothing_and_the_queue_stays_bounded() -> None:
    with receiving(hang=True) as receiver:
        sink = WebhookSink(WebhookConfig(url=receiver.url, timeout=0.5, retries=0, queue=3))
        notifier = Notifier([sink])
        started = time.perf_counter()
        for number in range(10):
            notifier(failure(f"agent-types/p{number}/profile.md"))
        handed_over = time.perf_counter() - started
        receiver.wait(1, attempts=True)  # the first one is stuck at the receiver
        assert handed_over < 0.5
        # One is being delivered; of the nine behind it only the newest three are kept.
        assert sink.dropped >= 6
        started = time.perf_counter()
        notifier.close(timeout=0.1)  # shutting down does not wait out the receiver
        assert time.perf_counter() - started < 1
    assert receiver.posts == []


def test_a_hanging_receiver_never_blocks_sync(live: tuple[Live, Recorder], vault: Path) -> None:
    state, events = live
    with receiving(hang=True) as receiver:
        notifier = Notifier(build_sinks(NotifyConfig(webhook=(WebhookConfig(url=receiver.url),))))
        state.bus.subscribe(notifier)
        break_profile(vault)
        started = time.perf_counter()
        state.sync([CODING])
        assert time.perf_counter() - started < 2  # the receiver's 5 s timeout is not waited
        receiver.wait(1, attempts=True)
        assert [e.kind for e in events.events if e.path == CODING] == ["failure"]
        notifier.close(timeout=0)


def test_failure_once_per_broken_content_and_recovery_once_at_the_receiver(
    live: tuple[Live, Recorder], vault: Path
) -> None:
    state, _ = live
    lines: list[str] = []
    with receiving() as receiver:
        sinks = build_sinks(NotifyConfig(webhook=(WebhookConfig(url=receiver.url),)))
        state.bus.subscribe(Notifier(sinks, echo=lines.append))
        good, broken = break_profile(vault)
        state.sync([CODING])
        receiver.wait(1)
        (vault / CODING).write_text(broken)  # saved again, the same broken content
        state.sync([CODING])
        state.sync()
        (vault / CODING).write_text(good)
        state.sync([CODING])
        receiver.wait(2)
        for sink in sinks:
            sink.close()
    assert [(p["kind"], p["path"]) for p in receiver.posts] == [
        ("failure", CODING),
        ("recovery", CODING),
    ]
    first = receiver.posts[0]
    assert first["id"] > 0 and first["entry_id"] == "coding"
    (diagnostic,) = [d for d in first["diagnostics"] if d["severity"] == "error"]
    assert diagnostic["code"] == "json-invalid" and diagnostic["path"] == CODING
    assert lines[0].startswith(f"sync failed  {CODING}:")
    assert "json-invalid" in lines[0]
    assert lines[1:] == [f"recovered    {CODING}"]


def test_a_command_gets_the_event_json_on_stdin_and_no_shell(tmp_path: Path) -> None:
    out = tmp_path / "got.json"
    script = (
        "import json, sys; "
        "json.dump({'argv': sys.argv[1:], 'event': json.load(sys.stdin)}, "
        f"open({str(out)!r}, 'w'))"
    )
    marker = tmp_path / "pwned"
    hostile = f"$(touch {marker}); `touch {marker}` | true"
    sink = CommandSink(CommandConfig(argv=(sys.executable, "-c", script, hostile)))
    sink.submit({"kind": "failure", "path": CODING})
    sink.close(timeout=30)
    assert (sink.delivered, sink.failed) == (1, 0)
    got = json.loads(out.read_text())
    assert got == {"argv": [hostile], "event": {"kind": "failure", "path": CODING}}
    assert not marker.exists()


def test_a_failing_or_missing_command_is_counted_and_never_raises(tmp_path: Path) -> None:
    failing = CommandSink(CommandConfig(argv=(sys.executable, "-c", "raise SystemExit(3)")))
    missing = CommandSink(CommandConfig(argv=(str(tmp_path / "no-such-program"),)))
    slow = CommandSink(
        CommandConfig(argv=(sys.executable, "-c", "import time; time.sleep(30)"), timeout=0.5)
    )
    for sink in (failing, missing, slow):
        sink.submit({"kind": "failure"})
    for sink in (failing, missing, slow):
        sink.close(timeout=30)
        assert (sink.delivered, sink.failed) == (0, 1), sink.config.argv
