"""The store: a database copy of the vault for fast runtime access (issue 3, items 1 and 2).

SQLAlchemy 2 Core over SQLite (the default, a WAL file beside the vault) or PostgreSQL, with
Alembic migrations shipped in the package. The markdown vault stays the source of truth;
sync writes here, the runtime reads from here.

Use :class:`Store`::

    store = Store.open(default_db_url(vault_root))   # migrates to the newest schema
    store.upsert_profiles(profiles)
    store.get_profile("coding", project="webshop")

Importing this package connects to nothing and reads no files.
"""

from agent_roster.store.common import UNSET, Unset
from agent_roster.store.engine import create_engine, default_db_path, default_db_url, sqlite_url
from agent_roster.store.events import SyncEvent, SyncEventKind
from agent_roster.store.facade import Store
from agent_roster.store.mcp import McpServerState, SyncedMcpServer
from agent_roster.store.migrate import head_revision
from agent_roster.store.profiles import ProfileState, SyncedProfile
from agent_roster.store.projects import Project
from agent_roster.store.tasks import Task

__all__ = [
    "UNSET",
    "McpServerState",
    "ProfileState",
    "Project",
    "Store",
    "SyncEvent",
    "SyncEventKind",
    "SyncedMcpServer",
    "SyncedProfile",
    "Task",
    "Unset",
    "create_engine",
    "default_db_path",
    "default_db_url",
    "head_revision",
    "sqlite_url",
]
