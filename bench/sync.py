"""Benchmark: vault -> database sync and watch latency, next to a polling baseline in the same run.

Issue 3, item 10, and issue 12, item 8. **Phase 0** (``bench/syncshapes.py``): for every
vault shape (``--shape``, all by default: clean, warnings, big-prompts, many-servers), a
cold sync next to a floor-sync measured in the same run (the least a correct sync into
SQLite does; target: cold sync <= 3x floor-sync). The phases below then run on the clean
vault (``--shapes-only`` skips them). A vault of 10,000 system profiles, 200 MCP server
files and 100 projects with overrides (``vaultgen``'s defaults) is synced into a SQLite
file (default; WAL, as ``roster`` sets it up) or, with ``--db postgresql+psycopg://...``,
into PostgreSQL, where every database is a fresh schema selected through ``search_path``
(as ``tests/store/conftest.py`` does) and dropped at the end, so nothing is left in
``public``. What is measured:

1. **cold sync** - an empty (migrated) database, every file new. Timed two ways: the sync
   itself, ``SyncEngine(store, vault).sync()`` in this process (the target applies to it),
   and the end-to-end ``roster sync`` subprocess (adds interpreter start-up, imports and the
   migration of the empty database).
2. **no-change re-sync** - a *new* ``SyncEngine`` on a fresh ``Store`` over an up-to-date
   database, as a second ``roster sync`` would start: no in-memory state carried over. Also
   timed as a ``roster sync`` subprocess.
   Both are repeated ``--reps`` times, interleaved (cold in-process, cold subprocess,
   no-change in-process, no-change subprocess), each run on its own database, with a
   collection before each; best and median are shown and the targets are judged on the best
   run (the least disturbed by other processes on a noisy 2-core machine), median alongside.
3. **edit-to-DB latency under watch** - ``roster watch`` runs as a subprocess (``--watch-mode
   process``, judged) and/or ``watch_vault`` in a background thread (``thread``). One edit at
   a time (``vaultgen.edit_profile`` sets Config's ``max_tokens_per_task`` to a value never
   used before, on a rotating set of system profiles and project overrides); the clock starts
   just before the file is written and stops when the new value is visible through a
   *separate* database connection, polled every ``--poll-ms``; each edit has a timeout, and a
   timed-out edit counts at the timeout. Before each edit the editor pauses a random 0 to
   ``--gap-ms`` (not counted), so edits land at a random phase of the watcher's loop as a
   person's saves do, instead of in lock-step with it. Nearest-rank p50, p95, p99 and max.
   The warm ``engine.sync([path])`` of one edited file is timed as well, which splits the
   latency into the sync's own cost and the notification plus settle window. ``roster
   watch`` is stopped with SIGINT once idle, as Ctrl-C would; a note says so if that fails.
4. **peak RSS** - the cold ``roster sync`` subprocess with its parse workers: the peak of
   their summed resident sizes (``VmRSS``, sampled every 5 ms; pages shared copy-on-write
   count once per process, so this errs high), highest over the repetitions, is judged; the
   process's own peak (its ``VmHWM``, sampled likewise) is shown too, as are the ``roster
   watch`` process's peak (``VmHWM`` once the edits are done) and its resident size after
   them. Not ``ru_maxrss`` from ``os.wait4``: for an exec'd child it counts the resident size
   of this benchmark process when it spawned the child (``benchkit.TreeRss``), which after
   the shapes of phase 0 is several hundred MB.
5. **baseline** - the system the seeds come from (``agent-queue-lessons.md`` section 6),
   emulated honestly in this process: a loop that every 5 s walks every non-hidden vault file
   with ``os.walk`` + ``os.stat``, flushes changes first seen at least 2 s earlier (detection
   and flush fall in different ticks), and re-reads, re-parses, looks up and upserts each
   changed file in its own transaction. Its edit-to-DB latency is measured the same way over
   ``--baseline-edits`` edits (each after a random pause of up to one poll interval), and its
   full re-sync (no stat cache, no content hashes: read, parse, upsert every file, one
   transaction per file) on a fresh database, on the whole vault or the first
   ``--baseline-files`` files (then extrapolated, and labelled so). The emulation uses our
   parser in place of the original's (issue 2 measured that at about 4,500 profiles/s), so
   the two differ in how they watch and write, not in parsing.

The single-file sync and the baseline re-sync run pinned to the idlest CPU; phases 1 and 2
run unpinned, because a large sync parses in worker processes, one per allowed CPU (issue 3:
the sync is not limited to one core), and the watch phases run unpinned, as a user's watcher
would, so the watcher is not queued behind the poller. ``roster`` subprocesses cache their
bytecode in the scratch folder even when ``PYTHONDONTWRITEBYTECODE`` is set (``--keep-env``
turns that off), so they start like an installed roster rather than compiling SQLAlchemy
from source on every run.

Prints a table, PASS/FAIL per target, and last one JSON line with every figure; exits 0 when
every target passes (and every sync wrote what it should), else 1.
``--cprofile N`` also profiles a cold, a no-change and a batch of single-file syncs.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import math
import os
import platform
import pstats
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import sqlalchemy
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

# bench/ is not a package: put this folder on the path for the sibling generator module.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import syncshapes
import vaultgen
from agent_roster.commands.sync import watch_vault
from agent_roster.known_tools import KnownTools
from agent_roster.store import Store, create_engine, sqlite_url
from agent_roster.store import mcp as server_rows
from agent_roster.store import profiles as profile_rows
from agent_roster.store.mcp import SyncedMcpServer
from agent_roster.store.profiles import SyncedProfile
from agent_roster.sync.engine import SyncEngine, SyncReport, content_hash
from agent_roster.vault.mcp_parser import parse_mcp_server
from agent_roster.vault.paths import EntryKind, VaultLayout, classify
from agent_roster.vault.profile_parser import parse_profile
from benchkit import Timing, TreeRss, idlest_cpu

TARGET_COLD_S = 2.0
TARGET_NO_CHANGE_S = 0.3
TARGET_P50_S = 0.050
TARGET_P95_S = 0.150
TARGET_RSS_MB = 200.0
MIN_EDITS = 200  # issue 3: "over at least 200 edits"
BASELINE_POLL_S = 5.0  # agent-queue: the orchestrator loop waits ~5 s between cycles
BASELINE_DEBOUNCE_S = 2.0  # agent-queue: debounce_seconds=2.0
EDIT_TARGETS = 50  # distinct files the edits rotate over (a fifth of them project overrides)

_VALUE = text("SELECT max_tokens_per_task FROM agent_profiles WHERE key = :key AND present")


# --- databases ------------------------------------------------------------------------------


class Databases:
    """Hands out empty databases: a new SQLite file each (``spec == "sqlite"``), or a new
    PostgreSQL schema each, selected through ``search_path`` as tests/store/conftest.py does.
    :meth:`close` drops every schema it made; SQLite files go with the scratch folder."""

    def __init__(self, spec: str, folder: Path) -> None:
        self.spec = spec
        self.folder = folder
        self.schemas: list[str] = []
        self.admin: Engine | None = None
        self._count = 0
        if spec != "sqlite":
            if make_url(spec).get_backend_name() != "postgresql":
                raise ValueError(f"--db must be 'sqlite' or a PostgreSQL URL, got {spec!r}")
            self.admin = create_engine(spec)

    @property
    def backend(self) -> str:
        return "sqlite" if self.admin is None else "postgresql"

    def fresh(self, label: str) -> str:
        """The URL of a new, empty database (``label`` only names the SQLite file)."""
        self._count += 1
        if self.admin is None:
            return sqlite_url(self.folder / f"{self._count:02d}-{label}.db")
        schema = f"roster_bench_{uuid.uuid4().hex[:12]}"
        with self.admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        self.schemas.append(schema)
        url = make_url(self.spec).update_query_dict({"options": f"-csearch_path={schema}"})
        return url.render_as_string(hide_password=False)

    def describe(self) -> str:
        if self.admin is None:
            return f"SQLite {sqlite3.sqlite_version} files (WAL) in {self.folder}, one per run"
        with self.admin.connect() as conn:
            version = conn.exec_driver_sql("SHOW server_version").scalar()
        shown = self.admin.url.render_as_string(hide_password=True)
        return f"PostgreSQL {version} at {shown}, a fresh schema per run (dropped at the end)"

    def close(self) -> None:
        if self.admin is None:
            return
        with self.admin.begin() as conn:
            for schema in self.schemas:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        self.schemas.clear()
        self.admin.dispose()


def count_present(url: str) -> tuple[int, int]:
    """Present profile and MCP server rows in the database at ``url``."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            profiles = conn.exec_driver_sql(
                "SELECT count(*) FROM agent_profiles WHERE present"
            ).scalar()
            servers = conn.exec_driver_sql(
                "SELECT count(*) FROM mcp_servers WHERE present"
            ).scalar()
    finally:
        engine.dispose()
    return int(profiles or 0), int(servers or 0)


