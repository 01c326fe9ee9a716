"""Loading a whole vault: every profile and MCP server file, parsed and cross-checked.

This is the one read path that ``validate``, ``show`` and sync share. Files are listed by the
layout (no recursive walk), MCP servers are parsed first so the known-tools registry can name
their tools, then every profile. Cross-file rules (unknown MCP server names, ``extends``
targets and cycles) are checked once everything is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, KnownTools
from agent_roster.perf import paused_gc
from agent_roster.vault.jsonblock import JsonBlock
from agent_roster.vault.mcp_parser import ParsedServer, parse_mcp_server
from agent_roster.vault.paths import (
    AGENT_TYPES,
    CONFIG_FILE,
    MCP_SERVERS,
    PROJECTS,
    EntryKind,
    ScannedFile,
    VaultLayout,
    classify,
)
from agent_roster.vault.profile_parser import ParsedProfile, parse_profile

Key = tuple[str | None, str]  # (project id or None, profile id / server name)


class VaultSnapshot(NamedTuple):
    """Everything read from a vault in one pass."""

    layout: VaultLayout
    profiles: dict[Key, ParsedProfile]
    servers: dict[Key, ParsedServer]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def files(self) -> int:
        return (
            len(self.profiles)
            + len(self.servers)
            + sum(
                1 for d in self.diagnostics if d.code in ("file-unreadable", "path-outside-vault")
            )
        )

    def all_diagnostics(self) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        for parsed in self.servers.values():
            found.extend(parsed.diagnostics)
        for parsed_profile in self.profiles.values():
            found.extend(parsed_profile.diagnostics)
        found.extend(self.diagnostics)
        return found


def read_bytes(scanned: ScannedFile, out: list[Diagnostic]) -> bytes | None:
    """Read one listed file, refusing ones whose symlinks leave the vault."""
    rel = scanned.entry.rel_path
    if scanned.escapes:
        out.append(
            dx.make(
                "path-outside-vault",
                f"{rel} is a symlink that leads outside the vault; it was not read",
                path=rel,
                hint="copy the file into the vault instead of linking to it",
            )
        )
        return None
    try:
        return scanned.path.read_bytes()
    except OSError as exc:
        out.append(
            dx.make(
                "file-unreadable",
                f"cannot read {rel}: {exc.strerror}",
                path=rel,
                hint="check the file's permissions",
            )
        )
        return None


def server_names(servers: Iterable[Key], project: str | None) -> set[str]:
    """Server names visible from ``project``: system entries plus the project's own."""
    return {name for scope, name in servers if scope is None or scope == project}


def load_vault(
    root: str | os.PathLike[str], *, embedded: str = DEFAULT_EMBEDDED_SERVER
) -> VaultSnapshot:
    """Read and validate every profile and MCP server file under ``root``."""
    with paused_gc():
        return _load(VaultLayout(root), embedded)


def _load(layout: VaultLayout, embedded: str) -> VaultSnapshot:
    extra: list[Diagnostic] = []
    servers: dict[Key, ParsedServer] = {}
    profiles: dict[Key, ParsedProfile] = {}
    known_by_scope: dict[str | None, KnownTools] = {}
    # iter_entries lists each scope's servers before its profiles, and the system scope
    # before any project, so the registry a profile is checked against is complete when the
    # profile is parsed, and no file's bytes need to be kept around.
    for item in layout.iter_entries():
        raw = read_bytes(item, extra)
        if raw is None:
            continue
        entry = item.entry
        if entry.kind is EntryKind.MCP_SERVER:
            servers[(entry.project, entry.id)] = parse_mcp_server(
                raw, path=entry.rel_path, expected_name=entry.id, project=entry.project
            )
            continue
        known = known_by_scope.get(entry.project)
        if known is None:
            known = KnownTools(server_names(servers, entry.project), embedded=embedded)
            known_by_scope[entry.project] = known
        profiles[(entry.project, entry.id)] = parse_profile(
            raw,
            path=entry.rel_path,
            expected_id=entry.id,
            project=entry.project,
            known_tools=known,
        )
    _cross_check(profiles, servers, embedded, extra)
    return VaultSnapshot(layout, profiles, servers, tuple(extra))


