"""MCP server registry CRUD (seed 001 "MCP Server Registry")."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_roster.cli import main
from agent_roster.commands import mcp_registry as reg
from agent_roster.commands.context import RosterContext
from agent_roster.commands.registry import encode, load
from agent_roster.commands.writes import current_hash
from agent_roster.errors import (
    ConflictError,
    InvalidDocumentError,
    NotFoundError,
    UnsafeNameError,
    UsageError,
)
from agent_roster.vault.paths import VaultLayout

GITHUB = """---
name: github
transport: stdio
command: npx   # the runner
args: ["-y", "@modelcontextprotocol/server-github"]
env:
  GITHUB_TOKEN: "${GITHUB_TOKEN}"
---

# github

Notes the user wrote.
"""
LOCAL_GITHUB = "---\nname: github\ntransport: http\nurl: https://gh.internal/mcp\n---\n"
DB = "---\nname: db\ntransport: stdio\ncommand: pg-mcp\nenv:\n  PGPASSWORD: hunter2\n---\n"
ROSTER = '[embedded_server]\nname = "roster"\n'

MakeTree = Callable[..., Path]


def profile(ident: str, servers: str, *, project: bool = False) -> str:
    head = f"---\nid: {ident}\n---\n" if project else f"---\nid: {ident}\nname: {ident}\n---\n"
    return head + f"## MCP Servers\n```json\n{servers}\n```\n"


@pytest.fixture
def vault(make_tree: MakeTree) -> Path:
    return make_tree(
        {
            "roster.toml": ROSTER,
            "mcp-servers/github.md": GITHUB,
            "mcp-servers/roster.md": DB.replace("name: db", "name: roster"),
            "mcp-servers/broken.md": "---\nname: broken\ntransport: carrier-pigeon\n---\n",
            "projects/web/mcp-servers/github.md": LOCAL_GITHUB,
            "projects/web/mcp-servers/db.md": DB,
        }
    )


# The commands as a caller uses them: a context on the vault, parameters by name.
def list_(vault: Path, project: str | None = None) -> reg.ServerList:
    with RosterContext(vault) as ctx:
        return reg.list_mcp_servers(ctx, reg.ListMcpServersParams(project=project))


def get(vault: Path, name: str, project: str | None = None) -> reg.ServerRow:
    with RosterContext(vault) as ctx:
        return reg.get_mcp_server(ctx, reg.GetMcpServerParams(name=name, project=project))


def create(vault: Path, name: str, **settings: Any) -> reg.ServerWritten:
    with RosterContext(vault) as ctx:
        return reg.create_mcp_server(ctx, reg.CreateMcpServerParams(name=name, **settings))


def base_of(vault: Path, name: str, project: str | None) -> str:
    path = VaultLayout(vault).mcp_server_path(name, project)
    return current_hash(VaultLayout(vault), path) if path.exists() else ""


def edit(vault: Path, name: str, project: str | None = None, **raw: Any) -> reg.ServerWritten:
    """Through the registry's decoding, as the MCP and HTTP surfaces call it."""
    raw.setdefault("base_hash", base_of(vault, name, project))
    params = load("edit_mcp_server").decode({"name": name, "project": project, **raw})
    with RosterContext(vault) as ctx:
        return reg.edit_mcp_server(ctx, params)


def delete(
    vault: Path, name: str, project: str | None = None, base: str | None = None
) -> reg.ServerRemoved:
    params = reg.DeleteMcpServerParams(
        name=name,
        project=project,
        base_hash=base_of(vault, name, project) if base is None else base,
    )
    with RosterContext(vault) as ctx:
        return reg.delete_mcp_server(ctx, params)


# -- list and get ---------------------------------------------------------------------------
def test_list_marks_builtin_shadowed_and_invalid_entries(vault: Path) -> None:
    rows = list_(vault, "web").servers
    assert [(r.name, r.scope, r.active, r.shadowed_by) for r in rows] == [
        ("roster", "builtin", True, None),
        ("broken", "system", False, None),
        ("db", "project", True, None),
        ("github", "project", True, None),
        ("github", "system", False, "project"),
        ("roster", "system", False, "builtin"),
    ]
    assert [d.code for d in rows[1].diagnostics] == ["field-value"]
    assert rows[0].server is not None and rows[0].server["builtin"]
    assert rows[0].content_hash is None  # nothing to edit
    assert rows[3].content_hash == base_of(vault, "github", "web")
    system_only = list_(vault).servers
    assert [(r.name, r.scope) for r in system_only] == [
        ("roster", "builtin"),
        ("broken", "system"),
        ("github", "system"),
        ("roster", "system"),
    ]


def test_every_result_has_its_secrets_masked(vault: Path) -> None:
    rows = encode(list_(vault, "web"))["servers"]
    db = next(r for r in rows if r["name"] == "db")
    assert db["server"]["env"] == {"PGPASSWORD": "***"}
    github = next(r for r in rows if r["name"] == "github" and r["scope"] == "system")
    assert github["server"]["env"] == {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}  # a reference
    assert get(vault, "db", "web").server == db["server"]
    assert "hunter2" not in json.dumps(encode(get(vault, "db", "web")))


