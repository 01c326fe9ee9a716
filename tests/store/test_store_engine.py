"""Where the default database lives, how SQLite connections are set up, opening errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from agent_roster.errors import UsageError
from agent_roster.store import Store, create_engine, default_db_path, default_db_url, sqlite_url


def test_the_default_database_sits_beside_the_vault(tmp_path: Path) -> None:
    vault = tmp_path / "notes" / "vault"

    assert default_db_path(vault) == tmp_path / "notes" / ".roster" / "roster.db"
    assert default_db_url(vault) == f"sqlite:///{tmp_path}/notes/.roster/roster.db"


def test_a_relative_vault_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert default_db_path("vault") == tmp_path / ".roster" / "roster.db"


def test_a_vault_at_the_filesystem_root_keeps_its_database_inside() -> None:
    assert default_db_path("/") == Path("/.roster/roster.db")


def test_opening_a_sqlite_file_creates_its_folder_and_sets_it_up(tmp_path: Path) -> None:
    path = tmp_path / "deep" / ".roster" / "roster.db"

    with Store.open(sqlite_url(path)) as store, store.engine.connect() as conn:
        pragmas = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout")
        }

    assert path.is_file()
    assert pragmas == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "synchronous": 1,  # NORMAL
        "busy_timeout": 10_000,
    }


def test_a_database_that_does_not_answer_is_a_usage_error() -> None:
    url = "postgresql+psycopg://roster:secret@127.0.0.1:1/none"
    with pytest.raises(UsageError) as info:
        Store.open(url, connect_args={"connect_timeout": 2})
    assert info.value.message.startswith(
        "cannot open database postgresql+psycopg://roster:***@127.0.0.1:1/none: "
    )
    assert "secret" not in info.value.message
    assert info.value.hint == "check --db or $ROSTER_DB"


def test_engines_are_lazy(tmp_path: Path) -> None:
    engine = create_engine(make_url(sqlite_url(tmp_path / "x" / "r.db")))
    try:
        assert not (tmp_path / "x" / "r.db").exists()  # nothing connects until asked
    finally:
        engine.dispose()


def test_a_malformed_or_unknown_url_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as info:
        Store.open("not a url")
    assert info.value.message == "not a url is not a database URL"
    with pytest.raises(UsageError) as info:
        Store.open("nosuchdb://host/db")
    assert info.value.message.startswith("cannot open database nosuchdb://host/db: ")
