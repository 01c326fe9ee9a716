"""The real Claude Code CLI reaches the embedded server a roster launch spec attaches
(issue 14 item 8): against a running ``roster up``, the MCP config of a claude_sdk launch
spec, read by ``claude mcp list`` and ``claude mcp get``, reports the embedded server
connected, with the launch's own token; with a wrong token it fails to connect.

The example vault's GitHub server (``npx``, which would download a package) is replaced by a
local stub before the spec is built, so the health check spawns nothing from the network.
Claude Code connects only approved project servers: the temporary HOME's ``.claude.json``
trusts the project folder and approves the config's servers, as a user would. The CLI is
found as in tests/resolve/test_claude_cli.py (``$ROSTER_CLAUDE_BIN``; missing under CI is a
failure).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_roster.commands.resolve import build_index, resolve_launch
from agent_roster.commands.resolve import running_daemon as find
from agent_roster.resolve.launch import TOKEN_ENV
from agent_roster.serve.lock import state_dir
from agent_roster.store import Store, sqlite_url

from ..resolve.helpers import need_claude
from .conftest import Daemon, free_port

STUB = Path(__file__).with_name("stub_mcp_server.py")


def claude(binary: str, args: list[str], project: Path, home: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [binary, *args],
        cwd=project,
        env={"HOME": str(home), "PATH": os.environ.get("PATH", ""), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.timeout(600)
def test_claude_reports_the_embedded_server_connected(vault: Path, tmp_path: Path) -> None:
    binary = need_claude()
    github = vault / "mcp-servers" / "github.md"
    text = github.read_text()
    text = text.replace("command: npx", f"command: {json.dumps(sys.executable)}")
    text = text.replace('["-y", "@modelcontextprotocol/server-github"]', json.dumps([str(STUB)]))
    github.write_text(text)
    daemon = Daemon(vault)
    try:
        daemon.wait_ready()
        attachment = find(vault)
        assert attachment is not None
        with Store.open(sqlite_url(state_dir(vault) / "roster.db")) as store:
            index = build_index(store, vault)
        spec = resolve_launch(index, vault, profile="coding", daemon=attachment).launch
        ((path, config),) = spec.files.items()
        assert f"--mcp-config={path}" in spec.argv and "--strict-mcp-config" in spec.argv
        servers = json.loads(config)["mcpServers"]
        assert set(servers) == {"agent-queue", "github"}
        assert "npx" not in config
        project = tmp_path / "project"
        project.mkdir()
        (project / ".mcp.json").write_text(config)
        home = tmp_path / "home"
        home.mkdir()
        approved = {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": sorted(servers)}
        (home / ".claude.json").write_text(json.dumps({"projects": {str(project): approved}}))
        env = {**spec.env, "GITHUB_PERSONAL_ACCESS_TOKEN": "test-token"}
        listed = claude(binary, ["mcp", "list"], project, home, env)
        assert f"agent-queue: {daemon.url}/mcp (HTTP) - ✔ Connected" in listed, listed
        assert "github: " in listed and listed.count("✔ Connected") == 2, listed
        got = claude(binary, ["mcp", "get", "agent-queue"], project, home, env)
        assert "Status: ✔ Connected" in got, got
        assert f"URL: {daemon.url}/mcp" in got, got
        assert "Authorization: Bearer ${" + TOKEN_ENV + "}" in got, got
        # The token decides: another one is refused by the daemon.
        wrong = claude(binary, ["mcp", "list"], project, home, {**env, TOKEN_ENV: "forged"})
        assert "agent-queue: " in wrong and "✘ Failed to connect" in wrong, wrong
    finally:
        daemon.stop()


def _render_claude(vault: Path, out: Path, *ids: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "agent_roster", "--vault", str(vault), "render", "--to"]
    return subprocess.run(
        [*argv, "claude", "--out", str(out), *ids],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.timeout(600)
def test_a_rendered_mcp_config_attaches_the_embedded_server(vault: Path, tmp_path: Path) -> None:
    """With roster.toml's ``[embedded_server] url`` naming where ``roster up`` serves,
    ``roster render --to claude`` attaches the embedded server to every agent that allows
    one of its commands, and the real CLI connects to the running daemon through the
    rendered ``.mcp.json`` (a loopback daemon needs no token)."""
    binary = need_claude()
    daemon_port = free_port()
    url = f"http://127.0.0.1:{daemon_port}/mcp"
    config = vault / "roster.toml"
    config.write_text(
        config.read_text().replace('name = "agent-queue"', f'name = "agent-queue"\nurl = "{url}"')
    )
    project = tmp_path / "project"
    done = _render_claude(vault, project, "coding", "code-review")
    assert done.returncode == 0, done.stdout + done.stderr
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["agent-queue"] == {"type": "http", "url": url}
    agent = (project / ".claude" / "agents" / "coding.md").read_text()
    assert "- agent-queue\n" in agent and "- mcp__agent-queue__get_task\n" in agent
    # Without the url the agent names commands of a server nothing attaches.
    bare = tmp_path / "bare"
    config.write_text(config.read_text().replace(f'\nurl = "{url}"', ""))
    assert _render_claude(vault, bare, "coding").returncode == 0
    assert "agent-queue" not in json.loads((bare / ".mcp.json").read_text())["mcpServers"]
    daemon = Daemon(vault, port=daemon_port)
    try:
        daemon.wait_ready()
        home = tmp_path / "home"
        home.mkdir()
        approved = {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": ["agent-queue"]}
        (home / ".claude.json").write_text(json.dumps({"projects": {str(project): approved}}))
        got = claude(binary, ["mcp", "get", "agent-queue"], project, home, {})
        assert "Status: ✔ Connected" in got, got
        assert f"URL: {url}" in got, got
    finally:
        daemon.stop()
