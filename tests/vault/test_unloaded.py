"""Nothing in the vault's layout is skipped without a word (issue 12 item 6): every file in a
layout folder that roster does not load is a diagnostic saying why, in validate, and in the
render and import reports (sync and status: tests/sync/test_vault_boundary.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands.discover import import_agents
from agent_roster.commands.harness import render_agents
from agent_roster.vault.loader import load_vault

PROFILE = "---\nid: {0}\nname: {0}\ndescription: d\n---\n## Role\nHi.\n"
SERVER = "---\ntransport: stdio\ncommand: npx\n---\n"


def _unloaded(vault: Path) -> list[tuple[str, str, str]]:
    return [(d.path, d.code, d.severity.value) for d in load_vault(vault).unloaded]


def test_an_unsafe_folder_name_is_an_error_naming_the_file(
    make_tree,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seen on main: "0 files checked: 0 errors, 0 warnings — ok"."""
    vault = make_tree({"agent-types/a:b/profile.md": PROFILE.format("x")})
    code = main(["validate", str(vault)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines()[0].endswith(
        "vault/agent-types/a:b/profile.md:1:1: error[name-unsafe] agent-types/a:b/profile.md "
        "is not loaded: the folder name 'a:b' must not contain ':'"
    )
    assert "1 file checked: 1 errors, 0 warnings — FAILED" in out


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        # Unsafe names, folders and files, in every scope.
        (
            {"agent-types/my..agent/profile.md": PROFILE.format("x")},
            [("agent-types/my..agent/profile.md", "name-unsafe", "error")],
        ),
        (
            {"agent-types/ spaced/memory/notes.md": "n"},
            [("agent-types/ spaced", "name-unsafe", "error")],
        ),
        (
            {"mcp-servers/git:hub.md": SERVER},
            [("mcp-servers/git:hub.md", "name-unsafe", "error")],
        ),
        (
            {"projects/web:2/agent-types/coding/profile.md": PROFILE.format("coding")},
            [("projects/web:2/agent-types", "name-unsafe", "error")],
        ),
        (
            {"projects/web/agent-types/a:b/profile.md": PROFILE.format("x")},
            [("projects/web/agent-types/a:b/profile.md", "name-unsafe", "error")],
        ),
        # A wrong extension where a profile or a server was expected.
        (
            {"agent-types/coding/profile.markdown": PROFILE.format("coding")},
            [("agent-types/coding/profile.markdown", "layout-unknown", "warning")],
        ),
        (
            {"agent-types/coding/Profile.md": PROFILE.format("coding")},
            [("agent-types/coding/Profile.md", "layout-unknown", "warning")],
        ),
        (
            {"mcp-servers/github.json": "{}"},
            [("mcp-servers/github.json", "layout-unknown", "warning")],
        ),
        # profile.md at the wrong depth.
        (
            {"profile.md": PROFILE.format("x")},
            [("profile.md", "layout-unknown", "warning")],
        ),
        (
            {"agent-types/coding.md": PROFILE.format("coding")},
            [("agent-types/coding.md", "layout-unknown", "warning")],
        ),
        (
            {"agent-types/team/coding/profile.md": PROFILE.format("coding")},
            [("agent-types/team/coding/profile.md", "layout-unknown", "warning")],
        ),
        (
            {"projects/web/profile.md": PROFILE.format("x")},
            [("projects/web/profile.md", "layout-unknown", "warning")],
        ),
        (
            {"mcp-servers/more/github.md": SERVER},
            [("mcp-servers/more", "layout-unknown", "warning")],
        ),
        # Unreadable: a folder where the file should be.
        (
            {"agent-types/coding/profile.md/x": "x"},
            [("agent-types/coding/profile.md", "file-unreadable", "error")],
        ),
        (
            {"mcp-servers/github.md/x": "x"},
            [("mcp-servers/github.md", "file-unreadable", "error")],
        ),
        (
            {"agent-types": "a file where the folder should be"},
            [("agent-types", "layout-unknown", "warning")],
        ),
    ],
    ids=lambda value: next(iter(value)) if isinstance(value, dict) else "",
)
def test_every_file_not_loaded_says_why(
    make_tree,  # type: ignore[no-untyped-def]
    tree: dict[str, str],
    expected: list[tuple[str, str, str]],
) -> None:
    vault = make_tree({**tree, "roster.toml": ""})
    assert _unloaded(vault) == expected


