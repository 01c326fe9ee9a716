"""The embedded MCP server over stdio (issue 14 item 8): the SDK's own client starts the
real ``roster --vault V mcp serve``, as an agent that runs it itself would, lists its
tools, calls a read command and gets an error in the one shape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from agent_roster.commands.registry import NAMES

ROSTER = str(Path(sys.executable).with_name("roster"))


def test_the_stdio_server_lists_calls_and_errs_in_the_one_shape(
    vault: Path, tmp_path: Path
) -> None:
    params = StdioServerParameters(command=ROSTER, args=["--vault", str(vault), "mcp", "serve"])
    errors = tmp_path / "stderr.txt"

    async def session_run() -> tuple[Any, ...]:
        with errors.open("w") as errlog, anyio.fail_after(60):
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                started = await session.initialize()
                listed = await session.list_tools()
                found = await session.call_tool("get_profile", {"id": "coding"})
                missing = await session.call_tool("get_profile", {"id": "codin"})
                return started, listed, found, missing

    started, listed, found, missing = anyio.run(session_run)
    assert started.server_info.name == "agent-queue"  # roster.toml [embedded_server] name
    assert sorted(tool.name for tool in listed.tools) == sorted(NAMES)
    get_profile = next(tool for tool in listed.tools if tool.name == "get_profile")
    assert "id" in get_profile.input_schema["properties"]

    assert not found.is_error, found
    # The same answer as the CLI's.
    cli = subprocess.run(
        [ROSTER, "--vault", str(vault), "profile", "get", "coding", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert found.structured_content == json.loads(cli.stdout)
    assert found.structured_content["profile"]["name"] == "Coding Agent"

    assert missing.is_error
    assert missing.structured_content == {
        "error": {
            "code": "not-found",
            "message": f"no profile 'codin' in vault {vault}",
            "hint": "did you mean 'coding'?",
            "diagnostics": [],
        }
    }
    assert "Traceback" not in errors.read_text()
