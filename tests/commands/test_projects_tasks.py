"""Projects and tasks with profile references (seed 001 "Modified Commands"), on a real
vault synced into a real SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands import projects
from agent_roster.commands.context import RosterContext
from agent_roster.commands.registry import encode
from agent_roster.errors import NotFoundError, UsageError

CODING = "---\nid: coding\nname: Coding Agent\n---\n## Role\nWrite code.\n"
QA = "---\nid: qa\nname: QA\n---\n## Role\nTest.\n"
OVERRIDE_ONLY = "---\nid: lonely\n---\n## Rules\nx\n"

MakeTree = Callable[..., Path]


@pytest.fixture
def vault(make_tree: MakeTree) -> Path:
    return make_tree(
        {
            "agent-types/coding/profile.md": CODING,
            "agent-types/qa/profile.md": QA,
            "projects/web/agent-types/lonely/profile.md": OVERRIDE_ONLY,
        }
    )


@pytest.fixture
def ctx(vault: Path) -> Iterator[RosterContext]:
    with RosterContext(vault) as opened:
        yield opened


def create_project(ctx: RosterContext, ident: str, name: str = "", default: str | None = None):  # type: ignore[no-untyped-def]
    params = projects.CreateProjectParams(id=ident, name=name, default_profile_id=default)
    return projects.create_project(ctx, params)


def create_task(ctx: RosterContext, ident: str, project: str, title: str = "", **kw):  # type: ignore[no-untyped-def]
    params = projects.CreateTaskParams(id=ident, project_id=project, title=title, **kw)
    return projects.create_task(ctx, params)


def edit_project(ctx: RosterContext, ident: str, **kw):  # type: ignore[no-untyped-def]
    return projects.edit_project(ctx, projects.EditProjectParams(id=ident, **kw))


def edit_task(ctx: RosterContext, ident: str, **kw):  # type: ignore[no-untyped-def]
    return projects.edit_task(ctx, projects.EditTaskParams(id=ident, **kw))


def get_task(ctx: RosterContext, ident: str):  # type: ignore[no-untyped-def]
    return projects.get_task(ctx, projects.GetTaskParams(id=ident))


def test_create_project_with_a_synced_default_profile(ctx: RosterContext) -> None:
    result = create_project(ctx, "web", "Web Shop", default="coding")
    assert encode(result) == {"id": "web", "name": "Web Shop", "default_profile_id": "coding"}
    assert ctx.store().get_project("web") == result


def test_a_missing_default_profile_is_an_error_naming_it(ctx: RosterContext) -> None:
    with pytest.raises(NotFoundError) as caught:
        create_project(ctx, "web", default="nope")
    assert caught.value.message == "project 'web': profile 'nope' does not exist"
    assert ctx.store().get_project("web") is None


def test_an_override_id_is_not_a_system_profile(ctx: RosterContext) -> None:
    with pytest.raises(NotFoundError, match="profile 'lonely' does not exist"):
        create_project(ctx, "web", default="lonely")


def test_edit_project_sets_keeps_and_clears_the_default(ctx: RosterContext) -> None:
    create_project(ctx, "web", default="coding")
    assert edit_project(ctx, "web", name="W").default_profile_id == "coding"
    changed = edit_project(ctx, "web", default_profile_id="qa")
    assert changed.default_profile_id == "qa"
    cleared = edit_project(ctx, "web", default_profile_id=None)
    assert encode(cleared) == {"id": "web", "name": "W", "default_profile_id": None}
    with pytest.raises(NotFoundError, match="project 'web': profile 'ghost' does not exist"):
        edit_project(ctx, "web", default_profile_id="ghost")
    with pytest.raises(NotFoundError, match="project 'nope' does not exist"):
        edit_project(ctx, "nope", default_profile_id=None)
    with pytest.raises(UsageError, match="nothing to change"):
        edit_project(ctx, "web")


def test_tasks_take_set_and_clear_a_profile(ctx: RosterContext) -> None:
    create_project(ctx, "web")
    created = create_task(ctx, "t1", "web", "Fix it", profile_id="qa")
    assert encode(created) == {
        "id": "t1",
        "project_id": "web",
        "title": "Fix it",
        "profile_id": "qa",
    }
    assert get_task(ctx, "t1").profile_id == "qa"
    assert edit_task(ctx, "t1", title="Fix it now").profile_id == "qa"
    assert edit_task(ctx, "t1", profile_id=None).profile_id is None
    assert encode(get_task(ctx, "t1"))["profile_id"] is None
    with pytest.raises(NotFoundError, match="task 't1': profile 'ghost' does not exist"):
        edit_task(ctx, "t1", profile_id="ghost")
    with pytest.raises(NotFoundError, match="task 'nope' does not exist"):
        get_task(ctx, "nope")
    with pytest.raises(UsageError, match="task 't1' already exists"):
        create_task(ctx, "t1", "web")
    with pytest.raises(UsageError, match="nothing to change"):
        edit_task(ctx, "t1")


def test_writes_see_the_vault_as_it_is_now(vault: Path) -> None:
    with RosterContext(vault) as ctx:
        create_project(ctx, "web")
    (vault / "agent-types/late/profile.md").parent.mkdir()
    (vault / "agent-types/late/profile.md").write_text("---\nid: late\nname: Late\n---\n")
    (vault / "agent-types/qa/profile.md").unlink()
    with RosterContext(vault) as ctx:
        assert edit_project(ctx, "web", default_profile_id="late").default_profile_id == "late"
        with pytest.raises(NotFoundError, match="'qa' is missing from the vault"):
            create_task(ctx, "t", "web", profile_id="qa")


def test_list_projects(ctx: RosterContext) -> None:
    create_project(ctx, "web")
    create_project(ctx, "api", "API")
    listed = projects.list_projects(ctx, projects.ListProjectsParams())
    assert [(p.id, p.name) for p in listed.projects] == [("api", "API"), ("web", "web")]


# -- CLI ------------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], vault: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--vault", str(vault), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_projects(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, vault, "project", "create", "web", "--default-profile", "coding")
    assert (code, out) == (0, "web  name='web'  default_profile=coding\n")
    code, _, err = run(capsys, vault, "project", "create", "x", "--default-profile", "nope")
    assert code == 2
    assert "error: project 'x': profile 'nope' does not exist" in err
    code, out, _ = run(capsys, vault, "project", "edit", "web", "--clear-default-profile", "--json")
    assert code == 0
    assert json.loads(out) == {"id": "web", "name": "web", "default_profile_id": None}
    code, _, err = run(
        capsys,
        vault,
        "project",
        "edit",
        "web",
        "--default-profile",
        "qa",
        "--clear-default-profile",
    )
    assert code == 2
    assert "not both" in err
    code, out, _ = run(capsys, vault, "project", "list", "--json")
    assert json.loads(out) == {
        "projects": [{"id": "web", "name": "web", "default_profile_id": None}]
    }


def test_cli_tasks(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, vault, "project", "create", "web")[0] == 0
    code, out, _ = run(
        capsys, vault, "task", "create", "t1", "--project", "web", "--profile", "qa", "--json"
    )
    assert code == 0
    assert json.loads(out)["profile_id"] == "qa"
    code, out, _ = run(capsys, vault, "task", "edit", "t1", "--clear-profile")
    assert (code, out) == (
        0,
        "t1  project=web  title=''  profile=(none: the project's default applies)\n",
    )
    code, out, _ = run(capsys, vault, "task", "show", "t1", "--json")
    assert json.loads(out) == {"id": "t1", "project_id": "web", "title": "", "profile_id": None}
    code, out, _ = run(capsys, vault, "task", "show", "nope", "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "not-found"
    assert run(capsys, vault, "task", "edit", "t1")[0] == 2  # nothing to change
