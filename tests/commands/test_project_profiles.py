"""Project-scoped profile commands (seed 001): list, create, edit, delete, show effective."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_roster.cli import main
from agent_roster.commands import project_profiles as pp
from agent_roster.commands.context import RosterContext
from agent_roster.commands.registry import encode
from agent_roster.commands.sync import open_store
from agent_roster.commands.writes import current_hash
from agent_roster.errors import (
    ConflictError,
    InvalidDocumentError,
    NotFoundError,
    UnsafeNameError,
    UsageError,
)
from agent_roster.sync.engine import SyncEngine
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.profile_parser import parse_profile

MakeTree = Callable[..., Path]
F = "```"
BASE = f"""---
id: base
name: Base
---
## Role
Base role.

## Config
{F}json
{{"permission_mode": "plan", "max_turns": 10}}
{F}

## Install
{F}json
{{"npm": ["eslint"]}}
{F}
"""
CODING = f"""---
id: coding
name: Coding Agent
extends: base
tags: [engineering]
---
## Role
Write code.

## Config
{F}json
{{"max_tokens_per_task": 1000}}
{F}

## Tools
{F}json
{{"allowed": ["Read", "Bash"]}}
{F}

## MCP Servers
{F}json
["github"]
{F}

## Rules
Be careful.
"""
OVERRIDE = f"""---
id: coding
---

# webshop notes the user wrote

## Config

The webshop is big.

{F}json
{{
  "max_tokens_per_task": 5000
}}
{F}

## Rules

