"""Fixtures for the command layer and its surfaces: a copy of the example vault, a context
on it, and the daemon's HTTP app served by a real uvicorn on a free loopback port."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from agent_roster.commands.context import RosterContext
from agent_roster.serve.http import build_app
from agent_roster.serve.security import GuardSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLES, target)
    return target


@pytest.fixture
def context(vault: Path) -> Iterator[RosterContext]:
    with RosterContext(vault) as ctx:
        yield ctx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def served(context: RosterContext) -> Iterator[str]:
    """The HTTP API for the example vault on a free loopback port; yields its base URL."""
    port = free_port()
    app = build_app(context, guard=GuardSettings(port=port))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
