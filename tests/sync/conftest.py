"""Every sync test runs twice: on a real SQLite file and on the real PostgreSQL server.

The backends are the store tests' (``tests/store/conftest.py``): PostgreSQL at
``$ROSTER_TEST_POSTGRES_URL`` (default 127.0.0.1:5432, database ``test``, trust auth), one
fresh schema per test selected through ``search_path``. Where PostgreSQL does not answer,
its half is SKIPPED with the reason; with ``ROSTER_REQUIRE_POSTGRES=1`` that is a failure.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from agent_roster.store import Store, create_engine, sqlite_url
from agent_roster.sync.engine import SyncEngine
from tests.file_modules import load_file_module

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_VAULT = REPO / "examples" / "vault"


# One definition of "is PostgreSQL here, and at which URL", shared with the store tests.
_backends = load_file_module(REPO / "tests" / "store" / "conftest.py", "_roster_store_backends")
POSTGRES_URL: str = _backends.POSTGRES_URL


def need_postgres() -> None:
    """Skip (or, with ROSTER_REQUIRE_POSTGRES=1, fail) when PostgreSQL does not answer."""
    problem = _backends.postgres_problem()
    if problem is None:
        return
    if os.environ.get("ROSTER_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"ROSTER_REQUIRE_POSTGRES=1 but {problem}")
    pytest.skip(problem)


def fresh_database(backend: str, tmp_path: Path) -> Iterator[str]:
    """Yield the URL of an empty database: a new SQLite file or a new PostgreSQL schema."""
    if backend == "sqlite":
        yield sqlite_url(tmp_path / "db" / "roster.db")
        return
    need_postgres()
    schema = f"roster_sync_{uuid.uuid4().hex[:16]}"
    admin = create_engine(POSTGRES_URL)
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL (a string, as ``--db`` takes it) to an empty database on each backend."""
    yield from fresh_database(request.param, tmp_path)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A migrated, empty store on each backend."""
    with Store.open(db_url) as opened:
        yield opened


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of the example vault (sync writes starter packs into it)."""
    return Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault"))


@pytest.fixture
def engine(store: Store, vault: Path) -> SyncEngine:
    return SyncEngine(store, vault)
