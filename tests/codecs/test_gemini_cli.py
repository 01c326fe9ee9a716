"""Acceptance with the real Gemini CLI (0.61.0): rendered files are what Gemini loads.

Offline by construction: an isolated HOME with usage statistics off, ``gemini mcp list``
in an untrusted folder (Gemini lists the servers as Disabled and connects to none), and in
a trusted folder only servers on this machine (a missing script, a closed local port).
Agent files are checked by starting a headless session with a dummy API key, every HTTP
request sent to a closed local proxy port, and no MCP server allowed; the ``--debug`` log
reports each agent file that fails and how many agents were registered, and the process is
stopped as soon as that line appears (before any model call could matter).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.gemini.codec import CODEC
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PromptSection

from .helpers import EXAMPLES, need_harness, run_harness, write_rendering

LOCAL = {
    "local-tool": McpServer(
        name="local-tool",
        transport=Transport.STDIO,
        command="node",
        args=("missing-server.js", "--port", "7"),
        env={"MODE": "ci", "API_TOKEN": "${API_TOKEN}"},
    ),
    "remote-docs": McpServer(
        name="remote-docs",
        transport=Transport.HTTP,
        url="http://127.0.0.1:9/mcp",
        headers={"Authorization": "Bearer ${DOCS_TOKEN}"},
    ),
    "events": McpServer(name="events", transport=Transport.SSE, url="http://127.0.0.1:9/sse"),
}
QUIET = json.dumps({"privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False}})


def _probe(ident: str, servers: tuple[str, ...]) -> AgentProfile:
    return AgentProfile(
        id=ident,
        name=ident,
        description=f"Probe agent {ident} for the acceptance test.",
        temperature=0.2,
        max_turns=5,
        mcp_servers=servers,
        sections=(PromptSection(heading="Role", body="You answer questions."),),
    )


PROBES = (
    _probe("transport-probe", ("local-tool", "remote-docs")),
    _probe("sse-probe", ("events",)),
)


def _render(
    profiles: tuple[AgentProfile, ...], servers: dict[str, McpServer], target: Path, scope: Scope
) -> Any:
    def existing(rel: str) -> str | None:
        path = target / rel
        return path.read_text(encoding="utf-8") if path.is_file() else None

    rendering = CODEC.render(
        RenderRequest(profiles=profiles, servers=servers, scope=scope), existing
    )
    assert not [d for d in rendering.diagnostics if d.is_error]
    write_rendering(rendering, target)
    return rendering


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(QUIET, encoding="utf-8")
    workspace.mkdir()
    return workspace, home


def _line(server: McpServer, status: str) -> str:
    if server.transport is Transport.STDIO:
        where = " ".join((server.command, *server.args))
    else:
        where = server.url
    return f"{server.name}: {where} ({server.transport.value}) - {status}"


def _mcp_list(workspace: Path, home: Path) -> list[str]:
    result = run_harness(
        [need_harness("gemini"), "mcp", "list"], cwd=workspace, home=home, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return (result.stdout + result.stderr).splitlines()


def test_user_scope_servers_are_listed_and_disabled_when_untrusted(tmp_path: Path) -> None:
    workspace, home = _setup(tmp_path)
    examples = load_effective(EXAMPLES)
    servers = {**examples.servers, **LOCAL}
    _render((*examples.profiles, *PROBES), servers, home, Scope.USER)
    settings = json.loads((home / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert settings["privacy"] == {"usageStatisticsEnabled": False}  # foreign keys kept
    lines = _mcp_list(workspace, home)
    assert (
        "Warning: MCP servers are configured but disabled because this folder is untrusted."
        in lines
    )
    rendered = ["github", "playwright", "context7", "local-tool", "remote-docs", "events"]
    listed = [line for line in lines if line.startswith("○ ")]
    assert listed == [f"○ {_line(servers[name], 'Disabled')}" for name in rendered]


def test_project_scope_servers_connect_only_when_trusted(tmp_path: Path) -> None:
    workspace, home = _setup(tmp_path)
    _render(PROBES, LOCAL, workspace, Scope.PROJECT)
    lines = _mcp_list(workspace, home)
    assert [line for line in lines if line.startswith("○ ")] == [
        f"○ {_line(LOCAL[name], 'Disabled')}" for name in ("local-tool", "remote-docs", "events")
    ]
    untrusted = CODEC.discover(Roots(workspace=workspace, home=home))
    assert [d.message.split(".")[0] for d in untrusted.diagnostics] == [
        "Skipping project agents due to untrusted folder"
    ]

    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(workspace.resolve()): "TRUST_FOLDER"}), encoding="utf-8"
    )
    lines = _mcp_list(workspace, home)
    assert not any("untrusted" in line for line in lines)
    # Trusted: Gemini tries each server (none is reachable offline) instead of disabling it.
    assert [line for line in lines if line.startswith("✗ ")] == [
        f"✗ {_line(LOCAL[name], 'Disconnected')}"
        for name in ("local-tool", "remote-docs", "events")
    ]
    trusted = CODEC.discover(Roots(workspace=workspace, home=home))
    assert sorted(d.code for d in trusted.diagnostics) == ["harness-ignored", "harness-ignored"]
    assert all("acknowledge" in d.message for d in trusted.diagnostics)


def _agent_log(workspace: Path, home: Path) -> list[str]:
    """Start a headless session and return its log up to the agent registry's summary."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "NO_COLOR": "1",
        "CI": "1",
        "GEMINI_API_KEY": "offline-test-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    argv = [need_harness("gemini"), "-p", "hi", "--debug", "--allowed-mcp-server-names", "none"]
    process = subprocess.Popen(
        argv,
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 90
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if "[AgentRegistry] Loaded with" in line or time.monotonic() > deadline:
                break
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    return lines


def test_rendered_agents_are_registered(tmp_path: Path) -> None:
    workspace, home = _setup(tmp_path)
    examples = load_effective(EXAMPLES)
    _render((*examples.profiles, *PROBES), {**examples.servers, **LOCAL}, home, Scope.USER)
    agents = home / ".gemini" / "agents"
    # A file Gemini refuses, to show the log would name it.
    (agents / "claude-style.md").write_text(
        "---\nname: claude-style\ndescription: x\ncolor: red\n---\nbody\n", encoding="utf-8"
    )
    discovery = CODEC.discover(Roots(workspace=workspace, home=home))
    assert discovery.refused
    assert [d.code for d in discovery.diagnostics] == ["harness-field-unknown"]
    rendered = len(examples.profiles) + len(PROBES)
    assert len(discovery.profiles) == rendered

    lines = _agent_log(workspace, home)
    errors = [line for line in lines if line.startswith("Agent loading error:")]
    assert errors == [
        f"Agent loading error: Failed to load agent from {agents / 'claude-style.md'}: "
        "Validation failed: Agent Definition:"
    ]
    builtins = 3  # codebase_investigator, cli_help, generalist
    assert f"[AgentRegistry] Loaded with {builtins + rendered} agents." in lines


@pytest.mark.parametrize(
    "frontmatter",
    ["name: Bad Name\ndescription: x\n", "name: ok\ndescription: x\ntools: [Read]\n"],
)
def test_refused_files_are_refused_by_gemini_too(frontmatter: str, tmp_path: Path) -> None:
    workspace, home = _setup(tmp_path)
    agents = home / ".gemini" / "agents"
    agents.mkdir()
    (agents / "probe.md").write_text(f"---\n{frontmatter}---\nbody\n", encoding="utf-8")
    assert CODEC.discover(Roots(workspace=workspace, home=home)).refused
    lines = _agent_log(workspace, home)
    assert any(line.startswith("Agent loading error:") for line in lines)
    assert "[AgentRegistry] Loaded with 3 agents." in lines
