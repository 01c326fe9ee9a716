"""Acceptance against the real OpenCode CLI (opencode-ai 1.18.33): render profiles into a
temporary workspace, then ask ``opencode debug agent NAME`` and ``opencode debug config``
what OpenCode actually loaded.

Every run uses an isolated HOME (``run_harness``), ``--pure`` (no external plugins) and the
switches that keep OpenCode off the network (no auto-update, no models.dev fetch, no LSP
download). One ``debug agent`` call takes about 1.5 s, so all agents share one workspace and
run two at a time, each run with a HOME of its own (OpenCode's SQLite store in the data
folder fails with "database is locked" when two processes share one).
"""

from __future__ import annotations

import json
import queue
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from agent_roster.codecs.base import RenderRequest, Scope
from agent_roster.codecs.opencode.codec import CODEC
from agent_roster.codecs.opencode.render import BASE
from agent_roster.codecs.opencode.rules import render_rules
from agent_roster.codecs.opencode.schema import infer_provider
from agent_roster.codecs.permissions import SourcedRule, evaluate, expand_home
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)
from tests.codecs.helpers import EXAMPLES, need_harness, run_harness, write_rendering

OFFLINE = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "GITHUB_PERSONAL_ACCESS_TOKEN": "token-from-env",
}
WORKERS = 2
ALLOW, ASK, DENY = PermissionAction.ALLOW, PermissionAction.ASK, PermissionAction.DENY


def rule(key: str, pattern: str, action: PermissionAction) -> PermissionRule:
    return PermissionRule(permission=key, pattern=pattern, action=action)


def generated() -> list[AgentProfile]:
    """Profiles covering every native field and the permission shapes."""
    role = (PromptSection(heading="Role", body="You check things."),)
    return [
        AgentProfile(
            id="gen-primary",
            name="gen-primary",
            description="primary agent with sampling settings",
            mode="primary",
            provider="openai",
            model="gpt-5",
            temperature=0.2,
            top_p=0.8,
            max_turns=7,
            color="#00ff88",
            permission=(
                rule("*", "*", ASK),
                rule("bash", "*", DENY),
                rule("bash", "git status*", ALLOW),
                rule("edit", "src/*.py", ALLOW),
                rule("webfetch", "*", DENY),
            ),
            mcp_servers=("github",),
            sections=role,
        ),
        AgentProfile(
            id="gen-sub",
            name="gen-sub",
            description="subagent in plan mode",
            mode="subagent",
            model="anthropic/claude-haiku-4-5",
            color="accent",
            permission_mode="plan",
            denied_tools=("WebSearch", "mcp__github__*"),
            harness={"opencode": {"variant": "high", "hidden": True}},
            sections=(*role, PromptSection(heading="Steps", body="1. Look.\n2. Report.")),
        ),
        AgentProfile(
            id="gen-all",
            name="gen-all",
            mode="all",
            model="claude-sonnet-4-6",
            permission_mode="bypassPermissions",
            permission=(
                rule("github_*", "*", DENY),
                rule("question", "*", ALLOW),
                rule("read", "*.secret", DENY),
                rule("external_directory", "~/notes/*", ALLOW),
            ),
            mcp_servers=("github", "context7"),
        ),
        AgentProfile(
            id="gen-echo",
            name="gen-echo",
            model="claude-haiku-4-5",
            permission=ECHO_RULES,
            sections=role,
        ),
    ]


#: Rules the bash cross-check runs real (harmless) ``echo`` commands against.
ECHO_RULES = (
    rule("bash", "*", DENY),
    rule("bash", "echo ok *", ALLOW),
    rule("bash", "echo q?z", ALLOW),
    rule("bash", "echo last*", ALLOW),
    rule("bash", "echo last blocked", DENY),
    rule("bash", "echo a/b", ALLOW),
)
ECHO_COMMANDS = (
    "echo ok",  # trailing " *" is optional
    "echo ok there",
    "echo okay",  # no space: "ok *" does not match
    "echo qaz",  # ? is one character
    "echo qaaz",
    "echo last one",  # last match wins
    "echo last blocked",
    "echo a\\b",  # backslash normalised to "/"
)


