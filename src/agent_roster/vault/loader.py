"""Loading a whole vault: every profile and MCP server file, parsed and cross-checked.

This is the one read path that ``validate``, ``show`` and sync share. Files are listed by the
layout (no recursive walk), MCP servers are parsed first so the known-tools registry can name
their tools, then every profile. Cross-file rules (unknown MCP server names, ``extends``
targets and cycles) are checked once everything is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, KnownTools
from agent_roster.model.profile import AgentProfile
from agent_roster.perf import paused_gc
from agent_roster.vault import parallel_load, parse_cache
from agent_roster.vault.document import normalise
from agent_roster.vault.jsonblock import JsonBlock
from agent_roster.vault.mcp_parser import ParsedServer, parse_mcp_server
from agent_roster.vault.packed import restore
from agent_roster.vault.paths import (
    AGENT_TYPES,
    CONFIG_FILE,
    MCP_SERVERS,
    PROJECTS,
    EntryKind,
    RawFile,
    ScannedFile,
    VaultEntry,
    VaultLayout,
    classify,
)
from agent_roster.vault.profile_parser import ParsedProfile, parse_profile

Key = tuple[str | None, str]  # (project id or None, profile id / server name)


class VaultSnapshot(NamedTuple):
    """Everything read from a vault in one pass. ``diagnostics`` holds the vault-level
    ones: files in the layout that were not loaded (and why), and cross-file checks."""

    layout: VaultLayout
    profiles: dict[Key, ParsedProfile]
    servers: dict[Key, ParsedServer]
    diagnostics: tuple[Diagnostic, ...]
    #: The part of ``diagnostics`` that says why a file in the layout was not loaded
    #: (issue 12 item 6: nothing is skipped silently).
    unloaded: tuple[Diagnostic, ...] = ()

    @property
    def files(self) -> int:
        return len(self.profiles) + len(self.servers) + len(self.unloaded)

    def all_diagnostics(self) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        for parsed in self.servers.values():
            found.extend(parsed.diagnostics)
        for parsed_profile in self.profiles.values():
            found.extend(parsed_profile.diagnostics)
        found.extend(self.diagnostics)
        return found


def read_bytes(scanned: ScannedFile, out: list[Diagnostic]) -> bytes | None:
    """Read one file a scan listed (a scan lists nothing a symlink leads out of the vault)."""
    size = scanned.stat.st_size if scanned.stat is not None else -1
    return _read(scanned.entry, os.fspath(scanned.path), size, out)


def _read(entry: VaultEntry, path: str, size: int, out: list[Diagnostic]) -> bytes | None:
    try:
        return _read_file(path, size)
    except OSError as exc:
        out.append(
            dx.make(
                "file-unreadable",
                f"cannot read {entry.rel_path}: {exc.strerror}",
                path=entry.rel_path,
                hint="check the file's permissions",
            )
        )
        return None


# O_NONBLOCK: a FIFO swapped in for a listed file must not hang the load (a regular
# file's reads are unaffected).
_O_READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_O_READ |= getattr(os, "O_NONBLOCK", 0)


def _read_file(path: str, size: int) -> bytes:
    """The whole file, with plain system calls: ``open()`` builds a buffered file object
    per call, which costs a vault of small files more than the reads. ``size`` (from the
    listing's stat, or -1) sizes the first read; a file that grew since is read to its end."""
    fd = os.open(path, _O_READ)
    try:
        want = size + 1 if size >= 0 else 65536
        data = os.read(fd, want)
        if len(data) < want:
            return data
        chunks = [data]
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def server_names(servers: Iterable[Key], project: str | None) -> set[str]:
    """Server names visible from ``project``: system entries plus the project's own."""
    return {name for scope, name in servers if scope is None or scope == project}


def load_vault(
    root: str | os.PathLike[str],
    *,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    workers: int = 0,
    commands: Iterable[str] = (),
    catalog: Mapping[Key, frozenset[str]] | None = None,
    cache: bool = False,
) -> VaultSnapshot:
    """Read and validate every profile and MCP server file under ``root``. With
    ``workers``, a large vault's profiles are parsed by that many forked processes as well
    (``vault/parallel_load.py``); with ``cache``, a large vault's clean parses are kept
    between runs and files whose bytes have not changed are not parsed again
    (``vault/parse_cache.py``). The snapshot is the same either way. ``embedded`` and ``commands``
    are roster.toml's ``[embedded_server]`` name and extra command names. ``catalog`` holds
    the tools probed servers offer, by (project, server): names of those servers' tools are
    checked against it."""
    with paused_gc():
        return _load(VaultLayout(root), embedded, workers, tuple(commands), catalog or {}, cache)


def _scope_catalog(
    catalog: Mapping[Key, frozenset[str]], project: str | None
) -> dict[str, frozenset[str]]:
    """The probed tools visible from ``project``: its own entries shadow system ones."""
    visible = {name: tools for (scope, name), tools in catalog.items() if scope is None}
    if project is not None:
        visible.update({n: t for (scope, n), t in catalog.items() if scope == project})
    return visible


def _load(
    layout: VaultLayout,
    embedded: str,
    workers: int,
    commands: tuple[str, ...] = (),
    catalog: Mapping[Key, frozenset[str]] | None = None,
    cache: bool = False,
) -> VaultSnapshot:
    catalog = catalog or {}
    extra: list[Diagnostic] = []
    files = list(layout.iter_files(extra))
    early: dict[int, ParsedProfile] = {}
    assumed: dict[str | None, set[str]] = {}
    count = sum(1 for f in files if f[0].kind is EntryKind.PROFILE)
    # One memo of unknown-tool hints for the whole load, every scope's KnownTools shares it.
    suggestions: dict[str, str] = {}
    kept = _open_cache(layout, count) if cache else None
    keyer: parse_cache.Keyer | None = None
    #: The cache key of the bytes each profile file (by index) was parsed from.
    keys: dict[int, bytes] = {}
    if kept is not None or (workers and count >= parallel_load.PARALLEL_MIN_PROFILES):
        assumed = parallel_load.assumed_server_names(files)
    if kept is not None:
        contexts = {
            scope: parse_cache.context(embedded, commands, names, _scope_catalog(catalog, scope))
            for scope, names in assumed.items()
        }
        keyer = kept.keyer(contexts)
        if len(kept):
            _cached(files, kept, keyer, early, keys)
    if workers and count - len(early) >= parallel_load.PARALLEL_MIN_PROFILES:
        known_tools = {
            scope: KnownTools(
                names,
                embedded=embedded,
                commands=commands,
                catalog=_scope_catalog(catalog, scope),
                suggestions=suggestions,
            )
            for scope, names in assumed.items()
        }
        parsed = parallel_load.parse_clean(
            files, known_tools, _read, workers, skip=early.keys(), keyer=keyer
        )
        early.update(parsed.profiles)
        keys.update(parsed.keys)
    servers: dict[Key, ParsedServer] = {}
    profiles: dict[Key, ParsedProfile] = {}
    known_by_scope: dict[str | None, KnownTools] = {}
    # iter_entries lists each scope's servers before its profiles, and the system scope
    # before any project, so the registry a profile is checked against is complete when the
    # profile is parsed, and no file's bytes need to be kept around.
    server_kind = EntryKind.MCP_SERVER
    known: KnownTools | None = None
    known_scope: str | None = None
    # A scope's early results count only if its registry is the one they were checked
    # against (a server file that cannot be read changes it).
    trusted: dict[str | None, bool] = {}
    for index, (entry, path, info) in enumerate(files):
        kind, ident, project, rel_path = entry
        if kind is not server_kind and index in early:
            trust = trusted.get(project)
            if trust is None:
                trust = trusted[project] = server_names(servers, project) == assumed[project]
            if trust:
                profiles[(project, ident)] = early[index]
                continue
        raw = _read(entry, path, info.st_size if info is not None else -1, extra)
        if raw is None:
            continue
        if keyer is not None and kind is not server_kind:
            keys[index] = keyer(entry, raw)
        if kind is server_kind:
            servers[(project, ident)] = parse_mcp_server(
                raw, path=rel_path, expected_name=ident, project=project
            )
            continue
        if known is None or project != known_scope:
            known = known_by_scope.get(project)
            if known is None:
                known = KnownTools(
                    server_names(servers, project),
                    embedded=embedded,
                    commands=commands,
                    catalog=_scope_catalog(catalog, project),
                    suggestions=suggestions,
                )
                known_by_scope[project] = known
            known_scope = project
        profiles[(project, ident)] = parse_profile(
            raw, path=rel_path, expected_id=ident, project=project, known_tools=known
        )
    if kept is not None:
        _keep(files, kept, keys, profiles, servers, assumed)
    unloaded = tuple(extra)
    _cross_check(profiles, servers, embedded, extra)
    return VaultSnapshot(layout, profiles, servers, tuple(extra), unloaded)


def _open_cache(layout: VaultLayout, count: int) -> parse_cache.ParseCache | None:
    if count < parse_cache.CACHE_MIN_PROFILES or not parse_cache.enabled():
        return None
    return parse_cache.ParseCache.open(parse_cache.cache_path(layout.root))


def _cached(
    files: list[RawFile],
    kept: parse_cache.ParseCache,
    keyer: parse_cache.Keyer,
    early: dict[int, ParsedProfile],
    keys: dict[int, bytes],
) -> None:
    # Each profile file whose bytes the cache knows, as it was parsed, into ``early``: the
    # loader's pass then trusts it as it trusts a worker's parse (only if its scope's
    # registry is the one assumed). A file that cannot be read is left for that pass,
    # which reports it.
    for index, (entry, path, info) in enumerate(files):
        if entry.kind is not EntryKind.PROFILE:
            continue
        raw = _read(entry, path, info.st_size if info is not None else -1, [])
        if raw is None:
            continue
        key = keyer(entry, raw)
        stripped = kept.get(key)
        if stripped is None:
            continue
        # The bytes parsed cleanly once, so they are UTF-8: normalising cannot fail.
        text = normalise(raw, entry.rel_path, [])
        if text is not None:
            early[index] = restore(entry.rel_path, text, stripped)
            keys[index] = key


def _keep(
    files: list[RawFile],
    kept: parse_cache.ParseCache,
    keys: dict[int, bytes],
    profiles: dict[Key, ParsedProfile],
    servers: dict[Key, ParsedServer],
    assumed: dict[str | None, set[str]],
) -> None:
    # Every clean parse goes into the cache under the key of the bytes it was parsed from,
    # unless its scope's registry differs from the one its key assumed (a server file that
    # could not be read).
    trusted: dict[str | None, bool] = {}
    for index, key in keys.items():
        entry = files[index][0]
        parsed = profiles.get((entry.project, entry.id))
        if parsed is None or not parsed.ok or parsed.document is None:
            continue
        trust = trusted.get(entry.project)
        if trust is None:
            trust = server_names(servers, entry.project) == assumed.get(entry.project)
            trusted[entry.project] = trust
        if trust:
            kept.keep(key, parsed)
    kept.save()


def _cross_check(
    profiles: dict[Key, ParsedProfile],
    servers: dict[Key, ParsedServer],
    embedded: str,
    out: list[Diagnostic],
) -> None:
    system_ids = {ident for (project, ident) in profiles if project is None}
    visible_by_scope: dict[str | None, set[str]] = {}
    parents: dict[str, str] = {}  # system profile id -> the id it extends
    for (project, ident), parsed in profiles.items():
        profile, _, document = parsed
        if profile is None or document is None:
            continue
        if project is None and profile.extends:
            parents[ident] = profile.extends
        names = profile.mcp_servers
        if names:
            visible = visible_by_scope.get(project)
            if visible is None:
                visible = server_names(servers, project) | {embedded}
                visible_by_scope[project] = visible
            if not visible.issuperset(names):
                _report_unknown_servers(parsed, profile, names, visible, project, out)
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
    _check_cycles(profiles, parents, out)


def _report_unknown_servers(
    parsed: ParsedProfile,
    profile: AgentProfile,
    names: tuple[str, ...],
    visible: set[str],
    project: str | None,
    out: list[Diagnostic],
) -> None:
    where = "this project's or the system " if project else ""
    positions: _ServerPositions | None = None
    for name in names:
        if name not in visible:
            if positions is None:  # read the block once, for every name (issue 11 item 6)
                positions = _ServerPositions(parsed)
            line, column = positions.of(name)
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


def _check_cycles(
    profiles: dict[Key, ParsedProfile], parents: dict[str, str], out: list[Diagnostic]
) -> None:
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


class _ServerPositions:
    """Where each name is written in a profile's ## MCP Servers block (the heading when the
    block cannot be found again), the block read once: a profile naming thousands of
    unknown servers is located in linear time, not by one search per name."""

    def __init__(self, parsed: ParsedProfile) -> None:
        self.fallback = (1, 1)
        self.block: JsonBlock | None = None
        self.first: dict[str, int] = {}  # name -> its first index in a list
        document = parsed.document
        if document is None:
            return
        section = next((s for s in document.structure.sections if s.key == "mcp servers"), None)
        if section is None:
            return
        self.fallback = (section.line, section.column)
        fence = next((f for f in section.fences if f.lang == "json" and f.closed), None)
        if fence is None:
            return
        content = document.text[fence.content_start : fence.content_end]
        try:
            value = json.loads(content)
        except (ValueError, RecursionError):
            return
        self.block = JsonBlock(content, fence.content_line, value)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str):
                    self.first.setdefault(item, index)

    def of(self, name: str) -> tuple[int, int]:
        if self.block is None:
            return self.fallback
        index = self.first.get(name)
        if index is not None:
            return self.block.position((index,))
        return self.block.position((name,), key=True)


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