# --- measuring helpers ----------------------------------------------------------------------


def percentile(samples: list[float], pct: float) -> float:
    """Nearest-rank percentile: the smallest sample with ``pct`` % of all at or below it."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]


class Pinning:
    """Pins this process (and the children it starts meanwhile) to the CPU that was idlest
    over a quarter of a second, and can undo that for the watch phases."""

    def __init__(self, enabled: bool) -> None:
        self.allowed: set[int] | None = None
        self.cpu: int | None = None
        if not enabled or not hasattr(os, "sched_setaffinity"):
            return
        self.allowed = set(os.sched_getaffinity(0))
        self.cpu = idlest_cpu(self.allowed)
        os.sched_setaffinity(0, {self.cpu})

    @contextmanager
    def released(self) -> Iterator[None]:
        """Every allowed CPU for the duration (a no-op when not pinned)."""
        if self.allowed is None or self.cpu is None:
            yield
            return
        os.sched_setaffinity(0, self.allowed)
        try:
            yield
        finally:
            os.sched_setaffinity(0, {self.cpu})


def roster_command() -> list[str]:
    """How a user starts roster from this environment: its console script, else ``-m``."""
    script = Path(sys.executable).with_name("roster")
    return [str(script)] if script.exists() else [sys.executable, "-m", "agent_roster"]


class ChildRun(NamedTuple):
    seconds: float
    #: The process's own peak resident size, sampled (0: not sampled).
    max_rss_kib: int
    returncode: int
    stdout: str
    stderr: str
    #: Peak summed resident size of the process and its workers, sampled (0: not sampled).
    tree_rss_kib: int = 0


def child_env(scratch: Path, keep_env: bool) -> dict[str, str]:
    """The environment for roster subprocesses. Unless ``keep_env``, bytecode is cached in a
    scratch folder (``PYTHONPYCACHEPREFIX``) even when ``PYTHONDONTWRITEBYTECODE`` is set, so
    the children start like an installed roster (whose ``.pyc`` files exist) instead of
    compiling SQLAlchemy and Alembic from source every time; the venv is not written to."""
    env = dict(os.environ)
    if not keep_env:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def run_roster(
    args: list[str], scratch: Path, env: dict[str, str], *, tree_rss: bool = False
) -> ChildRun:
    """Run ``roster ARGS`` to completion. Wall time from spawn until reaped; with
    ``tree_rss`` the child's own peak resident set (``VmHWM``, sampled) and the sampled peak
    of its resident size summed with its workers' (``benchkit.TreeRss``), in KiB."""
    out_path, err_path = scratch / "roster.out", scratch / "roster.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        gc.collect()
        start = time.perf_counter()
        proc = subprocess.Popen([*roster_command(), *args], stdout=out, stderr=err, env=env)
        sampler = TreeRss(proc.pid) if tree_rss else None
        _, status = os.waitpid(proc.pid, 0)
        seconds = time.perf_counter() - start
        tree_kib = sampler.stop() if sampler is not None else 0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ChildRun(
        seconds,
        sampler.root_peak_kib if sampler is not None else 0,
        proc.returncode,
        out_path.read_text(encoding="utf-8", errors="replace"),
        err_path.read_text(encoding="utf-8", errors="replace"),
        tree_kib,
    )


def proc_status_kib(pid: int | str, field: str) -> int | None:
    """A ``kB`` field (``VmRSS``, ``VmHWM``) of ``/proc/<pid>/status``; None if unreadable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


# --- 1 and 2: cold and no-change syncs ------------------------------------------------------


def inprocess_sync(url: str, vault: str) -> tuple[float, SyncReport]:
    """One ``SyncEngine(store, vault).sync()`` with a new Store and a new engine; only the
    engine's construction and the sync are timed (opening and migrating are not)."""
    with Store.open(url) as store:
        gc.collect()
        start = time.perf_counter()
        report = SyncEngine(store, vault).sync()
        seconds = time.perf_counter() - start
    return seconds, report