class Workspace(NamedTuple):
    root: Path
    homes: queue.Queue[Path]  # one HOME per concurrent run: OpenCode's SQLite store locks
    profiles: tuple[AgentProfile, ...]
    servers: dict[str, McpServer]
    block: tuple[str, ...]
    binary: str


class Loaded(NamedTuple):
    info: dict[str, Any]
    home: Path


def _run(ws: Workspace, *argv: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    home = ws.homes.get()
    try:
        done = run_harness(
            [ws.binary, *argv, "--pure"], cwd=ws.root, home=home, env=OFFLINE, timeout=60
        )
    finally:
        ws.homes.put(home)
    return done, home


def _homes(base: Path, count: int) -> queue.Queue[Path]:
    homes: queue.Queue[Path] = queue.Queue()
    for index in range(count):
        home = base / f"home{index}"
        home.mkdir()
        homes.put(home)
    return homes


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    binary = need_harness("opencode")
    base = tmp_path_factory.mktemp("opencode-cli")
    root = base / "workspace"
    root.mkdir()
    effective = load_effective(EXAMPLES)
    profiles = (*effective.profiles, *generated())
    servers = dict(effective.servers)
    request = RenderRequest(profiles=profiles, servers=servers, scope=Scope.PROJECT)
    rendering = CODEC.render(request, lambda rel: None)
    assert not rendering.diagnostics, rendering.diagnostics
    write_rendering(rendering, root)
    config = json.loads((root / BASE[Scope.PROJECT] / "opencode.json").read_text())
    homes = _homes(base, WORKERS)
    yield Workspace(root, homes, profiles, servers, tuple(config["mcp"]), binary)


@pytest.fixture(scope="module")
def agents(workspace: Workspace) -> dict[str, Loaded]:
    """``opencode debug agent`` for every rendered profile (two at a time)."""

    def one(profile: AgentProfile) -> tuple[str, Loaded]:
        done, home = _run(workspace, "debug", "agent", profile.id)
        assert done.returncode == 0, done.stderr[-2000:]
        return profile.id, Loaded(json.loads(done.stdout), home)

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return dict(pool.map(one, workspace.profiles))


def _model(profile: AgentProfile) -> dict[str, str]:
    if profile.provider:
        return {"providerID": profile.provider, "modelID": profile.model}
    if "/" in profile.model:
        provider, model = profile.model.split("/", 1)
        return {"providerID": provider, "modelID": model}
    return {"providerID": infer_provider(profile.model), "modelID": profile.model}


def test_every_rendered_agent_loads_as_rendered(
    workspace: Workspace, agents: dict[str, Loaded]
) -> None:
    for profile in workspace.profiles:
        info = agents[profile.id].info
        assert info["name"] == profile.id
        assert info["native"] is False
        assert info["mode"] == (profile.mode or "all")
        assert info["model"] == _model(profile)
        assert info.get("description", "") == profile.description
        assert info.get("temperature") == profile.temperature
        assert info.get("topP") == profile.top_p
        assert info.get("steps") == profile.max_turns
        assert info.get("color", "") == profile.color
        assert info["prompt"] == profile.prompt
        # No roster key may leak into the provider options (README D5).
        assert info["options"] == {}, info["options"]


def test_generated_pass_through_keys_reach_opencode(agents: dict[str, Loaded]) -> None:
    info = agents["gen-sub"].info
    assert info["variant"] == "high"
    assert info["hidden"] is True


def test_permission_rules_are_the_agents_suffix(
    workspace: Workspace, agents: dict[str, Loaded]
) -> None:
    for profile in workspace.profiles:
        expected = render_rules(profile, workspace.block).rules
        reported = [
            (r["permission"], r["pattern"], r["action"])
            for r in agents[profile.id].info["permission"]
        ]
        # OpenCode appends its own tool-output allow after every agent's rules.
        tail = reported[-1]
        assert tail[0] == "external_directory" and tail[1].endswith("tool-output/*")
        ours = reported[-1 - len(expected) : -1]
        # OpenCode expands "~/" at the start of a pattern (permissions.md §1.1).
        home = str(agents[profile.id].home)
        want = [(r.permission, expand_home(r.pattern, home), r.action.value) for r in expected]
        assert ours == want, profile.id


def test_tool_visibility_follows_the_rules(agents: dict[str, Loaded]) -> None:
    # gen-sub: plan mode denies edit; WebSearch denied; everything else stays visible.
    tools = agents["gen-sub"].info["tools"]
    assert tools["edit"] is False and tools["write"] is False
    assert tools["bash"] is True
    # gen-echo: bash is visible although "*" is denied, because later bash rules allow.
    assert agents["gen-echo"].info["tools"]["bash"] is True


def test_debug_config_shows_the_rendered_mcp_servers(workspace: Workspace) -> None:
    done, _ = _run(workspace, "debug", "config")
    assert done.returncode == 0, done.stderr[-2000:]
    config = json.loads(done.stdout)
    assert list(config["mcp"]) == list(workspace.block)
    github = config["mcp"]["github"]
    assert github["type"] == "local"
    assert github["command"] == ["npx", "-y", "@modelcontextprotocol/server-github"]
    # {env:GITHUB_PERSONAL_ACCESS_TOKEN} was substituted from the environment: OpenCode
    # masks a non-empty secret as "***" (an unset variable shows as "").
    assert github["environment"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "***"}
    context7 = config["mcp"]["context7"]
    assert context7["type"] == "remote"
    assert context7["url"] == "https://mcp.context7.com/mcp"
    assert "headers" not in context7  # the example sends no optional key
    # The raw agent entries keep the permission map in written order.
    assert list(config["agent"]["gen-echo"]["permission"]["bash"]) == [
        r.pattern for r in ECHO_RULES
    ]


def test_bash_decisions_match_the_canonical_evaluator(workspace: Workspace) -> None:
    sourced = [SourcedRule(r, "permission") for r in ECHO_RULES]

    def one(command: str) -> tuple[str, bool]:
        params = json.dumps({"command": command, "description": "roster check"})
        done, _ = _run(
            workspace, "debug", "agent", "gen-echo", "--tool", "bash", "--params", params
        )
        denied = "prevents you from using this specific tool call" in done.stderr
        assert denied or done.returncode == 0, done.stderr[-2000:]
        return command, denied

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = dict(pool.map(one, ECHO_COMMANDS))
    expected = {c: evaluate(sourced, "bash", c).action is DENY for c in ECHO_COMMANDS}
    assert outcomes == expected
    assert outcomes["echo okay"] and outcomes["echo last blocked"]
    assert not outcomes["echo ok"] and not outcomes["echo a\\b"]


def test_user_scope_agents_and_servers_load(tmp_path: Path) -> None:
    binary = need_harness("opencode")
    root, home = tmp_path / "workspace", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    profile = generated()[0]
    servers = {"github": McpServer(name="github", transport=Transport.STDIO, command="srv")}
    request = RenderRequest(profiles=(profile,), servers=servers, scope=Scope.USER)
    rendering = CODEC.render(request, lambda rel: None)
    assert not rendering.diagnostics
    write_rendering(rendering, home)
    homes: queue.Queue[Path] = queue.Queue()
    homes.put(home)
    ws = Workspace(root, homes, (profile,), servers, ("github",), binary)
    done, _ = _run(ws, "debug", "agent", profile.id)
    assert done.returncode == 0, done.stderr[-2000:]
    info = json.loads(done.stdout)
    assert (info["mode"], info["steps"], info["color"]) == ("primary", 7, "#00ff88")
    config = json.loads(_run(ws, "debug", "config")[0].stdout)
    assert config["mcp"]["github"] == {"type": "local", "command": ["srv"]}
