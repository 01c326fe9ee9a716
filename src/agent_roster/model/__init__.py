"""The canonical, immutable model: agent profiles and MCP servers.

Objects here are built only after validation (see :mod:`agent_roster.vault`), are frozen, and
carry no raw dicts from user input except the documented pass-through mappings.
"""

from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    PERMISSION_MODES,
    AgentProfile,
    InstallManifest,
    NativeForm,
    PermissionAction,
    PermissionRule,
    PromptSection,
    Runtime,
)

__all__ = [
    "PERMISSION_MODES",
    "AgentProfile",
    "InstallManifest",
    "McpServer",
    "NativeForm",
    "PermissionAction",
    "PermissionRule",
    "PromptSection",
    "Runtime",
    "Transport",
]
