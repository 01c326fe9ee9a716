"""Launch specs for the three runtimes: exact argv, the MCP config file, and notes for what a
runtime cannot carry (issue 4 item 6)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from agent_roster.model.profile import PERMISSION_MODES
from agent_roster.resolve.cascade import resolve
from agent_roster.resolve.launch import CLAUDE_PERMISSION_MODES, LaunchSpec, build_cached

from .helpers import index_of, option_index, option_value, profile_md, server_md, system

#: What `claude --permission-mode` accepts (Claude Code 2.1.197's own error message).
CLAUDE_ACCEPTS = {"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"}
EMBEDDED_URL = "http://127.0.0.1:8765/mcp"
SERVERS = {
    "mcp-servers/gh.md": server_md(
        "gh", transport="stdio", command="npx", args=["-y", "gh-mcp"], env={"T": "${GH_TOKEN}"}
    ),
    "mcp-servers/web.md": server_md(
        "web", transport="http", url="https://web/mcp", headers={"Authorization": "Bearer ${W}"}
    ),
    "mcp-servers/events.md": server_md("events", transport="sse", url="https://ev/sse"),
}
DEV = profile_md(
    "dev",
    prose=[("Role", "Build it."), ("Rules", "- Test.")],
    config={
        "model": "claude-opus-4-6",
        "permission_mode": "full",
        "max_tokens_per_task": 1000,
        "max_turns": 5,
    },
    tools={"allowed": ["Read", "Bash(git log:*)", "get_task", "mcp__gh__get_issue"]}
    | {"denied": ["Write", "Bash(rm -rf:*)"]},
    mcp=["gh", "web", "events"],
)


def spec_for(
    make_tree: Any,
    profile: str,
    *,
    toml: str = f'[embedded_server]\nurl = "{EMBEDDED_URL}"\n',
    ident: str = "dev",
    state: Path = Path("/state"),
) -> LaunchSpec:
    root = make_tree({**SERVERS, system(ident): profile, "roster.toml": toml})
    index = index_of(root)
    return build_cached(index, resolve(index, profile=ident), state)


def test_claude_argv_exactly(make_tree: Any) -> None:
    spec = spec_for(make_tree, DEV)
    (path, text), *_ = spec.files.items()
    digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    assert path == f"/state/launch/dev-{digest}.mcp.json"
    assert spec.argv == (
        "claude",
        "-p",
        "--model=claude-opus-4-6",
        "--permission-mode=bypassPermissions",
        "--allowed-tools",
        "Read",
        "Bash(git log:*)",
        "mcp__agent-queue__get_task",
        "mcp__gh__get_issue",
        "--disallowed-tools",
        "Write",
        "Bash(rm -rf:*)",
        f"--mcp-config={path}",
        "--strict-mcp-config",
        "--append-system-prompt=## Agent Role Instructions\n\nBuild it.\n\n## Rules\n\n- Test.",
        "--",
    )
    assert spec.command("fix the bug") == [*spec.argv, "fix the bug"]
    assert spec.argv[-2] == f"--append-system-prompt={spec.system_prompt}"
    assert spec.tools == tuple(spec.argv[5:9])
    assert spec.notes == (
        "permission_mode 'full' is passed as 'bypassPermissions'",
        "Claude Code refuses bypassPermissions when run as root unless IS_SANDBOX=1 is set; "
        "set it only inside a real sandbox",
        "max_tokens_per_task (token budget) is enforced by the orchestrator, not by a claude flag",
        "max_turns (turn limit) is enforced by the orchestrator, not by a claude flag",
    )
    # The model is launched as written: Claude Code would otherwise remap legacy ids.
    assert spec.env == {"CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP": "1"}


def test_an_exact_tool_set_is_passed_as_the_sessions_tools(make_tree: Any) -> None:
    # --allowed-tools alone would leave every other built-in tool in the session; an exact
    # set names the built-ins the session has at all, and "" (none) for an empty one.
    none = spec_for(make_tree, profile_md("dev", tools={"allowed": [], "exact": True}), toml="")
    argv = list(none.argv)
    assert "--tools=" in argv
    assert "--allowed-tools" not in argv
    tools = {"allowed": ["Read", "Bash(git log:*)", "get_task"], "exact": True}
    some = spec_for(make_tree, profile_md("dev2", tools=tools), toml="", ident="dev2")
    argv = list(some.argv)
    assert "--tools=Read,Bash" in argv
    start = argv.index("--allowed-tools") + 1
    assert argv[start : start + 3] == ["Read", "Bash(git log:*)", "mcp__agent-queue__get_task"]
    plain = spec_for(make_tree, profile_md("d3", tools={"allowed": ["Read"]}), toml="", ident="d3")
    assert not any(a.startswith("--tools") for a in plain.argv)


def test_retired_claude_tools_are_noted_and_deny_rules_kept(make_tree: Any) -> None:
    tools = {"allowed": ["Read", "MultiEdit"], "denied": ["LS", "TodoRead", "Write"]}
    spec = spec_for(make_tree, profile_md("dev", tools=tools), toml="")
    argv = list(spec.argv)
    assert argv[argv.index("--disallowed-tools") + 1 : option_index(argv, "--mcp-config")] == [
        "LS",
        "TodoRead",
        "Write",
    ]
    assert spec.notes == (
        "'MultiEdit' is no longer a Claude Code tool; it grants nothing",
        "'LS' is no longer a Claude Code tool; denying it is kept for older CLIs",
        "'TodoRead' is no longer a Claude Code tool; denying it is kept for older CLIs",
    )
    assert spec.env == {}  # no model, nothing to keep


def test_the_mcp_config_file(make_tree: Any) -> None:
    spec = spec_for(make_tree, DEV)
    text = next(iter(spec.files.values()))
    gh = {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"], "env": {"T": "${GH_TOKEN}"}}
    web = {"type": "http", "url": "https://web/mcp", "headers": {"Authorization": "Bearer ${W}"}}
    assert json.loads(text) == {
        "mcpServers": {
            "agent-queue": {"type": "http", "url": EMBEDDED_URL},
            "gh": gh,
            "web": web,
            "events": {"type": "sse", "url": "https://ev/sse"},
        }
    }
    # Deterministic: the same content gives the same file name.
    assert spec_for(make_tree, DEV, ident="dev").files.keys() == spec.files.keys()
    shown = spec.to_dict()["files"][next(iter(spec.files))]["mcpServers"]
    assert shown["gh"] == json.loads(text)["mcpServers"]["gh"]  # a ${VAR} is shown as is
    assert spec.to_dict()["argv"][-1] == "<prompt>"


def test_printed_specs_mask_literal_secrets_but_the_file_keeps_them(make_tree: Any) -> None:
    root = make_tree(
        {
            "mcp-servers/s.md": server_md(
                "s", transport="http", url="https://s/mcp", headers={"Authorization": "Bearer x1"}
            ),
            system("dev"): profile_md("dev", mcp=["s"]),
        }
    )
    index = index_of(root)
    spec = build_cached(index, resolve(index, profile="dev"), Path("/state"))
    path, text = next(iter(spec.files.items()))
    assert json.loads(text)["mcpServers"]["s"]["headers"] == {"Authorization": "Bearer x1"}
    assert spec.to_dict()["files"][path]["mcpServers"]["s"]["headers"] == {
        "Authorization": "Bearer ***"
    }


@pytest.mark.parametrize("mode", PERMISSION_MODES)
def test_permission_modes_map_to_what_claude_accepts(make_tree: Any, mode: str) -> None:
    spec = spec_for(make_tree, profile_md("dev", config={"permission_mode": mode}))
    value = option_value(spec.argv, "--permission-mode")
    assert value == {"full": "bypassPermissions"}.get(mode, mode)
    assert value in CLAUDE_ACCEPTS
    assert set(CLAUDE_PERMISSION_MODES) == set(PERMISSION_MODES)


def test_unreachable_tools_are_noted(make_tree: Any) -> None:
    allowed = {"allowed": ["get_task", "mcp__gh__get_issue", "mcp__zzz__x"]}
    no_url = spec_for(make_tree, profile_md("dev", tools=allowed, mcp=["gh"]), toml="")
    assert json.loads(next(iter(no_url.files.values())))["mcpServers"].keys() == {"gh"}
    assert no_url.notes == (
        "tools of MCP server 'agent-queue' are allowed but the server is not attached "
        "(roster up is not running for this vault and roster.toml's [embedded_server] has "
        "no url), so the agent cannot call them",
        "tools of MCP server 'zzz' are allowed but the server is not attached (the profile's "
        "MCP Servers do not list it), so the agent cannot call them",
    )
    toml = f'[embedded_server]\nurl = "{EMBEDDED_URL}"\ninject = false\n'
    off = spec_for(make_tree, profile_md("dev", tools=allowed, mcp=["gh"]), toml=toml)
    assert "inject is off" in off.notes[0]
    listed = spec_for(make_tree, profile_md("dev", tools=allowed, mcp=["agent-queue"]), toml=toml)
    assert "agent-queue" in json.loads(next(iter(listed.files.values())))["mcpServers"]


def test_no_prose_means_no_system_prompt_flag(make_tree: Any) -> None:
    spec = spec_for(make_tree, profile_md("dev", config={"model": "m"}), toml="")
    assert not any(a.startswith("--append-system-prompt") for a in spec.argv)
    assert spec.system_prompt == ""
    # An empty roster.toml: only the built-in runtime default applies; no tools flag at all.
    assert spec.argv[:3] == ("claude", "-p", "--model=m")
    assert "--allowed-tools" not in spec.argv
    assert spec.argv[-2:] == ("--strict-mcp-config", "--")


def test_acpx_spec(example: Path) -> None:
    index = index_of(example)
    spec = build_cached(index, resolve(index, profile="web-developer"), Path("/state"))
    assert spec.runtime == "acpx"
    assert spec.argv == (
        "acpx",
        "--format=json",
        "--approve-all",
        "--non-interactive-permissions=deny",
        "codex",
        "exec",
        "--",
    )
    assert spec.files == {}
    assert spec.system_prompt.startswith("## Agent Role Instructions\n\nYou are a front")
    assert spec.command("go") == [*spec.argv, f"{spec.system_prompt}\n\ngo"]
    assert spec.notes == (
        "ACP has no per-session tool allowlist: allowed_tools/denied_tools are enforced by the "
        "permission policy only",
        "MCP servers are configured in the ACP agent itself, not per launch",
        "model 'gpt-5-codex' must be set in the ACP agent's own config",
        "ACP has no system-prompt channel: the role instructions are sent at the start of the "
        "prompt",
    )


@pytest.mark.parametrize(
    ("mode", "flag"),
    [("default", "--approve-reads"), ("plan", "--deny-all"), ("acceptEdits", "--approve-all")],
)
def test_acpx_permission_policy(make_tree: Any, mode: str, flag: str) -> None:
    config = {"runtime": "acpx", "agent_name": "gemini", "permission_mode": mode}
    spec = spec_for(make_tree, profile_md("dev", config=config))
    assert spec.argv[:3] == ("acpx", "--format=json", flag)
    assert spec.argv[-3:] == ("gemini", "exec", "--")


def test_supervisor_spec(example: Path) -> None:
    index = index_of(example)
    spec = build_cached(index, resolve(index, profile="supervisor"), Path("/state"))
    assert (spec.argv, spec.files, spec.env) == ((), {}, {})
    assert spec.command("anything") == []
    assert spec.system_prompt.startswith("## Agent Role Instructions\n\nYou are the")
    assert "## Rules" in spec.system_prompt and "## Reflection" in spec.system_prompt


def test_example_profiles_build(example: Path) -> None:
    index = index_of(example)
    runtimes = {}
    for ident in sorted(index.system):
        for project in (None, "webshop"):
            spec = build_cached(index, resolve(index, profile=ident, project=project), Path("/s"))
            runtimes[ident] = spec.runtime
            if spec.runtime == "claude_sdk":
                at = option_index(spec.argv, "--mcp-config")
                assert spec.argv[at + 1] == "--strict-mcp-config"
                assert (project is not None) == ("/webshop-" in next(iter(spec.files)))
    assert runtimes == {
        "code-review": "claude_sdk",
        "coding": "claude_sdk",
        "qa": "claude_sdk",
        "security-review": "claude_sdk",
        "supervisor": "supervisor",
        "web-developer": "acpx",
    }
