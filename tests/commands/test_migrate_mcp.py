"""``migrate-mcp``: legacy inline MCP configs become registry files; profiles list names."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands.migrate_mcp import migrate_mcp
from agent_roster.vault.loader import load_vault
from agent_roster.vault.mcp_parser import parse_mcp_server

F = "```"
INLINE = {
    "github": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"TOKEN": "${GH}"}},
    "docs": {"type": "http", "url": "https://docs/mcp", "headers": {"X-Key": "k"}},
}

MakeTree = Callable[..., Path]


def legacy(ident: str, servers: object, *, project: bool = False) -> str:
    head = f"---\nid: {ident}\n---\n" if project else f"---\nid: {ident}\nname: {ident}\n---\n"
    return (
        head + "\n## MCP Servers\n\nKept prose.\n\n"
        f"{F}json\n{json.dumps(servers, indent=2)}\n{F}\n\n## Rules\n\nStay.\n"
    )


def names_block(text: str) -> str:
    return text.split(f"{F}json\n")[1].split(f"\n{F}")[0]


@pytest.fixture
def vault(make_tree: MakeTree) -> Path:
    return make_tree({"agent-types/coding/profile.md": legacy("coding", INLINE)})


def test_inline_servers_move_to_registry_files_and_the_profile_lists_names(vault: Path) -> None:
    before = (vault / "agent-types/coding/profile.md").read_text()
    report = migrate_mcp(vault)
    assert report.written == ("mcp-servers/github.md", "mcp-servers/docs.md")
    assert report.profiles == ("agent-types/coding/profile.md",)
    assert (report.skipped, report.failed) == ((), ())
    after = (vault / "agent-types/coding/profile.md").read_text()
    assert after == before.replace(names_block(before), '["github", "docs"]')
    github = (vault / "mcp-servers/github.md").read_text()
    assert github == (
        "---\nname: github\ntransport: stdio\ncommand: npx\nargs:\n- -y\n- gh-mcp\n"
        "env:\n  TOKEN: ${GH}\n---\n\n"
        "Migrated by `roster migrate-mcp` from agent-types/coding/profile.md.\n"
    )
    docs = parse_mcp_server((vault / "mcp-servers/docs.md").read_bytes(), expected_name="docs")
    assert docs.ok and docs.server is not None
    assert (docs.server.transport.value, docs.server.headers) == ("http", {"X-Key": "k"})
    codes = {d.code for d in load_vault(vault).all_diagnostics()}
    assert not codes & {"mcp-inline-deprecated", "mcp-server-unknown"}


def test_running_again_finds_nothing_to_do(vault: Path) -> None:
    migrate_mcp(vault)
    snapshot = {p: p.read_bytes() for p in vault.rglob("*.md")}
    report = migrate_mcp(vault)
    assert report.to_dict() == {
        "dry_run": False,
        "written": [],
        "skipped": [],
        "failed": [],
        "profiles": [],
        "secrets": [],
    }
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == snapshot


def test_dry_run_reports_the_same_and_writes_nothing(vault: Path) -> None:
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}
    dry = migrate_mcp(vault, dry_run=True)
    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before
    real = migrate_mcp(vault)
    assert dry._replace(dry_run=False) == real


def test_an_identical_existing_file_is_kept_and_counts_as_migrated(vault: Path) -> None:
    existing = (
        "---\nname: docs\ntransport: http\nurl: https://docs/mcp\n"
        "headers:\n  X-Key: k\n---\nMine.\n"
    )
    (vault / "mcp-servers").mkdir()
    (vault / "mcp-servers/docs.md").write_text(existing)
    report = migrate_mcp(vault)
    assert report.skipped == (("mcp-servers/docs.md", "already in the registry (the same server)"),)
    assert report.profiles == ("agent-types/coding/profile.md",)
    assert (vault / "mcp-servers/docs.md").read_text() == existing


def test_a_conflicting_file_is_never_clobbered_and_the_profile_keeps_its_config(
    vault: Path,
) -> None:
    other = "---\nname: docs\ntransport: http\nurl: https://elsewhere/mcp\n---\n"
    (vault / "mcp-servers").mkdir()
    (vault / "mcp-servers/docs.md").write_text(other)
    before = (vault / "agent-types/coding/profile.md").read_text()
    report = migrate_mcp(vault)
    assert report.written == ("mcp-servers/github.md",)
    assert report.skipped == (
        (
            "mcp-servers/docs.md",
            "conflict: it differs from the inline config in agent-types/coding/profile.md",
        ),
    )
    assert report.failed == (
        (
            "agent-types/coding/profile.md",
            "left unchanged, its inline config kept: 'docs' (conflict with mcp-servers/docs.md)",
        ),
    )
    assert report.profiles == ()
    assert (vault / "mcp-servers/docs.md").read_text() == other
    assert (vault / "agent-types/coding/profile.md").read_text() == before


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"command": "npx", "args": ["--port", 8080]}, "'args' must be a list of strings"),
        ({"command": "npx", "cwd": "/tmp"}, "unknown key(s) 'cwd'"),
        ("npx -y thing", "must be an object"),
        ({"args": ["x"]}, "no transport: give 'type' (stdio, http, sse), or 'command' or 'url'"),
        ({"type": "smoke"}, "transport 'smoke' is not one of stdio, http, sse"),
        ({"type": "stdio", "url": "https://x"}, "a stdio server needs 'command'"),
    ],
)
def test_a_malformed_entry_is_reported_and_its_name_not_left_dangling(
    make_tree: MakeTree,
    config: object,
    reason: str,
) -> None:
    vault = make_tree({"agent-types/coding/profile.md": legacy("coding", {"bad": config})})
    before = (vault / "agent-types/coding/profile.md").read_text()
    report = migrate_mcp(vault)
    where, message = report.failed[0]
    assert where == "agent-types/coding/profile.md: 'bad'"
    assert reason in message
    assert report.failed[1] == (
        "agent-types/coding/profile.md",
        "left unchanged, its inline config kept: 'bad' (malformed)",
    )
    assert report.written == () and report.profiles == ()
    assert (vault / "agent-types/coding/profile.md").read_text() == before


def test_overrides_migrate_into_their_project_scope(make_tree: MakeTree) -> None:
    same = {"github": INLINE["github"]}
    different = {"github": {"command": "npx", "args": ["gh-enterprise"]}}
    vault = make_tree(
        {
            "agent-types/coding/profile.md": legacy("coding", same),
            "projects/a/agent-types/coding/profile.md": legacy("coding", same, project=True),
            "projects/b/agent-types/coding/profile.md": legacy("coding", different, project=True),
        }
    )
    report = migrate_mcp(vault)
    assert report.written == ("mcp-servers/github.md", "projects/b/mcp-servers/github.md")
    assert report.skipped == (
        ("projects/a/mcp-servers/github.md", "not needed: the system entry is the same server"),
    )
    assert len(report.profiles) == 3 and report.failed == ()


def test_the_embedded_name_needs_no_file(make_tree: MakeTree) -> None:
    servers = {"agent-queue": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}
    vault = make_tree({"agent-types/coding/profile.md": legacy("coding", servers)})
    report = migrate_mcp(vault)
    assert report.written == () and report.profiles == ("agent-types/coding/profile.md",)
    assert '["agent-queue"]' in (vault / "agent-types/coding/profile.md").read_text()


def test_config_yaml_inline_servers_become_system_entries(vault: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "agent_profiles:\n"
        "  reviewer:\n"
        "    mcp_servers:\n"
        "      linter: {command: eslint-mcp}\n"
        "      github: {command: npx, args: [-y, gh-mcp], env: {TOKEN: '${GH}'}}\n"
        "  listed:\n"
        "    mcp_servers: [github]\n"
    )
    report = migrate_mcp(vault, config=config)
    assert report.written == (
        "mcp-servers/linter.md",
        "mcp-servers/github.md",
        "mcp-servers/docs.md",
    )
    assert report.skipped == (
        ("mcp-servers/github.md", "already in the registry (the same server)"),
    )
    again = migrate_mcp(vault, config=config)
    assert again.written == () and len(again.skipped) == 2


def test_cli(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--vault", str(vault), "migrate-mcp", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines() == [
        "would write mcp-servers/github.md",
        "would write mcp-servers/docs.md",
        "would edit  agent-types/coding/profile.md",
    ]
    code = main(["--vault", str(vault), "migrate-mcp", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["profiles"] == ["agent-types/coding/profile.md"]
    (vault / "agent-types/bad/").mkdir()
    (vault / "agent-types/bad/profile.md").write_text(legacy("bad", {"x": "y"}))
    assert main(["--vault", str(vault), "migrate-mcp"]) == 1


def test_a_literal_secret_is_written_as_a_reference_and_reported(make_tree: MakeTree) -> None:
    """Issue 13 item 4: nothing literal goes into the vault, migrate-mcp included."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    servers = {"github": {"command": "npx", "args": ["gh-mcp"], "env": {"GITHUB_TOKEN": token}}}
    vault = make_tree({"agent-types/coding/profile.md": legacy("coding", servers)})
    report = migrate_mcp(vault)
    text = (vault / "mcp-servers/github.md").read_text()
    assert token not in text
    assert "GITHUB_TOKEN: ${GITHUB_TOKEN}" in text
    [(path, note)] = report.secrets
    assert path == "mcp-servers/github.md"
    assert "env GITHUB_TOKEN" in note and "set GITHUB_TOKEN" in note
    assert report.to_dict()["secrets"] == [{"path": path, "note": note}]