def test_get_resolves_project_first_then_system_then_builtin(vault: Path) -> None:
    assert get(vault, "github", "web").path == "projects/web/mcp-servers/github.md"
    assert get(vault, "github", "other").path == "mcp-servers/github.md"
    assert get(vault, "roster").scope == "builtin"
    broken = get(vault, "broken")
    assert broken.server is None and broken.diagnostics
    with pytest.raises(NotFoundError) as caught:
        get(vault, "githb")
    assert caught.value.message == "no MCP server 'githb' in the registry"
    assert caught.value.hint == "did you mean 'github'?"
    with pytest.raises(NotFoundError, match="registry of project 'other' or the system"):
        get(vault, "db", "other")


# -- create ---------------------------------------------------------------------------------
def test_create_writes_a_file_that_parses(vault: Path) -> None:
    row = create(vault, "lint", command="npx", args=["-y", "eslint-mcp"], env={"A": "1"})
    assert row.path == "mcp-servers/lint.md"
    assert (vault / "mcp-servers/lint.md").read_text() == (
        "---\nname: lint\ntransport: stdio\ncommand: npx\nargs:\n- -y\n- eslint-mcp\n"
        "env:\n  A: '1'\n---\n"
    )
    assert row.synced and row.content_hash == base_of(vault, "lint", None)
    web = create(vault, "docs", url="https://d/mcp", project="web")
    assert web.path == "projects/web/mcp-servers/docs.md"
    assert web.server is not None and web.server["project"] == "web"
    assert web.server["transport"] == "http"  # a URL alone means HTTP


def test_create_refusals(vault: Path) -> None:
    with pytest.raises(UsageError, match="'roster' is the built-in embedded server"):
        create(vault, "roster", transport="http", url="https://x")
    with pytest.raises(UsageError, match=re.escape("mcp-servers/github.md already exists")):
        create(vault, "github", transport="stdio", command="npx")
    with pytest.raises(
        UnsafeNameError, match=re.escape("server name '../evil' must not contain '..'")
    ):
        create(vault, "../evil", transport="stdio", command="x")
    with pytest.raises(UsageError, match="transport 'htp' is not one of stdio, http, sse"):
        create(vault, "x", transport="htp", url="https://x")
    with pytest.raises(InvalidDocumentError) as caught:
        create(vault, "x", transport="stdio", url="https://x")
    assert [d.code for d in caught.value.diagnostics] == ["field-required", "field-value"]
    assert not (vault / "mcp-servers/x.md").exists()


# -- edit -----------------------------------------------------------------------------------
def test_edit_patches_keys_in_place(vault: Path) -> None:
    row = edit(vault, "github", args=["-y", "gh-mcp@2"], description="GitHub")
    assert row.server is not None and row.server["args"] == ["-y", "gh-mcp@2"]
    assert row.synced and row.content_hash == base_of(vault, "github", None)
    assert (vault / "mcp-servers/github.md").read_text() == GITHUB.replace(
        'args: ["-y", "@modelcontextprotocol/server-github"]', "args: [-y, gh-mcp@2]"
    ).replace('"${GITHUB_TOKEN}"\n---', '"${GITHUB_TOKEN}"\ndescription: GitHub\n---')
    edit(vault, "github", env=None)
    assert "env" not in (vault / "mcp-servers/github.md").read_text()


def test_edit_refusals_leave_the_file_untouched(vault: Path) -> None:
    before = (vault / "mcp-servers/github.md").read_bytes()
    with pytest.raises(UsageError) as caught:
        edit(vault, "github", comand="x")
    assert caught.value.message == "edit_mcp_server has no parameter 'comand'"
    assert caught.value.hint == "did you mean 'command'?"
    with pytest.raises(InvalidDocumentError) as invalid:
        edit(vault, "github", transport="http")
    assert "would leave errors" in invalid.value.message
    with pytest.raises(UsageError, match="nothing to change"):
        edit(vault, "github")
    with pytest.raises(UsageError, match="built-in embedded server; it cannot be edited"):
        edit(vault, "roster", url="https://x")
    with pytest.raises(NotFoundError) as missing:
        edit(vault, "github", "other", command="x")
    assert missing.value.hint.startswith("the system entry exists")
    with pytest.raises(ConflictError, match="changed since it was read; nothing was written"):
        edit(vault, "github", command="x", base_hash="stale")
    assert (vault / "mcp-servers/github.md").read_bytes() == before


def test_edit_can_fix_a_broken_entry(vault: Path) -> None:
    row = edit(vault, "broken", transport="stdio", command="x")
    assert row.active and row.diagnostics == []


