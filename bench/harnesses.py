"""Benchmark: render 10,000 profiles to every harness, one at a time, beside rulesync 17.

Issue 16 item 6: the 10,000-profile vault (``vaultgen``'s defaults; every shape, or those
``--shape`` names, each in its own run of everything below)
rendered to each of roster's harnesses (``codecs.codec_names()``), with the time per
harness; where rulesync supports the same target, ``rulesync generate`` for that target in
the same run. Targets: no harness costs more than 2x the Claude render per agent, and the
roster CLI is at least 8x rulesync on every shared target.

For each harness, repeated (``--reps``) and interleaved with the others:

* **ours** — ``commands.harness.render_agents(vault, [H], out=DIR, allow_widening=True)``
  in this process into a fresh folder (load, merge, render, write every file);
* **ours, CLI** — ``roster --vault V render --to H --allow-widening --out DIR`` as a
  subprocess, for the harnesses rulesync shares (interpreter start-up included),
  run twice: as a second render (the parse cache of the run before, ``vault/parse_cache.py``)
  and **cold**, with the cache deleted first (untimed), as the first render after a change
  of roster does; both are judged;
* **rulesync** — ``rulesync generate --targets T --features subagents,mcp`` in a fresh copy
  of the same agents as a rulesync project (``bench/rulesyncgen.py``, every agent for
  every shared target), copied untimed.

Shared targets (rulesync 17 name): claude (``claudecode``), opencode, kilo, codex
(``codexcli``), copilot (``copilotcli``), cursor, qwen (``qwencode``), droid
(``factorydroid``). rulesync 17 has no Gemini CLI target (it moved to Antigravity) and no
Qoder, AGH or defect.

Like for like. The generated profiles deny calls that several harnesses cannot express
(Copilot's ``search`` grants Grep and Glob together, Qwen Code's edit tool cannot be denied
by path, Cursor would allow the reads, edits, web and MCP calls they deny...): by default
roster refuses those agents (``render-widens``, the never-widen rule; on a 200-profile
vault AGH, Codex and Cursor wrote none, Copilot 57 and Qwen Code 156), while rulesync
writes them all. A render that writes a fraction of the agents is not comparable, per agent
or against rulesync. So both of roster's runs render with the explicit opt-in
(``allow_widening`` / ``--allow-widening``): the never-widen check still runs for every
agent (its cost is measured) and reports what widens; the agent is written anyway. Every
run of every side is then counted on disk: the distinct agents in the folders each harness
reads (``agents``, Droid's ``droids``) must equal the number of profiles. When a count
differs the figures are still printed, with the reasons roster gave (the codes of its error
diagnostics), but the run is not like for like: it fails with exit status 2. Refusals that
``--allow-widening`` does not lift remain: a profile naming an MCP server the harness cannot
configure at all (``render-unsupported``: Codex has no SSE transport, AGH MCP servers no
headers) is not written, and the count says so.

For scale, not judged, each repetition also times ``bench/render.py``'s floor for one
target (read and parse the vault, write each profile's text to one file, in this process);
the line under the table sets it beside the time the CLI target allows.

Outputs go to a tmpfs (``/dev/shm``) when there is one. Prints, per shape, a table and one
JSON line; exits 0 when the targets pass, 1 when a target fails, 2 when it cannot run or a count
differs from the number of profiles.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rulesyncgen
import vaultgen
from benchkit import Timing, machine, machine_line
from render import (
    _child_cpu,
    drop_parse_cache,
    find_rulesync,
    missing_pieces,
    package_dir,
    roster_argv,
    run_floor,
    run_subprocess,
    warm,
    work_root,
)

TARGET_PER_AGENT = 2.0  # at most 2x the Claude render per agent
TARGET_CLI = 8.0  # roster's CLI against rulesync, per shared target
#: roster harness → rulesync 17 target.
RULESYNC_TARGETS = {
    "claude": "claudecode",
    "opencode": "opencode",
    "kilo": "kilo",
    "codex": "codexcli",
    "copilot": "copilotcli",
    "cursor": "cursor",
    "qwen": "qwencode",
    "droid": "factorydroid",
}


def count_agents(root: Path, skip: tuple[str, ...] = ()) -> int:
    """Distinct agents on disk under ``root`` (``agent_of`` each file's relative path)."""
    names = set()
    for folder, dirs, files in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d not in skip]
        rel = os.path.relpath(folder, root)
        names.update(name for f in files if (name := agent_of(os.path.join(rel, f))))
    return len(names)


