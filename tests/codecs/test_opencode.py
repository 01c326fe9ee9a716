"""The OpenCode codec: discovery by OpenCode's layering and schema, render field by field,
losses, merging into ``opencode.json``, and the round trip (README D12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_roster.codecs.base import Discovery, Rendering, RenderRequest, Roots, Scope
from agent_roster.codecs.opencode.codec import CODEC
from agent_roster.codecs.opencode.rules import OPENCODE_BASELINE, first_difference, render_rules
from agent_roster.codecs.opencode.schema import KNOWN_KEYS
from agent_roster.codecs.opencode.scoping import strip_scoping
from agent_roster.codecs.permissions import effective_rules
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule, PromptSection
from tests.codecs.helpers import EXAMPLES, render_and_discover, roundtrip_differences
from tests.codecs.test_opencode_cli import generated

from ..trees import build_tree
from .helpers import render_with

ALLOW, ASK, DENY = PermissionAction.ALLOW, PermissionAction.ASK, PermissionAction.DENY
GITHUB = McpServer(
    name="github",
    transport=Transport.STDIO,
    command="npx",
    args=("-y", "srv-github"),
    env={"TOKEN": "${GITHUB_TOKEN}"},
)
DOCS = McpServer(
    name="docs", transport=Transport.SSE, url="https://x.test/sse", headers={"K": "${DOCS_KEY}"}
)
SERVERS = {"github": GITHUB, "docs": DOCS}


def rule(key: str, pattern: str, action: PermissionAction) -> PermissionRule:
    return PermissionRule(permission=key, pattern=pattern, action=action)


def profile(ident: str = "helper", **kw: object) -> AgentProfile:
    base: dict[str, object] = {"name": ident, "model": "claude-sonnet-4-6"}
    base.update(kw)
    return AgentProfile(id=ident, **base)  # type: ignore[arg-type]


def render(
    *profiles: AgentProfile, files: dict[str, str] | None = None, scope: Scope = Scope.PROJECT
) -> Rendering:
    return render_with(CODEC, profiles, SERVERS, files, scope)


def frontmatter(content: str) -> dict[str, object]:
    head = content.split("---\n")[1]
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


tree = build_tree


def discover(
    tmp_path: Path, workspace: dict[str, str], home: dict[str, str] | None = None
) -> Discovery:
    ws, hm = tmp_path / "ws", tmp_path / "home"
    ws.mkdir(exist_ok=True)
    hm.mkdir(exist_ok=True)
    tree(ws, workspace)
    tree(hm, home or {})
    return CODEC.discover(Roots(workspace=ws, home=hm))


def codes(found: Discovery) -> list[str]:
    return [d.code for d in found.diagnostics]


# -- round trip -------------------------------------------------------------------------


def _check_roundtrip(
    profiles: list[AgentProfile], servers: dict[str, McpServer], scope: Scope, root: Path
) -> None:
    rendering, found = render_and_discover(CODEC, profiles, servers, scope, root=root)
    assert not rendering.diagnostics
    assert not [d for d in found.diagnostics if d.is_error]
    # A field render reported as lost may differ (e.g. "a/b" without provider comes back
    # split); every other native field must come back exactly.
    reported = {f"{x.profile}.{x.field}:" for x in rendering.losses}
    differences = roundtrip_differences(CODEC, profiles, found.profiles)
    assert [d for d in differences if not d.startswith(tuple(reported))] == []
    config = next(f for f in rendering.files if f.path.endswith("opencode.json"))
    block = list(json.loads(config.content)["mcp"])
    back = {p.id: p for p in found.profiles}
    for original in profiles:
        written = render_rules(original, block).rules
        # Import writes OpenCode's own first rule ("*": allow) explicitly (issue 12 item 2),
        # as one permission object: the same decisions, a dead rule maybe left out.
        expected = (OPENCODE_BASELINE, *strip_scoping(written, block)[0])
        assert first_difference(back[original.id].permission, expected) is None
        # The rules OpenCode reads decide every probe as the effective list does (D9).
        hidden = [r for r in written if r not in back[original.id].permission]
        want = [s.rule for s in effective_rules(original)] + hidden
        # OpenCode puts its own "*": allow before the agent's rules.
        baseline = [OPENCODE_BASELINE]
        assert first_difference([*baseline, *want], [*baseline, *written]) is None, original.id


def test_example_vault_round_trips(tmp_path: Path) -> None:
    effective = load_effective(EXAMPLES)
    _check_roundtrip(list(effective.profiles), dict(effective.servers), Scope.PROJECT, tmp_path)


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_generated_corpus_round_trips(tmp_path: Path, scope: Scope) -> None:
    servers = {
        **SERVERS,
        "context7": McpServer(name="context7", transport=Transport.HTTP, url="https://c7.test/mcp"),
    }
    _check_roundtrip(generated(), servers, scope, tmp_path)


def test_user_scope_paths() -> None:
    rendering = render(profile(mcp_servers=("github",)), scope=Scope.USER)
    assert sorted(f.path for f in rendering.files) == [
        ".config/opencode/agents/helper.md",
        ".config/opencode/opencode.json",
    ]


# -- render -----------------------------------------------------------------------------


def test_render_writes_each_field() -> None:
    p = profile(
        description="d",
        mode="subagent",
        provider="openai",
        model="gpt-5",
        temperature=0.5,
        top_p=0.9,
        max_turns=12,
        color="#A1B2C3",
        permission=(rule("bash", "*", ASK), rule("bash", "git *", ALLOW)),
        harness={"opencode": {"variant": "high", "reasoningEffort": "low"}, "claude": {"x": 1}},
        sections=(PromptSection(heading="Role", body="Be brief."),),
    )
    rendering = render(p)
    (agent,) = rendering.files
    assert agent.path == ".opencode/agents/helper.md"
    assert agent.content == (
        "---\ndescription: d\nmode: subagent\nmodel: openai/gpt-5\ntemperature: 0.5\n"
        "top_p: 0.9\nsteps: 12\ncolor: '#A1B2C3'\npermission:\n  bash:\n    '*': ask\n"
        "    git *: allow\nvariant: high\nreasoningEffort: low\n---\n\nBe brief.\n"
    )
    fields = {(loss.field, loss.outcome.value) for loss in rendering.losses}
    assert ("harness.opencode.reasoningEffort", "translated") in fields


def test_no_bookkeeping_key_reaches_the_agent_file() -> None:
    p = profile(
        tags=("a",),
        runtime=None,
        max_tokens_per_task=5,
        metadata={"owner": "x"},
        extra_config={"foo": 1},
        agent_name="codex",
        extends="base",
        source="/v/p.md",
    )
    rendering = render(p)
    data = frontmatter(rendering.files[0].content)
    assert set(data) <= KNOWN_KEYS
    dropped = {loss.field for loss in rendering.losses if loss.outcome.value == "dropped"}
    assert {
        "tags",
        "max_tokens_per_task",
        "metadata",
        "extra_config",
        "agent_name",
        "extends",
    } <= dropped


@pytest.mark.parametrize(
    ("kw", "written", "loss"),
    [
        ({"provider": "anthropic"}, "anthropic/claude-sonnet-4-6", None),
        ({}, "anthropic/claude-sonnet-4-6", ("provider", "translated")),
        ({"model": "gemini-2.5-pro"}, "google/gemini-2.5-pro", ("provider", "translated")),
        ({"model": "openrouter/x/y"}, "openrouter/x/y", ("model", "translated")),
        ({"model": "mystery-7b"}, None, ("model", "dropped")),
    ],
)
def test_model_needs_a_provider(
    kw: dict[str, str], written: str | None, loss: tuple[str, str] | None
) -> None:
    rendering = render(profile(**kw))
    assert (
        frontmatter(rendering.files[0].content + "---\n").get("model") == written
        if written
        else True
    )
    data = rendering.files[0].content
    assert ("model:" in data) == (written is not None)
    got = {(x.field, x.outcome.value) for x in rendering.losses if x.field in ("model", "provider")}
    assert got == ({loss} if loss else set())


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"mode": "sidekick"}, 'Expected "subagent" | "primary" | "all"'),
        ({"permission": (rule("bash", "*", ASK), rule("bash", "42", DENY))}, "integer-like"),
        ({"permission": (rule("bash", "*", ASK), rule("7", "*", DENY))}, "integer-like"),
        (
            {
                "permission": (
                    rule("bash", "*", ALLOW),
                    rule("*", "rm *", DENY),
                    rule("bash", "rm -i *", ALLOW),
                )
            },
            "cannot be written as one OpenCode permission object",
        ),
        (
            {"harness": {"opencode": {"hidden": "yes"}}},
            'Expected boolean | undefined, got "yes" hidden',
        ),
    ],
)
def test_render_refuses_what_opencode_would_refuse(kw: dict[str, Any], message: str) -> None:
    rendering = render(profile(**kw))
    assert rendering.files == ()
    (diag,) = rendering.diagnostics
    assert diag.code == "render-unsupported"
    assert message in diag.message


def test_integer_like_key_already_first_is_accepted() -> None:
    rendering = render(profile(permission=(rule("0", "*", DENY), rule("bash", "*", ASK))))
    assert not rendering.diagnostics
    assert list(frontmatter(rendering.files[0].content)["permission"]) == ["0", "bash"]  # type: ignore[call-overload]


def test_shadowed_rules_are_left_out_when_grouping_needs_it() -> None:
    # acceptEdits' "edit allow" comes before allowed_tools' "*" deny; OpenCode would move a
    # grouped "edit" to its first position, so the dead first rule is left out (reported).
    rendering = render(profile(permission_mode="acceptEdits", allowed_tools=("Read", "Edit")))
    data = frontmatter(rendering.files[0].content)
    assert data["permission"] == {"*": "deny", "read": "allow", "edit": "allow"}
    assert any(x.field == "permission" and "left out" in x.detail for x in rendering.losses)


def test_action_only_keys_never_get_an_object() -> None:
    rendering = render(
        profile(
            permission=(
                rule("webfetch", "*", ASK),
                rule("webfetch", "https://ok/*", ALLOW),
                rule("todowrite", "x", DENY),
            )
        )
    )
    data = frontmatter(rendering.files[0].content)
    assert data["permission"] == {"webfetch": "ask"}
    outcomes = {(x.field, x.outcome.value) for x in rendering.losses}
    # The narrowing allow is left out (narrower); the todowrite deny on an argument cannot
    # be written, and prompt text restricts nothing: the render check decides (it allows
    # todowrite here only if the profile does).
    assert ("permission", "dropped") in outcomes
    assert "roster:embedded" not in rendering.files[0].content


def test_mcp_block_and_per_agent_scoping() -> None:
    rendering = render(
        profile("a", mcp_servers=("github",)),
        profile("b", mcp_servers=("docs", "github")),
        profile("c", mcp_servers=("missing",)),
    )
    files = {f.path: f.content for f in rendering.files}
    config = json.loads(files[".opencode/opencode.json"])
    # "docs" before "github" agrees with b's order; a has only one server.
    assert list(config["mcp"]) == ["docs", "github"]
    assert config["mcp"]["github"] == {
        "type": "local",
        "command": ["npx", "-y", "srv-github"],
        "environment": {"TOKEN": "{env:GITHUB_TOKEN}"},
    }
    assert config["mcp"]["docs"] == {
        "type": "remote",
        "url": "https://x.test/sse",
        "headers": {"K": "{env:DOCS_KEY}"},
    }
    assert frontmatter(files[".opencode/agents/a.md"])["permission"] == {"docs_*": "deny"}
    assert "permission" not in frontmatter(files[".opencode/agents/b.md"])
    assert frontmatter(files[".opencode/agents/c.md"])["permission"] == {
        "docs_*": "deny",
        "github_*": "deny",
    }
    losses = {(x.profile, x.field, x.outcome.value) for x in rendering.losses}
    assert ("c", "mcp_servers", "dropped") in losses
    assert ("b", "mcp_servers", "translated") in losses  # SSE → remote


def test_env_default_has_no_opencode_form() -> None:
    bad = McpServer(name="bad", transport=Transport.STDIO, command="x", env={"A": "${A:-1}"})
    request = RenderRequest(profiles=(profile(mcp_servers=("bad",)),), servers={"bad": bad})
    rendering = CODEC.render(request, lambda rel: None)
    assert [d.code for d in rendering.diagnostics] == ["render-unsupported"]
    assert "VAR:-default" in rendering.diagnostics[0].message
    assert [f.path for f in rendering.files] == [".opencode/agents/helper.md"]


def test_merges_into_existing_config_keeping_foreign_content() -> None:
    existing = {
        ".opencode/opencode.json": json.dumps(
            {
                "theme": "dark",
                "mcp": {
                    "local-db": {"type": "local", "command": ["db"]},
                    "github": {"type": "remote", "url": "old"},
                },
            }
        )
    }
    rendering = render(profile(mcp_servers=("github",)), files=existing)
    files = {f.path: f.content for f in rendering.files}
    config = json.loads(files[".opencode/opencode.json"])
    assert config["theme"] == "dark"
    assert list(config["mcp"]) == ["local-db", "github"]
    assert config["mcp"]["local-db"] == {"type": "local", "command": ["db"]}
    assert config["mcp"]["github"]["type"] == "local"
    # The foreign server is visible to every agent in OpenCode, so it is denied here.
    assert frontmatter(files[".opencode/agents/helper.md"])["permission"] == {"local-db_*": "deny"}


def test_existing_config_with_comments_or_broken_json_is_not_rewritten() -> None:
    for text, code in (
        ('{// mine\n"mcp": {}}', "render-unsupported"),
        ('{"mcp": ', "harness-invalid"),
    ):
        rendering = render(
            profile(mcp_servers=("github",)), files={".opencode/opencode.json": text}
        )
        assert [f.path for f in rendering.files] == [".opencode/agents/helper.md"]
        assert [d.code for d in rendering.diagnostics] == [code]


def test_existing_jsonc_without_comments_is_the_merge_target() -> None:
    rendering = render(
        profile(mcp_servers=("github",)), files={".opencode/opencode.jsonc": '{"a": 1,}'}
    )
    paths = [f.path for f in rendering.files]
    assert ".opencode/opencode.jsonc" in paths


# -- discovery --------------------------------------------------------------------------

AGENT = "---\nmodel: anthropic/claude-sonnet-4-6\n{extra}---\n{body}\n"


def md(extra: str = "", body: str = "Hi.") -> str:
    return AGENT.format(extra=extra, body=body)


def test_discovers_both_scopes_and_merges_fields(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            ".opencode/agents/rev.md": md(
                "temperature: 0.1\npermission:\n  bash:\n    'echo p*': deny\n", "project"
            )
        },
        {
            ".config/opencode/agents/rev.md": md(
                "description: global\ntop_p: 0.5\ntemperature: 0.9\n"
                "permission:\n  '*': allow\n  bash:\n    'echo g*': deny\n",
                "global",
            )
        },
    )
    (rev,) = found.profiles
    assert (rev.description, rev.temperature, rev.top_p, rev.prompt) == (
        "global",
        0.1,
        0.5,
        "project",
    )
    # Merged permission keys keep their first position (observed with the real CLI).
    # (OpenCode's own "*": allow first, which the agent's own "*": allow makes dead.)
    assert rev.permission == (
        rule("*", "*", ALLOW),
        rule("bash", "echo g*", DENY),
        rule("bash", "echo p*", DENY),
    )
    assert rev.source.endswith("ws/.opencode/agents/rev.md")
    assert "harness-shadowed" in codes(found)
    assert not found.refused


def test_json_agents_merge_before_markdown(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            ".opencode/opencode.json": json.dumps(
                {
                    "agent": {
                        "rev": {"description": "json", "mode": "primary"},
                        "only": {"model": "a/b"},
                    }
                }
            ),
            ".opencode/agents/rev.md": md("description: md\n"),
        },
    )
    by_id = {p.id: p for p in found.profiles}
    assert (by_id["rev"].description, by_id["rev"].mode) == ("md", "primary")
    assert (by_id["only"].provider, by_id["only"].model) == ("a", "b")


def test_names_subfolders_and_frontmatter_name(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            ".opencode/agents/review/security.md": md(),
            ".opencode/agent/renamed.md": md("name: other\n"),
            ".opencode/agents/dup.md": md("description: second\n"),
            ".opencode/agent/dup.md": md("description: first\n"),
            ".opencode/modes/legacy.md": md("mode: subagent\n"),
        },
    )
    by_id = {p.id: p for p in found.profiles}
    assert set(by_id) == {"review/security", "other", "dup", "legacy"}
    assert by_id["dup"].description == "second"  # agents/ after agent/: replaced whole
    assert by_id["legacy"].mode == "primary"  # legacy modes are forced primary
    assert "harness-name-invalid" in codes(found)  # "review/security" is no vault id
    assert "harness-shadowed" in codes(found)


def test_schema_error_refuses_the_whole_configuration(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {".opencode/agents/bad.md": md("mode: weird\nsteps: 0\n"), ".opencode/agents/ok.md": md()},
    )
    assert found.refused
    (diag,) = [d for d in found.diagnostics if d.is_error]
    assert diag.code == "harness-field-type"
    assert 'Expected "subagent" | "primary" | "all", got "weird" mode' in diag.message
    assert "Expected a value greater than 0, got 0 steps" in diag.message
    assert diag.message.startswith("Configuration is invalid at ")
    assert diag.line == 3  # the "mode" key
    assert [p.id for p in found.profiles] == ["ok"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("color: red\n", 'got "red" color'),
        ("temperature: '0.5'\n", 'Expected number | undefined, got "0.5" temperature'),
        ("steps: 1.5\n", "Expected an integer, got 1.5 steps"),
        ("hidden: yes\n", 'Expected boolean | undefined, got "yes" hidden'),
        ("tools:\n  bash: 1\n", "Expected boolean, got 1 tools.bash"),
        ("permission:\n  webfetch:\n    '*': allow\n", 'got {"*":"allow"} permission.webfetch'),
        ("permission:\n  todowrite:\n    '*': allow\n", "permission.todowrite"),
        (
            "permission:\n  bash: maybe\n",
            'Expected PermissionActionConfig, got "maybe" permission.bash',
        ),
        ("description: [a]\n", 'Expected string | undefined, got ["a"] description'),
    ],
)
def test_schema_errors_quote_opencode(tmp_path: Path, extra: str, message: str) -> None:
    found = discover(tmp_path, {".opencode/agents/a.md": md(extra)})
    assert found.refused
    assert any(message in d.message for d in found.diagnostics), [
        d.message for d in found.diagnostics
    ]


def test_broken_yaml_is_skipped_silently_and_colons_are_sanitised(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            ".opencode/agents/broken.md": md("foo: [unclosed\n"),
            ".opencode/agents/colon.md": md("description: a: b: c\n"),
        },
    )
    assert not found.refused
    assert [p.id for p in found.profiles] == ["colon"]
    assert found.profiles[0].description == "a: b: c"
    assert "harness-ignored" in codes(found)


def test_unknown_keys_tools_and_max_steps_are_reported(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {
            ".opencode/agents/a.md": md(
                "reasoningEffort: high\nvariant: fast\nmaxSteps: 5\noptions:\n  foo: 1\n"
                "tools:\n  write: false\n  bash: true\npermission:\n  bash: ask\n  '42': deny\n"
            )
        },
    )
    (a,) = found.profiles
    assert a.harness == {
        "opencode": {"variant": "fast", "reasoningEffort": "high", "options": {"foo": 1}}
    }
    assert a.max_turns == 5
    # tools folded first, permission assigned over it, "42" hoisted by JavaScript.
    assert a.permission == (
        OPENCODE_BASELINE,
        rule("42", "*", DENY),
        rule("edit", "*", DENY),
        rule("bash", "*", ASK),
    )
    fields = {x.field for x in found.losses}
    assert {"tools", "maxSteps", "harness.opencode.reasoningEffort"} <= fields


def test_disabled_agents_are_not_loaded(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {".opencode/agents/a.md": md()},
        {".config/opencode/opencode.json": '{"agent": {"a": {"disable": true}}}'},
    )
    # The project markdown is merged after the global JSON: disable stays true.
    assert found.profiles == ()
    assert "harness-ignored" in codes(found)


def test_mcp_servers_and_scoping_come_back(tmp_path: Path) -> None:
    config = {
        "mcp": {
            "gh": {
                "type": "local",
                "command": ["npx", "srv"],
                "environment": {"T": "{env:TOKEN}"},
                "timeout": 9000,
            },
            "docs": {"type": "remote", "url": "https://d.test", "headers": {"K": "{env:K}"}},
        }
    }
    found = discover(
        tmp_path,
        {
            ".opencode/opencode.json": json.dumps(config),
            ".opencode/agents/a.md": md("permission:\n  bash: ask\n  docs_*: deny\n"),
        },
    )
    (a,) = found.profiles
    assert a.mcp_servers == ("gh",)
    assert a.permission == (OPENCODE_BASELINE, rule("bash", "*", ASK))
    gh, docs = found.servers
    assert (gh.command, gh.args, gh.env) == ("npx", ("srv",), {"T": "${TOKEN}"})
    assert (docs.transport, docs.headers) == (Transport.HTTP, {"K": "${K}"})
    assert any(x.field == "mcp.gh" and x.outcome.value == "dropped" for x in found.losses)


def test_invalid_mcp_entry_refuses(tmp_path: Path) -> None:
    found = discover(
        tmp_path,
        {"opencode.json": json.dumps({"mcp": {"x": {"type": "local", "command": "npx srv"}}})},
    )
    assert found.refused
    assert any("Expected an array of strings" in d.message for d in found.diagnostics)


def test_conflicting_server_orders_are_reported() -> None:
    rendering = render(
        profile("a", mcp_servers=("github", "docs")), profile("b", mcp_servers=("docs", "github"))
    )
    assert [(x.profile, x.field) for x in rendering.losses if "one server order" in x.detail] == [
        ("b", "mcp_servers")
    ]


def test_built_in_agent_entries_are_flagged(tmp_path: Path) -> None:
    found = discover(
        tmp_path, {"opencode.json": json.dumps({"agent": {"build": {"model": "a/b"}}})}
    )
    assert [p.id for p in found.profiles] == ["build"]
    assert any("built-in" in d.message for d in found.diagnostics)


@pytest.mark.parametrize(
    ("color", "written", "outcome"),
    [
        ("#a1B2c3", "#a1B2c3", None),
        ("accent", "accent", None),
        ("red", "#ff0000", "translated"),
        ("mauve", None, "dropped"),
    ],
)
def test_colors_opencode_accepts(color: str, written: str | None, outcome: str | None) -> None:
    rendering = render(profile(color=color))
    assert frontmatter(rendering.files[0].content).get("color") == written
    got = [x.outcome.value for x in rendering.losses if x.field == "color"]
    assert got == ([outcome] if outcome else [])


def test_broken_json_config_refuses(tmp_path: Path) -> None:
    found = discover(tmp_path, {".opencode/opencode.json": '{\n  "mcp": {"a" 1}\n}'})
    assert found.refused
    (diag,) = found.diagnostics
    assert (diag.code, diag.line) == ("harness-invalid", 2)


def test_mcp_block_order_keeps_each_profiles_order_and_first_appearance() -> None:
    from agent_roster.codecs.opencode.mcp import order_servers

    assert order_servers(["kept"], [["b", "a"], ["c", "a"], ["a", "d"]]) == [
        "kept",
        "b",
        "c",
        "a",
        "d",
    ]
    assert order_servers([], [["x", "y"], ["y", "x"]]) == ["x", "y"]  # a cycle: first seen


def test_mcp_block_order_of_a_thousand_servers_is_quick() -> None:
    import time

    from agent_roster.codecs.opencode.mcp import order_servers

    names = [f"server-{i:04d}" for i in range(1_000)]
    wanted = [names[i : i + 3] for i in range(0, 1_000, 2)]
    start = time.process_time()
    assert order_servers([], wanted) == names
    # The quadratic form took seconds here (issue 12 item 8, many-servers).
    assert time.process_time() - start < 0.5


# -- never widen (issue 12 item 2) -----------------------------------------------------------


def test_the_projects_permission_is_carried_into_each_agent(tmp_path: Path) -> None:
    """Finding: a project whose opencode.json sets "permission": "ask" was imported without
    that rule, so its agents then allowed what OpenCode asks about. The config layers'
    permission (OpenCode applies it before every agent's own rules) is carried, after
    OpenCode's own "*": allow, and reported."""
    found = discover(
        tmp_path,
        {
            "opencode.json": json.dumps({"permission": "ask"}),
            ".opencode/agents/rev.md": md("permission:\n  edit: deny\n"),
        },
        {".config/opencode/opencode.json": json.dumps({"permission": {"webfetch": "deny"}})},
    )
    (rev,) = found.profiles
    # OpenCode's "*": allow, the global webfetch deny and the project's "*": ask, then the
    # agent's rules: the project's ask overrides the two before it (left out, same calls).
    assert rev.permission == (rule("*", "*", ASK), rule("edit", "*", DENY))
    carried = [x.detail for x in found.losses if x.field == "permission"]
    assert carried.pop(0).startswith("OpenCode's own argument rules (reading .env files")
    assert carried == [
        f"the permission of {tmp_path / 'home/.config/opencode/opencode.json'}, "
        f"{tmp_path / 'ws/opencode.json'} (OpenCode applies it to every agent) is carried "
        "into this agent's rules"
    ]


def test_an_agents_own_star_key_keeps_its_place_after_the_layers(tmp_path: Path) -> None:
    # The layer's "*" and the agent's "*" with its own patterns cannot share one key of a
    # permission object without moving the agent's rule: the layer's is spelled "**".
    found = discover(
        tmp_path,
        {
            "opencode.json": json.dumps({"permission": "allow"}),
            ".opencode/agents/a.md": md("permission:\n  edit: deny\n  '*':\n    'rm *': ask\n"),
        },
    )
    (a,) = found.profiles
    assert a.permission == (
        rule("**", "*", ALLOW),
        rule("edit", "*", DENY),
        rule("*", "rm *", ASK),
    )


def test_render_leaves_opencodes_own_first_rule_out() -> None:
    rendering = render(profile(permission=(OPENCODE_BASELINE, rule("bash", "*", ASK))))
    assert frontmatter(rendering.files[0].content)["permission"] == {"bash": "ask"}
    assert not [x for x in rendering.losses if x.field == "permission"]
