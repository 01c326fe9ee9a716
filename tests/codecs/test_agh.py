"""The AGH codec against seed 002's rules, case by case (section named per case)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.agh import render as agh_render
from agent_roster.codecs.agh.codec import CODEC
from agent_roster.codecs.agh.rules import tool_pattern_error
from agent_roster.codecs.base import LossOutcome, RenderRequest, Roots, Scope
from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
    Runtime,
)
from agent_roster.resolve.merge import origins_of, overlay
from agent_roster.vault.loader import load_vault
from tests.codecs.helpers import EXAMPLES, render_and_discover, roundtrip_differences

from ..trees import build_tree
from .helpers import render_with

MINIMAL = """---
name: code-reviewer
provider: claude
model: claude-sonnet-4-6
permissions: approve-reads
---
You are a senior code reviewer.
"""


tree = build_tree


def discover(tmp_path: Path, workspace: dict[str, str], home: dict[str, str] | None = None):
    tree(tmp_path / "ws", workspace)
    tree(tmp_path / "home", home or {})
    (tmp_path / "ws").mkdir(exist_ok=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    return CODEC.discover(Roots(workspace=tmp_path / "ws", home=tmp_path / "home"))


def agent(name: str, frontmatter: str, body: str = "Prompt.") -> dict[str, str]:
    return {f".agh/agents/{name}/AGENT.md": f"---\n{frontmatter}---\n{body}\n"}


# -- discovery: accepted files ------------------------------------------------------------


def test_minimal_valid_file(tmp_path: Path) -> None:
    """Seed 002 "Minimal valid file" and the permissions row of permissions.md §3."""
    found = discover(tmp_path, {".agh/agents/code-reviewer/AGENT.md": MINIMAL})
    assert not found.refused and found.diagnostics == ()
    (profile,) = found.profiles
    assert profile.id == profile.name == "code-reviewer"
    assert profile.model == "claude-sonnet-4-6"
    assert profile.agent_name == "claude" and profile.runtime is Runtime.ACPX
    assert profile.permission == (
        PermissionRule(permission="*", action=PermissionAction.ASK),
        PermissionRule(permission="read", action=PermissionAction.ALLOW),
    )
    assert profile.sections == (
        PromptSection(heading="Role", body="You are a senior code reviewer."),
    )
    assert profile.source.endswith(".agh/agents/code-reviewer/AGENT.md")


def test_first_wins_workspace_over_home(tmp_path: Path) -> None:
    """Seed 002 "Discovery paths": first-wins, no merge."""
    found = discover(
        tmp_path,
        agent("rev", "name: rev\nmodel: ws-model\n"),
        agent("rev", "name: rev\nmodel: home-model\n") | agent("other", "name: other\n"),
    )
    assert [p.id for p in found.profiles] == ["rev", "other"]
    assert found.profiles[0].model == "ws-model"
    (shadow,) = found.diagnostics
    assert shadow.code == "harness-shadowed" and shadow.severity == "warning"
    assert shadow.path.endswith("home/.agh/agents/rev/AGENT.md")


def test_toml_frontmatter_is_the_fallback(tmp_path: Path) -> None:
    """Seed 002: "The parser accepts YAML frontmatter first. If YAML parsing fails, it tries
    TOML frontmatter." """
    found = discover(tmp_path, agent("t", 'name = "t"\ntools = ["mcp__gh__*"]\n'))
    assert not found.refused
    assert found.profiles[0].allowed_tools == ("mcp__gh__*",)


def test_folders_without_agent_md_and_plain_files_are_skipped(tmp_path: Path) -> None:
    found = discover(tmp_path, {".agh/agents/empty/notes.txt": "x", ".agh/agents/README.md": "x"})
    assert found.profiles == () and not found.refused
    # AGH skips them without a word; roster says so (issue 12 item 6).
    assert [
        (Path(d.path).name, d.code, d.severity.value, d.message) for d in found.diagnostics
    ] == [
        (
            "README.md",
            "harness-ignored",
            "warning",
            "AGH does not load README.md: agents are folders (<name>/AGENT.md), not files",
        ),
        (
            "empty",
            "harness-ignored",
            "warning",
            "AGH does not load empty: the folder has no AGENT.md",
        ),
    ]