class SyncPhase(NamedTuple):
    cold: Timing
    cold_cli: Timing
    no_change: Timing
    no_change_cli: Timing
    cold_rss_kib: list[int]
    cold_tree_rss_kib: list[int]
    problems: list[str]
    synced_url: str  # an up-to-date database for the later phases


def sync_phase(
    vault: str, dbs: Databases, reps: int, scratch: Path, files: int, env: dict[str, str]
) -> SyncPhase:
    """Targets 1, 2 and 4, interleaved repetitions, each on its own database. A ``roster
    sync`` of a tiny vault first fills the children's bytecode cache (see :func:`child_env`)."""
    warm = scratch / "warm-vault"
    vaultgen.generate(warm, profiles=5, servers=2, projects=1)
    run_roster(["--vault", str(warm), "--db", dbs.fresh("warm-up"), "sync"], scratch, env)
    cold, cold_cli = Timing("cold sync, SyncEngine.sync()", []), Timing("cold, roster sync", [])
    same = Timing("no-change, new SyncEngine", [])
    same_cli = Timing("no-change, roster sync", [])
    rss: list[int] = []
    tree_rss: list[int] = []
    problems: list[str] = []
    first_url = ""
    for rep in range(reps):
        url = dbs.fresh(f"cold-{rep}")
        cli_url = dbs.fresh(f"cold-cli-{rep}")
        first_url = first_url or url

        seconds, report = inprocess_sync(url, vault)
        cold.runs.append(seconds)
        if report.written != files or report.failed:
            problems.append(f"cold sync wrote {report.written} of {files}, {report.failed} failed")
        rows = sum(count_present(url))
        if rows != files:
            problems.append(f"after the cold sync the database holds {rows} of {files} rows")

        child = run_roster(
            ["--vault", vault, "--db", cli_url, "sync", "--json"], scratch, env, tree_rss=True
        )
        cold_cli.runs.append(child.seconds)
        rss.append(child.max_rss_kib)
        # Both sampled; the process's own VmHWM also holds a peak between two samples.
        tree_rss.append(max(child.tree_rss_kib, child.max_rss_kib))
        problems.extend(_check_cli(child, "cold", written=files))

        seconds, report = inprocess_sync(url, vault)
        same.runs.append(seconds)
        if report.written or report.unchanged != files:
            problems.append(
                f"no-change sync wrote {report.written}, {report.unchanged} of {files} unchanged"
            )

        child = run_roster(["--vault", vault, "--db", cli_url, "sync", "--json"], scratch, env)
        same_cli.runs.append(child.seconds)
        problems.extend(_check_cli(child, "no-change", written=0))
        print(
            f"  rep {rep + 1}/{reps}: cold {cold.runs[-1]:.3f} s (cli {cold_cli.runs[-1]:.3f} s, "
            f"{rss[-1] / 1024:.0f} MB), no-change {same.runs[-1]:.3f} s "
            f"(cli {same_cli.runs[-1]:.3f} s)",
            file=sys.stderr,
        )
    return SyncPhase(cold, cold_cli, same, same_cli, rss, tree_rss, problems, first_url)


def _check_cli(child: ChildRun, what: str, *, written: int) -> list[str]:
    if child.returncode != 0:
        tail = (child.stderr or child.stdout).strip().splitlines()[-3:]
        return [f"roster sync ({what}) exited {child.returncode}: {' | '.join(tail)}"]
    try:
        report = json.loads(child.stdout)
    except json.JSONDecodeError:
        return [f"roster sync ({what}) printed no JSON report"]
    if report.get("written") != written or report.get("failed"):
        return [f"roster sync ({what}) wrote {report.get('written')} (expected {written})"]
    return []


# --- 3: edit-to-DB latency ------------------------------------------------------------------


class Target(NamedTuple):
    """One file the edits touch, and its row's key in ``agent_profiles``."""

    path: Path
    rel: str
    key: str


