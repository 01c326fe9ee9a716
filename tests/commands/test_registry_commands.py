"""The registry's own commands on the command layer directly (validate, sync, status, resolve,
can, discover, import, render), each on its happy and its error path, through the registry's
decoding as every surface calls them; and every read-only command writes nothing."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.command_samples import CLAUDE_AGENT, prepare, samples

from agent_roster.catalog import SPECS
from agent_roster.commands.context import RosterContext
from agent_roster.commands.registry import load
from agent_roster.errors import InvalidDocumentError, NotFoundError, UsageError
from agent_roster.store.engine import default_db_path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vault"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLES, target)
    return target


@pytest.fixture
def ctx(vault: Path) -> Iterator[RosterContext]:
    with RosterContext(vault) as opened:
        yield opened


def call(ctx: RosterContext, name: str, /, **raw: Any) -> Any:
    """``name`` as MCP and HTTP call it: raw parameters decoded by the registry."""
    command = load(name)
    return command.function(ctx, command.decode(raw))


def coding(vault: Path) -> Path:
    return vault / "agent-types/coding/profile.md"


def break_coding(vault: Path) -> None:
    coding(vault).write_text(coding(vault).read_text().replace('"runtime"', '"runtime",,'))


# -- decoding, the same for every command -------------------------------------------------
def test_an_unknown_or_ill_typed_parameter_is_refused_by_name(ctx: RosterContext) -> None:
    with pytest.raises(UsageError) as unknown:
        call(ctx, "resolve_profile", profil="coding")
    assert unknown.value.message == "resolve_profile has no parameter 'profil'"
    assert unknown.value.hint == "did you mean 'profile'?"
    with pytest.raises(UsageError, match=r"invalid parameters for get_status: .*\$\.events"):
        call(ctx, "get_status", events="many")
    with pytest.raises(UsageError, match=r"invalid parameters for render_to_harness"):
        call(ctx, "render_to_harness", to=[])


# -- validate -------------------------------------------------------------------------------
def test_validate_vault_reports_every_problem_with_its_place(
    ctx: RosterContext, vault: Path
) -> None:
    clean = call(ctx, "validate_vault")
    assert (clean.errors, clean.warnings, clean.diagnostics) == (0, 0, [])
    assert clean.files > 10
    break_coding(vault)
    found = call(ctx, "validate_vault")
    assert found.errors == 1
    (problem,) = found.diagnostics
    assert (problem.path, problem.line, problem.code) == (
        "agent-types/coding/profile.md",
        41,
        "json-invalid",
    )
    one = call(ctx, "validate_vault", paths=["agent-types/coding/profile.md"])
    assert (one.files, one.errors) == (1, 1)


def test_validate_vault_stays_inside_the_vault(ctx: RosterContext) -> None:
    for outside in ("../other", "/etc/passwd", ""):
        with pytest.raises(UsageError, match="is not a path inside the vault"):
            call(ctx, "validate_vault", paths=[outside])


# -- sync and status ------------------------------------------------------------------------
def test_sync_then_status(ctx: RosterContext, vault: Path) -> None:
    first = call(ctx, "sync_vault")
    assert first.written > 0 and first.failing == 0 and not first.problems
    again = call(ctx, "sync_vault")
    assert (again.written, again.unchanged) == (0, again.scanned)
    break_coding(vault)
    broken = call(ctx, "sync_vault")
    assert (broken.failed, broken.failing, broken.problems) == (1, 1, True)
    status = call(ctx, "get_status", events=5)
    assert status.problems
    (failing,) = status.failing
    assert (failing.path, failing.id) == ("agent-types/coding/profile.md", "coding")
    assert [d.code for d in failing.diagnostics] == ["json-invalid"]
    assert [e.kind for e in status.recent_events] == ["failure"]
    assert ctx.store().get_profile("coding") is not None  # the last good row stays


# -- resolve --------------------------------------------------------------------------------
def test_resolve_profile_gives_origins_and_the_launch(ctx: RosterContext) -> None:
    resolved = call(ctx, "resolve_profile", profile="coding")
    assert (resolved.level, resolved.profile_id) == ("profile", "coding")
    assert resolved.origins["model"].path == "agent-types/coding/profile.md"
    assert resolved.launch["runtime"] == "claude_sdk"
    assert resolved.command[-1] == "<prompt>"
    in_project = call(ctx, "resolve_profile", profile="coding", project="webshop")
    assert in_project.origins["max_tokens_per_task"].path.startswith("projects/webshop/")


def test_resolve_profile_refusals(ctx: RosterContext) -> None:
    with pytest.raises(UsageError, match="exactly one of"):
        call(ctx, "resolve_profile")
    with pytest.raises(UsageError, match="exactly one of"):
        call(ctx, "resolve_profile", profile="coding", task="t1")
    with pytest.raises(NotFoundError):
        call(ctx, "resolve_profile", task="nope")


# -- can ------------------------------------------------------------------------------------
def test_can_use_tool_names_the_deciding_rule(ctx: RosterContext) -> None:
    allowed = call(ctx, "can_use_tool", profile="coding", tool="Bash", argument="git status")
    assert allowed.action == "allow"
    assert allowed.rule is not None and allowed.rules[allowed.rule.index].source == (
        allowed.rule.source
    )
    denied = call(ctx, "can_use_tool", profile="coding", tool="Bash", argument="rm -rf /")
    assert denied.action == "deny"
    assert denied.rule is not None and denied.rule.source == "denied_tools"


def test_can_use_tool_refusals(ctx: RosterContext, vault: Path) -> None:
    with pytest.raises(NotFoundError) as caught:
        call(ctx, "can_use_tool", profile="codin", tool="Bash")
    assert caught.value.hint == "did you mean 'coding'?"
    with pytest.raises(UsageError, match="name the tool"):
        call(ctx, "can_use_tool", profile="coding", tool=" ")
    break_coding(vault)
    with pytest.raises(InvalidDocumentError):
        call(ctx, "can_use_tool", profile="coding", tool="Bash")


# -- discover, import, render ---------------------------------------------------------------
@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    agents = tmp_path / "ws" / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(CLAUDE_AGENT)
    return tmp_path / "ws"


def test_discover_agents_by_the_harness_rules(ctx: RosterContext, workspace: Path) -> None:
    found = call(ctx, "discover_agents", harness="claude", workspace=str(workspace), home="/x")
    assert [p["id"] for p in found.profiles] == ["helper"]
    assert found.profiles[0]["allowed_tools"] == ["Read", "Grep"]
    assert not found.refused
    with pytest.raises(UsageError) as caught:
        call(ctx, "discover_agents", harness="claud")
    assert caught.value.hint == "did you mean 'claude'?"


def test_import_from_harness_writes_through_the_vault_and_syncs(
    ctx: RosterContext, vault: Path, workspace: Path
) -> None:
    home = workspace.parent / "home"
    where = {"harness": "claude", "workspace": str(workspace), "home": str(home)}
    dry = call(ctx, "import_from_harness", **where, dry_run=True)
    assert [(f.path, f.status) for f in dry.files] == [("agent-types/helper/profile.md", "created")]
    assert not (vault / "agent-types/helper").exists() and not dry.synced
    done = call(ctx, "import_from_harness", **where)
    assert done.ok and done.synced
    assert ctx.store().get_profile("helper") is not None
    again = call(ctx, "import_from_harness", **where)
    assert [f.status for f in again.files] == ["unchanged"]
    (workspace / ".claude/agents/helper.md").write_text(CLAUDE_AGENT.replace("Help", "Aid"))
    refused = call(ctx, "import_from_harness", **where)
    assert not refused.ok
    assert [f.status for f in refused.files] == ["skipped"]
    assert [d.code for d in refused.diagnostics] == ["import-exists"]


def test_render_to_harness_writes_checks_and_refuses(ctx: RosterContext, tmp_path: Path) -> None:
    out = tmp_path / "out"
    rendered = call(ctx, "render_to_harness", to=["claude"], out=str(out), ids=["coding"])
    assert rendered.ok
    assert ("claude", str(out / ".claude/agents/coding.md"), "created") in [
        (f.harness, f.path, f.status) for f in rendered.files
    ]
    assert (out / ".claude/agents/coding.md").is_file()
    checked = call(
        ctx, "render_to_harness", to=["claude"], out=str(out), ids=["coding"], check=True
    )
    assert checked.ok and checked.changed == []
    with pytest.raises(UsageError, match="unknown harness 'claud'"):
        call(ctx, "render_to_harness", to=["claud"], out=str(out))
    with pytest.raises(NotFoundError):
        call(ctx, "render_to_harness", to=["claude"], out=str(out), ids=["nope"])


# -- reading writes nothing ------------------------------------------------------------------
def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith("roster.db")
    }


def _rows(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def test_every_read_only_command_has_a_sample() -> None:
    read_only = {spec.name for spec in SPECS if not spec.writes}
    assert read_only == set(samples(Path("/h")))


def test_read_only_commands_change_no_file_and_no_row(tmp_path: Path, vault: Path) -> None:
    home = tmp_path / "harness"
    prepare(vault, home)
    before, rows = _tree(tmp_path), _rows(default_db_path(vault))
    for name, (params, _words) in samples(home).items():
        with RosterContext(vault) as ctx:
            call(ctx, name, **params)
        assert _tree(tmp_path) == before, name
        assert _rows(default_db_path(vault)) == rows, name
