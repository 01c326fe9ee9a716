"""Values that reach an argv cannot become options (issue 11 item 2).

Every command line roster builds is enumerated here with hostile values: the Claude Code
and acpx launch specs, the supervisor (which has none), ``roster install``'s npm and pip
runs and its ``npm ls`` look, ``gh gist`` (export, import) and the git of sources. Each
hostile value is refused at parse time with a located ``argv-option-value`` error, and
refused again when an argv is built from a profile that never went through the parser (an
older database): it never reaches the program.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agent_roster import argv as argv_module
from agent_roster.argv import (
    Argv,
    ArgvValueError,
    check_runnable,
    gh_gist_create,
    gh_gist_view,
    npm_install,
    npm_list_global,
    pip_install,
)
from agent_roster.commands.install import plan_steps
from agent_roster.errors import UsageError
from agent_roster.install.policy import InstallPolicy
from agent_roster.install.requirements import Package
from agent_roster.model.profile import AgentProfile, Runtime
from agent_roster.resolve.cascade import resolve
from agent_roster.resolve.config import RosterConfig, _base_defaults, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.resolve.launch import build_cached
from agent_roster.sources import git
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.profile_parser import parse_profile

from .helpers import profile_md, server_md, system

ROSTER = str(Path(sys.executable).with_name("roster"))
HOSTILE = [
    "--approve-all",
    "-e",
    "--index-url=https://evil.example/simple",
    "--dangerously-skip-permissions",
    "-",
    "--",
]
#: The issue's exact finding.
FINDING = {"runtime": "acpx", "agent_name": "--approve-all", "permission_mode": "plan"}
OPTION = "starts with '-', so the program would read it as an option"


def roster(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def position(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``needle`` in ``text``."""
    offset = text.index(needle)
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def fake_acpx(folder: Path) -> Path:
    """An ``acpx`` on PATH that records the argv it was started with, and exits 0."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "acpx"
    script.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "open(os.environ['ACPX_RECORD'], 'w').write(json.dumps(sys.argv[1:]))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


# -- the finding, through the real roster command ------------------------------------------
def test_the_finding_fails_validate_with_a_located_error(make_tree: Any) -> None:
    text = profile_md("plan", name="Plan", config=FINDING)
    root = make_tree({system("plan"): text})
    done = roster("validate", ".", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    line, column = position(text, '"--approve-all"')
    assert (
        f"agent-types/plan/profile.md:{line}:{column}: error[argv-option-value] "
        f"Config 'agent_name' '--approve-all' {OPTION}\n"
        '    hint: name the ACP agent, for example "codex" or "gemini"'
    ) in done.stdout + done.stderr


def test_the_finding_never_reaches_acpx(make_tree: Any, tmp_path: Path) -> None:
    root = make_tree(
        {
            system("plan"): profile_md("plan", name="Plan", config=FINDING),
            system("good"): profile_md(
                "good", name="Good", config={**FINDING, "agent_name": "gemini"}
            ),
        }
    )
    record = tmp_path / "acpx-argv.json"
    env = {
        "PATH": f"{fake_acpx(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}",
        "ACPX_RECORD": str(record),
    }
    db = f"sqlite:///{tmp_path / 'roster.db'}"
    base = ["--vault", str(root), "--db", db]
    synced = roster(*base, "sync", env=env)
    assert synced.returncode == 1 and "argv-option-value" in synced.stdout + synced.stderr
    refused = roster(*base, "run", "--profile", "plan", "--", "hello", env=env)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert not record.exists()
    # The same vault's good profile does reach the (fake) acpx: the check above can fail.
    ran = roster(*base, "run", "--profile", "good", "--", "hello", env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads(record.read_text()) == [
        "--format=json",
        "--deny-all",
        "--non-interactive-permissions=deny",
        "gemini",
        "exec",
        "--",
        "hello",
    ]


# -- every value that reaches an argv is checked at parse time -----------------------------
def _one(parsed: Any, code: str) -> Any:
    found = [d for d in parsed.diagnostics if d.code == code]
    assert len(found) == 1, parsed.diagnostics
    return found[0]


@pytest.mark.parametrize("value", HOSTILE)
def test_config_values_are_checked(value: str) -> None:
    for key, config in (
        ("agent_name", {"runtime": "acpx", "agent_name": value}),
        ("model", {"model": value}),
    ):
        text = profile_md("p", name="P", config=config)
        parsed = parse_profile(text, path="p.md", expected_id="p")
        d = _one(parsed, "argv-option-value")
        assert (d.line, d.column) == position(text, json.dumps(value))
        assert d.message == f"Config {key!r} {value!r} {OPTION}"
        assert parsed.profile is None or getattr(parsed.profile, key) == ""


@pytest.mark.parametrize("value", ["codex --approve-all", "my agent"])
def test_an_agent_name_is_one_word(value: str) -> None:
    # acpx runs an unknown agent name as a command line: words would be its arguments.
    text = profile_md("p", name="P", config={"runtime": "acpx", "agent_name": value})
    d = _one(parse_profile(text, path="p.md", expected_id="p"), "argv-option-value")
    assert d.message == (
        f"Config 'agent_name' {value!r} contains whitespace, so it would be read as several words"
    )


@pytest.mark.parametrize("key", ["allowed", "denied"])
def test_tool_names_are_checked(key: str) -> None:
    text = profile_md("p", name="P", tools={key: ["Read", "--dangerously-skip-permissions"]})
    parsed = parse_profile(text, path="p.md", expected_id="p")
    d = _one(parsed, "argv-option-value")
    assert (d.line, d.column) == position(text, '"--dangerously-skip-permissions"')
    assert d.message == f"Tools {key!r}[1] '--dangerously-skip-permissions' {OPTION}"
    assert parsed.profile is not None
    assert getattr(parsed.profile, f"{key}_tools") == ("Read",)


def test_roster_toml_defaults_are_checked(make_tree: Any) -> None:
    toml = '[defaults]\nmodel = "--approve-all"\nallowed_tools = ["Read", "-x"]\n'
    loaded = load_config(make_tree({"roster.toml": toml}))
    found = [(d.code, d.line, d.column, d.message) for d in loaded.diagnostics]
    assert found == [
        ("argv-option-value", 2, 1, f"[defaults] model '--approve-all' {OPTION}"),
        ("argv-option-value", 3, 1, f"[defaults] allowed_tools: '-x' {OPTION}"),
    ]
    assert loaded.config.defaults.model == "" and loaded.config.defaults.allowed_tools == ()


def test_an_mcp_command_is_checked() -> None:
    text = server_md("s", transport="stdio", command="-y", args=["--token", "x"])
    parsed = parse_mcp_server(text, path="s.md", expected_name="s")
    d = _one(parsed, "argv-option-value")
    assert (d.line, d.column, d.message) == (4, 10, f"'command' '-y' {OPTION}")
    # The server's own args are options for the server itself: they are not ours to place.
    assert not parse_mcp_server(
        server_md("s", transport="stdio", command="npx", args=["-y", "pkg"]), path="s.md"
    ).diagnostics


@pytest.mark.parametrize("manager", ["npm", "pip", "commands"])
@pytest.mark.parametrize("value", HOSTILE[:3])
def test_package_names_are_checked(manager: str, value: str) -> None:
    text = profile_md("p", name="P", install={manager: ["ok", value]})
    parsed = parse_profile(text, path="p.md", expected_id="p")
    d = _one(parsed, "argv-option-value")
    assert (d.line, d.column) == position(text, json.dumps(value))
    assert d.message == f"Install {manager!r}: {value!r} {OPTION}"


# -- every argv roster builds refuses them, even from an unchecked profile -----------------
def _index(profile: AgentProfile) -> ProfileIndex:
    fields = frozenset(
        f
        for f in ("model", "runtime", "agent_name", "allowed_tools", "denied_tools")
        if getattr(profile, f) not in ("", (), None)
    )
    profile = msgspec.structs.replace(profile, fields_set=fields)
    return ProfileIndex(RosterConfig(defaults=_base_defaults()), [profile], [])


def _launch(**fields: Any) -> tuple[str, ...]:
    index = _index(AgentProfile(id="p", name="P", **fields))
    return build_cached(index, resolve(index, profile="p"), Path("/state")).argv


LAUNCH_SLOTS: dict[str, Callable[[str], dict[str, Any]]] = {
    "claude model": lambda v: {"model": v},
    "claude allowed tool": lambda v: {"allowed_tools": ("Read", v)},
    "claude denied tool": lambda v: {"denied_tools": (v,)},
    "acpx agent_name": lambda v: {"runtime": Runtime.ACPX, "agent_name": v},
}
HELPERS: dict[str, Callable[[str], object]] = {
    "npm install package": lambda v: npm_install(["eslint", v], global_install=True),
    "npm ls package": lambda v: npm_list_global(["eslint", v]),
    "pip requirement": lambda v: pip_install("python3", ["requests", v]),
    "install plan npm": lambda v: plan_steps(
        [Package(manager="npm", spec=v, name=v)], InstallPolicy()
    ),
    "install plan pip": lambda v: plan_steps(
        [Package(manager="pip", spec=v, name=v)], InstallPolicy()
    ),
    "gh gist file name": lambda v: gh_gist_create(v, "a profile"),
    "gh gist id": lambda v: gh_gist_view(v),
    "git source url": lambda v: git.check_url(v),
    "git source ref": lambda v: git.check_ref(v),
}


@pytest.mark.parametrize("slot", LAUNCH_SLOTS)
@pytest.mark.parametrize("value", HOSTILE)
def test_launch_specs_refuse_hostile_values(slot: str, value: str) -> None:
    with pytest.raises(ArgvValueError) as raised:
        _launch(**LAUNCH_SLOTS[slot](value))
    assert f"{value!r} {OPTION}; roster does not pass it to" in raised.value.message


@pytest.mark.parametrize("slot", HELPERS)
@pytest.mark.parametrize("value", HOSTILE)
def test_install_gist_and_git_argvs_refuse_hostile_values(slot: str, value: str) -> None:
    with pytest.raises(UsageError):  # ArgvValueError, or git's own check
        HELPERS[slot](value)


def test_the_supervisor_has_no_argv() -> None:
    index = _index(
        AgentProfile(id="p", name="P", runtime=Runtime.SUPERVISOR, allowed_tools=("-e",))
    )
    spec = build_cached(index, resolve(index, profile="p"), Path("/state"))
    assert (spec.argv, spec.command("x")) == ((), [])
    assert "-e" not in spec.tools


def test_values_are_glued_to_their_options() -> None:
    # A value may hold '=' or spaces: glued to its option, it is one value all the same.
    argv = _launch(model="vendor/model=x y", allowed_tools=("Bash(git log:*)",))
    assert argv[:5] == (
        "claude",
        "-p",
        "--model=vendor/model=x y",
        "--allowed-tools",
        "Bash(git log:*)",
    )
    assert _launch(runtime=Runtime.ACPX, agent_name="gemini")[-3:] == ("gemini", "exec", "--")
    assert npm_install(["eslint", "@scope/pkg@^1.2"], global_install=True) == [
        "npm", "install", "-g", "--no-audit", "--no-fund", "--", "eslint", "@scope/pkg@^1.2",
    ]  # fmt: skip
    assert npm_list_global(["eslint"]) == ["npm", "ls", "-g", "--depth=0", "--json", "--", "eslint"]
    assert pip_install("python3", ["requests>=2,<3"]) == [
        "python3", "-m", "pip", "install", "--disable-pip-version-check", "--", "requests>=2,<3",
    ]  # fmt: skip
    # A description is free text glued to its option: even one starting with '-' stays it.
    assert gh_gist_create("code-review.md", "--public notes") == [
        "gh", "gist", "create", "--public", "--filename=code-review.md",
        "--desc=--public notes", "-",
    ]  # fmt: skip
    assert gh_gist_view("0123456789abcdef0123") == [
        "gh", "gist", "view", "0123456789abcdef0123", "--raw",
    ]  # fmt: skip


def test_text_values_are_glued_whatever_they_hold() -> None:
    argv = Argv("claude").option("--append-system-prompt", "-a\nb", "p", text=True).build()
    assert argv == ["claude", "--append-system-prompt=-a\nb"]
    with pytest.raises(ArgvValueError):
        Argv("claude").option("--model", "a\nb", "model")
    # A NUL cannot be given to any program: refused when one is started, not before.
    with pytest.raises(ArgvValueError, match="NUL"):
        check_runnable([*argv, "a\x00b"])
    assert argv_module.CODE == "argv-option-value"
