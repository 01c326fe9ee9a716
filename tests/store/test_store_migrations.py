"""Migrations: empty to head, idempotent, reversible, and in step with ``tables.py``."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError

from agent_roster.errors import UsageError
from agent_roster.store import Store, create_engine, head_revision
from agent_roster.store import migrate as migrations
from agent_roster.store.tables import metadata

TABLES = {
    "agent_profiles",
    "projects",
    "tasks",
    "archived_tasks",
    "mcp_servers",
    "sync_events",
    "sync_files",
    "mcp_tool_catalog",
    "store_meta",
}


@pytest.fixture
def engine(db_url: str | URL) -> Any:
    engine = create_engine(db_url)
    yield engine
    engine.dispose()


def schema_snapshot(engine: Engine) -> dict[str, Any]:
    """Tables, columns, indexes, foreign keys and the alembic revision, comparable."""
    inspector = inspect(engine)
    snapshot: dict[str, Any] = {}
    for table in sorted(inspector.get_table_names()):
        snapshot[table] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(table)
            ],
            "indexes": sorted(
                (i["name"] or "", tuple(i["column_names"])) for i in inspector.get_indexes(table)
            ),
            "fks": sorted(
                (f["name"] or "", tuple(f["constrained_columns"]), f["referred_table"])
                for f in inspector.get_foreign_keys(table)
            ),
        }
    with engine.connect() as conn:
        snapshot["revision"] = MigrationContext.configure(conn).get_current_revision()
    return snapshot


def test_upgrade_from_empty_to_head(engine: Engine) -> None:
    assert migrations.current_revision(engine) is None
    assert set(inspect(engine).get_table_names()) == set()

    migrations.upgrade(engine)

    assert migrations.current_revision(engine) == head_revision() == migrations.HEAD
    assert set(inspect(engine).get_table_names()) == TABLES | {"alembic_version"}


def test_second_upgrade_is_a_no_op(engine: Engine) -> None:
    migrations.upgrade(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO projects (id, name) VALUES ('p', 'P')"))
    before = schema_snapshot(engine)

    migrations.upgrade(engine)

    assert schema_snapshot(engine) == before
    with engine.connect() as conn:
        assert conn.execute(text("SELECT id, name FROM projects")).all() == [("p", "P")]


def test_tables_module_matches_the_migrations(engine: Engine) -> None:
    migrations.upgrade(engine)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []


def test_downgrade_to_base_and_upgrade_again(engine: Engine) -> None:
    migrations.upgrade(engine)
    head = schema_snapshot(engine)

    migrations.downgrade(engine, "base")
    assert migrations.current_revision(engine) is None
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}

    migrations.upgrade(engine)
    assert schema_snapshot(engine) == head


def test_seed_alters_keep_existing_rows_and_add_enforced_foreign_keys(engine: Engine) -> None:
    """Revision 0002 is seed 001's three ALTERs; on SQLite they rebuild the tables (batch
    mode), which must keep the rows and end up with working foreign keys."""
    migrations.upgrade(engine, "0001")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO projects (id, name) VALUES ('p', 'Project')"))
        conn.execute(text("INSERT INTO tasks (id, project_id, title) VALUES ('t', 'p', 'T')"))
        conn.execute(
            text("INSERT INTO archived_tasks (id, project_id, title) VALUES ('a', 'p', 'A')")
        )

    migrations.upgrade(engine)

    with engine.connect() as conn:
        assert conn.execute(text("SELECT id, name, default_profile_id FROM projects")).all() == [
            ("p", "Project", None)
        ]
        assert conn.execute(text("SELECT id, project_id, title, profile_id FROM tasks")).all() == [
            ("t", "p", "T", None)
        ]
        assert conn.execute(text("SELECT id, profile_id FROM archived_tasks")).all() == [
            ("a", None)
        ]
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE tasks SET profile_id = 'nobody' WHERE id = 't'"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE projects SET default_profile_id = 'nobody'"))
    with engine.begin() as conn:  # archived tasks keep history: no foreign key
        conn.execute(text("UPDATE archived_tasks SET profile_id = 'nobody'"))

    migrations.downgrade(engine, "0001")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT * FROM tasks")).all() == [("t", "p", "T")]
    assert "profile_id" not in {c["name"] for c in inspect(engine).get_columns("tasks")}


def test_tools_exact_column_keeps_existing_profiles_not_exact(
    engine: Engine, db_url: str | URL
) -> None:
    """Revision 0005 adds ``tools_exact`` in batch mode: rows written before it keep their
    meaning (not exact), and the store reads them back as profiles."""
    migrations.upgrade(engine, "0003")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO agent_profiles (key, id, name, created_at, updated_at, "
                "allowed_tools) VALUES ('a', 'a', 'A', 1.0, 1.0, '[\"Read\"]')"
            )
        )
    migrations.upgrade(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT id, tools_exact FROM agent_profiles")).all() == [
            ("a", False)
        ]
    store = Store.open(db_url)
    try:
        found = store.get_profile("a")
    finally:
        store.close()
    assert found is not None
    assert (found.allowed_tools, found.tools_exact) == (("Read",), False)
    migrations.downgrade(engine, "0003")
    columns = {c["name"] for c in inspect(engine).get_columns("agent_profiles")}
    assert "tools_exact" not in columns and "allowed_tools" in columns


def test_a_database_from_a_newer_version_is_a_usage_error(
    engine: Engine, db_url: str | URL
) -> None:
    migrations.upgrade(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))

    with pytest.raises(UsageError) as info:
        Store.open(db_url)
    assert info.value.message.startswith("cannot migrate the database: ")
    assert "9999" in info.value.message


def test_store_open_migrates_and_can_skip_it(db_url: str | URL) -> None:
    with Store.open(db_url, migrate=False) as store:
        assert store.current_revision() is None
        store.migrate()
        assert store.current_revision() == head_revision()
    with Store.open(db_url) as store:
        assert store.current_revision() == head_revision()