def test_sidecar_replaces_inline_server_and_secret_env(tmp_path: Path) -> None:
    """Seed 002 "MCP servers": sidecar replaces the whole inline server of the same name."""
    inline = (
        "name: pr\nmcp_servers:\n  - name: github\n    command: old\n"
        "  - name: docs\n    command: docs-server\n"
    )
    sidecar = {
        "mcpServers": {
            "github": {
                "command": "npx",
                "args": ["-y", "gh"],
                "secret_env": {"GITHUB_TOKEN": "env:GH_TOKEN"},
            }
        }
    }
    found = discover(
        tmp_path, agent("pr", inline) | {".agh/agents/pr/mcp.json": json.dumps(sidecar)}
    )
    assert not found.refused, found.diagnostics
    assert found.profiles[0].mcp_servers == ("github", "docs")
    servers = {s.name: s for s in found.servers}
    assert servers["github"].command == "npx"
    assert servers["github"].env == {"GITHUB_TOKEN": "${GH_TOKEN}"}
    assert servers["docs"].command == "docs-server"


def test_pass_through_keys_go_to_harness_agh(tmp_path: Path) -> None:
    """Seed 002 frontmatter reference: command, toolsets, non-MCP tools have no canonical
    meaning (README D5)."""
    front = (
        "name: x\ncommand: claude --fast\ntoolsets: [agh__coordination]\n"
        "tools: [agh__skill_view, mcp__github__*]\ndeny_tools: [agh__network_send]\n"
    )
    found = discover(tmp_path, agent("x", front) | {".agh/agents/x/capabilities.toml": "a = 1\n"})
    (profile,) = found.profiles
    assert profile.allowed_tools == ("mcp__github__*",)
    assert profile.harness == {
        "agh": {
            "command": "claude --fast",
            "toolsets": ["agh__coordination"],
            "tools": ["agh__skill_view"],
            "deny_tools": ["agh__network_send"],
            "capabilities": {"capabilities.toml": "a = 1\n"},
        }
    }


# -- discovery: refusals (seed 002 "Common validation failures") --------------------------

REFUSALS = [
    (
        "missing frontmatter",
        {".agh/agents/a/AGENT.md": "Just text\n"},
        "config: missing YAML frontmatter",
    ),
    (
        "unterminated",
        {".agh/agents/a/AGENT.md": "---\nname: a\nbody\n"},
        "config: unterminated YAML frontmatter",
    ),
    (
        "BOM",
        {".agh/agents/a/AGENT.md": "\ufeff" + MINIMAL},
        "config: UTF-8 BOM before YAML frontmatter",
    ),
    (
        "unknown field description",
        agent("a", "name: a\ndescription: x\n"),
        'unknown field "description"',
    ),
    (
        "RFC skills.inherit",
        agent("a", "name: a\nskills:\n  inherit: true\n"),
        'unknown field "skills.inherit"',
    ),
    ("RFC memory", agent("a", "name: a\nmemory:\n  scope: x\n"), 'unknown field "memory"'),
    ("empty body", agent("a", "name: a\n", body="   \n"), "agent prompt is required"),
    ("missing name", agent("a", "model: m\n"), "agent name is required"),
    (
        "bad permissions",
        agent("a", "name: a\npermissions: ask\n"),
        'agent.permissions must be one of "deny-all", "approve-reads", "approve-all": "ask"',
    ),
    ("name ≠ directory", agent("a", "name: b\n"), 'defines name "b", expected "a"'),
    (
        "claude tool name",
        agent("a", "name: a\ntools: [Read]\n"),
        "agent.tools[0]: segment must start with a lowercase letter",
    ),
    (
        "no namespace",
        agent("a", "name: a\ntools: [read]\n"),
        'agent.tools[0] must include canonical namespace separator "__": "read"',
    ),
    (
        "hyphen in MCP tool",
        agent("a", "name: a\ntools: [mcp__ctx__resolve-library-id]\n"),
        "agent.tools[0]: segment contains an unsupported character",
    ),
    (
        "bare star",
        agent("a", "name: a\ndeny_tools: ['*']\n"),
        'agent.deny_tools[0] must be exact canonical ToolID or namespace-prefix wildcard: "*"',
    ),
    (
        "inline server without command",
        agent("a", "name: a\nmcp_servers:\n  - name: s\n"),
        "agent.mcp_servers[0].command is required",
    ),
    (
        "secret-like env",
        agent(
            "a", "name: a\nmcp_servers:\n  - name: s\n    command: x\n    env: {GITHUB_TOKEN: t}\n"
        ),
        "env.GITHUB_TOKEN must move secret-like values to secret_env",
    ),
    (
        "sidecar unknown server field",
        agent("a", "name: a\n")
        | {".agh/agents/a/mcp.json": '{"mcpServers": {"s": {"command": "x", "cwd": "/"}}}'},
        'unknown field "cwd"',
    ),
    (
        "sidecar invalid JSON",
        agent("a", "name: a\n") | {".agh/agents/a/mcp.json": "{"},
        "config: decode MCP JSON",
    ),
    (
        "two capability layouts",
        agent("a", "name: a\n")
        | {".agh/agents/a/capabilities.toml": "", ".agh/agents/a/capabilities.json": "{}"},
        "capability catalog: use exactly one of",
    ),
    ("tab in key", agent("a", "name: a\nmo\tdel: x\n"), "config: invalid YAML frontmatter key"),
]


