"""Acceptance with the real Codex CLI (0.169.0): rendered files are what Codex loads.

Offline by construction: no login, ``check_for_update_on_startup=false``, ``CODEX_HOME``
inside the test's home, and only commands that read configuration (``codex mcp list``,
``codex debug prompt-input``, which renders the model input, including the list of agent
roles offered to ``spawn_agent``, without calling a model). Project ``.codex/`` is read only
for trusted projects, so the project-scope tests add the trust entry a user would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs.base import RenderRequest, Roots, Scope
from agent_roster.codecs.codex.codec import CODEC
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PromptSection

from .helpers import EXAMPLES, need_harness, run_harness, write_rendering

SERVERS = {
    "local-tool": McpServer(
        name="local-tool",
        transport=Transport.STDIO,
        command="node",
        args=("server.js", "--port", "7"),
        env={"MODE": "ci", "API_TOKEN": "${API_TOKEN}"},
    ),
    "remote-docs": McpServer(
        name="remote-docs",
        transport=Transport.HTTP,
        url="http://127.0.0.1:9/mcp",
        headers={"Authorization": "Bearer ${DOCS_TOKEN}", "X-Team": "core", "X-Key": "${X_KEY}"},
    ),
    "events": McpServer(name="events", transport=Transport.SSE, url="http://127.0.0.1:9/sse"),
}


def _probe(ident: str, servers: tuple[str, ...]) -> AgentProfile:
    return AgentProfile(
        id=ident,
        name=ident,
        description=f"Probe agent {ident} for the acceptance test.",
        model="gpt-5",
        permission_mode="plan",
        mcp_servers=servers,
        sections=(PromptSection(heading="Role", body="You answer questions."),),
    )


@pytest.fixture(scope="module")
def corpus() -> tuple[tuple[AgentProfile, ...], dict[str, McpServer]]:
    examples = load_effective(EXAMPLES)
    profiles = (
        *examples.profiles,
        _probe("transport-probe", ("local-tool", "remote-docs")),
        _probe("sse-probe", ("events",)),
    )
    return profiles, {**examples.servers, **SERVERS}


def _codex(argv: list[str], cwd: Path, home: Path) -> Any:
    binary = need_harness("codex")
    result = run_harness(
        [binary, "-c", "check_for_update_on_startup=false", *argv],
        cwd=cwd,
        home=home,
        env={"CODEX_HOME": str(home / ".codex")},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result


def _mcp_list(cwd: Path, home: Path) -> dict[str, dict[str, Any]]:
    out = _codex(["mcp", "list", "--json"], cwd, home).stdout
    if out.startswith("No MCP servers configured yet"):
        return {}
    return {entry["name"]: entry for entry in json.loads(out)}


def _roles(cwd: Path, home: Path) -> str:
    """The model-visible prompt input as text: agent roles appear as ``name: {\\ndesc``."""
    return json.dumps(json.loads(_codex(["debug", "prompt-input", "hi"], cwd, home).stdout))


def _render(
    corpus: tuple[tuple[AgentProfile, ...], dict[str, McpServer]], scope: Scope, target: Path
) -> Any:
    profiles, servers = corpus

    def existing(rel: str) -> str | None:
        path = target / rel
        return path.read_text(encoding="utf-8") if path.is_file() else None

    rendering = CODEC.render(
        RenderRequest(profiles=profiles, servers=servers, scope=scope), existing
    )
    write_rendering(rendering, target)
    return rendering


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    workspace.mkdir()
    return workspace, home


def _assert_listed(listed: dict[str, dict[str, Any]], server: McpServer) -> None:
    entry = listed[server.name]
    transport = entry["transport"]
    if server.transport is Transport.STDIO:
        assert transport["type"] == "stdio"
        assert transport["command"] == server.command
        assert transport["args"] == list(server.args)
        literal = {k: v for k, v in server.env.items() if "${" not in v}
        forwarded = [k for k, v in server.env.items() if "${" in v]
        assert (transport["env"] or {}) == literal
        assert (transport["env_vars"] or []) == forwarded
    else:
        assert transport["type"] == "streamable_http"
        assert transport["url"] == server.url


def test_user_scope_servers_and_roles_are_loaded(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    workspace, home = _setup(tmp_path)
    config = home / ".codex" / "config.toml"
    config.write_text(
        # (a foreign ``model`` would change the tool set: ``o3`` gets no spawn_agent roles)
        "# my settings\nhide_agent_reasoning = true  # keep me\n\n[mcp_servers.mine]\n"
        'command = "mine"\n',
        encoding="utf-8",
    )
    rendering = _render(corpus, Scope.USER, home)
    refused = {d.message.split(":")[0] for d in rendering.diagnostics if d.is_error}
    # Codex has no SSE: the profile using it is refused, the rest is written (the example
    # vault's github forwards its token under its own name, which Codex can do).
    assert refused == {"sse-probe"}
    written = {p.id for p in corpus[0]} - refused
    assert "web-developer" in written and "coding" in written and len(written) == 7

    text = config.read_text(encoding="utf-8")
    assert text.startswith(
        "# my settings\nhide_agent_reasoning = true  # keep me\n\n[mcp_servers.mine]\n"
        'command = "mine"\n'
    )
    listed = _mcp_list(workspace, home)
    assert set(listed) == {"mine", "github", "playwright", "context7", "local-tool", "remote-docs"}
    servers = corpus[1]
    for name in ("github", "playwright", "context7", "local-tool", "remote-docs"):
        _assert_listed(listed, servers[name])
    docs = listed["remote-docs"]["transport"]
    assert docs["bearer_token_env_var"] == "DOCS_TOKEN"
    assert docs["http_headers"] == {"X-Team": "core"}
    assert docs["env_http_headers"] == {"X-Key": "X_KEY"}

    roles = _roles(workspace, home)
    for profile in corpus[0]:
        entry = json.dumps(f"{profile.id}: {{\n{profile.description}\n")[1:-1]
        assert (entry in roles) == (profile.id in written), profile.id


def test_project_scope_needs_trust(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    workspace, home = _setup(tmp_path)
    _render(corpus, Scope.PROJECT, workspace)
    discovery = CODEC.discover(Roots(workspace=workspace, home=home))
    assert {p.id for p in discovery.profiles} == {p.id for p in corpus[0]} - {"sse-probe"}
    assert [d.code for d in discovery.diagnostics] == ["harness-ignored"]

    # Untrusted: Codex ignores the project's .codex/ entirely.
    assert _mcp_list(workspace, home) == {}
    assert "transport-probe: {" not in _roles(workspace, home)

    (home / ".codex" / "config.toml").write_text(
        f'[projects."{workspace.resolve()}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    assert CODEC.discover(Roots(workspace=workspace, home=home)).diagnostics == ()
    listed = _mcp_list(workspace, home)
    assert set(listed) == {"github", "playwright", "context7", "local-tool", "remote-docs"}
    roles = _roles(workspace, home)
    assert "transport-probe: {\\nProbe agent transport-probe" in roles
    assert "web-developer: {\\nBuilds and fixes web front ends" in roles


ROLE = 'name = "{name}"\ndescription = "d {name}"\ndeveloper_instructions = "x"\n'


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ("", None),
        ('short-description = "x"\n', "harness-field-unknown"),
        ('sandbox_mode = "bogus"\n', "harness-field-type"),
        ('nickname_candidates = ["a!"]\n', "harness-field-type"),
        ('model_reasoning_effort = "high"\nweb_search = "cached"\n', None),
        ("[mcp_servers.x]\nenabled = false\n", "harness-invalid"),
        ('[mcp_servers.x]\ncommand = "echo"\nurl = "http://x"\n', "harness-invalid"),
    ],
)
def test_discover_agrees_with_codex_on_one_file(
    extra: str, code: str | None, tmp_path: Path
) -> None:
    workspace, home = _setup(tmp_path)
    agents = home / ".codex" / "agents"
    agents.mkdir()
    (agents / "probe.toml").write_text(ROLE.format(name="probe") + extra, encoding="utf-8")
    discovery = CODEC.discover(Roots(workspace=workspace, home=home))
    assert [d.code for d in discovery.diagnostics] == ([code] if code else [])
    loaded = "probe: {\\nd probe\\n" in _roles(workspace, home)
    assert loaded == (code is None)
    assert [p.id for p in discovery.profiles] == (["probe"] if loaded else [])


def test_discover_agrees_with_codex_on_precedence(tmp_path: Path) -> None:
    workspace, home = _setup(tmp_path)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{workspace.resolve()}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    user, project = home / ".codex" / "agents", workspace / ".codex" / "agents"
    (project / "sub").mkdir(parents=True)
    user.mkdir()
    (user / "a.toml").write_text(ROLE.format(name="shared"), encoding="utf-8")
    (user / "b.toml").write_text(ROLE.format(name="user-only"), encoding="utf-8")
    # The project role lacks a description: Codex fills it from the user layer.
    (project / "shared.toml").write_text(
        'name = "shared"\ndeveloper_instructions = "project"\n', encoding="utf-8"
    )
    (project / "sub" / "deep.toml").write_text(ROLE.format(name="deep"), encoding="utf-8")
    (project / "dup1.toml").write_text(ROLE.format(name="dup"), encoding="utf-8")
    (project / "dup2.toml").write_text(
        ROLE.format(name="dup").replace("d dup", "second dup"), encoding="utf-8"
    )
    (project / "notes.md").write_text("---\nname: md-role\n---\n", encoding="utf-8")
    discovery = CODEC.discover(Roots(workspace=workspace, home=home))
    found = {p.id: p for p in discovery.profiles}
    assert sorted(found) == ["deep", "dup", "shared", "user-only"]
    assert found["shared"].description == "d shared"
    assert found["shared"].prompt == "project"
    assert found["dup"].description == "d dup"
    assert sorted(d.code for d in discovery.diagnostics) == [
        "harness-ignored",
        "harness-shadowed",
        "harness-shadowed",
    ]
    roles = _roles(workspace, home)
    for profile in found.values():
        assert f"{profile.id}: {{\\n{profile.description}\\n" in roles
    assert "second dup" not in roles
    assert "md-role" not in roles
