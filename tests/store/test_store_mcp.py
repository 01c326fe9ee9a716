"""The synced copy of the MCP server registry."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from agent_roster.errors import UnsafeNameError
from agent_roster.model import McpServer, Transport
from agent_roster.store import McpServerState, Store, SyncedMcpServer

STDIO = McpServer(
    name="github",
    transport=Transport.STDIO,
    command="npx",
    args=("-y", "@modelcontextprotocol/server-github", "--flag=ü"),
    env={"GITHUB_TOKEN": "${GITHUB_TOKEN}", "EMPTY": ""},
    description="GitHub — issues and PRs",
    notes="Multi\nline notes.",
    source="mcp-servers/github.md",
)
HTTP = McpServer(
    name="github",
    transport=Transport.HTTP,
    url="https://example.com/mcp?x=1&y=ü",
    headers={"Authorization": "Bearer ${TOKEN}"},
    project="webshop",
    source="projects/webshop/mcp-servers/github.md",
)
BUILTIN = McpServer(name="agent-roster", transport=Transport.SSE, url="http://x", builtin=True)


def test_entries_round_trip_in_both_scopes(store: Store) -> None:
    assert store.upsert_mcp_servers([STDIO, SyncedMcpServer(HTTP, "h"), BUILTIN]) == 3

    assert store.get_mcp_server("github") == STDIO
    assert store.get_mcp_server("github", "webshop") == HTTP
    assert store.get_mcp_server("agent-roster") == BUILTIN
    assert store.get_mcp_server("linter") is None
    assert store.list_mcp_servers() == [BUILTIN, STDIO]
    assert store.list_mcp_servers("webshop") == [HTTP]


def test_upsert_replaces_and_keeps_created_at(store: Store) -> None:
    store.upsert_mcp_servers([SyncedMcpServer(STDIO, "h1")], synced_at=1.0)
    with store.transaction() as conn:
        created = conn.execute(text("SELECT created_at FROM mcp_servers")).scalar_one()

    changed = McpServer(
        name="github", transport=Transport.STDIO, command="uvx", source=STDIO.source
    )
    store.upsert_mcp_servers([SyncedMcpServer(changed, "h2")], synced_at=2.0)

    assert store.get_mcp_server("github") == changed
    with store.transaction() as conn:
        assert conn.execute(text("SELECT created_at FROM mcp_servers")).scalar_one() == created
    assert store.mcp_server_states() == [
        McpServerState("github", None, "mcp-servers/github.md", "h2", True, 2.0)
    ]


def test_missing_entries_stop_resolving_and_can_be_pruned(store: Store) -> None:
    store.upsert_mcp_servers([STDIO, HTTP])

    assert store.set_mcp_servers_present([("github", "webshop")], False) == 1

    assert store.get_mcp_server("github", "webshop") is None
    assert store.get_mcp_server("github", "webshop", include_missing=True) == HTTP
    assert store.list_mcp_servers("webshop") == []
    assert store.list_mcp_servers("webshop", include_missing=True) == [HTTP]
    assert store.get_mcp_server("github") == STDIO

    assert store.set_mcp_servers_present([("github", "webshop")], True) == 1
    assert store.get_mcp_server("github", "webshop") == HTTP

    store.set_mcp_servers_present([("github", "webshop")], False)
    assert store.prune_missing_mcp_servers() == [("github", "webshop")]
    assert [(s.name, s.project) for s in store.mcp_server_states()] == [("github", None)]


def test_delete_one_entry(store: Store) -> None:
    store.upsert_mcp_servers([STDIO, HTTP])

    assert store.delete_mcp_server("github") is True
    assert store.delete_mcp_server("github") is False
    assert store.get_mcp_server("github") is None
    assert store.get_mcp_server("github", "webshop") == HTTP


def test_unsafe_names_are_rejected(store: Store) -> None:
    with pytest.raises(UnsafeNameError):
        store.upsert_mcp_servers([McpServer(name="a/b", transport=Transport.STDIO)])
    assert store.mcp_server_states() == []