#: Where seed 002 states each rule (ids read "<seed section>: <case>").
SEED_002 = {
    "missing frontmatter": "Common validation failures",
    "unterminated": "Common validation failures",
    "BOM": "agh.md §3 (frontmatter.Split)",
    "unknown field description": "Draft RFC fields not accepted today",
    "RFC skills.inherit": "Draft RFC fields not accepted today",
    "RFC memory": "Draft RFC fields not accepted today",
    "empty body": "Common validation failures",
    "missing name": "Frontmatter reference: name",
    "bad permissions": "Common validation failures",
    "name ≠ directory": "Frontmatter reference: name",
    "claude tool name": "Resolution cascade: Tools",
    "no namespace": "Resolution cascade: Tools",
    "hyphen in MCP tool": "Resolution cascade: Tools",
    "bare star": "Frontmatter reference: deny_tools",
    "inline server without command": "Frontmatter reference: mcp_servers",
    "secret-like env": "agh.md §6 (MCPServer.Validate)",
    "sidecar unknown server field": "MCP servers: sidecar behavior",
    "sidecar invalid JSON": "MCP servers: sidecar behavior",
    "two capability layouts": "agh.md §7 (capabilities)",
    "tab in key": "agh.md §3 (decodeAgentFrontmatter)",
}


@pytest.mark.parametrize(
    ("case", "files", "message"), REFUSALS, ids=[f"{SEED_002[r[0]]}: {r[0]}" for r in REFUSALS]
)
def test_refusal_refuses_the_whole_load(
    tmp_path: Path, case: str, files: dict[str, str], message: str
) -> None:
    """One bad file: AGH loads no agent at all (``LoadWorkspaceAgentDefs`` errors)."""
    found = discover(tmp_path, files | agent("good", "name: good\n"))
    assert found.refused, case
    assert found.profiles == ()
    errors = [d for d in found.diagnostics if d.is_error]
    assert any(message in d.message for d in errors), [d.message for d in errors]


def test_every_bad_file_is_reported_and_positions_point_at_keys(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        agent("a", "name: a\ndescription: x\n"),
        agent("b", "name: b\npermissions: yes\n"),
    )
    errors = [d for d in found.diagnostics if d.is_error]
    assert len(errors) == 2
    assert errors[0].code == "harness-field-unknown" and errors[0].line == 3
    assert errors[1].path.endswith("home/.agh/agents/b/AGENT.md") and errors[1].line == 3


