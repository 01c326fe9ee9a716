"""The Cursor codec: discovery, readonly, prose for everything else, ``${env:VAR}`` in
``.cursor/mcp.json``, merging, and the round trip (docs/codecs/cursor.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import Discovery, LossOutcome, Rendering, Scope
from agent_roster.codecs.cursor.codec import CODEC
from agent_roster.codecs.native_md import read_native
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule, PromptSection

from .helpers import EXAMPLES, discover_in, render_and_discover, render_with, roundtrip_differences

ROLE = (PromptSection(heading="Role", body="You help."),)


def profile(**fields: Any) -> AgentProfile:
    base = {"id": "helper", "name": "helper", "description": "Helps.", "sections": ROLE}
    return AgentProfile(**{**base, **fields})


def render(
    profiles: list[AgentProfile],
    servers: Mapping[str, McpServer] | None = None,
    existing: dict[str, str] | None = None,
    scope: Scope = Scope.PROJECT,
) -> Rendering:
    return render_with(CODEC, profiles, servers, existing, scope)


def discover(tmp_path: Path, files: dict[str, str]) -> Discovery:
    return discover_in(CODEC, tmp_path, files)


def test_discovery_precedence_and_fields(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            "home/.cursor/agents/a.md": "---\nname: a\ndescription: user\n---\nU\n",
            "ws/.cursor/agents/a.md": "---\nname: a\ndescription: project\nreadonly: true\n"
            "is_background: true\nmodel: fast\ntools: [Read]\n---\nP\n",
            "ws/.cursor/agents/sub/deep.md": "---\nname: deep\ndescription: x\n---\nD\n",
            "ws/.cursor/agents/bad.md": "---\nname: bad\n---\nB\n",
            "ws/.cursor/mcp.json": json.dumps(
                {"mcpServers": {"gh": {"command": "npx", "env": {"T": "${env:TOKEN}"}}}}
            ),
        },
    )
    (a,) = found.profiles  # not recursive: deep is not read; bad has no description
    assert a.description == "project" and a.model == "fast"
    assert a.permission == (
        # Cursor's default written out (issue 12 item 2), then what readonly takes away
        PermissionRule(permission="*", action=PermissionAction.ALLOW),
        PermissionRule(permission="edit", action=PermissionAction.DENY),
        PermissionRule(permission="bash", action=PermissionAction.DENY),
    )
    assert a.harness == {"cursor": {"is_background": True, "tools": ["Read"]}}
    assert found.refused
    codes = sorted(d.code for d in found.diagnostics)
    assert codes == ["harness-ignored", "harness-ignored", "harness-invalid", "harness-shadowed"]
    # Not recursive: the subfolder is said to be left out (issue 12 item 6).
    assert any(
        d.message == "Cursor does not load sub: it does not look into subfolders of agents/"
        for d in found.diagnostics
    )
    assert found.servers[0].env == {"T": "${TOKEN}"}


def test_render_readonly_prose_and_env_syntax() -> None:
    gh = McpServer(name="gh", transport=Transport.STDIO, command="npx", env={"T": "${TOKEN}"})
    p = profile(permission_mode="plan", allowed_tools=("Read",), mcp_servers=("gh",), color="red")
    rendering = render([p], {"gh": gh}, {".cursor/mcp.json": '{"mcpServers": {"x": {}}}'})
    files = {f.path: f.content for f in rendering.files}
    doc = read_native(files[".cursor/agents/helper.md"], "x", [])
    assert doc is not None
    assert doc.data == {"name": "helper", "description": "Helps.", "readonly": True}
    assert "Use only these tools: Read." in doc.body
    assert json.loads(files[".cursor/mcp.json"]) == {
        "mcpServers": {"x": {}, "gh": {"command": "npx", "env": {"T": "${env:TOKEN}"}}}
    }
    outcomes = {loss.field: loss.outcome for loss in rendering.losses}
    assert outcomes["permission_mode"] is LossOutcome.TRANSLATED
    assert outcomes["allowed_tools"] is LossOutcome.EMBEDDED
    assert outcomes["mcp_servers"] is LossOutcome.TRANSLATED
    assert outcomes["color"] is LossOutcome.DROPPED


def test_render_refusals() -> None:
    bad_env = McpServer(name="s", transport=Transport.HTTP, url="https://${HOST:-x}/mcp")
    rendering = render(
        [profile(id="Bad Name"), profile(id="nodesc", description=""), profile(mcp_servers=("s",))],
        {"s": bad_env},
    )
    assert [f.path for f in rendering.files] == [".cursor/agents/helper.md"]
    messages = [d.message for d in rendering.diagnostics if d.is_error]
    assert len(messages) == 3 and "VAR:-default" in messages[2]


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_example_vault_round_trips(scope: Scope, tmp_path: Path) -> None:
    example = load_effective(EXAMPLES)
    # Fields, not permissions (the render check is tested in test_never_widen*.py).
    rendering, found = render_and_discover(
        CODEC, example.profiles, example.servers, scope, tmp_path, allow_widening=True
    )
    assert not found.refused and not [d for d in rendering.diagnostics if d.is_error]
    assert roundtrip_differences(CODEC, example.profiles, found.profiles) == []
