"""The Gemini CLI codec: strict agent files, first-wins layering, the tools allowlist,
``settings.json`` merging, losses. Messages and rules are those of Gemini CLI 0.61.0
(``agentLoader.ts``, ``registry.ts``, ``tool-names.ts``); test_gemini_cli.py runs the CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_roster.codecs.base import LossOutcome, Roots, Scope
from agent_roster.codecs.gemini.codec import CODEC
from agent_roster.codecs.gemini.read import server_from_settings, valid_tool_name
from agent_roster.codecs.gemini.render import settings_entry
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from .helpers import (
    EXAMPLES,
    loss_outcomes,
    render_and_discover,
    render_with,
    roundtrip_differences,
)

SERVERS = {
    "tool": McpServer(
        name="tool", transport=Transport.STDIO, command="node", args=("s.js",), env={"T": "${T}"}
    ),
    "docs": McpServer(
        name="docs",
        transport=Transport.HTTP,
        url="https://example.com/mcp",
        headers={"Authorization": "Bearer ${D}"},
        description="Docs.",
    ),
    "feed": McpServer(name="feed", transport=Transport.SSE, url="https://example.com/sse"),
    "my_srv": McpServer(name="my_srv", transport=Transport.STDIO, command="x"),
}
TABLE_TOOLS = [
    "read_file",
    "write_file",
    "replace",
    "run_shell_command",
    "grep_search",
    "glob",
    "list_directory",
    "web_fetch",
    "google_web_search",
    "write_todos",
    "ask_user",
    "activate_skill",
    "enter_plan_mode",
    "exit_plan_mode",
    "list_mcp_resources",
    "read_mcp_resource",
]


def profile(**changes: Any) -> AgentProfile:
    base: dict[str, Any] = {
        "id": "helper",
        "name": "helper",
        "description": "Helps.",
        "sections": (PromptSection(heading="Role", body="You help."),),
    }
    return AgentProfile(**{**base, **changes})


def render(*profiles: AgentProfile, existing: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return render_with(CODEC, profiles, SERVERS, existing)


def agent(rendering: Any, ident: str = "helper") -> tuple[dict[str, Any], str]:
    text = {f.path: f.content for f in rendering.files}[f".gemini/agents/{ident}.md"]
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


losses = loss_outcomes


# --- render ----------------------------------------------------------------------------------


def test_render_writes_each_field() -> None:
    rendering = render(
        profile(
            name="Helper Agent",
            model="gemini-2.5-pro",
            temperature=0.3,
            max_turns=12,
            harness={"gemini": {"timeout_mins": 4}},
        )
    )
    data, body = agent(rendering)
    assert data == {
        "name": "helper",
        "display_name": "Helper Agent",
        "description": "Helps.",
        "model": "gemini-2.5-pro",
        "temperature": 0.3,
        "max_turns": 12,
        "timeout_mins": 4,
    }
    assert body == "\nYou help.\n"
    assert rendering.losses == () and rendering.diagnostics == ()


def test_display_name_only_when_it_differs_and_no_tools_without_a_reason() -> None:
    data, _ = agent(render(profile()))
    assert data == {"name": "helper", "description": "Helps."}


def test_allowlist_from_allowed_tools_and_servers() -> None:
    rendering = render(
        profile(
            allowed_tools=("Read", "Grep", "mcp__docs__search", "mcp__docs__fetch"),
            mcp_servers=("docs", "tool"),
        )
    )
    data, _ = agent(rendering)
    assert data["tools"] == ["read_file", "grep_search", "mcp_docs_search", "mcp_docs_fetch"]
    # tool has no allowed tool: it cannot be named in tools, which is reported.
    assert losses(rendering) == {
        "allowed_tools": LossOutcome.TRANSLATED,
        "mcp_servers": LossOutcome.DROPPED,
    }


def test_write_and_edit_are_granted_apart() -> None:
    # Gemini has write_file (Write) and replace (Edit, MultiEdit): a Tools list naming Write
    # grants write_file alone, and the render check finds nothing to narrow. MultiEdit
    # without Edit cannot be held (both are replace): the check narrows it, never widens.
    from agent_roster.codecs.base import RenderRequest
    from agent_roster.codecs.guard import render_guarded

    def guarded(allowed: tuple[str, ...]) -> Any:
        request = RenderRequest(profiles=(profile(allowed_tools=allowed),), servers=SERVERS)
        return render_guarded(CODEC, request, {}.get)

    rendering = guarded(("Read", "Write"))
    data, _ = agent(rendering)
    assert data["tools"] == ["read_file", "write_file"]
    assert not [loss for loss in rendering.losses if "cannot decide" in loss.detail]
    assert not rendering.diagnostics

    rendering = guarded(("Read", "MultiEdit"))
    data, _ = agent(rendering)
    assert data["tools"] == ["read_file"]  # replace would also allow Edit
    narrowed = [loss for loss in rendering.losses if loss.field == "permission"]
    assert narrowed and "MultiEdit" in narrowed[0].detail
    assert not rendering.diagnostics


def test_servers_alone_give_every_table_tool_and_the_server_wildcards() -> None:
    data, _ = agent(render(profile(mcp_servers=("tool", "docs"))))
    assert data["tools"] == [*TABLE_TOOLS, "mcp_tool_*", "mcp_docs_*"]


def test_denies_fold_into_the_allowlist() -> None:
    rendering = render(
        profile(
            denied_tools=("Bash", "WebFetch", "mcp__tool__drop"),
            permission=(PermissionRule(permission="edit", action=PermissionAction.DENY),),
            mcp_servers=("tool",),
        )
    )
    data, body = agent(rendering)
    hidden = {"run_shell_command", "web_fetch", "write_file", "replace"}
    assert data["tools"] == [t for t in TABLE_TOOLS if t not in hidden] + ["mcp_tool_*"]
    assert body.endswith(
        "## Roster constraints\n\n<!-- roster:embedded -->\n"
        "- Never call the MCP tool `mcp__tool__drop`.\n"
    )
    assert losses(rendering) == {
        "denied_tools": LossOutcome.EMBEDDED,
        "permission": LossOutcome.EMBEDDED,
        "allowed_tools": LossOutcome.EMBEDDED,
    }


def test_argument_rules_keep_the_tool_and_go_into_the_prompt() -> None:
    rendering = render(profile(allowed_tools=("Read", "Bash(git log:*)")))
    data, body = agent(rendering)
    assert data["tools"] == ["read_file", "run_shell_command"]
    assert body.endswith(
        "- Tool rules, in order; the last rule matching a call decides:\n"
        "- `*` `*` → deny\n"
        "- `bash` `git log *` → allow\n"
    )
    assert losses(rendering)["allowed_tools"] is LossOutcome.EMBEDDED


def test_fields_gemini_lacks_are_reported_dropped() -> None:
    rendering = render(
        profile(
            provider="google",
            top_p=0.5,
            permission_mode="plan",
            mode="subagent",
            color="blue",
            max_tokens_per_task=9,
            tags=("x",),
            harness={"gemini": {"kind": "remote"}, "claude": {"x": 1}},
        )
    )
    found = losses(rendering)
    for field in (
        "provider",
        "top_p",
        "permission_mode",
        "mode",
        "color",
        "max_tokens_per_task",
        "tags",
        "harness",
    ):
        assert found[field] is LossOutcome.DROPPED, field
    data, _ = agent(rendering)
    assert "kind" not in data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"id": "Helper"}, "Name must be a valid slug"),
        ({"id": "a.b"}, "Name must be a valid slug"),
        ({"id": "generalist"}, "built-in Gemini subagent"),
        ({"description": ""}, "description: String must contain at least 1 character(s)"),
        ({"mcp_servers": ("my_srv",)}, "MCP server 'my_srv' cannot be named in tools"),
        ({"mcp_servers": ("nope",)}, "MCP server 'nope' is not in the registry"),
    ],
)
def test_render_refuses_what_gemini_would_refuse(changes: dict[str, Any], message: str) -> None:
    rendering = render(profile(**changes), profile(id="fine", name="fine"))
    assert [f.path for f in rendering.files] == [".gemini/agents/fine.md"]
    [diagnostic] = rendering.diagnostics
    assert diagnostic.code == "render-unsupported" and message in diagnostic.message


# --- settings.json ---------------------------------------------------------------------------


def test_settings_entries_in_gemini_dialect() -> None:
    assert settings_entry(SERVERS["tool"]) == {
        "command": "node",
        "args": ["s.js"],
        "env": {"T": "${T}"},
    }
    assert settings_entry(SERVERS["docs"]) == {
        "url": "https://example.com/mcp",
        "type": "http",
        "headers": {"Authorization": "Bearer ${D}"},
        "description": "Docs.",
    }
    assert settings_entry(SERVERS["feed"]) == {"url": "https://example.com/sse", "type": "sse"}


@pytest.mark.parametrize("name", ["tool", "docs", "feed"])
def test_settings_entries_round_trip(name: str) -> None:
    server = SERVERS[name]
    back = server_from_settings(name, settings_entry(server), "s", snake=False)
    assert back is not None
    assert back.to_json_dict() == {**server.to_json_dict(), "source": "s"}


@pytest.mark.parametrize(
    ("entry", "transport"),
    [
        ({"httpUrl": "https://x"}, Transport.HTTP),
        ({"url": "https://x"}, Transport.HTTP),  # code wins over docs: url alone is HTTP
        ({"url": "https://x", "type": "sse"}, Transport.SSE),
    ],
)
def test_transport_selection(entry: dict[str, str], transport: Transport) -> None:
    server = server_from_settings("s", entry, "x", snake=False)
    assert server is not None and server.transport is transport


def test_servers_are_merged_into_settings_keeping_other_keys() -> None:
    existing = {
        "theme": "dark",
        "mcpServers": {"mine": {"command": "mine"}, "tool": {"command": "old"}},
        "general": {"vimMode": True},
    }
    rendering = render(
        profile(mcp_servers=("tool", "docs")),
        existing={".gemini/settings.json": json.dumps(existing)},
    )
    merged = json.loads({f.path: f.content for f in rendering.files}[".gemini/settings.json"])
    assert list(merged) == ["theme", "mcpServers", "general"]
    assert merged["general"] == {"vimMode": True}
    assert list(merged["mcpServers"]) == ["mine", "tool", "docs"]
    assert merged["mcpServers"]["tool"] == settings_entry(SERVERS["tool"])


@pytest.mark.parametrize("text", ['{"a": 1, // comment\n}', "[1]", '{"mcpServers": []}'])
def test_settings_that_cannot_be_merged_are_left_alone(text: str) -> None:
    rendering = render(profile(mcp_servers=("tool",)), existing={".gemini/settings.json": text})
    assert [f.path for f in rendering.files] == [".gemini/agents/helper.md"]
    assert [d.code for d in rendering.diagnostics] == ["render-unsupported"]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("read_file", True),
        ("search_file_content", True),
        ("Read", False),
        ("*", True),
        ("mcp_*", True),
        ("mcp_github_*", True),
        ("mcp_github_create_issue", True),
        ("mcp_ctx_resolve-library-id", True),
        ("mcp__github__x", False),
        ("mcp_github", False),
        ("mcp_github___", False),
        ("mcp_git hub_x", False),
        ("discovered_tool_x", True),
    ],
)
def test_valid_tool_names(name: str, ok: bool) -> None:
    assert valid_tool_name(name) is ok


# --- discover --------------------------------------------------------------------------------


def roots(tmp_path: Path, files: dict[str, str], trusted: bool = True) -> Roots:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if trusted:
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        (home / ".gemini" / "trustedFolders.json").write_text(
            json.dumps({str(workspace.resolve()): "TRUST_FOLDER"})
        )
    return Roots(workspace=workspace, home=home)


def acknowledge(root: Roots, name: str, text: str) -> None:
    path = root.home / ".gemini" / "acknowledgments" / "agents.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode()).hexdigest()
    path.write_text(json.dumps({str(root.workspace.resolve()): {name: digest}}))


GOOD = "---\nname: {name}\ndescription: d {name}\n---\nBody of {name}.\n"


@pytest.mark.parametrize(
    ("text", "code", "message", "line"),
    [
        ("no frontmatter\n", "harness-invalid", "Missing mandatory YAML frontmatter", 1),
        ("---\nname: [a\n---\nx\n", "harness-invalid", "YAML frontmatter parsing failed", 3),
        (
            "---\nname: a\ndescription: d\ncolor: red\n---\n",
            "harness-field-unknown",
            "Unrecognized key(s) in object: 'color'",
            4,
        ),
        (
            "---\nname: a\ndescription: d\nmcpServers: {}\n---\n",
            "harness-field-unknown",
            "'mcpServers'",
            4,
        ),
        (
            "---\nname: My Agent\ndescription: d\n---\n",
            "harness-name-invalid",
            "name: Name must be a valid slug",
            2,
        ),
        ("---\nname: a\n---\n", "harness-invalid", "description: Required", 1),
        ("---\nname: a\ndescription: ''\n---\n", "harness-invalid", "at least 1 character", 3),
        (
            "---\nname: a\ndescription: d\ntools: Read, Grep\n---\n",
            "harness-field-type",
            "tools: Expected array",
            4,
        ),
        (
            "---\nname: a\ndescription: d\ntools: [read_file, Bash]\n---\n",
            "harness-field-type",
            "tools.1: Invalid tool name",
            4,
        ),
        (
            "---\nname: a\ndescription: d\nmax_turns: 0\n---\n",
            "harness-field-type",
            "max_turns: Number must be greater than 0",
            4,
        ),
        (
            "---\nname: a\ndescription: d\ntimeout_mins: 1.5\n---\n",
            "harness-field-type",
            "Expected integer, received float",
            4,
        ),
        (
            "---\nname: a\ndescription: d\ntemperature: hot\n---\n",
            "harness-field-type",
            "temperature: Expected number",
            4,
        ),
    ],
)
def test_discover_refuses_what_gemini_refuses(
    text: str, code: str, message: str, line: int, tmp_path: Path
) -> None:
    found = CODEC.discover(roots(tmp_path, {"home/.gemini/agents/a.md": text}))
    assert found.profiles == () and found.refused
    [diagnostic] = found.diagnostics
    assert (diagnostic.code, diagnostic.line) == (code, line)
    assert diagnostic.message.startswith("Agent loading error: Failed to load agent from ")
    assert message in diagnostic.message


def test_folder_rules_and_first_registration_wins(tmp_path: Path) -> None:
    root = roots(
        tmp_path,
        {
            "ws/.gemini/agents/shared.md": GOOD.format(name="shared"),
            "home/.gemini/agents/shared.md": GOOD.format(name="shared").replace("Body", "User"),
            "home/.gemini/agents/cli_help.md": GOOD.format(name="cli_help"),
            "home/.gemini/agents/_draft.md": "broken",
            "home/.gemini/agents/notes.txt": "ignored",
            "home/.gemini/agents/sub/deep.md": GOOD.format(name="deep"),
            "home/.gemini/agents/remote.md": "---\nkind: remote\nname: r\nagent_card_url: https://x\n---\n",
        },
    )
    acknowledge(root, "shared", GOOD.format(name="shared"))
    found = CODEC.discover(root)
    assert [(p.id, p.prompt) for p in found.profiles] == [("shared", "Body of shared.")]
    codes = sorted(d.code for d in found.diagnostics)
    assert codes == ["harness-ignored"] * 4 + ["harness-shadowed"] * 2
    # What Gemini CLI passes over without a word is said (issue 12 item 6).
    skipped = {
        Path(d.path).name: d.message for d in found.diagnostics if "does not load" in d.message
    }
    assert sorted(skipped) == ["_draft.md", "notes.txt", "sub"]
    assert skipped["_draft.md"] == (
        "Gemini CLI does not load _draft.md: only *.md files whose names do not start with _ "
        "are agents"
    )
    assert not found.refused


def test_project_agents_wait_for_trust_and_acknowledgement(tmp_path: Path) -> None:
    files = {"ws/.gemini/agents/a.md": GOOD.format(name="a")}
    untrusted = CODEC.discover(roots(tmp_path / "1", files, trusted=False))
    assert [p.id for p in untrusted.profiles] == ["a"]
    assert "untrusted folder" in untrusted.diagnostics[0].message
    root = roots(tmp_path / "2", files)
    [pending] = CODEC.discover(root).diagnostics
    assert "acknowledge" in pending.message and not pending.is_error
    acknowledge(root, "a", GOOD.format(name="a"))
    assert CODEC.discover(root).diagnostics == ()


def test_import_maps_tools_servers_and_keys(tmp_path: Path) -> None:
    text = (
        "---\nname: a\ndisplay_name: Agent A\ndescription: d\nmodel: inherit\ntemperature: 1\n"
        "max_turns: 7\ntimeout_mins: 3\ntools: [read_file, search_file_content, read_many_files,"
        " mcp_docs_*, mcp_tool_run]\nmcp_servers:\n  inline:\n    command: run\n"
        "    args: [x]\n---\n"
        "Lead text.\n\n## Config\n\nprose\n"
    )
    settings = {"mcpServers": {"docs": {"url": "https://d"}, "tool": {"command": "t"}}}
    found = CODEC.discover(
        roots(
            tmp_path,
            {"home/.gemini/agents/a.md": text, "home/.gemini/settings.json": json.dumps(settings)},
        )
    )
    [agent] = found.profiles
    assert (agent.name, agent.model, agent.temperature, agent.max_turns) == ("Agent A", "", 1.0, 7)
    assert agent.harness == {"gemini": {"timeout_mins": 3}}
    assert agent.allowed_tools == ("Read", "Grep", "mcp__docs__*", "mcp__tool__run")
    assert agent.mcp_servers == ("docs", "tool", "inline")
    assert [s.name for s in found.servers] == ["docs", "tool", "inline"]
    # The body is the prompt, whole: its own "## Config" is prose, never a vault section.
    assert agent.sections == (
        PromptSection(heading="Role", body="Lead text.\n\n## Config\n\nprose"),
    )
    details = " ".join(loss.detail for loss in found.losses)
    assert "read_many_files" in details
    assert {(loss.field, loss.outcome) for loss in found.losses} == {
        ("allowed_tools", LossOutcome.DROPPED),
    }


def test_project_settings_win_over_user_settings(tmp_path: Path) -> None:
    text = "---\nname: a\ndescription: d\ntools: [mcp_docs_*]\n---\n"
    user = {"mcpServers": {"docs": {"url": "https://user"}}}
    project = {"mcpServers": {"docs": {"url": "https://project"}}}
    found = CODEC.discover(
        roots(
            tmp_path,
            {
                "home/.gemini/agents/a.md": text,
                "home/.gemini/settings.json": json.dumps(user),
                "ws/.gemini/settings.json": json.dumps(project),
            },
        )
    )
    assert [s.url for s in found.servers] == ["https://project"]


# --- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_example_vault_round_trips(scope: Scope, tmp_path: Path) -> None:
    examples = load_effective(EXAMPLES)
    rendering, discovery = render_and_discover(
        CODEC, examples.profiles, examples.servers, scope, tmp_path
    )
    assert not [d for d in rendering.diagnostics if d.is_error]
    assert {p.id for p in discovery.profiles} == {p.id for p in examples.profiles}
    assert roundtrip_differences(CODEC, examples.profiles, discovery.profiles) == []
    back = {s.name: s for s in discovery.servers}
    assert set(back) == {"github", "playwright", "context7"}
    for name, server in back.items():
        # The registry file's prose (notes) has no place in settings.json.
        assert server.to_json_dict() | {"source": "", "notes": ""} == examples.servers[
            name
        ].to_json_dict() | {"source": "", "notes": ""}


CORPUS = (
    profile(),
    profile(id="full", name="Full Agent", model="gemini-2.5-flash", temperature=0.0, max_turns=1),
    profile(id="srv", name="srv", mcp_servers=("docs", "feed", "tool")),
    profile(
        id="narrow",
        name="narrow",
        allowed_tools=("Read", "mcp__docs__search"),
        mcp_servers=("docs",),
        harness={"gemini": {"timeout_mins": 2}},
    ),
    profile(
        id="prose",
        name="prose",
        description="Unicode ünï and: colons",
        sections=(
            PromptSection(heading="Role", body="---\nnot frontmatter\n---"),
            PromptSection(heading="Rules", body="- one\n- two"),
        ),
    ),
)


def test_corpus_round_trips(tmp_path: Path) -> None:
    rendering, discovery = render_and_discover(CODEC, CORPUS, SERVERS, Scope.PROJECT, tmp_path)
    assert not [d for d in rendering.diagnostics if d.is_error]
    assert roundtrip_differences(CODEC, CORPUS, discovery.profiles) == []
    back = {p.id: p for p in discovery.profiles}
    assert back["narrow"].harness == {"gemini": {"timeout_mins": 2}}
    assert back["narrow"].allowed_tools == ("Read", "mcp__docs__search")
