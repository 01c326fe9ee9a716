"""Acceptance against the real Qoder CLI (``@qoder-ai/qodercli`` 1.1.52), offline, with no
login and no model (tests/oracles/qoder.py):

* discovery: on the same files, ``roster discover`` finds exactly the agents ``qodercli
  agents list`` shows, per layer, with the shadowed user agent and the built-in one a file
  replaces, and refuses exactly as many files as Qoder counts in "N errors loading agent
  configs"; ``--setting-sources user`` agrees with a discovery of the home alone;
  ``roster import`` writes exactly the loaded agents;
* render: each rendered agent, as the session's agent (``--agent NAME``), gets exactly the
  built-in tools its file gives (allowlist, denylist, rules folded, a narrowed allow left
  out), and its model; the rendered user MCP servers (local stubs) connect;
* MCP: ``qodercli mcp list`` connects the rendered servers, and ``mcp get`` places each in
  the file render wrote (``.mcp.json`` for the project, ``~/.qoder/settings.json`` for the
  user).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.qoder.codec import CODEC
from agent_roster.commands.discover import import_agents
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from ..oracles.fixtures import McpStub
from ..oracles.qoder import QoderCli, git_init
from ..trees import build_tree
from .helpers import need_harness, write_rendering
from .qoder_trees import HOME, PROJECT, REFUSED, SHADOWED, USER, WORKSPACE, add_symlink

pytestmark = pytest.mark.timeout(900)


def _cli(tmp_path: Path) -> QoderCli:
    binary = need_harness("qodercli")
    workspace, home = tmp_path / "ws", tmp_path / "home"
    git_init(workspace)
    home.mkdir(parents=True)
    return QoderCli(binary, workspace, home)


def _shown(model: str) -> str:
    return model.capitalize() if model else "Inherit"


def test_discover_finds_the_agents_qoder_lists(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    build_tree(cli.workspace, WORKSPACE)
    build_tree(cli.home, HOME)
    add_symlink(cli.workspace, tmp_path / "outside.md")
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    listed, errors = cli.agents()
    project = {a.name: a.model for a in listed if a.layer == "Project"}
    user = {a.name: a.model for a in listed if a.layer == "User"}
    assert project == PROJECT and user == USER
    assert {a.name for a in listed if a.shadowed and a.layer == "User"} == SHADOWED
    assert [a.name for a in listed if a.shadowed and a.layer == "Built-in"] == ["Explore"]
    ours = {p.id: _shown(p.model) for p in found.profiles}
    assert ours == {**USER, **PROJECT}
    refused = sorted(Path(d.path).name for d in found.diagnostics if d.is_error)
    assert refused == sorted(REFUSED) and errors == len(REFUSED)
    # The home alone, as --setting-sources user shows it.
    alone = CODEC.discover(Roots(workspace=tmp_path / "empty", home=cli.home))
    only_user, _ = cli.agents("user")
    assert {a.name for a in only_user if a.layer != "Built-in"} == {p.id for p in alone.profiles}
    assert not any(a.shadowed for a in only_user if a.layer == "User")
    vault = tmp_path / "vault"
    vault.mkdir()
    report = import_agents(vault, "qoder", workspace=cli.workspace, home=cli.home)
    assert report.refused
    imported = sorted(f.name for f in report.files if f.kind == "profile")
    assert imported == sorted({*USER, *PROJECT})


ROLE = "You check the code you are given and report what you find."
DENY, ALLOW = PermissionAction.DENY, PermissionAction.ALLOW


def _profile(ident: str, **kw: object) -> AgentProfile:
    sections = (PromptSection(heading="Role", body=f"{ROLE} ({ident})"),)
    return AgentProfile(id=ident, name=ident, description=f"{ident} agent", sections=sections, **kw)  # type: ignore[arg-type]


def _rendered_profiles() -> list[AgentProfile]:
    return [
        _profile(
            "q-allow",
            allowed_tools=("Read", "Grep", "mcp__local__echo"),
            mcp_servers=("local",),
            model="sonnet",
        ),
        _profile("q-deny", denied_tools=("Bash", "WebFetch", "Write(secrets/*)")),
        _profile(
            "q-rules",
            permission=(
                PermissionRule(permission="*", action=DENY),
                PermissionRule(permission="read", action=ALLOW),
                PermissionRule(permission="glob", action=ALLOW),
                PermissionRule(permission="bash", pattern="git *", action=ALLOW),
            ),
        ),
        _profile("q-server", allowed_tools=("Read", "mcp__other__*"), mcp_servers=("other",)),
    ]


def _expected(front: dict[str, object], available: list[str]) -> list[str]:
    """The built-in tools an agent file gives in a session offering ``available``: Qoder's
    rules (exact names in ``tools``, then the exact names of ``disallowedTools``)."""
    builtin = [t for t in available if not t.startswith("mcp__")]
    tools = front.get("tools")
    if isinstance(tools, list):
        return sorted(t for t in builtin if t in tools)
    denied = set(front.get("disallowedTools") or ())  # type: ignore[call-overload]
    return sorted(t for t in builtin if t not in denied)


def test_rendered_agents_get_exactly_their_tools(mcp_stub: McpStub, tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    profiles = _rendered_profiles()
    servers: dict[str, McpServer] = {
        "local": mcp_stub.server("local", "echo", "spare"),
        "other": mcp_stub.server("other", "ping", "pong"),
    }
    request = RenderRequest(profiles=tuple(profiles), servers=servers, scope=Scope.USER)
    rendering = CODEC.render(request, lambda rel: None)
    assert not [d for d in rendering.diagnostics if d.is_error], rendering.diagnostics
    write_rendering(rendering, cli.home)
    files = {f.path: f.content for f in rendering.files}
    session = cli.init()
    assert {s["name"]: s["status"] for s in session["mcp_servers"]} == {
        "local": "connected",
        "other": "connected",
    }
    available = list(session["tools"])
    assert {"mcp__local__echo", "mcp__other__pong"} <= set(available)
    assert {p.id for p in profiles} <= set(session["agents"])
    got: dict[str, list[str]] = {}
    for profile in profiles:
        init = cli.init(profile.id)
        front = yaml.safe_load(files[f".qoder/agents/{profile.id}.md"].split("---\n")[1])
        # A session's agent keeps every MCP tool (Qoder filters them for subagents only,
        # by the same list: docs/codecs/qoder.md §5), so its built-in tools are compared.
        got[profile.id] = sorted(t for t in init["tools"] if not t.startswith("mcp__"))
        assert got[profile.id] == _expected(front, available), profile.id
        assert init["model"] == (profile.model or session["model"]), profile.id
    assert got["q-allow"] == ["Grep", "Read"]
    assert got["q-rules"] == ["Glob", "Read"]  # Bash only for "git *": left out
    assert "Bash" not in got["q-deny"] and "Write" not in got["q-deny"]
    assert "WebFetch" not in got["q-deny"] and "Read" in got["q-deny"]
    assert got["q-server"] == ["Read"]


def test_mcp_list_and_get_show_the_rendered_servers(mcp_stub: McpStub, tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    for scope, root, name in (
        (Scope.USER, cli.home, "mine"),
        (Scope.PROJECT, cli.workspace, "shared"),
    ):
        profile = _profile(f"q-{name}", mcp_servers=(name,))
        request = RenderRequest(
            profiles=(profile,), servers={name: mcp_stub.server(name)}, scope=scope
        )
        write_rendering(CODEC.render(request, lambda rel: None), root)
    listed = cli.mcp_list()
    assert {name: state for name, (_, state) in listed.items()} == {
        "mine": "Connected",
        "shared": "Connected",
    }
    user, project = cli.mcp_get("mine"), cli.mcp_get("shared")
    assert user["Location"] == str(cli.home / ".qoder" / "settings.json")
    assert user["Scope"].startswith("User")
    assert project["Location"] == str(cli.workspace / ".mcp.json")
    assert project["Scope"].startswith("Project")
    assert cli.mcp_get("absent") == {}
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    assert sorted(s.name for s in found.servers) == ["mine", "shared"]
