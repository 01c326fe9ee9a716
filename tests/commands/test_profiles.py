"""System profile CRUD (seed 001 "Profile CRUD") on the command layer directly: a real vault
copied from the example, its real SQLite database, and the writes going through the file."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_roster.commands import profiles as pr
from agent_roster.commands import projects
from agent_roster.commands.context import RosterContext
from agent_roster.errors import ConflictError, InvalidDocumentError, NotFoundError, UsageError
from agent_roster.vault.writer import content_hash

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


def coding(vault: Path) -> Path:
    return vault / "agent-types/coding/profile.md"


def get(ctx: RosterContext, ident: str, project: str | None = None) -> pr.ProfileFile:
    return pr.get_profile(ctx, pr.GetProfileParams(id=ident, project=project))


# -- list and get ---------------------------------------------------------------------------
def test_list_is_sorted_by_name_and_filters_by_tag(ctx: RosterContext) -> None:
    listed = pr.list_profiles(ctx, pr.ListProfilesParams()).profiles
    assert [p.name for p in listed] == sorted((p.name for p in listed), key=str.casefold)
    assert {p.id for p in listed} == {
        "code-review",
        "coding",
        "qa",
        "security-review",
        "supervisor",
        "web-developer",
    }
    tagged = pr.list_profiles(ctx, pr.ListProfilesParams(tag="coordination")).profiles
    assert [p.id for p in tagged] == ["supervisor"]


def test_get_gives_the_file_as_defined_with_its_hash(ctx: RosterContext, vault: Path) -> None:
    found = get(ctx, "coding")
    assert found.path == "agent-types/coding/profile.md"
    assert found.content_hash == content_hash(coding(vault).read_bytes())
    assert found.profile is not None and found.profile["id"] == "coding"
    assert found.ok
    override = get(ctx, "coding", "webshop")
    assert override.path == "projects/webshop/agent-types/coding/profile.md"
    assert override.profile is not None and override.profile["project"] == "webshop"


def test_get_refuses_an_unknown_id_with_a_suggestion(ctx: RosterContext) -> None:
    with pytest.raises(NotFoundError) as caught:
        get(ctx, "codin")
    assert caught.value.hint == "did you mean 'coding'?"


def test_get_of_a_broken_file_returns_its_diagnostics(ctx: RosterContext, vault: Path) -> None:
    coding(vault).write_text(coding(vault).read_text().replace('"runtime"', '"runtime",,'))
    found = get(ctx, "coding")
    assert not found.ok  # what parsed is there, flagged by the errors
    assert [(d.line, d.code) for d in found.diagnostics if d.is_error] == [(41, "json-invalid")]


# -- create ---------------------------------------------------------------------------------
def test_create_writes_the_file_and_the_database_syncs_it(ctx: RosterContext, vault: Path) -> None:
    written = pr.create_profile(
        ctx,
        pr.CreateProfileParams(
            id="docs",
            name="Docs Writer",
            tags=["docs"],
            config={"model": "claude-haiku-4-5", "max_turns": 5},
            allowed_tools=["Read", "Edit"],
            sections={"Role": "You write documentation."},
        ),
    )
    path = vault / "agent-types/docs/profile.md"
    assert written.path == "agent-types/docs/profile.md"
    assert written.content_hash == content_hash(path.read_bytes())
    assert written.synced and written.changed
    stored = ctx.store().get_profile("docs")
    assert stored is not None and (stored.name, stored.max_turns) == ("Docs Writer", 5)
    assert stored.allowed_tools == ("Read", "Edit")
    assert get(ctx, "docs").profile is not None


def test_create_refusals_write_nothing(ctx: RosterContext, vault: Path) -> None:
    with pytest.raises(UsageError, match="already exists"):
        pr.create_profile(ctx, pr.CreateProfileParams(id="coding"))
    with pytest.raises(UsageError) as unknown:
        pr.create_profile(ctx, pr.CreateProfileParams(id="x", config={"max_turn": 3}))
    assert unknown.value.hint == "did you mean 'max_turns'?"
    with pytest.raises(InvalidDocumentError) as invalid:
        pr.create_profile(ctx, pr.CreateProfileParams(id="x", config={"max_turns": -1}))
    assert [(d.path, d.code) for d in invalid.value.diagnostics] == [
        ("agent-types/x/profile.md", "field-value")
    ]
    assert not (vault / "agent-types/x").exists()


# -- edit -----------------------------------------------------------------------------------
def test_edit_patches_in_place_and_leaves_the_rest_byte_for_byte(
    ctx: RosterContext, vault: Path
) -> None:
    before = coding(vault).read_text()
    base = get(ctx, "coding").content_hash
    written = pr.edit_profile(
        ctx, pr.EditProfileParams(id="coding", base_hash=base, config={"max_turns": 7})
    )
    # The Config block gains the member; every other byte of the file stays as it was.
    assert coding(vault).read_text() == before.replace(
        '  "runtime": "claude_sdk"\n}', '  "runtime": "claude_sdk",\n  "max_turns": 7\n}'
    )
    assert written.synced and written.content_hash == content_hash(coding(vault).read_bytes())
    stored = ctx.store().get_profile("coding")
    assert stored is not None and stored.max_turns == 7


def test_edit_with_a_stale_hash_is_a_conflict_and_writes_nothing(
    ctx: RosterContext, vault: Path
) -> None:
    base = get(ctx, "coding").content_hash
    coding(vault).write_text(coding(vault).read_text() + "\nA human edit.\n")
    human = coding(vault).read_bytes()
    with pytest.raises(ConflictError) as caught:
        pr.edit_profile(
            ctx, pr.EditProfileParams(id="coding", base_hash=base, description="agent edit")
        )
    assert caught.value.kind == "conflict"
    assert coding(vault).read_bytes() == human


def test_an_edit_that_would_break_the_file_is_refused_with_its_place(
    ctx: RosterContext, vault: Path
) -> None:
    before = coding(vault).read_bytes()
    base = content_hash(before)
    with pytest.raises(InvalidDocumentError) as caught:
        pr.edit_profile(
            ctx,
            pr.EditProfileParams(id="coding", base_hash=base, config={"permission_mode": "yolo"}),
        )
    (problem,) = caught.value.diagnostics
    assert (problem.path, problem.code) == ("agent-types/coding/profile.md", "field-value")
    assert problem.line > 1 and problem.column > 1
    assert coding(vault).read_bytes() == before
    with pytest.raises(UsageError, match="nothing to change"):
        pr.edit_profile(ctx, pr.EditProfileParams(id="coding", base_hash=base))


# -- delete ---------------------------------------------------------------------------------
def test_delete_removes_the_file_and_clears_task_and_project_references(
    ctx: RosterContext, vault: Path
) -> None:
    projects.create_project(
        ctx, projects.CreateProjectParams(id="web", default_profile_id="coding")
    )
    projects.create_project(ctx, projects.CreateProjectParams(id="api", default_profile_id="qa"))
    projects.create_task(
        ctx, projects.CreateTaskParams(id="t1", project_id="web", profile_id="coding")
    )
    projects.create_task(ctx, projects.CreateTaskParams(id="t2", project_id="web", profile_id="qa"))
    base = get(ctx, "coding").content_hash
    deleted = pr.delete_profile(ctx, pr.DeleteProfileParams(id="coding", base_hash=base))
    # The folder stays: sync copied the starter knowledge into its memory/, which is kept.
    assert deleted.removed == ["agent-types/coding/profile.md"]
    assert (vault / "agent-types/coding/memory").is_dir()
    assert (deleted.cleared_tasks, deleted.cleared_projects) == (["t1"], ["web"])
    assert deleted.synced
    store = ctx.store()
    assert store.get_profile("coding", include_missing=True) is None
    assert store.get_task("t1") is not None and store.get_task("t1").profile_id is None  # type: ignore[union-attr]
    assert store.get_task("t2").profile_id == "qa"  # type: ignore[union-attr]
    assert store.get_project("web").default_profile_id is None  # type: ignore[union-attr]
    assert store.get_project("api").default_profile_id == "qa"  # type: ignore[union-attr]
    assert not coding(vault).exists()
    # The project override stays: it is a file of its own (delete_project_profile).
    assert (vault / "projects/webshop/agent-types/coding/profile.md").exists()


def test_delete_refusals_leave_the_file(ctx: RosterContext, vault: Path) -> None:
    before = coding(vault).read_bytes()
    with pytest.raises(ConflictError, match="nothing was deleted"):
        pr.delete_profile(ctx, pr.DeleteProfileParams(id="coding", base_hash="stale"))
    with pytest.raises(NotFoundError):
        pr.delete_profile(ctx, pr.DeleteProfileParams(id="nope", base_hash="x"))
    assert coding(vault).read_bytes() == before
