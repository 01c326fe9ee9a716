"""``Store``: one object over an Engine offering every store operation.

Each method is one transaction: reads on a plain connection, writes in a write
transaction (``BEGIN IMMEDIATE`` on SQLite). To combine several operations atomically,
open :meth:`Store.transaction` and call the module functions (``profiles``, ``tasks``…)
with its connection.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, OperationalError

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UsageError
from agent_roster.model import AgentProfile, McpServer
from agent_roster.store import catalog, events, mcp, profiles, projects, tasks
from agent_roster.store import migrate as migrations
from agent_roster.store.common import UNSET, Unset, now
from agent_roster.store.engine import create_engine, writer
from agent_roster.store.sync_lock import sync_lock

Key = tuple[str, str | None]


class Store:
    """The database copy of the vault, plus projects, tasks and sync events."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = writer(engine)

    @classmethod
    def open(cls, url: str | URL, *, migrate: bool = True, **engine_kwargs: Any) -> Store:
        """Open the database at ``url`` and, unless ``migrate=False``, upgrade it to the
        newest schema. A database that cannot be reached is a UsageError naming it."""
        try:
            shown = make_url(url).render_as_string(hide_password=True)
        except ArgumentError as exc:
            raise UsageError(
                f"{url!s:.200} is not a database URL",
                hint="for example sqlite:///path/to/roster.db or postgresql+psycopg://host/db",
            ) from exc
        try:
            engine = create_engine(url, **engine_kwargs)
        except ArgumentError as exc:  # e.g. an unknown backend name
            raise UsageError(f"cannot open database {shown}: {exc}") from exc
        except ModuleNotFoundError as exc:
            raise UsageError(
                f"no driver for database {shown}: {exc}",
                hint="for PostgreSQL install the extra: pip install 'agent-roster[postgres]'",
            ) from exc
        except OSError as exc:  # the folder of a SQLite file cannot be created
            raise UsageError(f"cannot open database {shown}: {exc}") from exc
        store = cls(engine)
        if migrate:
            try:
                store.migrate()
            except OperationalError as exc:
                engine.dispose()
                raise UsageError(
                    f"cannot open database {shown}: {exc.orig}",
                    hint="check --db or $ROSTER_DB",
                ) from exc
        return store

    def __repr__(self) -> str:
        return f"Store({self._engine.url.render_as_string(hide_password=True)!r})"

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def engine(self) -> Engine:
        """The underlying Engine."""
        return self._engine

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction: committed on success, rolled back on any exception."""
        with self._writer.begin() as conn:
            yield conn

    @contextmanager
    def sync_lock(self) -> Iterator[None]:
        """Hold the database's sync lock for a whole sync: a second sync (another process,
        or ``roster watch``) waits until this one is done (``store/sync_lock.py``)."""
        with sync_lock(self._engine):
            yield

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._engine.connect() as conn:
            yield conn

    # -- schema ---------------------------------------------------------------------------
    def migrate(self, revision: str = "head") -> None:
        """Upgrade the schema to ``revision``; a no-op when it is already there."""
        migrations.upgrade(self._engine, revision)

    def current_revision(self) -> str | None:
        """The schema revision of the database (``None`` when empty)."""
        return migrations.current_revision(self._engine)

    # -- profiles (seed 001, "CRUD Methods") ----------------------------------------------
    def create_profile(self, profile: AgentProfile) -> AgentProfile:
        """Insert a new profile in its scope (``profile.project``); returns it as stored."""
        with self.transaction() as conn:
            return profiles.create(conn, profile, at=now())

    def get_profile(
        self, profile_id: str, project: str | None = None, *, include_missing: bool = False
    ) -> AgentProfile | None:
        """The profile ``profile_id`` (system scope, or ``project``'s override), or None.
        Rows whose file is missing from the vault count as absent unless asked for."""
        with self._read() as conn:
            return profiles.get(conn, profile_id, project, include_missing=include_missing)

    def list_profiles(
        self, project: str | None = None, *, include_missing: bool = False
    ) -> list[AgentProfile]:
        """The system profiles (or ``project``'s overrides), sorted by name."""
        with self._read() as conn:
            return profiles.list_(conn, project, include_missing=include_missing)

    def all_profiles(self) -> list[AgentProfile]:
        """Every present profile of every scope, unordered (for building indexes)."""
        with self._read() as conn:
            return profiles.list_all(conn)

    def all_mcp_servers(self) -> list[McpServer]:
        """Every present MCP server of every scope, unordered."""
        with self._read() as conn:
            return mcp.list_all(conn)

    def tool_catalog(self) -> dict[Key, catalog.CatalogEntry]:
        """The stored probe of every registry server, keyed by (name, project)."""
        with self._read() as conn:
            return catalog.load_all(conn)

    def save_tool_catalog(
        self, entries: Iterable[catalog.CatalogEntry], *, keep: Iterable[Key] | None = None
    ) -> None:
        """Store probe results; with ``keep``, drop the entries of every other server."""
        with self.transaction() as conn:
            catalog.save(conn, entries)
            if keep is not None:
                catalog.delete_others(conn, keep)

    def update_profile(
        self, profile_id: str, /, *, project: str | None = None, **fields: Any
    ) -> AgentProfile:
        """Change only ``fields`` of a profile and bump ``updated_at``; returns the result.
        Unknown names or ill-typed values are a UsageError, a missing profile NotFoundError."""
        with self.transaction() as conn:
            return profiles.update_fields(conn, profile_id, project, fields, now())

    def delete_profile(self, profile_id: str, *, project: str | None = None) -> bool:
        """Delete a profile; for a system profile, first clear ``tasks.profile_id`` and
        ``projects.default_profile_id`` naming it, in the same transaction. True if it
        existed."""
        with self.transaction() as conn:
            return profiles.delete_one(conn, profile_id, project)

    def upsert_profiles(
        self,
        items: Iterable[AgentProfile | profiles.SyncedProfile],
        *,
        synced_at: float | None = None,
    ) -> int:
        """Insert or replace many profiles in one transaction (``executemany`` batches),
        marking them present; existing rows keep ``created_at``. Returns the count."""
        with self.transaction() as conn:
            return profiles.upsert_many(conn, items, at=now(), synced_at=synced_at)

    def set_profiles_present(self, keys: Iterable[Key], present: bool) -> int:
        """Mark profiles, named by ``(id, project)``, present or missing from the vault."""
        with self.transaction() as conn:
            return profiles.set_present(conn, keys, present)

    def prune_missing_profiles(self) -> list[Key]:
        """Delete every profile marked missing, with the reference clearing of
        :meth:`delete_profile`; returns the ``(id, project)`` pairs deleted."""
        with self.transaction() as conn:
            return profiles.prune_missing(conn)

    def profile_states(self) -> list[profiles.ProfileState]:
        """Source path, content hash and presence of every profile row, every scope."""
        with self._read() as conn:
            return profiles.states(conn)

    # -- projects and tasks (seed 001, "Task/Project Extension") ---------------------------
    def create_project(
        self, project_id: str, name: str = "", *, default_profile_id: str | None = None
    ) -> projects.Project:
        """Create a project; ``default_profile_id`` must name a system profile."""
        with self.transaction() as conn:
            return projects.create(conn, project_id, name, default_profile_id)

    def get_project(self, project_id: str) -> projects.Project | None:
        """The project ``project_id``, or None."""
        with self._read() as conn:
            return projects.get(conn, project_id)

    def list_projects(self) -> list[projects.Project]:
        """Every project, sorted by id."""
        with self._read() as conn:
            return projects.list_(conn)

    def edit_project(
        self,
        project_id: str,
        *,
        name: str | Unset = UNSET,
        default_profile_id: str | Unset | None = UNSET,
    ) -> projects.Project:
        """Change the given fields; ``default_profile_id=None`` clears it."""
        with self.transaction() as conn:
            return projects.edit(conn, project_id, name=name, default_profile_id=default_profile_id)

    def create_task(
        self, task_id: str, project_id: str, title: str = "", *, profile_id: str | None = None
    ) -> tasks.Task:
        """Create a task in an existing project; ``profile_id`` must name a system profile."""
        with self.transaction() as conn:
            return tasks.create(conn, task_id, project_id, title, profile_id)

    def get_task(self, task_id: str) -> tasks.Task | None:
        """The live task ``task_id``, or None."""
        with self._read() as conn:
            return tasks.get(conn, task_id)

    def list_tasks(self, project_id: str | None = None) -> list[tasks.Task]:
        """Live tasks sorted by id, only ``project_id``'s when given."""
        with self._read() as conn:
            return tasks.list_(conn, project_id)

    def edit_task(
        self,
        task_id: str,
        *,
        title: str | Unset = UNSET,
        profile_id: str | Unset | None = UNSET,
    ) -> tasks.Task:
        """Change the given fields; ``profile_id=None`` clears it."""
        with self.transaction() as conn:
            return tasks.edit(conn, task_id, title=title, profile_id=profile_id)

    def archive_task(self, task_id: str) -> tasks.Task:
        """Move a task to the archive, keeping its ``profile_id`` as history."""
        with self.transaction() as conn:
            return tasks.archive(conn, task_id)

    def get_archived_task(self, task_id: str) -> tasks.Task | None:
        """The archived task ``task_id``, or None."""
        with self._read() as conn:
            return tasks.get_archived(conn, task_id)

    # -- MCP registry copy ----------------------------------------------------------------
    def upsert_mcp_servers(
        self, items: Iterable[McpServer | mcp.SyncedMcpServer], *, synced_at: float | None = None
    ) -> int:
        """Insert or replace registry entries in one transaction, marking them present."""
        with self.transaction() as conn:
            return mcp.upsert_many(conn, items, at=now(), synced_at=synced_at)

    def get_mcp_server(
        self, name: str, project: str | None = None, *, include_missing: bool = False
    ) -> McpServer | None:
        """The entry ``name`` in exactly that scope (no fallback), or None."""
        with self._read() as conn:
            return mcp.get(conn, name, project, include_missing=include_missing)

    def list_mcp_servers(
        self, project: str | None = None, *, include_missing: bool = False
    ) -> list[McpServer]:
        """The entries of one scope, sorted by name."""
        with self._read() as conn:
            return mcp.list_(conn, project, include_missing=include_missing)

    def set_mcp_servers_present(self, keys: Iterable[Key], present: bool) -> int:
        """Mark entries, named by ``(name, project)``, present or missing from the vault."""
        with self.transaction() as conn:
            return mcp.set_present(conn, keys, present)

    def delete_mcp_server(self, name: str, project: str | None = None) -> bool:
        """Delete one entry; True if it existed."""
        with self.transaction() as conn:
            return mcp.delete_one(conn, name, project)

    def prune_missing_mcp_servers(self) -> list[Key]:
        """Delete every entry marked missing; returns the ``(name, project)`` pairs."""
        with self.transaction() as conn:
            return mcp.prune_missing(conn)

    def mcp_server_states(self) -> list[mcp.McpServerState]:
        """Source path, content hash and presence of every entry, every scope."""
        with self._read() as conn:
            return mcp.states(conn)

    # -- sync events ----------------------------------------------------------------------
    def record_sync_event(
        self,
        kind: str,
        *,
        entry_kind: str = "profile",
        entry_id: str = "",
        project: str | None = None,
        path: str = "",
        diagnostics: Sequence[Diagnostic] = (),
        message: str = "",
        at: float | None = None,
    ) -> events.SyncEvent:
        """Store one sync event (``kind``: see ``SyncEventKind``); returns it with its id."""
        event = events.SyncEvent(
            kind=kind,
            at=at,
            entry_kind=entry_kind,
            entry_id=entry_id,
            project=project,
            path=path,
            diagnostics=tuple(diagnostics),
            message=message,
        )
        with self.transaction() as conn:
            return events.record(conn, event, at=now())

    def record_sync_events(self, items: Iterable[events.SyncEvent]) -> int:
        """Store many events in one transaction; returns how many."""
        with self.transaction() as conn:
            return len(events.record_many(conn, items, at=now()))

    def list_sync_events(
        self, limit: int = 50, *, kinds: Sequence[str] = (), path: str | None = None
    ) -> list[events.SyncEvent]:
        """The newest ``limit`` events, newest first, optionally of ``kinds`` / ``path``."""
        with self._read() as conn:
            return events.list_(conn, limit, kinds=kinds, path=path)

    def sync_events_after(self, event_id: int, limit: int = 500) -> list[events.SyncEvent]:
        """Events recorded after ``event_id``, oldest first."""
        with self._read() as conn:
            return events.after(conn, event_id, limit)

    def last_sync_event_id(self) -> int:
        with self._read() as conn:
            return events.last_id(conn)
