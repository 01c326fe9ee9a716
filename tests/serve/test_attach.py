"""Launches attach the running daemon's embedded MCP server with a per-launch token, and the
daemon shows that agent only the commands its profile's Tools allow (issue 14 item 3).

Everything runs against ``roster up`` as a subprocess and through the official MCP SDK
client over streamable HTTP, with the headers the launch spec's MCP config names.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent_roster.cli import main
from agent_roster.commands.registry import NAMES
from agent_roster.commands.resolve import build_index, resolve_launch
from agent_roster.commands.resolve import running_daemon as find
from agent_roster.errors import UsageError
from agent_roster.resolve.attach import LOCK_FILE, Running, running
from agent_roster.resolve.launch import TOKEN_ENV
from agent_roster.serve.lock import VaultLock, state_dir
from agent_roster.store import Store, sqlite_url

from ..resolve.helpers import profile_md
from .conftest import Daemon

#: Every tool an agent sees costs it context on every turn (issue 14 item 3): the whole
#: tools/list an example profile's agent gets stays under this many bytes.
TOOLS_LIST_BUDGET = 4096


async def _session_call(url: str, headers: dict[str, str], work: Any) -> Any:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as client,
        streamable_http_client(url, http_client=client) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await work(session)


def list_tools(url: str, headers: dict[str, str]) -> tuple[list[str], int]:
    """The tool names an MCP client with ``headers`` sees, and the byte size of the
    tools/list result (compact JSON, as it crosses the wire)."""

    async def work(session: ClientSession) -> tuple[list[str], int]:
        listed = await session.list_tools()
        size = len(listed.model_dump_json(by_alias=True, exclude_none=True).encode())
        return sorted(t.name for t in listed.tools), size

    result: tuple[list[str], int] = anyio.run(_session_call, url, headers, work)
    return result


def call_tool(url: str, headers: dict[str, str], name: str, arguments: dict[str, Any]) -> Any:
    async def work(session: ClientSession) -> Any:
        return await session.call_tool(name, arguments)

    return anyio.run(_session_call, url, headers, work)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def allowed_commands(profile: Any) -> list[str]:
    """The registry commands a profile allows by bare name and does not deny (the example
    profiles list them one by one, no wildcards)."""
    return sorted((set(profile.allowed_tools) - set(profile.denied_tools)) & NAMES)


@pytest.fixture
def index_of(vault: Path) -> Iterator[Any]:
    """Build an index the way ``roster resolve`` does (sync into the vault's database)."""

    def build() -> Any:
        with Store.open(sqlite_url(state_dir(vault) / "roster.db")) as store:
            return build_index(store, vault)

    yield build


# -- finding the daemon ---------------------------------------------------------------------
def test_the_lock_file_is_believed_only_while_it_is_held(tmp_path: Path) -> None:
    folder = tmp_path / ".roster"
    assert running(folder) is None  # no file at all
    lock = VaultLock(folder)
    me = Running(pid=4242, url="http://127.0.0.1:1234", vault="/v")
    lock.acquire(me)
    try:
        assert running(folder) == me
        with pytest.raises(UsageError) as refused:
            VaultLock(folder).acquire(me)
        assert "already running for this vault (pid 4242) at http://127.0.0.1:1234" in str(
            refused.value
        )
    finally:
        lock.release()
    assert running(folder) is None
    # A crashed daemon leaves its address behind, but not its lock.
    (folder / LOCK_FILE).write_text(json.dumps({"pid": 1, "url": "http://x:1", "vault": "/v"}))
    assert running(folder) is None


def test_without_a_daemon_the_spec_says_the_server_is_not_attached(vault: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert find(vault) is None
    assert main(["--vault", str(vault), "resolve", "--profile", "coding", "--json"]) == 0
    launch = json.loads(capsys.readouterr().out)["launch"]
    assert TOKEN_ENV not in launch["env"]
    (config,) = launch["files"].values()
    assert "agent-queue" not in config["mcpServers"]
    assert any(
        "'agent-queue' are allowed but the server is not attached (roster up is not running" in note
        for note in launch["notes"]
    )


# -- attached -------------------------------------------------------------------------------
def test_a_launch_spec_attaches_the_running_daemon_with_its_own_token(
    daemon: Daemon, vault: Path, index_of: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    found = find(vault)
    assert found is not None and found.mcp_url == f"{daemon.url}/mcp"
    # The CLI: attached, the token shown masked, the header as the reference it is.
    assert main(["--vault", str(vault), "resolve", "--profile", "coding", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["launch"]
    assert shown["env"][TOKEN_ENV] == "***"
    (config,) = shown["files"].values()
    assert config["mcpServers"]["agent-queue"] == {
        "type": "http",
        "url": f"{daemon.url}/mcp",
        "headers": {"Authorization": "Bearer ${" + TOKEN_ENV + "}"},
    }
    assert any("attached at" in note for note in shown["notes"])
    # The spec itself: the config names the variable, the environment carries the token.
    spec = resolve_launch(index_of(), vault, profile="coding", daemon=found).launch
    (text,) = spec.files.values()
    entry = json.loads(text)["mcpServers"]["agent-queue"]
    assert entry["headers"] == {"Authorization": "Bearer ${" + TOKEN_ENV + "}"}
    headers = {
        k: re.sub(r"\$\{(\w+)\}", lambda m: spec.env[m.group(1)], v)
        for k, v in entry["headers"].items()
    }
    names, _ = list_tools(entry["url"], headers)
    index = index_of()
    assert names == allowed_commands(index.effective("coding").profile)
    # Another launch of the same profile: the same config file, its own token.
    again = resolve_launch(index, vault, profile="coding", daemon=found).launch
    assert again.files == spec.files
    time.sleep(1.1)  # tokens carry their expiry in seconds
    assert (
        resolve_launch(index, vault, profile="coding", daemon=found).launch.env[TOKEN_ENV]
        != (spec.env[TOKEN_ENV])
    )


def test_each_example_profile_sees_only_what_its_tools_allow(
    daemon: Daemon, vault: Path, index_of: Any
) -> None:
    found = find(vault)
    assert found is not None
    index = index_of()
    sizes: dict[str, int] = {}
    everything, full = list_tools(found.mcp_url, {})
    assert everything == sorted(NAMES)  # the local user (no token) sees every command
    sizes["(no token: the local user)"] = full
    cases = [(ident, None) for ident in sorted(index.system)] + [("coding", "webshop")]
    for ident, project in cases:
        resolution = resolve_launch(index, vault, profile=ident, project=project).resolution
        names, size = list_tools(found.mcp_url, bearer(found.token(resolution)))
        assert names == allowed_commands(resolution.profile), ident
        assert size <= TOOLS_LIST_BUDGET, (ident, size)
        sizes[f"{project}/{ident}" if project else ident] = size
    print("tools/list bytes:", json.dumps(sizes))


def test_a_command_the_profile_does_not_allow_is_refused_even_with_bypass_permissions(
    daemon: Daemon, vault: Path, index_of: Any
) -> None:
    profile = vault / "agent-types" / "bypass" / "profile.md"
    profile.parent.mkdir()
    profile.write_text(
        profile_md(
            "bypass",
            name="Bypass",
            config={"permission_mode": "bypassPermissions", "runtime": "claude_sdk"},
            tools={"allowed": ["Read", "list_profiles"], "denied": ["delete_profile"]},
        )
    )
    # get_profile reads the file itself; list_profiles reads the index the gate decides by.
    deadline = time.monotonic() + 30
    while "bypass" not in {
        p["id"] for p in httpx.get(f"{daemon.url}/api/list_profiles").json()["profiles"]
    }:
        assert time.monotonic() < deadline, "the daemon never synced the new profile"
        time.sleep(0.05)
    found = find(vault)
    assert found is not None
    spec = resolve_launch(index_of(), vault, profile="bypass", daemon=found).launch
    assert "--permission-mode=bypassPermissions" in spec.argv
    headers = bearer(spec.env[TOKEN_ENV])
    assert list_tools(found.mcp_url, headers)[0] == ["list_profiles"]
    allowed = call_tool(found.mcp_url, headers, "list_profiles", {})
    assert not allowed.is_error
    denied = call_tool(found.mcp_url, headers, "delete_profile", {"id": "coding", "base_hash": "x"})
    assert denied.is_error
    error = denied.structured_content["error"]
    assert error["code"] == "forbidden"
    assert error["message"] == (
        "this agent may not call delete_profile: rule 3 of profile 'bypass' "
        "(denied_tools: agent-queue_delete_profile * deny) gives deny"
    )
    unlisted = call_tool(found.mcp_url, headers, "get_profile", {"id": "coding"})
    assert unlisted.is_error
    assert unlisted.structured_content["error"]["message"] == (
        "this agent may not call get_profile: the allowed_tools of profile 'bypass' do not "
        "list get_profile (rule 0: * * deny)"
    )
    assert (vault / "agent-types" / "coding" / "profile.md").is_file()


def test_a_forged_or_foreign_token_is_refused(daemon: Daemon, vault: Path, index_of: Any) -> None:
    found = find(vault)
    assert found is not None
    resolution = resolve_launch(index_of(), vault, profile="coding").resolution
    token = found.token(resolution)
    payload, _, signature = token.partition(".")
    forged = payload.replace(payload[:4], "eyJx") + "." + signature
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"accept": "application/json, text/event-stream"}
    for bad in (forged, token + "x", "not-a-token"):
        response = httpx.post(found.mcp_url, json=body, headers={**accept, **bearer(bad)})
        assert response.status_code == 401, bad
        assert response.json()["error"]["code"] == "forbidden"
