"""Acceptance against the real Kilo Code CLI (``@kilocode/cli-linux-x64`` 7.7.9, offline):

* discovery: on the same files, ``roster discover`` finds exactly the agents ``kilo agent
  list`` offers, with the settings ``kilo debug config`` merged from Kilo's layers, and
  refuses exactly the files Kilo skips (``roster import`` writes exactly the agents Kilo
  loads);
* render: every example profile and the generated ones, rendered, load in Kilo as
  rendered (``debug config``, ``agent list``, ``debug agent`` with the permission rules as
  the agent's suffix), Kilo leaves the rendered config file as roster wrote it, and
  ``kilo mcp list`` connects to the rendered server (a local MCP stub);
* user scope: agents and servers under ``~/.config/kilo`` load, ``{env:…}`` substituted.

Each ``kilo`` call takes 10 to 30 s on a loaded machine, so calls are few and share a
workspace per test.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.kilo.codec import CODEC
from agent_roster.codecs.opencode.flavor import KILO
from agent_roster.codecs.opencode.rules import render_rules
from agent_roster.codecs.permissions import expand_home
from agent_roster.commands.discover import import_agents
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PromptSection

from ..oracles.fixtures import McpStub
from ..oracles.kilo import KiloCli
from ..trees import build_tree
from .helpers import EXAMPLES, need_harness, write_rendering
from .kilo_trees import (
    LAYERS_HOME,
    LAYERS_LOADED,
    LAYERS_WORKSPACE,
    REFUSED_HOME,
    REFUSED_LOADED,
    REFUSED_WORKSPACE,
)
from .test_opencode_cli import _model, generated

pytestmark = pytest.mark.timeout(900)


def _cli(tmp_path: Path, env: dict[str, str] | None = None) -> KiloCli:
    binary = need_harness("kilo")
    workspace, home = tmp_path / "ws", tmp_path / "home"
    home.mkdir(parents=True)
    workspace.mkdir(parents=True)
    # Kilo reads project folders up to the git root: the workspace is one.
    subprocess.run(["git", "init", "-q", str(workspace)], check=True, timeout=60)
    return KiloCli(binary, workspace, home, env)


def _custom(agents: dict[str, str]) -> set[str]:
    return set(agents) - KILO.builtin


def _settings(entry: dict[str, Any]) -> dict[str, Any]:
    keys = ("mode", "temperature", "top_p", "steps", "color")
    return {k: entry[k] for k in keys if k in entry}


def test_discover_finds_what_kilo_loads_from_every_layer(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    build_tree(cli.workspace, LAYERS_WORKSPACE)
    build_tree(cli.home, LAYERS_HOME)
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    ours = {p.id: p for p in found.profiles}
    offered = cli.agents()
    assert _custom(offered) == set(ours) == set(LAYERS_LOADED)
    config = cli.config()["agent"]
    for name, (description, settings) in LAYERS_LOADED.items():
        assert config[name]["description"] == description == ours[name].description, name
        assert _settings(config[name]) == settings, name
        assert offered[name] == (ours[name].mode or "all"), name


def test_discover_refuses_what_kilo_skips(tmp_path: Path) -> None:
    cli = _cli(tmp_path, env={"T": "token-from-env"})
    build_tree(cli.workspace, REFUSED_WORKSPACE)
    build_tree(cli.home, REFUSED_HOME)
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    assert _custom(cli.agents()) == {p.id for p in found.profiles} == REFUSED_LOADED
    config = cli.config()
    assert set(config["mcp"]) == {s.name for s in found.servers} == {"plain"}
    # What Kilo made of the files it loads without frontmatter, and of the user's reference.
    assert config["agent"]["bad-yaml"]["prompt"] == "---\ndescription: [unclosed\n---\nBody."
    assert config["agent"]["uref"]["prompt"] == "Use token-from-env here."
    assert config["agent"]["fm-ref"]["model"] == "{env:MODEL}"
    # roster import writes exactly the agents Kilo loads that are vault ids, and says why
    # the rest are not there.
    vault = tmp_path / "vault"
    vault.mkdir()
    report = import_agents(vault, "kilo", workspace=cli.workspace, home=cli.home)
    assert report.refused
    written = {f.name for f in report.files if f.kind == "profile"}
    assert written == REFUSED_LOADED


def _stubbed(stub: McpStub) -> tuple[tuple[AgentProfile, ...], dict[str, McpServer]]:
    """The example profiles and the generated ones, every registry server a local stub
    (``agent list`` and ``mcp list`` start no network server)."""
    effective = load_effective(EXAMPLES)
    display = AgentProfile(
        id="gen-display",
        name="Generated Display Name",
        description="has a display name",
        mode="subagent",
        sections=(PromptSection(heading="Role", body="You have a name."),),
    )
    profiles = (*effective.profiles, *generated(), display)
    servers = {name: stub.server(name) for name in effective.servers}
    for profile in profiles:
        for name in profile.mcp_servers:
            servers.setdefault(name, stub.server(name))
    return profiles, servers


def test_rendered_agents_load_in_kilo_as_rendered(tmp_path: Path, mcp_stub: McpStub) -> None:
    cli = _cli(tmp_path)
    profiles, servers = _stubbed(mcp_stub)
    request = RenderRequest(profiles=profiles, servers=servers, scope=Scope.PROJECT)
    rendering = CODEC.render(request, lambda rel: None)
    assert not rendering.diagnostics, rendering.diagnostics
    write_rendering(rendering, cli.workspace)
    rendered = {f.path: f.content for f in rendering.files}
    block = tuple(json.loads(rendered[".kilo/kilo.json"])["mcp"])

    config = cli.config()
    offered = cli.agents()
    assert _custom(offered) == {p.id for p in profiles}
    for profile in profiles:
        entry = config["agent"][profile.id]
        assert offered[profile.id] == (profile.mode or "all"), profile.id
        assert entry.get("description", "") == profile.description, profile.id
        assert entry["prompt"] == profile.prompt.strip(), profile.id
        assert entry.get("temperature") == profile.temperature, profile.id
        assert entry.get("top_p") == profile.top_p, profile.id
        assert entry.get("steps") == profile.max_turns, profile.id
        assert entry.get("color", "") == profile.color, profile.id
        name = profile.name if profile.name != profile.id else None
        assert entry.get("displayName") == name, profile.id
        assert entry["options"] == {}, profile.id  # nothing of roster's reaches the provider
    assert list(config["mcp"]) == list(block)
    # Kilo rewrites a config file without "$schema"; roster's already has one.
    for rel, content in rendered.items():
        assert (cli.workspace / rel).read_text(encoding="utf-8") == content, rel

    for profile in profiles:
        if profile.id not in ("gen-primary", "gen-all"):
            continue
        info = cli.agent(profile.id)
        assert info["model"] == _model(profile)
        assert info["prompt"] == profile.prompt.strip()
        expected = render_rules(profile, block).rules
        reported = [(r["permission"], r["pattern"], r["action"]) for r in info["permission"]]
        # Kilo, like OpenCode, appends its own tool-output allow after the agent's rules.
        assert reported[-1][1].endswith("tool-output/*")
        home = str(cli.home)
        want = [(r.permission, expand_home(r.pattern, home), r.action.value) for r in expected]
        assert reported[-1 - len(want) : -1] == want, profile.id

    states = cli.mcp_list()
    assert set(states) == set(block)
    assert all(state == "connected" for state in states.values()), states
    for name in block:  # each stub was started by Kilo and asked for its tools
        log = mcp_stub.log.with_name(f"mcp-{name}.jsonl")
        assert "tools/list" in mcp_stub.with_tools(log=log).received(), name


def test_user_scope_agents_and_servers_load(tmp_path: Path) -> None:
    cli = _cli(tmp_path, env={"TOKEN": "from-env"})
    profile = generated()[0]
    server = McpServer(
        name="github",
        transport=Transport.STDIO,
        command="nosuch-github-server",
        env={"GITHUB_TOKEN": "${TOKEN}"},
    )
    request = RenderRequest(profiles=(profile,), servers={"github": server}, scope=Scope.USER)
    rendering = CODEC.render(request, lambda rel: None)
    assert not rendering.diagnostics and not [
        loss for loss in rendering.losses if loss.field == "mcp_servers"
    ]
    write_rendering(rendering, cli.home)
    config = cli.config()
    entry = config["agent"][profile.id]
    assert (entry["mode"], entry["steps"], entry["color"]) == ("primary", 7, "#00ff88")
    assert config["mcp"]["github"] == {
        "type": "local",
        "command": ["nosuch-github-server"],
        "environment": {"GITHUB_TOKEN": "from-env"},
    }
