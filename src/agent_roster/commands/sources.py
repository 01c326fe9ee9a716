"""Git sources with a lock (issue 15 item 5): ``roster source add|update|sync|remove|list``.

A source is another repository holding a vault layout (at its root or ``path``); its
profiles and registry servers are copied into this vault's own layout, so every tool reads
them as it reads any vault file. What each source brought is recorded in ``roster.lock``
(the commit, and the SHA-256 of every file), which is what marks those files as the
source's: update and remove touch exactly them, and a sourced file whose content is no
longer what the source brought has been edited here, so it is reported and never
overwritten or deleted. ``sync --frozen`` changes nothing and fails when the vault, the
declaration or the commit differ from the lock (CI).

Nothing is checked out: files are read from ``git archive`` at the commit, and only paths
of the vault layout are taken (others are listed as ``ignored``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from agent_roster.commands.context import RosterContext
from agent_roster.errors import NotFoundError, UsageError
from agent_roster.sources import git
from agent_roster.sources.declare import declared_sources, write_declaration
from agent_roster.sources.lock import (
    LOCK_FILE,
    Declared,
    Lock,
    LockedSource,
    lock_text,
    read_lock,
    sha256,
)
from agent_roster.vault.guard import exists_in_vault, read_in_vault, remove_in_vault
from agent_roster.vault.paths import EntryKind, VaultLayout, check_segment, classify, state_dir
from agent_roster.vault.writer import write_in_vault

FileStatus = Literal[
    "added",
    "updated",
    "unchanged",
    "restored",
    "removed",
    "edited-kept",
    "conflict",
    "missing",
    "changed",
    "ignored",
]
#: Statuses that leave the vault not as the lock says.
PROBLEMS = frozenset({"edited-kept", "conflict", "missing", "changed"})
SourceName = Annotated[str, Meta(description="the source's name (roster.toml [sources.<name>])")]


class SourceAddParams(msgspec.Struct, frozen=True, kw_only=True):
    url: Annotated[str, Meta(description="repository URL or local path")]
    name: Annotated[str | None, Meta(description="default: the repository's name")] = None
    ref: Annotated[str | None, Meta(description="branch, tag or commit (default: HEAD)")] = None
    path: Annotated[str | None, Meta(description="the vault's folder inside the repository")] = None
    only: Annotated[
        list[str], Meta(description="only these profile ids / server names (and their servers)")
    ] = msgspec.field(default_factory=list)


class SourceNameParams(msgspec.Struct, frozen=True, kw_only=True):
    name: Annotated[str | None, Meta(description="one source; all when left out")] = None


class SourceRemoveParams(msgspec.Struct, frozen=True, kw_only=True):
    name: SourceName


class SourceSyncParams(msgspec.Struct, frozen=True, kw_only=True):
    frozen: Annotated[
        bool, Meta(description="change nothing; fail when anything differs from roster.lock")
    ] = False


class SourceFile(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    status: FileStatus
    detail: str = ""


class SourceReport(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    commit: str
    ok: bool
    files: list[SourceFile]


class SourceReports(msgspec.Struct, frozen=True, kw_only=True):
    """One report per source; ``ok`` when every one is."""

    ok: bool
    sources: list[SourceReport]


class SourceSummary(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    url: str
    ref: str
    path: str
    commit: str | None
    files: int
    edited: list[str]


class SourceList(msgspec.Struct, frozen=True, kw_only=True):
    sources: list[SourceSummary]


def source_add(ctx: RosterContext, params: SourceAddParams) -> SourceReport:
    """Bring another repository's profiles and servers into the vault and lock them."""
    url = git.check_url(params.url)
    name = check_segment(params.name or _default_name(url), "source name")
    declared = Declared(
        url=url,
        ref=git.check_ref(params.ref) if params.ref else "",
        path=_subdir(params.path or ""),
        # "--only a,b" and "--only a --only b" alike
        only=tuple(part for item in params.only for part in item.split(",") if part.strip()),
    )
    layout = ctx.layout
    if name in declared_sources(layout) or name in read_lock(layout.root).sources:
        raise UsageError(
            f"a source named {name!r} exists", hint="pick another --name, or 'roster source update'"
        )
    report = _update(ctx, name, declared, None)
    if report.ok or any(f.status != "conflict" for f in report.files):
        write_declaration(layout, name, declared)
    return report


def source_update(ctx: RosterContext, params: SourceNameParams) -> SourceReports:
    """Move sources to the newest commit of their ref, keeping local edits."""
    layout = ctx.layout
    declared = declared_sources(layout)
    lock = read_lock(layout.root)
    names = _chosen(params.name, declared)
    reports = [_update(ctx, name, declared[name], lock.sources.get(name)) for name in names]
    return SourceReports(ok=all(r.ok for r in reports), sources=reports)


