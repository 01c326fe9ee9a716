"""What sync uses: batched upserts, presence, pruning and per-row sync state."""

from __future__ import annotations

import threading
from collections.abc import Callable

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_roster.errors import NotFoundError
from agent_roster.model import AgentProfile, PromptSection, Runtime
from agent_roster.store import ProfileState, Store, SyncedProfile

Factory = Callable[..., AgentProfile]


def test_upsert_inserts_then_replaces_and_keeps_created_at(
    store: Store, simple_profile: Factory
) -> None:
    first = simple_profile("coding", model="a", source="agent-types/coding/profile.md")
    assert store.upsert_profiles([SyncedProfile(first, "hash-1")], synced_at=10.0) == 1
    inserted = store.get_profile("coding")
    assert inserted is not None and inserted.created_at is not None

    second = simple_profile("coding", model="b", source="agent-types/coding/profile.md")
    store.upsert_profiles([SyncedProfile(second, "hash-2")], synced_at=20.0)

    replaced = store.get_profile("coding")
    assert replaced is not None
    assert replaced.model == "b"
    assert replaced.created_at == inserted.created_at
    assert replaced.updated_at is not None and replaced.updated_at >= inserted.created_at
    assert store.profile_states() == [
        ProfileState("coding", None, "agent-types/coding/profile.md", "hash-2", True, 20.0)
    ]


def test_upsert_replaces_every_field(
    store: Store, full_profile: Factory, simple_profile: Factory
) -> None:
    full = full_profile()
    store.upsert_profiles([full])

    store.upsert_profiles([simple_profile("coding", name="Plain")])

    got = store.get_profile("coding")
    assert got is not None
    assert got == msgspec.structs.replace(
        simple_profile("coding", name="Plain"),
        created_at=full.created_at,
        updated_at=got.updated_at,
    )


def test_ten_thousand_profiles_upsert_in_one_call(store: Store) -> None:
    def generate(model: str) -> list[SyncedProfile]:
        return [
            SyncedProfile(
                AgentProfile(
                    id=f"p{i:05d}",
                    name=f"Profile {9999 - i:05d}",
                    model=model,
                    project=None if i % 10 else f"proj{i % 7}",
                    tags=(f"t{i % 3}",),
                    temperature=i / 10_000,
                    sections=(PromptSection(heading="Role", body=f"Role {i}"),),
                    source=f"agent-types/p{i:05d}/profile.md",
                ),
                f"hash-{model}-{i}",
            )
            for i in range(10_000)
        ]

    assert store.upsert_profiles(generate("m1"), synced_at=1.0) == 10_000
    system = store.list_profiles()
    assert len(system) == 9_000
    assert [p.name for p in system] == sorted(p.name for p in system)
    assert len(store.list_profiles("proj3")) == sum(
        1 for i in range(10_000) if i % 10 == 0 and i % 7 == 3
    )
    sample = store.get_profile("p01234")
    assert sample is not None
    assert (sample.name, sample.temperature, sample.role) == ("Profile 08765", 0.1234, "Role 1234")

    assert store.upsert_profiles(generate("m2"), synced_at=2.0) == 10_000
    states = store.profile_states()
    assert len(states) == 10_000
    assert {s.content_hash.split("-")[1] for s in states} == {"m2"}
    again = store.get_profile("p01234")
    assert again is not None
    assert (again.model, again.created_at) == ("m2", sample.created_at)


def test_missing_rows_stop_resolving_but_keep_their_references(
    store: Store, simple_profile: Factory
) -> None:
    store.upsert_profiles([simple_profile("coding"), simple_profile("review")])
    store.create_project("webshop", default_profile_id="coding")
    store.create_task("t1", "webshop", profile_id="coding")

    assert store.set_profiles_present([("coding", None)], False) == 1
    assert store.set_profiles_present([("coding", None)], False) == 0

    assert store.get_profile("coding") is None
    assert store.get_profile("coding", include_missing=True) is not None
    assert [p.id for p in store.list_profiles()] == ["review"]
    assert [p.id for p in store.list_profiles(include_missing=True)] == ["coding", "review"]
    task = store.get_task("t1")
    assert task is not None and task.profile_id == "coding"
    with pytest.raises(NotFoundError) as info:
        store.create_task("t2", "webshop", profile_id="coding")
    assert info.value.message == (
        "task 't2': profile 'coding' is missing from the vault (its file was deleted)"
    )

    # The file comes back: an upsert (or marking it present) makes it resolve again.
    store.upsert_profiles([simple_profile("coding")])
    assert store.get_profile("coding") is not None


def test_prune_deletes_missing_rows_with_the_cascade(store: Store, simple_profile: Factory) -> None:
    store.upsert_profiles(
        [simple_profile("coding"), simple_profile("review"), simple_profile("coding", project="w")]
    )
    store.create_project("webshop", default_profile_id="coding")
    store.create_task("t1", "webshop", profile_id="coding")
    store.create_task("t2", "webshop", profile_id="review")
    store.set_profiles_present([("coding", None), ("coding", "w")], False)

    assert store.prune_missing_profiles() == [("coding", None), ("coding", "w")]

    assert [s.id for s in store.profile_states()] == ["review"]
    assert [(t.id, t.profile_id) for t in store.list_tasks()] == [("t1", None), ("t2", "review")]
    project = store.get_project("webshop")
    assert project is not None and project.default_profile_id is None
    assert store.prune_missing_profiles() == []


def test_concurrent_writers_all_succeed(store: Store, simple_profile: Factory) -> None:
    """Writers in several threads queue for the write lock (SQLite: BEGIN IMMEDIATE and
    busy_timeout) instead of failing with "database is locked"."""
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            for i in range(20):
                store.upsert_profiles([simple_profile(f"w{worker}-{i}")])
                store.update_profile(f"w{worker}-{i}", model="m")
                store.list_profiles()
        except BaseException as exc:  # reported below, with the thread's traceback
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert len(store.list_profiles()) == 80
    assert {p.model for p in store.list_profiles()} == {"m"}


# Text that both backends store verbatim (PostgreSQL text cannot hold NUL; lone surrogates
# are not encodable at all).
texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=20
)
floats = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | floats | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
profiles = st.builds(
    AgentProfile,
    id=st.just("prop"),
    name=texts,
    description=texts,
    tags=st.lists(texts, max_size=3).map(tuple),
    model=texts,
    runtime=st.none() | st.sampled_from(Runtime),
    max_tokens_per_task=st.none() | st.integers(0, 2**62),
    max_turns=st.none() | st.integers(0, 2**31 - 1),
    temperature=st.none() | floats,
    top_p=st.none() | floats,
    extra_config=st.dictionaries(texts, json_values, max_size=3),
    metadata=st.dictionaries(texts, json_values, max_size=3),
    allowed_tools=st.lists(texts, max_size=3).map(tuple),
    mcp_servers=st.lists(texts, max_size=3).map(tuple),
    sections=st.lists(st.builds(PromptSection, heading=texts, body=texts), max_size=3).map(tuple),
    created_at=floats,
    updated_at=floats,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(profile=profiles)
def test_any_profile_round_trips(store: Store, profile: AgentProfile) -> None:
    store.upsert_profiles([profile])
    try:
        assert store.get_profile("prop") == profile
    finally:
        store.delete_profile("prop")
