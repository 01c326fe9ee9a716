"""``roster up`` as a subprocess (issue 14 items 6, 7, 8): it serves, a save on disk reaches
``/events``, a broken save is notified (a line, an SSE event, a local webhook receiver),
SIGTERM stops it cleanly (exit 0, the database consistent) and Ctrl-C with 130; a second
instance is refused saying where the first runs; Host, Origin, body size, ids, stale hashes
and beyond-loopback tokens are checked on the wire."""

from __future__ import annotations

import json
import os
import queue
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from agent_roster.resolve.attach import running
from agent_roster.serve.lock import TOKEN_FILE, state_dir
from agent_roster.store import Store

from ..sync.conftest import fresh_database
from .conftest import Daemon
from .receiver import receiving

CODING = "agent-types/coding/profile.md"
GOOD_LINE = '"runtime": "claude_sdk"'


class EventStream:
    """``GET /events`` read on a thread: each SSE event as (id, kind, data)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.events: queue.Queue[tuple[int, str, dict[str, Any]]] = queue.Queue()
        self.opened = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(url, headers or {}), daemon=True)
        self._thread.start()
        assert self.opened.wait(30), "/events did not answer"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        with httpx.stream("GET", url, headers=headers, timeout=None) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            self.opened.set()
            fields: dict[str, str] = {}
            for line in response.iter_lines():
                if self._stop.is_set():
                    return
                if not line:
                    if "data" in fields:
                        data = json.loads(fields["data"])
                        self.events.put((int(fields["id"]), fields["event"], data))
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(": ")
                    fields[key] = value

    def next(self, kind: str, path: str, timeout: float = 30) -> tuple[int, dict[str, Any]]:
        """The next event of ``kind`` about ``path`` (others before it are passed over)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} event for {path}"
            try:
                ident, got, data = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if got == kind and data.get("path") == path:
                return ident, data

    def close(self) -> None:
        self._stop.set()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


