"""The command catalog: every command roster serves, as plain data.

Seed 001 "Commands (Complete)" plus roster's own, in the order help lists them. Each entry
names the command (also its MCP tool name and HTTP path), where its typed function lives,
its CLI words, and whether it writes. The functions themselves are loaded by
:mod:`agent_roster.commands.registry`; this table sits at the bottom of the package so that
the vault validator can know the embedded server's command names (a profile writes them
bare: ``create_task``) without importing the command layer (``known_tools.py``).
"""

from __future__ import annotations

from typing import NamedTuple


class CommandSpec(NamedTuple):
    """One command as data: its seed name (also the MCP tool name and the HTTP path), where
    its function is (``module:function``), its CLI words, whether it writes (the vault or
    the database), for a write that carries a ``base_hash``, the command that reads the
    current one (the generated CLI uses it when ``--base-hash`` is left out), and the flags
    that make a command that otherwise only reads act beyond roster (``export_profile``'s
    ``gist`` publishes): with one of them set it takes POST, never GET, which a page on
    another site could make a browser send with an ``<img>`` (issue 14 item 7)."""

    name: str
    target: str
    cli: str
    writes: bool
    base_from: str | None = None
    acts_with: tuple[str, ...] = ()


def _spec(
    name: str,
    module: str,
    cli: str,
    *,
    writes: bool = False,
    base_from: str | None = None,
    acts_with: tuple[str, ...] = (),
) -> CommandSpec:
    target = f"agent_roster.commands.{module}:{name}"
    return CommandSpec(name, target, cli, writes, base_from, acts_with)


SPECS: tuple[CommandSpec, ...] = (
    # Profile CRUD, system scope
    _spec("list_profiles", "profiles", "profile list"),
    _spec("get_profile", "profiles", "profile get"),
    _spec("create_profile", "profiles", "profile create", writes=True),
    _spec("edit_profile", "profiles", "profile edit", writes=True, base_from="get_profile"),
    _spec("delete_profile", "profiles", "profile delete", writes=True, base_from="get_profile"),
    # Project-scoped profile CRUD
    _spec("list_project_profiles", "project_profiles", "project-profile list"),
    _spec("create_project_profile", "project_profiles", "project-profile create", writes=True),
    _spec("edit_project_profile", "project_profiles", "project-profile edit", writes=True),
    _spec("delete_project_profile", "project_profiles", "project-profile delete", writes=True),
    _spec("show_effective_profile", "project_profiles", "project-profile show"),
    # Discovery and validation
    _spec("list_available_tools", "available_tools", "tools"),
    _spec("validate_vault", "validate", "validate"),
    # Install manifest
    _spec("check_profile", "install", "check"),
    _spec("install_profile", "install", "install", writes=True),
    # Export / import
    _spec("export_profile", "share", "export", acts_with=("gist",)),
    _spec("import_profile", "share", "import", writes=True),
    # MCP server registry
    _spec("list_mcp_servers", "mcp_registry", "mcp list"),
    _spec("get_mcp_server", "mcp_registry", "mcp show"),
    _spec("create_mcp_server", "mcp_registry", "mcp add", writes=True),
    _spec("edit_mcp_server", "mcp_registry", "mcp edit", writes=True),
    _spec("delete_mcp_server", "mcp_registry", "mcp remove", writes=True),
    # (probing and the tool catalog write the catalog in the database)
    _spec("probe_mcp_server", "probe", "mcp probe", writes=True),
    _spec("list_mcp_tool_catalog", "probe", "mcp catalog", writes=True),
    # Projects and tasks (seed 001 "Modified Commands", and the project commands they need)
    _spec("list_projects", "projects", "project list"),
    _spec("create_project", "projects", "project create", writes=True),
    _spec("edit_project", "projects", "project edit", writes=True),
    _spec("create_task", "projects", "task create", writes=True),
    _spec("edit_task", "projects", "task edit", writes=True),
    _spec("get_task", "projects", "task show"),
    # Roster's own: the database, resolution, and the harnesses
    _spec("sync_vault", "sync", "sync", writes=True),
    _spec("get_status", "sync", "status"),
    _spec("resolve_profile", "resolve", "resolve"),
    _spec("can_use_tool", "can", "can"),
    _spec("discover_agents", "discover", "discover"),
    _spec("import_from_harness", "discover", "import", writes=True),
    _spec("render_to_harness", "harness", "render", writes=True),
    # Git sources with a lock
    _spec("source_add", "sources", "source add", writes=True),
    _spec("source_update", "sources", "source update", writes=True),
    _spec("source_sync", "sources", "source sync", writes=True),
    _spec("source_remove", "sources", "source remove", writes=True),
    _spec("source_list", "sources", "source list"),
)

#: The names alone: the embedded server's commands.
NAMES: frozenset[str] = frozenset(spec.name for spec in SPECS)