def source_sync(ctx: RosterContext, params: SourceSyncParams) -> SourceReports:
    """Make the vault match roster.lock; with frozen, only check that it does."""
    layout = ctx.layout
    declared = declared_sources(layout)
    lock = read_lock(layout.root)
    reports: list[SourceReport] = []
    for name in sorted(set(declared) | set(lock.sources)):
        locked = lock.sources.get(name)
        wanted = declared.get(name)
        if locked is None or wanted is None or locked.declared != wanted:
            detail = (
                "declared in roster.toml but not in roster.lock"
                if locked is None
                else "in roster.lock but no longer declared"
                if wanted is None
                else "roster.toml's declaration differs from roster.lock's"
            )
            files = [SourceFile(path=LOCK_FILE, status="changed", detail=detail)]
            reports.append(SourceReport(name=name, commit="", ok=False, files=files))
            continue
        if params.frozen:
            reports.append(_verify(layout, name, locked))
            continue
        cache = _fetched(ctx, name, locked.declared, locked.commit)
        content = _select(git.files_at(cache, locked.commit, locked.declared.path), locked.declared)
        reports.append(_apply(ctx, name, locked.declared, locked.commit, content, locked))
    return SourceReports(ok=all(r.ok for r in reports), sources=reports)


def source_remove(ctx: RosterContext, params: SourceRemoveParams) -> SourceReport:
    """Remove a source and exactly the files it brought (edited ones are kept)."""
    layout = ctx.layout
    name = check_segment(params.name, "source name")
    lock = read_lock(layout.root)
    locked = lock.sources.get(name)
    if locked is None and name not in declared_sources(layout):
        raise NotFoundError(f"no source {name!r}", hint="'roster source list' shows them")
    files: list[SourceFile] = []
    for rel, digest in sorted((locked.files if locked else {}).items()):
        files.append(_remove(layout, rel, digest))
    remaining = {k: v for k, v in lock.sources.items() if k != name}
    _write_lock(layout, msgspec.structs.replace(lock, sources=remaining))
    write_declaration(layout, name, None)
    return SourceReport(name=name, commit=locked.commit if locked else "", ok=True, files=files)


def source_list(ctx: RosterContext, params: SourceNameParams) -> SourceList:
    """The vault's sources, their locked commits, and files edited since."""
    layout = ctx.layout
    declared = declared_sources(layout)
    lock = read_lock(layout.root)
    rows = []
    for name in _chosen(params.name, declared, allow_missing=True):
        locked = lock.sources.get(name)
        wanted = declared.get(name) or (locked.declared if locked else None)
        if wanted is None:
            continue
        verified = _verify(layout, name, locked) if locked else None
        rows.append(
            SourceSummary(
                name=name,
                url=wanted.url,
                ref=wanted.ref,
                path=wanted.path,
                commit=locked.commit if locked else None,
                files=len(locked.files) if locked else 0,
                edited=[f.path for f in verified.files] if verified else [],
            )
        )
    return SourceList(sources=rows)


# -- the work ------------------------------------------------------------------------------
def _update(
    ctx: RosterContext, name: str, declared: Declared, locked: LockedSource | None
) -> SourceReport:
    cache = git.mirror(_cache(ctx, name), declared.url)
    commit = git.resolve(cache, declared.ref or None)
    content = _select(git.files_at(cache, commit, declared.path), declared)
    return _apply(ctx, name, declared, commit, content, locked)


def _apply(
    ctx: RosterContext,
    name: str,
    declared: Declared,
    commit: str,
    content: dict[str, bytes | None],
    locked: LockedSource | None,
) -> SourceReport:
    """Write the source's files, record them, and say what happened to each."""
    layout = ctx.layout
    lock = read_lock(layout.root)
    others = {
        rel: other for other, entry in lock.sources.items() if other != name for rel in entry.files
    }
    previous = locked.files if locked else {}
    files: list[SourceFile] = []
    recorded: dict[str, str] = {}
    for rel, data in sorted(content.items()):
        if data is None:
            files.append(SourceFile(path=rel, status="ignored", detail="not a vault layout path"))
            continue
        new = sha256(data)
        if rel in others:
            files.append(
                SourceFile(path=rel, status="conflict", detail=f"source {others[rel]!r} has it")
            )
            continue
        path = layout.root / rel
        current = read_in_vault(layout, path) if exists_in_vault(layout, path) else None
        old = previous.get(rel)
        if current is None:
            write_in_vault(layout, path, data, overwrite=False)
            status: FileStatus = "restored" if old else "added"
        elif sha256(current) == new:
            status = "unchanged"
        elif old is not None and sha256(current) == old:
            write_in_vault(layout, path, data, overwrite=True)
            status = "updated"
        elif old is None:
            files.append(
                SourceFile(path=rel, status="conflict", detail="the vault has its own file here")
            )
            continue
        else:
            files.append(
                SourceFile(
                    path=rel,
                    status="edited-kept",
                    detail="edited here since the source brought it; not overwritten",
                )
            )
            recorded[rel] = old
            continue
        files.append(SourceFile(path=rel, status=status))
        recorded[rel] = new
    for rel, old in sorted(previous.items()):
        if rel not in content or content[rel] is None:
            outcome = _remove(layout, rel, old)
            files.append(outcome)
    written = LockedSource(declared=declared, commit=commit, files=recorded)
    fresh = read_lock(layout.root)
    _write_lock(
        layout,
        msgspec.structs.replace(fresh, sources={**fresh.sources, name: written}),
    )
    return SourceReport(
        name=name, commit=commit, ok=not any(f.status in PROBLEMS for f in files), files=files
    )


