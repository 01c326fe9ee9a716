"""What sync makes of one changed file: read, hash, parse, and the row, bookkeeping and event
that result (``Outcome``). Pure with respect to the database, so a cold sync can run it in
worker processes (``agent_roster/parallel.py``); everything here pickles."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import msgspec

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import KnownTools
from agent_roster.model import AgentProfile
from agent_roster.store.events import SyncEvent, SyncEventKind
from agent_roster.store.mcp import SyncedMcpServer
from agent_roster.store.profile_rows import profile_values
from agent_roster.store.sync_files import FAILED, MISSING, OK, FileState
from agent_roster.vault.loader import read_bytes
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, ScannedFile
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.writer import content_hash

PROFILE = "profile"
SERVER = "mcp-server"

Changed = tuple[ScannedFile, os.stat_result]


class Outcome(NamedTuple):
    state: FileState
    #: The ``agent_profiles`` row (``profile_rows.profile_values``) of a profile that parsed.
    row: tuple[Any, ...] | None = None
    #: The profile itself, kept only when the caller asks (the resolution index wants it).
    profile: AgentProfile | None = None
    server: SyncedMcpServer | None = None
    event: SyncEvent | None = None
    # True: never seen before. None: seen, but only broken so far, so it is new unless the
    # database holds a row for it (decided when writing). False: seen and synced before.
    first_time: bool | None = False


def make_event(
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


class FileParser:
    """Turns changed files into outcomes. ``states`` is the bookkeeping from before this
    sync; ``server_names`` the registry names by scope (``None``: system) that the
    known-tools check of profiles uses; ``at`` the sync's timestamp for new rows."""

    def __init__(
        self,
        states: Mapping[str, FileState],
        server_names: Mapping[str | None, set[str]],
        *,
        embedded: str,
        at: float,
        keep_profiles: bool,
    ) -> None:
        self.states = states
        self.server_names = server_names
        self.embedded = embedded
        self.at = at
        self.keep_profiles = keep_profiles
        self._known: dict[str | None, KnownTools] = {}

    def chunk(self, changed: Sequence[Changed]) -> list[Outcome]:
        return [self.one(item, stat) for item, stat in changed]

    def one(self, item: ScannedFile, stat: os.stat_result) -> Outcome:
        entry = item.entry
        rel = entry.rel_path
        previous = self.states.get(rel)
        kind = PROFILE if entry.kind is EntryKind.PROFILE else SERVER
        problems: list[Diagnostic] = []
        raw = read_bytes(item, problems)
        digest = content_hash(raw) if raw is not None else ""

        def state(status: str, found: tuple[Diagnostic, ...] = ()) -> FileState:
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
            return Outcome(previous._replace(mtime_ns=stat.st_mtime_ns, size=stat.st_size))
        if raw is None:
            return _failure(state(FAILED, tuple(problems)), tuple(problems))
        if kind == SERVER:
            parsed_server = parse_mcp_server(
                raw, path=rel, expected_name=entry.id, project=entry.project
            )
            if parsed_server.ok and parsed_server.server is not None:
                return _success(
                    state(OK, parsed_server.diagnostics),
                    previous,
                    server=SyncedMcpServer(parsed_server.server, digest),
                )
            return _failure(state(FAILED, parsed_server.diagnostics), parsed_server.diagnostics)
        parsed = parse_profile(
            raw,
            path=rel,
            expected_id=entry.id,
            project=entry.project,
            known_tools=self._known_tools(entry.project),
        )
        if not parsed.ok or parsed.profile is None:
            return _failure(state(FAILED, parsed.diagnostics), parsed.diagnostics)
        row = profile_values(parsed.profile, at=self.at, content_hash=digest, synced_at=self.at)
        return _success(
            state(OK, parsed.diagnostics),
            previous,
            row=row,
            profile=parsed.profile if self.keep_profiles else None,
        )

    def _known_tools(self, project: str | None) -> KnownTools:
        known = self._known.get(project)
        if known is None:
            visible = self.server_names.get(None, set())
            if project is not None:
                visible = visible | self.server_names.get(project, set())
            known = self._known[project] = KnownTools(visible, embedded=self.embedded)
        return known


def _success(
    state: FileState,
    previous: FileState | None,
    *,
    row: tuple[Any, ...] | None = None,
    profile: AgentProfile | None = None,
    server: SyncedMcpServer | None = None,
) -> Outcome:
    event = None
    if previous is not None and previous.status == FAILED:
        event = make_event(
            SyncEventKind.RECOVERY,
            state,
            "the file parses again; the database now holds its content",
        )
    elif previous is not None and previous.status == MISSING:
        event = make_event(SyncEventKind.RESTORED, state, "the file is back")
    first_time: bool | None = previous is None
    if previous is not None and previous.status == FAILED:
        first_time = None
    return Outcome(state, row, profile, server, event, first_time=first_time)


def _failure(state: FileState, found: tuple[Diagnostic, ...]) -> Outcome:
    errors, _ = dx.count(found)
    event = make_event(
        SyncEventKind.FAILURE,
        state,
        f"{errors} error(s); the previous version stays active",
        found,
    )
    return Outcome(state, event=event)
