"""The Codex codec: role files, their strictness and layering, MCP tables, losses, merging.

Rules marked "0.169.0" were observed with the real CLI (test_codex_cli.py checks the same
cases against it)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agent_roster.codecs.base import LossOutcome, Roots, Scope
from agent_roster.codecs.codex.codec import CODEC
from agent_roster.codecs.codex.mcp import import_server, render_server
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

STDIO = McpServer(
    name="tool",
    transport=Transport.STDIO,
    command="node",
    args=("s.js",),
    env={"MODE": "ci", "TOKEN": "${TOKEN}"},
)
HTTP = McpServer(
    name="docs",
    transport=Transport.HTTP,
    url="https://example.com/mcp",
    headers={"Authorization": "Bearer ${DOCS}", "X-Team": "core", "X-Key": "${KEY}"},
)
SERVERS = {"tool": STDIO, "docs": HTTP}


def profile(**changes: Any) -> AgentProfile:
    base: dict[str, Any] = {
        "id": "helper",
        "name": "helper",
        "description": "Helps.",
        "sections": (PromptSection(heading="Role", body="You help."),),
    }
    return AgentProfile(**{**base, **changes})


def render(  # type: ignore[no-untyped-def]
    *profiles: AgentProfile, existing: dict[str, str] | None = None, **servers: McpServer
):
    return render_with(CODEC, profiles, {**SERVERS, **servers}, existing)


def role(rendering: Any, ident: str = "helper") -> dict[str, Any]:
    files = {f.path: f.content for f in rendering.files}
    return tomllib.loads(files[f".codex/agents/{ident}.toml"])


losses = loss_outcomes


# --- render ----------------------------------------------------------------------------------


def test_render_writes_each_field() -> None:
    rendering = render(
        profile(
            model="gpt-5",
            permission_mode="default",
            mcp_servers=("tool", "docs"),
            harness={"codex": {"model_reasoning_effort": "high", "nickname_candidates": ["Ace"]}},
        )
    )
    data = role(rendering)
    assert data == {
        "name": "helper",
        "description": "Helps.",
        "model": "gpt-5",
        "sandbox_mode": "workspace-write",
        "approval_policy": "on-request",
        "model_reasoning_effort": "high",
        "nickname_candidates": ["Ace"],
        "developer_instructions": "You help.\n",
        "mcp_servers": {
            "tool": {
                "command": "node",
                "args": ["s.js"],
                "env": {"MODE": "ci"},
                "env_vars": ["TOKEN"],
            },
            "docs": {
                "url": "https://example.com/mcp",
                "bearer_token_env_var": "DOCS",
                "http_headers": {"X-Team": "core"},
                "env_http_headers": {"X-Key": "KEY"},
            },
        },
    }
    assert rendering.diagnostics == ()


def test_prompt_is_a_literal_multiline_string_with_a_leading_newline() -> None:
    content = render(profile()).files[0].content
    assert "developer_instructions = '''\nYou help.\n'''" in content


def test_prompt_with_triple_quotes_or_control_characters_survives() -> None:
    body = "Use ''' and \"\"\" and a back\\slash\x07 freely."
    rendering = render(profile(sections=(PromptSection(heading="Role", body=body),)))
    assert role(rendering)["developer_instructions"] == f"{body}\n"


@pytest.mark.parametrize(
    ("mode", "sandbox", "approval"),
    [
        ("", None, None),
        ("default", "workspace-write", "on-request"),
        ("acceptEdits", "workspace-write", "on-request"),
        ("auto", "workspace-write", "on-request"),
        ("plan", "read-only", None),
        ("bypassPermissions", "danger-full-access", "never"),
        ("full", "danger-full-access", "never"),
    ],
)
def test_permission_mode_becomes_sandbox_and_approval(
    mode: str, sandbox: str | None, approval: str | None
) -> None:
    data = role(render(profile(permission_mode=mode)))
    assert data.get("sandbox_mode") == sandbox
    assert data.get("approval_policy") == approval


def test_an_edit_deny_makes_the_role_read_only() -> None:
    rendering = render(profile(denied_tools=("Edit",)))
    assert role(rendering)["sandbox_mode"] == "read-only"
    assert losses(rendering)["permission_mode"] is LossOutcome.TRANSLATED
    assert losses(rendering)["denied_tools"] is LossOutcome.EMBEDDED


def test_mcp_tool_lists_become_server_filters_and_the_rest_is_embedded() -> None:
    rendering = render(
        profile(
            mcp_servers=("tool", "docs"),
            allowed_tools=("Read", "Bash(git log:*)", "mcp__tool__run", "mcp__docs__*"),
            denied_tools=("mcp__tool__drop", "mcp__docs__*", "WebFetch"),
            permission=(
                PermissionRule(permission="bash", pattern="rm *", action=PermissionAction.DENY),
            ),
        )
    )
    data = role(rendering)
    assert data["mcp_servers"]["tool"]["enabled_tools"] == ["run"]
    assert data["mcp_servers"]["tool"]["disabled_tools"] == ["drop"]
    assert "enabled_tools" not in data["mcp_servers"]["docs"]
    assert data["mcp_servers"]["docs"]["enabled"] is False
    assert data["developer_instructions"].endswith(
        "## Roster constraints\n\n<!-- roster:embedded -->\n"
        "- Use only these tools (anything not listed is denied): `Read`, `Bash(git log:*)`\n"
        "- Never use: `WebFetch`\n"
        "- Permission rules, in order; the last rule matching a tool call decides: "
        "`bash` `rm *` → deny\n"
    )
    assert losses(rendering) == {
        "allowed_tools": LossOutcome.EMBEDDED,
        "denied_tools": LossOutcome.EMBEDDED,
        "permission": LossOutcome.EMBEDDED,
        "permission_mode": LossOutcome.TRANSLATED,
    }


def test_fields_codex_lacks_are_reported_dropped() -> None:
    rendering = render(
        profile(
            name="Helper Agent",
            provider="openai",
            temperature=0.2,
            top_p=0.9,
            max_turns=3,
            color="red",
            mode="subagent",
            tags=("x",),
            harness={"codex": {"short-description": "no"}, "opencode": {"variant": "x"}},
        )
    )
    found = losses(rendering)
    for field in (
        "name",
        "provider",
        "temperature",
        "top_p",
        "max_turns",
        "color",
        "mode",
        "tags",
        "harness",
    ):
        assert found[field] is LossOutcome.DROPPED, field
    assert "short-description" not in role(rendering)
    assert "variant" not in rendering.files[0].content


@pytest.mark.parametrize(
    ("changes", "servers", "message"),
    [
        ({"description": ""}, {}, "agent role `helper` must define a description"),
        ({"sections": ()}, {}, "agent role `helper` must define `developer_instructions`"),
        ({"mcp_servers": ("nope",)}, {}, "MCP server 'nope' is not in the registry"),
        (
            {"mcp_servers": ("sse",)},
            {"sse": McpServer(name="sse", transport=Transport.SSE, url="http://x/sse")},
            "Codex has no SSE transport",
        ),
        (
            {"mcp_servers": ("gh",)},
            {"gh": McpServer(name="gh", transport=Transport.STDIO, command="x", env={"A": "${B}"})},
            "Codex forwards a variable only under its own name",
        ),
        (
            {"mcp_servers": ("h",)},
            {
                "h": McpServer(
                    name="h", transport=Transport.HTTP, url="http://x", headers={"A": "t ${B}"}
                )
            },
            "Codex reads a header from the environment only as a whole value",
        ),
        (
            {"mcp_servers": ("a.b",)},
            {"a.b": McpServer(name="a.b", transport=Transport.STDIO, command="x")},
            "invalid server name 'a.b'",
        ),
    ],
)
def test_render_refuses_what_codex_cannot_hold(
    changes: dict[str, Any], servers: dict[str, McpServer], message: str
) -> None:
    rendering = render(
        profile(**changes), profile(id="fine", name="fine"), existing=None, **servers
    )
    assert [f.path for f in rendering.files] == [".codex/agents/fine.toml"]
    [diagnostic] = rendering.diagnostics
    assert diagnostic.code == "render-unsupported"
    assert diagnostic.path == ".codex/agents/helper.toml"
    assert message in diagnostic.message and diagnostic.hint


# --- config.toml merge -----------------------------------------------------------------------

EXISTING = """# my Codex settings
model = "o3"  # default model