def test_broken_shadowed_definition_still_refuses(tmp_path: Path) -> None:
    """AGH parses every folder before applying first-wins, so a broken lower layer counts."""
    found = discover(tmp_path, agent("a", "name: a\n"), agent("a", "name: a\ndescription: d\n"))
    assert found.refused and found.profiles == ()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("mcp__github__create_issue", None),
        ("mcp__github__*", None),
        ("agh__skill_*", None),
        ("mcp__my-server__x", "agent.tools[0]: segment contains an unsupported character"),
        ("mcp__GitHub__x", "agent.tools[0]: segment must start with a lowercase letter"),
        ("mcp___x", "agent.tools[0]: reserved separator is ambiguous"),
        ("mcp__x_", "agent.tools[0]: segment uses reserved underscore boundary"),
        (
            "mcp__*x",
            'agent.tools[0] must be exact canonical ToolID or namespace-prefix wildcard: "mcp__*x"',
        ),
        (
            "mcp__g*",
            'agent.tools[0] must be exact canonical ToolID or namespace-prefix wildcard: "mcp__g*"',
        ),
        ("mcp__" + "a" * 60, "agent.tools[0]: id exceeds 64 characters"),
    ],
)
def test_tool_id_grammar(value: str, error: str | None) -> None:
    """docs/codecs/tool-names.md, AGH row (``internal/tools/id.go``)."""
    assert tool_pattern_error(value, "agent.tools[0]") == error


# -- render -------------------------------------------------------------------------------

GITHUB = McpServer(
    name="github",
    transport=Transport.STDIO,
    command="npx",
    args=("-y", "gh"),
    env={"GITHUB_TOKEN": "${GH_TOKEN}", "LOG": "debug"},
)


def profile(**kw: object) -> AgentProfile:
    base: dict[str, object] = {
        "id": "rev",
        "name": "rev",
        "sections": (PromptSection(heading="Role", body="Review code."),),
    }
    base.update(kw)
    return AgentProfile(**base)  # type: ignore[arg-type]


def render(*profiles: AgentProfile, existing: dict[str, str] | None = None, servers=None):
    return render_with(CODEC, profiles, servers or {"github": GITHUB}, existing)


def test_render_field_by_field() -> None:
    result = render(
        profile(
            description="never written",
            model="claude-sonnet-4-6",
            agent_name="claude",
            runtime=Runtime.ACPX,
            permission_mode="bypassPermissions",
            allowed_tools=("mcp__github__get_issue",),
            denied_tools=("mcp__github__merge_pull_request",),
            mcp_servers=("github",),
        )
    )
    assert result.diagnostics == ()
    files = {f.path: f.content for f in result.files}
    assert files[".agh/agents/rev/AGENT.md"] == (
        "---\nname: rev\nprovider: claude\nmodel: claude-sonnet-4-6\n"
        "tools:\n- mcp__github__get_issue\ndeny_tools:\n- mcp__github__merge_pull_request\n"
        "permissions: approve-reads\n---\n\nReview code.\n"
    )
    assert json.loads(files[".agh/agents/rev/mcp.json"]) == {
        "mcpServers": {
            "github": {
                "command": "npx",
                "args": ["-y", "gh"],
                "env": {"LOG": "debug"},
                "secret_env": {"GITHUB_TOKEN": "env:GH_TOKEN"},
            }
        }
    }
    outcomes = {(loss.field, loss.outcome) for loss in result.losses}
    assert ("description", LossOutcome.DROPPED) in outcomes
    assert ("permission_mode", LossOutcome.TRANSLATED) in outcomes


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({}, None),
        ({"permission_mode": "default"}, "approve-reads"),
        ({"permission_mode": "plan"}, "approve-reads"),
        ({"permission_mode": "acceptEdits"}, "approve-reads"),
        ({"permission_mode": "auto"}, "approve-all"),
        ({"permission_mode": "full"}, "approve-all"),
        (
            {"permission": (PermissionRule(permission="*", action=PermissionAction.DENY),)},
            "deny-all",
        ),
        ({"allowed_tools": ("Read",)}, "approve-reads"),
    ],
)
def test_permissions_mapping(kw: dict[str, object], expected: str | None) -> None:
    """permissions.md §3.1 (AGH column) and §3 (effective decisions)."""
    (agent_md,) = [f for f in render(profile(**kw)).files if f.path.endswith("AGENT.md")]
    line = f"permissions: {expected}\n"
    assert (line in agent_md.content) if expected else ("permissions:" not in agent_md.content)


