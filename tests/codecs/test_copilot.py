"""The Copilot codec: ids from file names, tool aliases and ``<server>/<tool>``, the
30,000-character prompt limit, ``.vscode/mcp.json`` and the round trip
(docs/codecs/copilot.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import Discovery, LossOutcome, Rendering, Scope
from agent_roster.codecs.copilot.codec import CODEC
from agent_roster.codecs.native_md import read_native
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule, PromptSection

from .helpers import EXAMPLES, discover_in, render_and_discover, render_with, roundtrip_differences

ROLE = (PromptSection(heading="Role", body="You help."),)


def profile(**fields: Any) -> AgentProfile:
    base = {"id": "helper", "name": "Helper", "description": "Helps.", "sections": ROLE}
    return AgentProfile(**{**base, **fields})


def render(
    profiles: list[AgentProfile],
    servers: Mapping[str, McpServer] | None = None,
    existing: dict[str, str] | None = None,
    scope: Scope = Scope.PROJECT,
) -> Rendering:
    return render_with(CODEC, profiles, servers, existing, scope)


def front(content: str) -> dict:  # type: ignore[type-arg]
    doc = read_native(content, "x", [])
    assert doc is not None
    return doc.data


def discover(tmp_path: Path, files: dict[str, str]) -> Discovery:
    return discover_in(CODEC, tmp_path, files)


def test_ids_from_file_names_and_precedence(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            "home/.copilot/agents/rev.agent.md": "---\ndescription: user\n---\nU\n",
            "ws/.github/agents/rev.agent.md": "---\nname: Reviewer\ndescription: project\n"
            "tools: ['read', 'Bash', shell, 'github/get_issue', 'nope']\ntarget: vscode\n---\nP\n",
            "ws/.github/agents/rev.md": "---\ndescription: plain md\n---\nM\n",
            "ws/.github/agents/none.agent.md": "---\nname: x\n---\nno description\n",
            "ws/.github/agents/big.agent.md": "---\ndescription: d\n---\n" + "x" * 30_001,
            "ws/.vscode/mcp.json": json.dumps(
                {
                    "servers": {
                        "github": {
                            "type": "http",
                            "url": "https://gh",
                            "headers": {"Authorization": "Bearer ${env:GH}"},
                        }
                    }
                }
            ),
        },
    )
    (rev,) = found.profiles
    assert (rev.id, rev.name, rev.description) == ("rev", "Reviewer", "project")
    assert rev.allowed_tools == ("Read", "Bash", "mcp__github__get_issue")
    assert rev.mcp_servers == ("github",) and rev.harness == {"copilot": {"target": "vscode"}}
    assert found.servers[0].headers == {"Authorization": "Bearer ${GH}"}
    assert found.refused
    errors = sorted(d.message for d in found.diagnostics if d.is_error)
    assert errors == [
        "description is required for a custom agent",
        "the prompt has 30001 characters; the maximum is 30,000",
    ]
    assert sum(d.code == "harness-shadowed" for d in found.diagnostics) == 2
    assert any("unknown tool 'nope'" in d.message for d in found.diagnostics)


def test_tools_allowlist_from_allowed_denied_and_rules() -> None:
    p = profile(
        allowed_tools=("Read", "Edit", "Bash(git log:*)", "mcp__gh__get", "LS"),
        denied_tools=("Edit",),
        permission=(
            PermissionRule(permission="bash", pattern="rm *", action=PermissionAction.DENY),
        ),
        mcp_servers=("gh",),
    )
    gh = McpServer(name="gh", transport=Transport.STDIO, command="x", env={"K": "${K}"})
    rendering = render(
        [p], {"gh": gh}, {".vscode/mcp.json": '{"servers": {"o": {}}, "inputs": []}'}
    )
    files = {f.path: f.content for f in rendering.files}
    content = files[".github/agents/helper.agent.md"]
    assert front(content) == {
        "name": "Helper",
        "description": "Helps.",
        "tools": ["read", "execute", "gh/get"],
    }
    assert "Use Bash only with arguments matching `git log *`." in content
    assert "Never use `bash` with an argument matching `rm *`." in content
    assert json.loads(files[".vscode/mcp.json"]) == {
        "servers": {"o": {}, "gh": {"type": "stdio", "command": "x", "env": {"K": "${env:K}"}}},
        "inputs": [],
    }
    fields = {loss.field for loss in rendering.losses}
    assert {"allowed_tools", "denied_tools", "permission", "mcp_servers"} <= fields


def test_denies_alone_make_an_explicit_list_and_no_rules_omit_it() -> None:
    rendering = render([profile(denied_tools=("WebFetch",)), profile(id="free")])
    by_path = {f.path: front(f.content) for f in rendering.files}
    tools = by_path[".github/agents/helper.agent.md"]["tools"]
    assert "web" not in tools and {"execute", "read", "edit"} <= set(tools)
    assert "tools" not in by_path[".github/agents/free.agent.md"]


def test_render_refusals_and_user_scope() -> None:
    env_default = McpServer(name="s", transport=Transport.STDIO, command="${BIN:-node}")
    long = profile(id="long", sections=(PromptSection(heading="Role", body="x" * 30_001),))
    rendering = render(
        [long, profile(id="nodesc", description=""), profile(mcp_servers=("s",))],
        {"s": env_default},
    )
    assert [f.path for f in rendering.files] == [".github/agents/helper.agent.md"]
    assert len([d for d in rendering.diagnostics if d.is_error]) == 3
    user = render([profile(mcp_servers=("s",))], {"s": env_default}, scope=Scope.USER)
    files = {f.path: f.content for f in user.files}
    assert (
        json.loads(files[".copilot/mcp-config.json"])["mcpServers"]["s"]["command"]
        == "${BIN:-node}"
    )
    assert ".copilot/agents/helper.agent.md" in files


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_example_vault_round_trips(scope: Scope, tmp_path: Path) -> None:
    example = load_effective(EXAMPLES)
    rendering, found = render_and_discover(
        CODEC, example.profiles, example.servers, scope, tmp_path
    )
    assert not found.refused and not [d for d in rendering.diagnostics if d.is_error]
    assert roundtrip_differences(CODEC, example.profiles, found.profiles) == []
    outcomes = {loss.outcome for loss in rendering.losses}
    assert LossOutcome.TRANSLATED in outcomes
