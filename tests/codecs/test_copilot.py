"""The Copilot codec: ids from file names, tool aliases and ``<server>/<tool>``, the
30,000-character prompt limit, ``.vscode/mcp.json`` and the round trip
(docs/codecs/copilot.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_roster.cli import main
from agent_roster.codecs.base import Discovery, LossOutcome, Rendering, RenderRequest, Scope
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


def agent(description: str = "d", body: str = "B", extra: str = "") -> str:
    return f"---\ndescription: {description}\n{extra}---\n{body}\n"


def test_layers_ids_and_precedence_follow_the_cli(tmp_path: Path) -> None:
    """Seen with Copilot CLI 1.0.102 (docs/codecs/copilot.md §1): the user's agent wins over
    the project's, ``.github/agents`` over ``.claude/agents``, each read recursively, and in
    one folder the first file in path order wins."""
    found = discover(
        tmp_path,
        {
            "home/.copilot/agents/rev.agent.md": agent("user", "U"),
            "home/.copilot/agents/usub/u.md": agent("user, nested"),
            "ws/.github/agents/rev.agent.md": agent("project", "P"),
            "ws/.github/agents/x.agent.md": agent("x.agent.md wins"),
            "ws/.github/agents/x.md": agent("plain md"),
            "ws/.github/agents/sub--n.agent.md": agent("flat wins"),
            "ws/.github/agents/sub/n.agent.md": agent("nested loses"),
            "ws/.github/agents/sub/deeper/d.md": agent("two levels"),
            "ws/.github/agents/c.md": agent("github c"),
            "ws/.github/agents/.hidden.agent.md": agent("hidden file"),
            "ws/.github/agents/.drafts/h.agent.md": agent("hidden folder"),
            "ws/.github/agents/Up.AGENT.MD": agent("case-sensitive suffix"),
            "ws/.claude/agents/c.md": agent("claude c"),
            "ws/.claude/agents/k.agent.md": agent("claude k"),
            "ws/.claude/agents/deep/cd.md": agent("claude nested"),
            "home/.claude/agents/hc.md": agent("the CLI does not read ~/.claude"),
        },
    )
    by_id = {p.id: p for p in found.profiles}
    assert sorted(by_id) == [
        "c",
        "deep--cd",
        "k",
        "rev",
        "sub--deeper--d",
        "sub--n",
        "usub--u",
        "x",
    ]
    assert [by_id[i].description for i in ("rev", "x", "sub--n", "c", "usub--u")] == [
        "user",
        "x.agent.md wins",
        "flat wins",
        "github c",
        "user, nested",
    ]
    assert by_id["rev"].prompt == "U"
    assert by_id["deep--cd"].source == str(tmp_path / "ws/.claude/agents/deep/cd.md")
    shadowed = sorted(
        Path(d.path).relative_to(tmp_path).as_posix()
        for d in found.diagnostics
        if d.code == "harness-shadowed"
    )
    assert shadowed == [
        "ws/.claude/agents/c.md",
        "ws/.github/agents/rev.agent.md",
        "ws/.github/agents/sub/n.agent.md",
        "ws/.github/agents/x.md",
    ]
    ignored = [Path(d.path).name for d in found.diagnostics if d.code == "harness-ignored"]
    assert ignored == ["Up.AGENT.MD"]
    assert not found.refused


def test_files_the_cli_skips_are_refused_in_its_words(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            "ws/.github/agents/nofm.agent.md": "just a body\n",
            "ws/.github/agents/nodesc.agent.md": "---\nname: x\n---\nbody\n",
            "ws/.github/agents/d5.agent.md": agent("5"),
            "ws/.github/agents/n5.agent.md": agent(extra="name: 5\n"),
            "ws/.github/agents/t5.agent.md": agent(extra="tools: 5\n"),
            "ws/.github/agents/tnum.agent.md": agent(extra="tools: [read, 5]\n"),
            "ws/.github/agents/m5.agent.md": agent(extra="model: 5\n"),
            "ws/.github/agents/ms.agent.md": agent(extra="mcp-servers: 5\n"),
            "ws/.github/agents/ui.agent.md": agent(extra="user-invocable: 'yes'\n"),
            "ws/.github/agents/bad.agent.md": agent("[unclosed"),
            "ws/.github/agents/empty.agent.md": agent("''"),
            "ws/.github/agents/big.agent.md": agent(body="x" * 30_001),
            "ws/.github/agents/mlist.agent.md": agent(extra="model: [a, b]\ncolour: red\n"),
            "ws/.github/agents/tstr.agent.md": agent(extra="tools: 'read, search'\n"),
        },
    )
    assert found.refused
    errors = {
        Path(d.path).name.removesuffix(".agent.md"): d.message
        for d in found.diagnostics
        if d.is_error
    }
    malformed = "custom agent markdown frontmatter is malformed: "
    assert errors == {
        "nofm": malformed + "missing or malformed YAML frontmatter",
        "nodesc": malformed + "description: Required",
        "d5": malformed + "description: Expected string, received number",
        "n5": malformed + "name: Expected string, received number",
        "t5": malformed + "tools: Expected array, received number",
        "tnum": malformed + "tools: 1: Expected string, received number",
        "m5": malformed + "model: Expected string, received number",
        "ms": malformed + "mcp-servers: Expected object, received number",
        "ui": malformed + "user-invocable: Expected boolean, received string",
        "bad": errors["bad"],  # the YAML parser's own words
    }
    assert sorted(p.id for p in found.profiles) == ["big", "empty", "mlist", "tstr"]
    tstr = next(p for p in found.profiles if p.id == "tstr")
    assert tstr.allowed_tools == ("Read", "Grep", "Glob")
    warnings = sorted(Path(d.path).name for d in found.diagnostics if not d.is_error)
    assert warnings == ["big.agent.md", "empty.agent.md", "mlist.agent.md"]


SERVER = '{"%s": {"type": "stdio", "command": "%s"}}'


@pytest.mark.parametrize("how", ["config", "parent", "legacy key", "environment", "untrusted"])
def test_workspace_mcp_files_are_read_only_in_a_trusted_folder(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COPILOT_ALLOW_ALL", raising=False)
    workspace = tmp_path / "ws"
    trusted = {
        "config": f'// managed\n{{"trustedFolders": ["{workspace}"]}}',
        "parent": json.dumps({"trustedFolders": [str(tmp_path)]}),
        "legacy key": json.dumps({"trusted_folders": [f"{workspace}/"]}),
        "environment": json.dumps({"trustedFolders": ["/elsewhere"]}),
        "untrusted": json.dumps({"trustedFolders": [f"{workspace}-other"]}),
    }[how]
    if how == "environment":
        monkeypatch.setenv("COPILOT_ALLOW_ALL", "true")
    uses = "tools: [read, 'same/*', 'ws/*', 'gh/*']\n"
    found = discover(
        tmp_path,
        {
            "home/.copilot/config.json": trusted,
            "home/.copilot/mcp-config.json": '{"mcpServers": %s}' % (SERVER % ("same", "user")),
            "ws/.mcp.json": '{"mcpServers": {"same": {"command": "ws"}, "ws": {"command": "w"}}}',
            "ws/.github/mcp.json": '{"mcpServers": %s}' % (SERVER % ("gh", "not read")),
            "ws/.vscode/mcp.json": '{"servers": %s}' % (SERVER % ("vsc", "never")),
            "ws/.github/agents/a.agent.md": agent(extra=uses),
        },
    )
    servers = {s.name: s.command for s in found.servers}
    (a,) = found.profiles
    ignored = sorted(Path(d.path).name for d in found.diagnostics if d.code == "harness-ignored")
    if how == "untrusted":
        assert servers == {"same": "user"} and a.mcp_servers == ("same",)
        assert ignored == [".mcp.json", "mcp.json"]
    else:
        assert servers == {"same": "ws", "ws": "w"} and a.mcp_servers == ("same", "ws")
        assert ignored == ["mcp.json"]  # .vscode/mcp.json
    assert not found.refused


def test_github_mcp_json_is_read_when_there_is_no_mcp_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_ALLOW_ALL", "true")
    found = discover(
        tmp_path,
        {
            "ws/.github/mcp.json": '{"mcpServers": %s}' % (SERVER % ("gh", "g")),
            "ws/.github/agents/a.agent.md": agent(extra="tools: ['gh/x']\n"),
        },
    )
    assert [s.command for s in found.servers] == ["g"]
    assert found.profiles[0].allowed_tools == ("mcp__gh__x",)


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
    # The Copilot CLI's .mcp.json takes ${VAR:-default}; VS Code's file cannot.
    assert [f.path for f in rendering.files] == [".github/agents/helper.agent.md", ".mcp.json"]
    assert len([d for d in rendering.diagnostics if d.is_error]) == 3
    assert [d.path for d in rendering.diagnostics if "VAR:-default" in d.message] == [
        ".vscode/mcp.json"
    ]
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
    # Fields, not permissions (the render check is tested in test_never_widen*.py).
    rendering, found = render_and_discover(
        CODEC, example.profiles, example.servers, scope, tmp_path, allow_widening=True
    )
    assert not found.refused and not [d for d in rendering.diagnostics if d.is_error]
    assert roundtrip_differences(CODEC, example.profiles, found.profiles) == []
    outcomes = {loss.outcome for loss in rendering.losses}
    assert LossOutcome.TRANSLATED in outcomes


@pytest.mark.parametrize(
    ("choice", "paths"),
    [
        (None, [".mcp.json", ".vscode/mcp.json"]),
        ("both", [".mcp.json", ".vscode/mcp.json"]),
        ("cli", [".mcp.json"]),
        ("vscode", [".vscode/mcp.json"]),
    ],
)
def test_project_servers_go_to_the_cli_and_vscode_files(
    choice: str | None, paths: list[str]
) -> None:
    gh = McpServer(name="gh", transport=Transport.STDIO, command="x", env={"K": "${K}"})
    request = RenderRequest(
        profiles=(profile(mcp_servers=("gh",)),),
        servers={"gh": gh},
        options={} if choice is None else {"mcp": choice},
    )
    existing = {".mcp.json": '{"mcpServers": {"mine": {"command": "y"}}, "other": 1}'}
    rendering = CODEC.render(request, existing.get)
    files = {f.path: f for f in rendering.files}
    assert sorted(p for p in files if "agents" not in p) == paths
    assert all(files[p].merged and files[p].profile == "" for p in paths)
    if ".mcp.json" in files:
        assert json.loads(files[".mcp.json"].content) == {
            "mcpServers": {
                "mine": {"command": "y"},
                "gh": {"type": "stdio", "command": "x", "env": {"K": "${K}"}},
            },
            "other": 1,
        }
    if ".vscode/mcp.json" in files:
        entry = json.loads(files[".vscode/mcp.json"].content)["servers"]["gh"]
        assert entry["env"] == {"K": "${env:K}"}


@pytest.mark.parametrize(
    ("allowed", "denied", "written"),
    [
        (("Grep",), (), ["grep"]),
        (("Glob", "Read"), (), ["glob", "read"]),
        (("Read", "Grep", "Bash", "Glob"), (), ["read", "search", "execute"]),
        (("Write", "Edit", "Task", "TodoWrite"), (), ["edit", "agent", "todo"]),
        ((), ("Glob",), ["execute", "read", "edit", "grep", "agent", "web", "todo"]),
        ((), ("Grep", "Glob", "Bash"), ["read", "edit", "agent", "web", "todo"]),
    ],
)
def test_tools_are_the_narrowest_entries_the_cli_honours(
    allowed: tuple[str, ...], denied: tuple[str, ...], written: list[str], tmp_path: Path
) -> None:
    """``search`` gives the CLI's grep and glob, so Grep alone is written ``grep`` (seen:
    docs/codecs/copilot.md §5); a deny of one of the two keeps the other."""
    rendering = render([profile(allowed_tools=allowed, denied_tools=denied)])
    (agent_file,) = [f for f in rendering.files if f.path.endswith(".agent.md")]
    assert front(agent_file.content)["tools"] == written
    found = discover(tmp_path, {f"ws/{agent_file.path}": agent_file.content})
    back = found.profiles[0]
    assert (
        roundtrip_differences(CODEC, [profile(allowed_tools=allowed, denied_tools=denied)], [back])
        == []
    )


def test_aliases_import_as_every_tool_they_grant(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            "ws/.github/agents/a.agent.md": agent(
                extra="tools: [search, web, edit, view, update_todo, Glob, shell, 'gh/*']\n"
            )
        },
    )
    assert found.profiles[0].allowed_tools == (
        "Grep",
        "Glob",
        "WebFetch",
        "WebSearch",
        "Edit",
        "Read",
        "TodoWrite",
        "Bash",
        "mcp__gh__*",
    )


def test_the_mcp_option_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    base = ["--vault", str(EXAMPLES), "render", "--to", "copilot", "--out", str(out), "--json"]
    base.append("--allow-widening")  # the example's coding agent: see test_never_widen.py
    assert main([*base, "--option", "copilot.mcp=cli", "coding"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    written = sorted(Path(f["path"]).relative_to(out).as_posix() for f in files)
    assert written == [".github/agents/coding.agent.md", ".mcp.json"]
    bad = {
        "copilot.mcp=all": "copilot.mcp takes both, cli, vscode, not 'all'",
        "copilot.nope=x": "copilot has no render option 'nope'",
        "claude.mcp=cli": "option 'claude.mcp=cli' is for 'claude', which this render does "
        "not write",
        "mcp=cli": "option 'mcp=cli' is not HARNESS.NAME=VALUE",
    }
    for option, message in bad.items():
        assert main([*base, "--option", option]) == 2
        error = json.loads(capsys.readouterr().out)["error"]
        assert error["message"] == message, option


def test_github_server_tools_are_written_for_the_cli_too(tmp_path: Path) -> None:
    """The Copilot CLI keeps ``github/`` for its built-in GitHub server (seen with 1.0.102):
    only ``github-<tool>`` offers a tool of a configured server named github."""
    p = profile(
        allowed_tools=("Read", "mcp__github__get_issue", "mcp__gh__get"),
        mcp_servers=("github", "gh"),
    )
    whole = profile(id="whole", allowed_tools=("mcp__github__*",), mcp_servers=("github",))
    rendering = render([p, whole])
    by_path = {f.path: f.content for f in rendering.files}
    assert front(by_path[".github/agents/helper.agent.md"])["tools"] == [
        "read",
        "github/get_issue",
        "github-get_issue",
        "gh/get",
    ]
    assert front(by_path[".github/agents/whole.agent.md"])["tools"] == ["github/*"]
    notes = [loss.detail for loss in rendering.losses if loss.profile == "whole"]
    assert any("reads github/* as its built-in GitHub server" in note for note in notes)
    found = discover(
        tmp_path, {f"ws/{path}": text for path, text in by_path.items() if "agents" in path}
    )
    helper = next(f for f in found.profiles if f.id == "helper")
    assert helper.allowed_tools == ("Read", "mcp__github__get_issue", "mcp__gh__get")
    assert not [d for d in found.diagnostics if "unknown tool" in d.message]


def test_the_cli_form_names_its_server_too(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            "home/.copilot/mcp-config.json": '{"mcpServers": {"github": {"command": "gh-mcp"}}}',
            "ws/.github/agents/a.agent.md": agent(extra="tools: [github-get_issue]\n"),
        },
    )
    (a,) = found.profiles
    assert (a.allowed_tools, a.mcp_servers) == (("mcp__github__get_issue",), ("github",))
    assert [s.command for s in found.servers] == ["gh-mcp"]


def test_a_prompt_over_copilots_limit_is_refused_with_its_length() -> None:
    def refusals(sections: tuple[PromptSection, ...], **fields: Any) -> list[str]:
        rendering = render([profile(id="p", sections=sections, **fields)])
        assert not rendering.files or not any(d.is_error for d in rendering.diagnostics)
        return [d.message for d in rendering.diagnostics if d.is_error]

    limit = "Copilot allows at most 30,000"
    at_limit = (
        PromptSection(heading="Role", body="x" * 29_991),
        PromptSection(heading="N", body="y"),
    )
    assert len(profile(sections=at_limit).prompt) == 30_000
    assert refusals(at_limit) == []
    # One character more: refused, before its tools or its prompt are worked out.
    over = (*at_limit[:1], PromptSection(heading="N", body="yz"))
    assert refusals(over) == [f"p: the prompt has 30001 characters; {limit}"]
    # Under the limit alone, over it with the constraints render adds for a tool it can
    # only grant whole: the whole prompt is measured.
    narrowed = refusals(at_limit, allowed_tools=("Bash(git log:*)",))
    assert len(narrowed) == 1 and narrowed[0].endswith(f" characters; {limit}")
    assert int(narrowed[0].split()[4]) > 30_000
