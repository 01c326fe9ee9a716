"""A call of every read-only registry command on a copy of the example vault, with the same
call as CLI words: the tests that run each command on every surface and check that reading
writes nothing take them from here (a test fails when a read-only command has none)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_roster.commands import projects
from agent_roster.commands.context import RosterContext

CLAUDE_AGENT = "---\nname: helper\ndescription: Helps.\ntools: Read, Grep\n---\nHelp out.\n"


def prepare(vault: Path, harness_home: Path) -> None:
    """What the samples refer to: a project with a task, a database synced with the vault,
    and a Claude Code agent in ``harness_home`` (the workspace and home discover reads)."""
    with RosterContext(vault) as ctx:
        projects.create_project(
            ctx, projects.CreateProjectParams(id="webshop", default_profile_id="coding")
        )
        projects.create_task(
            ctx, projects.CreateTaskParams(id="t1", project_id="webshop", title="Fix the cart")
        )
    agents = harness_home / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(CLAUDE_AGENT)


def samples(harness_home: Path) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """Command name → (parameters, the same call as CLI words after ``--vault``, asking
    for JSON)."""
    home = str(harness_home)
    return {
        "list_profiles": ({}, ["profile", "list", "--json"]),
        "get_profile": ({"id": "coding"}, ["profile", "get", "coding", "--json"]),
        "list_project_profiles": (
            {"project": "webshop"},
            ["project-profile", "list", "webshop", "--json"],
        ),
        "show_effective_profile": (
            {"project": "webshop", "agent_type": "coding"},
            ["project-profile", "show", "webshop", "coding", "--json"],
        ),
        "list_available_tools": ({}, ["tools", "--json"]),
        "check_profile": ({"id": "code-review"}, ["check", "code-review", "--json"]),
        "export_profile": ({"id": "code-review"}, ["export", "code-review", "--json"]),
        "source_list": ({}, ["source", "list", "--json"]),
        "validate_vault": ({}, ["validate", "--format", "json"]),
        "list_mcp_servers": ({}, ["mcp", "list", "--json"]),
        "get_mcp_server": ({"name": "github"}, ["mcp", "show", "github", "--json"]),
        "list_projects": ({}, ["project", "list", "--json"]),
        "get_task": ({"id": "t1"}, ["task", "show", "t1", "--json"]),
        "get_status": ({}, ["status", "--json"]),
        "resolve_profile": ({"task": "t1"}, ["resolve", "--task", "t1", "--json"]),
        "can_use_tool": (
            {"profile": "coding", "tool": "Bash", "argument": "git status"},
            ["can", "coding", "Bash", "git status", "--json"],
        ),
        "discover_agents": (
            {"harness": "claude", "workspace": home, "home": home},
            ["discover", "--harness", "claude", "--workspace", home, "--home", home, "--json"],
        ),
    }
