"""Profile CRUD (seed 001, "CRUD Methods") on both backends."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest
from sqlalchemy import text

from agent_roster.errors import NotFoundError, UnsafeNameError, UsageError
from agent_roster.model import AgentProfile, PermissionAction, PermissionRule, Runtime
from agent_roster.store import Store

Factory = Callable[..., AgentProfile]


def stamped(profile: AgentProfile, stored: AgentProfile) -> AgentProfile:
    """``profile`` with the timestamps the store filled in."""
    return msgspec.structs.replace(
        profile, created_at=stored.created_at, updated_at=stored.updated_at
    )


# -- create / get -----------------------------------------------------------------------------


def test_every_field_round_trips_exactly(store: Store, full_profile: Factory) -> None:
    profile = full_profile()

    assert store.create_profile(profile) == profile
    got = store.get_profile("coding")

    assert got == profile
    assert got is not None
    assert got.temperature == 0.30000000000000004
    assert got.max_turns == 0
    assert isinstance(got.tags, tuple)
    assert got.permission[0] == PermissionRule(
        permission="bash", pattern="git *", action=PermissionAction.ALLOW
    )
    assert got.runtime is Runtime.ACPX


def test_defaults_round_trip_and_timestamps_are_filled(
    store: Store, simple_profile: Factory
) -> None:
    profile = simple_profile("bare", name="Bare")

    created = store.create_profile(profile)

    assert created.created_at is not None
    assert created.created_at == created.updated_at
    assert store.get_profile("bare") == stamped(profile, created)
    got = store.get_profile("bare")
    assert got is not None
    assert (got.extends, got.runtime, got.temperature, got.max_tokens_per_task) == (
        None,
        None,
        None,
        None,
    )


def test_get_profile_returns_none_when_missing(store: Store) -> None:
    assert store.get_profile("nobody") is None
    assert store.get_profile("nobody", project="webshop") is None


def test_project_override_and_system_profile_coexist(store: Store, full_profile: Factory) -> None:
    system = full_profile("coding")
    override = msgspec.structs.replace(
        full_profile("coding", project="webshop"), name="Webshop coding", model="gpt-5"
    )

    store.create_profile(system)
    store.create_profile(override)

    assert store.get_profile("coding") == system
    assert store.get_profile("coding", project="webshop") == override
    assert store.list_profiles() == [system]
    assert store.list_profiles("webshop") == [override]
    assert store.list_profiles("other") == []


def test_creating_an_existing_profile_is_a_usage_error(
    store: Store, simple_profile: Factory
) -> None:
    store.create_profile(simple_profile("coding"))
    store.create_profile(simple_profile("coding", project="webshop"))

    with pytest.raises(UsageError) as info:
        store.create_profile(simple_profile("coding", name="Another"))
    assert info.value.message == "profile 'coding' already exists"
    with pytest.raises(UsageError) as info:
        store.create_profile(simple_profile("coding", project="webshop"))
    assert info.value.message == "profile 'coding' in project 'webshop' already exists"


@pytest.mark.parametrize("bad", ["a/b", "..", "a:b", "", ".hidden"])
def test_unsafe_ids_are_rejected(store: Store, simple_profile: Factory, bad: str) -> None:
    with pytest.raises(UnsafeNameError):
        store.create_profile(simple_profile(bad, name="X"))
    with pytest.raises(UnsafeNameError):
        store.create_profile(simple_profile("ok", project=bad))


# -- list -------------------------------------------------------------------------------------


def test_list_profiles_is_sorted_by_name_and_names_need_not_be_unique(
    store: Store, simple_profile: Factory
) -> None:
    # Upstream's UNIQUE(name) broke seeding (lessons, section 5): two ids may share a name.
    for profile_id, name in [("z1", "Alpha"), ("b", "Charlie"), ("a1", "Alpha"), ("c", "Bravo")]:
        store.create_profile(simple_profile(profile_id, name=name))

    listed = store.list_profiles()

    assert [(p.name, p.id) for p in listed] == [
        ("Alpha", "a1"),
        ("Alpha", "z1"),
        ("Bravo", "c"),
        ("Charlie", "b"),
    ]


# -- update -----------------------------------------------------------------------------------


def test_update_changes_only_the_given_fields(store: Store, full_profile: Factory) -> None:
    original = store.create_profile(full_profile())

    updated = store.update_profile(
        "coding",
        model="claude-sonnet",
        temperature=None,
        allowed_tools=["Read", "Grep"],
        permission=[{"permission": "bash", "action": "deny"}],
        harness={"claude": {"x": [1, {"y": None}]}},
    )

    assert updated.created_at == original.created_at
    assert updated.updated_at is not None and original.updated_at is not None
    assert updated.updated_at > original.updated_at
    expected = msgspec.structs.replace(
        original,
        model="claude-sonnet",
        temperature=None,
        allowed_tools=("Read", "Grep"),
        permission=(PermissionRule(permission="bash", action=PermissionAction.DENY),),
        harness={"claude": {"x": [1, {"y": None}]}},
        updated_at=updated.updated_at,
    )
    assert updated == expected
    assert store.get_profile("coding") == expected


def test_update_of_a_project_override_leaves_the_system_profile(
    store: Store, simple_profile: Factory
) -> None:
    system = store.create_profile(simple_profile("coding", model="a"))
    store.create_profile(simple_profile("coding", project="webshop", model="a"))

    store.update_profile("coding", project="webshop", model="b")

    assert store.get_profile("coding") == system
    override = store.get_profile("coding", project="webshop")
    assert override is not None and override.model == "b"


def test_update_rejects_unknown_fields_with_a_hint(store: Store, simple_profile: Factory) -> None:
    store.create_profile(simple_profile("coding"))

    with pytest.raises(UsageError) as info:
        store.update_profile("coding", permision_mode="x")
    assert info.value.message == "cannot update profile field(s) permision_mode"
    assert info.value.hint == "did you mean 'permission_mode'?"

    for field in ("id", "created_at", "updated_at", "content_hash"):
        with pytest.raises(UsageError):
            store.update_profile("coding", **{field: "x"})


def test_update_of_the_derived_prompt_suffix_points_at_sections(
    store: Store, simple_profile: Factory
) -> None:
    store.create_profile(simple_profile("coding"))

    with pytest.raises(UsageError) as info:
        store.update_profile("coding", system_prompt_suffix="Be brief.")
    assert (
        info.value.hint == "system_prompt_suffix is derived from `sections`; update those instead"
    )


def test_update_rejects_values_of_the_wrong_type(store: Store, simple_profile: Factory) -> None:
    before = store.create_profile(simple_profile("coding"))

    with pytest.raises(UsageError) as info:
        store.update_profile("coding", max_turns="many")
    assert info.value.message.startswith("invalid value for profile 'coding': ")
    assert "max_turns" in info.value.message
    assert store.get_profile("coding") == before


def test_update_of_a_missing_profile_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError) as info:
        store.update_profile("nobody", model="x")
    assert info.value.message == "profile 'nobody' does not exist"


# -- delete -----------------------------------------------------------------------------------


def _referenced_world(store: Store, simple_profile: Factory) -> None:
    store.create_profile(simple_profile("coding"))
    store.create_profile(simple_profile("review"))
    store.create_profile(simple_profile("coding", project="webshop"))
    store.create_project("webshop", "Webshop", default_profile_id="coding")
    store.create_project("blog", "Blog", default_profile_id="review")
    store.create_task("t1", "webshop", "uses coding", profile_id="coding")
    store.create_task("t2", "webshop", "uses review", profile_id="review")
    store.create_task("t3", "blog", "no profile")
    store.create_task("t4", "blog", "archived, used coding", profile_id="coding")
    store.archive_task("t4")


def test_delete_clears_task_and_project_references(store: Store, simple_profile: Factory) -> None:
    _referenced_world(store, simple_profile)

    assert store.delete_profile("coding") is True

    assert store.get_profile("coding") is None
    assert store.get_profile("coding", project="webshop") is not None  # its own file
    assert [(t.id, t.profile_id) for t in store.list_tasks()] == [
        ("t1", None),
        ("t2", "review"),
        ("t3", None),
    ]
    assert [(p.id, p.default_profile_id) for p in store.list_projects()] == [
        ("blog", "review"),
        ("webshop", None),
    ]
    archived = store.get_archived_task("t4")
    assert archived is not None and archived.profile_id == "coding"  # history is kept
    assert store.delete_profile("coding") is False


def test_delete_is_one_transaction(store: Store, simple_profile: Factory) -> None:
    """If the final DELETE fails, the cleared references come back: here a foreign key the
    store does not know about blocks the delete, and nothing of it may remain."""
    _referenced_world(store, simple_profile)
    with store.transaction() as conn:
        conn.execute(text("CREATE TABLE blocker (profile_id TEXT REFERENCES agent_profiles(key))"))
        conn.execute(text("INSERT INTO blocker VALUES ('coding')"))

    with pytest.raises(Exception, match=r"(?i)foreign key"):
        store.delete_profile("coding")

    assert store.get_profile("coding") is not None
    task = store.get_task("t1")
    assert task is not None and task.profile_id == "coding"
    project = store.get_project("webshop")
    assert project is not None and project.default_profile_id == "coding"


def test_deleting_an_override_leaves_references_to_the_system_profile(
    store: Store, simple_profile: Factory
) -> None:
    _referenced_world(store, simple_profile)

    assert store.delete_profile("coding", project="webshop") is True

    assert store.get_profile("coding", project="webshop") is None
    assert store.get_profile("coding") is not None
    task = store.get_task("t1")
    assert task is not None and task.profile_id == "coding"


# -- legacy '{}' --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, ()),  # column left out: the literal '{}' default applies
        ('{"github": {"command": "npx"}, "linter": {}}', ("github", "linter")),
        ('["a", 3, null, "b"]', ("a", "b")),
        ('"just a string"', ()),
        ("[]", ()),
    ],
)
def test_legacy_mcp_servers_values_are_coerced_on_read(
    store: Store, raw: str | None, expected: tuple[str, ...]
) -> None:
    columns = "key, id, name, created_at, updated_at"
    values = "'legacy', 'legacy', 'Legacy', 1.0, 2.0"
    if raw is not None:
        columns += ", mcp_servers"
        values += ", :raw"
    with store.transaction() as conn:
        conn.execute(
            text(f"INSERT INTO agent_profiles ({columns}) VALUES ({values})"), {"raw": raw}
        )
        stored = conn.execute(text("SELECT mcp_servers FROM agent_profiles")).scalar_one()
    assert stored == ("{}" if raw is None else raw)

    profile = store.get_profile("legacy")

    assert profile is not None
    assert profile.mcp_servers == expected
    assert (profile.allowed_tools, profile.install.is_empty) == ((), True)
