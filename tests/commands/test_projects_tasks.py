"""Projects and tasks with profile references (seed 001 "Modified Commands"), on a real
vault synced into a real SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.commands import projects
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.store import Store

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
def store(vault: Path) -> Iterator[Store]:
    with projects.open_synced(vault) as opened:
        yield opened


def test_create_project_with_a_synced_default_profile(store: Store) -> None:
    result = projects.create_project(store, "web", "Web Shop", default_profile_id="coding")
    assert result.to_dict() == {"id": "web", "name": "Web Shop", "default_profile_id": "coding"}
    assert store.get_project("web") == result.project


def test_a_missing_default_profile_is_an_error_naming_it(store: Store) -> None:
    with pytest.raises(NotFoundError) as caught:
        projects.create_project(store, "web", default_profile_id="nope")
    assert caught.value.message == "project 'web': profile 'nope' does not exist"
    assert store.get_project("web") is None


def test_an_override_id_is_not_a_system_profile(store: Store) -> None:
    with pytest.raises(NotFoundError, match="profile 'lonely' does not exist"):
        projects.create_project(store, "web", default_profile_id="lonely")


def test_edit_project_sets_keeps_and_clears_the_default(store: Store) -> None:
    projects.create_project(store, "web", default_profile_id="coding")
    assert projects.edit_project(store, "web", name="W").project.default_profile_id == "coding"
    changed = projects.edit_project(store, "web", default_profile_id="qa")
    assert changed.project.default_profile_id == "qa"
    cleared = projects.edit_project(store, "web", default_profile_id=None)
    assert cleared.to_dict() == {"id": "web", "name": "W", "default_profile_id": None}
    with pytest.raises(NotFoundError, match="project 'web': profile 'ghost' does not exist"):
        projects.edit_project(store, "web", default_profile_id="ghost")
    with pytest.raises(NotFoundError, match="project 'nope' does not exist"):
        projects.edit_project(store, "nope", default_profile_id=None)


def test_tasks_take_set_and_clear_a_profile(store: Store) -> None:
    projects.create_project(store, "web")
    created = projects.create_task(store, "t1", "web", "Fix it", profile_id="qa")
    assert created.to_dict() == {
        "id": "t1",
        "project_id": "web",
        "title": "Fix it",
        "profile_id": "qa",
    }
    assert projects.get_task(store, "t1").task.profile_id == "qa"
    assert projects.edit_task(store, "t1", title="Fix it now").task.profile_id == "qa"
    assert projects.edit_task(store, "t1", profile_id=None).task.profile_id is None
    assert projects.get_task(store, "t1").to_dict()["profile_id"] is None
    with pytest.raises(NotFoundError, match="task 't1': profile 'ghost' does not exist"):
        projects.edit_task(store, "t1", profile_id="ghost")
    with pytest.raises(NotFoundError, match="task 'nope' does not exist"):
        projects.get_task(store, "nope")
    with pytest.raises(UsageError, match="task 't1' already exists"):
        projects.create_task(store, "t1", "web")


def test_open_synced_sees_the_vault_as_it_is_now(vault: Path) -> None:
    with projects.open_synced(vault) as store:
        projects.create_project(store, "web")
    (vault / "agent-types/late/profile.md").parent.mkdir()
    (vault / "agent-types/late/profile.md").write_text("---\nid: late\nname: Late\n---\n")
    (vault / "agent-types/qa/profile.md").unlink()
    with projects.open_synced(vault) as store:
        assert projects.edit_project(store, "web", default_profile_id="late").project
        with pytest.raises(NotFoundError, match="'qa' is missing from the vault"):
            projects.create_task(store, "t", "web", profile_id="qa")


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
