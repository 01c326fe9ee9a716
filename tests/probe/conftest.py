"""A vault whose registry names real third-party MCP servers installed by the test setup:
``mcp-server-time`` (PyPI, a dev dependency) and ``@modelcontextprotocol/server-everything``
(npm, scripts/harness-clis), plus a command that is not an MCP server at all."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest


def server_file(name: str, command: str, args: list[str], extra: str = "") -> str:
    return (
        f"---\nname: {name}\ntransport: stdio\ncommand: {json.dumps(command)}\n"
        f"args: {json.dumps(args)}\n{extra}---\n\n# {name}\n"
    )


def time_server() -> str:
    path = Path(sys.prefix) / "bin" / "mcp-server-time"
    if not path.exists():
        pytest.skip("mcp-server-time is not installed (uv sync installs it)")
    return str(path)


def everything_server() -> str:
    found = shutil.which("mcp-server-everything")
    if found is None:
        pytest.skip("@modelcontextprotocol/server-everything is not installed (make harness-clis)")
    return found


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A small vault whose registry holds only local servers, and one profile using them."""
    target = tmp_path / "vault"
    servers = target / "mcp-servers"
    servers.mkdir(parents=True)
    (servers / "time.md").write_text(
        server_file("time", time_server(), ["--local-timezone=UTC"]), encoding="utf-8"
    )
    (servers / "everything.md").write_text(
        server_file("everything", everything_server(), ["stdio"]), encoding="utf-8"
    )
    (servers / "silent.md").write_text(server_file("silent", "sleep", ["600"]), encoding="utf-8")
    (target / "agent-types" / "clock").mkdir(parents=True)
    write_clock(target, ["mcp__time__convert_time", "Read"])
    return target


def write_clock(vault: Path, allowed: list[str]) -> None:
    """agent-types/clock/profile.md allowing ``allowed`` and using the time server."""
    (vault / "agent-types" / "clock" / "profile.md").write_text(
        "---\nid: clock\nname: Clock\n---\n\n## Role\n\nTells the time.\n\n## Tools\n\n"
        f"```json\n{json.dumps({'allowed': allowed})}\n```\n\n"
        '## MCP Servers\n\n```json\n["time"]\n```\n',
        encoding="utf-8",
    )
