"""The MCP server registry at resolution (project first, the embedded server built in) and
tool naming per runtime (seed 001 "Tool Naming", lessons section 5.6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_roster.catalog import NAMES as EMBEDDED_COMMANDS
from agent_roster.known_tools import CLAUDE_BUILTIN_TOOLS
from agent_roster.model.mcp import Transport
from agent_roster.resolve import tools
from agent_roster.resolve.cascade import resolve
from agent_roster.resolve.launch import build_cached

from .helpers import index_of, option_index, override, profile_md, server_md, system

DB_SYS = server_md("db", transport="stdio", command="pg-mcp", args=["--system"])
DB_PROJ = server_md("db", transport="http", url="https://db.internal/mcp")
EMBEDDED_FILE = server_md("agent-queue", transport="stdio", command="impostor")


def registry(make_tree: Any, toml: str = "") -> Any:
    tree = {
        "mcp-servers/db.md": DB_SYS,
        "mcp-servers/agent-queue.md": EMBEDDED_FILE,
        "mcp-servers/docs.md": server_md("docs", transport="sse", url="https://docs/sse"),
        "projects/p/mcp-servers/db.md": DB_PROJ,
        "projects/p/mcp-servers/local.md": server_md("local", transport="stdio", command="x"),
        system("a"): profile_md("a", mcp=["db", "docs", "agent-queue", "local", "nope"]),
        override("p", "a"): profile_md("a", config={"model": "m"}),
        "roster.toml": toml,
    }
    root: Path = make_tree(tree)
    return index_of(root)


def test_project_scope_shadows_system_by_name(make_tree: Any) -> None:
    index = registry(make_tree)
    in_p = resolve(index, profile="a", project="p")
    by_name = {s.name: s for s in in_p.servers}
    assert [s.name for s in in_p.servers] == ["db", "docs", "agent-queue", "local"]
    assert (by_name["db"].transport, by_name["db"].project) == (Transport.HTTP, "p")
    assert by_name["docs"].project is None  # not shadowed: the system entry
    elsewhere = resolve(index, profile="a", project="q")
    assert [s.name for s in elsewhere.servers] == ["db", "docs", "agent-queue"]
    assert elsewhere.servers[0].command == "pg-mcp"
    assert index.server("local", None) is None and index.server("local", "p") is not None


def test_unknown_names_warn_and_are_left_out(make_tree: Any) -> None:
    index = registry(make_tree)
    assert resolve(index, profile="a", project="p").warnings == (
        "MCP server 'nope' is not in the registry of project 'p' or the system; it is left out",
    )
    assert resolve(index, profile="a").warnings == (
        "MCP server 'local' is not in the registry; it is left out",
        "MCP server 'nope' is not in the registry; it is left out",
    )


def test_the_embedded_server_is_built_in_and_cannot_be_replaced(make_tree: Any) -> None:
    index = registry(make_tree, '[embedded_server]\nurl = "http://127.0.0.1:8765/mcp"\n')
    embedded = index.server("agent-queue", "p")
    assert embedded is not None and embedded.builtin
    assert (embedded.transport, embedded.url) == (Transport.HTTP, "http://127.0.0.1:8765/mcp")
    # The file of the same name is in the registry but never wins, in any scope.
    assert ("agent-queue" in {name for _, name in index.servers}) is True
    assert index.server("agent-queue", None) == embedded
    spec = build_cached(index, resolve(index, profile="a"), Path("/state"))
    config = next(iter(spec.files.values()))
    assert '"impostor"' not in config and '"http://127.0.0.1:8765/mcp"' in config


def test_the_embedded_name_comes_from_roster_toml(make_tree: Any) -> None:
    index = registry(make_tree, '[embedded_server]\nname = "roster"\n')
    impostor = index.server("agent-queue", None)
    assert impostor is not None and not impostor.builtin and impostor.command == "impostor"
    built_in = index.server("roster", "p")
    assert built_in is not None and built_in.builtin


# -- tool naming ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("get_task", "mcp__agent-queue__get_task"),  # an embedded command
        # Not a command of the embedded server: kept as written (issue 12 item 4).
        ("my_plugin_tool", "my_plugin_tool"),
        ("TeamCreate", "TeamCreate"),
        ("code-reviewer", "code-reviewer"),
        ("Read", "Read"),
        ("WebFetch", "WebFetch"),
        ("Bash", "Bash"),
        ("Bash(git log:*)", "Bash(git log:*)"),
        ("Edit(src/**)", "Edit(src/**)"),
        ("mcp__github__create_issue", "mcp__github__create_issue"),
        ("mcp__github__*", "mcp__github__*"),
        ("mcp__agent-queue__get_task", "mcp__agent-queue__get_task"),
    ],
)
def test_claude_names(name: str, expected: str) -> None:
    assert tools.for_claude([name], "agent-queue") == [expected]


def test_claude_names_use_the_configured_embedded_name_and_drop_duplicates() -> None:
    names = ["get_task", "Read", "get_task", "create_task", "Read"]
    assert tools.for_claude(names, "roster") == [
        "mcp__roster__get_task",
        "Read",
        "mcp__roster__create_task",
    ]
    assert all(tools.for_claude([b], "roster") == [b] for b in CLAUDE_BUILTIN_TOOLS)


def test_attaching_a_server_grants_none_of_its_tools(make_tree: Any) -> None:
    root = make_tree(
        {
            "mcp-servers/github.md": server_md("github", transport="stdio", command="gh-mcp"),
            system("a"): profile_md(
                "a",
                tools={"allowed": ["Read", "mcp__github__get_issue", "get_task"]},
                mcp=["github"],
            ),
            "roster.toml": '[embedded_server]\nurl = "http://127.0.0.1:8765/mcp"\n',
        }
    )
    index = index_of(root)
    spec = build_cached(index, resolve(index, profile="a"), Path("/state"))
    argv = list(spec.argv)
    allowed = argv[argv.index("--allowed-tools") + 1 : option_index(argv, "--mcp-config")]
    assert allowed == ["Read", "mcp__github__get_issue", "mcp__agent-queue__get_task"]
    assert not any(a.endswith("__*") for a in argv)
    assert '"github"' in next(iter(spec.files.values()))  # attached, yet only one tool allowed


def test_the_supervisor_surface_is_the_allowed_embedded_commands(example: Path) -> None:
    index = index_of(example)
    resolution = resolve(index, profile="supervisor")
    spec = build_cached(index, resolution, Path("/state"))
    assert spec.runtime == "supervisor"
    assert spec.tools == (
        "create_task",
        "get_task",
        "edit_task",
        "list_profiles",
        "get_profile",
        "list_project_profiles",
        "show_effective_profile",
        "list_mcp_servers",
    )
    assert set(spec.tools) <= set(EMBEDDED_COMMANDS)
    assert spec.notes == tuple(
        f"tool {name!r} is not an embedded command; the supervisor cannot call it"
        for name in (
            "mcp__github__get_issue",
            "mcp__github__list_issues",
            "mcp__github__add_issue_comment",
        )
    )


def test_a_denied_command_leaves_the_supervisor_surface() -> None:
    allowed = ["create_task", "delete_profile", "Read"]
    assert tools.for_supervisor(allowed) == ["create_task", "delete_profile"]
    assert tools.for_supervisor(allowed, ["delete_profile"]) == ["create_task"]