def test_invalid_mcp_tool_id_is_never_written() -> None:
    result = render(profile(allowed_tools=("mcp__ctx__resolve-library-id", "mcp__ctx__*")))
    content = result.files[0].content
    assert "resolve-library-id" not in content and "- mcp__ctx__*" in content
    (dropped,) = [x for x in result.losses if x.outcome is LossOutcome.DROPPED]
    assert "segment contains an unsupported character" in dropped.detail


def test_builtin_denies_are_embedded_and_removed_on_import(tmp_path: Path) -> None:
    """README D4: embedded prose is marked; import drops it again."""
    original = profile(denied_tools=("Edit", "Bash(rm -rf:*)"))
    # Prose restricts nothing, so `roster render` refuses this agent (test_never_widen.py);
    # written anyway, the marked prose still goes away again on import.
    rendering, found = render_and_discover(
        CODEC, [original], {}, root=tmp_path, allow_widening=True
    )
    text = rendering.files[0].content
    assert "<!-- roster:embedded -->\n- Never use Edit.\n- Never use Bash(rm -rf:*)." in text
    assert found.profiles[0].prompt == original.prompt


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"id": "a/b"}, 'agent name "a/b" is invalid'),
        ({"sections": ()}, "agent prompt is required"),
        (
            {"harness": {"agh": {"tools": ["read"]}}},
            'must include canonical namespace separator "__"',
        ),
        ({"harness": {"agh": {"description": "x"}}}, 'unknown field "description"'),
        ({"harness": {"agh": {"toolsets": ["tasks"]}}}, "agent.toolsets[0] must include"),
    ],
)
def test_render_refuses_what_agh_refuses(kw: dict[str, object], message: str) -> None:
    result = render(profile(**kw))
    assert result.files == ()
    (diag,) = result.diagnostics
    assert diag.code == "render-unsupported" and message in diag.message


@pytest.mark.parametrize(
    ("server", "message"),
    [
        (
            McpServer(name="c7", transport=Transport.HTTP, url="https://x", headers={"K": "${K}"}),
            "no headers field",
        ),
        (
            McpServer(
                name="c7", transport=Transport.STDIO, command="x", env={"API_KEY": "literal"}
            ),
            "literal secret",
        ),
        (
            McpServer(name="c7", transport=Transport.STDIO, command="x", env={"A": "pre${X}"}),
            "does not expand placeholders",
        ),
    ],
)
def test_unwritable_server_refuses_the_agent(server: McpServer, message: str) -> None:
    """The sidecar is part of the agent; an agent short of a server is not written."""
    result = render(profile(mcp_servers=("c7",)), profile(id="other"), servers={"c7": server})
    assert [f.path for f in result.files] == [".agh/agents/other/AGENT.md"]
    (diag,) = result.diagnostics
    assert diag.code == "render-unsupported" and message in diag.message
    assert diag.message.startswith("agent 'rev' cannot be written for AGH: MCP server 'c7'")


def test_stale_sidecar_is_emptied() -> None:
    result = render(profile(), existing={".agh/agents/rev/mcp.json": '{"mcpServers": {"x": {}}}'})
    sidecar = {f.path: f.content for f in result.files}[".agh/agents/rev/mcp.json"]
    assert json.loads(sidecar) == {"mcpServers": {}}


def test_user_scope_uses_the_same_relative_path(tmp_path: Path) -> None:
    rendering, found = render_and_discover(CODEC, [profile()], {}, Scope.USER, root=tmp_path)
    assert rendering.files[0].path == ".agh/agents/rev/AGENT.md"
    assert found.profiles[0].source.endswith("home/.agh/agents/rev/AGENT.md")


# -- round trip (README D12) --------------------------------------------------------------


