"""The one place that maps vault paths to (kind, scope, id) and back.

Vault layout (seeds 000/001)::

    agent-types/<id>/profile.md                        system-scope profile
    agent-types/<id>/memory/                           the agent type's memory
    projects/<pid>/agent-types/<id>/profile.md         project override of <id>
    mcp-servers/<name>.md                              system-scope MCP server
    projects/<pid>/mcp-servers/<name>.md               project-scope MCP server
    templates/knowledge/<type>/*.md                    starter knowledge packs
    roster.toml                                        base runtime configuration

Nothing else in the package builds vault paths. Every id, name and project id that becomes a
path segment goes through :func:`check_segment` first, so no input can point outside the vault;
``vault/scan.py`` lists the layout and ``vault/guard.py`` reads and writes single files, both
refusing anything a symlink leads outside the vault's real root (issue 11).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UnsafeNameError, VaultError

AGENT_TYPES = "agent-types"
PROJECTS = "projects"
MCP_SERVERS = "mcp-servers"
TEMPLATES = "templates"
KNOWLEDGE = "knowledge"
MEMORY = "memory"
PROFILE_FILE = "profile.md"
CONFIG_FILE = "roster.toml"
#: roster's own state beside the vault (database, daemon lock and tokens, parse cache).
STATE_DIR = ".roster"
MAX_SEGMENT = 128


def state_dir(vault_root: str | os.PathLike[str]) -> Path:
    """The ``.roster`` folder beside the vault at ``vault_root``: kept out of the vault,
    which is edited in Obsidian and synced between machines (``store/engine.py`` says
    why); inside it only when the vault is a filesystem root, which has nothing beside."""
    root = Path(vault_root).absolute()
    beside = root.parent
    return root / STATE_DIR if beside == root else beside / STATE_DIR


class EntryKind(StrEnum):
    PROFILE = "profile"
    MCP_SERVER = "mcp-server"


class VaultEntry(NamedTuple):
    """What a vault-relative path means: a profile or an MCP server, its id, its project."""

    kind: EntryKind
    id: str
    project: str | None
    rel_path: str


#: (entry, path, stat or None): a ScannedFile before its path becomes a ``Path``.
RawFile = tuple[VaultEntry, str, os.stat_result | None]

# The common case, answered by one regex: no separators, colons, controls, leading dot,
# "..", or whitespace at either end, lone surrogates (a file name that is not UTF-8, as
# Python decodes it), and not too long.
_UNSAFE_CHARS = r"/\\:\x00-\x1f\x7f-\x9f\ud800-\udfff"
_SAFE_SEGMENT = re.compile(
    r"(?!\.)(?!.*\.\.)(?![\s])[^"
    + _UNSAFE_CHARS
    + r"]{0,"
    + str(MAX_SEGMENT - 1)
    + r"}[^"
    + _UNSAFE_CHARS
    + r"\s]\Z",
    re.S,
)
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def segment_problem(value: object) -> str | None:
    """Why ``value`` is not a single safe path segment, or ``None`` when it is."""
    if isinstance(value, str) and _SAFE_SEGMENT.match(value):
        return None
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__}"
    if not value:
        return "must not be empty"
    if value in {".", ".."} or ".." in value:
        return "must not contain '..'"
    if value.startswith("."):
        return "must not start with a dot"
    for char in value:
        if char in "/\\":
            return f"must not contain {char!r}"
        if char == ":":
            return "must not contain ':'"
        if ord(char) < 32 or 127 <= ord(char) < 160:  # C0, DEL and C1 controls
            return "must not contain control characters"
        if 0xD800 <= ord(char) < 0xE000:  # os.fsdecode's stand-in for a non-UTF-8 byte
            return "must be valid UTF-8"
    if value != value.strip():
        return "must not start or end with whitespace"
    if len(value) > MAX_SEGMENT:
        return f"must be at most {MAX_SEGMENT} characters"
    return None


def check_segment(value: object, what: str = "id") -> str:
    """Return ``value`` if it is a safe single path segment, else raise UnsafeNameError."""
    problem = segment_problem(value)
    if problem is not None:
        raise UnsafeNameError(
            f"{what} {value!r} {problem}",
            hint="use letters, digits, '-' and '_', for example 'code-review'",
        )
    assert isinstance(value, str)
    return value


def shown(name: str) -> str:
    """``name`` as diagnostics print it: control characters and bytes that are not UTF-8
    escaped (``\\n``, ``\\xff``), so a hostile file name cannot break a terminal line or a
    JSON encoder."""
    if not _CONTROLS.search(name):
        return name
    return _CONTROLS.sub(_escape_char, name)


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{code - 0xDC00:02x}"
    return match.group().encode("unicode_escape").decode("ascii")


def classify(rel_path: str) -> VaultEntry | None:
    """Map a vault-relative path (``/`` or ``\\`` separated) to what it holds, or ``None``
    when the layout gives it no meaning. Unsafe segments never classify."""
    parts = PurePosixPath(rel_path.replace("\\", "/")).parts
    entry = _classify_parts(parts)
    if entry is None:
        return None
    kind, ident, project = entry
    if segment_problem(ident) or (project is not None and segment_problem(project)):
        return None
    return VaultEntry(kind, ident, project, "/".join(parts))


def _classify_parts(parts: tuple[str, ...]) -> tuple[EntryKind, str, str | None] | None:
    project: str | None = None
    if len(parts) >= 3 and parts[0] == PROJECTS:
        project, parts = parts[1], parts[2:]
    if len(parts) == 3 and parts[0] == AGENT_TYPES and parts[2] == PROFILE_FILE:
        return EntryKind.PROFILE, parts[1], project
    if len(parts) == 2 and parts[0] == MCP_SERVERS and parts[1].endswith(".md"):
        return EntryKind.MCP_SERVER, parts[1][: -len(".md")], project
    return None


class VaultLayout:
    """Paths inside one vault. All builders validate their segments."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._real_root: str | None = None

    def __repr__(self) -> str:
        return f"VaultLayout({str(self.root)!r})"

    # -- builders -------------------------------------------------------------------------
    def profile_path(self, profile_id: str, project: str | None = None) -> Path:
        base = self._scope(project)
        return base / AGENT_TYPES / check_segment(profile_id, "profile id") / PROFILE_FILE

    def mcp_server_path(self, name: str, project: str | None = None) -> Path:
        return self._scope(project) / MCP_SERVERS / f"{check_segment(name, 'server name')}.md"

    def memory_dir(self, profile_id: str) -> Path:
        return self.root / AGENT_TYPES / check_segment(profile_id, "profile id") / MEMORY

    def knowledge_dir(self, agent_type: str) -> Path:
        return self.root / TEMPLATES / KNOWLEDGE / check_segment(agent_type, "agent type")

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_FILE

    def _scope(self, project: str | None) -> Path:
        if project is None:
            return self.root
        return self.root / PROJECTS / check_segment(project, "project id")

    # -- reading --------------------------------------------------------------------------
    @property
    def real_root(self) -> str:
        """The vault folder with every symlink resolved (the vault given as a symlink is
        fine); the boundary every read and write is checked against."""
        real = self._real_root
        if real is None:
            real = self._real_root = os.path.realpath(self.root)
        return real

    def relative(self, path: str | os.PathLike[str]) -> str:
        """The vault-relative POSIX form of ``path``, a path under the vault folder as
        written (symlinks are not followed: :mod:`agent_roster.vault.guard` checks them)."""
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(self.root))
        if rel == os.curdir:
            return ""
        if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
            raise VaultError(f"{os.fspath(path)} is outside the vault {self.root}")
        return Path(rel).as_posix()

    def contains(self, real: str) -> bool:
        """True when the resolved path ``real`` is the vault folder or lies under it."""
        root = self.real_root
        return real == root or real.startswith(root if root.endswith(os.sep) else root + os.sep)

    def is_inside(self, path: str | os.PathLike[str]) -> bool:
        """True when ``path``, with every symlink followed, stays inside the vault."""
        return self.contains(os.path.realpath(path))

    def iter_entries(self, skipped: list[Diagnostic] | None = None) -> Iterator[ScannedFile]:
        """Every profile and MCP server file the layout defines, system scope first.

        Only the layout's own folders are listed (no recursive walk). Nothing reached
        through a symlink that leaves the vault is yielded or listed; that, and every other
        file in a layout folder that is not loaded (an unsafe name, a wrong extension, a
        ``profile.md`` at the wrong depth, a file that cannot be read), is added to
        ``skipped`` as a diagnostic saying why (``vault/scan.py``)."""
        for entry, path, info in self.iter_files(skipped):
            yield ScannedFile(entry, Path(path), info)

    def iter_files(self, skipped: list[Diagnostic] | None = None) -> Iterator[RawFile]:
        """``iter_entries`` with plain string paths, for the bulk reader: building a
        ``Path`` per file costs more than the read itself."""
        # The scanner needs the names above; it is imported when a vault is listed.
        from agent_roster.vault.scan import scan_vault

        return scan_vault(self, skipped)


class ScannedFile(NamedTuple):
    entry: VaultEntry
    path: Path
    #: The file's stat when the scan already has it (saves sync a second system call).
    stat: os.stat_result | None = None
