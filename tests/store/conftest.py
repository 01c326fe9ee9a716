"""Every store test runs twice: on a real SQLite file and on the real PostgreSQL server.

PostgreSQL is at ``$ROSTER_TEST_POSTGRES_URL`` (default: the local server on 127.0.0.1:5432,
database ``test``, trust auth). When it does not answer, its half of the suite is reported
as SKIPPED with the reason; with ``ROSTER_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) that
is a failure instead, and so is any skip under CI (``tests/ci_skips.py``). Each PostgreSQL
test gets its own schema, selected through ``search_path`` and dropped afterwards, so runs
can repeat and run side by side.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import URL, make_url

from agent_roster.model import (
    AgentProfile,
    InstallManifest,
    PermissionAction,
    PermissionRule,
    PromptSection,
    Runtime,
)
from agent_roster.store import Store, create_engine, sqlite_url

POSTGRES_URL = os.environ.get(
    "ROSTER_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BACKENDS = ["sqlite", "postgresql"]


@functools.cache
def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used, or None when it answers (asked once per run)."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"psycopg is not installed ({exc})"
    engine = create_engine(POSTGRES_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except Exception as exc:  # any failure to connect means "not available here"
        cause = getattr(exc, "orig", None) or exc
        first_line = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
        return (
            f"PostgreSQL at {POSTGRES_URL} does not answer ({type(cause).__name__}: {first_line})"
        )
    finally:
        engine.dispose()
    return None


def _need_postgres() -> None:
    problem = postgres_problem()
    if problem is None:
        return
    if os.environ.get("ROSTER_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"ROSTER_REQUIRE_POSTGRES=1 but {problem}")
    pytest.skip(problem)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | URL]:
    """A URL to an empty database: a fresh SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / ".roster" / "roster.db")
        return
    _need_postgres()
    schema = f"roster_test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(POSTGRES_URL)
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        yield make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture
def store(db_url: str | URL) -> Iterator[Store]:
    """A migrated, empty store on each backend."""
    with Store.open(db_url) as opened:
        yield opened


def _full_profile(profile_id: str = "coding", project: str | None = None) -> AgentProfile:
    """A profile with every field set to something awkward: unicode, exact floats,
    zero versus None, nested JSON, ordered rules."""
    return AgentProfile(
        id=profile_id,
        name="Cödïng ✓ 日本語 \"quoted\" 'single'",
        description="Line one\nline two — with \u2018curly\u2019 quotes and a tab\t.",
        tags=("backend", "ünïcode", "🙂"),
        extends="base",
        model="claude-opus-4",
        provider="anthropic",
        permission_mode="acceptEdits",
        runtime=Runtime.ACPX,
        agent_name="codex",
        max_tokens_per_task=2**40,
        max_turns=0,
        temperature=0.1 + 0.2,  # 0.30000000000000004: must not be rounded
        top_p=1e-300,
        mode="primary",
        color="#FF00aa",
        permission=(
            PermissionRule(permission="bash", pattern="git *", action=PermissionAction.ALLOW),
            PermissionRule(permission="edit", action=PermissionAction.ASK),
            PermissionRule(permission="*", action=PermissionAction.DENY),
        ),
        harness={
            "claude": {"nested": {"deep": [1, 2.5, None, True, {"ÿ": "ß"}]}, "empty": {}},
            "opencode": {"order": ["z", "a"], "big": 12345678901234567},
        },
        extra_config={"zeta": None, "alpha": [[], {}], "max": 1.7976931348623157e308},
        allowed_tools=("Read", "Edit", "mcp__github__create_issue"),
        tools_exact=True,
        denied_tools=("Bash",),
        mcp_servers=("github", "linter"),
        sections=(
            PromptSection(heading="Role", body="You write code.\n\n```json\n{}\n```"),
            PromptSection(heading="Rules", body="- be kind\n- ünïcode"),
            PromptSection(heading="Custom Heading", body=""),
        ),
        install=InstallManifest(npm=("eslint-mcp",), pip=("ruff",), commands=("npx", "git")),
        metadata={"owner": "Zoë", "reviewed": False, "weights": [0.5, 0.25]},
        project=project,
        source=(
            f"projects/{project}/agent-types/{profile_id}/profile.md"
            if project
            else f"agent-types/{profile_id}/profile.md"
        ),
        created_at=1700000000.123456,
        updated_at=1700000123.987654,
        fields_set=frozenset({"name", "model", "temperature"}),
    )


def _simple_profile(profile_id: str, name: str | None = None, **fields: Any) -> AgentProfile:
    """A small profile; ``fields`` override any model field."""
    return AgentProfile(id=profile_id, name=name or profile_id.title(), **fields)


@pytest.fixture
def full_profile() -> Callable[..., AgentProfile]:
    """Factory: ``full_profile(id="coding", project=None)`` with every field set."""
    return _full_profile


@pytest.fixture
def simple_profile() -> Callable[..., AgentProfile]:
    """Factory: ``simple_profile(id, name=None, **fields)``."""
    return _simple_profile