def example_profiles() -> tuple[list[AgentProfile], dict[str, McpServer]]:
    snapshot = load_vault(EXAMPLES)
    raw = {k[1]: p.profile for k, p in snapshot.profiles.items() if p.profile and k[0] is None}

    def effective(p: AgentProfile) -> AgentProfile:
        if p.extends:
            base = effective(raw[p.extends])
            return overlay(base, origins_of(base), p)[0]
        return p

    servers = {k[1]: s.server for k, s in snapshot.servers.items() if k[0] is None and s.server}
    return [effective(p) for p in raw.values()], servers


def test_roundtrip_example_vault(tmp_path: Path) -> None:
    profiles, servers = example_profiles()
    # Fields, not permissions (the render check is tested in test_never_widen*.py).
    rendering, found = render_and_discover(
        CODEC, profiles, servers, root=tmp_path, allow_widening=True
    )
    assert not found.refused, found.diagnostics
    assert rendering.diagnostics == ()  # the example vault renders whole (issue 13)
    assert sorted(p.id for p in found.profiles) == sorted(p.id for p in profiles)
    assert roundtrip_differences(CODEC, profiles, found.profiles) == []


def test_a_server_header_refuses_the_agent_and_says_so(tmp_path: Path) -> None:
    profiles, servers = example_profiles()
    headers = {"CONTEXT7_API_KEY": "${CONTEXT7_API_KEY}"}
    servers["context7"] = msgspec.structs.replace(servers["context7"], headers=headers)
    rendering, found = render_and_discover(
        CODEC, profiles, servers, root=tmp_path, allow_widening=True
    )
    assert not found.refused, found.diagnostics
    # context7 sends its key as an HTTP header, which AGH cannot express: reported, not hidden.
    (diag,) = rendering.diagnostics
    assert diag.message.startswith(
        "agent 'web-developer' cannot be written for AGH: MCP server 'context7': headers"
    )
    written = [p for p in profiles if p.id != "web-developer"]
    assert sorted(p.id for p in found.profiles) == sorted(p.id for p in written)
    assert roundtrip_differences(CODEC, written, found.profiles) == []


CORPUS = [
    profile(),
    profile(id="b", model="gpt-5.4", agent_name="codex", mcp_servers=("github",)),
    profile(
        id="c",
        sections=(
            PromptSection(heading="Role", body="Line one.\n\nLine two."),
            PromptSection(heading="Rules", body="- a\n- b"),
        ),
        harness={
            "agh": {
                "command": "claude --x",
                "toolsets": ["agh__coordination"],
                "skills": {"disabled": ["web"]},
                "category_path": ["Team", "Review"],
                "tools": ["agh__skill_view"],
                "deny_tools": ["agh__network_send"],
                "capabilities": {"capabilities/review.toml": 'id = "review"\n'},
            }
        },
    ),
]


def test_roundtrip_corpus_including_pass_through(tmp_path: Path) -> None:
    rendering, found = render_and_discover(CODEC, CORPUS, {"github": GITHUB}, root=tmp_path)
    assert rendering.diagnostics == () and not found.refused
    assert roundtrip_differences(CODEC, CORPUS, found.profiles) == []
    back = {p.id: p for p in found.profiles}
    assert back["c"].harness == CORPUS[2].harness
    assert {s.name: s for s in found.servers}["github"] == GITHUB


SIDECAR_REFUSALS = [
    (
        {"mcpServers": {"s": {"command": "x", "name": "s"}}},
        'mcp.json: config: decode MCP JSON "{p}" mcpServers: json: unknown field "name"',
    ),
    (
        {"mcpServers": {"s": {"command": "x", "env": {"NODE_OPTIONS": "--x"}}}},
        'config: validate MCP JSON "{p}": mcp.json "{p}"[0].env.NODE_OPTIONS is forbidden for '
        "stdio MCP servers",
    ),
    (
        {"mcpServers": {"a": {"url": "https://x", "command": "c"}}},
        'mcp.json "{p}"[0].command is only valid for stdio transport',
    ),
    (
        {"mcpServers": {"a": {"command": "c", "secret_env": {"T": "file:/x"}}}},
        'mcp.json "{p}"[0].secret_env.T is invalid: vault: unsupported secret ref: file:/x',
    ),
    (
        {"mcpServers": {"a": {"transport": "ws", "url": "u"}}},
        'mcp.json "{p}"[0].transport must be one of stdio, http, or sse',
    ),
    (
        {"mcpServers": {"a": {"command": "c"}, " a": {"command": "d"}}},
        'duplicate MCP server name "a" after normalization at indexes 0 and 1',
    ),
]


