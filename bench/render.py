"""Benchmark: render 10,000 profiles to Claude Code and OpenCode, against rulesync 17.

Issue 5, item 7: roster renders 10,000 profiles to ``claude`` and ``opencode`` at least 10x
faster than rulesync 17 (npm ``rulesync``) renders the same 10,000 agents to the same two
targets, measured side by side in one run.

A vault of 10,000 system profiles with 200 MCP servers (``vaultgen``'s defaults) is
generated. The same agents, as ``render`` sees them (``load_effective``: extends merged),
are written as a rulesync project (``bench/rulesyncgen.py``): one
``.rulesync/subagents/<id>.md`` each with the same name, description, prompt, model, tools,
permission mode, turn limit and MCP server names, plus ``.rulesync/mcp.jsonc`` with the
servers they use. Then, with a warm page cache, repeated
(``--reps``) and interleaved (the order rotates each repetition), wall time of:

* **rulesync** — ``rulesync generate`` (targets claudecode, opencode; features subagents,
  mcp) as a subprocess, in a fresh copy of its project (copied untimed);
* **ours** — ``commands.harness.render_agents(vault, ["claude", "opencode"], out=DIR)`` in
  this process into a fresh folder: loading and parsing the vault, merging, rendering and
  writing every file;
* **ours, CLI** — ``roster --vault V render --to claude --to opencode --out DIR`` as a
  subprocess (interpreter start-up and printing its report included: its first 20 files
  and 40 kinds of loss, and how many more there are, as a terminal user sees it).

Roster keeps a large vault's parses between runs (``vault/parse_cache.py``: a file whose
bytes have not changed is not parsed again). "ours" and "ours, CLI" run as a user's second
render does, with the cache of the run before (the vault is the same); **ours, cold** and
**CLI, cold** run as the first render after a change of roster or a fresh clone does: the
cache file is deleted first (untimed), so they parse every file and write the cache. Both
are judged against the same targets.

* **floor** — for scale, not judged: the least any program reading this vault can do, in
  this process, with no worker: list, read and parse every profile and server file as
  ``bench/parse.py``'s floor does (libyaml, ``json.loads``), then write each profile's
  text, unchanged, to one file per target. Its time over the machine's CPUs is what even a
  render with no translation, no check and perfect parallelism would take; the line under
  the table sets it beside the time the 10x target allows.

Both sides must write one agent file per profile and target (``.claude/agents/*.md``,
``.opencode/agent[s]/*.md``, counted on disk after every run): a baseline that silently
wrote nothing would flatter us, and so would a render that skipped profiles. The target is
judged on the in-process time, best against best (the run least disturbed by other
processes); medians, CPU seconds (forked workers included) and the CLI's ratio are shown
beside it. Nothing is pinned to a CPU: rulesync's node uses more than one thread, and
``render_agents`` splits a large render across the machine's cores.

Both sides write their 20,000 files under one folder, by default on a tmpfs (``/dev/shm``;
``--tmp DIR`` to choose): the comparison is between the two programs, not the disk. On the
ext4 disk of the machine this was developed on, creating 20,000 small files took from 1 s
to 11 s from one minute to the next (write-back stalls), the same cost added to both sides
whatever they do. The header names the filesystem used. Each run gets a fresh folder. On a
disk nothing is deleted until the end: on ext4, creating files within half a minute of
deleting 20,000 others is several times slower, whoever does it. On a tmpfs each run's
folder is removed (untimed) once it is counted: kept, the outputs fill memory (8-10 GB for
the big-prompts vault) and slow down getting memory for whichever run comes later. Prints a
table, PASS/FAIL lines and,
last, one JSON line; exits 0 when the target passes, 1 when it does not or a count is wrong,
2 when it cannot run (rulesync, a codec or ``render_agents`` missing).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

# bench/ is not a package: put this folder on the path for the sibling modules.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parse
import rulesyncgen
import vaultgen
from benchkit import Timing, machine, machine_line

TARGET_SPEEDUP = 10.0
TARGET_SPEEDUP_CLI = 8.0  # `roster render` as a subprocess, start-up included (issue 12)
HARNESSES = ("claude", "opencode")
REPO = Path(__file__).resolve().parents[1]
NPM_BIN = REPO / ".tools" / "npm" / "node_modules" / ".bin"
RULESYNC_MAJOR = 17
# Where each harness reads project agents (docs/codecs/claude.md, opencode.md §1).
AGENT_DIRS = {"claude": (".claude/agents",), "opencode": (".opencode/agents", ".opencode/agent")}


class Run(NamedTuple):
    """One timed run: wall and CPU seconds, agent files per harness found on disk after it,
    every file it wrote (or reported), and error diagnostics (ours) or the exit code."""

    wall: float
    cpu: float
    agents: dict[str, int]
    files: int
    errors: int


class Side:
    """One contender's runs."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.runs: list[Run] = []

    @property
    def wall(self) -> Timing:
        return Timing(self.label, [r.wall for r in self.runs])

    @property
    def cpu(self) -> Timing:
        return Timing(self.label, [r.cpu for r in self.runs])

    @property
    def last(self) -> Run:
        return self.runs[-1]


