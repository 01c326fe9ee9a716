"""Every command of the registry is on every surface: the CLI, the MCP server and the HTTP
API (issue 14 item 8); and one error shape crosses all three."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import click
import httpx
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent_roster.cli import main
from agent_roster.cli.app import _register, cli
from agent_roster.commands.registry import NAMES, SPECS, all_commands


def _cli_command(words: list[str]) -> click.Command | None:
    node: click.Command | None = cli
    for word in words:
        if not isinstance(node, click.Group):
            return None
        node = node.commands.get(word)
    return node


def test_every_command_is_defined_once_with_typed_params_and_a_summary() -> None:
    commands = all_commands()
    assert [c.name for c in commands] == [s.name for s in SPECS]
    assert len(NAMES) == len(SPECS)
    for command in commands:
        assert command.summary, command.name
        schema = command.input_schema()
        assert schema["type"] == "object", command.name
        assert "$ref" not in json.dumps(schema), command.name


def test_every_command_is_on_the_cli() -> None:
    _register()
    missing = [s.cli for s in SPECS if _cli_command(s.cli.split()) is None]
    assert missing == []


def test_every_command_is_an_http_route_and_in_openapi(served: str) -> None:
    document = httpx.get(f"{served}/openapi.json").json()
    for spec in SPECS:
        operations = document["paths"][f"/api/{spec.name}"]
        assert "post" in operations
        assert ("get" in operations) is (not spec.writes), spec.name


def test_every_command_is_an_mcp_tool(served: str) -> None:
    async def tools() -> list[str]:
        async with (
            streamable_http_client(f"{served}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            return [t.name for t in listed.tools]

    assert sorted(anyio.run(tools)) == sorted(NAMES)


def test_one_error_shape_on_cli_http_and_mcp(served: str, vault: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["--vault", str(vault), "profile", "get", "codin", "--json"])
    cli_error = json.loads(capsys.readouterr().out)["error"]
    assert code == 2
    response = httpx.post(f"{served}/api/get_profile", json={"id": "codin"})
    assert response.status_code == 404
    http_error = response.json()["error"]

    async def call() -> dict[str, object]:
        async with (
            streamable_http_client(f"{served}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("get_profile", {"id": "codin"})
            assert result.is_error
            payload: dict[str, object] = result.structured_content["error"]
            return payload

    mcp_error = anyio.run(call)
    assert cli_error == http_error == mcp_error
    assert cli_error["code"] == "not-found"
    assert cli_error["hint"] == "did you mean 'coding'?"


def test_an_unknown_command_or_a_get_of_a_write_is_refused_in_the_one_shape(served: str) -> None:
    unknown = httpx.get(f"{served}/api/get_profil", params={"id": "coding"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not-found"
    assert unknown.json()["error"]["hint"] == "did you mean 'get_profile'?"
    write = httpx.get(f"{served}/api/delete_profile", params={"id": "coding"})
    assert write.status_code == 405
    assert write.json()["error"]["message"] == "delete_profile writes, so it takes POST"
    assert httpx.get(f"{served}/healthz").json() == {"status": "ok"}