@pytest.mark.parametrize(("doc", "message"), SIDECAR_REFUSALS)
def test_sidecar_refusals(tmp_path: Path, doc: dict[str, object], message: str) -> None:
    """Seed 002 "Sidecar behavior" and AGH's ``ParseMCPServersJSON``/``MCPServer.Validate``."""
    found = discover(
        tmp_path, agent("a", "name: a\n") | {".agh/agents/a/mcp.json": json.dumps(doc)}
    )
    sidecar = str(tmp_path / "ws/.agh/agents/a/mcp.json")
    assert found.refused and found.profiles == ()
    (error,) = [d for d in found.diagnostics if d.is_error]
    expected = message.replace("mcp.json: ", "").format(p=sidecar)
    assert expected in error.message
    assert error.message.startswith('load agent file "') and error.path == sidecar


def test_whole_message_and_position_for_an_unknown_key(tmp_path: Path) -> None:
    found = discover(tmp_path, agent("a", "name: a\nmodel: m\ndescription: x\n"))
    (error,) = found.diagnostics
    path = str(tmp_path / "ws/.agh/agents/a/AGENT.md")
    assert error.to_dict() == {
        "path": path,
        "line": 4,
        "column": 1,
        "severity": "error",
        "code": "harness-field-unknown",
        "message": f'parse agent file "{path}": unknown field "description"',
        "hint": "AGH rejects description (RFC 001 field, not implemented); keep it in the vault",
    }


def test_symlinked_agent_folder_is_not_a_directory_entry(tmp_path: Path) -> None:
    """Go's ``DirEntry.IsDir`` does not follow links, so AGH skips a linked folder."""
    tree(tmp_path / "elsewhere", {"AGENT.md": MINIMAL})
    (tmp_path / "ws/.agh/agents").mkdir(parents=True)
    (tmp_path / "ws/.agh/agents/code-reviewer").symlink_to(tmp_path / "elsewhere")
    found = discover(tmp_path, {})
    assert found.profiles == ()
    assert [d.message for d in found.diagnostics] == [
        "AGH does not load code-reviewer: AGH skips symlinked folders"
    ]


def test_native_file_survives_import_and_render(tmp_path: Path) -> None:
    """render(import(x)) writes back every key AGH had, permissions included."""
    front = (
        "name: x\nprovider: codex\ncommand: codex --fast\nmodel: gpt-5.4\n"
        "tools: [mcp__github__*, agh__skill_view]\ntoolsets: [agh__tasks]\n"
        "deny_tools: [agh__network_send]\npermissions: deny-all\n"
        "skills:\n  disabled: [web]\ncategory_path: [Ops]\n"
    )
    found = discover(tmp_path, agent("x", front))
    rendering = CODEC.render(RenderRequest(profiles=found.profiles, servers={}), {}.get)
    again = discover(tmp_path / "again", {f.path: f.content for f in rendering.files})
    from agent_roster.codecs.agh.read import load_frontmatter, split_agent_md

    def frontmatter(text: str) -> dict[str, object]:
        split = split_agent_md(text)
        assert not isinstance(split, str)
        loaded = load_frontmatter(split[0], "x")
        assert not isinstance(loaded, str)
        return loaded[0]

    rendered = frontmatter(rendering.files[0].content)
    assert rendered == {
        "name": "x",
        "provider": "codex",
        "command": "codex --fast",
        "model": "gpt-5.4",
        "tools": ["mcp__github__*", "agh__skill_view"],
        "toolsets": ["agh__tasks"],
        "deny_tools": ["agh__network_send"],
        "permissions": "deny-all",
        "skills": {"disabled": ["web"]},
        "category_path": ["Ops"],
    }
    assert again.profiles[0].permission == found.profiles[0].permission


