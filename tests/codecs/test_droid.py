"""The Factory Droid codec: discovery by Droid's folders and its lenient reading (the same
files the real CLI is checked on, tests/codecs/test_droid_cli.py), render field by field,
the tool vocabulary, what it refuses rather than widen, ``mcp.json`` and the round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from agent_roster.codecs.base import Rendering, Roots, Scope
from agent_roster.codecs.droid.codec import CODEC
from agent_roster.codecs.droid.read import fallback_parse, parse_droid
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from ..trees import build_tree
from .droid_trees import EVERY_TOOL, HOME, OFFERED, WORKSPACE, add_symlink
from .helpers import render_and_discover, render_with

ROLE = (PromptSection(heading="Role", body="You review the change you are given."),)
SERVERS = {
    "local": McpServer(name="local", transport=Transport.STDIO, command="node", args=("s.js",)),
    "docs": McpServer(
        name="docs", transport=Transport.HTTP, url="https://x.test/mcp", headers={"K": "${KEY}"}
    ),
    "events": McpServer(name="events", transport=Transport.SSE, url="https://x.test/sse"),
    "varurl": McpServer(name="varurl", transport=Transport.HTTP, url="${BASE}/mcp"),
}
DENY, ALLOW = PermissionAction.DENY, PermissionAction.ALLOW


def profile(ident: str = "helper", **kw: object) -> AgentProfile:
    base: dict[str, object] = {"name": ident, "description": "Helps.", "sections": ROLE}
    base.update(kw)
    return AgentProfile(id=ident, **base)  # type: ignore[arg-type]


def render(*profiles: AgentProfile, files: dict[str, str] | None = None, **kw: object) -> Rendering:
    return render_with(CODEC, profiles, SERVERS, files, **kw)  # type: ignore[arg-type]


def frontmatter(rendering: Rendering, ident: str = "helper") -> dict[str, object]:
    text = {f.path: f.content for f in rendering.files}[f".factory/droids/{ident}.md"]
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def errors(rendering: Rendering) -> list[str]:
    return [d.message for d in rendering.diagnostics if d.is_error]


def test_discover_follows_droids_folders_and_lenient_reading(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    build_tree(workspace, WORKSPACE)
    build_tree(home, HOME)
    add_symlink(workspace, tmp_path / "outside.md")
    found = CODEC.discover(Roots(workspace=workspace, home=home))
    assert {p.id: p.description for p in found.profiles} == {
        name: description for name, (description, _) in OFFERED.items()
    }
    assert not found.refused  # Droid lists every droid file
    by_id = {p.id: p for p in found.profiles}
    assert by_id["dreviewer"].allowed_tools == ("Read", "Grep", "Glob", "LS")
    assert by_id["listed"].allowed_tools == ("Read", "Bash", "Write", "Edit")
    assert by_id["crlf"].prompt == "You are the crlf droid."
    assert by_id["nofront"].prompt == "Just a prompt."
    assert by_id["wrongtype"].allowed_tools == ()  # its frontmatter dropped: every tool
    warned = {Path(d.path).name for d in found.diagnostics if "every tool" in d.message}
    assert warned == set(EVERY_TOOL)
    ignored = sorted(Path(d.path).name for d in found.diagnostics if d.code == "harness-ignored")
    assert "notes.txt" in ignored and "sub" in ignored
    assert any(d.code == "harness-recovered" for d in found.diagnostics)
    assert any("replaces this personal droid" in d.message for d in found.diagnostics)


def test_droids_line_parser() -> None:
    assert fallback_parse(
        "name: a\ndescription: 'Use when: x'\ntools:\n  - Read\n  - \"Grep\"\nmcpServers: a, b\n"
        "flag: true\nlist: [1, 2]\n# comment\n"
    ) == {
        "name": "a",
        "description": "Use when: x",
        "tools": ["Read", "Grep"],
        "mcpServers": ["a", "b"],
        "flag": True,
        "list": [1, 2],
    }
    droid = parse_droid(
        "---\nname: x\ntools: read-only\nextra: [unclosed\n---\nBody\n", Path("x.md")
    )
    assert droid.data["tools"] == ["read-only"]  # the line parser makes a list of it


def test_render_fields() -> None:
    rendering = render(
        profile(
            name="The Helper",
            model="claude-opus-4-8",
            temperature=0.2,
            max_turns=4,
            color="blue",
            allowed_tools=("Read", "Bash", "WebFetch", "mcp__local__run"),
            mcp_servers=("local",),
            harness={"droid": {"reasoningEffort": "high"}},
        )
    )
    assert not errors(rendering)
    assert frontmatter(rendering) == {
        "name": "helper",
        "description": "Helps.",
        "model": "claude-opus-4-8",
        "reasoningEffort": "high",
        "tools": ["Read", "Execute", "FetchUrl", "local___run"],
        "mcpServers": ["local"],
    }
    lost = {(loss.field, loss.outcome.value) for loss in rendering.losses}
    assert lost == {
        ("name", "dropped"),
        ("temperature", "dropped"),
        ("max_turns", "dropped"),
        ("color", "dropped"),
    }
    mcp = {f.path: f for f in rendering.files}[".factory/mcp.json"]
    assert json.loads(mcp.content) == {
        "mcpServers": {"local": {"type": "stdio", "command": "node", "args": ["s.js"]}}
    }


def test_denies_become_an_allowlist_of_droids_other_tools() -> None:
    rendering = render(profile(denied_tools=("WebFetch", "Bash(rm -rf:*)")))
    assert frontmatter(rendering)["tools"] == [
        "Read",
        "LS",
        "Grep",
        "Glob",
        "Create",
        "Edit",
        "WebSearch",
    ]
    plan = render(profile(permission_mode="plan"))
    assert frontmatter(plan)["tools"] == [
        "Read",
        "LS",
        "Grep",
        "Glob",
        "Execute",
        "WebSearch",
        "FetchUrl",
    ]
    wider = render(profile(permission_mode="bypassPermissions"))
    assert "tools" not in frontmatter(wider)
    assert [(loss.field, loss.outcome.value) for loss in wider.losses] == [
        ("permission_mode", "dropped")
    ]


def test_file_editing_is_one_switch() -> None:
    """Any of Create and Edit gives a droid both: a profile that may edit but not write
    gets neither."""
    edit_only = render(profile(allowed_tools=("Read", "Edit")))
    assert frontmatter(edit_only)["tools"] == ["Read"]
    both = render(profile(allowed_tools=("Read", "Edit", "Write")))
    assert frontmatter(both)["tools"] == ["Read", "Edit", "Create"]
    no_write = render(profile(denied_tools=("Write",)))
    assert frontmatter(no_write)["tools"] == [
        "Read",
        "LS",
        "Grep",
        "Glob",
        "Execute",
        "WebSearch",
        "FetchUrl",
    ]


def test_what_droid_cannot_hold_is_refused() -> None:
    for refused, why in (
        (profile(denied_tools=("Skill",)), "cannot be denied"),
        (
            profile(permission=(PermissionRule(permission="*", pattern="*.env", action=DENY),)),
            "every tool",
        ),
        (profile("Upper"), "alphanumeric"),
        (profile(sections=()), "cannot be empty"),
    ):
        rendering = render(refused)
        assert not any(f.profile == refused.id for f in rendering.files), refused
        assert why in errors(rendering)[0], errors(rendering)
    nothing = render(profile(permission=(PermissionRule(permission="*", action=DENY),)))
    assert frontmatter(nothing)["tools"] == []  # Droid's empty list: no tools
    servers = render(profile(mcp_servers=("varurl", "docs")))
    assert any("does not expand variables" in e for e in errors(servers))
    mcp = json.loads({f.path: f.content for f in servers.files}[".factory/mcp.json"])
    assert list(mcp["mcpServers"]) == ["docs"]


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_mcp_json_merges_and_is_private_at_user_scope(scope: Scope) -> None:
    existing = {
        ".factory/mcp.json": json.dumps({"mcpServers": {"mine": {"type": "stdio", "command": "m"}}})
    }
    rendering = render(profile(mcp_servers=("events",)), files=existing, scope=scope)
    mcp = {f.path: f for f in rendering.files}[".factory/mcp.json"]
    assert json.loads(mcp.content)["mcpServers"] == {
        "mine": {"type": "stdio", "command": "m"},
        "events": {"type": "sse", "url": "https://x.test/sse"},
    }
    assert mcp.mode == (0o600 if scope is Scope.USER else 0o644)


def test_discover_reads_servers_project_over_user(tmp_path: Path) -> None:
    build_tree(
        tmp_path,
        {
            "home/.factory/mcp.json": json.dumps(
                {
                    "mcpServers": {
                        "a": {"command": "user"},
                        "off": {"command": "x", "disabled": True},
                    }
                }
            ),
            "ws/.factory/mcp.json": json.dumps(
                {
                    "mcpServers": {
                        "a": {"type": "stdio", "command": "project"},
                        "u": {"url": "https://x"},
                    }
                }
            ),
            "ws/.factory/droids/x.md": "---\nname: x\nmcpServers: [a, off, u]\n---\n\nX.\n",
        },
    )
    found = CODEC.discover(Roots(workspace=tmp_path / "ws", home=tmp_path / "home"))
    assert {s.name: s.command for s in found.servers} == {"a": "project"}
    warned = " ".join(d.message for d in found.diagnostics)
    assert "disabled" in warned and "needs a command" in warned


def test_round_trip(tmp_path: Path) -> None:
    original = profile(
        model="claude-opus-4-8",
        allowed_tools=("Read", "Grep", "Bash", "Write", "Edit", "mcp__local__run"),
        mcp_servers=("local",),
    )
    other = profile("other", description="", mcp_servers=("docs",))
    rules = profile(
        "rules",
        permission=(
            PermissionRule(permission="*", action=DENY),
            PermissionRule(permission="read", action=ALLOW),
        ),
    )
    _, found = render_and_discover(CODEC, [original, other, rules], SERVERS, root=tmp_path)
    back = {p.id: p for p in found.profiles}
    for before in (original, other):
        after = back[before.id]
        for field in sorted(CODEC.native_fields):
            want = before.prompt if field == "prompt" else getattr(before, field)
            got = after.prompt if field == "prompt" else getattr(after, field)
            assert got == want, (before.id, field)
    assert back["rules"].allowed_tools == ("Read",)
