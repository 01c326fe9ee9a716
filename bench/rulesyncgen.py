"""The same agents as a rulesync 17 project, so ``bench/render.py`` can time both side by side.

rulesync (npm ``rulesync``) keeps its sources in ``.rulesync/`` and generates every tool's
native files with ``rulesync generate`` (format: ``rulesync docs reference/file-formats``):

* ``rulesync.jsonc`` — ``targets`` (``claudecode``, ``opencode``) and ``features``;
* ``.rulesync/subagents/<name>.md`` — one agent: frontmatter ``name``, ``targets``,
  ``description`` and a block per tool (``claudecode:`` ``model``, ``tools``,
  ``disallowedTools``, ``permissionMode``, ``maxTurns``, ``mcpServers``; ``opencode:``
  ``mode``, ``model``, ``steps``, ``permission``), and the prompt as the body. It writes
  ``.claude/agents/<name>.md`` and ``.opencode/agents/<name>.md``;
* ``.rulesync/mcp.jsonc`` — the MCP servers, written to ``.mcp.json`` and ``opencode.json``.

Each agent is a profile exactly as ``roster render`` sees it (``load_effective``: extends
merged, no roster.toml defaults), so both tools get the same names, descriptions, prompts,
models, tools and servers. Nothing here is timed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile

#: rulesync's names of the two harnesses the benchmark renders.
TARGETS = ("claudecode", "opencode")

# Claude Code's permissionMode values; ours add "full" (its bypassPermissions) and "auto".
_CLAUDE_MODES = {"default", "acceptEdits", "plan", "bypassPermissions", "auto", "dontAsk"}


def _claude_mode(mode: str) -> str | None:
    if mode == "full":
        return "bypassPermissions"
    return mode if mode in _CLAUDE_MODES else None


def _opencode_permission(profile: AgentProfile) -> dict[str, str]:
    from agent_roster.codecs.tool_names import opencode_key

    rules = {opencode_key(t): "allow" for t in profile.allowed_tools}
    rules.update((opencode_key(t), "deny") for t in profile.denied_tools)
    return rules


def subagent_text(profile: AgentProfile, targets: Iterable[str] = TARGETS) -> str:
    """One ``.rulesync/subagents/<id>.md`` for ``targets`` (``["*"]``: every tool). Values
    are JSON, which YAML reads as is."""
    claude: dict[str, Any] = {}
    if profile.model:
        claude["model"] = profile.model
    if profile.allowed_tools:
        claude["tools"] = list(profile.allowed_tools)
    if profile.denied_tools:
        claude["disallowedTools"] = list(profile.denied_tools)
    mode = _claude_mode(profile.permission_mode)
    if mode:
        claude["permissionMode"] = mode
    if profile.max_turns:
        claude["maxTurns"] = profile.max_turns
    if profile.mcp_servers:
        claude["mcpServers"] = list(profile.mcp_servers)
    opencode: dict[str, Any] = {"mode": "subagent"}
    if profile.model:
        model = profile.model
        opencode["model"] = model if "/" in model else f"{profile.provider or 'anthropic'}/{model}"
    if profile.max_turns:
        opencode["steps"] = profile.max_turns
    permission = _opencode_permission(profile)
    if permission:
        opencode["permission"] = permission
    lines = [
        "---",
        f"name: {json.dumps(profile.id)}",
        f"targets: {json.dumps(list(targets))}",
        f"description: {json.dumps(profile.description)}",
        "claudecode:",
        *(f"  {k}: {json.dumps(v)}" for k, v in claude.items()),
        "opencode:",
        *(f"  {k}: {json.dumps(v)}" for k, v in opencode.items()),
        "---",
        "",
        profile.prompt,
        "",
    ]
    return "\n".join(lines)


def server_entry(server: McpServer) -> dict[str, Any]:
    """A registry server in rulesync's ``mcpServers`` shape."""
    if server.transport is Transport.STDIO:
        return {
            "type": "stdio",
            "command": server.command,
            "args": list(server.args),
            "env": dict(server.env),
        }
    entry: dict[str, Any] = {"type": server.transport.value, "url": server.url}
    if server.headers:
        entry["headers"] = dict(server.headers)
    return entry


def write_project(
    dest: str | os.PathLike[str],
    profiles: Iterable[AgentProfile],
    servers: Mapping[str, McpServer],
    targets: Iterable[str] = TARGETS,
) -> int:
    """Write a rulesync project for ``profiles`` into ``dest`` (its config and every agent
    for ``targets``); returns the agent count."""
    root = Path(dest)
    agents = root / ".rulesync" / "subagents"
    agents.mkdir(parents=True, exist_ok=True)
    targets = list(targets)
    config = {
        "targets": targets,
        "features": ["subagents", "mcp"],
        "outputRoots": ["."],
        "delete": False,
        "silent": True,
    }
    (root / "rulesync.jsonc").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    mcp = {"mcpServers": {name: server_entry(s) for name, s in sorted(servers.items())}}
    (root / ".rulesync" / "mcp.jsonc").write_text(
        json.dumps(mcp, indent=2) + "\n", encoding="utf-8"
    )
    count = 0
    for profile in profiles:
        (agents / f"{profile.id}.md").write_text(subagent_text(profile, targets), encoding="utf-8")
        count += 1
    return count
