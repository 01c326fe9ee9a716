"""load_vault: cross-file checks (MCP server names by scope, extends) and the known-tools
registry built from the vault's MCP servers."""

from __future__ import annotations

import os
from pathlib import Path

from agent_roster.diagnostics import Diagnostic
from agent_roster.vault import loader
from agent_roster.vault.loader import load_vault, locate_vault

from .helpers import FENCE, check_shape

SERVER = "---\ntransport: stdio\ncommand: npx\n---\n"


def profile(ident: str, *body: str, extends: str | None = None, name: bool = True) -> str:
    head = f"---\nid: {ident}\n" + ("name: N\n" if name else "")
    head += f"extends: {extends}\n" if extends else ""
    return head + "---\n" + "".join(line + "\n" for line in body)


def mcp(*names: str) -> tuple[str, ...]:
    quoted = ", ".join(f'"{n}"' for n in names)
    return ("## MCP Servers", FENCE + "json", f"[{quoted}]", FENCE)


def diagnostics(root: Path) -> list[Diagnostic]:
    snapshot = load_vault(root)
    found = snapshot.all_diagnostics()
    for d in found:
        check_shape([d], d.path)
    return found


def summary(root: Path) -> list[tuple[str, int, int, str, str]]:
    return sorted((d.path, d.line, d.column, d.code, d.message) for d in diagnostics(root))


def test_mcp_server_names_are_checked_against_the_registry_by_scope(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "mcp-servers/github.md": SERVER,
            "projects/web/mcp-servers/jira.md": SERVER,
            "agent-types/coding/profile.md": profile("coding", *mcp("github", "jira")),
            "projects/web/agent-types/coding/profile.md": profile(
                "coding", *mcp("github", "jira"), name=False
            ),
            "projects/api/agent-types/coding/profile.md": profile(
                "coding", *mcp("jira", "agent-queue"), name=False
            ),
        }
    )
    assert summary(root) == [
        (
            "agent-types/coding/profile.md",
            7,
            12,
            "mcp-server-unknown",
            "MCP server 'jira' is not in registry",
        ),
        (
            "projects/api/agent-types/coding/profile.md",
            6,
            2,
            "mcp-server-unknown",
            "MCP server 'jira' is not in this project's or the system registry",
        ),
    ]
    warning = next(d for d in diagnostics(root) if d.code == "mcp-server-unknown")
    assert (warning.severity.value, warning.hint) == (
        "warning",
        "add mcp-servers/jira.md, or remove the name",
    )


def test_unknown_names_in_the_legacy_inline_form_are_located_at_their_key(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/coding/profile.md": profile(
                "coding",
                "## MCP Servers",
                FENCE + "json",
                "{",
                '  "nowhere": {"command": "x"}',
                "}",
                FENCE,
            )
        }
    )
    assert [(d.line, d.column, d.code) for d in diagnostics(root)] == [
        (7, 1, "mcp-inline-deprecated"),
        (8, 3, "mcp-server-unknown"),
    ]


def test_tools_of_vault_servers_are_known_in_their_scope(make_tree) -> None:  # type: ignore[no-untyped-def]
    tools = ("## Tools", FENCE + "json", '{"allowed": ["Read", "mcp__jira__search"]}', FENCE)
    root = make_tree(
        {
            "projects/web/mcp-servers/jira.md": SERVER,
            "agent-types/coding/profile.md": profile("coding", *tools),
            "projects/web/agent-types/coding/profile.md": profile("coding", *tools, name=False),
        }
    )
    assert summary(root) == [
        (
            "agent-types/coding/profile.md",
            7,
            22,
            "tool-unknown",
            "tool 'mcp__jira__search' is not a known tool",
        ),
    ]


def test_extends_must_name_an_existing_profile(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/base/profile.md": profile("base"),
            "agent-types/coding/profile.md": profile("coding", extends="base"),
            "agent-types/qa/profile.md": profile("qa", extends="nobody"),
        }
    )
    found = diagnostics(root)
    assert [(d.path, d.line, d.column, d.severity.value, d.code) for d in found] == [
        ("agent-types/qa/profile.md", 4, 1, "error", "field-value")
    ]
    assert found[0].message == "'extends' names 'nobody', which is not a profile in this vault"
    assert found[0].hint == "name an existing agent-types/<id>"


