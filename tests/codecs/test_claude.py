"""The Claude Code codec: discovery by Claude Code 2.1.197's loader rules, render field by
field, losses, merging into shared MCP files, and the round trip (README D12)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_roster.codecs.base import Discovery, LossOutcome, Rendering, Scope
from agent_roster.codecs.claude.codec import CODEC
from agent_roster.codecs.claude.semantics import (
    Coverage,
    covers,
    split_by_characters,
    split_tools,
)
from agent_roster.codecs.native_md import read_native
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from ..trees import build_tree
from .helpers import EXAMPLES, discover_in, render_and_discover, render_with, roundtrip_differences

ROLE = (PromptSection(heading="Role", body="You help."),)


tree = build_tree


def agent(name: str, extra: str = "", body: str = "Body.") -> str:
    return f"---\nname: {name}\ndescription: {name} agent\n{extra}---\n\n{body}\n"


def discover(tmp_path: Path, files: dict[str, str]) -> Discovery:
    return discover_in(CODEC, tmp_path, files)


def render(
    profiles: list[AgentProfile],
    servers: Mapping[str, McpServer] | None = None,
    scope: Scope = Scope.PROJECT,
    existing: dict[str, str] | None = None,
) -> Rendering:
    return render_with(CODEC, profiles, servers, existing, scope)


# --- discovery ---------------------------------------------------------------------------


def test_project_replaces_user_and_folders_are_recursive(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            "home/.claude/agents/rev.md": agent("rev", body="user"),
            "home/.claude/agents/solo.md": agent("solo"),
            "ws/.claude/agents/team/rev.md": agent("rev", body="project"),
            "ws/.claude/agents/README.txt": "not markdown",
            "ws/.claude/agents/Upper.MD": agent("upper"),
        },
    )
    assert [p.id for p in found.profiles] == ["rev", "solo"]
    rev = found.profiles[0]
    assert rev.prompt == "project" and rev.source.endswith("team/rev.md")
    shadowed = [d for d in found.diagnostics if d.code == "harness-shadowed"]
    assert len(shadowed) == 1 and shadowed[0].path.endswith("home/.claude/agents/rev.md")
    assert "replaces this user agent" in shadowed[0].message
    assert not found.refused


def test_same_name_twice_in_one_folder_is_a_warning(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {"ws/.claude/agents/a/dup.md": agent("dup"), "ws/.claude/agents/b/dup.md": agent("dup")},
    )
    assert [p.id for p in found.profiles] == ["dup"]
    (warning,) = [d for d in found.diagnostics if d.code == "harness-shadowed"]
    assert "which one is not specified" in warning.message and not warning.is_error


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("---\ndescription: x\n---\nb\n", "harness-invalid", 'Missing required "name"'),
        ("---\nname: 42\ndescription: x\n---\nb\n", "harness-invalid", 'Missing required "name"'),
        ("---\nname: a\n---\nb\n", "harness-invalid", "missing required 'description'"),
        ("---\nname: a\ndescription: ''\n---\nb\n", "harness-invalid", "missing required"),
        ("---\nname: a\ndescription: [x]\n---\nb\n", "harness-invalid", "missing required"),
        ("---\nname: -a\ndescription: x\n---\nb\n", "harness-name-invalid", "must not start"),
    ],
)
def test_files_claude_refuses(tmp_path: Path, text: str, code: str, message: str) -> None:
    found = discover(tmp_path, {"ws/.claude/agents/a.md": text})
    assert found.profiles == () and found.refused
    (diagnostic,) = [d for d in found.diagnostics if d.is_error]
    assert diagnostic.code == code and message in diagnostic.message
    assert diagnostic.path.endswith("a.md") and diagnostic.line >= 1


def test_file_without_frontmatter_is_ignored_not_refused(tmp_path: Path) -> None:
    found = discover(tmp_path, {"ws/.claude/agents/notes.md": "# just notes\n"})
    assert found.profiles == () and not found.refused
    assert [d.code for d in found.diagnostics] == ["harness-ignored"]


def test_bad_optional_values_warn_and_unknown_keys_are_carried(tmp_path: Path) -> None:
    extra = (
        "permissionMode: wrong\nmaxTurns: 0\ncolor: teal\nmemory: project\nfoo: bar\n"
        "model: Inherit\n"
    )
    found = discover(tmp_path, {"ws/.claude/agents/a.md": agent("a", extra)})
    (profile,) = found.profiles
    assert not found.refused
    assert profile.permission_mode == "" and profile.max_turns is None and profile.model == ""
    assert profile.harness == {"claude": {"memory": "project", "foo": "bar"}}
    by_code = {(d.code, d.line) for d in found.diagnostics}
    assert ("harness-ignored", 8) in by_code  # foo, pointed at its line
    messages = " ".join(d.message for d in found.diagnostics)
    assert "invalid permissionMode 'wrong'. Valid options: acceptEdits, auto" in messages
    assert "invalid maxTurns '0'" in messages and "teal" in messages
    assert all(not d.is_error for d in found.diagnostics)


@given(st.text(alphabet=st.sampled_from("ab ,()\t\n*_:"), max_size=30) | st.text(max_size=30))
def test_split_tools_agrees_with_the_loop_on_any_text(value: str) -> None:
    # The fast path for lists without parentheses must split exactly as the loop does.
    assert split_tools(value) == split_by_characters(value)


def test_tools_parsing_follows_claude(tmp_path: Path) -> None:
    assert split_tools("Read, Grep Bash(git log:*), Agent(a, b)") == [
        "Read",
        "Grep",
        "Bash(git log:*)",
        "Agent(a, b)",
    ]
    found = discover(
        tmp_path,
        {
            "ws/.claude/agents/a.md": agent(
                "a", "tools: Read, mcp__agent-queue__get_task\ndisallowedTools: [Write]\n"
            ),
            "ws/.claude/agents/b.md": agent("b", "tools: ['*', Read]\n"),
            "ws/.claude/agents/c.md": agent("c", "tools: []\n"),
        },
    )
    a, b, c = found.profiles
    ask, allow = PermissionAction.ASK, PermissionAction.ALLOW
    assert a.allowed_tools == ("Read", "get_task") and a.denied_tools == ("Write",)
    # The default mode asks before an MCP tool: written out (issue 12 item 2).
    assert a.permission == (PermissionRule(permission="agent-queue_get_task", action=ask),)
    # '*' is every tool: the mode's decisions, the catch-all first.
    assert b.allowed_tools == () and not b.tools_exact
    assert b.permission[:2] == (
        PermissionRule(permission="*", action=ask),
        PermissionRule(permission="Read", action=allow),
    )
    # [] is no tools at all: the exact empty set, never "the runtime's default".
    assert (c.allowed_tools, c.tools_exact, c.permission) == ((), True, ())


def test_dont_ask_is_carried_and_reported(tmp_path: Path) -> None:
    found = discover(tmp_path, {"ws/.claude/agents/a.md": agent("a", "permissionMode: dontAsk\n")})
    assert found.profiles[0].harness == {"claude": {"permissionMode": "dontAsk"}}
    assert [loss.field for loss in found.losses] == ["permission_mode"]


def test_servers_by_scope_and_inline(tmp_path: Path) -> None:
    user = {
        "mcpServers": {"gh": {"type": "stdio", "command": "user-gh"}},
        "projects": {
            str((tmp_path / "ws").resolve()): {"mcpServers": {"db": {"command": "local-db"}}}
        },
    }
    project = {
        "mcpServers": {
            "gh": {"command": "project-gh", "env": {"T": "${TOKEN}"}},
            "web": {"type": "sse", "url": "https://x/sse", "headers": {"A": "b"}},
            "bad": {"type": "stdio"},
        }
    }
    inline = (
        "mcpServers:\n- gh\n- web\n- db\n- own: {command: own-cmd}\n- gone\n- web: {command: x}\n"
    )
    found = discover(
        tmp_path,
        {
            "home/.claude.json": json.dumps(user),
            "ws/.mcp.json": json.dumps(project),
            "ws/.claude/agents/a.md": agent("a", inline),
        },
    )
    servers = {s.name: s for s in found.servers}
    assert found.profiles[0].mcp_servers == ("gh", "web", "db", "own", "gone")
    assert servers["gh"].command == "project-gh" and servers["gh"].env == {"T": "${TOKEN}"}
    assert servers["db"].command == "local-db"
    assert servers["web"].transport is Transport.SSE and servers["web"].headers == {"A": "b"}
    assert servers["own"].command == "own-cmd" and "gone" not in servers
    codes = [d.code for d in found.diagnostics]
    assert codes.count("harness-shadowed") == 1  # inline 'web' loses to the parent's
    bad = [d for d in found.diagnostics if "[bad]" in d.message]
    assert bad and bad[0].is_error and found.refused
    assert any("'gone'" in d.message for d in found.diagnostics)


# --- render --------------------------------------------------------------------------------


def profile(**fields: Any) -> AgentProfile:
    base = {"id": "helper", "name": "helper", "description": "Helps.", "sections": ROLE}
    return AgentProfile(**{**base, **fields})


def frontmatter(content: str) -> dict:  # type: ignore[type-arg]
    doc = read_native(content, "x.md", [])
    assert doc is not None
    return doc.data


def test_render_writes_every_field() -> None:
    p = profile(
        model="opus",
        permission_mode="plan",
        max_turns=7,
        color="cyan",
        allowed_tools=("Read", "Bash(git log:*)", "get_task", "mcp__gh__*"),
        denied_tools=("Write", "Bash(rm -rf:*)"),
        mcp_servers=("gh",),
        harness={"claude": {"effort": "high", "name": "ignored"}},
    )
    gh = McpServer(name="gh", transport=Transport.STDIO, command="npx", env={"T": "${T:-x}"})
    rendering = render([p], {"gh": gh})
    files = {f.path: f.content for f in rendering.files}
    data = frontmatter(files[".claude/agents/helper.md"])
    assert data == {
        "name": "helper",
        "description": "Helps.",
        "tools": ["Read", "Bash(git log:*)", "mcp__agent-queue__get_task", "mcp__gh__*"],
        "disallowedTools": ["Write"],
        "model": "opus",
        "permissionMode": "plan",
        "maxTurns": 7,
        "mcpServers": ["gh"],
        "color": "cyan",
        "effort": "high",
    }
    body = files[".claude/agents/helper.md"]
    # Prompt text is not a restriction (issue 12 item 2): nothing is added to the prompt;
    # the render check refuses what Claude Code cannot hold (test_never_widen.py).
    assert "roster:embedded" not in body and "rm -rf" not in body
    assert json.loads(files[".mcp.json"]) == {
        "mcpServers": {"gh": {"type": "stdio", "command": "npx", "env": {"T": "${T:-x}"}}}
    }
    outcomes = {(loss.field, loss.outcome) for loss in rendering.losses}
    assert ("denied_tools", LossOutcome.DROPPED) in outcomes
    assert ("allowed_tools", LossOutcome.TRANSLATED) in outcomes
    assert ("harness", LossOutcome.DROPPED) in outcomes
    assert not any(outcome is LossOutcome.EMBEDDED for _, outcome in outcomes)


def test_permission_rules_map_to_tool_lists() -> None:
    rules = (
        PermissionRule(permission="*", action=PermissionAction.DENY),
        PermissionRule(permission="read", action=PermissionAction.ALLOW),
        PermissionRule(permission="edit", action=PermissionAction.DENY),
        PermissionRule(permission="webfetch", action=PermissionAction.ASK),
        PermissionRule(permission="bash", pattern="git *", action=PermissionAction.ALLOW),
    )
    rendering = render([profile(permission=rules)])
    content = rendering.files[0].content
    data = frontmatter(content)
    # '*: deny' first: an explicit tools list of what the rules do not deny; WebFetch
    # asks in Claude's default mode as the rule says; the git-only shell is not granted
    # (Claude cannot narrow a tool by argument), which is stricter.
    assert data["tools"] == ["Read", "WebFetch"]
    assert "disallowedTools" not in data
    assert "roster:embedded" not in content
    by_outcome = {loss.outcome for loss in rendering.losses if loss.field == "permission"}
    assert by_outcome == {LossOutcome.TRANSLATED}


def test_rules_claude_decides_otherwise_become_disallowed_or_stricter() -> None:
    rules = (
        PermissionRule(permission="*", action=PermissionAction.ALLOW),
        PermissionRule(permission="bash", action=PermissionAction.DENY),
        PermissionRule(permission="read", action=PermissionAction.ASK),
    )
    rendering = render([profile(permission=rules)])
    data = frontmatter(rendering.files[0].content)
    assert "tools" not in data  # nothing is denied by default: every tool stays
    # Bash is denied; Read asks, which Claude Code cannot do for a read: denied too.
    assert data["disallowedTools"] == ["Read", "Bash"]
    details = [loss.detail for loss in rendering.losses if loss.field == "permission"]
    assert "Read: ask becomes deny" in " ".join(details)
    assert any(d.startswith("Edit, Write, WebFetch, WebSearch: allow becomes ask") for d in details)


def test_render_refuses_what_claude_would_not_load() -> None:
    rendering = render(
        [profile(id="-x"), profile(id="plug:x"), profile(id="nodesc", description=" ")]
    )
    assert rendering.files == ()
    codes = sorted(d.code for d in rendering.diagnostics)
    assert codes == ["harness-name-invalid", "harness-name-invalid", "render-unsupported"]
    assert all(d.is_error for d in rendering.diagnostics)


def test_full_mode_and_dropped_fields_are_reported() -> None:
    p = profile(name="Helper", permission_mode="full", temperature=0.2, provider="x", color="#fff")
    rendering = render([p])
    assert frontmatter(rendering.files[0].content)["permissionMode"] == "bypassPermissions"
    fields = {loss.field: loss.outcome for loss in rendering.losses}
    assert fields["permission_mode"] is LossOutcome.TRANSLATED
    assert fields["name"] is fields["temperature"] is fields["provider"] is LossOutcome.DROPPED
    assert fields["color"] is LossOutcome.DROPPED


def test_mcp_files_are_merged_not_overwritten() -> None:
    gh = McpServer(name="gh", transport=Transport.HTTP, url="https://gh", headers={"A": "b"})
    existing = {
        ".mcp.json": json.dumps({"mcpServers": {"other": {"command": "x"}, "gh": {}}, "k": 1}),
        ".claude.json": json.dumps({"numStartups": 3, "projects": {}}),
    }
    project = render([profile(mcp_servers=("gh",))], {"gh": gh}, existing=existing)
    merged = json.loads({f.path: f.content for f in project.files}[".mcp.json"])
    assert merged == {
        "mcpServers": {
            "other": {"command": "x"},
            "gh": {"type": "http", "url": "https://gh", "headers": {"A": "b"}},
        },
        "k": 1,
    }
    user = render([profile(mcp_servers=("gh",))], {"gh": gh}, Scope.USER, existing)
    state = {f.path: f for f in user.files}[".claude.json"]
    assert json.loads(state.content)["numStartups"] == 3 and state.mode == 0o600
    broken = render([profile(mcp_servers=("gh",))], {"gh": gh}, existing={".mcp.json": "{"})
    assert [f.path for f in broken.files] == [".claude/agents/helper.md"]
    assert [d.code for d in broken.diagnostics] == ["render-unsupported"]


def test_missing_registry_server_is_a_warning() -> None:
    rendering = render([profile(mcp_servers=("nowhere",))])
    (warning,) = rendering.diagnostics
    assert not warning.is_error and "nowhere" in warning.message


# --- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_example_vault_round_trips(scope: Scope, tmp_path: Path) -> None:
    example = load_effective(EXAMPLES)
    rendering, found = render_and_discover(
        CODEC, example.profiles, example.servers, scope, tmp_path
    )
    assert not [d for d in rendering.diagnostics if d.is_error]
    assert not found.refused and not [d for d in found.diagnostics if d.is_error]
    assert roundtrip_differences(CODEC, example.profiles, found.profiles) == []
    assert {s.name for s in found.servers} == {n for p in example.profiles for n in p.mcp_servers}


CORPUS = [
    profile(),
    profile(id="a-1", model="claude-opus-4-1", permission_mode="acceptEdits", max_turns=3),
    profile(id="b", permission_mode="auto", color="red"),
    profile(id="c", allowed_tools=("Read", "Bash(npm test:*)", "mcp__gh__get", "create_task")),
    profile(id="d", denied_tools=("WebFetch", "mcp__gh__delete"), mcp_servers=("gh",)),
    profile(id="e", harness={"claude": {"skills": ["x"], "background": True}}),
    profile(
        id="f",
        sections=(
            PromptSection(heading="Role", body="R"),
            PromptSection(heading="Style", body="- a\n- b"),
        ),
    ),
]


def test_corpus_round_trips(tmp_path: Path) -> None:
    gh = McpServer(name="gh", transport=Transport.SSE, url="https://gh/sse")
    rendering, found = render_and_discover(CODEC, CORPUS, {"gh": gh}, Scope.PROJECT, tmp_path)
    assert not rendering.diagnostics
    assert roundtrip_differences(CODEC, CORPUS, found.profiles) == []
    e = {p.id: p for p in found.profiles}["e"]
    assert e.harness == {"claude": {"skills": ["x"], "background": True}}


_ENTRY = st.sampled_from(
    [
        "Bash",
        "Bash(git log:*)",
        "Agent",
        "Agent(reviewer, tester)",
        "Task",
        "Task(helper)",
        "Read",
        " Edit ",
        "mcp__github",
        "mcp__github__*",
        "mcp__github__create_issue",
        "mcp__db__query",
    ]
)


@given(
    st.lists(_ENTRY, max_size=8),
    st.lists(_ENTRY, max_size=4),
    st.sampled_from(
        [
            "Bash",
            "Agent",
            "Task",
            "Read",
            "Edit",
            "Write",
            "mcp__github__create_issue",
            "mcp__github__list",
            "mcp__db__query",
            "mcp__db__drop",
        ]
    ),
    st.sampled_from([None, "*", "reviewer", "helper", "other"]),
)
def test_a_growing_coverage_answers_as_covers_of_its_list(
    first: list[str], later: list[str], tool: str, argument: str | None
) -> None:
    # Claude's render asks about its tools and disallowedTools lists while it appends to
    # them: the incremental reading must answer exactly as covers() of the list so far.
    coverage = Coverage(first)
    assert coverage.entries == first
    assert coverage.covers(tool, argument) == covers(first, tool, argument)
    for entry in later:
        coverage.append(entry)
    assert coverage.entries == [*first, *later]
    assert coverage.covers(tool, argument) == covers([*first, *later], tool, argument)
