"""Acceptance against the real Qwen Code CLI (``@qwen-code/qwen-code`` 0.24.4), offline,
against the fake model on loopback (tests/oracles/qwen.py):

* discovery: on the same files, ``roster discover`` finds exactly the subagents Qwen offers
  in its ``agent`` tool, in its order and with their descriptions, and refuses exactly the
  files Qwen skips; ``roster import`` writes exactly those agents;
* render: each rendered agent, launched by the fake model through the ``agent`` tool, runs
  with the rendered prompt and exactly the tools its file gives (allowlist, denylist, MCP
  tools of a local stub server, the other servers' tools denied);
* ``qwen mcp list``: the rendered user server connects; a project server waits for the
  user's approval.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.qwen.codec import CODEC
from agent_roster.commands.discover import import_agents
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from ..oracles.fake_model import FakeModel
from ..oracles.fixtures import McpStub
from ..oracles.qwen import QwenCli, git_init, offered, system_prompt
from ..trees import build_tree
from .helpers import need_harness, write_rendering
from .qwen_trees import HOME, OFFERED, REFUSED, WORKSPACE

pytestmark = pytest.mark.timeout(900)
BUILTIN = ("general-purpose", "statusline-setup", "review-agent", "claude-code", "codex")


def _cli(model: FakeModel, tmp_path: Path) -> QwenCli:
    binary = need_harness("qwen")
    workspace, home = tmp_path / "ws", tmp_path / "home"
    git_init(workspace)
    home.mkdir(parents=True)
    return QwenCli(binary, model, workspace, home)


def test_discover_finds_the_subagents_qwen_offers(fake_model: FakeModel, tmp_path: Path) -> None:
    cli = _cli(fake_model, tmp_path)
    build_tree(cli.workspace, WORKSPACE)
    build_tree(cli.home, HOME)
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    agents = cli.agents()
    assert list(agents) == [*OFFERED, *BUILTIN]  # Explore is the project's, in its place
    ours = {p.id: p.description for p in found.profiles}
    assert ours == {name: agents[name] for name in OFFERED} == OFFERED
    assert list(ours) == list(OFFERED)
    refused = sorted(Path(d.path).name for d in found.diagnostics if d.is_error)
    assert refused == sorted(REFUSED)
    vault = tmp_path / "vault"
    vault.mkdir()
    report = import_agents(vault, "qwen", workspace=cli.workspace, home=cli.home)
    assert report.refused
    assert sorted(f.name for f in report.files if f.kind == "profile") == sorted(OFFERED)


ROLE = "You check the code you are given and report what you find."


def _profile(ident: str, **kw: object) -> AgentProfile:
    sections = (PromptSection(heading="Role", body=f"{ROLE} ({ident})"),)
    return AgentProfile(id=ident, name=ident, description=f"{ident} agent", sections=sections, **kw)  # type: ignore[arg-type]


def _rendered_profiles() -> list[AgentProfile]:
    deny_all = PermissionRule(permission="*", action=PermissionAction.DENY)
    return [
        _profile(
            "q-allow",
            allowed_tools=("Read", "Grep", "mcp__local__echo"),
            mcp_servers=("local",),
            permission_mode="plan",
            max_turns=5,
            color="blue",
        ),
        _profile("q-deny", denied_tools=("Bash", "WebFetch")),
        _profile(
            "q-rules",
            permission=(
                deny_all,
                PermissionRule(permission="read", action=PermissionAction.ALLOW),
                PermissionRule(permission="glob", action=PermissionAction.ALLOW),
            ),
        ),
        _profile("q-servers", mcp_servers=("local", "other")),
    ]


def _baseline() -> str:
    """An agent file with no tool keys at all: the tools every subagent may have here."""
    return f"---\nname: q-baseline\ndescription: baseline\n---\n\n{ROLE}\n"


def test_rendered_agents_run_with_their_prompt_and_exact_tools(
    fake_model: FakeModel, mcp_stub: McpStub, tmp_path: Path
) -> None:
    cli = _cli(fake_model, tmp_path)
    profiles = _rendered_profiles()
    servers: dict[str, McpServer] = {
        "local": mcp_stub.server("local", "echo", "spare"),
        "other": mcp_stub.server("other", "ping"),
    }
    request = RenderRequest(profiles=tuple(profiles), servers=servers, scope=Scope.USER)
    rendering = CODEC.render(request, lambda rel: None)
    assert not rendering.diagnostics, [d.format() for d in rendering.diagnostics]
    write_rendering(rendering, cli.home)
    build_tree(cli.workspace, {".qwen/agents/q-baseline.md": _baseline()})
    names = [p.id for p in profiles]
    requests = cli.subagents("q-baseline", *names)
    assert list(offered(fake_model.prompts()[0]))[:5] == ["q-baseline", *names]
    available = requests["q-baseline"].tool_names()
    assert {"mcp__local__echo", "mcp__local__spare", "mcp__other__ping"} <= set(available)
    files = {f.path: f.content for f in rendering.files}
    for profile in profiles:
        captured = requests[profile.id]
        assert system_prompt(captured) == profile.prompt, profile.id
        front = yaml.safe_load(files[f".qwen/agents/{profile.id}.md"].split("---\n")[1])
        if "tools" in front:
            want = [t for t in front["tools"] if t in available]
        else:
            denied = set(front.get("disallowedTools", ()))
            prefixes = [d[:-1] for d in denied if d.endswith("__*")]
            want = [
                t
                for t in available
                if t not in denied and not any(t.startswith(p) for p in prefixes)
            ]
        assert sorted(captured.tool_names()) == sorted(want), profile.id
    tools = {p: sorted(requests[p].tool_names()) for p in names}
    assert tools["q-allow"] == ["grep_search", "mcp__local__echo", "read_file"]
    assert tools["q-rules"] == ["glob", "read_file"]
    assert "run_shell_command" not in tools["q-deny"] and "web_fetch" not in tools["q-deny"]
    assert not any(t.startswith("mcp__") for t in tools["q-deny"])  # not its servers
    assert {"mcp__local__echo", "mcp__other__ping"} <= set(tools["q-servers"])


def test_mcp_list_shows_user_and_project_servers(mcp_stub: McpStub, tmp_path: Path) -> None:
    with FakeModel() as model:
        cli = _cli(model, tmp_path)
    profile = _profile("q-servers", mcp_servers=("local",))
    local = {"local": mcp_stub.server("local")}
    for scope, root in ((Scope.USER, cli.home), (Scope.PROJECT, cli.workspace)):
        rendering = CODEC.render(
            RenderRequest(profiles=(profile,), servers=local, scope=scope), lambda rel: None
        )
        write_rendering(rendering, root)
    # The project's copy under another name: Qwen asks before it starts project servers.
    settings = cli.workspace / ".qwen" / "settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"] = {"projected": data["mcpServers"]["local"]}
    settings.write_text(json.dumps(data))
    states = cli.mcp_list()
    assert states == {"local": "Connected", "projected": "Pending approval"}
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    pending = [d for d in found.diagnostics if "approves it" in d.message]
    assert [d.message.split("'")[1] for d in pending] == ["projected"]
