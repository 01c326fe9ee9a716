"""Vault layout: classify(), safe path segments, VaultLayout builders and iter_entries()."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UnsafeNameError, VaultError
from agent_roster.vault.loader import load_vault
from agent_roster.vault.paths import (
    EntryKind,
    VaultEntry,
    VaultLayout,
    check_segment,
    classify,
    segment_problem,
)

from .helpers import spy_reads

P, M = EntryKind.PROFILE, EntryKind.MCP_SERVER
PROFILE = "---\nid: {0}\nname: {0}\n---\n## Role\nHi.\n"
SERVER = "---\ntransport: stdio\ncommand: npx\n---\n"


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("agent-types/coding/profile.md", (P, "coding", None)),
        ("projects/web/agent-types/coding/profile.md", (P, "coding", "web")),
        ("mcp-servers/github.md", (M, "github", None)),
        ("projects/web/mcp-servers/github.md", (M, "github", "web")),
        ("agent-types\\coding\\profile.md", (P, "coding", None)),
        ("projects\\web\\mcp-servers\\github.md", (M, "github", "web")),
    ],
)
def test_classify_layout_paths(rel: str, expected: tuple[EntryKind, str, str | None]) -> None:
    kind, ident, project = expected
    assert classify(rel) == VaultEntry(kind, ident, project, rel.replace("\\", "/"))


@pytest.mark.parametrize(
    "rel",
    [
        "agent-types/coding/memory/notes.md",
        "agent-types/coding/memory/profile.md",
        "agent-types/coding/sub/profile.md",
        "agent-types/profile.md",
        "agent-types/coding/profile.txt",
        "agent-types/coding/README.md",
        "templates/knowledge/coding/pitfalls.md",
        "roster.toml",
        "mcp-servers/notes.txt",
        "mcp-servers/.md",
        "mcp-servers/.github.md",
        "mcp-servers/sub/github.md",
        "agent-types/.hidden/profile.md",
        "agent-types/../profile.md",
        "agent-types/a:b/profile.md",
        "projects/../agent-types/coding/profile.md",
        "projects/.trash/agent-types/coding/profile.md",
        "projects/web/x/agent-types/coding/profile.md",
        "projects/a/projects/b/agent-types/coding/profile.md",
        "projects/web/profile.md",
        "/agent-types/coding/profile.md",
        "orchestrator/profile.md",
        "",
    ],
)
def test_classify_gives_no_meaning_outside_the_layout(rel: str) -> None:
    assert classify(rel) is None


UNSAFE = [
    ("a/b", "must not contain '/'"),
    ("a\\b", "must not contain '\\\\'"),
    ("..", "must not contain '..'"),
    ("a..b", "must not contain '..'"),
    (".", "must not contain '..'"),
    ("a:b", "must not contain ':'"),
    ("C:", "must not contain ':'"),
    ("a\x00b", "must not contain control characters"),
    ("a\nb", "must not contain control characters"),
    ("a\tb", "must not contain control characters"),
    ("a\x7f", "must not contain control characters"),
    ("a\x85b", "must not contain control characters"),
    (".obsidian", "must not start with a dot"),
    ("", "must not be empty"),
    (" coding", "must not start or end with whitespace"),
    ("coding ", "must not start or end with whitespace"),
    ("coding\u00a0", "must not start or end with whitespace"),
    ("a" * 129, "must be at most 128 characters"),
    (5, "must be a string, got int"),
    (None, "must be a string, got NoneType"),
]


@pytest.mark.parametrize(("value", "problem"), UNSAFE)
def test_unsafe_segments_are_rejected(value: object, problem: str) -> None:
    assert segment_problem(value) == problem
    with pytest.raises(UnsafeNameError) as caught:
        check_segment(value, "profile id")
    assert caught.value.message == f"profile id {value!r} {problem}"
    assert caught.value.hint == "use letters, digits, '-' and '_', for example 'code-review'"


@pytest.mark.parametrize(
    "value", ["coding", "code-review", "qa_2", "v1.2", "Agent", "é", "a" * 128]
)
def test_safe_segments_pass(value: str) -> None:
    assert segment_problem(value) is None
    assert check_segment(value) == value


def test_layout_builders(tmp_path: Path) -> None:
    layout = VaultLayout(tmp_path)
    assert layout.profile_path("coding") == tmp_path / "agent-types/coding/profile.md"
    assert layout.profile_path("coding", "web") == (
        tmp_path / "projects/web/agent-types/coding/profile.md"
    )
    assert layout.mcp_server_path("github") == tmp_path / "mcp-servers/github.md"
    assert (
        layout.mcp_server_path("github", "web") == tmp_path / "projects/web/mcp-servers/github.md"
    )
    assert layout.memory_dir("coding") == tmp_path / "agent-types/coding/memory"
    assert layout.knowledge_dir("qa") == tmp_path / "templates/knowledge/qa"
    assert layout.config_path == tmp_path / "roster.toml"
    # What a builder makes, classify reads back.
    rel = layout.relative(layout.profile_path("coding", "web"))
    assert classify(rel) == VaultEntry(P, "coding", "web", rel)


@pytest.mark.parametrize("bad", ["../etc", "a/b", ".git", "", "x:y", "a\\b"])
def test_layout_builders_refuse_unsafe_ids(tmp_path: Path, bad: str) -> None:
    layout = VaultLayout(tmp_path)
    builders = [
        lambda: layout.profile_path(bad),
        lambda: layout.profile_path("coding", bad),
        lambda: layout.mcp_server_path(bad),
        lambda: layout.mcp_server_path("github", bad),
        lambda: layout.memory_dir(bad),
        lambda: layout.knowledge_dir(bad),
    ]
    for build in builders:
        with pytest.raises(UnsafeNameError):
            build()


def test_relative_and_is_inside(tmp_path: Path) -> None:
    layout = VaultLayout(tmp_path / "vault")
    (tmp_path / "vault").mkdir()
    assert layout.relative(tmp_path / "vault/agent-types/a/profile.md") == (
        "agent-types/a/profile.md"
    )
    assert layout.is_inside(tmp_path / "vault/x")
    assert not layout.is_inside(tmp_path / "other")
    assert not layout.is_inside(tmp_path / "vault-2/x")  # a sibling sharing the prefix
    with pytest.raises(VaultError, match="is outside the vault"):
        layout.relative(tmp_path / "other/file.md")


def test_iter_entries_lists_only_layout_files(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/coding/profile.md": PROFILE.format("coding"),
            "agent-types/qa/profile.md": PROFILE.format("qa"),
            "agent-types/coding/memory/profile.md": "memory note",
            "agent-types/coding/memory/pitfalls.md": "memory note",
            "agent-types/coding/nested/profile.md": "nested",
            "agent-types/coding/.profile.md.swp": "swap",
            "agent-types/coding/profile.md~": "backup",
            "agent-types/.hidden/profile.md": "hidden",
            "agent-types/empty": {},
            ".obsidian/agent-types/x/profile.md": "editor",
            ".obsidian/workspace.json": "{}",
            "mcp-servers/github.md": SERVER,
            "mcp-servers/.github.md.swp": "swap",
            "mcp-servers/notes.txt": "text",
            "mcp-servers/old": {"x.md": SERVER},
            "projects/web/agent-types/coding/profile.md": PROFILE.format("coding"),
            "projects/web/mcp-servers/jira.md": SERVER,
            "projects/web/notes.md": "notes",
            "projects/.trash/agent-types/coding/profile.md": "trash",
            "templates/knowledge/coding/pitfalls.md": "pack",
            "roster.toml": "",
            "profile.md": "stray",
        }
    )
    skipped: list[Diagnostic] = []
    listed = [
        (s.entry.rel_path, s.entry.kind, s.entry.id, s.entry.project)
        for s in VaultLayout(root).iter_entries(skipped)
    ]
    # Each scope lists its servers before its profiles, the system scope first: the
    # loader relies on this order to check tool names against a complete registry.
    assert listed == [
        ("mcp-servers/github.md", M, "github", None),
        ("agent-types/coding/profile.md", P, "coding", None),
        ("agent-types/qa/profile.md", P, "qa", None),
        ("projects/web/mcp-servers/jira.md", M, "jira", "web"),
        ("projects/web/agent-types/coding/profile.md", P, "coding", "web"),
    ]
    # What the layout's folders hold but roster does not load is said, not skipped; hidden
    # names, memory, templates and a project's own notes are not the layout's business.
    assert [(d.path, d.code, d.severity.value) for d in skipped] == [
        ("profile.md", "layout-unknown", "warning"),
        ("mcp-servers/notes.txt", "layout-unknown", "warning"),
        ("mcp-servers/old", "layout-unknown", "warning"),
    ]


def test_iter_entries_on_a_missing_or_empty_vault(tmp_path: Path) -> None:
    assert list(VaultLayout(tmp_path / "missing").iter_entries()) == []
    assert list(VaultLayout(tmp_path).iter_entries()) == []


@pytest.fixture
def linked_vault(make_tree, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A vault with one real profile and symlinks leading outside it and inside it."""
    root = make_tree({"agent-types/coding/profile.md": PROFILE.format("coding")})
    outside = make_tree(
        {
            # Content that would produce errors if it were ever read.
            "secret.md": "---\nid: [\n",
            "dir/profile.md": "---\nid: [\n",
            "project/agent-types/x/profile.md": "---\nid: [\n",
        },
        sub="outside",
    )
    (root / "agent-types/leak").mkdir()
    (root / "agent-types/leak/profile.md").symlink_to(outside / "secret.md")
    (root / "agent-types/linkdir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "mcp-servers").mkdir()
    (root / "mcp-servers/evil.md").symlink_to(outside / "secret.md")
    (root / "projects").mkdir()
    (root / "projects/ext").symlink_to(outside / "project", target_is_directory=True)
    (root / "agent-types/alias").mkdir()
    (root / "agent-types/alias/profile.md").symlink_to(root / "agent-types/coding/profile.md")
    (root / "agent-types/twin").symlink_to(root / "agent-types/coding", target_is_directory=True)
    return root


def test_symlinks_leaving_the_vault_are_not_listed_but_named(linked_vault: Path) -> None:
    skipped: list[Diagnostic] = []
    listed = [s.entry.rel_path for s in VaultLayout(linked_vault).iter_entries(skipped)]
    assert listed == [
        "agent-types/alias/profile.md",
        "agent-types/coding/profile.md",
        "agent-types/twin/profile.md",
    ]
    # One diagnostic per link, naming the link itself (a folder link: nothing below it
    # is even listed).
    assert [(d.path, d.code) for d in skipped] == [
        ("mcp-servers/evil.md", "path-outside-vault"),
        ("agent-types/leak/profile.md", "path-outside-vault"),
        ("agent-types/linkdir", "path-outside-vault"),
        ("projects/ext", "path-outside-vault"),
    ]


def test_load_vault_reports_escaping_links_without_reading_them(
    linked_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = spy_reads(monkeypatch)
    snapshot = load_vault(linked_vault)
    assert not any("outside" in p for p in read), read
    outside = [d for d in snapshot.all_diagnostics() if d.code == "path-outside-vault"]
    assert sorted((d.path, d.line, d.column, d.severity.value) for d in outside) == [
        ("agent-types/leak/profile.md", 1, 1, "error"),
        ("agent-types/linkdir", 1, 1, "error"),
        ("mcp-servers/evil.md", 1, 1, "error"),
        ("projects/ext", 1, 1, "error"),
    ]
    leak = next(d for d in outside if d.path == "mcp-servers/evil.md")
    assert leak.message == (
        "mcp-servers/evil.md is a symlink that leads outside the vault; it was not read"
    )
    assert leak.hint == "copy the file into the vault instead of linking to it"
    assert (None, "leak") not in snapshot.profiles
    assert (None, "evil") not in snapshot.servers
    assert snapshot.files == 7
    # A link that stays inside is an ordinary file (its id must still match its folder).
    assert snapshot.profiles[(None, "coding")].ok
    alias = snapshot.profiles[(None, "alias")]
    assert [d.code for d in alias.diagnostics] == ["id-mismatch"]
