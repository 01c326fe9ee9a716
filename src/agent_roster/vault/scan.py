"""Listing a vault: every profile and MCP server file to load, and a diagnostic for every
other file in the layout's folders that is not loaded (issue 12 item 6).

The scan never walks the tree. It lists ``agent-types/`` and ``mcp-servers/`` of the system
scope and of each project, and looks one level further only into a profile folder without a
``profile.md``, to say why nothing there loads. Names starting with a dot are hidden and
left alone (editors, Obsidian and roster's own temporary files use them), and so are
``memory/`` folders, ``templates/`` and everything else a project folder holds.

Security (issue 11): each folder on the way to a file is checked once. A folder entry that is
a symlink pays for one ``realpath``; everything else is proven inside by its parent, so a
plain vault costs one directory read per layout folder and one ``lstat`` per profile.
Nothing under a symlink that leaves the vault is listed or read: the link itself is
reported (``path-outside-vault``).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from operator import attrgetter

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.vault.guard import outside_diagnostic
from agent_roster.vault.paths import (
    AGENT_TYPES,
    MCP_SERVERS,
    MEMORY,
    PROFILE_FILE,
    PROJECTS,
    EntryKind,
    RawFile,
    VaultEntry,
    VaultLayout,
    segment_problem,
    shown,
)

_new = tuple.__new__
_by_name = attrgetter("name")
_PROFILE = EntryKind.PROFILE
_SERVER = EntryKind.MCP_SERVER
# agent-queue's retired flat layout for project overrides (agent-types/project:<p>:<t>/).
_FLAT_OVERRIDE = re.compile(r"project:([^:]+):([^:]+)\Z")

_PROFILE_HINT = "a profile is agent-types/<id>/profile.md"


def scan_vault(layout: VaultLayout, skipped: list[Diagnostic] | None) -> Iterator[RawFile]:
    """Every layout file to load, each scope's servers before its profiles and the system
    scope first (the loader relies on that order). Reasons for everything else go to
    ``skipped`` (not built when it is ``None``)."""
    scan = _Scan(layout, skipped)
    root = os.fspath(layout.root)
    yield from scan.scope(root, None)
    projects = os.path.join(root, PROJECTS)
    if not scan.enter(projects, PROJECTS):
        return
    for entry in scan.listdir(projects, PROJECTS):
        name = entry.name
        if name[0] == ".":
            continue
        rel = f"{PROJECTS}/{name}"
        if entry.is_symlink():
            if not scan.inside(entry.path, rel, folder=True) or not entry.is_dir():
                continue
        elif not entry.is_dir():
            continue  # notes and indexes may sit beside the project folders
        problem = segment_problem(name)
        if problem is not None:
            scan.unsafe_project(entry.path, rel, name, problem)
            continue
        yield from scan.scope(entry.path, name)


class _Scan:
    def __init__(self, layout: VaultLayout, skipped: list[Diagnostic] | None) -> None:
        self.layout = layout
        self.out = skipped

    # -- reasons ----------------------------------------------------------------------------
    def skip(self, code: str, rel: str, message: str, hint: str) -> None:
        if self.out is not None:
            self.out.append(dx.make(code, message, path=shown(rel), hint=hint))

    def unreadable(self, rel: str, why: str, hint: str = "check the file's permissions") -> None:
        self.skip("file-unreadable", rel, f"cannot read {shown(rel)}: {why}", hint)

    def inside(self, path: str, rel: str, *, folder: bool) -> bool:
        """True when the symlink ``path`` stays inside the vault; else it is reported."""
        if self.layout.contains(os.path.realpath(path)):
            return True
        if self.out is not None:
            self.out.append(outside_diagnostic(rel, folder=folder))
        return False

    def follow(
        self, path: str, rel: str, info: os.stat_result, *, folder: bool
    ) -> os.stat_result | None:
        """``info`` (the ``lstat`` of ``path``), or for a symlink the stat of what it leads
        to; ``None`` (reported) when the link leads outside the vault or to nothing."""
        if not stat.S_ISLNK(info.st_mode):
            return info
        if not self.inside(path, rel, folder=folder):
            return None
        try:
            return os.stat(path)
        except OSError:
            self.unreadable(rel, "it is a symlink to nothing", "fix or remove the link")
            return None

    def enter(self, path: str, rel: str) -> bool:
        """True when the layout folder ``path`` exists, is a folder, and stays inside."""
        try:
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError as exc:
            self.unreadable(rel, exc.strerror or str(exc), "check the folder's permissions")
            return False
        followed = self.follow(path, rel, info, folder=True)
        if followed is None:
            return False
        if not stat.S_ISDIR(followed.st_mode):
            self.skip(
                "layout-unknown",
                rel,
                f"{shown(rel)} is not a folder, so nothing was read from it",
                "the vault layout expects a folder here",
            )
            return False
        return True

    def listdir(self, path: str, rel: str) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(path) as it:
                return sorted(it, key=_by_name)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            self.skip(
                "file-unreadable",
                rel,
                f"cannot list {shown(rel)}/: {exc.strerror}; nothing in it was read",
                "check the folder's permissions",
            )
            return []

    # -- one scope --------------------------------------------------------------------------
    def scope(self, base: str, project: str | None) -> Iterator[RawFile]:
        """A scope's MCP servers, then its profiles: the registry a profile is checked
        against is complete before the profile is read."""
        prefix = f"{PROJECTS}/{project}/" if project else ""
        sep = os.sep
        stray = f"{base}{sep}{PROFILE_FILE}"
        if self.out is not None and os.path.lexists(stray):
            self.skip(
                "layout-unknown",
                f"{prefix}{PROFILE_FILE}",
                f"{prefix}{PROFILE_FILE} is not loaded: it sits outside agent-types/",
                f"move it to {prefix}{AGENT_TYPES}/<id>/{PROFILE_FILE}",
            )
        folder = f"{base}{sep}{MCP_SERVERS}"
        if self.enter(folder, f"{prefix}{MCP_SERVERS}"):
            yield from self.servers(folder, f"{prefix}{MCP_SERVERS}", project)
        folder = f"{base}{sep}{AGENT_TYPES}"
        if self.enter(folder, f"{prefix}{AGENT_TYPES}"):
            yield from self.profiles(folder, f"{prefix}{AGENT_TYPES}", project)

    def servers(self, folder: str, base_rel: str, project: str | None) -> Iterator[RawFile]:
        sep = os.sep
        for entry in self.listdir(folder, base_rel):
            name = entry.name
            if name[0] == ".":
                continue
            rel = f"{base_rel}/{name}"
            if name.endswith(".md") and segment_problem(name[:-3]) is None:
                if entry.is_symlink() and not self.inside(entry.path, rel, folder=False):
                    continue
                if entry.is_file():
                    yield VaultEntry(_SERVER, name[:-3], project, rel), f"{folder}{sep}{name}", None
                else:
                    self.not_a_file(entry, rel)
            elif name.endswith(".md"):
                problem = segment_problem(name[:-3])
                self.skip(
                    "name-unsafe",
                    rel,
                    f"{shown(rel)} is not loaded: the server name {shown(name[:-3])!r} {problem}",
                    "rename the file: use letters, digits, '-' and '_'",
                )
            elif entry.is_dir():
                self.skip(
                    "layout-unknown",
                    rel,
                    f"{shown(rel)}/ is not read: MCP server files sit directly in {base_rel}/",
                    f"move its servers to {base_rel}/<name>.md",
                )
            else:
                self.skip(
                    "layout-unknown",
                    rel,
                    f"{shown(rel)} is not loaded: an MCP server file must end in .md",
                    f"rename it to {base_rel}/<name>.md if it defines a server",
                )

    def profiles(self, folder: str, base_rel: str, project: str | None) -> Iterator[RawFile]:
        sep = os.sep
        lstat = os.lstat
        is_regular = stat.S_ISREG
        for entry in self.listdir(folder, base_rel):
            name = entry.name
            if name[0] == ".":
                continue
            if segment_problem(name) is None and not entry.is_symlink():
                if not entry.is_dir():
                    self.stray_file(f"{base_rel}/{name}")
                    continue
                path = f"{folder}{sep}{name}{sep}{PROFILE_FILE}"
                try:
                    info = lstat(path)
                except OSError as exc:
                    self.no_profile(entry.path, f"{base_rel}/{name}", exc)
                    continue
                if is_regular(info.st_mode):
                    rel = f"{base_rel}/{name}/{PROFILE_FILE}"
                    # The tuple constructor skips VaultEntry's Python-level ``__new__``.
                    yield _new(VaultEntry, (_PROFILE, name, project, rel)), path, info
                    continue
            found = self.odd_profile(entry, f"{base_rel}/{name}", project)
            if found is not None:
                yield found

    # -- the unusual cases (off the hot path) ------------------------------------------------
    def odd_profile(
        self, entry: os.DirEntry[str], folder_rel: str, project: str | None
    ) -> RawFile | None:
        """A profile folder that is a symlink or has an unsafe name, or whose profile.md is
        not a plain file: the file to load, if there is one, else its reason reported."""
        name = entry.name
        problem = segment_problem(name)
        if entry.is_symlink() and not self.inside(entry.path, folder_rel, folder=True):
            return None
        if not entry.is_dir():
            self.stray_file(folder_rel)
            return None
        path = os.path.join(entry.path, PROFILE_FILE)
        rel = f"{folder_rel}/{PROFILE_FILE}"
        if problem is not None:
            flat = _FLAT_OVERRIDE.match(name)
            hint = (
                f"a project override lives at {PROJECTS}/{flat[1]}/{AGENT_TYPES}/{flat[2]}/"
                f"{PROFILE_FILE}"
                if flat
                else "rename the folder: use letters, digits, '-' and '_'"
            )
            where = rel if os.path.lexists(path) else folder_rel
            self.skip(
                "name-unsafe",
                where,
                f"{shown(where)} is not loaded: the folder name {shown(name)!r} {problem}",
                hint,
            )
            return None
        try:
            info = os.lstat(path)
        except OSError as exc:
            self.no_profile(entry.path, folder_rel, exc)
            return None
        followed = self.follow(path, rel, info, folder=False)
        if followed is None:
            return None
        if stat.S_ISREG(followed.st_mode):
            return VaultEntry(_PROFILE, name, project, rel), path, followed
        self.unreadable(
            rel,
            "it is a folder, not a file"
            if stat.S_ISDIR(followed.st_mode)
            else "it is not a regular file",
            "a profile is a markdown file",
        )
        return None

    def no_profile(self, folder: str, folder_rel: str, exc: OSError) -> None:
        """Say why a profile folder without a readable profile.md loads nothing."""
        if not isinstance(exc, FileNotFoundError):
            self.unreadable(f"{folder_rel}/{PROFILE_FILE}", exc.strerror or str(exc))
            return
        if self.out is None:
            return
        for entry in self.listdir(folder, folder_rel):
            name = entry.name
            if name[0] == "." or name == MEMORY:
                continue
            rel = f"{folder_rel}/{name}"
            if entry.is_dir(follow_symlinks=False):
                if os.path.lexists(os.path.join(entry.path, PROFILE_FILE)):
                    self.skip(
                        "layout-unknown",
                        f"{rel}/{PROFILE_FILE}",
                        f"{shown(rel)}/{PROFILE_FILE} is not loaded: it is one folder too deep",
                        f"{_PROFILE_HINT}; move it up, or to {AGENT_TYPES}/{shown(name)}/",
                    )
                continue
            self.skip(
                "layout-unknown",
                rel,
                f"{shown(rel)} is not loaded: {shown(folder_rel)}/ has no {PROFILE_FILE}",
                f"{_PROFILE_HINT}; rename the file if it is this agent's profile",
            )

    def stray_file(self, rel: str) -> None:
        self.skip(
            "layout-unknown",
            rel,
            f"{shown(rel)} is not loaded: {AGENT_TYPES}/ holds one folder per profile",
            f"{_PROFILE_HINT}; move it to {AGENT_TYPES}/<id>/{PROFILE_FILE}",
        )

    def not_a_file(self, entry: os.DirEntry[str], rel: str) -> None:
        try:
            info = entry.stat()
        except OSError:
            self.unreadable(rel, "it is a symlink to nothing", "fix or remove the link")
            return
        self.unreadable(
            rel,
            "it is a folder, not a file" if stat.S_ISDIR(info.st_mode) else "not a regular file",
            "an MCP server is a markdown file",
        )

    def unsafe_project(self, path: str, rel: str, name: str, problem: str) -> None:
        """A project folder with an unsafe name is reported when it holds profiles or
        servers (a project folder may hold anything else)."""
        for part in (AGENT_TYPES, MCP_SERVERS):
            if os.path.lexists(os.path.join(path, part)):
                self.skip(
                    "name-unsafe",
                    f"{rel}/{part}",
                    f"{shown(rel)}/{part}/ is not loaded: the project id {shown(name)!r} {problem}",
                    "rename the project folder: use letters, digits, '-' and '_'",
                )