def _cross_check(
    profiles: dict[Key, ParsedProfile],
    servers: dict[Key, ParsedServer],
    embedded: str,
    out: list[Diagnostic],
) -> None:
    system_ids = {ident for (project, ident) in profiles if project is None}
    visible_by_scope: dict[str | None, set[str]] = {}
    for (project, _ident), parsed in profiles.items():
        profile = parsed.profile
        if profile is None or parsed.document is None:
            continue
        visible = visible_by_scope.get(project)
        if visible is None:
            visible = server_names(servers, project) | {embedded}
            visible_by_scope[project] = visible
        for name in profile.mcp_servers:
            if name not in visible:
                where = "this project's or the system " if project else ""
                line, column = _mcp_name_position(parsed, name)
                out.append(
                    dx.make(
                        "mcp-server-unknown",
                        f"MCP server {name!r} is not in {where}registry",
                        path=profile.source,
                        line=line,
                        column=column,
                        hint=f"add mcp-servers/{name}.md, or remove the name",
                    )
                )
        if profile.extends is not None and profile.extends not in system_ids:
            out.append(
                dx.make(
                    "field-value",
                    f"'extends' names {profile.extends!r}, which is not a profile in this vault",
                    path=profile.source,
                    line=_frontmatter_line(parsed, "extends"),
                    hint="name an existing agent-types/<id>",
                )
            )
    _check_cycles(profiles, out)


def _check_cycles(profiles: dict[Key, ParsedProfile], out: list[Diagnostic]) -> None:
    parents = {
        ident: parsed.profile.extends
        for (project, ident), parsed in profiles.items()
        if project is None and parsed.profile is not None and parsed.profile.extends
    }
    reported: set[str] = set()
    for start in sorted(parents):
        chain = [start]
        current = parents.get(start)
        while current is not None and current not in chain:
            chain.append(current)
            current = parents.get(current)
        if current is not None and current not in reported:
            # Report each cycle once, on its alphabetically first member whichever profile
            # led to it; a profile that merely leads into a cycle is not part of it.
            members = chain[chain.index(current) :]
            first = members.index(min(members))
            cycle = [*members[first:], *members[:first], members[first]]
            reported.update(cycle)
            current = cycle[0]
            parsed = profiles[(None, current)]
            out.append(
                dx.make(
                    "field-value",
                    "'extends' forms a cycle: " + " → ".join(cycle),
                    path=parsed.profile.source if parsed.profile else current,
                    line=_frontmatter_line(parsed, "extends"),
                    hint="one profile in the cycle must not extend another",
                )
            )


def _mcp_name_position(parsed: ParsedProfile, name: str) -> tuple[int, int]:
    """Where ``name`` is written in the profile's ## MCP Servers block (the heading if the
    block cannot be found again)."""
    document = parsed.document
    if document is None:
        return 1, 1
    section = next((s for s in document.structure.sections if s.key == "mcp servers"), None)
    if section is None:
        return 1, 1
    fence = next((f for f in section.fences if f.lang == "json" and f.closed), None)
    if fence is None:
        return section.line, section.column
    content = document.text[fence.content_start : fence.content_end]
    try:
        value = json.loads(content)
    except (ValueError, RecursionError):
        return section.line, section.column
    block = JsonBlock(content, fence.content_line, value)
    if isinstance(value, list) and name in value:
        return block.position((value.index(name),))
    return block.position((name,), key=True)


def _frontmatter_line(parsed: ParsedProfile, key: str) -> int:
    if parsed.document is None:
        return 1
    mark = parsed.document.frontmatter.key_marks.get(key)
    return mark.line if mark else 1


def locate_vault(file: Path) -> tuple[Path, str] | None:
    """For a file inside some vault's layout, the vault root and the file's relative path."""
    resolved = file.resolve()
    for ancestor in resolved.parents:
        rel = resolved.relative_to(ancestor).as_posix()
        entry = classify(rel)
        if entry is None:
            continue
        # <root>/projects/<pid>/agent-types/x/profile.md also reads as a system profile of a
        # vault rooted at projects/<pid>; it is a project override when <root> looks like a
        # vault (a folder called "projects" alone proves nothing: ~/projects/my-vault).
        outer = ancestor.parent.parent
        if entry.project is None and ancestor.parent.name == PROJECTS and _looks_like_vault(outer):
            outer_rel = resolved.relative_to(outer).as_posix()
            if classify(outer_rel) is not None:
                return outer, outer_rel
        return ancestor, rel
    return None


def _looks_like_vault(root: Path) -> bool:
    return (
        (root / AGENT_TYPES).is_dir()
        or (root / MCP_SERVERS).is_dir()
        or (root / CONFIG_FILE).is_file()
    )