def count_files(root: Path, skip: tuple[str, ...] = ()) -> int:
    total = 0
    for folder, dirs, names in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d not in skip]
        total += len(names)
    return total


def agent_of(path: str) -> str:
    """The agent a rendered file belongs to: the name after an ``agents`` folder (every
    harness keeps its agents in one; ``.agh/agents/<name>/AGENT.md``, ``.defect/agents/<name>/``;
    Factory Droid's is ``droids``), or "" for a shared file (an MCP or settings file)."""
    parts = Path(path).parts
    folder = next((f for f in ("agents", "droids") if f in parts[:-1]), None)
    if folder is None:
        return ""
    name = parts[parts.index(folder) + 1]
    for suffix in (".agent.md", ".md", ".toml"):
        name = name.removesuffix(suffix)
    return name


class Ours(NamedTuple):
    """One in-process render: wall and CPU seconds, files reported, agents on disk, profiles
    refused (an error diagnostic names them), profiles written though they widen, and the
    error codes with their counts."""

    wall: float
    cpu: float
    files: int
    agents: int
    refused: int
    widened: int
    errors: dict[str, int]


def run_ours(vault: Path, harness: str, out: Path) -> Ours:
    from agent_roster.codecs.base import LossOutcome
    from agent_roster.commands.harness import render_agents

    cpu0 = time.process_time() + _child_cpu()
    start = time.perf_counter()
    report = render_agents(vault, [harness], out=out, allow_widening=True)
    wall = time.perf_counter() - start
    cpu = time.process_time() + _child_cpu() - cpu0
    errors = [d for d in report.diagnostics if d.is_error]
    widened = {loss.profile for loss in report.losses if loss.outcome is LossOutcome.WIDENED}
    return Ours(
        wall,
        cpu,
        len(report.files),
        count_agents(out),
        len({d.path for d in errors}),
        len(widened),
        dict(Counter(d.code for d in errors)),
    )


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = vaultgen.bench_parser(__doc__)
    parser.add_argument("--reps", type=int, default=1, help="repetitions of each measurement")
    parser.add_argument("--rulesync", metavar="PATH", help="the rulesync executable")
    parser.add_argument("--tmp", metavar="DIR", type=Path, help="folder for the outputs")
    parser.add_argument(
        "--harness", action="append", help="only these harnesses (repeatable; default all)"
    )
    vaultgen.add_shape_argument(parser)
    args = parser.parse_args(argv)
    rulesync = find_rulesync(args.rulesync)
    problems, version = missing_pieces(rulesync)
    if problems or rulesync is None:
        for problem in problems:
            print(f"bench/harnesses.py: cannot measure: {problem}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="roster-bench-harnesses-", dir=work_root(args)) as tmp:
        codes = []
        for shape in vaultgen.chosen_shapes(args):
            folder = Path(tmp) / shape
            folder.mkdir()
            codes.append(measure(args, rulesync, version, folder, shape))
            shutil.rmtree(folder)
            print()
        return max(codes)


def measure(args: Any, rulesync: str, version: str, work: Path, shape: str) -> int:
    """One shape: its vault, rulesync's project, the interleaved runs, its table and JSON
    line; the exit code."""
    from agent_roster.codecs import codec_names
    from agent_roster.commands.harness import load_effective

    harnesses = [h for h in codec_names() if not args.harness or h in args.harness]
    if "claude" not in harnesses:
        harnesses.insert(0, "claude")  # the per-agent reference
    vault = work / "vault"
    vaultgen.generate_from_args(vault, args, shape)
    effective = load_effective(vault)
    n = len(effective.profiles)
    shared = [h for h in harnesses if h in RULESYNC_TARGETS]
    project = work / "rulesync"
    targets = [RULESYNC_TARGETS[h] for h in shared]
    rulesyncgen.write_project(project, effective.profiles, effective.servers, targets)
    del effective
    warm(vault, project, package_dir(rulesync))
    rulesync_inputs = (".rulesync", "rulesync.jsonc")
    slot = 0

    def fresh() -> Path:
        # Each run's folder is counted right after the run, then removed here (untimed)
        # before the next one is made: on a tmpfs, 12 harnesses times three sides of the
        # big-prompts vault (0.5-1 GB a run) kept to the end filled the machine's memory.
        nonlocal slot
        shutil.rmtree(work / f"out-{slot}", ignore_errors=True)
        slot += 1
        return work / f"out-{slot}"

    ours: dict[str, list[float]] = {h: [] for h in harnesses}
    cpu: dict[str, list[float]] = {h: [] for h in harnesses}
    last: dict[str, Ours] = {}
    cli_agents: dict[str, list[int]] = {h: [] for h in shared}
    rs_agents: dict[str, list[int]] = {h: [] for h in shared}
    short: list[str] = []  # runs whose agents on disk differ from the profiles
    cli: dict[str, list[float]] = {h: [] for h in shared}
    cli_cold: dict[str, list[float]] = {h: [] for h in shared}
    rs: dict[str, list[float]] = {h: [] for h in shared}
    cli_cpu: dict[str, list[float]] = {h: [] for h in shared}
    rs_cpu: dict[str, list[float]] = {h: [] for h in shared}
    rs_files: dict[str, int] = {}
    failures: list[str] = []
    floor: list[float] = []
    for rep in range(args.reps):
        floor.append(run_floor(vault, fresh(), ("claude",)).wall)
        for harness in harnesses:
            run = run_ours(vault, harness, fresh())
            ours[harness].append(run.wall)
            cpu[harness].append(run.cpu)
            last[harness] = run
            if run.agents != n:
                why = ", ".join(f"{c} x{k}" for c, k in sorted(run.errors.items())) or "no error"
                short.append(f"ours {harness}: {run.agents:,} agents on disk for {n:,} ({why})")
            if harness not in shared:
                continue
            for cold in (False, True):
                if cold:
                    drop_parse_cache(vault)
                out = fresh()
                out.mkdir()
                argv = [*roster_argv(), "--vault", str(vault), "render", "--to", harness]
                argv += ["--allow-widening", "--out", str(out)]
                took, used, code, err = run_subprocess(argv, out.parent)
                (cli_cold if cold else cli)[harness].append(took)
                if cold:
                    continue
                cli_cpu[harness].append(used)
                cli_agents[harness].append(count_agents(out))
                if code not in (0, 1):  # 1: some profile refused, reported
                    failures.append(f"roster render --to {harness} exited {code}: {err[-300:]}")
                if cli_agents[harness][-1] != n:
                    short.append(
                        f"ours, CLI {harness}: {cli_agents[harness][-1]:,} agents on disk for {n:,}"
                    )
            copy = fresh()
            shutil.copytree(project, copy)
            target = RULESYNC_TARGETS[harness]
            took, used, code, err = run_subprocess(
                [rulesync, "generate", "--targets", target, "--features", "subagents,mcp"], copy
            )
            rs[harness].append(took)
            rs_cpu[harness].append(used)
            rs_files[harness] = count_files(copy, rulesync_inputs)
            rs_agents[harness].append(count_agents(copy, rulesync_inputs))
            if rs_agents[harness][-1] != n:
                short.append(
                    f"rulesync {target}: {rs_agents[harness][-1]:,} agents on disk for {n:,}"
                )
            if code != 0:
                failures.append(f"rulesync generate --targets {target} exited {code}: {err[-300:]}")
        print(f"repetition {rep + 1}/{args.reps} done", file=sys.stderr)
    load = os.getloadavg()
    claude_best = Timing("claude", ours["claude"]).best
    rows = []
    print(f"Agent Roster render to every harness (issue 16 item 6): {n:,} profiles, shape {shape}")
    print(
        f"rulesync {version}; {args.reps} repetition(s); load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    host = machine()
    print(machine_line(host))
    print()
    print(
        f"{'harness':<10}{'ours s':>8}{'µs/agent':>10}{'vs claude':>10}{'/profile':>9}{'agents':>8}"
        f"{'refused':>8}{'widened':>8}{'CLI s':>8}{'CLI agts':>9}{'rulesync s':>11}"
        f"{'rs agts':>8}{'CLI ratio':>10}{'cold':>7}"
    )
    per_agent_ok = cli_ok = cold_ok = True
    for harness in harnesses:
        best = Timing(harness, ours[harness]).best
        run = last[harness]
        written = max(run.agents, 1)
        relative = (best / written) / (claude_best / max(last["claude"].agents, 1))
        per_agent_ok &= relative <= TARGET_PER_AGENT
        row: dict[str, Any] = {
            "harness": harness,
            "best_s": round(best, 3),
            "runs_s": [round(x, 3) for x in ours[harness]],
            "cpu_best_s": round(min(cpu[harness]), 3),
            "files": run.files,
            "agents": run.agents,
            "refused": run.refused,
            "widened": run.widened,
            "errors": run.errors,
            "us_per_agent": round(best / written * 1e6, 1),
            "vs_claude_per_agent": round(relative, 2),
            # Every harness handles every profile (a refusal is decided, not skipped):
            # the whole render against Claude's, beside the judged per-agent-written one.
            "vs_claude_per_profile": round(best / claude_best, 2),
            "cpu_vs_claude_per_agent": round(
                (min(cpu[harness]) / written)
                / (min(cpu["claude"]) / max(last["claude"].agents, 1)),
                2,
            ),
        }
        cells = ["", "", "", "", "", ""]
        if harness in shared:
            cli_best = Timing(harness, cli[harness]).best
            rs_best = Timing(harness, rs[harness]).best
            ratio = rs_best / cli_best
            cold_best = Timing(harness, cli_cold[harness]).best
            cold_ratio = rs_best / cold_best
            cli_ok &= ratio >= TARGET_CLI
            cold_ok &= cold_ratio >= TARGET_CLI
            row.update(
                cli_best_s=round(cli_best, 3),
                rulesync_best_s=round(rs_best, 3),
                cli_cpu_best_s=round(min(cli_cpu[harness]), 3),
                rulesync_cpu_best_s=round(min(rs_cpu[harness]), 3),
                rulesync_files=rs_files[harness],
                cli_agents=cli_agents[harness],
                rulesync_agents=rs_agents[harness],
                cli_ratio=round(ratio, 2),
                cli_cold_best_s=round(cold_best, 3),
                cli_cold_ratio=round(cold_ratio, 2),
                cli_cpu_ratio=round(min(rs_cpu[harness]) / min(cli_cpu[harness]), 2),
            )
            cells = [
                f"{cli_best:.2f}",
                f"{min(cli_agents[harness]):,}",
                f"{rs_best:.2f}",
                f"{min(rs_agents[harness]):,}",
                f"{ratio:.1f}x",
                f"{cold_ratio:.1f}x",
            ]
        rows.append(row)
        print(
            f"{harness:<10}{best:>8.2f}{best / written * 1e6:>10.0f}{relative:>9.2f}x"
            f"{best / claude_best:>8.2f}x{run.agents:>8,}{run.refused:>8,}{run.widened:>8,}"
            f"{cells[0]:>8}{cells[1]:>9}{cells[2]:>11}{cells[3]:>8}{cells[4]:>10}{cells[5]:>7}"
        )
    print()
    if shared:
        fastest = min(Timing(h, rs[h]).best for h in shared)
        print(
            f"scale: the {TARGET_CLI:g}x CLI target allows the CLI {fastest / TARGET_CLI:.2f} s "
            f"where rulesync is fastest; the floor for one target (read, parse, write one file "
            f"per profile, one process) took {min(floor):.2f} s"
        )
    print("ratios are wall time, best of the runs; the JSON also has CPU seconds (on a busy")
    print("machine CPU seconds compare the programs better than wall time); /profile is the")
    print("whole render against Claude's (every profile is handled, written or refused): for")
    print("information, the target is judged per agent written")
    print(
        f"{'PASS' if per_agent_ok else 'FAIL'}  every harness <= {TARGET_PER_AGENT:g}x the "
        "Claude render per agent written"
    )
    print(
        f"{'PASS' if cli_ok else 'FAIL'}  roster render (CLI) >= {TARGET_CLI:g}x rulesync on "
        f"every shared target"
    )
    like = not short
    print(
        f"{'PASS' if cold_ok else 'FAIL'}  roster render (CLI), cold (no parse cache) >= "
        f"{TARGET_CLI:g}x rulesync on every shared target"
    )
    print(
        f"{'PASS' if like else 'FAIL'}  like for like: every side wrote one agent per profile "
        f"({n:,}) in every run"
    )
    for line in dict.fromkeys(short):
        print(f"FAIL  {line}")
    for failure in failures:
        print(f"FAIL  {failure}")
    passed = per_agent_ok and cli_ok and cold_ok and like and not failures
    summary = {
        "bench": "harnesses",
        "shape": shape,
        "profiles": n,
        "reps": args.reps,
        "rulesync_version": version,
        "machine": host,
        "load_average": [round(x, 2) for x in load],
        "pass_per_agent": per_agent_ok,
        "pass_cli": cli_ok,
        "pass_cli_cold": cold_ok,
        "like_for_like": like,
        "floor_best_s": round(min(floor), 3),
        "short": list(dict.fromkeys(short)),
        "failures": failures,
        "passed": passed,
        "harnesses": rows,
    }
    print(json.dumps(summary, separators=(",", ":")))
    if not like:
        return 2
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