_TOOLS = ["Read", "Edit", "Write", "Bash", "Bash(git *)", "WebFetch", "mcp__gh__issue", "*"]
_RULE_KEYS = ["*", "bash", "edit", "read", "gh_*", "gh_issue", "webfetch", "todowrite"]


@settings(max_examples=300, deadline=None)
@given(
    allowed=st.lists(st.sampled_from(_TOOLS), max_size=4),
    denied=st.lists(st.sampled_from(_TOOLS), max_size=3),
    rules=st.lists(
        st.builds(
            PermissionRule,
            permission=st.sampled_from(_RULE_KEYS),
            pattern=st.sampled_from(["*", "git *"]),
            action=st.sampled_from(list(PermissionAction)),
        ),
        max_size=4,
    ),
    mode=st.sampled_from(["", "default", "plan", "acceptEdits", "auto"]),
)
def test_permissions_are_the_one_action_every_key_gets(
    allowed: list[str], denied: list[str], rules: list[PermissionRule], mode: str
) -> None:
    """AGH ``permissions`` (permissions.md §3): deny-all or approve-all when every key the
    rules can decide (each tool's key, each key a rule names) gets that one action,
    approve-reads otherwise; however the render orders its questions."""
    subject = AgentProfile(
        id="p",
        name="p",
        allowed_tools=tuple(allowed),
        denied_tools=tuple(denied),
        permission=tuple(rules),
        permission_mode=mode,
    )
    effective = effective_rules(subject)
    if not effective:
        expected = agh_render._MODE_PERMISSIONS.get(mode, "")
    else:
        keys = agh_render._tool_keys() | {
            s.rule.permission for s in effective if "*" not in s.rule.permission
        }
        actions = {evaluate(effective, key).action for key in keys}
        only = actions.pop() if len(actions) == 1 else None
        named = {PermissionAction.DENY: "deny-all", PermissionAction.ALLOW: "approve-all"}
        expected = named.get(only, "approve-reads") if only else "approve-reads"
    assert agh_render._decide_permissions(subject) == expected


def _split_by_lines(text: str) -> tuple[str, str, int] | str:
    # AGH's frontmatter.Split as it reads: line by line (the render's split must agree).
    if text.startswith("\ufeff"):
        return "config: UTF-8 BOM before YAML frontmatter"
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[0] != "---":
        return "config: missing YAML frontmatter"
    for index, line in enumerate(lines[1:]):
        if line == "---":
            meta = "\n".join(lines[1 : index + 1])
            return (meta + "\n" if meta else ""), "\n".join(lines[index + 2 :]), index + 3
    return "config: unterminated YAML frontmatter"


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["---", "", "name: x", "--- ", " ---", "----", "body", "\r", "\ufeff"]),
        max_size=8,
    ),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_split_agent_md_finds_the_fence_line_as_agh_does(
    lines: list[str], newline: str, end: bool
) -> None:
    from agent_roster.codecs.agh.read import split_agent_md

    text = newline.join(lines) + (newline if end else "")
    assert split_agent_md(text) == _split_by_lines(text)


def test_a_refused_agent_reports_its_refusal_only() -> None:
    # Written: how its fields were translated, the permissions in their place among them.
    kept = render(profile(permission_mode="plan", tags=("t",), mcp_servers=("gone",)))
    assert [f.path for f in kept.files] == [".agh/agents/rev/AGENT.md"]
    fields = [loss.field for loss in kept.losses]
    assert fields == ["tags", "permission", "permission_mode", "mcp_servers"]
    assert "\npermissions: " in kept.files[0].content
    # Refused (a server AGH cannot hold): the refusal, and no translations of a file that
    # is never written.
    headers = McpServer(name="c7", transport=Transport.HTTP, url="https://x", headers={"K": "${K}"})
    refused = render(
        profile(permission_mode="plan", tags=("t",), mcp_servers=("c7",)), servers={"c7": headers}
    )
    assert refused.files == () and refused.losses == ()
    (diag,) = refused.diagnostics
    assert diag.code == "render-unsupported" and "MCP server 'c7'" in diag.message