[mcp_servers.mine]
command = "mine"   # keep this comment

[mcp_servers.tool]
command = "old"

[projects."/src/app"]
trust_level = "trusted"
"""


def test_servers_are_merged_into_config_keeping_everything_else() -> None:
    rendering = render(
        profile(mcp_servers=("tool", "docs")), existing={".codex/config.toml": EXISTING}
    )
    text = {f.path: f.content for f in rendering.files}[".codex/config.toml"]
    assert text.startswith('# my Codex settings\nmodel = "o3"  # default model\n')
    assert 'command = "mine"   # keep this comment' in text
    data = tomllib.loads(text)
    assert data["projects"] == {"/src/app": {"trust_level": "trusted"}}
    assert data["mcp_servers"]["tool"] == {
        "command": "node",
        "args": ["s.js"],
        "env": {"MODE": "ci"},
        "env_vars": ["TOKEN"],
    }
    assert list(data["mcp_servers"]) == ["mine", "tool", "docs"]


def test_an_unchanged_server_keeps_its_formatting() -> None:
    first = render(profile(mcp_servers=("tool",)))
    text = {f.path: f.content for f in first.files}[".codex/config.toml"]
    edited = text.replace('command = "node"', 'command = "node"  # hand note')
    second = render(profile(mcp_servers=("tool",)), existing={".codex/config.toml": edited})
    assert {f.path: f.content for f in second.files}[".codex/config.toml"] == edited


@pytest.mark.parametrize("text", ["model = [", "mcp_servers = 3\n"])
def test_a_config_that_cannot_be_merged_is_left_alone(text: str) -> None:
    rendering = render(profile(mcp_servers=("tool",)), existing={".codex/config.toml": text})
    assert [f.path for f in rendering.files] == [".codex/agents/helper.toml"]
    assert [d.code for d in rendering.diagnostics] == ["render-unsupported"]


@pytest.mark.parametrize("server", [STDIO, HTTP])
def test_server_tables_round_trip(server: McpServer) -> None:
    table = render_server(server).table
    back = import_server(server.name, table, "x").server
    assert back == msgspec.structs.replace(server, source="x")


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ({"command": "x", "url": "http://x"}, "invalid transport"),
        ({"enabled": True}, "invalid transport"),
        (
            {"command": "x", "bearer_token_env_var": "T"},
            "bearer_token_env_var is not supported for stdio",
        ),
        ({"url": "http://x", "args": []}, "args is not supported for streamable_http"),
        ({"url": "http://x", "headers": {}}, "unknown field `headers`"),
        ({"command": 3}, "command: invalid type"),
    ],
)
def test_invalid_server_tables(table: dict[str, Any], error: str) -> None:
    imported = import_server("s", table, "x")
    assert imported.server is None and error in imported.error


# --- discover --------------------------------------------------------------------------------

ROLE = 'name = "{name}"\ndescription = "d {name}"\ndeveloper_instructions = "x"\n'


def roots(tmp_path: Path, files: dict[str, str], trusted: bool = True) -> Roots:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    workspace.mkdir(exist_ok=True)
    config = home / ".codex" / "config.toml"
    if trusted and not config.exists():
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f'[projects."{workspace.resolve()}"]\ntrust_level = "trusted"\n')
    return Roots(workspace=workspace, home=home)


@pytest.mark.parametrize(
    ("text", "code", "message", "line"),
    [
        ('name = "a"\ndescription = \n', "harness-invalid", "failed to parse agent role file", 2),
        (
            ROLE.format(name="a") + 'color = "red"\n',
            "harness-field-unknown",
            "unknown field `color`",
            4,
        ),
        (
            'description = "d"\ndeveloper_instructions = "x"\n',
            "harness-invalid",
            "must define a non-empty `name`",
            1,
        ),
        (
            'name = "  "\ndescription = "d"\ndeveloper_instructions = "x"\n',
            "harness-invalid",
            "non-empty `name`",
            1,
        ),
        (
            'name = "a"\ndescription = "d"\n',
            "harness-invalid",
            "must define `developer_instructions`",
            1,
        ),
        (
            'name = "a"\ndescription = "d"\ndeveloper_instructions = " "\n',
            "harness-invalid",
            "developer_instructions cannot be blank",
            3,
        ),
        (
            'name = "a"\ndescription = ""\ndeveloper_instructions = "x"\n',
            "harness-invalid",
            "description cannot be blank",
            2,
        ),
        (
            'name = "a"\ndeveloper_instructions = "x"\n',
            "harness-invalid",
            "agent role `a` must define a description",
            1,
        ),
        (
            'name = "a"\ndescription = 1\ndeveloper_instructions = "x"\n',
            "harness-field-type",
            "invalid type for `description`",
            2,
        ),
        (
            ROLE.format(name="a") + 'approval_policy = "always"\n',
            "harness-field-type",
            "unknown variant `always`",
            4,
        ),
        (
            ROLE.format(name="a") + "nickname_candidates = []\n",
            "harness-field-type",
            "nickname_candidates",
            4,
        ),
        (
            ROLE.format(name="a") + "[mcp_servers.s]\nenabled = true\n",
            "harness-invalid",
            "mcp_servers.s: invalid transport",
            4,
        ),
    ],
)
def test_discover_refuses_files_codex_skips(
    text: str, code: str, message: str, line: int, tmp_path: Path
) -> None:
    found = CODEC.discover(roots(tmp_path, {"ws/.codex/agents/a.toml": text}))
    assert found.profiles == ()
    assert found.refused
    [diagnostic] = found.diagnostics
    assert (diagnostic.code, diagnostic.line) == (code, line)
    assert message in diagnostic.message


def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    found = CODEC.discover(
        roots(
            tmp_path,
            {"ws/.codex/agents/a.toml": "x = ", "ws/.codex/agents/b.toml": ROLE.format(name="b")},
        )
    )
    assert [p.id for p in found.profiles] == ["b"]
    assert found.refused


def test_project_beats_user_and_fills_missing_fields(tmp_path: Path) -> None:
    found = CODEC.discover(
        roots(
            tmp_path,
            {
                "home/.codex/agents/x.toml": ROLE.format(name="s")
                + 'nickname_candidates = ["Sam"]\n',
                "ws/.codex/agents/y.toml": 'name = "s"\ndeveloper_instructions = "mine"\n',
            },
        )
    )
    [agent] = found.profiles
    assert (agent.description, agent.prompt) == ("d s", "mine")
    assert agent.harness == {"codex": {"nickname_candidates": ["Sam"]}}
    assert agent.source.endswith("ws/.codex/agents/y.toml")
    [shadowed] = found.diagnostics
    assert shadowed.code == "harness-shadowed" and shadowed.path.endswith("x.toml")
    assert not found.refused


def test_same_name_in_one_folder_first_sorted_path_wins(tmp_path: Path) -> None:
    found = CODEC.discover(
        roots(
            tmp_path,
            {
                "ws/.codex/agents/b.toml": ROLE.format(name="d").replace("d d", "second"),
                "ws/.codex/agents/a/x.toml": ROLE.format(name="d"),
            },
        )
    )
    assert [p.description for p in found.profiles] == ["d d"]
    assert [d.code for d in found.diagnostics] == ["harness-shadowed"]


def test_untrusted_project_is_listed_with_a_warning(tmp_path: Path) -> None:
    found = CODEC.discover(
        roots(tmp_path, {"ws/.codex/agents/a.toml": ROLE.format(name="a")}, trusted=False)
    )
    assert [p.id for p in found.profiles] == ["a"]
    [warning] = found.diagnostics
    assert warning.code == "harness-ignored" and "trusted" in warning.message
    assert not warning.is_error and not found.refused


def test_trust_of_a_parent_folder_counts(tmp_path: Path) -> None:
    files = {
        "home/.codex/config.toml": f'[projects."{tmp_path.resolve()}"]\ntrust_level = "trusted"\n',
        "ws/.codex/agents/a.toml": ROLE.format(name="a"),
    }
    assert CODEC.discover(roots(tmp_path, files)).diagnostics == ()


def test_markdown_roles_are_ignored_by_this_version(tmp_path: Path) -> None:
    found = CODEC.discover(roots(tmp_path, {"ws/.codex/agents/a.md": "---\nname: a\n---\n"}))
    assert found.profiles == () and [d.code for d in found.diagnostics] == ["harness-ignored"]


def test_a_broken_config_refuses_the_load(tmp_path: Path) -> None:
    found = CODEC.discover(
        roots(tmp_path, {"ws/.codex/config.toml": "[mcp_servers.x]\nurl = 1\ncommand = 'a'\n"})
    )
    assert found.refused and "invalid transport" in found.diagnostics[0].message


def test_import_reads_permissions_and_tool_filters(tmp_path: Path) -> None:
    text = ROLE.format(name="a") + (
        'sandbox_mode = "read-only"\napproval_policy = "never"\n'
        '[mcp_servers.t]\ncommand = "x"\nenabled_tools = ["run"]\ndisabled_tools = ["drop"]\n'
        'cwd = "/tmp"\n[mcp_servers.u]\nurl = "http://u"\nenabled = false\n'
    )
    found = CODEC.discover(roots(tmp_path, {"ws/.codex/agents/a.toml": text}))
    [agent] = found.profiles
    assert agent.permission_mode == "plan"
    assert agent.harness == {"codex": {"approval_policy": "never"}}
    assert agent.allowed_tools == ("mcp__t__run",)
    assert agent.denied_tools == ("mcp__t__drop", "mcp__u__*")
    assert agent.mcp_servers == ("t", "u")
    assert [s.name for s in found.servers] == ["t", "u"]
    details = " ".join(loss.detail for loss in found.losses)
    assert "mcp_servers.t.cwd" in details and "sandbox_mode" in details
    assert {(loss.field, loss.outcome) for loss in found.losses} == {
        ("mcp_servers", LossOutcome.DROPPED),
        ("permission_mode", LossOutcome.TRANSLATED),
    }


# --- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_example_vault_round_trips(scope: Scope, tmp_path: Path) -> None:
    examples = load_effective(EXAMPLES)
    # Fields, not permissions (the render check is tested in test_never_widen*.py).
    rendering, discovery = render_and_discover(
        CODEC, examples.profiles, examples.servers, scope, tmp_path, allow_widening=True
    )
    back = {p.id for p in discovery.profiles}
    assert back == {p.id for p in examples.profiles}  # every one (issue 13)
    assert [d for d in rendering.diagnostics if d.is_error] == []
    assert (
        roundtrip_differences(
            CODEC, [p for p in examples.profiles if p.id in back], discovery.profiles
        )
        == []
    )
    servers = {s.name: s for s in discovery.servers}
    for name in ("playwright", "context7", "github"):
        want = examples.servers[name]
        assert (
            servers[name].command,
            servers[name].args,
            servers[name].env,
            servers[name].url,
            servers[name].headers,
        ) == (
            want.command,
            want.args,
            want.env,
            want.url,
            want.headers,
        )


CORPUS = (
    profile(),
    profile(id="m", name="m", model="gpt-5-codex", mcp_servers=("docs", "tool")),
    profile(
        id="odd-prompt",
        name="odd-prompt",
        description="Quotes ''' and \"\"\" and ünïcode.",
        sections=(
            PromptSection(heading="Role", body="Line one\n\n    indented code\n\\n literal"),
            PromptSection(heading="Rules", body="- ''' here\n- \\ there"),
        ),
    ),
    profile(
        id="pass",
        name="pass",
        harness={
            "codex": {
                "model_reasoning_effort": "low",
                "web_search": "cached",
                "tools": {"web_search": True},
            }
        },
        permission_mode="bypassPermissions",
    ),
    profile(
        id="rules", name="rules", allowed_tools=("Read", "mcp__tool__run"), mcp_servers=("tool",)
    ),
)


def test_corpus_round_trips_with_pass_through(tmp_path: Path) -> None:
    rendering, discovery = render_and_discover(
        CODEC, CORPUS, SERVERS, Scope.PROJECT, tmp_path, allow_widening=True
    )
    assert not [d for d in rendering.diagnostics if d.is_error]
    assert roundtrip_differences(CODEC, CORPUS, discovery.profiles) == []
    back = {p.id: p for p in discovery.profiles}
    assert back["pass"].harness == CORPUS[3].harness
    assert back["pass"].permission_mode == "bypassPermissions"
    assert back["rules"].allowed_tools == ("mcp__tool__run",)
