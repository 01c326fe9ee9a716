"""The Qwen Code codec: discovery by Qwen's levels and refusals (the same files the real CLI
is checked on, tests/codecs/test_qwen_cli.py), render field by field, what it refuses
rather than widen, ``settings.json`` merging and the round trip (README D12)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.base import Discovery, Probe, Rendering
from agent_roster.codecs.qwen.codec import CODEC
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from .helpers import discover_in, render_and_discover, render_with
from .qwen_trees import HOME, OFFERED, REFUSED, WORKSPACE

ROLE = (PromptSection(heading="Role", body="You review the change you are given."),)
SERVERS = {
    "local": McpServer(name="local", transport=Transport.STDIO, command="node", args=("s.js",)),
    "docs": McpServer(name="docs", transport=Transport.HTTP, url="https://x.test/mcp"),
    "events": McpServer(
        name="events", transport=Transport.SSE, url="https://x.test/sse", headers={"K": "${KEY}"}
    ),
}


def profile(ident: str = "helper", **kw: object) -> AgentProfile:
    base: dict[str, object] = {"name": ident, "description": "Helps.", "sections": ROLE}
    base.update(kw)
    return AgentProfile(id=ident, **base)  # type: ignore[arg-type]


def render(*profiles: AgentProfile, files: dict[str, str] | None = None) -> Rendering:
    return render_with(CODEC, profiles, SERVERS, files)


def frontmatter(rendering: Rendering, ident: str = "helper") -> dict[str, object]:
    text = {f.path: f.content for f in rendering.files}[f".qwen/agents/{ident}.md"]
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def errors(rendering: Rendering) -> list[str]:
    return [d.message for d in rendering.diagnostics if d.is_error]


def test_discover_follows_qwens_levels_and_refusals(tmp_path: Path) -> None:
    files = {f"ws/{k}": v for k, v in WORKSPACE.items()}
    files.update({f"home/{k}": v for k, v in HOME.items()})
    found: Discovery = discover_in(CODEC, tmp_path, files)
    assert {p.id: p.description for p in found.profiles} == OFFERED
    assert [p.id for p in found.profiles] == list(OFFERED)
    refused = {Path(d.path).name: d.message for d in found.diagnostics if d.is_error}
    assert sorted(refused) == sorted(REFUSED)
    assert refused["short.md"] == (
        "Failed to parse subagent file: Validation failed: System prompt must be at least 10 "
        "characters long"
    )
    assert refused["noname.md"] == 'Failed to parse subagent file: Missing "name" in frontmatter'
    by_id = {p.id: p for p in found.profiles}
    assert by_id["claude-mode"].permission_mode == "acceptEdits"
    assert by_id["reviewer"].allowed_tools == ("Read",)
    assert by_id["crlf"].prompt == "You are the crlf line ends agent, always."
    warnings = [d.message for d in found.diagnostics if not d.is_error]
    assert any("built-in" in w and "Explore" in w for w in warnings)
    assert any("already defined" in w for w in warnings)
    assert any("subfolders" in w for w in warnings)


def test_render_fields() -> None:
    rendering = render(
        profile(
            name="The Helper",
            model="qwen3-coder-plus",
            provider="qwen",
            permission_mode="acceptEdits",
            max_turns=7,
            color="green",
            allowed_tools=("Read", "Bash", "mcp__local__run"),
            denied_tools=("WebFetch",),
            mcp_servers=("local",),
            temperature=0.2,
        )
    )
    assert not errors(rendering)
    assert frontmatter(rendering) == {
        "name": "helper",
        "description": "Helps.",
        "tools": ["read_file", "run_shell_command", "mcp__local__run"],
        "disallowedTools": ["web_fetch"],
        "model": "qwen3-coder-plus",
        "approvalMode": "auto-edit",
        "maxTurns": 7,
        "color": "green",
    }
    lost = {(loss.field, loss.outcome.value) for loss in rendering.losses}
    # auto-edit still asks before a shell command the profile allows: stricter, reported.
    assert lost == {
        ("name", "dropped"),
        ("provider", "dropped"),
        ("temperature", "dropped"),
        ("allowed_tools", "translated"),
        ("permission", "translated"),
    }
    # ... and before the MCP tool (an import reads both asks back: issue 12 item 2).
    stricter = sorted({x.detail for x in rendering.losses if x.field == "permission"})
    assert [d.split(":", 1)[0] for d in stricter] == ["Bash", "mcp__local__run"]
    assert all(": allow becomes ask" in d for d in stricter)
    settings = json.loads({f.path: f.content for f in rendering.files}[".qwen/settings.json"])
    assert settings == {"mcpServers": {"local": {"command": "node", "args": ["s.js"]}}}


def test_transports_and_scoping_denies() -> None:
    rendering = render(
        profile("aa", mcp_servers=("docs", "events")), profile("bb", mcp_servers=("local",))
    )
    settings = json.loads({f.path: f.content for f in rendering.files}[".qwen/settings.json"])
    assert settings["mcpServers"] == {
        "docs": {"httpUrl": "https://x.test/mcp"},
        "events": {"url": "https://x.test/sse", "headers": {"K": "${KEY}"}},
        "local": {"command": "node", "args": ["s.js"]},
    }
    # Without a tools list every agent sees every server: the others' are denied.
    assert frontmatter(rendering, "aa")["disallowedTools"] == ["mcp__local__*"]
    assert frontmatter(rendering, "bb")["disallowedTools"] == ["mcp__docs__*", "mcp__events__*"]


def test_settings_keep_what_roster_does_not_own() -> None:
    existing = {
        ".qwen/settings.json": json.dumps(
            {"model": {"name": "x"}, "mcpServers": {"mine": {"command": "m"}}}
        )
    }
    rendering = render(profile(mcp_servers=("local",)), files=existing)
    settings = json.loads({f.path: f.content for f in rendering.files}[".qwen/settings.json"])
    assert settings == {
        "model": {"name": "x"},
        "mcpServers": {"mine": {"command": "m"}, "local": {"command": "node", "args": ["s.js"]}},
    }
    assert frontmatter(rendering)["disallowedTools"] == ["mcp__mine__*"]
    commented = {".qwen/settings.json": '// mine\n{"mcpServers": {}}'}
    assert any(
        "comments" in e for e in errors(render(profile(mcp_servers=("local",)), files=commented))
    )


def test_what_qwen_cannot_hold_is_narrowed_or_refused_never_widened() -> None:
    """Qwen's lists take whole tools: a tool allowed for some arguments is left out, one
    denied for some arguments is denied whole; both narrower, and said."""
    narrowed = render(profile(allowed_tools=("Read", "Bash(git log:*)")))
    assert frontmatter(narrowed)["tools"] == ["read_file"]
    assert [loss.outcome.value for loss in narrowed.losses if loss.field == "allowed_tools"] == [
        "dropped"
    ]
    denied = render(profile(denied_tools=("Bash(rm -rf:*)",)))
    assert frontmatter(denied)["disallowedTools"] == ["run_shell_command"]
    argument_rule = render(
        profile(
            permission=(
                PermissionRule(permission="bash", pattern="rm *", action=PermissionAction.DENY),
            )
        )
    )
    assert frontmatter(argument_rule)["disallowedTools"] == ["run_shell_command"]
    every_tool = render(
        profile(
            permission=(
                PermissionRule(permission="*", pattern="*.env", action=PermissionAction.DENY),
            )
        )
    )
    assert every_tool.files == () and "every tool" in errors(every_tool)[0]
    # An empty tools list means every tool to Qwen: an agent with none cannot be written.
    nothing = render(
        profile(permission=(PermissionRule(permission="*", action=PermissionAction.DENY),))
    )
    assert nothing.files == () and "no tools" in errors(nothing)[0]
    only_narrowed = render(profile(allowed_tools=("Bash(git log:*)",)))
    assert only_narrowed.files == () and "no tools" in errors(only_narrowed)[0]
    for bad, why in (
        (profile("x"), "at least 2 characters"),
        (profile("system"), "reserved name"),
        (profile(description=""), "Description is required"),
        (profile(sections=(PromptSection(heading="Role", body="Short."),)), "10 characters"),
    ):
        assert why in errors(render(bad))[0]


def test_multiedit_without_edit_is_narrowed_not_refused() -> None:
    # MultiEdit and Edit are one Qwen tool (edit). A profile allowing MultiEdit but not Edit
    # cannot be held; the check narrows the edit tools whole (deny: the strictest), and
    # that narrowed profile must then be written without edit, not refused because its
    # Tools list still names MultiEdit.
    from agent_roster.codecs.base import RenderRequest
    from agent_roster.codecs.guard import render_guarded

    request = RenderRequest(
        profiles=(profile(allowed_tools=("Read", "Write", "MultiEdit")),), servers=SERVERS
    )
    rendering = render_guarded(CODEC, request, {}.get)
    assert not errors(rendering)
    data = frontmatter(rendering)
    assert data["tools"] == ["read_file"] and data["disallowedTools"] == ["write_file"]
    narrowed = [loss for loss in rendering.losses if "cannot decide them apart" in loss.detail]
    assert narrowed and "MultiEdit" in narrowed[0].detail
    # What is not written is not reported as written under another name.
    assert not [loss for loss in rendering.losses if "written as edit" in loss.detail]


def test_a_whole_server_cannot_be_in_an_allowlist() -> None:
    rendering = render(profile(allowed_tools=("Read", "mcp__local__*"), mcp_servers=("local",)))
    assert frontmatter(rendering)["tools"] == ["read_file"]
    details = [loss.detail for loss in rendering.losses if loss.outcome.value == "dropped"]
    assert any("exact names only" in d for d in details)
    assert any("no tool of 'local'" in d for d in details)


def test_round_trip(tmp_path: Path) -> None:
    original = profile(
        model="qwen3-coder-plus",
        permission_mode="plan",
        max_turns=3,
        color="red",
        allowed_tools=("Read", "Grep", "mcp__local__run"),
        denied_tools=("WebSearch",),
        mcp_servers=("local",),
    )
    other = profile("other", denied_tools=("Bash",), mcp_servers=("docs",))
    _, found = render_and_discover(CODEC, [original, other], SERVERS, root=tmp_path)
    back = {p.id: p for p in found.profiles}
    for before in (original, other):
        after = back[before.id]
        for field in sorted(CODEC.native_fields):
            want = before.prompt if field == "prompt" else getattr(before, field)
            got = after.prompt if field == "prompt" else getattr(after, field)
            assert got == want, (before.id, field)


_ENTRIES = st.sampled_from(
    [
        "read_file",
        "ReadFile",
        "edit",
        "replace",
        "write_file",
        "run_shell_command",
        " run_shell_command ",
        "Shell",
        "Bash",
        "Edit",
        "glob",
        "web_fetch",
        "unknown_tool",
        "mcp__gh__search",
        "mcp__gh__*",
        "mcp__docs__fetch",
        "mcp__gh",
    ]
)
_PROBES = [
    *(
        Probe(tool)
        for tool in ("Read", "Edit", "Write", "MultiEdit", "Bash", "Glob", "WebFetch", "LS")
    ),
    Probe("Bash", "rm -rf /"),
    Probe("mcp__gh__search"),
    Probe("mcp__gh__other"),
    Probe("mcp__docs__fetch"),
    Probe("mcp__docs__do_thing"),
]


@settings(max_examples=400, deadline=None)
@given(
    tools=st.one_of(st.none(), st.lists(_ENTRIES, max_size=5), _ENTRIES.map(lambda e: e + ", x")),
    disallowed=st.one_of(st.none(), st.lists(_ENTRIES, max_size=4)),
    mode=st.sampled_from([None, "default", "plan", "auto-edit", "yolo", "auto", "bubble", "odd"]),
)
def test_an_agents_view_decides_as_its_lists_do(
    tools: object, disallowed: object, mode: str | None
) -> None:
    # The check reads an agent's lists once (qwen/semantics.View); every call must be
    # decided as reading the lists for that call decides it.
    from agent_roster.codecs.qwen.semantics import decide_data, decide_view, view_of

    data: dict[str, object] = {"tools": tools, "disallowedTools": disallowed}
    if mode is not None:
        data["approvalMode"] = mode
    view = view_of(data)
    for probe in _PROBES:
        assert decide_view(view, probe) == decide_data(data, probe), (data, probe)


_PIECES = st.sampled_from(["", "\n", "\r\n", "\r", "---", "---\n", "x", "\n---\n", " "])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=8).map("".join))
def test_a_file_has_frontmatter_where_qwens_pattern_finds_it(text: str) -> None:
    import re

    from agent_roster.codecs.qwen.read import parse_agent

    _, reason = parse_agent(text, Path("a.md"))
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    qwen = re.match(r"---\n[\s\S]*?\n---\n", normalized) is not None
    assert ("missing YAML frontmatter" not in reason) == qwen