@pytest.mark.timeout(300)
def test_serve_notify_refuse_a_second_and_stop_cleanly_on_sigterm(vault: Path, db_url: str) -> None:
    with receiving() as receiver:
        config = vault / "roster.toml"
        config.write_text(
            config.read_text() + f'\n[[notify.webhook]]\nurl = "{receiver.url}"\nbackoff = 0.1\n'
        )
        daemon = Daemon(vault, "--settle-ms", "20", db=db_url)
        try:
            daemon.wait_ready()
            stream = EventStream(f"{daemon.url}/events")
            profile = vault / CODING
            good = profile.read_text()
            # A save on disk reaches /events.
            profile.write_text(good.replace("Coding Agent", "Coding Agent (edited)", 1))
            changed_id, changed = stream.next("changed", CODING)
            assert changed["entry_id"] == "coding" and changed["id"] == changed_id
            # A broken save: the last good row stays, and it is notified three ways.
            profile.write_text(good.replace(GOOD_LINE, GOOD_LINE + ",,", 1))
            failure_id, failure = stream.next("failure", CODING)
            assert failure_id > changed_id
            assert [d["code"] for d in failure["diagnostics"] if d["severity"] == "error"] == [
                "json-invalid"
            ]
            receiver.wait(1)
            assert receiver.posts[0]["id"] == failure_id
            line = daemon.wait_line(lambda s: "sync failed" in s)
            assert f"sync failed  {CODING}:" in line and "json-invalid" in line
            got = httpx.get(f"{daemon.url}/api/get_profile", params={"id": "coding"}).json()
            assert got["diagnostics"][0]["code"] == "json-invalid"
            # The fix: one recovery.
            profile.write_text(good)
            stream.next("recovery", CODING)
            receiver.wait(2)
            assert [p["kind"] for p in receiver.posts] == ["failure", "recovery"]
            daemon.wait_line(lambda s: s.endswith(f"recovered    {CODING}"))
            # roster.toml broken while running: the last good one stays, and it is notified.
            config.write_text(config.read_text() + "\n[defaults\n")
            stream.next("failure", "roster.toml")
            receiver.wait(3)
            stream.close()
            # A second roster up on the same vault says where the first one runs.
            second = subprocess.run(
                [sys.executable, "-m", "agent_roster", "--vault", str(vault), "up"],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert second.returncode == 2
            assert (
                f"roster up is already running for this vault (pid {daemon.process.pid}) at "
                f"{daemon.url}" in second.stderr
            )
            assert daemon.stop(signal.SIGTERM) == 0
        finally:
            daemon.stop()
    output = daemon.output()
    assert output[-1] == "roster up: stopped", output
    assert not any("Traceback" in line for line in output), output
    assert running(state_dir(vault)) is None  # the lock is released
    with Store.open(db_url) as store:
        coding = store.get_profile("coding")
        assert coding is not None and coding.name == "Coding Agent"
        kinds = [e.kind for e in store.list_sync_events(20, path=CODING)]
        # newest first; the fix is a recovery and, its content being new, a change
        assert kinds[:4] == ["changed", "recovery", "failure", "changed"]
        if db_url.startswith("sqlite"):
            with store.engine.connect() as conn:
                assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"


@pytest.mark.timeout(300)
def test_requests_are_checked_on_the_wire_and_ctrl_c_exits_130(daemon: Daemon, vault: Path) -> None:
    base = daemon.url
    # Host: a DNS-rebinding page sends its own name.
    refused = httpx.get(f"{base}/api/list_profiles", headers={"host": "evil.example:8737"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden"
    assert "host 'evil.example:8737'" in refused.json()["error"]["message"]
    # Origin: another site's page; the daemon's own origin is fine.
    other = httpx.post(
        f"{base}/api/list_profiles", json={}, headers={"origin": "https://evil.example"}
    )
    assert other.status_code == 403
    assert "origin 'https://evil.example'" in other.json()["error"]["message"]
    own = httpx.post(f"{base}/api/list_profiles", json={}, headers={"origin": base})
    assert own.status_code == 200
    for path in ("/mcp", "/events"):  # every route, the MCP endpoint included
        assert httpx.get(f"{base}{path}", headers={"host": "evil.example"}).status_code == 403
    # Body size: by Content-Length, and counted as a chunked body streams in.
    big = b'{"id": "' + b"x" * (1 << 20) + b'"}'
    assert httpx.post(f"{base}/api/get_profile", content=big).status_code == 413

    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b" " * 65536

    streamed = httpx.post(f"{base}/api/get_profile", content=chunks())
    assert streamed.status_code == 413
    assert streamed.json()["error"]["message"] == "the request body is larger than 1048576 bytes"
    # Ids are checked before they become a path.
    for bad in ("../../etc/passwd", "..", "a/b", "x\x00y"):
        answer = httpx.get(f"{base}/api/get_profile", params={"id": bad})
        assert answer.status_code == 400, bad
        assert answer.json()["error"]["code"] == "unsafe-name", bad
    # A stale base hash is refused as a conflict and the file is left alone.
    read = httpx.get(f"{base}/api/get_profile", params={"id": "coding"}).json()
    profile = vault / CODING
    profile.write_text(profile.read_text() + "\n")  # a human edit meanwhile
    before = profile.read_bytes()
    stale = httpx.post(
        f"{base}/api/edit_profile",
        json={"id": "coding", "base_hash": read["content_hash"], "description": "from the API"},
    )
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "conflict"
    assert profile.read_bytes() == before
    # /events resumes after an id (Last-Event-ID) with what happened since.
    resumed = EventStream(f"{base}/events", headers={"last-event-id": "0"})
    resumed.next("changed", CODING)
    resumed.close()
    assert daemon.stop(signal.SIGINT) == 130
    assert daemon.output()[-1] == "roster up: stopped"


@pytest.mark.timeout(300)
def test_beyond_loopback_every_request_needs_the_token_made_once(vault: Path) -> None:
    folder = state_dir(vault)
    daemon = Daemon(vault, "--host", "0.0.0.0")
    try:
        daemon.wait_ready()
        token_file = folder / TOKEN_FILE
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 40
        assert daemon.wait_line(lambda s: s.startswith("  token")).endswith(str(token_file))
        url = f"{daemon.url}/api/list_profiles"
        assert httpx.get(url).status_code == 401
        assert httpx.get(url, headers={"authorization": "Bearer nope"}).status_code == 401
        allowed = httpx.get(url, headers={"authorization": f"Bearer {token}"})
        assert allowed.status_code == 200
        assert httpx.get(f"{daemon.url}/healthz").status_code == 200
        assert daemon.stop() == 0
    finally:
        daemon.stop()
    again = Daemon(vault, "--host", "0.0.0.0")
    try:
        again.wait_ready()
        assert (folder / TOKEN_FILE).read_text().strip() == token  # generated once
    finally:
        again.stop()


def test_a_broken_roster_toml_at_start_is_refused(vault: Path) -> None:
    config = vault / "roster.toml"
    config.write_text(config.read_text().replace('"acceptEdits"', '"sometimes"'))
    done = subprocess.run(
        [sys.executable, "-m", "agent_roster", "--vault", str(vault), "up"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 2
    assert "roster.toml" in done.stderr and "field-value" in done.stderr
    assert "error: roster.toml has errors; roster up starts only with a valid one" in done.stderr
    assert running(state_dir(vault)) is None