# --- preconditions ---------------------------------------------------------------------------


def find_rulesync(given: str | None) -> str | None:
    if given:
        return given
    local = NPM_BIN / "rulesync"
    return str(local) if os.access(local, os.X_OK) else shutil.which("rulesync")


def missing_pieces(rulesync: str | None) -> tuple[list[str], str]:
    """What keeps the benchmark from running (empty when nothing), and rulesync's version."""
    problems: list[str] = []
    version = ""
    if rulesync is None:
        problems.append(
            "rulesync is not installed: scripts/harness-clis installs it (npm install --prefix "
            ".tools/npm "
            f"rulesync@{RULESYNC_MAJOR}.0.0), or pass --rulesync PATH"
        )
    else:
        try:
            done = subprocess.run(
                [rulesync, "--version"], capture_output=True, text=True, timeout=60, check=False
            )
            version = done.stdout.strip()
        except OSError as exc:
            problems.append(f"cannot run {rulesync}: {exc}")
        else:
            if not version.startswith(f"{RULESYNC_MAJOR}."):
                problems.append(
                    f"{rulesync} is version {version or '?'} ({done.stderr.strip()[:200]}); "
                    f"the target is measured against rulesync {RULESYNC_MAJOR}"
                )
    try:
        from agent_roster.commands.harness import render_agents  # noqa: F401
    except ImportError as exc:
        problems.append(f"agent_roster.commands.harness.render_agents is not there yet ({exc})")
        return problems, version
    from agent_roster.codecs import get_codec

    for name in HARNESSES:
        try:
            get_codec(name)
        except ImportError as exc:
            problems.append(f"the {name} codec is not there yet ({exc})")
        except Exception as exc:  # a half-written codec: say which, do not crash
            problems.append(f"the {name} codec does not load: {type(exc).__name__}: {exc}")
    return problems, version


# --- inputs ----------------------------------------------------------------------------------


def package_dir(executable: str) -> Path:
    """The npm package folder of ``executable`` (its own folder when there is none)."""
    real = Path(os.path.realpath(executable))
    for folder in real.parents:
        if (folder / "package.json").is_file():
            return folder
    return real.parent


def warm(*trees: Path) -> int:
    """Read every file under ``trees`` once, so no contender pays for a cold page cache."""
    total = 0
    for tree in trees:
        for folder, _dirs, names in os.walk(tree):
            for name in names:
                try:
                    with open(os.path.join(folder, name), "rb") as handle:
                        total += len(handle.read())
                except OSError:
                    pass
    return total


def count_agents(root: Path) -> dict[str, int]:
    """Agent files on disk under ``root``, per harness (the folders each harness reads)."""
    found: dict[str, int] = {}
    for harness, rels in AGENT_DIRS.items():
        n = 0
        for rel in rels:
            for _folder, _dirs, names in os.walk(root / rel):
                n += sum(1 for name in names if name.endswith(".md"))
        found[harness] = n
    return found


def count_files(root: Path, skip: Sequence[str] = ()) -> int:
    total = 0
    for folder, dirs, names in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d not in skip]
            names = [n for n in names if n not in skip]
        total += len(names)
    return total


