"""Benchmark: ``roster up`` serving a 10,000-profile vault, measured from a second process.

Issue 14 item 9. A vault of 10,000 system profiles, 200 MCP servers and 100 projects
(``vaultgen``'s defaults) is served by ``roster up`` as a subprocess on a free loopback
port; this process is the client (httpx, keep-alive connections; the official MCP SDK
client). Each figure sits beside its floor from the same run:

1. **HTTP resolve** - ``GET /api/resolve_profile?profile=ID`` over a fixed random sample of
   profile ids (one warm-up pass first, so the daemon's memos are filled), from
   ``--concurrency`` client threads, each with its own connection: requests/s and the
   nearest-rank p50/p99 of each request, beside the same server's ``/healthz`` measured
   the same way. The requests are split into ``--rounds`` short slices of each, alternating,
   so that a change in the machine's load hits both alike; the median slice rate of each is
   judged, the percentiles are over all requests of a kind. Targets: resolve
   throughput >= 0.7x /healthz's, and p99 <= 20 ms.
2. **MCP** - ``tools/call`` of ``resolve_profile`` over one streamable HTTP session, one
   call at a time: p50/p99 (target p99 <= 30 ms), beside ``tools/list`` on the same
   session.
3. **edit -> event** - ``/events`` is read on a thread while profiles are edited on disk
   (``vaultgen.edit_profile``, in place, as editors save), one at a time after a random
   pause: from just before the write to the ``changed`` event for that file arriving over
   SSE: p50/p95 (target p95 <= 150 ms), beside its floor: the same edits seen by inotify
   itself in this process (watchfiles, the daemon's watcher, with no settling).
4. **ready** - ``roster up`` on an empty database, from spawn to the first ``/healthz``
   answer, beside ``roster sync``'s cold time (spawn to exit) on another empty database
   (target: ready <= 1.5x cold sync).

The machine's load average is printed at the start and the end: other processes on a shared
2-core machine move every latency (a request waits for a CPU). So the daemon's own CPU time
per request (``/proc/<pid>/stat``, user + system) is printed beside them for HTTP resolve,
/healthz and the MCP call: a cost that load stretches far less.

Prints a table, PASS/FAIL per target and, last, one JSON line; exits 0 when every target
passes, 1 otherwise, 2 when the daemon lacks a command.
"""

from __future__ import annotations

import json
import math
import os
import queue
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import httpx
import httpx2
import watchfiles
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vaultgen
from sync import child_env, percentile, roster_command, run_roster

#: A lost SSE event counts as this many seconds.
EVENT_TIMEOUT = 10.0
TARGETS = {
    "resolve_ratio": 0.7,  # resolve req/s over /healthz req/s, at least
    "resolve_p99_ms": 20.0,
    "mcp_p99_ms": 30.0,
    "event_p95_ms": 150.0,
    "ready_ratio": 1.5,  # ready over cold sync, at most
}


class Round(NamedTuple):
    label: str
    rate: float  # requests per second, all threads together
    latencies: list[float]  # seconds, one per request
    cpu: float = math.nan  # the daemon's CPU seconds per request (user + system)

    def p(self, pct: float) -> float:
        return percentile(self.latencies, pct) * 1000


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used: a load-independent cost per request, beside
    the latencies that other processes on a busy machine stretch."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median(values: Any) -> float:
    return statistics.median(list(values))


