"""roster source add / update / sync / remove with local git repositories as sources
(issue 15 items 5, 8), through the real roster and git commands."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trees import commit_all, git

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"
ROSTER = [sys.executable, "-m", "agent_roster"]


def roster(vault: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    done = subprocess.run(
        [*ROSTER, "--vault", str(vault), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture
def team(tmp_path: Path) -> Path:
    """A team repository with a vault in ``shared/``: two profiles and the servers."""
    repo = tmp_path / "team"
    vault = repo / "shared"
    vault.mkdir(parents=True)
    for ident in ("code-review", "web-developer"):
        shutil.copytree(EXAMPLES / "agent-types" / ident, vault / "agent-types" / ident)
    shutil.copytree(EXAMPLES / "mcp-servers", vault / "mcp-servers")
    (repo / "README.md").write_text("team agents\n")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "agents")
    return repo


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "mine"
    (root / "agent-types").mkdir(parents=True)
    (root / "roster.toml").write_text('# my settings\n[defaults]\nmodel = "sonnet"\n')
    return root


def files_of(report: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {f["path"]: f["status"] for f in report["files"]}


def test_add_pins_every_file_and_frozen_passes(team: Path, vault: Path) -> None:
    code, report = roster(vault, "source", "add", str(team), "--name", "team", "--path", "shared")
    assert code == 0 and report["ok"], report
    statuses = files_of(report)
    assert statuses["agent-types/code-review/profile.md"] == "added"
    assert statuses["mcp-servers/github.md"] == "added"
    assert (vault / "agent-types" / "code-review" / "profile.md").read_bytes() == (
        team / "shared" / "agent-types" / "code-review" / "profile.md"
    ).read_bytes()
    lock = json.loads((vault / "roster.lock").read_text())
    locked = lock["sources"]["team"]
    assert locked["commit"] == git(team, "rev-parse", "HEAD")
    assert len(locked["files"]["agent-types/code-review/profile.md"]) == 64  # sha-256
    toml = (vault / "roster.toml").read_text()
    assert toml.startswith('# my settings\n[defaults]\nmodel = "sonnet"\n'), toml
    assert "[sources.team]" in toml

    code, frozen = roster(vault, "source", "sync", "--frozen")
    assert code == 0 and frozen["ok"], frozen
    checked = subprocess.run(
        [*ROSTER, "--vault", str(vault), "validate", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert json.loads(checked.stdout)["errors"] == 0, checked.stdout


def test_frozen_fails_on_any_difference_from_the_lock(team: Path, vault: Path) -> None:
    roster(vault, "source", "add", str(team), "--name", "team", "--path", "shared")
    profile = vault / "agent-types" / "web-developer" / "profile.md"
    profile.write_text(profile.read_text() + "\nlocal note\n")
    (vault / "mcp-servers" / "github.md").unlink()
    code, report = roster(vault, "source", "sync", "--frozen")
    assert code == 1 and not report["ok"]
    assert files_of(report["sources"][0]) == {
        "agent-types/web-developer/profile.md": "changed",
        "mcp-servers/github.md": "missing",
    }
    # Without --frozen, sync restores what is missing and keeps the local edit.
    code, report = roster(vault, "source", "sync")
    statuses = files_of(report["sources"][0])
    assert statuses["mcp-servers/github.md"] == "restored"
    assert statuses["agent-types/web-developer/profile.md"] == "edited-kept"
    assert "local note" in profile.read_text()
    assert code == 1


def test_update_follows_the_source_and_never_overwrites_a_local_edit(
    team: Path, vault: Path
) -> None:
    roster(vault, "source", "add", str(team), "--name", "team", "--path", "shared")
    shared = team / "shared" / "agent-types"
    for ident in ("code-review", "web-developer"):
        path = shared / ident / "profile.md"
        path.write_text(path.read_text().replace("Reviews", "Checks"))
    shutil.rmtree(team / "shared" / "mcp-servers" / "playwright.md", ignore_errors=True)
    (team / "shared" / "mcp-servers" / "playwright.md").unlink(missing_ok=True)
    new = commit_all(team, "update")
    mine = vault / "agent-types" / "web-developer" / "profile.md"
    mine.write_text(mine.read_text() + "\nmine\n")

    code, report = roster(vault, "source", "update")
    statuses = files_of(report["sources"][0])
    assert statuses["agent-types/code-review/profile.md"] == "updated"
    assert statuses["agent-types/web-developer/profile.md"] == "edited-kept"
    assert statuses["mcp-servers/playwright.md"] == "removed"
    assert not (vault / "mcp-servers" / "playwright.md").exists()
    assert mine.read_text().endswith("\nmine\n")
    assert json.loads((vault / "roster.lock").read_text())["sources"]["team"]["commit"] == new
    assert code == 1  # the kept edit is reported


def test_remove_takes_exactly_the_files_it_brought(team: Path, vault: Path) -> None:
    own = vault / "agent-types" / "mine" / "profile.md"
    own.parent.mkdir(parents=True)
    own.write_text("---\nid: mine\nname: Mine\n---\n\n## Role\n\nMine.\n")
    roster(vault, "source", "add", str(team), "--name", "team", "--path", "shared")
    edited = vault / "mcp-servers" / "context7.md"
    edited.write_text(edited.read_text() + "\nedited\n")
    code, report = roster(vault, "source", "remove", "team")
    assert code == 0
    statuses = files_of(report)
    assert statuses["mcp-servers/context7.md"] == "edited-kept"
    assert statuses["agent-types/code-review/profile.md"] == "removed"
    assert own.exists() and edited.exists()
    assert not (vault / "agent-types" / "code-review").exists()
    assert "team" not in json.loads((vault / "roster.lock").read_text())["sources"]
    assert "[sources.team]" not in (vault / "roster.toml").read_text()


def test_only_brings_the_chosen_profiles_and_their_servers(team: Path, vault: Path) -> None:
    code, report = roster(
        vault, "source", "add", str(team), "--path", "shared", "--only", "code-review"
    )
    assert code == 0, report
    assert report["name"] == "team"
    assert sorted(files_of(report)) == [
        "agent-types/code-review/profile.md",
        "mcp-servers/github.md",
    ]


def test_a_local_file_in_the_way_is_a_conflict_never_overwritten(team: Path, vault: Path) -> None:
    mine = vault / "agent-types" / "code-review" / "profile.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nid: code-review\nname: Mine\n---\n")
    code, report = roster(vault, "source", "add", str(team), "--name", "t", "--path", "shared")
    assert code == 1
    assert files_of(report)["agent-types/code-review/profile.md"] == "conflict"
    assert mine.read_text() == "---\nid: code-review\nname: Mine\n---\n"


def test_a_pinned_ref_and_hostile_inputs(team: Path, vault: Path) -> None:
    first = git(team, "rev-parse", "HEAD")
    (team / "shared" / "agent-types" / "code-review" / "profile.md").unlink()
    commit_all(team, "drop")
    code, report = roster(vault, "source", "add", str(team), "--path", "shared", "--ref", first)
    assert code == 0 and report["commit"] == first
    assert "agent-types/code-review/profile.md" in files_of(report)
    for bad in ("--upload-pack=touch /tmp/x", "ext::sh -c touch% /tmp/x"):
        done = subprocess.run(
            [*ROSTER, "--vault", str(vault), "source", "add", "--json", "--name", "x", "--", bad],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        shown = done.stdout + done.stderr
        assert "not a repository URL" in shown or "remote helper" in shown, shown
    code, _ = roster(vault, "source", "add", str(team), "--name", "z", "--ref", "--all")
    assert code == 2


def test_a_url_with_credentials_is_refused_and_never_written(vault: Path) -> None:
    before = (vault / "roster.toml").read_text()
    for url, shown in (
        ("https://someone:s3cret-pass@example.com/team/agents.git", "https://***@example.com"),
        ("https://ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2 + "@github.com/t/a", "https://***@github.com"),
    ):
        code, report = roster(vault, "source", "add", url, "--name", "team")
        assert code == 2
        error = report["error"]
        assert error["code"] == "literal-secret"
        assert error["message"].startswith(f"refusing a source URL with credentials in it ({shown}")
        assert "credential helper" in error["hint"]
        assert "s3cret" not in json.dumps(report) and "ghp_" not in json.dumps(report)
    assert (vault / "roster.toml").read_text() == before
    assert not (vault / "roster.lock").exists()
