"""One-way sync, vault → database (seed 000 section 3, seed 001 "Source of Truth").

A sync looks at every layout file (or only the paths a watcher reports), skips files whose
size and mtime are unchanged since the last sync (one ``stat`` each), reads and hashes the
rest, skips content it has already seen, and parses only what is new. MCP servers are parsed
before profiles because the registry feeds the known-tools check. Results are written in
batches, each one transaction that holds the profile rows, the server rows, the per-file
bookkeeping and the events together, so a crash leaves every row either wholly old or wholly
new and the next sync finishes the job.

Failure semantics: a file that does not parse leaves its previous row untouched and active,
and records a ``failure`` event with every diagnostic (once per broken content, not once per
sync); the fix records a ``recovery``. A deleted file marks its row missing (``deleted``), it
stops resolving, and tasks keep their ``profile_id``; the file coming back restores it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Iterable
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import Connection, select

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER, KnownTools
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import events as event_rows
from agent_roster.store import mcp as server_rows
from agent_roster.store import profiles as profile_rows
from agent_roster.store import sync_files
from agent_roster.store.events import SyncEvent, SyncEventKind
from agent_roster.store.facade import Store
from agent_roster.store.mcp import SyncedMcpServer
from agent_roster.store.profiles import SyncedProfile
from agent_roster.store.sync_files import FAILED, MISSING, OK, FileState
from agent_roster.store.tables import agent_profiles
from agent_roster.sync.bus import EventBus
from agent_roster.sync.knowledge import available_packs, copy_starter_knowledge
from agent_roster.vault.loader import read_bytes
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, ScannedFile, VaultLayout, classify
from agent_roster.vault.profile_parser import parse_profile

log = logging.getLogger(__name__)

PROFILE = "profile"
SERVER = "mcp-server"


class SyncReport(NamedTuple):
    """What one sync did. ``written`` counts profile and server rows upserted."""

    scanned: int
    unchanged: int
    written: int
    failed: int
    deleted: int
    restored: int
    recovered: int
    pruned: int
    starter_files: tuple[str, ...]
    events: tuple[SyncEvent, ...]
    seconds: float
    #: Files whose current content does not parse (found now or in an earlier sync).
    failing: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["starter_files"] = list(self.starter_files)
        data["events"] = [msgspec.to_builtins(e) for e in self.events]
        return data


class _Outcome(NamedTuple):
    state: FileState
    profile: SyncedProfile | None = None
    server: SyncedMcpServer | None = None
    event: SyncEvent | None = None
    # True: never seen before. None: seen, but only broken so far, so it is new unless the
    # database holds a row for it (decided in _write). False: seen and synced before.
    first_time: bool | None = False


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class SyncEngine:
    """Syncs one vault into one store. Keep one engine per process and vault: it caches the
    per-file bookkeeping between calls (``roster watch`` calls it once per settled batch)."""

    def __init__(
        self,
        store: Store,
        vault: str | os.PathLike[str],
        *,
        bus: EventBus | None = None,
        embedded: str = DEFAULT_EMBEDDED_SERVER,
        batch_size: int = 2000,
        copy_starter: bool = True,
        index: ProfileIndex | None = None,
    ) -> None:
        self.store = store
        self.layout = VaultLayout(vault)
        self.bus = bus or EventBus()
        self.embedded = embedded
        self.batch_size = batch_size
        self.copy_starter = copy_starter
        self._states: dict[str, FileState] | None = None
        self._failing: int | None = None
        #: The resolution index this sync keeps current (issue 4: lookups come from memory).
        self.index = index

    # -- public -------------------------------------------------------------------------------
    def sync(self, paths: Iterable[str] | None = None, *, prune: bool = False) -> SyncReport:
        """Sync the whole vault (``paths=None``) or only the given vault-relative paths."""
        started = time.perf_counter()
        states = self._load_states(reload=paths is None)
        if paths is None:
            scanned = list(self.layout.iter_entries())
            wanted = None
        else:
            wanted = {p for p in paths if classify(p) is not None}
            scanned = [self._scanned(rel) for rel in sorted(wanted)]
        present: set[str] = set()
        present_servers: list[tuple[str | None, str]] = []
        changed: list[tuple[ScannedFile, os.stat_result]] = []
        unchanged = 0
        for item in scanned:
            try:
                stat = item.stat or os.stat(item.path)
            except OSError:
                continue
            rel = item.entry.rel_path
            present.add(rel)
            if item.entry.kind is EntryKind.MCP_SERVER:
                present_servers.append((item.entry.project, item.entry.id))
            state = states.get(rel)
            if (
                state is not None
                and state.status != MISSING
                and state.mtime_ns == stat.st_mtime_ns
                and state.size == stat.st_size
            ):
                unchanged += 1
                continue
            changed.append((item, stat))
        # A path-limited sync (the watcher's) looks only at its own paths: a pass over every
        # known file per edit would grow with the vault.
        candidates = (
            states.items() if wanted is None else ((p, states[p]) for p in wanted if p in states)
        )
        gone = [s for p, s in candidates if s.status != MISSING and p not in present]
        outcomes = self._process(changed, states, present_servers)
        report = self._write(outcomes, gone, prune)
        failing = self._failing_count(states, report)
        return report._replace(
            scanned=len(scanned),
            unchanged=unchanged,
            seconds=time.perf_counter() - started,
            failing=failing,
        )

    def _failing_count(self, states: dict[str, FileState], report: SyncReport) -> int:
        """Files currently failing; recounted only when this sync could have changed it."""
        if (
            self._failing is None
            or report.written
            or report.failed
            or report.recovered
            or (report.deleted or report.pruned)
        ):
            self._failing = sum(1 for state in states.values() if state.status == FAILED)
        return self._failing

    # -- reading and parsing --------------------------------------------------------------------
    def _load_states(self, *, reload: bool) -> dict[str, FileState]:
        if self._states is None or reload:
            with self.store.transaction() as conn:
                self._states = sync_files.load_all(conn)
            self._failing = None
        return self._states

    def _scanned(self, rel: str) -> ScannedFile:
        entry = classify(rel)
        assert entry is not None
        path = self.layout.root / rel
        escapes = path.exists() and not self.layout.is_inside(path)
        return ScannedFile(entry, path, escapes)

    @staticmethod
    def _server_names(
        states: dict[str, FileState], present_servers: list[tuple[str | None, str]]
    ) -> dict[str | None, set[str]]:
        """Server names by scope (``None``: system), known or present. Built once per sync:
        asking per project scope with a pass over every file was quadratic (100 projects x
        10,000 files took most of a cold sync)."""
        names: dict[str | None, set[str]] = {}
        for s in states.values():
            if s.entry_kind == SERVER and s.status != MISSING:
                names.setdefault(s.project, set()).add(s.entry_id)
        for project, name in present_servers:
            names.setdefault(project, set()).add(name)
        return names

    def _process(
        self,
        changed: list[tuple[ScannedFile, os.stat_result]],
        states: dict[str, FileState],
        present_servers: list[tuple[str | None, str]],
    ) -> list[_Outcome]:
        # Servers first: the registry they form feeds the known-tools check of profiles.
        changed.sort(key=lambda pair: pair[0].entry.kind is EntryKind.PROFILE)
        known: dict[str | None, KnownTools] = {}
        server_names: dict[str | None, set[str]] | None = None
        outcomes: list[_Outcome] = []
        for item, stat in changed:
            entry = item.entry
            rel = entry.rel_path
            previous = states.get(rel)
            kind = PROFILE if entry.kind is EntryKind.PROFILE else SERVER
            problems: list[Diagnostic] = []
            raw = read_bytes(item, problems)
            digest = content_hash(raw) if raw is not None else ""

            def state(
                status: str,
                found: tuple[Diagnostic, ...] = (),
                *,
                digest: str = digest,
                entry: Any = entry,
                kind: str = kind,
                stat: os.stat_result = stat,
                rel: str = rel,
            ) -> FileState:
                return FileState(
                    rel,
                    kind,
                    entry.id,
                    entry.project,
                    stat.st_mtime_ns,
                    stat.st_size,
                    digest,
                    status,
                    msgspec.json.encode(found).decode(),
                )

            if (
                raw is not None
                and previous is not None
                and previous.content_hash == digest
                and previous.status in (OK, FAILED)
            ):
                # Touched but not changed: remember the new stat, nothing else.
                outcomes.append(
                    _Outcome(previous._replace(mtime_ns=stat.st_mtime_ns, size=stat.st_size))
                )
                continue
            if raw is None:
                outcomes.append(
                    self._failure(state(FAILED, tuple(problems)), previous, tuple(problems))
                )
                continue
            if kind == SERVER:
                parsed_server = parse_mcp_server(
                    raw, path=rel, expected_name=entry.id, project=entry.project
                )
                if parsed_server.ok and parsed_server.server is not None:
                    outcomes.append(
                        self._success(
                            state(OK, parsed_server.diagnostics),
                            previous,
                            server=SyncedMcpServer(parsed_server.server, digest),
                        )
                    )
                else:
                    outcomes.append(
                        self._failure(
                            state(FAILED, parsed_server.diagnostics),
                            previous,
                            parsed_server.diagnostics,
                        )
                    )
                continue
            if entry.project not in known:
                if server_names is None:
                    server_names = self._server_names(states, present_servers)
                visible = server_names.get(None, set())
                if entry.project is not None:
                    visible = visible | server_names.get(entry.project, set())
                known[entry.project] = KnownTools(visible, embedded=self.embedded)
            parsed = parse_profile(
                raw,
                path=rel,
                expected_id=entry.id,
                project=entry.project,
                known_tools=known[entry.project],
            )
            if parsed.ok and parsed.profile is not None:
                outcomes.append(
                    self._success(
                        state(OK, parsed.diagnostics),
                        previous,
                        profile=SyncedProfile(parsed.profile, digest),
                    )
                )
            else:
                outcomes.append(
                    self._failure(state(FAILED, parsed.diagnostics), previous, parsed.diagnostics)
                )
        return outcomes

    def _success(
        self,
        state: FileState,
        previous: FileState | None,
        *,
        profile: SyncedProfile | None = None,
        server: SyncedMcpServer | None = None,
    ) -> _Outcome:
        event = None
        if previous is not None and previous.status == FAILED:
            event = self._event(
                SyncEventKind.RECOVERY,
                state,
                "the file parses again; the database now holds its content",
            )
        elif previous is not None and previous.status == MISSING:
            event = self._event(SyncEventKind.RESTORED, state, "the file is back")
        first_time: bool | None = previous is None
        if previous is not None and previous.status == FAILED:
            first_time = None
        return _Outcome(state, profile, server, event, first_time=first_time)

    def _failure(
        self, state: FileState, previous: FileState | None, found: tuple[Diagnostic, ...]
    ) -> _Outcome:
        errors, _ = dx.count(found)
        event = self._event(
            SyncEventKind.FAILURE,
            state,
            f"{errors} error(s); the previous version stays active",
            found,
        )
        return _Outcome(state, event=event)

    @staticmethod
    def _event(
        kind: SyncEventKind, state: FileState, message: str, found: tuple[Diagnostic, ...] = ()
    ) -> SyncEvent:
        return SyncEvent(
            kind=kind.value,
            entry_kind=state.entry_kind,
            entry_id=state.entry_id,
            project=state.project,
            path=state.path,
            diagnostics=found,
            message=message,
            at=time.time(),  # subscribers see the same time the stored copy keeps
        )

    # -- writing --------------------------------------------------------------------------------
    def _write(self, outcomes: list[_Outcome], gone: list[FileState], prune: bool) -> SyncReport:
        assert self._states is not None
        recorded: list[SyncEvent] = []
        written = failed = restored = recovered = 0
        first_profiles: list[str] = []
        at = time.time()
        for start in range(0, max(len(outcomes), 1), self.batch_size):
            batch = outcomes[start : start + self.batch_size]
            if not batch:
                break
            profiles = [o.profile for o in batch if o.profile is not None]
            servers = [o.server for o in batch if o.server is not None]
            batch_events = [o.event for o in batch if o.event is not None]
            with self.store.transaction() as conn:
                # A profile whose first versions were all broken appears now, when it first
                # parses (issue 3, item 8): it is new if it has no row yet.
                unsure = [
                    o.state.entry_id
                    for o in batch
                    if o.profile is not None and o.first_time is None and o.state.project is None
                ]
                had_row = _system_profile_rows(conn, unsure) if unsure else set()
                if servers:
                    server_rows.upsert_many(conn, servers, at=at, synced_at=at)
                if profiles:
                    profile_rows.upsert_many(conn, profiles, at=at, synced_at=at)
                sync_files.upsert_many(conn, [o.state for o in batch], at=at)
                if batch_events:
                    event_rows.record_many(conn, batch_events, at=at)
            if self.index is not None and (profiles or servers):
                self.index.apply(
                    profiles=[p.profile for p in profiles], servers=[s.server for s in servers]
                )
            for outcome in batch:
                self._states[outcome.state.path] = outcome.state
                new = outcome.first_time or (
                    outcome.first_time is None and outcome.state.entry_id not in had_row
                )
                if outcome.profile and new and outcome.state.project is None:
                    first_profiles.append(outcome.state.entry_id)
            written += len(profiles) + len(servers)
            failed += sum(1 for e in batch_events if e.kind == SyncEventKind.FAILURE)
            restored += sum(1 for e in batch_events if e.kind == SyncEventKind.RESTORED)
            recovered += sum(1 for e in batch_events if e.kind == SyncEventKind.RECOVERY)
            recorded.extend(batch_events)
        if gone:
            recorded.extend(self._mark_gone(gone, at))
        pruned = self._prune(at, recorded) if prune else 0
        starter: list[str] = []
        if self.copy_starter and first_profiles:
            packs = available_packs(self.layout)
            for profile_id in first_profiles:
                if profile_id in packs:
                    starter.extend(copy_starter_knowledge(self.layout, profile_id))
        for event in recorded:
            self._log(event)
            self.bus.publish(event)
        return SyncReport(
            0,
            0,
            written,
            failed,
            len(gone),
            restored,
            recovered,
            pruned,
            tuple(starter),
            tuple(recorded),
            0.0,
        )

    def _mark_gone(self, gone: list[FileState], at: float) -> list[SyncEvent]:
        assert self._states is not None
        events = [
            self._event(
                SyncEventKind.DELETED,
                s,
                "the file was deleted; its row stays "
                "but no longer resolves (sync --prune deletes it)",
            )
            for s in gone
        ]
        missing = [s._replace(status=MISSING) for s in gone]
        with self.store.transaction() as conn:
            profile_rows.set_present(
                conn, [(s.entry_id, s.project) for s in gone if s.entry_kind == PROFILE], False
            )
            server_rows.set_present(
                conn, [(s.entry_id, s.project) for s in gone if s.entry_kind == SERVER], False
            )
            sync_files.upsert_many(conn, missing, at=at)
            event_rows.record_many(conn, events, at=at)
        for state in missing:
            self._states[state.path] = state
        if self.index is not None:
            # A missing file stops resolving (issue 3, item 3).
            self.index.apply(
                removed_profiles=[(s.entry_id, s.project) for s in gone if s.entry_kind == PROFILE],
                removed_servers=[(s.entry_id, s.project) for s in gone if s.entry_kind == SERVER],
            )
        return events

    def _prune(self, at: float, recorded: list[SyncEvent]) -> int:
        assert self._states is not None
        missing = [s for s in self._states.values() if s.status == MISSING]
        with self.store.transaction() as conn:
            removed_profiles = profile_rows.prune_missing(conn)
            removed_servers = server_rows.prune_missing(conn)
            sync_files.delete_many(conn, [s.path for s in missing])
            events = [
                SyncEvent(
                    kind=SyncEventKind.PRUNED.value,
                    entry_kind=kind,
                    entry_id=ident,
                    project=project,
                    message="deleted from the database by --prune",
                    at=at,
                )
                for kind, keys in ((PROFILE, removed_profiles), (SERVER, removed_servers))
                for ident, project in keys
            ]
            event_rows.record_many(conn, events, at=at)
        for state in missing:
            del self._states[state.path]
        recorded.extend(events)
        return len(events)

    @staticmethod
    def _log(event: SyncEvent) -> None:
        if event.kind == SyncEventKind.FAILURE:
            first = next((d for d in event.diagnostics if d.is_error), None)
            where = f"{first.path}:{first.line}:{first.column}: {first.message}" if first else ""
            log.warning("sync failed for %s (%s) %s", event.path, event.message, where)
        else:
            log.info("%s: %s (%s)", event.kind, event.path or event.entry_id, event.message)


def _system_profile_rows(conn: Connection, ids: list[str]) -> set[str]:
    """Which of the system profile ``ids`` have a row (present or missing)."""
    key = agent_profiles.c.key  # a system profile's key is its id
    return {row[0] for row in conn.execute(select(key).where(key.in_(ids)))}