def joined(rounds: list[Round]) -> list[float]:
    return [x for r in rounds for x in r.latencies]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Daemon:
    """``roster up`` on ``vault`` with its own database; ``ready`` is spawn to /healthz."""

    def __init__(self, vault: Path, db: str, scratch: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(scratch / f"up-{self.port}.log", "wb")  # noqa: SIM115 - closed in stop
        start = time.perf_counter()
        self.process = subprocess.Popen(
            [*roster_command(), "--vault", str(vault), "--db", db, "up", "--port", str(self.port)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=child_env(scratch, keep_env=False),
        )
        with httpx.Client(timeout=1) as client:
            while True:
                if self.process.poll() is not None:
                    raise SystemExit(f"roster up exited: {self.output()}")
                try:
                    if client.get(f"{self.url}/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.005)
        self.ready = time.perf_counter() - start

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.log.close()
        return code


def http_round(url: str, paths: list[str], threads: int, label: str, pid: int) -> Round:
    """Every path once, spread over ``threads`` clients with a connection each."""
    chunks = [paths[i::threads] for i in range(threads)]
    latencies: list[list[float]] = [[] for _ in chunks]
    failures: list[str] = []
    barrier = threading.Barrier(threads + 1)

    def work(index: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            client.get("/healthz")  # the connection is open before the clock starts
            barrier.wait()
            own = latencies[index]
            for path in chunks[index]:
                start = time.perf_counter()
                response = client.get(path)
                own.append(time.perf_counter() - start)
                if response.status_code != 200:
                    failures.append(f"{path}: {response.status_code} {response.text[:200]}")

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    barrier.wait()
    start, cpu = time.perf_counter(), cpu_seconds(pid)
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - start
    cpu = cpu_seconds(pid) - cpu
    if failures:
        raise SystemExit(f"{label}: {len(failures)} failed requests, first: {failures[0]}")
    flat = [x for own in latencies for x in own]
    return Round(label, len(flat) / seconds, flat, cpu / len(flat))


def mcp_calls(
    url: str, command: str, param: str, ids: list[str], pid: int
) -> tuple[list[float], list[float], int, float]:
    """Latencies of ``tools/call`` of ``command`` per id and of ``tools/list`` (seconds),
    and the byte size of the tools/list result (the local user's: every command), and the
    daemon's CPU seconds per call."""

    async def run() -> tuple[list[float], list[float], int, float]:
        async with (
            httpx2.AsyncClient(timeout=30) as client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            size = len(listed.model_dump_json(by_alias=True, exclude_none=True).encode())
            names = {tool.name for tool in listed.tools}
            if command not in names:
                raise SystemExit(f"the MCP server has no {command} tool: {sorted(names)}")
            for ident in ids[:20]:  # warm-up
                await session.call_tool(command, {param: ident})
            calls: list[float] = []
            cpu = cpu_seconds(pid)
            for ident in ids:
                start = time.perf_counter()
                result = await session.call_tool(command, {param: ident})
                calls.append(time.perf_counter() - start)
                if result.is_error:
                    raise SystemExit(f"{command} {ident}: {result.content}")
            cpu = (cpu_seconds(pid) - cpu) / len(ids)
            lists: list[float] = []
            for _ in range(50):
                start = time.perf_counter()
                await session.list_tools()
                lists.append(time.perf_counter() - start)
            return calls, lists, size, cpu

    result: tuple[list[float], list[float], int, float] = anyio.run(run)
    return result


class Events:
    """``GET /events`` on a thread; each event's (path, kind, arrival time)."""

    def __init__(self, url: str) -> None:
        self.arrived: queue.Queue[tuple[str, str, float]] = queue.Queue()
        opened = threading.Event()

        def read() -> None:
            with httpx.stream("GET", f"{url}/events", timeout=None) as response:
                opened.set()
                kind = ""
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        path = json.loads(line[6:]).get("path", "")
                        self.arrived.put((path, kind, time.perf_counter()))

        threading.Thread(target=read, daemon=True).start()
        if not opened.wait(30):
            raise SystemExit("/events did not answer")

    def wait(self, path: str, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                got, kind, at = self.arrived.get(timeout=left)
            except queue.Empty:
                break
            if got == path and kind == "changed":
                return at
        return None


class RawEvents:
    """The floor of edit -> event: inotify itself, through the same library the daemon
    watches with (watchfiles), asked for every change at once (a 1 ms step, no settling),
    in this process. No sync, no database, no HTTP: the least any watcher-driven daemon
    waits before it can know a file changed."""

    def __init__(self, root: Path) -> None:
        self.arrived: queue.Queue[tuple[str, float]] = queue.Queue()
        self.stop = threading.Event()
        ready = threading.Event()

        def read() -> None:
            watch = watchfiles.watch(
                root / "agent-types",
                step=1,
                debounce=1,
                rust_timeout=50,
                yield_on_timeout=True,
                stop_event=self.stop,
                raise_interrupt=False,
            )
            for changes in watch:
                at = time.perf_counter()
                ready.set()  # the first (timeout) yield: the watches are in place
                for _, path in changes:
                    self.arrived.put((os.path.relpath(path, root), at))

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(30):
            raise SystemExit("the inotify floor did not start")

    def wait(self, path: str, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                got, at = self.arrived.get(timeout=left)
            except queue.Empty:
                break
            if got == path:
                return at
        return None


def edits_to_events(
    url: str, root: Path, profiles: list[str], count: int, gap_ms: int
) -> tuple[list[float], list[float]]:
    """Seconds from just before each edit's write to its ``changed`` event over SSE (a
    lost event counts as :data:`EVENT_TIMEOUT`), and for the same edits to the first
    inotify event (the floor, :class:`RawEvents`)."""
    events = Events(url)
    raw = RawEvents(root)
    rng = random.Random(7)
    latencies: list[float] = []
    floors: list[float] = []
    try:
        for generation, ident in enumerate(rng.sample(profiles, count), 1):
            time.sleep(rng.uniform(0, gap_ms / 1000))
            rel = f"agent-types/{ident}/profile.md"
            while not raw.arrived.empty():  # events of an earlier edit still arriving
                raw.arrived.get_nowait()
            start = time.perf_counter()
            vaultgen.edit_profile(root / rel, 50_000 + generation + int(time.time()))
            at = events.wait(rel, EVENT_TIMEOUT)
            latencies.append((at if at is not None else start + EVENT_TIMEOUT) - start)
            seen = raw.wait(rel, EVENT_TIMEOUT)
            floors.append((seen if seen is not None else start + EVENT_TIMEOUT) - start)
    finally:
        raw.stop.set()
    return latencies, floors


def main(argv: list[str] | None = None) -> int:
    parser = vaultgen.bench_parser(__doc__)
    parser.add_argument("--requests", type=int, default=3000, help="HTTP requests per round")
    parser.add_argument("--rounds", type=int, default=10, help="alternating slices of each")
    parser.add_argument("--concurrency", type=int, default=4, help="HTTP client threads")
    parser.add_argument("--mcp-calls", type=int, default=500)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--gap-ms", type=int, default=200, help="longest pause between edits")
    parser.add_argument("--tmp", help="scratch folder (default: /dev/shm when writable)")
    parser.add_argument(
        "--command", default="resolve_profile", help="the resolve command's registry name"
    )
    parser.add_argument("--param", default="profile", help="its profile-id parameter")
    args = parser.parse_args(argv)
    tmp = args.tmp or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    with tempfile.TemporaryDirectory(prefix="roster-bench-serve-", dir=tmp) as scratch_dir:
        return measure(args, Path(scratch_dir))


def measure(args: Any, scratch: Path) -> int:
    load_start = os.getloadavg()
    root = Path(args.vault) if args.vault else scratch / "vault"
    if root.exists() and any(root.iterdir()):
        profiles = sorted(p.name for p in (root / "agent-types").iterdir())
        how = "reused --vault"
    else:
        profiles = vaultgen.generate_from_args(root, args).profiles
        how = "generated"
    print(f"vault: {root} ({how}), {len(profiles)} system profiles", file=sys.stderr)
    env = child_env(scratch, keep_env=False)
    # 4. ready beside the cold sync (each on an empty database)
    cold = run_roster(
        ["--vault", str(root), "--db", f"sqlite:///{scratch}/cold.db", "sync"], scratch, env
    )
    if cold.returncode != 0:
        raise SystemExit(f"roster sync failed: {cold.stderr}")
    daemon = Daemon(root, f"sqlite:///{scratch}/up.db", scratch)
    command, param = args.command, args.param
    try:
        ids = random.Random(args.seed).choices(profiles, k=args.requests)
        paths = [f"/api/{command}?{param}={ident}" for ident in ids]
        probe = httpx.get(f"{daemon.url}{paths[0]}", timeout=30)
        if probe.status_code != 200:
            print(f"{command} is not served: {probe.status_code} {probe.text[:300]}")
            return 2
        pid = daemon.process.pid
        http_round(daemon.url, sorted(set(paths)), args.concurrency, "warm-up", pid)
        size = max(1, args.requests // args.rounds)
        healthz: list[Round] = []
        resolve: list[Round] = []
        for start in range(0, size * args.rounds, size):
            healthz.append(
                http_round(daemon.url, ["/healthz"] * size, args.concurrency, "healthz", pid)
            )
            resolve.append(
                http_round(daemon.url, paths[start : start + size], args.concurrency, command, pid)
            )
        calls, lists, list_bytes, mcp_cpu = mcp_calls(
            f"{daemon.url}/mcp", command, param, ids[: args.mcp_calls], pid
        )
        edits, raw_edits = edits_to_events(daemon.url, root, profiles, args.edits, args.gap_ms)
    finally:
        code = daemon.stop()
    load_end = os.getloadavg()
    health_all = Round("healthz", median(r.rate for r in healthz), joined(healthz))
    resolve_all = Round(command, median(r.rate for r in resolve), joined(resolve))
    figures = {
        "command": command,
        "profiles": len(profiles),
        "concurrency": args.concurrency,
        "healthz_rps": health_all.rate,
        "healthz_p50_ms": health_all.p(50),
        "healthz_p99_ms": health_all.p(99),
        "resolve_rps": resolve_all.rate,
        "resolve_p50_ms": resolve_all.p(50),
        "resolve_p99_ms": resolve_all.p(99),
        "resolve_ratio": resolve_all.rate / health_all.rate,
        "healthz_cpu_ms": median(r.cpu for r in healthz) * 1000,
        "resolve_cpu_ms": median(r.cpu for r in resolve) * 1000,
        "mcp_cpu_ms": mcp_cpu * 1000,
        "mcp_p50_ms": percentile(calls, 50) * 1000,
        "mcp_p99_ms": percentile(calls, 99) * 1000,
        "mcp_list_p50_ms": percentile(lists, 50) * 1000,
        "tools_list_bytes": list_bytes,
        "event_p50_ms": percentile(edits, 50) * 1000,
        "event_p95_ms": percentile(edits, 95) * 1000,
        "inotify_p50_ms": percentile(raw_edits, 50) * 1000,
        "inotify_p95_ms": percentile(raw_edits, 95) * 1000,
        "event_timeouts": sum(1 for x in edits if x >= EVENT_TIMEOUT),
        "ready_s": daemon.ready,
        "cold_sync_s": cold.seconds,
        "ready_ratio": daemon.ready / cold.seconds,
        "stop_exit": code,
        "load_start": load_start[0],
        "load_end": load_end[0],
        "cpus": os.cpu_count(),
    }
    report(figures, healthz, resolve)
    return 0 if passed(figures) else 1


def report(figures: dict[str, Any], healthz: list[Round], resolve: list[Round]) -> None:
    f = figures
    print(
        f"load average {f['load_start']:.2f} at the start, {f['load_end']:.2f} at the end; "
        f"{f['cpus']} CPUs; {f['concurrency']} client threads"
    )
    print(f"{'measure':<34}{'figure':>14}  floor / baseline")
    print("  (CPU per request: HTTP resolve / MCP call; the latencies include waiting for a CPU)")
    print(
        "  slices, req/s: healthz "
        + " ".join(f"{h.rate:.0f}" for h in healthz)
        + "; resolve "
        + " ".join(f"{r.rate:.0f}" for r in resolve)
    )
    rows = [
        (
            "HTTP resolve req/s (median slice)",
            f"{f['resolve_rps']:.0f}",
            f"/healthz {f['healthz_rps']:.0f}",
        ),
        (
            "HTTP resolve p50 / p99 ms",
            f"{f['resolve_p50_ms']:.2f} / {f['resolve_p99_ms']:.2f}",
            f"/healthz {f['healthz_p50_ms']:.2f} / {f['healthz_p99_ms']:.2f}",
        ),
        (
            "MCP tools/call resolve p50/p99 ms",
            f"{f['mcp_p50_ms']:.2f} / {f['mcp_p99_ms']:.2f}",
            f"tools/list p50 {f['mcp_list_p50_ms']:.2f}",
        ),
        (
            "edit -> SSE event p50 / p95 ms",
            f"{f['event_p50_ms']:.1f} / {f['event_p95_ms']:.1f}",
            f"inotify {f['inotify_p50_ms']:.1f} / {f['inotify_p95_ms']:.1f}; "
            f"{f['event_timeouts']} timed out",
        ),
        ("roster up ready s", f"{f['ready_s']:.2f}", f"cold sync {f['cold_sync_s']:.2f}"),
        (
            "daemon CPU ms per request",
            f"{f['resolve_cpu_ms']:.2f} / {f['mcp_cpu_ms']:.2f}",
            f"/healthz {f['healthz_cpu_ms']:.2f}",
        ),
    ]
    for label, figure, floor in rows:
        print(f"{label:<34}{figure:>14}  {floor}")
    checks = verdicts(figures)
    for name, (ok, text) in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {text}")
    print(json.dumps({**figures, "pass": {k: ok for k, (ok, _) in checks.items()}}))


def verdicts(f: dict[str, Any]) -> dict[str, tuple[bool, str]]:
    t = TARGETS
    return {
        "resolve throughput": (
            f["resolve_ratio"] >= t["resolve_ratio"],
            f"{f['resolve_ratio']:.2f}x /healthz (target >= {t['resolve_ratio']}x)",
        ),
        "resolve p99": (
            f["resolve_p99_ms"] <= t["resolve_p99_ms"],
            f"{f['resolve_p99_ms']:.1f} ms (target <= {t['resolve_p99_ms']:.0f} ms)",
        ),
        "MCP call p99": (
            f["mcp_p99_ms"] <= t["mcp_p99_ms"],
            f"{f['mcp_p99_ms']:.1f} ms (target <= {t['mcp_p99_ms']:.0f} ms)",
        ),
        "edit -> event p95": (
            f["event_p95_ms"] <= t["event_p95_ms"],
            f"{f['event_p95_ms']:.1f} ms (target <= {t['event_p95_ms']:.0f} ms)",
        ),
        "ready": (
            f["ready_ratio"] <= t["ready_ratio"],
            f"{f['ready_ratio']:.2f}x cold sync (target <= {t['ready_ratio']}x)",
        ),
        "clean stop": (f["stop_exit"] == 0, f"SIGTERM exit {f['stop_exit']}"),
    }


def passed(figures: dict[str, Any]) -> bool:
    return all(ok for ok, _ in verdicts(figures).values())


if __name__ == "__main__":
    sys.exit(main())
