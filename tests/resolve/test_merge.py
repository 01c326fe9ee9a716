"""Merge rules (issue 4 item 2): a project override over the system profile, ``extends``
chains, roster.toml [defaults], and the origin (file and section) of every field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_roster.model.profile import Runtime
from agent_roster.resolve.config import load_config

from .helpers import index_of, origin, override, profile_md, system

SYS = system("coding")
OVR = override("web", "coding")

FULL_CONFIG: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "provider": "anthropic",
    "permission_mode": "acceptEdits",
    "runtime": "claude_sdk",
    "max_tokens_per_task": 100000,
    "max_turns": 40,
    "temperature": 0.2,
    "top_p": 0.9,
    "mode": "primary",
    "color": "#112233",
}
NEW_VALUES: dict[str, Any] = {
    "model": "claude-opus-4-6",
    "provider": "bedrock",
    "permission_mode": "plan",
    "runtime": "supervisor",
    "max_tokens_per_task": 300000,
    "max_turns": 7,
    "temperature": 1.5,
    "top_p": 0.5,
    "mode": "subagent",
    "color": "#abcdef",
}
BASE = profile_md(
    "coding",
    name="Coding Agent",
    frontmatter={"description": "Writes code", "tags": ["eng"], "owner": "team-a", "tier": 1},
    prose=[("Role", "Write code."), ("Rules", "Test first."), ("Reflection", "Learn.")],
    config={**FULL_CONFIG, "harness": {"opencode": {"steps": 5}, "codex": {"x": 1}}},
    tools={"allowed": ["Read", "Edit", "get_task"], "denied": ["Bash(rm -rf:*)"]},
    mcp=["github"],
    install={"npm": ["typescript"], "pip": ["ruff"], "commands": ["git"]},
)


def vault(make_tree: Any, files: dict[str, str], toml: str | None = None) -> Path:
    tree = dict(files)
    if toml is not None:
        tree["roster.toml"] = toml
    root: Path = make_tree(tree)
    return root


@pytest.mark.parametrize("key", sorted(FULL_CONFIG))
def test_each_config_key_of_an_override_replaces_only_itself(make_tree: Any, key: str) -> None:
    root = vault(make_tree, {SYS: BASE, OVR: profile_md("coding", config={key: NEW_VALUES[key]})})
    index = index_of(root)
    found = index.effective("coding", "web")
    assert found is not None and found.has_override and found.has_system
    for other, value in FULL_CONFIG.items():
        got = getattr(found.profile, other)
        expected = NEW_VALUES[other] if other == key else value
        assert (got.value if isinstance(got, Runtime) else got) == expected, other
        where = OVR if other == key else SYS
        assert origin(index, "coding", other, "web") == f"{where} (Config)"
    # The system scope is untouched by the override.
    system_scope = index.effective("coding")
    assert system_scope is not None and not system_scope.has_override
    assert system_scope.profile.model == "claude-sonnet-4-6"


def test_agent_name_is_a_config_key_of_its_own(make_tree: Any) -> None:
    base = profile_md("web-dev", config={"runtime": "acpx", "agent_name": "codex", "model": "m"})
    top = profile_md("web-dev", config={"agent_name": "gemini"})
    root = vault(make_tree, {system("web-dev"): base, override("web", "web-dev"): top})
    found = index_of(root).effective("web-dev", "web")
    assert found is not None
    assert (found.profile.runtime, found.profile.agent_name) == (Runtime.ACPX, "gemini")
    assert found.origins["agent_name"].path == override("web", "web-dev")
    assert found.origins["runtime"].path == system("web-dev")


@pytest.mark.parametrize(
    ("block", "value", "field"),
    [
        ("tools", {"allowed": ["Read"]}, "allowed_tools"),
        ("tools", {"denied": ["Write"]}, "denied_tools"),
        ("mcp", ["postgres"], "mcp_servers"),
        ("frontmatter", {"tags": ["web"]}, "tags"),
    ],
)
def test_a_list_set_in_the_override_replaces_the_whole_list(
    make_tree: Any, block: str, value: Any, field: str
) -> None:
    root = vault(make_tree, {SYS: BASE, OVR: profile_md("coding", **{block: value})})
    index = index_of(root)
    found = index.effective("coding", "web")
    assert found is not None
    replaced = value[next(iter(value))] if isinstance(value, dict) else value
    if field == "allowed_tools":
        replaced = value["allowed"]
    elif field == "denied_tools":
        replaced = value["denied"]
    assert list(getattr(found.profile, field)) == replaced
    section = {"tools": "Tools", "mcp": "MCP Servers", "frontmatter": "frontmatter"}[block]
    assert origin(index, "coding", field, "web") == f"{OVR} ({section})"
    # The sibling list of the same block keeps the system value and origin.
    sibling = {"allowed_tools": "denied_tools", "denied_tools": "allowed_tools"}.get(field)
    if sibling:
        assert getattr(found.profile, sibling) == getattr(index.system["coding"], sibling)
        assert origin(index, "coding", sibling, "web") == f"{SYS} (Tools)"


def test_install_lists_merge_per_key(make_tree: Any) -> None:
    root = vault(make_tree, {SYS: BASE, OVR: profile_md("coding", install={"pip": ["mypy"]})})
    index = index_of(root)
    found = index.effective("coding", "web")
    assert found is not None
    install = found.profile.install
    assert (install.npm, install.pip, install.commands) == (("typescript",), ("mypy",), ("git",))
    assert origin(index, "coding", "install.pip", "web") == f"{OVR} (Install)"
    assert origin(index, "coding", "install.npm", "web") == f"{SYS} (Install)"
    assert origin(index, "coding", "install.commands", "web") == f"{SYS} (Install)"


def test_mappings_merge_key_by_key(make_tree: Any) -> None:
    top = profile_md(
        "coding",
        frontmatter={"owner": "team-b"},
        config={"harness": {"codex": {"y": 2}}, "budget_note": "x"},
    )
    root = vault(make_tree, {SYS: BASE, OVR: top})
    index = index_of(root)
    found = index.effective("coding", "web")
    assert found is not None
    assert found.profile.harness == {"opencode": {"steps": 5}, "codex": {"y": 2}}
    assert found.profile.extra_config == {"budget_note": "x"}
    assert found.profile.metadata == {"owner": "team-b", "tier": 1}
    assert origin(index, "coding", "harness.codex", "web") == f"{OVR} (Config)"
    assert origin(index, "coding", "harness.opencode", "web") == f"{SYS} (Config)"
    assert origin(index, "coding", "extra_config.budget_note", "web") == f"{OVR} (Config)"
    assert origin(index, "coding", "metadata.owner", "web") == f"{OVR} (frontmatter)"
    assert origin(index, "coding", "metadata.tier", "web") == f"{SYS} (frontmatter)"


def test_prose_sections_replace_their_namesake_keep_order_and_append_new(
    make_tree: Any,
) -> None:
    top = profile_md("coding", prose=[("Output Format", "Bullets."), ("rules", "Ship it.")])
    root = vault(make_tree, {SYS: BASE, OVR: top})
    index = index_of(root)
    found = index.effective("coding", "web")
    assert found is not None
    sections = [(s.heading, s.body) for s in found.profile.sections]
    assert sections == [
        ("Role", "Write code."),
        ("rules", "Ship it."),  # matched case-insensitively, in the parent's position
        ("Reflection", "Learn."),
        ("Output Format", "Bullets."),
    ]
    assert origin(index, "coding", "sections.Role", "web") == f"{SYS} (## Role)"
    assert origin(index, "coding", "sections.rules", "web") == f"{OVR} (## rules)"
    assert origin(index, "coding", "sections.Output Format", "web") == f"{OVR} (## Output Format)"
    assert found.profile.prompt.startswith("Write code.\n\n## rules\n\nShip it.")


def test_an_override_that_sets_nothing_inherits_everything(make_tree: Any) -> None:
    root = vault(make_tree, {SYS: BASE, OVR: profile_md("coding")})
    index = index_of(root)
    found, plain = index.effective("coding", "web"), index.effective("coding")
    assert found is not None and plain is not None
    assert found.profile.to_json_dict() | {"project": None, "source": SYS} == (
        plain.profile.to_json_dict()
    )
    assert found.origins.pop("id") == plain.origins.pop("id")._replace(path=OVR)
    assert found.origins == plain.origins


def test_an_override_without_a_system_profile_stands_alone(make_tree: Any) -> None:
    root = vault(make_tree, {override("web", "local"): profile_md("local", config={"model": "m"})})
    index = index_of(root)
    found = index.effective("local", "web")
    assert found is not None and found.has_override and not found.has_system
    assert found.profile.model == "m"
    assert index.effective("local") is None
    assert index.effective("local", "other") is None


def chain_vault(make_tree: Any) -> Any:
    """root <- mid <- leaf <- tip: four levels, each setting something different."""
    return index_of(
        vault(
            make_tree,
            {
                system("root"): profile_md(
                    "root",
                    prose=[("Role", "root role"), ("Rules", "root rules")],
                    config={"model": "m-root", "permission_mode": "plan", "max_turns": 9},
                    tools={"allowed": ["Read"], "denied": ["Write"]},
                    install={"npm": ["a"], "pip": ["b"]},
                ),
                system("mid"): profile_md(
                    "mid", extends="root", config={"model": "m-mid"}, prose=[("Rules", "mid")]
                ),
                system("leaf"): profile_md(
                    "leaf", extends="mid", tools={"allowed": ["Read", "Grep"]}
                ),
                system("tip"): profile_md(
                    "tip",
                    extends="leaf",
                    install={"pip": ["c"]},
                    prose=[("Extra", "tip extra")],
                ),
                override("p", "tip"): profile_md("tip", config={"permission_mode": "default"}),
            },
        )
    )


def test_extends_merges_at_any_depth_with_origins(make_tree: Any) -> None:
    index = chain_vault(make_tree)
    tip = index.effective("tip")
    assert tip is not None and tip.warnings == ()
    p = tip.profile
    assert (p.model, p.permission_mode, p.max_turns) == ("m-mid", "plan", 9)
    assert (p.allowed_tools, p.denied_tools) == (("Read", "Grep"), ("Write",))
    assert (p.install.npm, p.install.pip) == (("a",), ("c",))
    assert [(s.heading, s.body) for s in p.sections] == [
        ("Role", "root role"),
        ("Rules", "mid"),
        ("Extra", "tip extra"),
    ]
    assert origin(index, "tip", "model") == f"{system('mid')} (Config)"
    assert origin(index, "tip", "permission_mode") == f"{system('root')} (Config)"
    assert origin(index, "tip", "allowed_tools") == f"{system('leaf')} (Tools)"
    assert origin(index, "tip", "denied_tools") == f"{system('root')} (Tools)"
    assert origin(index, "tip", "install.pip") == f"{system('tip')} (Install)"
    assert origin(index, "tip", "install.npm") == f"{system('root')} (Install)"
    assert origin(index, "tip", "sections.Rules") == f"{system('mid')} (## Rules)"
    assert origin(index, "tip", "extends") == f"{system('tip')} (frontmatter)"
    # A project override applies over the whole chain.
    in_p = index.effective("tip", "p")
    assert in_p is not None
    assert (in_p.profile.permission_mode, in_p.profile.model) == ("default", "m-mid")
    assert origin(index, "tip", "permission_mode", "p") == f"{override('p', 'tip')} (Config)"
    assert origin(index, "tip", "model", "p") == f"{system('mid')} (Config)"


def test_an_extends_cycle_is_reported_and_the_chain_cut(make_tree: Any) -> None:
    files = {
        system("a"): profile_md("a", extends="b", config={"model": "m-a"}),
        system("b"): profile_md("b", extends="c", config={"model": "m-b", "max_turns": 3}),
        system("c"): profile_md("c", extends="a", config={"permission_mode": "plan"}),
        system("d"): profile_md("d", extends="a"),
    }
    index = index_of(vault(make_tree, files))
    a = index.effective("a")
    assert a is not None
    assert a.warnings == ("'extends' forms a cycle: a → b → c → a; the chain is cut there",)
    assert (a.profile.model, a.profile.max_turns, a.profile.permission_mode) == ("m-a", 3, "plan")
    d = index.effective("d")
    assert d is not None and d.profile.model == "m-a"
    assert d.warnings == ("'extends' forms a cycle: d → a → b → c → a; the chain is cut there",)


def test_a_missing_extends_target_is_reported(make_tree: Any) -> None:
    files = {system("a"): profile_md("a", extends="gone", config={"model": "m-a"})}
    found = index_of(vault(make_tree, files)).effective("a")
    assert found is not None and found.profile.model == "m-a"
    assert found.warnings == (
        "profile 'a' extends 'gone', which does not exist; nothing is inherited from it",
    )


TOML = """
[defaults]
runtime = "acpx"
model = "claude-haiku-4-5"
permission_mode = "plan"
allowed_tools = ["Read", "Grep"]
max_turns = 50

