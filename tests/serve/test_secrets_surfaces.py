"""Secrets are masked on the daemon's surfaces too (issue 11 item 3): command results and
errors on the HTTP API and the MCP server, the ``/events`` stream, and what notify sinks
receive. ``${VAR}`` references stay visible.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent_roster import diagnostics as dx
from agent_roster.commands.context import RosterContext
from agent_roster.serve.http import build_app
from agent_roster.serve.notify import CommandConfig, CommandSink, Notifier, describe
from agent_roster.serve.security import GuardSettings
from agent_roster.store import Store, sqlite_url
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus

from .conftest import free_port

TOKEN = "ghp_" + "Q7xK2mN9pL4vB8cR1tY6wZ3aF5hJ0dS2gE4u"
API_KEY = "sk-proj-" + "T3BlbkFJx9Kq2LmN7pR4sV8wY1zA5cE0"
PROFILE = f"""---
id: secretive
name: Secretive
description: Holds literal secrets in its pass-through settings.
---
## Role
Work.

## Config
```json
{{"model": "claude-sonnet-4-6",
  "harness": {{"opencode": {{"apiKey": "{API_KEY}", "baseURL": "${{BASE_URL}}"}}}}}}
```
"""


class Events:
    """What ``/events`` reads from: a real store and bus."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bus = EventBus()
        self.closing = threading.Event()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(sqlite_url(tmp_path / "db" / "roster.db")) as opened:
        yield opened


@pytest.fixture
def daemon(vault: Path, store: Store) -> Iterator[tuple[str, Events]]:
    (vault / "agent-types" / "secretive").mkdir()
    (vault / "agent-types" / "secretive" / "profile.md").write_text(PROFILE)
    events = Events(store)
    port = free_port()
    with RosterContext(vault) as context:
        app = build_app(context, guard=GuardSettings(port=port), events=events)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}", events
        events.closing.set()
        server.should_exit = True
        thread.join(10)


def failure(message: str) -> SyncEvent:
    diagnostic = dx.make("field-value", message, path="mcp-servers/x.md", line=3, column=12)
    return SyncEvent(kind="failure", path="mcp-servers/x.md", diagnostics=(diagnostic,))


def test_http_results_and_errors_are_masked(daemon: tuple[str, Events]) -> None:
    url, _ = daemon
    got = httpx.get(f"{url}/api/get_profile", params={"id": "secretive"})
    assert got.status_code == 200
    assert API_KEY not in got.text
    pass_through = got.json()["profile"]["harness"]["opencode"]
    assert pass_through == {"apiKey": "***", "baseURL": "${BASE_URL}"}
    missing = httpx.post(f"{url}/api/get_profile", json={"id": TOKEN})
    assert missing.status_code == 404
    assert TOKEN not in missing.text and "***" in missing.json()["error"]["message"]


def test_mcp_results_are_masked(daemon: tuple[str, Events]) -> None:
    url, _ = daemon

    async def call() -> tuple[Any, Any]:
        async with (
            streamable_http_client(f"{url}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            found = await session.call_tool("get_profile", {"id": "secretive"})
            missing = await session.call_tool("get_profile", {"id": TOKEN})
            return found, missing

    found, missing = anyio.run(call)
    assert API_KEY not in json.dumps(found.structured_content)
    assert API_KEY not in found.content[0].text
    assert found.structured_content["profile"]["harness"]["opencode"]["apiKey"] == "***"
    assert missing.is_error and TOKEN not in missing.content[0].text


def test_the_event_stream_is_masked(daemon: tuple[str, Events]) -> None:
    url, events = daemon
    events.store.record_sync_event(
        "failure",
        path="mcp-servers/x.md",
        diagnostics=[failure(f"'transport' must be one of stdio, got {TOKEN!r}").diagnostics[0]],
    )
    lines: list[str] = []
    with httpx.stream("GET", f"{url}/events", params={"after": "0"}, timeout=10) as response:
        for line in response.iter_lines():
            lines.append(line)
            if line.startswith("data: "):
                break
    data = json.loads(lines[-1].removeprefix("data: "))
    assert TOKEN not in lines[-1]
    assert data["diagnostics"][0]["message"] == "'transport' must be one of stdio, got '***'"


def test_notify_sinks_and_console_lines_are_masked(tmp_path: Path) -> None:
    received = tmp_path / "payload.json"
    script = f"import sys; open({str(received)!r}, 'w').write(sys.stdin.read())"
    sink = CommandSink(CommandConfig(argv=[sys.executable, "-c", script]))
    said: list[str] = []
    notifier = Notifier([sink], echo=said.append)
    event = failure(f"Authorization header 'Bearer {API_KEY}' is not allowed")
    notifier(event)
    notifier.close()
    deadline = time.monotonic() + 10
    while not received.exists() or not received.read_text():
        assert time.monotonic() < deadline, "the notify command did not run"
        time.sleep(0.05)
    payload = received.read_text()
    assert API_KEY not in payload and "Bearer ***" in payload
    assert said == [describe(event)] and API_KEY not in said[0]
