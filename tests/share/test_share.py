"""export_profile / import_profile: the round trip, secrets, consent, gists (issue 15 items
3, 4, 8). ``gh`` talks to GitHub, a network API: it is the one stand-in here, a script on
PATH that records what roster asked of it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
import yaml

from agent_roster.commands.context import RosterContext
from agent_roster.commands.install import vault_index
from agent_roster.commands.share import ExportParams, ImportParams, export_profile, import_profile
from agent_roster.errors import UsageError
from agent_roster.vault.loader import load_vault

from ..fake_gh import GIST_URL, install_fake_gh

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"
ROSTER = [sys.executable, "-m", "agent_roster"]
VOLATILE = ("source", "created_at", "updated_at", "project")


def roster(vault: Path, *args: str, stdin: str | None = None, env=None):  # type: ignore[no-untyped-def]
    return subprocess.run(
        [*ROSTER, "--vault", str(vault), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


@pytest.fixture
def source(tmp_path: Path) -> Path:
    vault = tmp_path / "source"
    shutil.copytree(EXAMPLES, vault)
    return vault


@pytest.fixture
def target(tmp_path: Path) -> Path:
    vault = tmp_path / "target"
    (vault / "agent-types").mkdir(parents=True)
    return vault


def comparable(vault: Path, ident: str) -> dict[str, object]:
    snapshot = load_vault(vault)
    parsed = snapshot.profiles[(None, ident)]
    assert parsed.ok, parsed.diagnostics
    assert parsed.profile is not None
    data = parsed.profile.to_json_dict()
    for key in VOLATILE:
        data.pop(key, None)
    return data


def example_ids() -> list[str]:
    return sorted(p.parent.name for p in (EXAMPLES / "agent-types").glob("*/profile.md"))


@pytest.mark.parametrize("ident", example_ids())
def test_export_then_import_gives_the_same_profile(source: Path, target: Path, ident: str) -> None:
    with RosterContext(source) as ctx:
        exported = export_profile(ctx, ExportParams(id=ident))
    assert exported.yaml.startswith("# Agent Profile: ")
    assert "agent_profile:" in exported.yaml
    with RosterContext(target) as ctx:
        result = import_profile(ctx, ImportParams(yaml=exported.yaml))
    assert result.imported and result.synced, result.diagnostics
    theirs = comparable(target, ident)
    # The export is the profile as the vault defines it: an extends chain merged, so the
    # file stands alone.
    with RosterContext(source) as ctx:
        defined = vault_index(ctx).defined(ident)
    assert defined is not None
    mine = msgspec.structs.replace(defined, extends=None).to_json_dict()
    for key in VOLATILE:
        mine.pop(key, None)
    assert theirs == mine
    # Every server the profile uses came along, and the target vault validates clean of
    # unknown servers.
    for name in exported.servers:
        assert (target / "mcp-servers" / f"{name}.md").is_file()


def test_export_keeps_only_set_fields_and_never_a_secret(source: Path) -> None:
    (source / "mcp-servers" / "github.md").write_text(
        "---\nname: github\ntransport: stdio\ncommand: npx\n"
        'args: ["-y", "@modelcontextprotocol/server-github"]\n'
        "env: {GITHUB_PERSONAL_ACCESS_TOKEN: ghp_abcdefghijklmnopqrstuvwxyz0123456789, "
        "LOG_LEVEL: info}\n---\n",
        encoding="utf-8",
    )
    done = roster(source, "export", "code-review")
    assert done.returncode == 0, done.stderr
    assert "ghp_" not in done.stdout
    body = yaml.safe_load(done.stdout)["agent_profile"]
    env = body["mcp_server_definitions"]["github"]["env"]
    assert env == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}",
        "LOG_LEVEL": "info",
    }
    assert "temperature" not in body and "extends" not in body  # not set: not written


def test_a_file_that_does_not_validate_is_not_imported(target: Path) -> None:
    bad = "# Agent Profile: X\nagent_profile:\n  id: x\n  name: X\n  runtime: acpx\n"
    done = roster(target, "import", "-", "--json", stdin=bad)
    result = json.loads(done.stdout)
    assert done.returncode == 1 and result["imported"] is False
    assert "runtime-agent-name" in [d["code"] for d in result["diagnostics"]]
    assert not (target / "agent-types" / "x").exists()

    for text in ("not: [valid", "just text", "agent_profile: [1, 2]"):
        done = roster(target, "import", "-", "--json", stdin=text)
        result = json.loads(done.stdout)
        assert result["imported"] is False
        assert result["diagnostics"][0]["code"] == "import-invalid"


def test_an_existing_id_needs_overwrite_or_another_id(source: Path, target: Path) -> None:
    text = roster(source, "export", "code-review").stdout
    path = target / "shared.yaml"
    path.write_text(text, encoding="utf-8")
    assert roster(target, "import", str(path)).returncode == 0
    again = roster(target, "import", str(path))
    assert again.returncode == 2 and "already exists" in again.stderr
    renamed = roster(target, "import", str(path), "--id", "reviewer-2", "--json")
    assert json.loads(renamed.stdout)["imported"], renamed.stderr
    assert comparable(target, "reviewer-2")["name"] == "Code Reviewer"
    assert roster(target, "import", str(path), "--overwrite").returncode == 0


def test_an_imported_file_never_installs_without_consent(tmp_path: Path, target: Path) -> None:
    log = tmp_path / "npm.log"
    fake_npm = tmp_path / "npm"
    fake_npm.write_text(f'#!/bin/sh\necho "$@" >> {log}\necho "{{}}"\nexit 1\n', encoding="utf-8")
    fake_npm.chmod(0o755)
    (target / "roster.toml").write_text(f'[install]\nnpm = "{fake_npm}"\n', encoding="utf-8")
    shared = (
        "# Agent Profile: Needs\nagent_profile:\n  id: needs\n  name: Needs\n"
        "  install:\n    npm: [left-pad-roster-test]\n    commands: [roster-no-such-program]\n"
    )
    done = roster(target, "import", "-", "--json", stdin=shared)
    result = json.loads(done.stdout)
    assert result["imported"] and result["installed"] == []
    assert result["missing"] == ["left-pad-roster-test"]
    assert result["manual"] == ["roster-no-such-program"]
    calls = log.read_text().splitlines()
    assert calls and all(call.startswith("ls ") for call in calls), calls

    consent = shared.replace("needs", "needs-2")
    roster(target, "import", "-", "--install", stdin=consent)
    assert any(call.startswith("install -g") for call in log.read_text().splitlines())


def test_the_import_keeps_exactly_the_tools_the_file_states(target: Path) -> None:
    shared = (
        "# Agent Profile: R\nagent_profile:\n  id: r\n  name: R\n"
        "  allowed_tools: [Read, Grep]\n  denied_tools: [Bash]\n"
        "  permission:\n  - {permission: edit, pattern: '*', action: deny}\n"
    )
    assert roster(target, "import", "-", stdin=shared).returncode == 0
    data = comparable(target, "r")
    assert data["allowed_tools"] == ["Read", "Grep"] and data["denied_tools"] == ["Bash"]
    assert data["permission"] == [{"permission": "edit", "pattern": "*", "action": "deny"}]
    can = roster(target, "can", "r", "Bash", "ls", "--json")
    assert json.loads(can.stdout)["action"] == "deny", can.stdout
    edit = roster(target, "can", "r", "Edit", "x.py", "--json")
    assert json.loads(edit.stdout)["action"] == "deny", edit.stdout


def test_a_literal_secret_in_a_shared_profile_is_refused(target: Path) -> None:
    # Issue 13 item 4: import wrote a token in a profile's prose or fields into the vault.
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    prose = (
        "# Agent Profile: S\nagent_profile:\n  id: s\n  name: S\n"
        f"  system_prompt_suffix: Push with {token} when done.\n"
    )
    field = (
        "# Agent Profile: F\nagent_profile:\n  id: f\n  name: F\n"
        f"  harness:\n    opencode:\n      apiKey: {token}\n"
    )
    for ident, text, where in (("s", prose, "sections.Role"), ("f", field, "harness")):
        done = roster(target, "import", "-", "--json", stdin=text)
        assert done.returncode == 2, done.stdout + done.stderr
        error = json.loads(done.stdout)["error"]
        assert error["code"] == "literal-secret"
        assert error["message"].startswith(
            f"refusing to write a literal secret into agent-types/{ident}/profile.md ({where}"
        )
        assert "--allow-literal-secret" in error["hint"] and token not in done.stdout
        assert not (target / "agent-types" / ident).exists()
    allowed = roster(target, "import", "-", "--allow-literal-secret", stdin=prose)
    assert allowed.returncode == 0, allowed.stderr
    assert token in (target / "agent-types" / "s" / "profile.md").read_text()


@pytest.fixture
def fake_gh(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``gh`` that records its argv and stdin, and serves a stored gist."""
    gh = install_fake_gh(tmp_path)
    env = {**os.environ, "PATH": f"{gh.bin_dir}:{os.environ['PATH']}"}
    return env, gh.record


