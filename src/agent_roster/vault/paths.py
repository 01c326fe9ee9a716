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
path segment goes through :func:`check_segment` first, so no input can point outside the vault.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from agent_roster.errors import UnsafeNameError, VaultError

AGENT_TYPES = "agent-types"
PROJECTS = "projects"
MCP_SERVERS = "mcp-servers"
TEMPLATES = "templates"
KNOWLEDGE = "knowledge"
MEMORY = "memory"
PROFILE_FILE = "profile.md"
CONFIG_FILE = "roster.toml"
MAX_SEGMENT = 128


class EntryKind(StrEnum):
    PROFILE = "profile"
    MCP_SERVER = "mcp-server"


class VaultEntry(NamedTuple):
    """What a vault-relative path means: a profile or an MCP server, its id, its project."""

    kind: EntryKind
    id: str
    project: str | None
    rel_path: str


_new = tuple.__new__

#: (entry, path, escapes, stat or None): a ScannedFile before its path becomes a ``Path``.
RawFile = tuple[VaultEntry, str, bool, os.stat_result | None]

# The common case, answered by one regex: no separators, colons, controls, leading dot,
# "..", or whitespace at either end, and not too long.
_SAFE_SEGMENT = re.compile(
    r"(?!\.)(?!.*\.\.)(?![\s])[^/\\:\x00-\x1f\x7f-\x9f]{0,"
    + str(MAX_SEGMENT - 1)
    + r"}[^/\\:\x00-\x1f\x7f-\x9f\s]\Z",
    re.S,
)


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
    def relative(self, path: str | os.PathLike[str]) -> str:
        """The vault-relative POSIX form of ``path`` (which must lie inside the vault)."""
        try:
            rel = Path(path).resolve().relative_to(self.root.resolve())
        except ValueError:
            raise VaultError(f"{os.fspath(path)} is outside the vault {self.root}") from None
        return rel.as_posix()

    def is_inside(self, path: str | os.PathLike[str]) -> bool:
        """True when ``path``, with every symlink followed, stays inside the vault."""
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(path)
        return real == real_root or real.startswith(real_root + os.sep)

    def iter_entries(self) -> Iterator[ScannedFile]:
        """Every profile and MCP server file the layout defines, system scope first.

        Only the layout's own folders are listed (no recursive walk), and hidden or unsafe
        names are skipped, so memory notes, editor files and ``.obsidian/`` cost nothing.
        A file reached through a symlink that leaves the vault is yielded with
        ``escapes=True`` so callers report it instead of reading it."""
        for entry, path, escapes, info in self.iter_files():
            yield ScannedFile(entry, Path(path), escapes, info)

    def iter_files(self) -> Iterator[RawFile]:
        """``iter_entries`` with plain string paths, for the bulk reader: building a
        ``Path`` per file costs more than the read itself."""
        scan = _Scanner(os.path.realpath(self.root))
        root = os.fspath(self.root)
        yield from scan.scope(root, None, False)
        projects = os.path.join(root, PROJECTS)
        for project, escapes in scan.subdirs(projects, False):
            yield from scan.scope(os.path.join(projects, project), project, escapes)


class ScannedFile(NamedTuple):
    entry: VaultEntry
    path: Path
    escapes: bool
    #: The file's stat when the scan already has it (saves sync a second system call).
    stat: os.stat_result | None = None


class _Scanner:
    """Lists layout folders with ``os.scandir``; symlinks are the only entries that pay for
    a ``realpath`` check, so a plain vault costs one directory read per folder."""

    def __init__(self, real_root: str) -> None:
        self.real_root = real_root

    def _escapes(self, path: str) -> bool:
        real = os.path.realpath(path)
        return not (real == self.real_root or real.startswith(self.real_root + os.sep))

    def scope(self, base: str, project: str | None, escapes: bool) -> Iterator[RawFile]:
        """A scope's MCP servers, then its profiles: the registry a profile is checked
        against is complete before the profile is read."""
        prefix = f"{PROJECTS}/{project}/" if project else ""
        sep = os.sep
        servers = f"{base}{sep}{MCP_SERVERS}"
        for name, file_escapes in self.files(servers, ".md", escapes):
            rel = f"{prefix}{MCP_SERVERS}/{name}"
            entry = VaultEntry(EntryKind.MCP_SERVER, name[:-3], project, rel)
            yield entry, f"{servers}{sep}{name}", file_escapes, None
        folder = f"{base}{sep}{AGENT_TYPES}"
        profile_kind = EntryKind.PROFILE
        for ident, dir_escapes in self.subdirs(folder, escapes):
            path = f"{folder}{sep}{ident}{sep}{PROFILE_FILE}"
            try:
                info = os.lstat(path)
            except OSError:
                continue
            mode = info.st_mode
            if stat.S_ISREG(mode):
                rel = f"{prefix}{AGENT_TYPES}/{ident}/{PROFILE_FILE}"
                # The tuple constructor skips VaultEntry's Python-level ``__new__``.
                yield _new(VaultEntry, (profile_kind, ident, project, rel)), path, dir_escapes, info
            elif stat.S_ISLNK(mode) and os.path.isfile(path):
                file_escapes = dir_escapes or self._escapes(path)
                rel = f"{prefix}{AGENT_TYPES}/{ident}/{PROFILE_FILE}"
                yield VaultEntry(profile_kind, ident, project, rel), path, file_escapes, None

    def subdirs(self, folder: str, escapes: bool) -> list[tuple[str, bool]]:
        found = []
        try:
            with os.scandir(folder) as it:
                for e in it:
                    if segment_problem(e.name) is not None or not e.is_dir():
                        continue
                    found.append((e.name, escapes or (e.is_symlink() and self._escapes(e.path))))
        except (FileNotFoundError, NotADirectoryError):
            return []
        found.sort()
        return found

    def files(self, folder: str, suffix: str, escapes: bool) -> list[tuple[str, bool]]:
        found = []
        try:
            with os.scandir(folder) as it:
                for e in it:
                    if not e.name.endswith(suffix):
                        continue
                    if segment_problem(e.name[: -len(suffix)]) is not None or not e.is_file():
                        continue
                    found.append((e.name, escapes or (e.is_symlink() and self._escapes(e.path))))
        except (FileNotFoundError, NotADirectoryError):
            return []
        found.sort()
        return found
