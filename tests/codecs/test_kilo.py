"""The Kilo codec: OpenCode's reader and renderer in Kilo's flavor. What differs from
OpenCode (its folders and files, its merge order, its refusals, ``displayName``,
``$schema``) is checked here on the same trees the real-CLI acceptance runs
(tests/codecs/test_kilo_cli.py); what it shares is OpenCode's (tests/codecs/test_opencode.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from agent_roster.codecs.base import Discovery, Rendering, Scope
from agent_roster.codecs.kilo.codec import CODEC
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PromptSection

from .helpers import discover_in, render_and_discover, render_with
from .kilo_trees import (
    LAYERS_HOME,
    LAYERS_LOADED,
    LAYERS_WORKSPACE,
    REFUSED_HOME,
    REFUSED_LOADED,
    REFUSED_WORKSPACE,
)

GITHUB = McpServer(
    name="github",
    transport=Transport.STDIO,
    command="npx",
    args=("-y", "srv-github"),
    env={"TOKEN": "${GITHUB_TOKEN}"},
)
LOCAL = McpServer(name="local", transport=Transport.STDIO, command="node", args=("s.js",))
SERVERS = {"github": GITHUB, "local": LOCAL}


def profile(ident: str = "helper", **kw: object) -> AgentProfile:
    base: dict[str, object] = {
        "name": ident,
        "description": "Helps.",
        "model": "claude-sonnet-4-6",
        "sections": (PromptSection(heading="Role", body="You help."),),
    }
    base.update(kw)
    return AgentProfile(id=ident, **base)  # type: ignore[arg-type]


def discover(tmp_path: Path, workspace: dict[str, str], home: dict[str, str]) -> Discovery:
    files = {f"ws/{k}": v for k, v in workspace.items()}
    files.update({f"home/{k}": v for k, v in home.items()})
    return discover_in(CODEC, tmp_path, files)


def render(*profiles: AgentProfile, scope: Scope = Scope.PROJECT) -> Rendering:
    return render_with(CODEC, profiles, SERVERS, scope=scope)


def frontmatter(content: str) -> dict[str, object]:
    data = yaml.safe_load(content.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_layers_and_merge_order_are_kilos(tmp_path: Path) -> None:
    found = discover(tmp_path, LAYERS_WORKSPACE, LAYERS_HOME)
    loaded = {p.id: p for p in found.profiles}
    assert set(loaded) == set(LAYERS_LOADED)  # .opencode/ is not read
    for name, (description, settings) in LAYERS_LOADED.items():
        agent = loaded[name]
        assert agent.description == description, name
        got = {
            "mode": agent.mode,
            "temperature": agent.temperature,
            "top_p": agent.top_p,
            "steps": agent.max_turns,
            "color": agent.color,
        }
        want = {"mode": "", "temperature": None, "top_p": None, "steps": None, "color": ""}
        assert got == {**want, **settings}, name
    assert not found.refused, [d.format() for d in found.diagnostics if d.is_error]
    # The nested file loads as "sub/p3", which is no vault id: said, not hidden.
    assert any(
        d.code == "harness-name-invalid" and "sub/p3" in d.message for d in found.diagnostics
    )


def test_a_bad_file_is_skipped_alone(tmp_path: Path) -> None:
    found = discover(tmp_path, REFUSED_WORKSPACE, REFUSED_HOME)
    assert {p.id for p in found.profiles} == REFUSED_LOADED
    errors = {
        Path(d.path).relative_to(tmp_path).as_posix() for d in found.diagnostics if d.is_error
    }
    assert errors == {
        "ws/.kilo/agents/bad-type.md",
        "ws/.kilo/agents/bad-mode.md",
        "ws/.kilo/agents/env-ref.md",
        "ws/.kilo/kilo.jsonc",
        "ws/kilo.json",
        "ws/.kilo/kilo.json",
    }
    assert all("Kilo skips this file" in d.hint for d in found.diagnostics if d.is_error)
    # The header reference skips only its server; the other server of the file loads.
    assert [s.name for s in found.servers] == ["plain"]
    warnings = [d.message for d in found.diagnostics if not d.is_error]
    assert any('Skipped MCP "hdrsrv"' in w for w in warnings)
    # Frontmatter that does not parse: the whole file is the prompt.
    by_id = {p.id: p for p in found.profiles}
    assert by_id["bad-yaml"].prompt == "---\ndescription: [unclosed\n---\nBody."
    assert by_id["bad-yaml"].description == ""
    assert any("loads the whole file" in w for w in warnings)
    # Unknown keys go to the provider as options, as in OpenCode.
    assert by_id["unknown-key"].harness == {"kilo": {"foo": "bar"}}
    # The user's own file may hold references (Kilo substitutes them when it runs).
    assert by_id["uref"].prompt == "Use {env:T} here."


def test_builtin_names_are_said(tmp_path: Path) -> None:
    found = discover(tmp_path, {".kilo/agents/code.md": "---\ndescription: mine\n---\nx\n"}, {})
    assert [p.id for p in found.profiles] == ["code"]
    assert any("Kilo's built-in agent" in d.message for d in found.diagnostics)


def test_render_paths_schema_and_display_name() -> None:
    rendering = render(profile(name="The Helper", mcp_servers=("local",)))
    files = {f.path: f.content for f in rendering.files}
    assert set(files) == {".kilo/agents/helper.md", ".kilo/kilo.json"}
    assert frontmatter(files[".kilo/agents/helper.md"])["displayName"] == "The Helper"
    config = json.loads(files[".kilo/kilo.json"])
    assert list(config) == ["$schema", "mcp"]  # Kilo would add "$schema" itself otherwise
    assert config["$schema"] == "https://app.kilo.ai/config.json"
    assert config["mcp"] == {"local": {"type": "local", "command": ["node", "s.js"]}}
    assert not [loss for loss in rendering.losses if loss.field == "name"]
    user = {f.path for f in render(profile(mcp_servers=("local",)), scope=Scope.USER).files}
    assert user == {".config/kilo/agents/helper.md", ".config/kilo/kilo.json"}


def test_a_project_server_with_a_variable_is_dropped_and_said() -> None:
    rendering = render(profile(mcp_servers=("github", "local")))
    config = json.loads({f.path: f.content for f in rendering.files}[".kilo/kilo.json"])
    assert list(config["mcp"]) == ["local"]
    (dropped,) = [loss for loss in rendering.losses if loss.field == "mcp_servers"]
    assert dropped.outcome.value == "dropped"
    assert "{env:GITHUB_TOKEN}" in dropped.detail and "--scope user" in dropped.detail
    assert not [d for d in rendering.diagnostics if d.is_error]
    # At user scope Kilo substitutes it: written, in OpenCode's syntax.
    user = render(profile(mcp_servers=("github",)), scope=Scope.USER)
    config = json.loads({f.path: f.content for f in user.files}[".config/kilo/kilo.json"])
    assert config["mcp"]["github"]["environment"] == {"TOKEN": "{env:GITHUB_TOKEN}"}


def test_a_prompt_kilo_would_substitute_is_refused() -> None:
    text = (PromptSection(heading="Role", body="Read {file:./notes.md} first."),)
    for scope in Scope:
        rendering = render(profile(sections=text), scope=scope)
        assert rendering.files == ()
        (error,) = [d for d in rendering.diagnostics if d.is_error]
        assert "{file:./notes.md}" in error.message


def test_display_name_round_trips(tmp_path: Path) -> None:
    original = profile(name="The Helper", mode="subagent", temperature=0.2)
    _, found = render_and_discover(CODEC, [original], SERVERS, root=tmp_path)
    (back,) = found.profiles
    assert (back.name, back.mode, back.temperature) == ("The Helper", "subagent", 0.2)
    assert back.harness == {}
