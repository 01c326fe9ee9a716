"""Acceptance with the real Copilot CLI (``@github/copilot`` 1.0.102, issue 16 item 2).

Offline by construction (``tests/oracles/copilot.py``): a temporary HOME, no login,
``COPILOT_OFFLINE=true`` and the model on loopback (``tests/oracles/fake_model.py``); MCP
servers are the stdio stub (``tests/oracles/mcp_stub.py``), never a network-fetching one.
What roster's Copilot codec says the CLI loads is compared with what the CLI itself
reports: its agent list, the body and tools in the request it sends, ``mcp list``, and the
files its log says it refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import pytest

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.copilot.codec import CODEC
from agent_roster.codecs.permissions import effective_rules, evaluate, wildcard_match
from agent_roster.codecs.tool_names import opencode_key, split_ref
from agent_roster.commands.discover import import_agents
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile, PermissionAction

from ..oracles.copilot import CopilotCli, git_init, instructions
from ..oracles.fake_model import FakeModel
from ..oracles.fixtures import McpStub
from .helpers import EXAMPLES, need_harness, write_rendering

#: The Copilot CLI's own tools for each canonical tool (seen with 1.0.102, offline: no web
#: tools; docs/codecs/copilot.md §5). Written out here, apart from the codec, so the test
#: checks the codec's mapping rather than repeating it.
CLI_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": ("view",),
    "NotebookRead": ("view",),
    "Grep": ("grep",),
    "Glob": ("glob",),
    "Bash": ("bash", "read_bash", "stop_bash", "list_bash"),
    "Edit": ("create", "edit"),
    "Write": ("create", "edit"),
    "MultiEdit": ("create", "edit"),
    "NotebookEdit": ("create", "edit"),
    "Task": ("task", "read_agent", "list_agents", "write_agent"),
    "Agent": ("task", "read_agent", "list_agents", "write_agent"),
    "TodoWrite": ("update_todo",),
    "TodoRead": ("update_todo",),
}
#: Always offered, whatever ``tools`` says.
ALWAYS = ("skill", "sql")
#: Offered only when ``tools`` is omitted (every tool).
EVERY_BUILTIN = (
    *{t for tools in CLI_TOOLS.values() for t in tools},
    *ALWAYS,
    "fetch_copilot_cli_documentation",
    "session_store_sql",
    "tool_search_tool",
)
#: One tool each stub lists that no profile names: the CLI must not offer it.
EXTRA_TOOL = "unlisted_tool"


def _cli(fake_model: FakeModel, tmp_path: Path) -> CopilotCli:
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    git_init(workspace)
    (home / ".copilot").mkdir(parents=True)
    return CopilotCli(need_harness("copilot"), fake_model, workspace, home)


def _trust(cli: CopilotCli) -> None:
    config = {"trustedFolders": [str(cli.workspace)]}
    (cli.home / ".copilot" / "config.json").write_text(json.dumps(config), encoding="utf-8")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _agent(description: str, body: str = "B", extra: str = "") -> str:
    return f"---\ndescription: {description}\n{extra}---\n{body}\n"


def _discover(cli: CopilotCli) -> tuple[list[AgentProfile], list[str]]:
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    errors = [d.path for d in found.diagnostics if d.is_error]
    return list(found.profiles), errors


# --- layers, recursion, precedence ------------------------------------------------------


@pytest.mark.timeout(600)
def test_the_agents_discover_finds_are_the_agents_the_cli_offers(
    fake_model: FakeModel, tmp_path: Path
) -> None:
    cli = _cli(fake_model, tmp_path)
    _write(
        cli.home,
        {
            ".copilot/agents/shared.agent.md": _agent("user copy", "USER BODY"),
            ".copilot/agents/team/u.md": _agent("user, nested", extra="name: User Nested\n"),
            ".claude/agents/home-claude.md": _agent("not read by the CLI"),
        },
    )
    _write(
        cli.workspace,
        {
            ".github/agents/shared.agent.md": _agent("project copy", "PROJECT BODY"),
            ".github/agents/reviewer.agent.md": _agent("Reviews", extra="name: Reviewer\n"),
            ".github/agents/x.agent.md": _agent("x.agent.md", "AGENT MD"),
            ".github/agents/x.md": _agent("x.md", "PLAIN MD"),
            ".github/agents/sub/nested.agent.md": _agent("nested"),
            ".github/agents/sub--flat.agent.md": _agent("flat", "FLAT"),
            ".github/agents/sub/flat.agent.md": _agent("nested flat", "NESTED FLAT"),
            ".github/agents/.drafts/hidden.agent.md": _agent("hidden"),
            ".github/agents/notes.txt": "not an agent",
            ".github/agents/Loud.AGENT.MD": _agent("case"),
            ".claude/agents/claudey.md": _agent("claude format", extra="tools: Read, Grep\n"),
            ".claude/agents/reviewer.md": _agent("loses to .github", "CLAUDE REVIEWER"),
            ".claude/agents/deep/cd.md": _agent("claude nested"),
        },
    )
    profiles, errors = _discover(cli)
    assert errors == []
    assert sorted(cli.agents()) == sorted(p.name for p in profiles)
    assert sorted(p.id for p in profiles) == [
        "claudey",
        "deep--cd",
        "reviewer",
        "shared",
        "sub--flat",
        "sub--nested",
        "team--u",
        "x",
    ]
    # Which file won each id: the body the CLI sends is the one discover read.
    for profile in profiles:
        captured = cli.request(profile.id)
        assert instructions(captured) == profile.prompt.strip(), profile.id
    assert [instructions(cli.request(i)) for i in ("shared", "x", "sub--flat", "reviewer")] == [
        "USER BODY",
        "AGENT MD",
        "FLAT",
        "B",
    ]
    claudey = next(p for p in profiles if p.id == "claudey")
    assert claudey.allowed_tools == ("Read", "Grep")
    assert sorted(cli.request("claudey").tool_names()) == sorted(("view", "grep", *ALWAYS))
    # In a trusted folder too, the user's copy wins the id (issue 16 point 1: "trusted
    # folder or not"), and discover says the same.
    _trust(cli)
    trusted, errors = _discover(cli)
    assert errors == []
    assert sorted(cli.agents()) == sorted(p.name for p in trusted)
    shared = next(p for p in trusted if p.id == "shared")
    assert shared.prompt.strip() == "USER BODY"
    assert instructions(cli.request("shared")) == "USER BODY"


@pytest.mark.timeout(600)
def test_files_the_cli_refuses_are_the_files_discover_refuses(
    fake_model: FakeModel, tmp_path: Path
) -> None:
    cli = _cli(fake_model, tmp_path)
    _write(
        cli.workspace,
        {
            ".github/agents/good.agent.md": _agent("fine"),
            ".github/agents/nofm.agent.md": "no frontmatter\n",
            ".github/agents/nodesc.agent.md": "---\nname: nodesc\n---\nbody\n",
            ".github/agents/badyaml.agent.md": _agent("[unclosed"),
            ".github/agents/dupkey.agent.md": "---\ndescription: a\ndescription: b\n---\nx\n",
            ".github/agents/tools5.agent.md": _agent("t", extra="tools: 5\n"),
            ".github/agents/toolitem.agent.md": _agent("t", extra="tools: [read, 5]\n"),
            ".github/agents/name5.agent.md": _agent("t", extra="name: 5\n"),
            ".github/agents/model5.agent.md": _agent("t", extra="model: 5\n"),
            ".github/agents/servers.agent.md": _agent("t", extra="mcp-servers: 5\n"),
            ".github/agents/invocable.agent.md": _agent("t", extra="user-invocable: 'yes'\n"),
            ".github/agents/list.agent.md": "---\n- a\n---\nx\n",
            ".github/agents/empty-description.agent.md": _agent("''"),
            ".github/agents/model-list.agent.md": _agent("t", extra="model: [a, b]\n"),
            ".github/agents/long.agent.md": _agent("t", "y" * 30_001),
            ".claude/agents/claude-bad.md": "---\nname: [x\n---\nb\n",
        },
    )
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    refused = sorted(
        Path(d.path).relative_to(cli.workspace).as_posix() for d in found.diagnostics if d.is_error
    )
    log = cli.errors(tmp_path / "logs")
    assert sorted(log) == refused
    ours = {
        Path(d.path).relative_to(cli.workspace).as_posix(): d.message
        for d in found.diagnostics
        if d.is_error and "malformed: " in d.message
    }
    # Where roster checks the value itself, it says what the CLI says (YAML errors are
    # worded by each side's parser).
    for path, message in ours.items():
        assert message.endswith(log[path]), path
    assert len(ours) == 8
    assert sorted(cli.agents()) == sorted(p.name for p in found.profiles)
    loaded = ["empty-description", "good", "long", "model-list"]
    assert sorted(p.id for p in found.profiles) == loaded
    # roster import reports the same refusals and writes exactly the agents the CLI loads.
    vault = tmp_path / "vault"
    vault.mkdir()
    report = import_agents(vault, "copilot", workspace=cli.workspace, home=cli.home)
    assert report.refused and not report.ok
    assert sorted(
        Path(d.path).relative_to(cli.workspace).as_posix() for d in report.diagnostics if d.is_error
    ) == sorted(log)
    assert sorted(f.name for f in report.files if f.kind == "profile") == loaded
    assert all(f.status == "created" for f in report.files)


# --- every example agent, rendered: body and exact tools in the request -----------------


class Stubs(NamedTuple):
    registry: dict[str, McpServer]  # the registry servers, each a stub
    embedded: McpServer  # roster's own command server, a stub too
    tools: dict[str, tuple[str, ...]]  # server name -> the tools its stub lists


def _stub_servers(
    profiles: Iterable[AgentProfile],
    servers: Iterable[str],
    embedded: str,
    commands: frozenset[str],
    stub: McpStub,
) -> Stubs:
    """A stub for each registry server (listing every tool a profile names there, plus one
    no profile names) and one for the embedded server (its commands the profiles name)."""
    named: dict[str, list[str]] = {name: [] for name in (*servers, embedded)}
    for profile in profiles:
        for tool in (*profile.allowed_tools, *profile.denied_tools):
            ref = split_ref(tool)
            if ref.server in named and ref.mcp_tool not in (None, "*"):
                named[ref.server].append(str(ref.mcp_tool))
            elif ref.server is None and ref.tool in commands:
                named[embedded].append(ref.tool)
    tools = {name: (*dict.fromkeys(found), EXTRA_TOOL) for name, found in named.items()}
    stubs = {name: stub.server(name, *listed) for name, listed in tools.items()}
    embedded_stub = stubs.pop(embedded)
    return Stubs(stubs, embedded_stub, tools)


def _offered(rules: object, key: str) -> bool:
    """Whether a profile lets the agent have the tool of permission ``key`` at all: not
    denied outright (an allow narrowed to arguments still offers the tool, and ``ask``
    has no Copilot form, so it offers it too)."""
    from agent_roster.codecs.permissions import SourcedRule

    assert isinstance(rules, tuple)
    sourced: tuple[SourcedRule, ...] = rules
    if evaluate(sourced, key).action is not PermissionAction.DENY:
        return True
    return any(
        r.rule.action is PermissionAction.ALLOW
        and r.rule.pattern != "*"
        and wildcard_match(key, r.rule.permission)
        for r in sourced
    )


def _expected_tools(
    profile: AgentProfile, mcp_tools: dict[str, tuple[str, ...]], embedded: str
) -> list[str]:
    """The tools the CLI should offer ``profile``'s agent, from the profile's own rules."""
    rules = effective_rules(profile, embedded=embedded)
    every_mcp = [f"{server}-{tool}" for server, tools in mcp_tools.items() for tool in tools]
    if not rules:
        return sorted({*EVERY_BUILTIN, *every_mcp})
    expected = set(ALWAYS)
    for canonical, cli_tools in CLI_TOOLS.items():
        if _offered(rules, opencode_key(canonical)):
            expected.update(cli_tools)
    for server, tools in mcp_tools.items():
        for tool in tools:
            name = tool if server == embedded else f"mcp__{server}__{tool}"
            key = opencode_key(name, embedded=embedded)
            if server in (*profile.mcp_servers, embedded) and _offered(rules, key):
                expected.add(f"{server}-{tool}")
    return sorted(expected)


@pytest.mark.timeout(900)
def test_every_rendered_example_agent_reaches_the_model_as_rendered(
    fake_model: FakeModel, mcp_stub: McpStub, tmp_path: Path
) -> None:
    cli = _cli(fake_model, tmp_path)
    _trust(cli)
    example = load_effective(EXAMPLES)
    stubs = _stub_servers(
        example.profiles, example.servers, example.embedded, example.commands, mcp_stub
    )
    request = RenderRequest(
        profiles=example.profiles,
        servers=stubs.registry,
        embedded=example.embedded,
        embedded_commands=example.commands,
    )
    rendering = CODEC.render(request, lambda rel: None)
    assert not [d for d in rendering.diagnostics if d.is_error]
    write_rendering(rendering, cli.workspace)
    # roster's own command server, as a user has it configured for every project.
    embedded = stubs.embedded
    user_servers = {embedded.name: {"command": embedded.command, "args": list(embedded.args)}}
    (cli.home / ".copilot" / "mcp-config.json").write_text(
        json.dumps({"mcpServers": user_servers}), encoding="utf-8"
    )
    mcp_tools = stubs.tools
    files = {f.profile: f.content for f in rendering.files if f.profile}
    assert sorted(files) == sorted(p.id for p in example.profiles)
    assert sorted(cli.agents()) == sorted(p.name for p in example.profiles)
    for profile in example.profiles:
        captured = cli.request(profile.id)
        body = instructions(captured)
        assert body is not None and profile.prompt.strip() in body, profile.id
        assert files[profile.id].replace("\r\n", "\n").endswith(body + "\n"), profile.id
        wanted = _expected_tools(profile, mcp_tools, example.embedded)
        got = sorted(captured.tool_names())
        extra, missing = sorted(set(got) - set(wanted)), sorted(set(wanted) - set(got))
        assert got == wanted, (profile.id, extra, missing)
        assert not any(name.endswith(EXTRA_TOOL) for name in captured.tool_names())


# --- MCP files ------------------------------------------------------------------------


def _mcp_fixture(cli: CopilotCli, stub: McpStub, scope: Scope) -> dict[str, McpServer]:
    servers = {name: stub.server(name, "echo") for name in ("alpha", "beta")}
    profile = AgentProfile(
        id="probe",
        name="Probe",
        description="Uses two servers.",
        allowed_tools=("Read", "mcp__alpha__*", "mcp__beta__*"),
        mcp_servers=("alpha", "beta"),
    )
    target = cli.workspace if scope is Scope.PROJECT else cli.home
    request = RenderRequest(profiles=(profile,), servers=servers, scope=scope)
    write_rendering(CODEC.render(request, lambda rel: None), target)
    return servers


def _ours(cli: CopilotCli) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """The servers discover finds, in the shape of :func:`_listed`."""
    found = CODEC.discover(Roots(workspace=cli.workspace, home=cli.home))
    home = str(cli.home)
    return {
        s.name: ("user" if s.source.startswith(home) else "workspace", s.command, s.args)
        for s in found.servers
    }


def _listed(entries: dict[str, object]) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    out = {}
    for name, entry in entries.items():
        assert isinstance(entry, dict)
        out[name] = (entry["source"], entry["command"], tuple(entry["args"]))
    return out


@pytest.mark.timeout(600)
def test_mcp_list_shows_the_servers_discover_finds(
    fake_model: FakeModel, mcp_stub: McpStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COPILOT_ALLOW_ALL", raising=False)
    cli = _cli(fake_model, tmp_path)
    servers = _mcp_fixture(cli, mcp_stub, Scope.PROJECT)
    assert (cli.workspace / ".vscode" / "mcp.json").is_file()

    def ours() -> dict[str, tuple[str, str, tuple[str, ...]]]:
        return _ours(cli)

    # Untrusted: the CLI reads no workspace file, and discover says why.
    assert cli.mcp_list() == {}
    assert ours() == {}
    # Trusted through config.json, as the CLI saves it.
    _trust(cli)
    listed = _listed(cli.mcp_list())
    assert listed == {n: ("workspace", s.command, s.args) for n, s in servers.items()}
    assert listed == ours()
    # The servers really reach the model as <server>-<tool>.
    assert {"alpha-echo", "beta-echo"} <= set(cli.request("probe").tool_names())

    # .github/mcp.json is read only when there is no .mcp.json; .vscode/mcp.json never.
    (cli.workspace / ".mcp.json").rename(cli.workspace / ".github" / "mcp.json")
    assert _listed(cli.mcp_list()) == listed == ours()
    (cli.workspace / ".github" / "mcp.json").unlink()
    assert cli.mcp_list() == {} and ours() == {}


@pytest.mark.timeout(600)
def test_user_scope_servers_and_the_workspace_winning_a_name(
    fake_model: FakeModel, mcp_stub: McpStub, tmp_path: Path
) -> None:
    cli = _cli(fake_model, tmp_path)
    servers = _mcp_fixture(cli, mcp_stub, Scope.USER)
    listed = _listed(cli.mcp_list())
    assert listed == {n: ("user", s.command, s.args) for n, s in servers.items()}
    (cli.workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"alpha": {"command": "workspace-alpha"}}}), encoding="utf-8"
    )
    assert _ours(cli) == listed  # untrusted: the workspace file is not read
    _trust(cli)
    listed = _listed(cli.mcp_list())
    assert listed["alpha"] == ("workspace", "workspace-alpha", ())
    assert listed["beta"][0] == "user"
    assert _ours(cli) == listed
    assert sorted(cli.agents()) == ["Probe"]
    tools = cli.request("probe").tool_names()
    assert sorted(tools) == sorted(("view", "beta-echo", *ALWAYS))  # alpha's command fails
