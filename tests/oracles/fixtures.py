"""Pytest fixtures of the oracle kit: the fake model and the MCP stub, started per test and
stopped after it (``tests/conftest.py`` imports them, so every test folder can use them)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from agent_roster.model.mcp import McpServer, Transport

from .fake_model import FakeModel

STUB = Path(__file__).with_name("mcp_stub.py")


@dataclass(frozen=True)
class McpStub:
    """How to launch the stdio MCP stub, and where it logs what it received."""

    log: Path
    tools: tuple[str, ...] = ("echo",)

    @property
    def command(self) -> str:
        return sys.executable

    @property
    def args(self) -> tuple[str, ...]:
        named = [arg for tool in self.tools for arg in ("--tool", tool)]
        return (str(STUB), *named, "--log", str(self.log))

    @property
    def argv(self) -> list[str]:
        return [self.command, *self.args]

    def with_tools(self, *tools: str, log: Path | None = None) -> McpStub:
        """The same stub listing ``tools`` instead (logging to ``log`` when given)."""
        return replace(self, tools=tools, log=log or self.log)

    def server(self, name: str, *tools: str) -> McpServer:
        """A registry server named ``name`` that runs the stub (with ``tools``, when given),
        logging to ``mcp-<name>.jsonl`` beside this stub's log."""
        stub = self.with_tools(*(tools or self.tools), log=self.log.with_name(f"mcp-{name}.jsonl"))
        return McpServer(name=name, transport=Transport.STDIO, command=stub.command, args=stub.args)

    def received(self) -> list[str]:
        """The JSON-RPC methods the stub was sent, in order (empty if never started)."""
        if not self.log.is_file():
            return []
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [str(json.loads(line).get("method")) for line in lines if line.strip()]


@pytest.fixture
def fake_model(tmp_path: Path) -> Iterator[FakeModel]:
    """A fake OpenAI-compatible (and Anthropic) model on a free loopback port; every request
    it receives is in ``.requests`` (and in ``tmp_path/fake-model.jsonl``)."""
    with FakeModel(log=tmp_path / "fake-model.jsonl") as model:
        yield model


@pytest.fixture
def mcp_stub(tmp_path: Path) -> McpStub:
    """The stdio MCP stub's launch command, with one tool named ``echo``."""
    return McpStub(log=tmp_path / "mcp-stub.jsonl")
