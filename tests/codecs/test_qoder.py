"""The Qoder CLI codec: discovery by Qoder's layers and refusals (the same files the real
CLI is checked on, tests/codecs/test_qoder_cli.py), its frontmatter repair, render field by
field, what it refuses rather than widen, the MCP files and the round trip (README D12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from agent_roster.codecs.base import Rendering, Roots, Scope
from agent_roster.codecs.qoder.codec import CODEC
from agent_roster.codecs.qoder.read import parse_agent, quote_values, schema_problems
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from ..trees import build_tree
from .helpers import render_and_discover, render_with
from .qoder_trees import HOME, PASSED_OVER, PROJECT, REFUSED, USER, WORKSPACE, add_symlink

ROLE = (PromptSection(heading="Role", body="You review the change you are given."),)
SERVERS = {
    "local": McpServer(name="local", transport=Transport.STDIO, command="node", args=("s.js",)),
    "docs": McpServer(
        name="docs", transport=Transport.HTTP, url="https://x.test/mcp", headers={"K": "${KEY}"}
    ),
    "events": McpServer(name="events", transport=Transport.SSE, url="https://x.test/sse"),
    "varargs": McpServer(
        name="varargs", transport=Transport.STDIO, command="node", args=("${HOME}/s.js",)
    ),
}
DENY, ALLOW, ASK = PermissionAction.DENY, PermissionAction.ALLOW, PermissionAction.ASK


def profile(ident: str = "helper", **kw: object) -> AgentProfile:
    base: dict[str, object] = {"name": ident, "description": "Helps.", "sections": ROLE}
    base.update(kw)
    return AgentProfile(id=ident, **base)  # type: ignore[arg-type]


def render(*profiles: AgentProfile, files: dict[str, str] | None = None, **kw: object) -> Rendering:
    return render_with(CODEC, profiles, SERVERS, files, **kw)  # type: ignore[arg-type]


def frontmatter(rendering: Rendering, ident: str = "helper") -> dict[str, object]:
    text = {f.path: f.content for f in rendering.files}[f".qoder/agents/{ident}.md"]
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def errors(rendering: Rendering) -> list[str]:
    return [d.message for d in rendering.diagnostics if d.is_error]


def test_discover_follows_qoders_layers_and_refusals(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    build_tree(workspace, WORKSPACE)
    build_tree(home, HOME)
    add_symlink(workspace, tmp_path / "outside.md")
    found = CODEC.discover(Roots(workspace=workspace, home=home))
    by_id = {p.id: p for p in found.profiles}
    assert sorted(by_id) == sorted({*PROJECT, *USER})
    assert by_id["qreviewer"].description == "probe qreviewer"  # the project's
    assert by_id["qreviewer"].model == "sonnet"
    assert by_id["colour"].allowed_tools == ("Read", "Grep")
    assert by_id["repaired"].description == "Use when: x"
    assert by_id["crlf"].prompt == "You are crlf."
    assert by_id["nobody"].prompt == ""
    assert "claudey" not in by_id  # .claude/agents is never read
    refused = {Path(d.path).name: d.message for d in found.diagnostics if d.is_error}
    assert sorted(refused) == sorted(REFUSED)
    assert "Missing mandatory YAML frontmatter" in refused["bom.md"]
    assert "color: Expected" in refused["badcolor.md"]
    assert "tools: Expected string or array of strings, received null" in refused["nulltools.md"]
    assert "name: Expected string, received number" in refused["numname.md"]
    ignored = {Path(d.path).name for d in found.diagnostics if d.code == "harness-ignored"}
    assert ignored == set(PASSED_OVER)
    warnings = [d.message for d in found.diagnostics if d.code == "harness-shadowed"]
    assert any("replaces this user agent" in w for w in warnings)
    assert any("built-in" in w and "Explore" in w for w in warnings)
    assert any(d.code == "harness-recovered" for d in found.diagnostics)


@pytest.mark.parametrize(
    ("frontmatter", "repaired"),
    [
        ("description: Use when: x", 'description: "Use when: x"'),
        ("description: a # b", 'description: "a # b"'),
        ("name: [unclosed", 'name: "[unclosed"'),
        ("description: 'quoted: ok'", "description: 'quoted: ok'"),
        ("d: |\n  one\n  two\nname: x", 'd: "one two"\nname: x'),
        ("\tname: tab   ", "  name: tab"),
        ("# comment: here", "# comment: here"),
        ("key:value", "key:value"),
    ],
)
def test_qoders_repair(frontmatter: str, repaired: str) -> None:
    assert quote_values(frontmatter) == repaired


def test_the_schema_refuses_a_wrong_type_and_drops_unknown_keys() -> None:
    base = {"name": "x", "description": "y"}
    assert schema_problems({**base, "foo": 1, "tools": ["Read"], "maxTurns": 3}) == []
    assert schema_problems({**base, "maxTurns": 1.5}) != []
    assert schema_problems({**base, "effort": "medium", "memory": "user"}) == []
    assert schema_problems({**base, "mcpServers": [{"s": {"command": 1}}]}) != []
    assert schema_problems({**base, "mcpServers": ["s", {"t": {"command": "x"}}]}) == []
    agent, problem, _ = parse_agent("---\nname: a\ndescription: b\n----\nBody\n", Path("a.md"))
    assert agent is not None and agent.prompt == "" and not problem  # '----' closes it


def test_render_fields() -> None:
    rendering = render(
        profile(
            name="The Helper",
            model="sonnet",
            provider="anthropic",
            temperature=0.2,
            permission_mode="acceptEdits",
            max_turns=7,
            color="green",
            allowed_tools=("Read", "Bash", "mcp__local__run", "Task"),
            mcp_servers=("local",),
            top_p=0.5,
            harness={"qoder": {"effort": "high", "skills": ["a"]}},
        )
    )
    assert not errors(rendering)
    assert frontmatter(rendering) == {
        "name": "helper",
        "description": "Helps.",
        "tools": ["Read", "Bash", "mcp__local__run", "Agent"],
        "model": "sonnet",
        "temperature": 0.2,
        "permissionMode": "acceptEdits",
        "maxTurns": 7,
        "mcpServers": ["local"],
        "color": "green",
        "effort": "high",
        "skills": ["a"],
    }
    lost = {(loss.field, loss.outcome.value) for loss in rendering.losses}
    assert lost == {
        ("name", "dropped"),
        ("provider", "dropped"),
        ("top_p", "dropped"),
        ("allowed_tools", "translated"),  # Task is Qoder's Agent
    }
    mcp = json.loads({f.path: f.content for f in rendering.files}[".mcp.json"])
    assert mcp == {"mcpServers": {"local": {"type": "stdio", "command": "node", "args": ["s.js"]}}}


def test_what_qoder_cannot_hold_is_narrowed_or_refused_never_widened() -> None:
    narrowed = render(profile(allowed_tools=("Read", "Bash(git log:*)")))
    assert frontmatter(narrowed)["tools"] == ["Read"]
    denied = render(profile(denied_tools=("Bash(rm -rf:*)", "LS")))
    assert frontmatter(denied)["disallowedTools"] == ["Bash", "LS"]
    rule = render(
        profile(permission=(PermissionRule(permission="bash", pattern="rm *", action=DENY),))
    )
    assert frontmatter(rule)["disallowedTools"] == ["Bash"]
    # A deny last in the list denies everything, whatever an earlier allow said.
    last = (
        PermissionRule(permission="bash", action=ALLOW),
        PermissionRule(permission="*", action=DENY),
    )
    for refused, why in (
        (profile(permission=last), "no tools"),
        (
            profile(permission=(PermissionRule(permission="*", pattern="*.env", action=DENY),)),
            "every tool",
        ),
        (profile(allowed_tools=("Bash(git log:*)",)), "no tools"),
        (profile(denied_tools=("mcp__local__*",), mcp_servers=("local",)), "exact tool names"),
        (profile(description=""), "requires a description"),
    ):
        rendering = render(refused)
        assert rendering.files == () and why in errors(rendering)[0], errors(rendering)
    ask = render(profile(permission=(PermissionRule(permission="bash", action=ASK),)))
    assert "tools" not in frontmatter(ask) and "disallowedTools" not in frontmatter(ask)
    assert [(loss.field, loss.outcome.value) for loss in ask.losses] == [("permission", "dropped")]


def test_a_colour_or_memory_qoder_would_refuse_or_widen_is_left_out() -> None:
    rendering = render(
        profile(color="#ff8800", allowed_tools=("Grep",), harness={"qoder": {"memory": "user"}})
    )
    data = frontmatter(rendering)
    assert "color" not in data and "memory" not in data
    details = [loss.detail for loss in rendering.losses]
    assert any("Read, Write and Edit" in d for d in details)


def test_mcp_files_by_scope() -> None:
    project = render(profile(mcp_servers=("docs", "events", "varargs")))
    mcp = json.loads({f.path: f.content for f in project.files}[".mcp.json"])
    assert mcp["mcpServers"] == {
        "docs": {"type": "http", "url": "https://x.test/mcp", "headers": {"K": "${KEY}"}},
        "events": {"type": "sse", "url": "https://x.test/sse"},
    }
    assert any("does not expand variables" in e for e in errors(project))
    user = render(profile(mcp_servers=("varargs",)), scope=Scope.USER)
    settings = {f.path: f for f in user.files}[".qoder/settings.json"]
    assert json.loads(settings.content)["mcpServers"]["varargs"]["args"] == ["${HOME}/s.js"]
    existing = {
        ".qoder/settings.json": json.dumps({"model": "x", "mcpServers": {"m": {"command": "m"}}})
    }
    merged = render(profile(mcp_servers=("local",)), files=existing, scope=Scope.USER)
    data = json.loads({f.path: f.content for f in merged.files}[".qoder/settings.json"])
    assert data == {
        "model": "x",
        "mcpServers": {
            "m": {"command": "m"},
            "local": {"type": "stdio", "command": "node", "args": ["s.js"]},
        },
    }


def test_discover_reads_servers_in_qoders_order(tmp_path: Path) -> None:
    def server(tool: str) -> dict[str, object]:
        return {"command": "node", "args": [tool]}

    build_tree(
        tmp_path,
        {
            "home/.qoder/settings.json": json.dumps(
                {"mcpServers": {"a": server("user"), "b": server("user")}}
            ),
            "ws/.qoder/settings.json": json.dumps({"mcpServers": {"a": server("projsettings")}}),
            "ws/.mcp.json": json.dumps(
                {"mcpServers": {"a": server("mcpjson"), "b": server("mcpjson")}}
            ),
            "ws/.qoder/settings.local.json": json.dumps({"mcpServers": {"a": server("local")}}),
            "ws/.qoder/agents/x.md": (
                "---\nname: x\ndescription: d\nmcpServers: [a, b]\n---\n\nX.\n"
            ),
        },
    )
    found = CODEC.discover(Roots(workspace=tmp_path / "ws", home=tmp_path / "home"))
    assert {s.name: s.args for s in found.servers} == {"a": ("local",), "b": ("mcpjson",)}


def test_round_trip(tmp_path: Path) -> None:
    original = profile(
        model="opus",
        temperature=0.4,
        permission_mode="plan",
        max_turns=3,
        color="red",
        allowed_tools=("Read", "Grep", "mcp__local__run", "mcp__docs__*"),
        mcp_servers=("local", "docs"),
    )
    other = profile("other", denied_tools=("Bash", "WebFetch"), mcp_servers=("events",))
    rendering, found = render_and_discover(CODEC, [original, other], SERVERS, root=tmp_path)
    assert not rendering.losses
    back = {p.id: p for p in found.profiles}
    for before in (original, other):
        after = back[before.id]
        for field in sorted(CODEC.native_fields):
            want = before.prompt if field == "prompt" else getattr(before, field)
            got = after.prompt if field == "prompt" else getattr(after, field)
            assert got == want, (before.id, field)
