"""``roster resolve`` and ``roster run`` through ``agent_roster.cli.main``, on the example
vault synced into a real SQLite store with projects and tasks."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent_roster.cli import main
from agent_roster.store import Store

from .helpers import option_value, override, system

FAKE_CLAUDE = """#!/bin/sh
for arg in "$@"; do printf '%s\\0' "$arg"; done > "$ROSTER_TEST_ARGV"
printf '%s' "$CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP" > "$ROSTER_TEST_ARGV.env"
exit 7
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def cli(synced: Store, example: Path, db_url: str) -> list[str]:
    """Global options pointing at the synced example vault and its store."""
    return ["--vault", str(example), "--db", db_url]


def test_resolve_task_json(cli: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *cli, "resolve", "--task", "t-coding", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["level"], data["profile_id"], data["project"], data["task"]) == (
        "task",
        "coding",
        "webshop",
        "t-coding",
    )
    assert data["profile"]["max_tokens_per_task"] == 300000
    assert data["origins"]["max_tokens_per_task"] == {
        "path": override("webshop", "coding"),
        "section": "Config",
    }
    assert data["origins"]["sections.Role"] == {"path": system("coding"), "section": "## Role"}
    assert [s["name"] for s in data["servers"]] == ["github"]
    # ${VAR} references are not secrets and are shown as written.
    assert data["servers"][0]["env"] == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"
    }
    launch = data["launch"]
    assert launch["runtime"] == "claude_sdk"
    argv = launch["argv"]
    assert argv[:4] == [
        "claude",
        "-p",
        "--model=claude-sonnet-4-6",
        "--permission-mode=acceptEdits",
    ]
    assert argv[-2:] == ["--", "<prompt>"]
    path = option_value(argv, "--mcp-config")
    github = {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"},
    }
    assert launch["files"] == {path: {"mcpServers": {"github": github}}}
    assert option_value(argv, "--append-system-prompt").startswith("## Agent Role Instructions")
    assert data["warnings"] == []


def test_resolve_profile_in_project_json(
    cli: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["resolve", "--profile", "coding", "--project", "webshop", "--json"]
    code, out, _ = run(capsys, *cli, *args)
    assert code == 0
    data = json.loads(out)
    assert (data["level"], data["task"], data["profile"]["max_tokens_per_task"]) == (
        "profile",
        None,
        300000,
    )
    code, out, _ = run(capsys, *cli, "resolve", "--profile", "coding", "--json")
    assert json.loads(out)["profile"]["max_tokens_per_task"] == 200000


def test_resolve_default_and_fall_through(
    cli: list[str], example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *cli, "resolve", "--task", "t-bare", "--json")
    data = json.loads(out)
    assert (code, data["level"], data["profile_id"]) == (0, "default", None)
    assert data["origins"]["model"] == {"path": "roster.toml", "section": "[defaults]"}
    (example / system("code-review")).unlink()
    (example / system("security-review")).unlink()
    code, out, err = run(capsys, *cli, "resolve", "--task", "t-review")
    assert code == 0
    assert "level      project\nprofile    qa in project webshop\n" in out
    assert "warning    task 't-review' names profile 'code-review', which does not exist" in err


def test_resolve_text_output(cli: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *cli, "resolve", "--profile", "security-review")
    assert code == 0
    assert "level      profile\nprofile    security-review\n" in out
    assert f"model                {system('code-review')} (Config)" in out
    assert "argv       claude -p --model=claude-sonnet-4-6 --permission-mode=default" in out
    assert "runtime    claude_sdk" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--task", "nope"], "no task 'nope'"),
        (["--profile", "nope"], "no profile 'nope'"),
        (["--task", "t-bare", "--profile", "qa"], "give exactly one of --task and --profile"),
        ([], "give exactly one of --task and --profile"),
    ],
)
def test_resolve_errors(
    cli: list[str], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, *cli, "resolve", *args)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {message}")
    code, out, _ = run(capsys, *cli, "resolve", *args, "--json")
    assert code == 2 and json.loads(out)["error"]["message"] == message


def test_run_without_the_cli_says_how_to_install_it(
    cli: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")
    code, _, err = run(capsys, *cli, "run", "--task", "t-coding", "--", "fix it")
    assert code == 2
    assert err == (
        "error: 'claude' is not installed (or not on PATH)\n"
        "hint: install it with: npm install -g @anthropic-ai/claude-code\n"
    )
    code, _, err = run(capsys, *cli, "run", "--profile", "web-developer", "--", "go")
    assert code == 2 and "hint: install it with: npm install -g acpx" in err
    code, _, err = run(capsys, *cli, "run", "--profile", "supervisor", "--", "go")
    assert code == 2 and "the supervisor runtime runs in-process" in err


def test_run_executes_the_spec(
    cli: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text(FAKE_CLAUDE)
    fake.chmod(0o755)
    record = tmp_path / "argv"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("ROSTER_TEST_ARGV", str(record))
    code, out, _ = run(capsys, *cli, "resolve", "--task", "t-coding", "--json")
    expected: list[Any] = json.loads(out)["launch"]["argv"]
    files = json.loads(out)["launch"]["files"]
    code, _, err = run(capsys, *cli, "run", "--task", "t-coding", "--", "fix", "the cart")
    assert code == 7, err  # the CLI's exit code is passed through
    executed = record.read_bytes().split(b"\0")[:-1]
    assert [a.decode() for a in executed] == [*expected[1:-1], "fix the cart"]
    assert Path(f"{record}.env").read_text() == "1"  # the spec's environment is applied
    for path, content in files.items():
        assert json.loads(Path(path).read_text()) == content
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_end_to_end_through_cli_commands(
    example: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    g = ["--vault", str(example), "--db", db_url]
    assert run(capsys, *g, "sync")[0] == 0
    assert run(capsys, *g, "project", "create", "webshop", "--default-profile", "qa")[0] == 0
    task = [*g, "task", "create"]
    assert run(capsys, *task, "t1", "--project", "webshop", "--profile", "coding")[0] == 0
    assert run(capsys, *task, "t2", "--project", "webshop")[0] == 0
    code, out, _ = run(capsys, *g, "resolve", "--task", "t1", "--json")
    data = json.loads(out)
    assert (code, data["level"], data["profile"]["max_tokens_per_task"]) == (0, "task", 300000)
    code, out, _ = run(capsys, *g, "resolve", "--task", "t2", "--json")
    assert (code, json.loads(out)["level"], json.loads(out)["profile_id"]) == (0, "project", "qa")
