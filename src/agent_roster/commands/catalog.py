"""The embedded MCP server's command surface (seed 001 "Commands (Complete)").

Profiles name these bare (``create_task``); the Claude adapter prefixes them with
``mcp__<embedded>__`` at launch. Each name maps to a one-line description shown by
``list_available_tools``. The MCP, HTTP and CLI surfaces expose the same commands.
"""

from __future__ import annotations

EMBEDDED_COMMANDS: dict[str, str] = {
    # Profile CRUD
    "list_profiles": "List all agent profiles with summary information",
    "create_profile": "Create an agent profile in the vault",
    "get_profile": "Show one profile in full, install manifest included",
    "edit_profile": "Change fields of a profile in place",
    "delete_profile": "Delete a profile and clear references to it",
    # Project-scoped profiles
    "list_project_profiles": "List each agent type of a project: override, inherit or none",
    "create_project_profile": "Create a project override of an agent type",
    "edit_project_profile": "Change fields of a project override",
    "delete_project_profile": "Remove a project override",
    "show_effective_profile": "Resolve a project and agent type to the effective profile",
    # Discovery and validation
    "list_available_tools": "List known tools and MCP servers",
    "validate_vault": "Validate every profile and server file in the vault",
    # Install manifest
    "check_profile": "Check a profile's install dependencies",
    "install_profile": "Install a profile's missing npm and pip dependencies",
    # Export and import
    "export_profile": "Serialise a profile to YAML, optionally as a gist",
    "import_profile": "Import a profile from YAML text or a gist",
    # MCP server registry
    "list_mcp_servers": "List MCP servers in the registry",
    "get_mcp_server": "Show one MCP server",
    "create_mcp_server": "Add an MCP server to the registry",
    "edit_mcp_server": "Change an MCP server's settings",
    "delete_mcp_server": "Remove an MCP server no profile references",
    "probe_mcp_server": "Connect to an MCP server and list its tools",
    "list_mcp_tool_catalog": "List the tools every MCP server offers",
    # Tasks and projects
    "create_task": "Create a task, optionally with a profile",
    "edit_task": "Change a task, including its profile",
    "get_task": "Show a task with its profile",
    "edit_project": "Change a project, including its default profile",
}
