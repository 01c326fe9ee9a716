"""Projects and tasks (seed 001, "Task Extension" and "Project Extension")."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from agent_roster.errors import NotFoundError, UnsafeNameError, UsageError
from agent_roster.model import AgentProfile
from agent_roster.store import Project, Store, Task

Factory = Callable[..., AgentProfile]


@pytest.fixture
def world(store: Store, simple_profile: Factory) -> Store:
    store.create_profile(simple_profile("coding"))
    store.create_profile(simple_profile("review"))
    store.create_profile(simple_profile("only-here", project="webshop"))
    return store


# -- projects ---------------------------------------------------------------------------------


def test_projects_are_created_got_and_listed(world: Store) -> None:
    assert world.create_project("webshop", "Web shop", default_profile_id="coding") == Project(
        id="webshop", name="Web shop", default_profile_id="coding"
    )
    world.create_project("blog")

    assert world.get_project("webshop") == Project(
        id="webshop", name="Web shop", default_profile_id="coding"
    )
    assert world.get_project("nope") is None
    assert world.list_projects() == [
        Project(id="blog"),
        Project(id="webshop", name="Web shop", default_profile_id="coding"),
    ]


def test_a_project_default_must_name_an_existing_system_profile(world: Store) -> None:
    with pytest.raises(NotFoundError) as info:
        world.create_project("webshop", default_profile_id="ghost")
    assert info.value.message == "project 'webshop': profile 'ghost' does not exist"
    assert world.get_project("webshop") is None

    # A profile that exists only as a project override is not a system profile.
    with pytest.raises(NotFoundError) as info:
        world.create_project("webshop", default_profile_id="only-here")
    assert info.value.message == "project 'webshop': profile 'only-here' does not exist"


def test_edit_project_changes_given_fields_and_none_clears(world: Store) -> None:
    world.create_project("webshop", "Web shop", default_profile_id="coding")

    assert world.edit_project("webshop", default_profile_id="review") == Project(
        id="webshop", name="Web shop", default_profile_id="review"
    )
    assert world.edit_project("webshop", name="Shop") == Project(
        id="webshop", name="Shop", default_profile_id="review"
    )
    assert world.edit_project("webshop", default_profile_id=None) == Project(
        id="webshop", name="Shop"
    )
    assert world.get_project("webshop") == Project(id="webshop", name="Shop")
    assert world.edit_project("webshop") == Project(id="webshop", name="Shop")


def test_edit_project_errors(world: Store) -> None:
    world.create_project("webshop", default_profile_id="coding")

    with pytest.raises(NotFoundError) as info:
        world.edit_project("webshop", default_profile_id="ghost")
    assert info.value.message == "project 'webshop': profile 'ghost' does not exist"
    project = world.get_project("webshop")
    assert project is not None and project.default_profile_id == "coding"

    with pytest.raises(NotFoundError) as info:
        world.edit_project("nope", name="x")
    assert info.value.message == "project 'nope' does not exist"


def test_project_ids_are_unique_and_safe(world: Store) -> None:
    world.create_project("webshop")
    with pytest.raises(UsageError) as info:
        world.create_project("webshop")
    assert info.value.message == "project 'webshop' already exists"
    with pytest.raises(UnsafeNameError):
        world.create_project("../etc")


# -- tasks ------------------------------------------------------------------------------------


def test_tasks_are_created_got_listed_and_edited(world: Store) -> None:
    world.create_project("webshop")
    world.create_project("blog")

    assert world.create_task("t2", "webshop", "Checkout", profile_id="coding") == Task(
        id="t2", project_id="webshop", title="Checkout", profile_id="coding"
    )
    world.create_task("t1", "blog", "Post")

    assert world.get_task("t2") == Task(
        id="t2", project_id="webshop", title="Checkout", profile_id="coding"
    )
    assert world.get_task("nope") is None
    assert [t.id for t in world.list_tasks()] == ["t1", "t2"]
    assert [t.id for t in world.list_tasks("webshop")] == ["t2"]

    assert world.edit_task("t2", profile_id="review").profile_id == "review"
    assert world.edit_task("t2", title="Pay").profile_id == "review"  # left out: unchanged
    assert world.edit_task("t2", profile_id=None) == Task(
        id="t2", project_id="webshop", title="Pay"
    )
    assert world.get_task("t2") == Task(id="t2", project_id="webshop", title="Pay")


def test_task_profile_and_project_must_exist(world: Store) -> None:
    world.create_project("webshop")

    with pytest.raises(NotFoundError) as info:
        world.create_task("t1", "webshop", profile_id="ghost")
    assert info.value.message == "task 't1': profile 'ghost' does not exist"
    with pytest.raises(NotFoundError) as info:
        world.create_task("t1", "nowhere")
    assert info.value.message == "project 'nowhere' does not exist"
    assert world.list_tasks() == []

    world.create_task("t1", "webshop", profile_id="coding")
    with pytest.raises(NotFoundError) as info:
        world.edit_task("t1", profile_id="only-here")
    assert info.value.message == "task 't1': profile 'only-here' does not exist"
    task = world.get_task("t1")
    assert task is not None and task.profile_id == "coding"
    with pytest.raises(NotFoundError) as info:
        world.edit_task("nope", title="x")
    assert info.value.message == "task 'nope' does not exist"
    with pytest.raises(UsageError) as info:
        world.create_task("t1", "webshop")
    assert info.value.message == "task 't1' already exists"


def test_the_database_enforces_the_foreign_keys_too(world: Store) -> None:
    """The checks above give clear messages; the constraints stop any other writer."""
    world.create_project("webshop")
    with pytest.raises(IntegrityError), world.transaction() as conn:
        conn.execute(
            text("INSERT INTO tasks (id, project_id, profile_id) VALUES ('t', 'webshop', 'ghost')")
        )
    with pytest.raises(IntegrityError), world.transaction() as conn:
        conn.execute(text("INSERT INTO tasks (id, project_id) VALUES ('t', 'nowhere')"))
    with pytest.raises(IntegrityError), world.transaction() as conn:
        # A scoped key is not a system profile id: the CHECK keeps keys and ids in step.
        conn.execute(
            text(
                "INSERT INTO agent_profiles (key, id, project, name, created_at, updated_at) "
                "VALUES ('webshop/x', 'x', NULL, 'X', 0, 0)"
            )
        )


def test_archive_moves_a_task_and_keeps_its_profile_id(world: Store) -> None:
    world.create_project("webshop")
    world.create_task("t1", "webshop", "Done", profile_id="coding")

    archived = world.archive_task("t1")

    assert archived == Task(id="t1", project_id="webshop", title="Done", profile_id="coding")
    assert world.get_task("t1") is None
    assert world.get_archived_task("t1") == archived
    assert world.get_archived_task("t2") is None
    with pytest.raises(NotFoundError):
        world.archive_task("t1")
    # The archive has no foreign key: deleting the profile leaves history alone.
    world.delete_profile("coding")
    assert world.get_archived_task("t1") == archived
