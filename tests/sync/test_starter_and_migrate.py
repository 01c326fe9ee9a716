"""Starter knowledge packs (issue 3, item 8) and ``roster migrate-config`` (item 7)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands.migrate_config import migrate_config
from agent_roster.store import Store
from agent_roster.sync.engine import SyncEngine
from agent_roster.sync.knowledge import STARTER_TAG
from agent_roster.vault.loader import load_vault
from agent_roster.vault.profile_parser import parse_profile

from .helpers import QA, replace_in

PACKS = {
    "code-review": ["review-checklist.md", "review-process.md"],
    "coding": ["common-pitfalls.md", "git-conventions.md"],
    "qa": ["qa-process.md", "testing-patterns.md"],
}


def _memory(vault: Path, profile_id: str) -> dict[str, str]:
    folder = vault / "agent-types" / profile_id / "memory"
    if not folder.is_dir():
        return {}
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def test_first_appearance_copies_the_pack_tagged_starter(engine: SyncEngine, vault: Path) -> None:
    report = engine.sync()

    assert sorted(report.starter_files) == sorted(
        f"agent-types/{pid}/memory/{name}" for pid, names in PACKS.items() for name in names
    )
    for profile_id, names in PACKS.items():
        memory = _memory(vault, profile_id)
        assert sorted(memory) == names
        for name, text in memory.items():
            source = vault / "templates" / "knowledge" / profile_id / name
            assert STARTER_TAG in text
            assert text == source.read_text(encoding="utf-8")  # already tagged: copied as is
    assert _memory(vault, "supervisor") == {}  # no pack, no folder
    assert _memory(vault, "security-review") == {}


def test_an_untagged_template_gets_the_tag(engine: SyncEngine, vault: Path) -> None:
    template = vault / "templates" / "knowledge" / "coding" / "plain.md"
    template.write_text("# Plain\n\nNo tag here.\n", encoding="utf-8")
    engine.sync()
    assert _memory(vault, "coding")["plain.md"] == "# Plain\n\nNo tag here.\n\n#starter\n"


def test_never_overwrites_and_only_on_first_appearance(engine: SyncEngine, vault: Path) -> None:
    memory = vault / "agent-types" / "coding" / "memory"
    memory.mkdir()
    (memory / "git-conventions.md").write_text("my own notes\n", encoding="utf-8")

    report = engine.sync()

    assert "agent-types/coding/memory/git-conventions.md" not in report.starter_files
    assert _memory(vault, "coding")["git-conventions.md"] == "my own notes\n"
    assert STARTER_TAG in _memory(vault, "coding")["common-pitfalls.md"]

    # The agent (or a person) deletes a starter file: later syncs do not bring it back.
    (memory / "common-pitfalls.md").unlink()
    replace_in(vault / "agent-types/coding/profile.md", "200000", "210000")
    assert engine.sync().starter_files == ()
    assert "common-pitfalls.md" not in _memory(vault, "coding")


def test_a_profile_added_later_gets_its_pack_when_it_appears(store: Store, vault: Path) -> None:
    held = vault.parent / "held-qa"
    shutil.move(vault / "agent-types" / "qa", held)
    engine = SyncEngine(store, vault)
    engine.sync()
    assert _memory(vault, "qa") == {}

    shutil.move(held, vault / "agent-types" / "qa")
    report = engine.sync()

    assert sorted(report.starter_files) == [f"agent-types/qa/memory/{n}" for n in PACKS["qa"]]


def test_a_profile_that_first_appears_broken_gets_its_pack_once_it_parses(
    engine: SyncEngine, store: Store, vault: Path
) -> None:
    replace_in(vault / QA, "name: QA Engineer", "name: [unclosed")
    first = engine.sync()
    assert store.get_profile("qa") is None
    assert "agent-types/qa/memory/qa-process.md" not in first.starter_files

    replace_in(vault / QA, "name: [unclosed", "name: QA Engineer")
    fixed = engine.sync()

    assert store.get_profile("qa") is not None
    assert sorted(fixed.starter_files) == [f"agent-types/qa/memory/{n}" for n in PACKS["qa"]]


CONFIG = """\
# legacy agent-queue config
agent_profiles:
  coding:
    name: Coding Agent
    model: claude-sonnet-4-6
    permission_mode: acceptEdits
    allowed_tools: [Read, Edit, Bash]
    mcp_servers: {github: {command: npx}}
    max_tokens_per_task: 100000
    system_prompt_suffix: |
      You write code.
      ## Rules
      - be careful
    install: {npm: [], pip: [ruff], commands: [git]}
  review:
    name: Reviewer
  broken:
    name: Broken
    max_tokens_per_task: lots
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_migrate_config_writes_then_is_idempotent(tmp_path: Path, config: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()

    report = migrate_config(config, vault)

    assert report.written == (
        "mcp-servers/github.md",  # coding's inline server, so its name resolves
        "agent-types/coding/profile.md",
        "agent-types/review/profile.md",
    )
    text = (vault / "agent-types/coding/profile.md").read_text(encoding="utf-8")
    parsed = parse_profile(text, path="agent-types/coding/profile.md", expected_id="coding")
    assert parsed.ok and parsed.profile is not None
    profile = parsed.profile
    assert (profile.name, profile.model, profile.max_tokens_per_task) == (
        "Coding Agent",
        "claude-sonnet-4-6",
        100000,
    )
    assert profile.mcp_servers == ("github",)  # seed 001's dict form becomes its names
    assert [(s.heading, s.body) for s in profile.sections] == [
        ("Role", "You write code."),
        ("Rules", "- be careful"),
    ]
    assert profile.install.pip == ("ruff",)
    files = {p: p.read_bytes() for p in vault.rglob("*.md")}

    again = migrate_config(config, vault)

    assert again.written == ()
    assert [p for p, _ in again.skipped] == [
        "agent-types/coding/profile.md",
        "agent-types/review/profile.md",
    ]
    assert load_vault(vault).diagnostics == ()  # every name resolves
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == files


def test_migrate_config_never_clobbers_a_hand_written_file(tmp_path: Path, config: Path) -> None:
    vault = tmp_path / "vault"
    mine = vault / "agent-types" / "coding" / "profile.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("hand-written, even if broken\n", encoding="utf-8")

    report = migrate_config(config, vault)

    assert report.written == ("agent-types/review/profile.md",)
    assert report.skipped == (
        ("agent-types/coding/profile.md", "a profile file already exists; it was left as it is"),
    )
    assert mine.read_text(encoding="utf-8") == "hand-written, even if broken\n"


def test_migrate_config_reports_failures_at_their_config_position(
    tmp_path: Path, config: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()

    [(profile_id, found)] = migrate_config(config, vault).failed

    assert profile_id == "broken"
    assert [(d.path, d.line, d.column, d.code) for d in found] == [
        (config.as_posix(), 17, 3, "field-type")
    ]
    assert found[0].message.startswith("agent_profiles.broken: ")
    assert not (vault / "agent-types" / "broken").exists()


def test_migrate_config_cli(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    args = ["--vault", str(vault), "migrate-config", str(config)]

    assert main(args) == 1  # one entry failed
    out = capsys.readouterr().out
    assert "wrote    agent-types/coding/profile.md" in out
    assert f"{config.as_posix()}:17:3: error[field-type] agent_profiles.broken:" in out

    assert main([*args, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["written"] == []
    assert [s["path"] for s in data["skipped"]] == [
        "agent-types/coding/profile.md",
        "agent-types/review/profile.md",
    ]
    assert data["failed"][0]["diagnostics"][0]["line"] == 17

    clean = tmp_path / "clean.yaml"
    clean.write_text(textwrap.dedent(CONFIG).split("  broken:")[0], encoding="utf-8")
    assert main(["--vault", str(vault), "migrate-config", str(clean)]) == 0
    assert main(["--vault", str(vault), "migrate-config", str(tmp_path / "nope.yaml")]) == 2


LEGACY_SERVERS = """\
agent_profiles:
  coding:
    name: Coding
    mcp_servers:
      github: {command: npx, args: ["-y", "@modelcontextprotocol/server-github"]}
      broken: {command: 5}
  review:
    name: Review
    mcp_servers:
      github: {command: npx, args: ["-y", "@modelcontextprotocol/server-github"]}
      docs: {url: "https://docs.example/mcp"}
  lister:
    name: Lister
    mcp_servers: [github, nowhere]
"""


def test_migrate_config_migrates_the_servers_it_points_profiles_at(tmp_path: Path) -> None:
    """Issue 13: a migrated profile never names a server the registry lacks. Inline servers
    become registry files; a profile whose server cannot be migrated is not written, and the
    diagnostic says exactly what to fix and what to run again."""
    vault = tmp_path / "vault"
    vault.mkdir()
    config = tmp_path / "config.yaml"
    config.write_text(LEGACY_SERVERS, encoding="utf-8")
    roster = str(Path(sys.executable).with_name("roster"))
    done = subprocess.run(
        [roster, "--vault", str(vault), "migrate-config", str(config), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["written"] == [
        "mcp-servers/github.md",
        "mcp-servers/docs.md",
        "agent-types/review/profile.md",
        "agent-types/lister/profile.md",
    ]
    [failed] = report["failed"]
    [problem] = failed["diagnostics"]
    assert failed["id"] == "coding" and (problem["line"], problem["column"]) == (6, 7)
    assert problem["message"].startswith(
        "agent_profiles.coding.mcp_servers.broken: not migrated ('command' must be a string)"
    )
    assert problem["hint"] == (
        f"fix the server's settings in {config}, then run: "
        f"roster --vault {vault} migrate-config {config}"
    )
    assert not (vault / "agent-types" / "coding").exists()
    [warning] = report["warnings"]
    assert "'nowhere' is not in the registry" in warning["message"]
    assert warning["hint"].startswith(f"add it: roster --vault {vault} mcp add nowhere ")
    # Every profile written names only servers the registry has (but the one warned about).
    unknown = [d for d in load_vault(vault).diagnostics if d.code == "mcp-server-unknown"]
    assert [d.message for d in unknown] == ["MCP server 'nowhere' is not in registry"]
    # Following the hint: fix the server, run again; now coding is written too.
    config.write_text(LEGACY_SERVERS.replace("{command: 5}", "{command: srv}"), encoding="utf-8")
    again = migrate_config(config, vault)
    assert again.failed == () and again.written == (
        "mcp-servers/broken.md",
        "agent-types/coding/profile.md",
    )


def test_migrate_config_never_points_at_a_conflicting_server(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "mcp-servers").mkdir(parents=True)
    (vault / "mcp-servers" / "github.md").write_text(
        "---\nname: github\ntransport: stdio\ncommand: gh-mcp\n---\n", encoding="utf-8"
    )
    config = tmp_path / "config.yaml"
    config.write_text(LEGACY_SERVERS, encoding="utf-8")
    report = migrate_config(config, vault)
    failed = dict(report.failed)
    assert set(failed) == {"coding", "review"}
    [conflict] = failed["review"]
    assert conflict.hint.startswith(
        "mcp-servers/github.md already defines a different 'github': make the two agree"
    )
    assert (vault / "mcp-servers" / "github.md").read_text(encoding="utf-8").count("gh-mcp") == 1