# --- the contenders --------------------------------------------------------------------------


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_subprocess(argv: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """Wall and CPU seconds of one child process, its exit code and the tail of stderr."""
    cpu0 = _child_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - start
    return wall, _child_cpu() - cpu0, done.returncode, done.stderr.decode(errors="replace")[-2000:]


RULESYNC_INPUTS = (".rulesync", "rulesync.jsonc")


def run_rulesync(rulesync: str, project: Path) -> Run:
    wall, cpu, code, err = run_subprocess([rulesync, "generate"], project)
    if code != 0:
        print(f"rulesync generate exited {code}:\n{err}", file=sys.stderr)
    return Run(wall, cpu, count_agents(project), count_files(project, RULESYNC_INPUTS), code)


def drop_parse_cache(vault: Path) -> None:
    """Delete the vault's parse cache: the next render parses every file (a cold run)."""
    from agent_roster.vault.parse_cache import cache_path

    cache_path(vault).unlink(missing_ok=True)


def run_ours(vault: Path, out: Path, *, cold: bool = False) -> Run:
    from agent_roster.commands.harness import render_agents

    if cold:
        drop_parse_cache(vault)
    cpu0 = time.process_time() + _child_cpu()  # render_agents may fork workers
    start = time.perf_counter()
    report = render_agents(vault, HARNESSES, out=out)
    wall = time.perf_counter() - start
    cpu = time.process_time() + _child_cpu() - cpu0
    errors = [d for d in report.diagnostics if d.is_error]
    for diagnostic in errors[:5]:
        print(f"render: {diagnostic.format()}", file=sys.stderr)
    return Run(wall, cpu, count_agents(out), len(report.files), len(errors))


def run_floor(vault: Path, out: Path, harnesses: Sequence[str] = HARNESSES) -> Run:
    """The floor (see the module's docstring): read and parse the vault, write each profile's
    text to one file per harness (into its first folder of ``AGENT_DIRS``, else
    ``<harness>/``)."""
    cpu0 = time.process_time()
    start = time.perf_counter()
    profiles, servers = parse.floor_list(str(vault))
    folders = [out / AGENT_DIRS.get(h, (h,))[0] for h in harnesses]
    for folder in folders:
        folder.mkdir(parents=True)
    system = os.path.join(str(vault), "agent-types", "")
    for index, path in enumerate(profiles + servers):
        with open(path, "rb") as handle:
            raw = handle.read()
        parse.floor_document(raw)
        if not path.startswith(system):
            continue  # a server or a project's override is read (render loads it), not written
        for folder in folders:
            with open(folder / f"{index}.md", "wb") as handle:
                handle.write(raw)
    wall = time.perf_counter() - start
    return Run(wall, time.process_time() - cpu0, count_agents(out), count_files(out), 0)


def roster_argv() -> list[str]:
    script = Path(sys.executable).parent / "roster"
    return [str(script)] if script.exists() else [sys.executable, "-m", "agent_roster"]


def run_cli(vault: Path, out: Path, *, cold: bool = False) -> Run:
    if cold:
        drop_parse_cache(vault)
    argv = [*roster_argv(), "--vault", str(vault), "render"]
    for harness in HARNESSES:
        argv += ["--to", harness]
    wall, cpu, code, err = run_subprocess([*argv, "--out", str(out)], out.parent)
    if code != 0:
        print(f"roster render exited {code}:\n{err}", file=sys.stderr)
    return Run(wall, cpu, count_agents(out), count_files(out), code)


# --- main ------------------------------------------------------------------------------------


def measure(
    args: argparse.Namespace, rulesync: str, version: str, work: Path, shape: str
) -> tuple[bool, dict[str, Any]]:
    """One shape: its vault, rulesync's project, the interleaved runs, its table; (passed,
    figures)."""
    from agent_roster.commands.harness import load_effective

    vault = Path(args.vault).absolute() if args.vault else work / "vault"
    if args.vault:
        origin = vaultgen.prepare_vault(args, vault)
    else:
        vaultgen.generate_from_args(vault, args, shape)
        origin = "generated"
    effective = load_effective(vault)
    n = len(effective.profiles)
    project = work / "rulesync"
    rulesyncgen.write_project(project, effective.profiles, effective.servers)
    del effective
    warm(vault, project, package_dir(rulesync))
    subprocess.run([*roster_argv(), "--version"], capture_output=True, check=False)

    rs, ours, cli = Side("rulesync"), Side("ours"), Side("ours, CLI")
    ours_cold, cli_cold = Side("ours, cold"), Side("CLI, cold")
    floor = Side("floor")
    rs_again, ours_again = Side("rulesync"), Side("ours")
    slot = 0
    in_memory = filesystem_of(work) == "tmpfs"

    def fresh() -> Path:
        # Every run writes into a fresh folder, rulesync into a fresh copy of its project
        # (copied untimed). On a disk nothing is deleted until the end: deleting 20,000
        # files between runs makes ext4's inode allocator scan past the recently deleted
        # ones for the next half minute, a cost that has nothing to do with either program.
        # On a tmpfs the last run's folder (counted already) is removed here, untimed: the
        # outputs of earlier runs are held in memory (8-10 GB for the big-prompts vault),
        # and with 8 GB of them there the same roster render spent twice the system time
        # getting memory (3.2 -> 6.5 s), whichever side ran later paying for it.
        nonlocal slot
        if in_memory:
            shutil.rmtree(work / f"out-{slot}", ignore_errors=True)
        slot += 1
        return work / f"out-{slot}"

    def rulesync_once() -> None:
        copy = fresh()
        shutil.copytree(project, copy)
        rs.runs.append(run_rulesync(rulesync, copy))
        if args.again:
            rs_again.runs.append(run_rulesync(rulesync, copy))

    def ours_once() -> None:
        out = fresh()
        ours.runs.append(run_ours(vault, out))
        if args.again:
            ours_again.runs.append(run_ours(vault, out))

    def cli_once() -> None:
        out = fresh()
        out.mkdir()
        cli.runs.append(run_cli(vault, out))

    def ours_cold_once() -> None:
        ours_cold.runs.append(run_ours(vault, fresh(), cold=True))

    def cli_cold_once() -> None:
        out = fresh()
        out.mkdir()
        cli_cold.runs.append(run_cli(vault, out, cold=True))

    def floor_once() -> None:
        floor.runs.append(run_floor(vault, fresh()))

    order: list[Callable[[], None]] = [
        rulesync_once,
        ours_once,
        cli_once,
        ours_cold_once,
        cli_cold_once,
        floor_once,
    ]
    for rep in range(args.reps):  # interleaved, rotating, so drift hits all alike
        turn = rep % len(order)
        for step in order[turn:] + order[:turn]:
            step()
        print(f"repetition {rep + 1}/{args.reps} done", file=sys.stderr)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3

    ratio = rs.wall.best / ours.wall.best
    ratio_median = rs.wall.median / ours.wall.median
    ratio_cli = rs.wall.best / cli.wall.best
    ratio_cold = rs.wall.best / ours_cold.wall.best
    ratio_cli_cold = rs.wall.best / cli_cold.wall.best
    expected = {h: n for h in HARNESSES}
    sides = {
        "rulesync": rs,
        "ours": ours,
        "ours_cli": cli,
        "ours_cold": ours_cold,
        "ours_cli_cold": cli_cold,
    }
    counted = {**sides, "floor": floor}
    counts_ok = {key: all(r.agents == expected for r in side.runs) for key, side in counted.items()}
    clean = all(r.errors == 0 for side in sides.values() for r in side.runs)
    speed_ok = ratio >= TARGET_SPEEDUP
    cli_ok = ratio_cli >= TARGET_SPEEDUP_CLI
    cold_ok = ratio_cold >= TARGET_SPEEDUP
    cli_cold_ok = ratio_cli_cold >= TARGET_SPEEDUP_CLI
    fast = speed_ok and cli_ok and cold_ok and cli_cold_ok
    passed = fast and all(counts_ok.values()) and clean

    print(f"Agent Roster render benchmark (issues 5 and 12), shape {shape}")
    print(f"vault: {vault} ({origin}); {n:,} profiles, rulesync {version} at {rulesync}")
    print(
        f"python {platform.python_version()}, not pinned, {args.reps} repetitions, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end"
    )
    print(f"outputs under {work} ({filesystem_of(work)})")
    host = machine()
    print(machine_line(host))
    print()
    head = (
        f"{'contender':<12}{'best s':>8}{'median s':>10}{'CPU s':>8}{'ratio':>8}"
        f"{'claude':>8}{'opencode':>10}{'files':>8}{'profiles/s':>12}"
    )
    print(head)
    for side in counted.values():
        last = side.last
        print(
            f"{side.label:<12}{side.wall.best:>8.2f}{side.wall.median:>10.2f}"
            f"{side.cpu.best:>8.2f}{rs.wall.best / side.wall.best:>7.1f}x"
            f"{last.agents['claude']:>8,}{last.agents['opencode']:>10,}{last.files:>8,}"
            f"{n / side.wall.best:>12,.0f}"
        )
    print("ratio = rulesync best / best; files = every file written (agents, MCP configs)")
    cpus = os.cpu_count() or 1
    allowed = rs.wall.best / TARGET_SPEEDUP
    print(
        f"scale: the {TARGET_SPEEDUP:g}x target allows ours {allowed:.2f} s; the floor (no "
        f"translation, no check) took {floor.wall.best:.2f} s in one process, "
        f"{floor.wall.best / cpus:.2f} s if spread perfectly over {cpus} CPUs"
    )
    if args.again:
        print()
        print("--again: the same render once more over its own output (nothing changed)")
        for side in (rs_again, ours_again):
            print(
                f"{side.label:<12}{side.wall.best:>8.2f}{side.wall.median:>10.2f}"
                f"{side.cpu.best:>8.2f}{rs_again.wall.best / side.wall.best:>7.1f}x"
            )
    print()
    verdicts = [
        (
            speed_ok,
            f"render_agents >= {TARGET_SPEEDUP:g}x rulesync, best vs best: {ratio:.1f}x "
            f"(median {ratio_median:.1f}x)",
        ),
        (
            cli_ok,
            f"roster render (CLI, interpreter start-up included) >= {TARGET_SPEEDUP_CLI:g}x "
            f"rulesync, best vs best: {ratio_cli:.1f}x "
            f"(median {rs.wall.median / cli.wall.median:.1f}x)",
        ),
        (
            cold_ok,
            f"render_agents, cold (no parse cache) >= {TARGET_SPEEDUP:g}x rulesync, best vs "
            f"best: {ratio_cold:.1f}x (median {rs.wall.median / ours_cold.wall.median:.1f}x)",
        ),
        (
            cli_cold_ok,
            f"roster render (CLI), cold >= {TARGET_SPEEDUP_CLI:g}x rulesync, best vs best: "
            f"{ratio_cli_cold:.1f}x (median {rs.wall.median / cli_cold.wall.median:.1f}x)",
        ),
        *(
            (ok, f"{counted[key].label}: {n:,} agent files per target in every run")
            for key, ok in counts_ok.items()
        ),
        (clean, "no render errors, every process exited 0"),
    ]
    for ok, text in verdicts:
        print(f"{'PASS' if ok else 'FAIL'}  {text}")

    def figures_of(side: Side) -> dict[str, Any]:
        return {
            "best_s": round(side.wall.best, 3),
            "median_s": round(side.wall.median, 3),
            "runs_s": [round(r.wall, 3) for r in side.runs],
            "cpu_best_s": round(side.cpu.best, 3),
            "agents": side.last.agents,
            "files": side.last.files,
            "errors": [r.errors for r in side.runs],
            "profiles_per_s": round(n / side.wall.best),
        }

    figures: dict[str, Any] = {
        "shape": shape,
        "profiles": n,
        "harnesses": list(HARNESSES),
        "rulesync_version": version,
        "python": platform.python_version(),
        "machine": host,
        "reps": args.reps,
        "load_average": [round(x, 2) for x in load],
        "output_filesystem": filesystem_of(work),
        "rulesync": figures_of(rs),
        "ours": figures_of(ours),
        "ours_cli": figures_of(cli),
        "ours_cold": figures_of(ours_cold),
        "ours_cli_cold": figures_of(cli_cold),
        "floor": figures_of(floor),
        "again": {"rulesync": figures_of(rs_again), "ours": figures_of(ours_again)}
        if args.again
        else None,
        "speedup": round(ratio, 2),
        "speedup_median": round(ratio_median, 2),
        "speedup_cli": round(ratio_cli, 2),
        "speedup_cold": round(ratio_cold, 2),
        "speedup_cli_cold": round(ratio_cli_cold, 2),
        "target_speedup": TARGET_SPEEDUP,
        "target_speedup_cli": TARGET_SPEEDUP_CLI,
        "pass_speed": speed_ok,
        "pass_speed_cli": cli_ok,
        "pass_speed_cold": cold_ok,
        "pass_speed_cli_cold": cli_cold_ok,
        "pass_counts": counts_ok,
        "clean": clean,
        "passed": passed,
    }
    print()
    return passed, figures


def measure_shapes(args: argparse.Namespace, rulesync: str, version: str, work: Path) -> int:
    """Every shape ``--shape`` chose, each in its own folder (removed after it), then a
    summary and the JSON line; the exit code."""
    shapes = vaultgen.chosen_shapes(args)
    if args.vault:
        shapes = shapes[:1]  # a given vault has one shape
    results: dict[str, dict[str, Any]] = {}
    for shape in shapes:
        folder = work / shape
        folder.mkdir()
        _, results[shape] = measure(args, rulesync, version, folder, shape)
        shutil.rmtree(folder)
    load = os.getloadavg()
    print(f"shapes (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end):")
    print(
        f"{'shape':<14}{'rulesync s':>11}{'ours':>7}{'CLI':>7}{'cold':>7}{'CLI cold':>9}"
        f"  verdict (ratios to rulesync; targets >= {TARGET_SPEEDUP:g}x in process, "
        f">= {TARGET_SPEEDUP_CLI:g}x CLI)"
    )
    for shape, f in results.items():
        print(
            f"{shape:<14}{f['rulesync']['best_s']:>11.2f}{f['speedup']:>6.1f}x"
            f"{f['speedup_cli']:>6.1f}x{f['speedup_cold']:>6.1f}x{f['speedup_cli_cold']:>8.1f}x"
            f"  {'PASS' if f['passed'] else 'FAIL'}"
        )
    passed = all(f["passed"] for f in results.values())
    summary = {"bench": "render", "load_average": [round(x, 2) for x in load], "passed": passed}
    print(json.dumps({**summary, "shapes": results}, separators=(",", ":")))
    return 0 if passed else 1


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = vaultgen.bench_parser(__doc__)
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each measurement")
    parser.add_argument(
        "--rulesync",
        metavar="PATH",
        help="the rulesync executable (default: .tools/npm/node_modules/.bin/rulesync, else PATH)",
    )
    parser.add_argument(
        "--tmp",
        metavar="DIR",
        type=Path,
        help="folder for the outputs (default: /dev/shm when writable, else the system's "
        "temporary folder)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="also time each side rendering once more over its own output (not judged)",
    )
    vaultgen.add_shape_argument(parser)
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    rulesync = find_rulesync(args.rulesync)
    problems, version = missing_pieces(rulesync)
    if problems or rulesync is None:
        for problem in problems:
            print(f"bench/render.py: cannot measure: {problem}", file=sys.stderr)
        return 2
    # 20,000+ files go to the temporary folder: remove them when stopped with SIGTERM too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="roster-bench-render-", dir=work_root(args)) as tmp:
        return measure_shapes(args, rulesync, version, Path(tmp))


def work_root(args: argparse.Namespace) -> str | None:
    """Where outputs (and a generated vault) go: ``--tmp``, else a tmpfs when there is one."""
    if args.tmp:
        return str(args.tmp)
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def filesystem_of(path: Path) -> str:
    """The type of the filesystem holding ``path`` (from /proc/mounts), or "unknown"."""
    try:
        mounts = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return "unknown"
    best, kind = "", "unknown"
    text = str(path.resolve())
    for fields in mounts:
        point = fields[1]
        inside = text == point or text.startswith(point.rstrip("/") + "/")
        if len(fields) > 2 and inside and len(point) > len(best):
            best, kind = point, fields[2]
    return kind


if __name__ == "__main__":
    sys.exit(main())
