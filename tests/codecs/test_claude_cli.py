"""Acceptance against the real Claude Code CLI (issue 5): rendered files are what it loads.

The example vault plus a profile using servers of every transport (stdio with ``${VAR}``
env, http with headers, sse) is rendered into an empty workspace (project scope) and into
an empty home (user scope). Then, with that isolated HOME:

* ``claude mcp list`` must list every server without an "invalid MCP server config"
  warning, and ``claude mcp get NAME`` must print its scope, type and command/args or URL
  and headers exactly as rendered. Project servers from ``.mcp.json`` are not approved in a
  fresh HOME: the CLI still reads them and says "Pending approval", which is asserted too.
* ``claude -p --agent <unknown>`` answers "--agent '<unknown>' not found. Available agents:
  …" before it needs a login; that list must hold every rendered agent, which shows the
  agent files were parsed and accepted (no other offline listing exists in 2.1.197:
  ``claude agents`` manages background sessions).

As root the CLI wants IS_SANDBOX=1 (tests/resolve/test_claude_cli.py).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import Roots, Scope
from agent_roster.codecs.claude import codec as claude
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PromptSection

from .helpers import EXAMPLES, need_harness, render_and_discover, run_harness

EXTRA_SERVERS = {
    "remote-http": McpServer(
        name="remote-http",
        transport=Transport.HTTP,
        url="https://mcp.example.com/mcp",
        headers={"Authorization": "Bearer ${API_TOKEN}", "X-Team": "roster"},
    ),
    "remote-sse": McpServer(
        name="remote-sse", transport=Transport.SSE, url="https://sse.example.com/sse"
    ),
    "local-env": McpServer(
        name="local-env",
        transport=Transport.STDIO,
        command="node",
        args=("server.js", "--port", "${PORT:-8080}"),
        env={"API_KEY": "${API_KEY}", "MODE": "test"},
    ),
}
TRANSPORTS = AgentProfile(
    id="transports",
    name="transports",
    description="Uses one MCP server of each transport.",
    mcp_servers=tuple(EXTRA_SERVERS),
    sections=(PromptSection(heading="Role", body="You check MCP transports."),),
)
ENV = {"GITHUB_PERSONAL_ACCESS_TOKEN": "t", "API_TOKEN": "a", "API_KEY": "k"}
PROBE = "roster-probe-agent"


def _env() -> dict[str, str]:
    return {**ENV, **({"IS_SANDBOX": "1"} if os.geteuid() == 0 else {})}


@pytest.fixture(scope="module")
def binary() -> str:
    return need_harness("claude")


@pytest.fixture(scope="module", params=[Scope.PROJECT, Scope.USER])
def rendered(
    request: pytest.FixtureRequest, binary: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    scope: Scope = request.param
    example = load_effective(EXAMPLES)
    servers = {**example.servers, **EXTRA_SERVERS}
    profiles = [*example.profiles, TRANSPORTS]
    root = tmp_path_factory.mktemp(f"claude-cli-{scope.value}")
    rendering, discovery = render_and_discover(claude.CODEC, profiles, servers, scope, root)
    assert not [d for d in rendering.diagnostics if d.is_error]
    workspace, home = root / "workspace", root / "home"
    used = sorted({name for p in profiles for name in p.mcp_servers})
    runs = {
        name: run_harness([binary, "mcp", "get", name], cwd=workspace, home=home, env=_env())
        for name in used
    }
    runs["(list)"] = run_harness([binary, "mcp", "list"], cwd=workspace, home=home, env=_env())
    runs["(agents)"] = run_harness(
        [binary, "-p", "--agent", PROBE, "hello"], cwd=workspace, home=home, env=_env()
    )
    return {
        "scope": scope,
        "servers": {name: servers[name] for name in used},
        "profiles": profiles,
        "runs": runs,
        "discovered": discovery,
    }


def _expected_get(server: McpServer, scope: Scope) -> list[str]:
    where = (
        "Scope: Project config (shared via .mcp.json)"
        if scope is Scope.PROJECT
        else "Scope: User config (available in all your projects)"
    )
    lines = [f"{server.name}:", f"  {where}", f"  Type: {server.transport.value}"]
    if server.transport is Transport.STDIO:
        lines.append(f"  Command: {server.command}")
        if server.args:
            lines.append(f"  Args: {' '.join(server.args)}")
        if server.env:
            lines.append("  Environment:")
            lines += [f"    {key}={value}" for key, value in server.env.items()]
    else:
        lines.append(f"  URL: {server.url}")
        if server.headers:
            lines.append("  Headers:")
            lines += [f"    {key}: {value}" for key, value in server.headers.items()]
    return lines


def test_every_transport_is_read_back_by_mcp_get(rendered: dict[str, Any]) -> None:
    scope: Scope = rendered["scope"]
    assert {s.transport for s in rendered["servers"].values()} == set(Transport)
    for name, server in rendered["servers"].items():
        run = rendered["runs"][name]
        assert run.returncode == 0, run.stdout + run.stderr
        # The Status line depends on approval and the network: everything else is exact.
        lines = [line for line in run.stdout.splitlines() if not line.startswith("  Status:")]
        expected = _expected_get(server, scope)
        assert lines[: len(expected)] == expected, run.stdout
        remove = f"To remove this server, run: claude mcp remove {name} -s {scope.value}"
        assert remove in run.stdout


def test_project_servers_await_approval(rendered: dict[str, Any]) -> None:
    """The honest outcome for .mcp.json in a fresh HOME: read, listed, not yet approved."""
    for name in rendered["servers"]:
        status = [line for line in rendered["runs"][name].stdout.splitlines() if "Status:" in line]
        assert len(status) == 1
        if rendered["scope"] is Scope.PROJECT:
            assert "Pending approval" in status[0]
        else:
            assert "Pending approval" not in status[0]


def test_mcp_list_accepts_the_rendered_file(rendered: dict[str, Any]) -> None:
    run = rendered["runs"]["(list)"]
    assert run.returncode == 0, run.stderr
    assert "[Warning]" not in run.stdout + run.stderr
    assert "invalid" not in (run.stdout + run.stderr).lower()
    for name, server in rendered["servers"].items():
        shown = " ".join([server.command, *server.args]) if server.command else server.url
        assert re.search(rf"^{re.escape(name)}: {re.escape(shown)}", run.stdout, re.M), name


def test_claude_loads_every_rendered_agent(rendered: dict[str, Any]) -> None:
    run = rendered["runs"]["(agents)"]
    match = re.search(rf"--agent '{PROBE}' not found\. Available agents: (.*)", run.stderr)
    assert match, run.stdout + run.stderr
    available = {name.strip() for name in match.group(1).split(",")}
    assert {p.id for p in rendered["profiles"]} <= available
    assert {p.id for p in rendered["discovered"].profiles} == {p.id for p in rendered["profiles"]}


def test_the_checks_can_fail(binary: str, tmp_path: Path) -> None:
    """A file Claude Code refuses is noticed by the same commands."""
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    (workspace / ".claude" / "agents").mkdir(parents=True)
    home.mkdir()
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"type": "stdio"}}}))
    (workspace / ".claude" / "agents" / "nodesc.md").write_text("---\nname: nodesc\n---\nhi\n")
    listed = run_harness([binary, "mcp", "list"], cwd=workspace, home=home, env=_env())
    assert "invalid MCP server config" in listed.stdout + listed.stderr
    missing = run_harness([binary, "mcp", "get", "nosuch"], cwd=workspace, home=home, env=_env())
    assert missing.returncode != 0
    probe = run_harness(
        [binary, "-p", "--agent", PROBE, "hello"], cwd=workspace, home=home, env=_env()
    )
    assert "Available agents:" in probe.stderr and "nodesc" not in probe.stderr
    # And roster's discover agrees: the file is refused in Claude Code's words.
    discovery = claude.CODEC.discover(Roots(workspace=workspace, home=home))
    assert discovery.refused
    assert any("missing required 'description'" in d.message for d in discovery.diagnostics)
