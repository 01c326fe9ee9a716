"""Fixtures for the command layer and its surfaces: a copy of the example vault, a context
on it, the daemon's HTTP app served by a real uvicorn on a free loopback port, and ``roster
up`` itself as a subprocess."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from agent_roster.commands.context import RosterContext
from agent_roster.commands.sync import open_store
from agent_roster.resolve.attach import Attachment
from agent_roster.resolve.config import load_config
from agent_roster.serve.http import build_app
from agent_roster.serve.live import Live
from agent_roster.serve.security import GuardSettings
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus

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


class Daemon:
    """``roster up`` as a subprocess on a free loopback port: its output lines are collected
    as they come, and :meth:`stop` sends a signal and returns the exit code."""

    def __init__(
        self, vault: Path, *args: str, port: int | None = None, db: str | None = None
    ) -> None:
        self.vault = vault
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "agent_roster", "--vault", str(vault)]
        command += [*(["--db", db] if db else []), "up"]
        command += ["--port", str(self.port), *args]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            # PYTHONUNBUFFERED: lines arrive as printed, not when the process ends.
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_line(self, predicate: Callable[[str], bool], timeout: float = 60) -> str:
        """The first output line (from the start) that ``predicate`` accepts."""
        for line in self.seen:
            if predicate(line):
                return line
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no such line within {timeout} s: {self.seen}"
            try:
                line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                assert self.process.poll() is None or not self.lines.empty(), (
                    f"roster up exited with {self.process.returncode}: {self.seen}"
                )
                continue
            self.seen.append(line)
            if predicate(line):
                return line

    def wait_ready(self, timeout: float = 90) -> None:
        """Until ``/healthz`` answers (a hang guard: start-up is slow on a busy machine)."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.process.poll() is None, f"roster up exited: {self.output()}"
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"roster up never got ready: {self.output()}"
            time.sleep(0.1)

    def output(self) -> list[str]:
        while not self.lines.empty():
            self.seen.append(self.lines.get_nowait())
        return self.seen

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            code = self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        self._reader.join(5)
        self.output()
        return code


@pytest.fixture
def daemon(vault: Path) -> Iterator[Daemon]:
    """``roster up`` serving a copy of the example vault, ready; stopped with SIGTERM."""
    running = Daemon(vault)
    try:
        running.wait_ready()
        yield running
    finally:
        running.stop()


class Recorder:
    """Every event the bus publishes, in order."""

    def __init__(self) -> None:
        self.events: list[SyncEvent] = []

    def __call__(self, event: SyncEvent) -> None:
        self.events.append(event)

    def about_config(self) -> list[tuple[str, str]]:
        return [(e.kind, e.message) for e in self.events if e.entry_kind == "config"]


@pytest.fixture
def live(vault: Path) -> Iterator[tuple[Live, Recorder]]:
    """The daemon's live state on a copy of the example vault (synced, index loaded) and
    a recorder of what it publishes; no watcher: tests call ``sync`` themselves."""
    store = open_store(vault)
    bus = EventBus()
    recorder = Recorder()
    bus.subscribe(recorder)
    state = Live(
        store, vault, load_config(vault).config, bus, Attachment("http://127.0.0.1:1/mcp", b"k")
    )
    state.sync()
    state.load()
    try:
        yield state, recorder
    finally:
        store.close()