[embedded_server]
name = "roster"
url = "http://127.0.0.1:9/mcp"
"""


def test_roster_toml_defaults_fill_only_empty_fields(make_tree: Any) -> None:
    files = {system("a"): profile_md("a", config={"model": "own"}, tools={"denied": ["Bash"]})}
    index = index_of(vault(make_tree, files, TOML))
    found = index.effective("a")
    assert found is not None
    p = found.profile
    assert (p.model, p.runtime, p.permission_mode) == ("own", Runtime.ACPX, "plan")
    assert (p.allowed_tools, p.denied_tools, p.max_turns) == (("Read", "Grep"), ("Bash",), 50)
    for field in ("runtime", "permission_mode", "allowed_tools", "max_turns"):
        assert origin(index, "a", field) == "roster.toml ([defaults])"
    assert origin(index, "a", "model") == f"{system('a')} (Config)"
    assert origin(index, "a", "denied_tools") == f"{system('a')} (Tools)"
    assert index.embedded_server().name == "roster"


def test_an_exact_tool_set_is_not_filled_from_roster_toml(make_tree: Any) -> None:
    # "exact": true with no tools means none: roster.toml's default list must not grant any.
    files = {system("a"): profile_md("a", tools={"allowed": [], "exact": True})}
    index = index_of(vault(make_tree, files, TOML))
    found = index.effective("a")
    assert found is not None
    assert (found.profile.allowed_tools, found.profile.tools_exact) == ((), True)
    assert origin(index, "a", "allowed_tools") == f"{system('a')} (Tools)"


def test_an_override_that_sets_the_tool_list_replaces_exact_too(make_tree: Any) -> None:
    base = profile_md("coding", tools={"allowed": [], "exact": True})
    files = {SYS: base, OVR: profile_md("coding", tools={"allowed": ["Read"]})}
    index = index_of(vault(make_tree, files))
    found = index.effective("coding", "web")
    assert found is not None
    assert (found.profile.allowed_tools, found.profile.tools_exact) == (("Read",), False)
    # An override that sets only "denied" keeps the exact empty set.
    files[OVR] = profile_md("coding", tools={"denied": ["Bash"]})
    index = index_of(vault(make_tree, files))
    found = index.effective("coding", "web")
    assert found is not None
    assert (found.profile.allowed_tools, found.profile.tools_exact) == ((), True)


def test_without_roster_toml_the_runtime_default_is_built_in(make_tree: Any) -> None:
    index = index_of(vault(make_tree, {system("a"): profile_md("a")}))
    found = index.effective("a")
    assert found is not None and found.profile.runtime is Runtime.CLAUDE_SDK
    assert origin(index, "a", "runtime") == "(built-in) (default)"
    assert "model" not in found.origins and found.profile.model == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[defaults\n",
            [
                "roster.toml:1:10: error[toml-invalid] invalid TOML: expected ']' to close the "
                "[table] header; nothing in roster.toml applies until this is fixed"
            ],
        ),
        # tomllib raises ValueError, not TOMLDecodeError, for this: it crashed (issue 11).
        (
            "[defaults]\nmax_turns = " + "1" * 5_000 + "\n",
            ["roster.toml:2:13: error[toml-invalid] invalid TOML: a number has too many digits"],
        ),
        (
            '[defaults]\nruntime = "claude"\nmax_turns = 0\nmodle = "x"\n',
            [
                "roster.toml:2:1: error[field-value] [defaults] runtime 'claude' is not one of "
                "claude_sdk, acpx, supervisor",
                "roster.toml:3:1: error[field-value] [defaults] max_turns must be a positive "
                "integer",
                "roster.toml:4:1: warning[field-unknown] unknown key 'modle' in [defaults]",
            ],
        ),
        (
            '[embedded_server]\nname = "a/b"\nurl = "ftp://x"\n[extra]\n',
            [
                "roster.toml:4:1: warning[field-unknown] unknown table [extra] in roster.toml",
                "roster.toml:2:1: error[name-unsafe] [embedded_server] name 'a/b' must not "
                "contain '/'",
                "roster.toml:3:1: error[field-value] [embedded_server] url must be an http(s) URL",
            ],
        ),
    ],
)
def test_roster_toml_problems_are_diagnostics(
    make_tree: Any, text: str, expected: list[str]
) -> None:
    loaded = load_config(vault(make_tree, {}, text))
    lines = [d.format().splitlines()[0] for d in loaded.diagnostics]
    assert len(lines) == len(expected), lines
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(start), line
    # Bad values never half-apply: the built-in defaults stand in for them.
    assert loaded.config.defaults.runtime is Runtime.CLAUDE_SDK
    assert loaded.config.defaults.max_turns is None
    assert loaded.config.embedded.name == "agent-queue"


def test_example_vault_origins_cover_every_field(example: Path) -> None:
    index = index_of(example)
    found = index.effective("coding", "webshop")
    assert found is not None
    webshop = override("webshop", "coding")
    assert found.profile.max_tokens_per_task == 300000
    assert origin(index, "coding", "max_tokens_per_task", "webshop") == f"{webshop} (Config)"
    assert origin(index, "coding", "sections.Rules", "webshop") == f"{webshop} (## Rules)"
    assert origin(index, "coding", "sections.Role", "webshop") == f"{SYS} (## Role)"
    assert origin(index, "coding", "model", "webshop") == f"{SYS} (Config)"
    for ident, project in [(i, None) for i in index.system] + [("coding", "webshop")]:
        eff = index.effective(ident, project)
        assert eff is not None and eff.warnings == (), ident
        data = eff.profile.to_json_dict()
        for field in ("name", "description", "tags", "model", "permission_mode", "runtime"):
            if data[field]:
                assert field in eff.origins, (ident, field)
        for field in ("allowed_tools", "denied_tools", "mcp_servers", "max_tokens_per_task"):
            assert (field in eff.origins) == bool(data[field]), (ident, field)
        for section in eff.profile.sections:
            assert f"sections.{section.heading}" in eff.origins
    review = override("webshop", "coding")
    assert review != SYS
    sec = index.effective("security-review")
    assert sec is not None
    assert origin(index, "security-review", "model") == f"{system('code-review')} (Config)"
    assert origin(index, "security-review", "max_tokens_per_task") == (
        f"{system('security-review')} (Config)"
    )
    assert origin(index, "security-review", "sections.Reflection") == (
        f"{system('code-review')} (## Reflection)"
    )