Webshop rules.
"""
ROSTER = '[defaults]\nmodel = "claude-sonnet-4-6"\nruntime = "claude_sdk"\n'
SERVER = "---\nname: github\ntransport: stdio\ncommand: npx\n---\n"


@pytest.fixture
def vault(make_tree: MakeTree) -> Path:
    return make_tree(
        {
            "roster.toml": ROSTER,
            "mcp-servers/github.md": SERVER,
            "agent-types/base/profile.md": BASE,
            "agent-types/coding/profile.md": CODING,
            "projects/web/agent-types/coding/profile.md": OVERRIDE,
            "projects/web/agent-types/lonely/profile.md": "---\nid: lonely\n---\n## Rules\nx\n",
        }
    )


def override(vault: Path, ident: str = "coding") -> Path:
    return vault / "projects" / "web" / "agent-types" / ident / "profile.md"


# The commands as a caller uses them: a context on the vault, parameters by name.
def list_pp(vault: Path, project: str) -> pp.ProjectProfiles:
    with RosterContext(vault) as ctx:
        return pp.list_project_profiles(ctx, pp.ListProjectProfilesParams(project=project))


def create(vault: Path, project: str, agent_type: str, seed: bool = False) -> pp.Written:
    params = pp.CreateProjectProfileParams(
        project=project, agent_type=agent_type, seed_from_global=seed
    )
    with RosterContext(vault) as ctx:
        return pp.create_project_profile(ctx, params)


def base_of(vault: Path, project: str, agent_type: str) -> str:
    path = VaultLayout(vault).profile_path(agent_type, project)
    return current_hash(VaultLayout(vault), path) if path.exists() else ""


def edit(vault: Path, project: str, agent_type: str, **fields: Any) -> pp.Written:
    fields.setdefault("base_hash", base_of(vault, project, agent_type))
    params = pp.EditProjectProfileParams(project=project, agent_type=agent_type, **fields)
    with RosterContext(vault) as ctx:
        return pp.edit_project_profile(ctx, params)


def delete(vault: Path, project: str, agent_type: str, base: str | None = None) -> pp.Removed:
    params = pp.DeleteProjectProfileParams(
        project=project,
        agent_type=agent_type,
        base_hash=base_of(vault, project, agent_type) if base is None else base,
    )
    with RosterContext(vault) as ctx:
        return pp.delete_project_profile(ctx, params)


def show(vault: Path, project: str, agent_type: str) -> pp.EffectiveProfile:
    params = pp.ShowEffectiveProfileParams(project=project, agent_type=agent_type)
    with RosterContext(vault) as ctx:
        return pp.show_effective_profile(ctx, params)


# -- list -----------------------------------------------------------------------------------
def test_list_gives_every_agent_type_its_status(vault: Path) -> None:
    result = list_pp(vault, "web")
    assert [tuple(encode(r).values()) for r in result.agent_types] == [
        ("base", "inherit", "agent-types/base/profile.md", None),
        (
            "coding",
            "override",
            "agent-types/coding/profile.md",
            "projects/web/agent-types/coding/profile.md",
        ),
        ("lonely", "no-default", None, "projects/web/agent-types/lonely/profile.md"),
    ]
    assert [r.status for r in list_pp(vault, "other").agent_types] == [
        "inherit",
        "inherit",
    ]
    with pytest.raises(UnsafeNameError, match=re.escape("project id '../x' must not contain '..'")):
        list_pp(vault, "../x")


# -- create ---------------------------------------------------------------------------------
def test_create_writes_a_partial_profile_and_refuses_an_existing_one(vault: Path) -> None:
    result = create(vault, "web", "base")
    assert result.path == "projects/web/agent-types/base/profile.md"
    assert result.seeded == []
    assert result.synced and result.content_hash == base_of(vault, "web", "base")
    text = override(vault, "base").read_text()
    assert text.startswith("---\nid: base\n---\n\n# base (web override)\n")
    parsed = parse_profile(text, expected_id="base", project="web")
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.fields_set == frozenset()  # inherits everything
    with pytest.raises(UsageError, match="already exists"):
        create(vault, "web", "base")


def test_seeding_copies_the_settings_of_the_merged_chain_but_not_prose_or_defaults(
    vault: Path,
) -> None:
    result = create(vault, "other", "coding", seed=True)
    assert result.seeded == [
        "permission_mode",
        "max_tokens_per_task",
        "max_turns",
        "allowed_tools",
        "mcp_servers",
        "install.npm",
    ]
    text = (vault / result.path).read_text()
    parsed = parse_profile(text, expected_id="coding", project="other")
    assert parsed.ok and parsed.profile is not None
    profile = parsed.profile
    assert (profile.permission_mode, profile.max_turns, profile.max_tokens_per_task) == (
        "plan",
        10,
        1000,
    )
    assert profile.model == ""  # roster.toml's default keeps applying through the cascade
    assert profile.sections == ()  # the prompt keeps following the global profile
    assert profile.mcp_servers == ("github",)
    assert profile.install.npm == ("eslint",)


def test_seeding_needs_a_clean_system_profile(vault: Path) -> None:
    with pytest.raises(
        NotFoundError, match=re.escape("agent-types/codng/profile.md: it does not exist")
    ):
        create(vault, "web", "codng", seed=True)
    (vault / "agent-types/base/profile.md").write_text(BASE.replace('"plan"', '"nope"'))
    with pytest.raises(InvalidDocumentError) as caught:
        create(vault, "web", "base", seed=True)
    assert [d.code for d in caught.value.diagnostics] == ["field-value"]
    assert not override(vault, "base").exists()


# -- edit -----------------------------------------------------------------------------------
def test_edit_patches_the_override_in_place(vault: Path) -> None:
    result = edit(
        vault,
        "web",
        "coding",
        config={
            "max_tokens_per_task": None,
            "permission_mode": "acceptEdits",
            "model": "claude-opus-4-1",
        },
        sections={"Rules": "New rules."},
        allowed_tools=["Read"],
    )
    assert result.synced and result.content_hash == base_of(vault, "web", "coding")
    assert result.changed and result.path == "projects/web/agent-types/coding/profile.md"
    assert override(vault).read_text() == (
        f"---\nid: coding\n---\n\n# webshop notes the user wrote\n\n## Config\n\n"
        f'The webshop is big.\n\n{F}json\n{{\n  "permission_mode": "acceptEdits",\n'
        f'  "model": "claude-opus-4-1"\n}}\n{F}\n\n'
        f'## Tools\n\n{F}json\n{{\n  "allowed": ["Read"]\n}}\n{F}\n\n'
        "## Rules\n\nNew rules.\n"
    )


def test_edit_refusals(vault: Path) -> None:
    before = override(vault).read_bytes()
    with pytest.raises(UsageError) as caught:
        edit(vault, "web", "coding", config={"max_turn": 1})
    assert caught.value.message == "'max_turn' is not a Config key"
    assert caught.value.hint == "did you mean 'max_turns'?"
    with pytest.raises(UsageError, match="nothing to change"):
        edit(vault, "web", "coding")
    with pytest.raises(InvalidDocumentError, match="would leave errors") as invalid:
        edit(vault, "web", "coding", config={"max_turns": -1})
    # The exact place in the file the edit would have written: the new member, line 14.
    assert [(d.path, d.line, d.code) for d in invalid.value.diagnostics] == [
        ("projects/web/agent-types/coding/profile.md", 14, "field-value")
    ]
    with pytest.raises(NotFoundError, match="project 'web' has no override of 'base'"):
        edit(vault, "web", "base", config={"model": "m"})
    with pytest.raises(ConflictError, match="changed since it was read; nothing was written"):
        edit(vault, "web", "coding", config={"model": "m"}, base_hash="stale")
    assert override(vault).read_bytes() == before
    assert not override(vault, "base").exists()


# -- delete ---------------------------------------------------------------------------------
def test_delete_removes_the_file_and_nothing_brings_it_back(vault: Path) -> None:
    with open_store(vault) as store:
        engine = SyncEngine(store, vault)
        # The original's flat legacy layout brought deleted overrides back; such a path
        # has no meaning in ours (':' is not a safe segment), so it can never sync.
        flat = vault / "agent-types" / "project:web:coding" / "profile.md"
        flat.parent.mkdir()
        flat.write_text(OVERRIDE)
        engine.sync()
        assert store.get_profile("coding", "web") is not None
        removed = delete(vault, "web", "coding")
        assert removed.removed == [
            "projects/web/agent-types/coding/profile.md",
            "projects/web/agent-types/coding/",
        ]
        assert removed.synced
        assert store.get_profile("coding", "web") is None  # the delete synced it
        for _ in range(2):  # a full rescan with a fresh engine does not resurrect it
            SyncEngine(store, vault).sync()
        assert store.get_profile("coding", "web") is None
        assert store.get_profile("coding") is not None
    assert not override(vault).exists()
    assert show(vault, "web", "coding").status == "inherit"
    with pytest.raises(NotFoundError, match="has no override of 'coding'"):
        delete(vault, "web", "coding")


def test_delete_refuses_a_stale_hash_and_keeps_the_file(vault: Path) -> None:
    before = override(vault).read_bytes()
    with pytest.raises(ConflictError, match="changed since it was read; nothing was deleted"):
        delete(vault, "web", "coding", base="stale")
    assert override(vault).read_bytes() == before


def test_delete_keeps_a_folder_that_holds_other_files(vault: Path) -> None:
    (override(vault).parent / "notes.md").write_text("mine")
    removed = delete(vault, "web", "coding")
    assert removed.removed == ["projects/web/agent-types/coding/profile.md"]
    assert (override(vault).parent / "notes.md").read_text() == "mine"


def test_delete_of_the_last_override_removes_the_empty_agent_types_folder(vault: Path) -> None:
    delete(vault, "web", "coding")
    removed = delete(vault, "web", "lonely")
    assert removed.removed[-1] == "projects/web/agent-types/"
    assert (vault / "projects/web").is_dir()


# -- show -----------------------------------------------------------------------------------
def test_show_merges_override_system_chain_and_defaults_with_origins(vault: Path) -> None:
    shown = show(vault, "web", "coding")
    assert shown.status == "override"
    assert (shown.system_path, shown.override_path) == (
        "agent-types/coding/profile.md",
        "projects/web/agent-types/coding/profile.md",
    )
    profile = shown.profile
    assert (profile["max_tokens_per_task"], profile["permission_mode"], profile["model"]) == (
        5000,
        "plan",
        "claude-sonnet-4-6",
    )
    assert profile["role"] == "Write code." and profile["rules"] == "Webshop rules."
    origins = {k: (v.path, v.section) for k, v in shown.origins.items()}
    over = "projects/web/agent-types/coding/profile.md"
    assert origins["max_tokens_per_task"] == (over, "Config")
    assert origins["permission_mode"] == ("agent-types/base/profile.md", "Config")
    assert origins["model"] == ("roster.toml", "[defaults]")
    assert origins["sections.Rules"] == (over, "## Rules")
    assert origins["sections.Role"] == ("agent-types/coding/profile.md", "## Role")
    assert [s["name"] for s in shown.servers] == ["github"]
    assert shown.warnings == [] and shown.diagnostics == []
    data = encode(shown)
    assert data["status"] == "override"
    assert data["origins"]["model"] == {"path": "roster.toml", "section": "[defaults]"}


def test_show_statuses_and_missing(vault: Path) -> None:
    assert show(vault, "web", "base").status == "inherit"
    lonely = show(vault, "web", "lonely")
    assert (lonely.status, lonely.system_path) == ("no-default", None)
    with pytest.raises(NotFoundError) as caught:
        show(vault, "web", "codin")
    assert caught.value.hint == "did you mean 'coding'?"


def test_show_leaves_a_broken_override_out_and_says_so(vault: Path) -> None:
    override(vault).write_text(OVERRIDE.replace('"max_tokens_per_task": 5000', '"max_turns": 0'))
    shown = show(vault, "web", "coding")
    assert shown.status == "inherit"
    assert shown.profile["max_tokens_per_task"] == 1000
    assert [d.code for d in shown.diagnostics] == ["field-value"]
    assert shown.warnings[0].startswith(
        "projects/web/agent-types/coding/profile.md has errors and is left out"
    )


def test_show_warns_about_an_unknown_mcp_server(vault: Path) -> None:
    (vault / "mcp-servers/github.md").unlink()
    shown = show(vault, "web", "coding")
    assert shown.servers == []
    assert any("'github'" in w for w in shown.warnings)


# -- CLI ------------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], vault: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--vault", str(vault), "project-profile", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_list_create_edit_show_delete(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, vault, "list", "web")
    assert code == 0
    assert out.splitlines()[1].split() == [
        "coding",
        "override",
        "projects/web/agent-types/coding/profile.md",
    ]
    code, out, _ = run(capsys, vault, "create", "web", "base", "--seed", "--json")
    assert code == 0
    assert json.loads(out)["seeded"] == ["permission_mode", "max_turns", "install.npm"]
    code, out, _ = run(
        capsys,
        vault,
        "edit",
        "web",
        "base",
        "--set",
        "max_turns=3",
        "--set",
        "model=opus",
        "--unset",
        "permission_mode",
    )
    assert (code, out) == (0, "edited   projects/web/agent-types/base/profile.md\n")
    code, out, _ = run(capsys, vault, "show", "web", "base", "--json")
    data = json.loads(out)
    assert (data["profile"]["max_turns"], data["profile"]["model"]) == (3, "opus")
    assert data["origins"]["permission_mode"]["path"] == "agent-types/base/profile.md"
    code, _, err = run(capsys, vault, "edit", "web", "base", "--set", "max_turns=-1")
    assert code == 2
    assert "error[field-value] Config 'max_turns' must be a positive integer" in err
    assert "would leave errors; nothing was written" in err
    code, out, _ = run(capsys, vault, "delete", "web", "base")
    assert code == 0
    assert out.splitlines()[0] == "removed  projects/web/agent-types/base/profile.md"
    code, out, _ = run(capsys, vault, "show", "web", "nope", "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "not-found"