def _remove(layout: VaultLayout, rel: str, digest: str) -> SourceFile:
    path = layout.root / rel
    if not exists_in_vault(layout, path):
        return SourceFile(path=rel, status="removed", detail="already gone")
    if sha256(read_in_vault(layout, path)) != digest:
        return SourceFile(
            path=rel, status="edited-kept", detail="edited here; kept, no longer the source's"
        )
    folders = 1 if classify(rel) and rel.endswith("/profile.md") else 0
    remove_in_vault(layout, path, folders)
    return SourceFile(path=rel, status="removed")


def _verify(layout: VaultLayout, name: str, locked: LockedSource) -> SourceReport:
    files = []
    for rel, digest in sorted(locked.files.items()):
        path = layout.root / rel
        if not exists_in_vault(layout, path):
            files.append(SourceFile(path=rel, status="missing"))
        elif sha256(read_in_vault(layout, path)) != digest:
            files.append(SourceFile(path=rel, status="changed", detail="differs from roster.lock"))
    return SourceReport(name=name, commit=locked.commit, ok=not files, files=files)


def _select(files: dict[str, bytes], declared: Declared) -> dict[str, bytes | None]:
    """The source's files as vault paths: layout paths (``--only`` applied, with the servers
    the chosen profiles name), others mapped to ``None`` (reported as ignored)."""
    from agent_roster.vault.profile_parser import parse_profile

    chosen: dict[str, bytes | None] = {}
    wanted = set(declared.only)
    servers_needed: set[str] = set()
    servers: dict[str, tuple[str, bytes]] = {}
    for rel, data in files.items():
        entry = classify(rel)
        if entry is None:
            if rel.startswith(("agent-types/", "mcp-servers/", "projects/")):
                chosen[rel] = None
            continue
        if entry.kind is EntryKind.MCP_SERVER:
            servers[rel] = (entry.id, data)
            continue
        if entry.kind is not EntryKind.PROFILE:
            continue
        if wanted and entry.id not in wanted:
            continue
        chosen[rel] = data
        if wanted:
            parsed = parse_profile(data, path=rel, expected_id=entry.id)
            if parsed.profile is not None:
                servers_needed.update(parsed.profile.mcp_servers)
    for rel, (server, data) in servers.items():
        if not wanted or server in wanted or server in servers_needed:
            chosen[rel] = data
    return chosen


def _fetched(ctx: RosterContext, name: str, declared: Declared, commit: str) -> Path:
    cache = _cache(ctx, name)
    if not git.has_commit(cache, commit):
        git.mirror(cache, declared.url)
        if not git.has_commit(cache, commit):
            raise UsageError(
                f"source {name!r}: commit {commit[:12]} is no longer in {declared.url}",
                hint="'roster source update' moves the lock to a commit that exists",
            )
    return cache


def _cache(ctx: RosterContext, name: str) -> Path:
    return state_dir(ctx.vault) / "sources" / f"{name}.git"


def _write_lock(layout: VaultLayout, lock: Lock) -> None:
    write_in_vault(layout, layout.root / LOCK_FILE, lock_text(lock), overwrite=True)


def _chosen(
    name: str | None, declared: dict[str, Declared], *, allow_missing: bool = False
) -> list[str]:
    if name is None:
        return sorted(declared)
    check_segment(name, "source name")
    if name not in declared and not allow_missing:
        raise NotFoundError(f"no source {name!r}", hint="'roster source list' shows them")
    return [name]


def _default_name(url: str) -> str:
    tail = re.split(r"[/:]", url.rstrip("/"))[-1]
    return tail.removesuffix(".git") or "source"


def _subdir(path: str) -> str:
    parts = [p for p in path.strip("/").split("/") if p not in ("", ".")]
    for part in parts:
        check_segment(part, "source path")
    return "/".join(parts)
