"""The one exception tree of Agent Roster.

Every error the package raises on purpose derives from :class:`RosterError`::

    RosterError
    ├── UsageError          a caller passed something invalid (bad id, unknown option value)
    │   ├── UnsafeNameError an id or name is not a single safe path segment
    │   ├── ConflictError   a write based on an older version of a file (stale content hash)
    │   ├── LiteralSecretError a write would put a literal secret into the vault
    │   ├── VaultMismatchError the database belongs to another vault
    │   ├── ForbiddenError  the caller's credentials do not allow this command
    │   └── TooLargeError   a request body above the server's limit
    ├── VaultError          the vault cannot be read or written as asked
    │   ├── NotFoundError   the thing asked for does not exist
    │   └── PathOutsideVaultError a symlink leads the path outside the vault
    └── InvalidDocumentError a document has errors; carries every diagnostic found
        └── UnreadableFileError a file to read is not UTF-8 text (located at the first bad byte)

Every surface (CLI, MCP, HTTP) turns an error into the same payload with :func:`error_payload`
and picks its exit code, HTTP status or MCP error from :data:`SURFACE_CODES` by ``kind``;
anything else that escapes is a bug and is reported as such (:data:`BUG`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

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


class ConflictError(UsageError):
    """A write was based on content that has changed since: it is refused, never applied
    over the newer version (the caller re-reads and tries again)."""

    kind = "conflict"


class LiteralSecretError(UsageError):
    """A write would put a secret's value into the vault; the hint gives the ``${VAR}``
    form to write instead (``agent_roster.literal_secrets``)."""

    kind = "literal-secret"


class ForbiddenError(UsageError):
    """The caller is known, but its credentials do not allow what it asked for."""

    kind = "forbidden"


class VaultMismatchError(UsageError):
    """The database belongs to another vault: syncing this one into it would mark every
    row of the other deleted (``roster sync --rebind`` moves it on purpose)."""

    kind = "vault-mismatch"


class TooLargeError(UsageError):
    """A request body is larger than the server accepts."""

    kind = "too-large"


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


class UnreadableFileError(InvalidDocumentError):
    """A file roster has to read (a harness file that ``render`` merges into or would
    overwrite) is not UTF-8 text; ``diagnostics`` holds the ``encoding-invalid`` error at
    the first bad byte. Codecs turn it into a diagnostic and leave the file alone."""


class SurfaceCodes(NamedTuple):
    """How one error kind shows on each surface."""

    exit_code: int
    http_status: int


#: ``kind`` → exit code and HTTP status. MCP reports every error as a tool result with
#: ``isError`` set and the same payload, so it needs no column of its own.
SURFACE_CODES: dict[str, SurfaceCodes] = {
    "usage": SurfaceCodes(2, 400),
    "unsafe-name": SurfaceCodes(2, 400),
    "conflict": SurfaceCodes(2, 409),
    "literal-secret": SurfaceCodes(2, 422),
    "vault-mismatch": SurfaceCodes(2, 409),
    "forbidden": SurfaceCodes(2, 403),
    "too-large": SurfaceCodes(2, 413),
    "not-found": SurfaceCodes(2, 404),
    "invalid": SurfaceCodes(2, 422),
    "vault": SurfaceCodes(2, 500),
    # The vault leads the path outside itself: refused whoever asks (issue 11).
    "path-outside-vault": SurfaceCodes(2, 403),
    "error": SurfaceCodes(2, 500),
}
#: A bug: anything that is not a :class:`RosterError`.
BUG = SurfaceCodes(70, 500)


def surface_codes(exc: BaseException) -> SurfaceCodes:
    """The exit code and HTTP status for ``exc``."""
    if isinstance(exc, RosterError):
        return SURFACE_CODES.get(exc.kind, SURFACE_CODES["error"])
    return BUG


def error_payload(exc: BaseException) -> dict[str, Any]:
    """The one error shape every surface shows: ``{"error": {code, message, hint,
    diagnostics}}``, secrets masked (``agent_roster.redact``). A bug's message names only
    its type: its text may quote a file."""
    if isinstance(exc, RosterError):
        error: dict[str, Any] = {"code": exc.kind, "message": exc.message, "hint": exc.hint}
        if isinstance(exc, InvalidDocumentError | PathOutsideVaultError):
            error["diagnostics"] = [d.to_dict() for d in exc.diagnostics]
        else:
            error["diagnostics"] = []
    else:
        error = {
            "code": "bug",
            "message": f"internal error ({type(exc).__name__}); this is a bug in roster",
            "hint": "run again with ROSTER_DEBUG=1 for the traceback, and report it",
            "diagnostics": [],
        }
    from agent_roster.redact import redact_data  # imported here: errors.py stays import-light

    return {"error": redact_data(error)}