def test_extends_cycle_is_reported_once_with_its_chain(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/a/profile.md": profile("a", extends="b"),
            "agent-types/b/profile.md": profile("b", extends="c"),
            "agent-types/c/profile.md": profile("c", extends="a"),
            "agent-types/x/profile.md": profile("x", extends="a"),  # leads into it, not part of it
            "agent-types/p/profile.md": profile("p", extends="q"),
            "agent-types/q/profile.md": profile("q", extends="p"),
            "agent-types/0lead/profile.md": profile("0lead", extends="q"),  # sorts first
        }
    )
    found = sorted(diagnostics(root), key=lambda d: d.path)
    assert [(d.path, d.line, d.code, d.message) for d in found] == [
        ("agent-types/a/profile.md", 4, "field-value", "'extends' forms a cycle: a → b → c → a"),
        ("agent-types/p/profile.md", 4, "field-value", "'extends' forms a cycle: p → q → p"),
    ]
    assert found[0].hint == "one profile in the cycle must not extend another"


def test_snapshot_contents(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "mcp-servers/github.md": SERVER,
            "mcp-servers/broken.md": "---\ntransport: [\n---\n",
            "agent-types/coding/profile.md": profile("coding", "## Role", "Hi"),
            "projects/web/agent-types/coding/profile.md": profile("coding", name=False),
            "agent-types/coding/memory/notes.md": "not a profile",
        }
    )
    snapshot = load_vault(root)
    assert set(snapshot.profiles) == {(None, "coding"), ("web", "coding")}
    assert set(snapshot.servers) == {(None, "github"), (None, "broken")}
    assert snapshot.files == 4
    assert snapshot.profiles[("web", "coding")].profile.project == "web"  # type: ignore[union-attr]
    assert snapshot.profiles[(None, "coding")].profile.source == "agent-types/coding/profile.md"  # type: ignore[union-attr]
    assert [d.code for d in snapshot.all_diagnostics()] == ["yaml-invalid"]


def test_unreadable_file_is_reported(make_tree, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = make_tree({"agent-types/coding/profile.md": profile("coding")})
    real = loader._read_file

    def deny(path: str, size: int) -> bytes:
        if os.path.basename(path) == "profile.md":
            raise PermissionError(13, "Permission denied")
        return real(path, size)

    monkeypatch.setattr(loader, "_read_file", deny)
    found = diagnostics(root)
    assert [(d.path, d.code, d.message) for d in found] == [
        (
            "agent-types/coding/profile.md",
            "file-unreadable",
            "cannot read agent-types/coding/profile.md: Permission denied",
        )
    ]


def test_example_vault_has_no_errors() -> None:
    root = Path(__file__).resolve().parents[2] / "examples" / "vault"
    errors = [d.format() for d in load_vault(root).all_diagnostics() if d.is_error]
    assert errors == []


def test_locate_vault(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {
            "agent-types/qa/profile.md": profile("qa"),
            "projects/web/agent-types/qa/profile.md": profile("qa", name=False),
            "projects/web/mcp-servers/jira.md": SERVER,
        }
    ).resolve()
    assert locate_vault(root / "agent-types/qa/profile.md") == (root, "agent-types/qa/profile.md")
    # A project override belongs to the outer vault, not to a vault rooted at projects/web.
    assert locate_vault(root / "projects/web/agent-types/qa/profile.md") == (
        root,
        "projects/web/agent-types/qa/profile.md",
    )
    assert locate_vault(root / "projects/web/mcp-servers/jira.md") == (
        root,
        "projects/web/mcp-servers/jira.md",
    )
    assert locate_vault(root / "notes.md") is None


def test_locate_vault_inside_a_folder_called_projects(make_tree) -> None:  # type: ignore[no-untyped-def]
    # ~/projects/my-vault/agent-types/qa/profile.md: "projects" is just the user's folder.
    base = make_tree(
        {"projects/my-vault/agent-types/qa/profile.md": profile("qa")}, sub="home"
    ).resolve()
    assert locate_vault(base / "projects/my-vault/agent-types/qa/profile.md") == (
        base / "projects/my-vault",
        "agent-types/qa/profile.md",
    )