# -- delete ---------------------------------------------------------------------------------
def test_delete_refuses_while_profiles_resolve_to_it(vault: Path) -> None:
    (vault / "agent-types/coding").mkdir(parents=True)
    (vault / "agent-types/coding/profile.md").write_text(profile("coding", '["github"]'))
    (vault / "projects/shop/agent-types/qa").mkdir(parents=True)
    (vault / "projects/shop/agent-types/qa/profile.md").write_text(
        profile("qa", '["github"]', project=True)
    )
    with pytest.raises(UsageError) as caught:
        delete(vault, "github")
    assert caught.value.message == (
        "cannot delete MCP server 'github': 2 profile file(s) still use it: "
        "coding (agent-types/coding/profile.md); "
        "qa in project 'shop' (projects/shop/agent-types/qa/profile.md)"
    )
    assert (vault / "mcp-servers/github.md").exists()
    # web has its own github: references there do not count against the system entry.
    (vault / "agent-types/coding/profile.md").unlink()
    (vault / "projects/shop/agent-types/qa/profile.md").unlink()
    (vault / "projects/web/agent-types/qa").mkdir(parents=True)
    (vault / "projects/web/agent-types/qa/profile.md").write_text(
        profile("qa", '["github"]', project=True)
    )
    removed = delete(vault, "github")
    assert removed.removed == ["mcp-servers/github.md"]
    assert removed.synced


def test_delete_refuses_a_stale_hash(vault: Path) -> None:
    with pytest.raises(ConflictError, match="changed since it was read; nothing was deleted"):
        delete(vault, "github", base="stale")
    assert (vault / "mcp-servers/github.md").read_text() == GITHUB


def test_project_delete_falls_back_to_the_system_entry(vault: Path) -> None:
    (vault / "agent-types/coding").mkdir(parents=True)
    (vault / "agent-types/coding/profile.md").write_text(profile("coding", '["github"]'))
    result = delete(vault, "github", "web")
    assert result.falls_back_to == "mcp-servers/github.md"
    assert result.removed == ["projects/web/mcp-servers/github.md"]


def test_project_delete_refuses_for_effective_profiles_of_that_project(vault: Path) -> None:
    (vault / "agent-types/coding").mkdir(parents=True)
    (vault / "agent-types/coding/profile.md").write_text(profile("coding", '["db"]'))
    with pytest.raises(UsageError, match=r"coding in project 'web' \(agent-types/coding"):
        delete(vault, "db", "web")
    # An override that replaces the list stops the inherited reference in that project.
    (vault / "projects/web/agent-types/coding").mkdir(parents=True)
    (vault / "projects/web/agent-types/coding/profile.md").write_text(
        profile("coding", "[]", project=True)
    )
    assert delete(vault, "db", "web").removed == ["projects/web/mcp-servers/db.md"]


def test_delete_refuses_the_builtin_and_missing_entries(vault: Path) -> None:
    with pytest.raises(UsageError, match="'roster' is the built-in embedded server"):
        delete(vault, "roster")
    with pytest.raises(NotFoundError, match=re.escape("mcp-servers/nope.md does not exist")):
        delete(vault, "nope")


def test_delete_removes_an_emptied_project_folder(vault: Path) -> None:
    delete(vault, "github", "web")
    removed = delete(vault, "db", "web").removed
    assert removed == ["projects/web/mcp-servers/db.md", "projects/web/mcp-servers/"]


# -- CLI ------------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], vault: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--vault", str(vault), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_add_show_edit_remove(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "mcp-servers/broken.md").unlink()
    code, out, _ = run(
        capsys,
        vault,
        "mcp",
        "add",
        "lint",
        "--transport",
        "stdio",
        "--command",
        "npx",
        "--arg",
        "-y",
        "--arg",
        "eslint-mcp",
        "--env",
        "API_TOKEN=s3cret",
        "--allow-literal-secret",  # refused without it (issue 13 item 4)
    )
    assert (code, out) == (0, "created  mcp-servers/lint.md\n")
    code, out, _ = run(capsys, vault, "mcp", "show", "lint")
    assert code == 0
    assert "npx -y eslint-mcp" in out and "API_TOKEN=***" in out and "s3cret" not in out
    code, out, _ = run(capsys, vault, "mcp", "show", "lint", "--json")
    assert json.loads(out)["server"]["env"] == {"API_TOKEN": "***"}
    code, out, _ = run(capsys, vault, "mcp", "edit", "lint", "--unset", "env", "--json")
    assert code == 0 and json.loads(out)["server"]["env"] == {}
    code, _, err = run(capsys, vault, "mcp", "edit", "lint", "--transport", "http")
    assert code == 2 and "error[field-required] an http server needs 'url'" in err
    code, out, _ = run(capsys, vault, "mcp", "list", "--project", "web", "--json")
    assert code == 0
    assert [r["name"] for r in json.loads(out)["servers"]][:2] == ["roster", "db"]
    assert run(capsys, vault, "mcp", "remove", "lint")[:2] == (0, "removed  mcp-servers/lint.md\n")
    code, _, err = run(capsys, vault, "mcp", "remove", "roster")
    assert code == 2 and "built-in embedded server" in err
    code, out, _ = run(capsys, vault, "mcp", "add", "web", "--url", "https://w", "--json")
    assert json.loads(out)["server"]["transport"] == "http"


def test_cli_list_exits_one_when_an_entry_is_invalid(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, vault, "mcp", "list")
    assert code == 1
    assert "broken               system   invalid" in out
