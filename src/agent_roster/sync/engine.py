"""One-way sync, vault → database (seed 000 section 3, seed 001 "Source of Truth").

A sync looks at every layout file (or only the paths a watcher reports), skips files whose
size and mtime are unchanged since the last sync (one ``stat`` each), reads and hashes the
rest, skips content it has already seen, and parses only what is new (``sync/outcomes.py``;
a large change set, such as a cold sync, in worker processes too: ``agent_roster/parallel.py``). MCP
servers are parsed before profiles because the registry feeds the known-tools check. Results
are written as they come, in batches (``sync/writer.py``), each one transaction that holds
the profile rows, the server rows, the per-file bookkeeping and the events together, so a
crash leaves every row either wholly old or wholly new and the next sync finishes the job.

Failure semantics: a file that does not parse leaves its previous row untouched and active,
and records a ``failure`` event with every diagnostic (once per broken content, not once per
sync); the fix records a ``recovery``. A deleted file marks its row missing (``deleted``), it
stops resolving, and tasks keep their ``profile_id``; the file coming back restores it.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import NamedTuple

from agent_roster import parallel as pool
from agent_roster.diagnostics import Diagnostic
from agent_roster.known_tools import DEFAULT_EMBEDDED_SERVER
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import sync_files
from agent_roster.store.events import SyncEvent, SyncEventKind
from agent_roster.store.facade import Store
from agent_roster.store.sync_files import FAILED, MISSING, FileState
from agent_roster.sync import binding, writer
from agent_roster.sync.binding import Bound
from agent_roster.sync.bus import EventBus
from agent_roster.sync.knowledge import available_packs, copy_starter_knowledge
from agent_roster.sync.outcomes import (
    SERVER,
    Changed,
    FileParser,
    Outcome,
)
from agent_roster.vault.guard import outside_diagnostic, outside_link
from agent_roster.vault.paths import EntryKind, ScannedFile, VaultLayout, classify
from agent_roster.vault.writer import content_hash

__all__ = ["SyncEngine", "SyncReport", "content_hash"]

log = logging.getLogger(__name__)

#: Changed files above which parsing is spread over worker processes. Below it, forking
#: and shipping results back cost more than a second core saves (on 2 cores, cold syncs
#: of generated vaults: 270 files 29 ms in-process vs 38 ms with a worker, 520 files
#: 53 vs 47 ms, 1,000 files 115 vs 94 ms, 10,400 files 1.20 vs 0.82 s).
PARALLEL_MIN_FILES = 500
#: Worker processes at most: past three, this process's own share (scan, writes) bounds the
#: sync, while each worker adds its resident size.
MAX_WORKERS = 3
#: Files per chunk a process claims (at most; a thirty-second of the set, at least the
#: minimum): small enough that the last chunks spread evenly over the processes, large
#: enough that the per-chunk overhead (a pipe frame, a pickle) stays small.
CHUNK_FILES = 128
CHUNK_FILES_MIN = 16


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
    #: Files in the layout this sync did not load, each with the reason (an unsafe name, a
    #: symlink leading outside the vault, ...), and starter files not copied. They are the
    #: vault's current state, reported by every sync; rows under them are left as they are.
    diagnostics: tuple[Diagnostic, ...] = ()
    #: roster.toml's problems (``roster sync`` reads it for the embedded server's name).
    config: tuple[Diagnostic, ...] = ()
    #: What changed about the vault the database belongs to (``--rebind``, a move), or "".
    vault_note: str = ""

    @property
    def problems(self) -> bool:
        """A file fails, one is refused, or roster.toml has errors: exit 1."""
        return bool(self.failing) or any(d.is_error for d in (*self.diagnostics, *self.config))


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
        commands: Iterable[str] = (),
        batch_size: int = 2000,
        copy_starter: bool = True,
        index: ProfileIndex | None = None,
        rebind: bool = False,
    ) -> None:
        self.store = store
        self.layout = VaultLayout(vault)
        self.bus = bus or EventBus()
        self.embedded = embedded
        #: roster.toml's extra embedded-server command names (known bare tool names).
        self.commands = tuple(commands)
        self.batch_size = batch_size
        self.copy_starter = copy_starter
        self._states: dict[str, FileState] | None = None
        self._failing: int | None = None
        #: The resolution index this sync keeps current (issue 4: lookups come from memory).
        self.index = index
        #: Bind the database to this vault even when it belongs to another (sync --rebind);
        #: only the first sync of the engine does.
        self.rebind = rebind
        self._bound: Bound | None = None

    # -- public -------------------------------------------------------------------------------
    def sync(
        self,
        paths: Iterable[str] | None = None,
        *,
        prune: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        """Sync the whole vault (``paths=None``) or only the given vault-relative paths.
        ``progress(done, total)`` is told about each changed file parsed (``roster up``
        shows a bar on a large vault). Another sync of the same database (another process,
        a watcher) waits until this one is done."""
        with self.store.sync_lock():
            return self._sync(paths, prune=prune, progress=progress)

    def _sync(
        self,
        paths: Iterable[str] | None,
        *,
        prune: bool,
        progress: Callable[[int, int], None] | None,
    ) -> SyncReport:
        started = time.perf_counter()
        # A database belongs to one vault (issue 13 item 2): checked by every full sync,
        # and before the first of the engine, so another vault's rows are never marked
        # deleted by mistake.
        note = ""
        if paths is None or self._bound is None:
            first = self._bound is None
            self._bound = binding.bind(self.store, self.layout, rebind=self.rebind and first)
            note = self._bound.note
        states = self._load_states(reload=paths is None)
        skipped: list[Diagnostic] = []
        if paths is None:
            scanned: Iterable[ScannedFile] = self.layout.iter_entries(skipped)
            wanted = None
        else:
            wanted = {p for p in paths if classify(p) is not None}
            scanned = self._scanned(sorted(wanted), skipped)
        present: set[str] = set()
        present_servers: list[tuple[str | None, str]] = []
        changed: list[Changed] = []
        seen = unchanged = 0
        for item in scanned:
            seen += 1
            try:
                stat = item.stat or os.stat(item.path)
            except OSError:
                continue
            entry = item.entry
            rel = entry.rel_path
            present.add(rel)
            if entry.kind is EntryKind.MCP_SERVER:
                present_servers.append((entry.project, entry.id))
            state = states.get(rel)
            if (
                state is not None
                and state.mtime_ns == stat.st_mtime_ns
                and state.size == stat.st_size
                and state.status != MISSING
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
        if gone and skipped:
            # A file the scan could not get at (behind a link leading out of the vault, in a
            # folder that cannot be listed) is not gone: its row stays as it was.
            gone = _not_held(gone, skipped)
        at = time.time()
        outcomes = self._outcomes(changed, states, present_servers, at)
        if progress is not None:
            outcomes = _counted(outcomes, len(changed), progress)
        with _few_collections(len(changed) > PARALLEL_MIN_FILES), contextlib.closing(outcomes):
            done = writer.write_outcomes(
                self.store,
                outcomes,
                states,
                at=at,
                batch_size=self.batch_size,
                index=self.index,
            )
        recorded = done.events
        if gone:
            recorded.extend(writer.mark_gone(self.store, gone, states, at=at, index=self.index))
        pruned = writer.prune(self.store, states, at=at) if prune else []
        recorded.extend(pruned)
        starter: list[str] = []
        if self.copy_starter and done.first_profiles:
            packs = available_packs(self.layout, skipped)
            for profile_id in done.first_profiles:
                if profile_id in packs:
                    starter.extend(copy_starter_knowledge(self.layout, profile_id, skipped))
        for event in recorded:
            self._log(event)
            self.bus.publish(event)
        report = SyncReport(
            scanned=seen,
            unchanged=unchanged,
            written=done.written,
            failed=done.failed,
            deleted=len(gone),
            restored=done.restored,
            recovered=done.recovered,
            pruned=len(pruned),
            starter_files=tuple(starter),
            events=tuple(recorded),
            seconds=0.0,
            diagnostics=tuple(skipped),
            vault_note=note,
        )
        return report._replace(
            seconds=time.perf_counter() - started, failing=self._failing_count(states, report)
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
    def file_state(self, rel: str) -> FileState | None:
        """The bookkeeping of one vault-relative path as of the last sync (None: unknown)."""
        return self._load_states(reload=False).get(rel)

    def _load_states(self, *, reload: bool) -> dict[str, FileState]:
        if self._states is None or reload:
            with self.store.transaction() as conn:
                self._states = sync_files.load_all(conn)
            self._failing = None
        return self._states

    def _scanned(self, rels: list[str], skipped: list[Diagnostic]) -> list[ScannedFile]:
        """The watcher's paths that are there to load: each checked by the vault guard,
        one ``lstat`` per component (a handful of paths per batch)."""
        found = []
        for rel in rels:
            entry = classify(rel)
            assert entry is not None
            path = self.layout.root / rel
            link = outside_link(self.layout, path)
            if link is not None:
                skipped.append(outside_diagnostic(link, folder=link != rel))
                continue
            found.append(ScannedFile(entry, path))
        return found

    def _outcomes(
        self,
        changed: list[Changed],
        states: dict[str, FileState],
        present_servers: list[tuple[str | None, str]],
        at: float,
    ) -> Generator[Outcome, None, None]:
        """The outcome of every changed file, servers first (the registry they form feeds
        the known-tools check of profiles), in scan order otherwise. A large change set
        (a cold sync) is parsed by worker processes and this one together."""
        if not changed:
            return
        changed.sort(key=lambda pair: pair[0].entry.kind is EntryKind.PROFILE)
        # Only profiles need the registry's names; building them is a pass over every file.
        profiles = changed[-1][0].entry.kind is EntryKind.PROFILE
        parser = FileParser(
            # The writer updates ``states`` as batches commit, but only for files already
            # parsed, so the parser still sees each file's state from before this sync.
            states,
            _server_names(states, present_servers) if profiles else {},
            embedded=self.embedded,
            commands=self.commands,
            at=at,
            keep_profiles=self.index is not None,
        )
        workers = 0
        if len(changed) > PARALLEL_MIN_FILES:
            workers = min(pool.available_workers(), MAX_WORKERS)
        if not workers:
            for item, stat in changed:
                yield parser.one(item, stat)
            return
        size = max(CHUNK_FILES_MIN, min(CHUNK_FILES, len(changed) // 32))
        chunks = [changed[i : i + size] for i in range(0, len(changed), size)]
        with contextlib.closing(pool.ordered_map(parser.chunk, chunks, workers)) as results:
            for chunk in results:
                yield from chunk

    @staticmethod
    def _log(event: SyncEvent) -> None:
        if event.kind == SyncEventKind.FAILURE:
            first = next((d for d in event.diagnostics if d.is_error), None)
            where = f"{first.path}:{first.line}:{first.column}: {first.message}" if first else ""
            log.warning("sync failed for %s (%s) %s", event.path, event.message, where)
        else:
            log.info("%s: %s (%s)", event.kind, event.path or event.entry_id, event.message)


_YOUNG_THRESHOLD = 50_000


@contextlib.contextmanager
def _few_collections(enabled: bool) -> Iterator[None]:
    """Collect the young generation less often while a large change set is parsed and
    written (the threshold is restored afterwards, and workers forked meanwhile inherit it):
    that allocates millions of mostly short-lived objects, and with the default threshold
    of 700 the collector's passes took about a tenth of a cold sync."""
    threshold = gc.get_threshold()
    # A threshold of 0 means automatic collection is off: leave that (and any higher one).
    if not enabled or not 0 < threshold[0] < _YOUNG_THRESHOLD:
        yield
        return
    gc.set_threshold(_YOUNG_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


#: Codes of scan diagnostics that hide whatever is under their path (not merely a name).
_HOLDING = frozenset({"path-outside-vault", "file-unreadable"})


def _not_held(gone: list[FileState], skipped: list[Diagnostic]) -> list[FileState]:
    held = {d.path for d in skipped if d.code in _HOLDING}
    if not held:
        return gone
    prefixes = tuple(f"{path}/" for path in held)
    return [s for s in gone if s.path not in held and not s.path.startswith(prefixes)]


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


def _counted(
    outcomes: Generator[Outcome, None, None], total: int, progress: Callable[[int, int], None]
) -> Generator[Outcome, None, None]:
    with contextlib.closing(outcomes):
        for done, outcome in enumerate(outcomes, 1):
            progress(done, total)
            yield outcome
