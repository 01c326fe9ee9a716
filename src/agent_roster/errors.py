"""The one exception tree of Agent Roster.

Every error the package raises on purpose derives from :class:`RosterError`::

    RosterError
    ├── UsageError          a caller passed something invalid (bad id, unknown option value)
    │   └── UnsafeNameError an id or name is not a single safe path segment
    ├── VaultError          the vault cannot be read or written as asked
    │   ├── NotFoundError   the thing asked for does not exist
    │   └── PathOutsideVaultError a symlink leads the path outside the vault
    └── InvalidDocumentError a document has errors; carries every diagnostic found

The surfaces (CLI, and later MCP and HTTP) map these to exit codes and to one error shape;
anything else that escapes is a bug and is reported as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_roster.diagnostics import Diagnostic


class RosterError(Exception):
    """Base of every error Agent Roster raises on purpose."""

    #: A short stable identifier for the error kind, used in JSON error payloads.
    kind = "error"

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(RosterError):
    """The caller asked for something that cannot be done as stated."""

    kind = "usage"


class UnsafeNameError(UsageError):
    """An id, name or project id is not a single safe path segment."""

    kind = "unsafe-name"


class VaultError(RosterError):
    """The vault cannot be read or written as asked."""

    kind = "vault"


class NotFoundError(VaultError):
    """The profile, server or file asked for does not exist."""

    kind = "not-found"


class PathOutsideVaultError(VaultError):
    """A vault path leads outside the vault through a symlink; ``diagnostics`` holds the
    ``path-outside-vault`` diagnostic naming the link (``vault/guard.py``)."""

    kind = "path-outside-vault"

    def __init__(self, message: str, diagnostic: Diagnostic, *, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.diagnostics = (diagnostic,)


class InvalidDocumentError(RosterError):
    """A document could not be accepted; ``diagnostics`` holds every problem found."""

    kind = "invalid"

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic], *, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.diagnostics = tuple(diagnostics)