def pick_targets(vault: str, count: int, seed: int) -> list[Target]:
    """A fixed mix of system profiles and project overrides, in shuffled order."""
    system: list[Target] = []
    overrides: list[Target] = []
    for item in VaultLayout(vault).iter_entries():
        entry = item.entry
        if entry.kind is not EntryKind.PROFILE:
            continue
        key = entry.id if entry.project is None else f"{entry.project}/{entry.id}"
        (system if entry.project is None else overrides).append(
            Target(item.path, entry.rel_path, key)
        )
    rng = random.Random(seed)
    n_over = min(len(overrides), count // 5)
    chosen = rng.sample(system, min(len(system), count - n_over)) + rng.sample(overrides, n_over)
    rng.shuffle(chosen)
    return chosen


class Probe:
    """Reads a profile's ``max_tokens_per_task`` through its own connection, each read in a
    new transaction: exactly what another process reading the database would see."""

    def __init__(self, url: str) -> None:
        self.engine = create_engine(url)
        self.conn = self.engine.connect()

    def value(self, key: str) -> int | None:
        try:
            found = self.conn.execute(_VALUE, {"key": key}).scalar()
        finally:
            self.conn.rollback()
        return None if found is None else int(found)

    def close(self) -> None:
        self.conn.close()
        self.engine.dispose()


class Editor:
    """Edits target files so that every edit writes a value never written before (the base
    comes from the clock, so a reused vault cannot already hold it) and never the value the
    database holds now (which would read as an instant arrival)."""

    def __init__(self) -> None:
        self.generation = (time.time_ns() // 1_000_000) % 10_000_000 * 100

    def next_generation(self, current: int | None) -> int:
        self.generation += 1
        if 10_000 + self.generation == current:
            self.generation += 1
        return self.generation


class Latencies(NamedTuple):
    samples: list[float]  # seconds; a timed-out edit counts as the timeout
    timeouts: int

    def summary(self) -> dict[str, float]:
        s = self.samples
        return {
            "p50": percentile(s, 50),
            "p95": percentile(s, 95),
            "p99": percentile(s, 99),
            "max": max(s) if s else math.nan,
        }


def measure_edits(
    targets: list[Target],
    probe: Probe,
    editor: Editor,
    edits: int,
    *,
    timeout: float,
    poll: float,
    gap: float,
    progress: str = "",
) -> Latencies:
    """Edit one file at a time and wait until the database shows the new value.

    Before each edit the editor pauses a random 0..``gap`` seconds (not counted): a person
    saves at a random moment, not in lock-step with the watcher's loop. Without the pause
    every edit would land just as the watcher finished the previous one, which for a polling
    watcher is the worst phase (a whole extra poll) and for watchfiles' ``step`` loop too."""
    samples: list[float] = []
    timeouts = 0
    rng = random.Random(len(targets) * 7919 + edits)
    for index in range(edits):
        target = targets[index % len(targets)]
        if gap > 0:
            time.sleep(rng.uniform(0, gap))
        generation = editor.next_generation(probe.value(target.key))
        start = time.perf_counter()
        value = vaultgen.edit_profile(target.path, generation)
        deadline = start + timeout
        while True:
            seen = probe.value(target.key)
            now = time.perf_counter()
            if seen == value:
                samples.append(now - start)
                break
            if now > deadline:
                samples.append(timeout)
                timeouts += 1
                break
            time.sleep(poll)
        if progress and (index + 1) % max(1, edits // 4) == 0:
            print(f"  {progress}: {index + 1}/{edits} edits", file=sys.stderr)
    return Latencies(samples, timeouts)


class WatchRun(NamedTuple):
    latencies: Latencies
    ready_s: float  # start until the watch is established (includes its initial full sync)
    peak_rss_kib: int | None
    rss_after_kib: int | None
    notes: list[str]


def watch_subprocess(
    vault: str,
    url: str,
    scratch: Path,
    targets: list[Target],
    editor: Editor,
    args: argparse.Namespace,
    env: dict[str, str],
) -> WatchRun:
    """``roster watch`` as a user runs it; latencies seen from this process."""
    notes: list[str] = []
    err_path = scratch / "watch.err"
    command = [
        *roster_command(),
        "--vault",
        vault,
        "--db",
        url,
        "watch",
        "--settle-ms",
        str(args.settle_ms),
    ]
    with open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env)
    try:
        ready_s = _wait_for_ready(proc, err_path, start, timeout=args.ready_timeout)
        probe = Probe(url)
        try:
            latencies = measure_edits(
                targets,
                probe,
                editor,
                args.edits,
                timeout=args.edit_timeout,
                poll=args.poll_ms / 1000,
                gap=args.gap_ms / 1000,
                progress="roster watch",
            )
        finally:
            probe.close()
        rss_after = proc_status_kib(proc.pid, "VmRSS")
        time.sleep(0.5)  # let it go idle, as it is when a person presses Ctrl-C
        # Its own peak so far, not wait4's ru_maxrss (see benchkit.TreeRss); stopping it
        # frees memory rather than taking more.
        peak = proc_status_kib(proc.pid, "VmHWM")
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    how = _stop(proc)
    if how != "SIGINT":
        notes.append(f"roster watch did not exit on SIGINT within 5 s; stopped with {how}")
    log = err_path.read_text(encoding="utf-8", errors="replace")
    if "Traceback" in log or "failed;" in log:
        notes.append("roster watch logged a failing sync (see its stderr)")
    return WatchRun(latencies, ready_s, peak, rss_after, notes)


def _wait_for_ready(
    proc: subprocess.Popen[bytes], err_path: Path, start: float, *, timeout: float
) -> float:
    while True:
        if b"watching" in err_path.read_bytes():
            return time.perf_counter() - start
        if proc.poll() is not None:
            tail = err_path.read_text(encoding="utf-8", errors="replace")[-500:]
            raise RuntimeError(f"roster watch exited with {proc.returncode}: {tail}")
        if time.perf_counter() - start > timeout:
            raise RuntimeError(f"roster watch was not ready after {timeout:.0f} s")
        time.sleep(0.01)


def _stop(proc: subprocess.Popen[bytes]) -> str:
    """Stop the watcher like Ctrl-C would (then harder); the signal that did it."""
    for sig, name in (
        (signal.SIGINT, "SIGINT"),
        (signal.SIGTERM, "SIGTERM"),
        (signal.SIGKILL, "SIGKILL"),
    ):
        proc.send_signal(sig)
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            pid, status = os.waitpid(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                return name
            time.sleep(0.02)
    return "nothing"


def watch_thread(
    vault: str, url: str, targets: list[Target], editor: Editor, args: argparse.Namespace
) -> WatchRun:
    """``watch_vault`` in a background thread of this process (so it shares the GIL with
    the poller; the poller sleeps between short reads)."""
    stop, ready = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def run() -> None:
        try:
            watch_vault(vault, url, stop=stop, on_ready=ready.set, settle_ms=args.settle_ms)
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)
            ready.set()

    start = time.perf_counter()
    thread = threading.Thread(target=run, name="roster-watch", daemon=True)
    thread.start()
    notes: list[str] = []
    try:
        if not ready.wait(args.ready_timeout) or failures:
            raise RuntimeError(f"watch_vault did not become ready: {failures[:1]}")
        ready_s = time.perf_counter() - start
        probe = Probe(url)
        try:
            latencies = measure_edits(
                targets,
                probe,
                editor,
                args.edits,
                timeout=args.edit_timeout,
                poll=args.poll_ms / 1000,
                gap=args.gap_ms / 1000,
                progress="watch_vault thread",
            )
        finally:
            probe.close()
    finally:
        stop.set()
        thread.join(10)
    if thread.is_alive():
        notes.append("watch_vault did not stop within 10 s of its stop event")
    if failures:
        notes.append(f"watch_vault raised {failures[0]!r}")
    return WatchRun(latencies, ready_s, None, None, notes)


def single_file_syncs(
    url: str, vault: str, targets: list[Target], editor: Editor, count: int
) -> Timing:
    """The watcher's per-batch work for one edited file: ``engine.sync([rel])`` on a warm
    engine (its bookkeeping loaded by a full sync first), each after a fresh edit."""
    timing = Timing("single-file engine.sync([path]), warm", [])
    with Store.open(url) as store:
        engine = SyncEngine(store, vault)
        engine.sync()
        for index in range(count):
            target = targets[index % len(targets)]
            vaultgen.edit_profile(target.path, editor.next_generation(None))
            start = time.perf_counter()
            report = engine.sync([target.rel])
            timing.runs.append(time.perf_counter() - start)
            if report.written != 1:
                raise RuntimeError(f"single-file sync of {target.rel} wrote {report.written}")
    return timing


# --- 5: the baseline ------------------------------------------------------------------------


class PollingBaseline:
    """The seeds' system as ``agent-queue-lessons.md`` section 6 describes it: poll every
    ~5 s by walking and stat-ing every non-hidden file (no inotify, no hashes), flush changes
    first seen at least 2 s earlier (so detection and flush fall in different ticks), and for
    each changed file read it, parse it, look the row up and upsert it in its own
    transaction. Our parser stands in for the original's."""

    def __init__(self, store: Store, root: str, *, poll_s: float, debounce_s: float) -> None:
        self.store = store
        self.root = root
        self.poll_s = poll_s
        self.debounce_s = debounce_s
        servers = [
            (item.entry.project, item.entry.id)
            for item in VaultLayout(root).iter_entries()
            if item.entry.kind is EntryKind.MCP_SERVER
        ]
        self._servers = servers
        self._known: dict[str | None, KnownTools] = {}
        self.synced = 0
        self.errors: list[str] = []  # parse failures and exceptions, as the original logs them

    def known(self, project: str | None) -> KnownTools:
        if project not in self._known:
            names = {name for scope, name in self._servers if scope in (None, project)}
            self._known[project] = KnownTools(names)
        return self._known[project]

    def scan(self) -> dict[str, tuple[int, int]]:
        """Every non-hidden file's (mtime, size), keyed by vault-relative path."""
        found: dict[str, tuple[int, int]] = {}
        prefix = len(self.root.rstrip(os.sep)) + 1
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in names:
                if name.startswith("."):
                    continue
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                found[path[prefix:].replace(os.sep, "/")] = (stat.st_mtime_ns, stat.st_size)
        return found

    def sync_file(self, rel: str) -> None:
        """Read, parse, look up and upsert one file, in a transaction of its own."""
        entry = classify(rel)
        if entry is None:
            return
        raw = (Path(self.root) / rel).read_bytes()
        digest = content_hash(raw)
        at = time.time()
        if entry.kind is EntryKind.PROFILE:
            parsed = parse_profile(
                raw,
                path=rel,
                expected_id=entry.id,
                project=entry.project,
                known_tools=self.known(entry.project),
            )
            if not parsed.ok or parsed.profile is None:
                self.errors.append(f"{rel} does not parse")
                return
            self.store.get_profile(entry.id, entry.project, include_missing=True)
            with self.store.transaction() as conn:
                profile_rows.upsert_many(
                    conn, [SyncedProfile(parsed.profile, digest)], at=at, synced_at=at
                )
        else:
            server = parse_mcp_server(raw, path=rel, expected_name=entry.id, project=entry.project)
            if not server.ok or server.server is None:
                self.errors.append(f"{rel} does not parse")
                return
            with self.store.transaction() as conn:
                server_rows.upsert_many(
                    conn, [SyncedMcpServer(server.server, digest)], at=at, synced_at=at
                )
        self.synced += 1

    def full_sync(self, limit: int | None) -> int:
        """The startup re-sync: every layout file (the first ``limit`` in path order),
        one transaction each. Returns how many files it processed."""
        files = sorted(rel for rel in self.scan() if classify(rel) is not None)
        if limit is not None:
            files = files[:limit]
        for rel in files:
            self.sync_file(rel)
        return len(files)

    def run(self, stop: threading.Event, ready: threading.Event) -> None:
        """Poll until ``stop``; ``ready`` is set once the first snapshot is taken (an edit
        before that would be part of it and never be seen)."""
        previous = self.scan()
        ready.set()
        pending: dict[str, float] = {}
        while not stop.wait(self.poll_s):
            now = time.time()
            current = self.scan()
            for rel, signature in current.items():
                if previous.get(rel) != signature:
                    pending[rel] = now
            previous = current
            due = [rel for rel, seen in pending.items() if now - seen >= self.debounce_s]
            for rel in due:
                del pending[rel]
                try:
                    self.sync_file(rel)
                except Exception as exc:  # isolated per file, as the original's handlers are
                    self.errors.append(f"{rel}: {exc!r}")


class BaselineFigures(NamedTuple):
    full_files: int
    full_s: float
    full_estimate_s: float  # extrapolated to the whole vault when limited
    latencies: Latencies
    errors: list[str]  # files the baseline could not parse or store


def baseline_phase(
    vault: str,
    dbs: Databases,
    synced_url: str,
    targets: list[Target],
    editor: Editor,
    pinning: Pinning,
    files: int,
    args: argparse.Namespace,
) -> BaselineFigures:
    """The baseline's full re-sync on a fresh database, then its edit latency on an
    up-to-date one (the database our own watch phases used)."""
    limit = args.baseline_files or None
    with Store.open(dbs.fresh("baseline")) as store:
        gc.collect()
        start = time.perf_counter()
        full = PollingBaseline(store, vault, poll_s=BASELINE_POLL_S, debounce_s=BASELINE_DEBOUNCE_S)
        processed = full.full_sync(limit)
        full_s = time.perf_counter() - start
    errors = list(full.errors)
    estimate = full_s * files / processed if processed else math.nan
    print(f"  baseline full re-sync: {processed} files in {full_s:.1f} s", file=sys.stderr)

    latencies = Latencies([], 0)
    if args.baseline_edits:
        with pinning.released(), Store.open(synced_url) as store:
            baseline = PollingBaseline(
                store, vault, poll_s=BASELINE_POLL_S, debounce_s=BASELINE_DEBOUNCE_S
            )
            stop, ready = threading.Event(), threading.Event()
            thread = threading.Thread(target=baseline.run, args=(stop, ready), daemon=True)
            thread.start()
            ready.wait()
            probe = Probe(synced_url)
            try:
                latencies = measure_edits(
                    targets,
                    probe,
                    editor,
                    args.baseline_edits,
                    timeout=BASELINE_POLL_S * 2 + BASELINE_DEBOUNCE_S + 10,
                    poll=args.poll_ms / 1000,
                    gap=BASELINE_POLL_S,
                    progress="baseline poller",
                )
            finally:
                probe.close()
                stop.set()
                thread.join(BASELINE_POLL_S * 3)
            errors.extend(baseline.errors)
    return BaselineFigures(processed, full_s, estimate, latencies, errors)


# --- profiling ------------------------------------------------------------------------------


def profile_runs(
    vault: str, dbs: Databases, synced_url: str, targets: list[Target], editor: Editor, top: int
) -> str:
    """cProfile of a cold sync, a no-change sync and 50 single-file syncs: the top ``top``
    functions of each by cumulative and by own time."""
    out = io.StringIO()

    def show(title: str, fn: Callable[[], object]) -> None:
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        fn()
        profiler.disable()
        out.write(f"=== cProfile: {title} ({time.perf_counter() - start:.3f} s profiled) ===\n")
        stats = pstats.Stats(profiler, stream=out).strip_dirs()
        stats.sort_stats("cumulative").print_stats(top)
        stats.sort_stats("tottime").print_stats(top)

    with Store.open(dbs.fresh("profile-cold")) as store:
        show("cold sync", SyncEngine(store, vault).sync)
    with Store.open(synced_url) as store:
        show("no-change sync, new engine", SyncEngine(store, vault).sync)
        engine = SyncEngine(store, vault)
        engine.sync()

        def singles() -> None:
            for index in range(50):
                target = targets[index % len(targets)]
                vaultgen.edit_profile(target.path, editor.next_generation(None))
                engine.sync([target.rel])

        show("50 single-file syncs, warm engine", singles)
    return out.getvalue()


# --- the run --------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """The shapes phase (every ``--shape``), then, on the clean vault, the phases of
    issue 3 (unless ``--shapes-only``); report; the exit code."""
    pinning = Pinning(not args.no_pin)
    with tempfile.TemporaryDirectory(prefix="roster-sync-bench-", dir=args.tmp) as scratch_name:
        scratch = Path(scratch_name)
        shapes = vaultgen.chosen_shapes(args)
        shapes_ok, shape_figures = True, {}
        if args.vault is None:
            print("phase 0: cold sync vs floor-sync, every shape", file=sys.stderr)
            with pinning.released():  # the cold sync parses in worker processes
                shapes_ok, shape_figures = syncshapes.shapes_phase(args, scratch)
        if args.shapes_only or "clean" not in shapes:
            print(json.dumps({"bench": "sync", "shapes": shape_figures, "passed": shapes_ok}))
            return 0 if shapes_ok else 1
        args.shape_figures, args.shapes_ok = shape_figures, shapes_ok
        if args.vault is None:
            vault = str(scratch / "vault")
            origin = "generated"
        else:
            vault = os.path.abspath(args.vault)
            fresh = not os.path.exists(vault) or not any(os.scandir(vault))
            origin = "generated into --vault" if fresh else "reused --vault"
        if origin != "reused --vault":
            vaultgen.generate_from_args(Path(vault), args)
        (scratch / "db").mkdir()
        try:
            dbs = Databases(args.db, scratch / "db")
        except (ValueError, ModuleNotFoundError, sqlalchemy.exc.ArgumentError) as exc:
            print(f"sync bench: {exc}", file=sys.stderr)
            return 2
        try:
            return measure(vault, origin, dbs, pinning, scratch, args)
        finally:
            dbs.close()


def measure(
    vault: str,
    origin: str,
    dbs: Databases,
    pinning: Pinning,
    scratch: Path,
    args: argparse.Namespace,
) -> int:
    """Every phase in order, then the table, the verdicts and the JSON line."""
    entries = list(VaultLayout(vault).iter_entries())
    n_profiles = sum(1 for e in entries if e.entry.kind is EntryKind.PROFILE)
    n_overrides = sum(
        1 for e in entries if e.entry.kind is EntryKind.PROFILE and e.entry.project is not None
    )
    n_servers = len(entries) - n_profiles
    files = len(entries)
    vault_bytes = sum(e.path.stat().st_size for e in entries)
    started = time.strftime("%Y-%m-%d %H:%M:%S %z")
    database = dbs.describe()

    env = child_env(scratch, args.keep_env)
    print(f"phase 1+2: cold and no-change syncs, {args.reps} repetitions", file=sys.stderr)
    with pinning.released():  # a large sync parses in worker processes, one per core
        phase = sync_phase(vault, dbs, args.reps, scratch, files, env)
    problems = list(phase.problems)
    notes: list[str] = []

    targets = pick_targets(vault, EDIT_TARGETS, args.seed)
    editor = Editor()
    single = single_file_syncs(phase.synced_url, vault, targets, editor, args.single_syncs)

    watches: dict[str, WatchRun] = {}
    with pinning.released():
        if args.watch_mode in ("process", "both"):
            print("phase 3: roster watch (subprocess)", file=sys.stderr)
            watches["process"] = watch_subprocess(
                vault, phase.synced_url, scratch, targets, editor, args, env
            )
        if args.watch_mode in ("thread", "both"):
            print("phase 3: watch_vault (thread)", file=sys.stderr)
            watches["thread"] = watch_thread(vault, phase.synced_url, targets, editor, args)
    judged_mode = "process" if "process" in watches else "thread"
    judged = watches[judged_mode]
    for run_ in watches.values():
        notes.extend(run_.notes)

    print("phase 5: baseline (polling emulation)", file=sys.stderr)
    base = baseline_phase(vault, dbs, phase.synced_url, targets, editor, pinning, files, args)
    notes.extend(f"baseline: {error}" for error in base.errors[:5])

    # --- the table ---
    print("Agent Roster sync benchmark (issue 3, item 10)")
    seed = f", seed {args.seed}" if origin != "reused --vault" else ""
    print(f"vault: {vault} ({origin}{seed})")
    print(
        f"  {n_profiles:,} profile files ({n_profiles - n_overrides:,} system + "
        f"{n_overrides:,} project overrides), {n_servers:,} MCP server files, "
        f"{vault_bytes / 1e6:.1f} MB"
    )
    print(f"database: {database}")
    where = f"pinned to CPU {pinning.cpu}" if pinning.cpu is not None else "not pinned"
    print(
        f"python {platform.python_version()}, SQLAlchemy {sqlalchemy.__version__}, {where} "
        f"for the single-file and baseline syncs (cold, no-change and watch phases unpinned), "
        f"{args.reps} repetitions, page cache warm, started {started}"
    )
    if args.keep_env:
        print("roster subprocesses: this environment, unchanged")
    else:
        print(
            "roster subprocesses: bytecode cached in the scratch folder (PYTHONPYCACHEPREFIX), "
            "as an installed roster has it"
        )
    print()
    print(f"{'measurement':<46}{'best':>10}{'median':>10}{'target':>10}   baseline (same run)")
    limited = base.full_files < files
    base_full = (
        f"{base.full_estimate_s:.1f} s est. ({base.full_files:,} files took {base.full_s:.1f} s)"
        if limited
        else f"{base.full_s:.1f} s (full re-sync, one txn per file)"
    )
    rows: list[tuple[str, float, float, str, str]] = [
        (
            "1 cold sync, SyncEngine(store, vault).sync()",
            phase.cold.best,
            phase.cold.median,
            f"<= {TARGET_COLD_S:g} s",
            base_full,
        ),
        ("  cold, `roster sync` subprocess", phase.cold_cli.best, phase.cold_cli.median, "", ""),
        (
            "2 no-change re-sync, new SyncEngine",
            phase.no_change.best,
            phase.no_change.median,
            f"<= {TARGET_NO_CHANGE_S:g} s",
            "same as its full re-sync (no stat cache)",
        ),
        (
            "  no-change, `roster sync` subprocess",
            phase.no_change_cli.best,
            phase.no_change_cli.median,
            "",
            "",
        ),
        ("  single-file engine.sync([path]), warm", single.best, single.median, "", ""),
    ]
    for label, best, median, target, baseline in rows:
        print(f"{label:<46}{_secs(best):>10}{_secs(median):>10}{target:>10}   {baseline}")
    print()
    print(
        f"{'3 edit -> DB latency':<30}{'edits':>7}{'p50':>10}{'p95':>10}{'p99':>10}{'max':>10}"
        f"{'timeouts':>10}"
    )
    names = {"process": "`roster watch` process", "thread": "watch_vault thread"}
    latency_rows = [(names[mode], w.latencies) for mode, w in watches.items()]
    latency_rows.append(
        (f"baseline poll {BASELINE_POLL_S:g}s/{BASELINE_DEBOUNCE_S:g}s", base.latencies)
    )
    for label, lat in latency_rows:
        s = lat.summary()
        print(
            f"  {label:<28}{len(lat.samples):>7}{_secs(s['p50']):>10}{_secs(s['p95']):>10}"
            f"{_secs(s['p99']):>10}{_secs(s['max']):>10}{lat.timeouts:>10}"
        )
    print(
        f"  targets: p50 <= {TARGET_P50_S * 1000:g} ms, p95 <= {TARGET_P95_S * 1000:g} ms "
        f"over >= {MIN_EDITS} edits (judged: {names[judged_mode]}, settle {args.settle_ms} ms, "
        f"poll {args.poll_ms:g} ms)"
    )
    print(
        f"  one edit at a time after a random pause of 0-{args.gap_ms:g} ms (baseline: "
        f"0-{BASELINE_POLL_S:g} s), not counted; the clock runs from just before the write until "
        "a separate connection reads the new value"
    )
    for mode, w in watches.items():
        print(f"  {names[mode]} ready after {w.ready_s:.2f} s (its initial full sync included)")
    print()
    # Judged on the process tree: the sync's worker processes count too.
    tree_kib = phase.cold_tree_rss_kib
    peak_mb = max(tree_kib) / 1024 if tree_kib else math.nan
    own_mb = max(phase.cold_rss_kib) / 1024 if phase.cold_rss_kib else math.nan
    print(
        f"4 peak RSS, cold `roster sync` with its workers (summed VmRSS, sampled every 5 ms): "
        f"{peak_mb:.0f} MB max over {len(tree_kib)} runs (median "
        f"{statistics.median(tree_kib) / 1024:.0f} MB), target <= {TARGET_RSS_MB:g} MB"
    )
    print(f"  the `roster sync` process alone (VmHWM): {own_mb:.0f} MB max")
    watch_proc = watches.get("process")
    if watch_proc is not None and watch_proc.peak_rss_kib is not None:
        after = watch_proc.rss_after_kib or 0
        print(
            f"  `roster watch`: peak {watch_proc.peak_rss_kib / 1024:.0f} MB, resident "
            f"{after / 1024:.0f} MB after {len(watch_proc.latencies.samples)} edits"
        )
    print()
    cold_ratio = base.full_estimate_s / phase.cold.best if phase.cold.best else math.nan
    judged_p50 = judged.latencies.summary()["p50"]
    base_p50 = base.latencies.summary()["p50"]
    print(
        f"baseline: full re-sync {base.full_estimate_s:.1f} s "
        f"{'(extrapolated) ' if limited else ''}vs our cold {phase.cold.best:.2f} s "
        f"({cold_ratio:.1f}x) and no-change {phase.no_change.best:.3f} s; "
        f"edit latency p50 {_secs(base_p50)} vs ours {_secs(judged_p50)} "
        f"({base_p50 / judged_p50:.0f}x)"
    )
    print()

    # --- verdicts ---
    lat = judged.latencies
    summary = lat.summary()
    verdicts: list[tuple[bool, str]] = [
        (
            phase.cold.best <= TARGET_COLD_S,
            f"cold sync <= {TARGET_COLD_S:g} s: {phase.cold.best:.3f} s best "
            f"({phase.cold.median:.3f} s median)",
        ),
        (
            phase.no_change.best <= TARGET_NO_CHANGE_S,
            f"no-change re-sync <= {TARGET_NO_CHANGE_S:g} s: {phase.no_change.best:.3f} s best "
            f"({phase.no_change.median:.3f} s median)",
        ),
        (
            summary["p50"] <= TARGET_P50_S and lat.timeouts == 0,
            f"edit->DB p50 <= {TARGET_P50_S * 1000:g} ms: {summary['p50'] * 1000:.1f} ms",
        ),
        (
            summary["p95"] <= TARGET_P95_S and lat.timeouts == 0,
            f"edit->DB p95 <= {TARGET_P95_S * 1000:g} ms: {summary['p95'] * 1000:.1f} ms"
            f" ({lat.timeouts} timeouts)",
        ),
        (len(lat.samples) >= MIN_EDITS, f"at least {MIN_EDITS} edits measured: {len(lat.samples)}"),
        (peak_mb <= TARGET_RSS_MB, f"peak RSS <= {TARGET_RSS_MB:g} MB: {peak_mb:.0f} MB"),
        (
            not problems,
            "every sync wrote what it should" + (f": {problems[:3]}" if problems else ""),
        ),
    ]
    for ok, line in verdicts:
        print(f"{'PASS' if ok else 'FAIL'}  {line}")
    for note in notes:
        print(f"note: {note}")
    passed = all(ok for ok, _ in verdicts)

    if args.cprofile:
        print()
        print(profile_runs(vault, dbs, phase.synced_url, targets, editor, args.cprofile))

    figures: dict[str, Any] = {
        "bench": "sync",
        "started": started,
        "backend": dbs.backend,
        "files": files,
        "profiles": n_profiles,
        "overrides": n_overrides,
        "server_files": n_servers,
        "seed": args.seed if origin != "reused --vault" else None,
        "reps": args.reps,
        "cpu": pinning.cpu,
        "python": platform.python_version(),
    }
    for key, timing in (
        ("cold", phase.cold),
        ("cold_cli", phase.cold_cli),
        ("no_change", phase.no_change),
        ("no_change_cli", phase.no_change_cli),
        ("single_file", single),
    ):
        figures[key] = {
            "best_s": round(timing.best, 4),
            "median_s": round(timing.median, 4),
            "runs_s": [round(r, 4) for r in timing.runs],
        }
    for mode, w in watches.items():
        figures[f"watch_{mode}"] = {
            **{
                k: round(v * 1000, 2)
                for k, v in ((f"{name}_ms", value) for name, value in w.latencies.summary().items())
            },
            "edits": len(w.latencies.samples),
            "timeouts": w.latencies.timeouts,
            "ready_s": round(w.ready_s, 3),
            "peak_rss_mb": None if w.peak_rss_kib is None else round(w.peak_rss_kib / 1024, 1),
            "rss_after_mb": None if w.rss_after_kib is None else round(w.rss_after_kib / 1024, 1),
        }
    figures["cold_cli_peak_rss_mb"] = [round(k / 1024, 1) for k in phase.cold_rss_kib]
    figures["cold_cli_tree_peak_rss_mb"] = [round(k / 1024, 1) for k in phase.cold_tree_rss_kib]
    figures["baseline"] = {
        "full_files": base.full_files,
        "full_s": round(base.full_s, 3),
        "full_estimate_s": round(base.full_estimate_s, 3),
        "extrapolated": limited,
        "edits": len(base.latencies.samples),
        **{f"{k}_ms": round(v * 1000, 1) for k, v in base.latencies.summary().items()},
        "poll_s": BASELINE_POLL_S,
        "debounce_s": BASELINE_DEBOUNCE_S,
    }
    figures["targets"] = {
        "cold_s": TARGET_COLD_S,
        "no_change_s": TARGET_NO_CHANGE_S,
        "p50_ms": TARGET_P50_S * 1000,
        "p95_ms": TARGET_P95_S * 1000,
        "rss_mb": TARGET_RSS_MB,
        "judged_watch": judged_mode,
        "gap_ms": args.gap_ms,
        "settle_ms": args.settle_ms,
    }
    figures["pass"] = [ok for ok, _ in verdicts]
    figures["problems"] = problems
    figures["notes"] = notes
    figures["shapes"] = args.shape_figures
    passed = passed and args.shapes_ok
    figures["passed"] = passed
    print(json.dumps(figures, separators=(",", ":")))
    return 0 if passed else 1


def _secs(value: float) -> str:
    """A duration in the unit that reads best: ms below 10 s, else s."""
    if math.isnan(value):
        return "-"
    return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.1f} s"


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = vaultgen.bench_parser(
        __doc__,
        vault_help="benchmark this vault (it gets edited); if DIR is missing or empty, "
        "generate into it and keep it (default: a temporary generated vault)",
    )
    parser.add_argument(
        "--db",
        default="sqlite",
        metavar="URL",
        help="'sqlite' (default: fresh SQLite files in a scratch folder) or a PostgreSQL URL "
        "such as postgresql+psycopg://postgres@127.0.0.1:5432/test (a fresh schema per run, "
        "all dropped at the end)",
    )
    parser.add_argument(
        "--reps",
        type=int,
        default=3,
        help="repetitions of the cold and no-change syncs (default 3)",
    )
    parser.add_argument(
        "--edits", type=int, default=MIN_EDITS, help=f"edits per watch mode (default {MIN_EDITS})"
    )
    parser.add_argument(
        "--watch-mode",
        choices=("process", "thread", "both"),
        default="both",
        help="roster watch subprocess (judged when run), watch_vault thread, or both (default)",
    )
    parser.add_argument(
        "--settle-ms",
        type=int,
        default=15,
        help="the watcher's settle window (roster watch's default: 15)",
    )
    parser.add_argument(
        "--poll-ms",
        type=float,
        default=1.0,
        help="how often the database is read while waiting for an edit",
    )
    parser.add_argument(
        "--gap-ms",
        type=float,
        default=100.0,
        help="pause a random 0..GAP ms before each edit, not counted, so edits land at a random "
        "phase of the watcher's loop (default 100; 0: back to back). The baseline's edits "
        f"pause 0..{BASELINE_POLL_S:g} s, its poll interval",
    )
    parser.add_argument(
        "--edit-timeout",
        type=float,
        default=5.0,
        help="seconds one edit may take before it counts as timed out",
    )
    parser.add_argument(
        "--ready-timeout",
        type=float,
        default=600.0,
        help="seconds a watcher may take to start (its initial sync)",
    )
    parser.add_argument(
        "--single-syncs",
        type=int,
        default=50,
        help="single-file engine.sync([path]) runs (default 50)",
    )
    parser.add_argument(
        "--baseline-edits",
        type=int,
        default=5,
        help="edits under the polling baseline (~5-10 s each; default 5)",
    )
    parser.add_argument(
        "--baseline-files",
        type=int,
        default=0,
        metavar="N",
        help="baseline full re-sync over the first N files only, extrapolated "
        "to the vault (default 0: every file)",
    )
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one CPU")
    parser.add_argument(
        "--keep-env",
        action="store_true",
        help="start roster subprocesses with this environment unchanged (by "
        "default their bytecode is cached in the scratch folder)",
    )
    parser.add_argument(
        "--cprofile",
        type=int,
        metavar="N",
        default=0,
        help="also cProfile a cold, a no-change and 50 single-file syncs and "
        "print the top N functions of each",
    )
    vaultgen.add_shape_argument(parser)
    parser.add_argument(
        "--shapes-only",
        action="store_true",
        help="only the cold sync vs floor-sync of each shape, not issue 3's phases",
    )
    parser.add_argument("--tmp", metavar="DIR", help="scratch folder (vaults, databases)")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    if args.edits < 1 or args.single_syncs < 1:
        parser.error("--edits and --single-syncs must be at least 1")
    if args.baseline_edits < 0 or args.baseline_files < 0:
        parser.error("--baseline-edits and --baseline-files must not be negative")
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # Started in the background by a non-interactive shell, which ignores SIGINT; children
        # would inherit that, and the watch phase stops roster watch with SIGINT (Ctrl-C).
        # A handled signal is reset to the default across exec, an ignored one is not.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