def test_gist_export_and_import(source: Path, target: Path, fake_gh) -> None:  # type: ignore[no-untyped-def]
    env, record = fake_gh
    done = roster(source, "export", "code-review", "--gist", "--json", env=env)
    assert done.returncode == 0, done.stderr
    url = json.loads(done.stdout)["gist_url"]
    assert url == "https://gist.github.com/someone/0123456789abcdef0123"
    imported = roster(target, "import", url, "--json", env=env)
    assert json.loads(imported.stdout)["imported"], imported.stderr
    calls = [json.loads(line)["args"] for line in record.read_text().splitlines()]
    assert calls[0][:3] == ["gist", "create", "--public"]
    assert calls[1] == ["gist", "view", "0123456789abcdef0123", "--raw"]


def test_without_gh_the_error_says_so(source: Path, tmp_path: Path) -> None:
    empty = tmp_path / "nobin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_roster",
            "--vault",
            str(source),
            "export",
            "code-review",
            "--gist",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "gh (the GitHub CLI) is not installed" in done.stderr


def test_when_gh_is_not_logged_in_the_error_says_so(
    source: Path, target: Path, tmp_path: Path
) -> None:
    # Issue 15: gh answers every API command with its login advice and exit 4.
    gh = install_fake_gh(tmp_path / "gh", logged_in=False)
    env = {**os.environ, "PATH": f"{gh.bin_dir}:{os.environ['PATH']}"}
    exported = roster(source, "export", "code-review", "--gist", env=env)
    assert exported.returncode == 2
    assert exported.stdout == ""
    assert exported.stderr == (
        "error: gh (the GitHub CLI) is not logged in, so it cannot create the gist\n"
        "hint: run 'gh auth login' (or set GH_TOKEN), then try again\n"
    )
    imported = roster(target, "import", GIST_URL, "--json", env=env)
    assert imported.returncode == 2
    assert json.loads(imported.stdout) == {
        "error": {
            "code": "usage",
            "message": "gh (the GitHub CLI) is not logged in, so it cannot fetch the gist",
            "hint": "run 'gh auth login' (or set GH_TOKEN), then try again",
            "diagnostics": [],
        }
    }
    assert [call[:2] for call in gh.calls()] == [["gist", "create"], ["gist", "view"]]
    assert sorted(p.name for p in (target / "agent-types").iterdir()) == []


def test_a_gist_reference_is_checked_before_it_reaches_gh(target: Path) -> None:
    with RosterContext(target) as ctx, pytest.raises(UsageError):
        import_profile(ctx, ImportParams(gist="--web"))
