"""Agent Roster: markdown agent profiles as the single source of truth.

The public API is small on purpose; everything else is private to the package and may change.
"""

from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.errors import (
    InvalidDocumentError,
    NotFoundError,
    RosterError,
    UnsafeNameError,
    UsageError,
    VaultError,
)
from agent_roster.model import AgentProfile, InstallManifest, McpServer, PromptSection, Runtime

__version__ = "0.1.0"

__all__ = [
    "AgentProfile",
    "Diagnostic",
    "InstallManifest",
    "InvalidDocumentError",
    "McpServer",
    "NotFoundError",
    "PromptSection",
    "RosterError",
    "Runtime",
    "Severity",
    "UnsafeNameError",
    "UsageError",
    "VaultError",
    "__version__",
]