def test_what_is_left_alone_on_purpose(make_tree) -> None:  # type: ignore[no-untyped-def]
    # Hidden names (editors, Obsidian, roster's own temporary files), memory, a profile
    # folder's other files, templates, and a project folder's own notes.
    vault = make_tree(
        {
            "agent-types/coding/profile.md": PROFILE.format("coding"),
            "agent-types/coding/README.md": "notes beside the profile",
            "agent-types/coding/memory/profile.md": "an agent's note",
            "agent-types/.trash/profile.md": "deleted",
            "agent-types/.DS_Store": "x",
            "agent-types/old/memory/notes.md": "memory kept after the profile went",
            "mcp-servers/.github.md.123.0.tmp": "half-written",
            "projects/web/notes.md": "project notes",
            "projects/README.md": "index",
            "projects/.archive/agent-types/x/profile.md": "archived",
            "templates/knowledge/coding/x.md": "pack",
            "orchestrator/profile.md": "outside the layout",
        }
    )
    assert _unloaded(vault) == []


def test_the_retired_flat_override_layout_points_at_the_new_one(make_tree) -> None:  # type: ignore[no-untyped-def]
    vault = make_tree({"agent-types/project:web:coding/profile.md": PROFILE.format("coding")})
    (found,) = load_vault(vault).unloaded
    assert found.hint == "a project override lives at projects/web/agent-types/coding/profile.md"


def test_special_files_and_broken_links_are_unreadable_and_never_block(make_tree) -> None:  # type: ignore[no-untyped-def]
    vault = make_tree({"agent-types/coding": {}, "agent-types/qa": {}, "mcp-servers": {}})
    os.mkfifo(vault / "agent-types/coding/profile.md")  # reading it would block
    (vault / "agent-types/qa/profile.md").symlink_to(vault / "nowhere.md")
    os.mkfifo(vault / "mcp-servers/pipe.md")
    found = load_vault(vault).unloaded
    assert [(d.path, d.code, d.message) for d in found] == [
        (
            "mcp-servers/pipe.md",
            "file-unreadable",
            "cannot read mcp-servers/pipe.md: not a regular file",
        ),
        (
            "agent-types/coding/profile.md",
            "file-unreadable",
            "cannot read agent-types/coding/profile.md: it is not a regular file",
        ),
        (
            "agent-types/qa/profile.md",
            "file-unreadable",
            "cannot read agent-types/qa/profile.md: it is a symlink to nothing",
        ),
    ]


def test_control_characters_in_names_are_escaped(make_tree) -> None:  # type: ignore[no-untyped-def]
    vault = make_tree({"agent-types/a\nb/profile.md": PROFILE.format("x")})
    (found,) = load_vault(vault).unloaded
    assert found.path == "agent-types/a\\nb/profile.md"
    assert "\n" not in found.message


def test_render_and_import_reports_carry_them(make_tree, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vault = make_tree(
        {
            "agent-types/coding/profile.md": PROFILE.format("coding"),
            "agent-types/a:b/profile.md": PROFILE.format("x"),
            "agent-types/stray.md": "x",
        }
    )
    expected = [
        ("agent-types/a:b/profile.md", "name-unsafe"),
        ("agent-types/stray.md", "layout-unknown"),
    ]
    report = render_agents(vault, ["claude"], out=tmp_path / "ws")
    assert [(d.path, d.code) for d in report.diagnostics] == expected
    assert (tmp_path / "ws/.claude/agents/coding.md").is_file()  # the rest is rendered
    imported = import_agents(
        vault, "claude", workspace=tmp_path / "ws", home=tmp_path / "h", dry_run=True
    )
    assert [(d.path, d.code) for d in imported.diagnostics][:2] == expected
