"""Benchmark: render 10,000 profiles to every harness, one at a time, beside rulesync 17.

Issue 16 item 6: the 10,000-profile vault (``vaultgen``'s defaults, the clean shape)
rendered to each of roster's harnesses (``codecs.codec_names()``), with the time per
harness; where rulesync supports the same target, ``rulesync generate`` for that target in
the same run. Targets: no harness costs more than 2x the Claude render per agent, and the
roster CLI is at least 8x rulesync on every shared target.

For each harness, repeated (``--reps``) and interleaved with the others:

* **ours** — ``commands.harness.render_agents(vault, [H], out=DIR)`` in this process into a
  fresh folder (load, merge, render, write every file);
* **ours, CLI** — ``roster --vault V render --to H --out DIR`` as a subprocess, for the
  harnesses rulesync shares (interpreter start-up included);
* **rulesync** — ``rulesync generate --targets T --features subagents,mcp`` in a fresh copy
  of the same agents as a rulesync project (``bench/rulesyncgen.py``, every agent for
  every shared target), copied untimed.

Shared targets (rulesync 17 name): claude (``claudecode``), opencode, kilo, codex
(``codexcli``), copilot (``copilotcli``), cursor, qwen (``qwencode``), droid
(``factorydroid``). rulesync 17 has no Gemini CLI target (it moved to Antigravity) and no
Qoder, AGH or defect. Each side must write one
agent file per profile it renders (roster may refuse a profile a harness cannot hold; the
count is shown). Outputs go to a tmpfs (``/dev/shm``) when there is one. Prints a table and,
last, one JSON line; exits 0 when the targets pass, 1 when not, 2 when it cannot run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rulesyncgen
import vaultgen
from benchkit import Timing
from render import (
    _child_cpu,
    find_rulesync,
    missing_pieces,
    package_dir,
    roster_argv,
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


def run_ours(vault: Path, harness: str, out: Path) -> tuple[float, float, int, int, int]:
    """Wall and CPU seconds, files written, agent files written, profiles refused."""
    from agent_roster.commands.harness import render_agents

    cpu0 = time.process_time() + _child_cpu()
    start = time.perf_counter()
    report = render_agents(vault, [harness], out=out)
    wall = time.perf_counter() - start
    cpu = time.process_time() + _child_cpu() - cpu0
    agents = len({name for f in report.files if (name := agent_of(f.path))})
    refused = len({d.path for d in report.diagnostics if d.is_error})
    return wall, cpu, len(report.files), agents, refused


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = vaultgen.bench_parser(__doc__)
    parser.add_argument("--reps", type=int, default=1, help="repetitions of each measurement")
    parser.add_argument("--rulesync", metavar="PATH", help="the rulesync executable")
    parser.add_argument("--tmp", metavar="DIR", type=Path, help="folder for the outputs")
    parser.add_argument(
        "--harness", action="append", help="only these harnesses (repeatable; default all)"
    )
    args = parser.parse_args(argv)
    rulesync = find_rulesync(args.rulesync)
    problems, version = missing_pieces(rulesync)
    if problems or rulesync is None:
        for problem in problems:
            print(f"bench/harnesses.py: cannot measure: {problem}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="roster-bench-harnesses-", dir=work_root(args)) as tmp:
        return measure(args, rulesync, version, Path(tmp))


def measure(args: Any, rulesync: str, version: str, work: Path) -> int:
    from agent_roster.codecs import codec_names
    from agent_roster.commands.harness import load_effective

    harnesses = [h for h in codec_names() if not args.harness or h in args.harness]
    if "claude" not in harnesses:
        harnesses.insert(0, "claude")  # the per-agent reference
    vault = work / "vault"
    vaultgen.generate_from_args(vault, args)
    effective = load_effective(vault)
    n = len(effective.profiles)
    shared = [h for h in harnesses if h in RULESYNC_TARGETS]
    project = work / "rulesync"
    targets = [RULESYNC_TARGETS[h] for h in shared]
    rulesyncgen.write_project(project, effective.profiles, effective.servers, targets)
    del effective
    warm(vault, project, package_dir(rulesync))
    slot = 0

    def fresh() -> Path:
        nonlocal slot
        slot += 1
        return work / f"out-{slot}"

    ours: dict[str, list[float]] = {h: [] for h in harnesses}
    cpu: dict[str, list[float]] = {h: [] for h in harnesses}
    counts: dict[str, tuple[int, int, int]] = {}
    cli: dict[str, list[float]] = {h: [] for h in shared}
    rs: dict[str, list[float]] = {h: [] for h in shared}
    cli_cpu: dict[str, list[float]] = {h: [] for h in shared}
    rs_cpu: dict[str, list[float]] = {h: [] for h in shared}
    rs_files: dict[str, int] = {}
    failures: list[str] = []
    for rep in range(args.reps):
        for harness in harnesses:
            wall, used, files, agents, refused = run_ours(vault, harness, fresh())
            ours[harness].append(wall)
            cpu[harness].append(used)
            counts[harness] = (files, agents, refused)
            if harness not in shared:
                continue
            out = fresh()
            out.mkdir()
            argv = [*roster_argv(), "--vault", str(vault), "render", "--to", harness]
            took, used, code, err = run_subprocess([*argv, "--out", str(out)], out.parent)
            cli[harness].append(took)
            cli_cpu[harness].append(used)
            if code not in (0, 1):  # 1: some profile refused, reported
                failures.append(f"roster render --to {harness} exited {code}: {err[-300:]}")
            copy = fresh()
            shutil.copytree(project, copy)
            target = RULESYNC_TARGETS[harness]
            took, used, code, err = run_subprocess(
                [rulesync, "generate", "--targets", target, "--features", "subagents,mcp"], copy
            )
            rs[harness].append(took)
            rs_cpu[harness].append(used)
            rs_files[harness] = count_files(copy, (".rulesync", "rulesync.jsonc"))
            if code != 0:
                failures.append(f"rulesync generate --targets {target} exited {code}: {err[-300:]}")
        print(f"repetition {rep + 1}/{args.reps} done", file=sys.stderr)
    load = os.getloadavg()
    claude_best = Timing("claude", ours["claude"]).best
    rows = []
    print(f"Agent Roster render to every harness (issue 16 item 6): {n:,} profiles")
    print(
        f"rulesync {version}; {args.reps} repetition(s); load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs"
    )
    print()
    print(
        f"{'harness':<10}{'ours s':>8}{'µs/agent':>10}{'vs claude':>10}{'agents':>8}"
        f"{'refused':>8}{'CLI s':>8}{'rulesync s':>11}{'rs files':>9}{'CLI ratio':>10}"
    )
    per_agent_ok = cli_ok = True
    for harness in harnesses:
        best = Timing(harness, ours[harness]).best
        files, agents, refused = counts[harness]
        written = max(agents, 1)
        relative = (best / written) / (claude_best / max(counts["claude"][1], 1))
        per_agent_ok &= relative <= TARGET_PER_AGENT
        row: dict[str, Any] = {
            "harness": harness,
            "best_s": round(best, 3),
            "runs_s": [round(x, 3) for x in ours[harness]],
            "cpu_best_s": round(min(cpu[harness]), 3),
            "files": files,
            "agents": agents,
            "refused": refused,
            "us_per_agent": round(best / written * 1e6, 1),
            "vs_claude_per_agent": round(relative, 2),
        }
        cells = ["", "", "", ""]
        if harness in shared:
            cli_best = Timing(harness, cli[harness]).best
            rs_best = Timing(harness, rs[harness]).best
            ratio = rs_best / cli_best
            cli_ok &= ratio >= TARGET_CLI
            row.update(
                cli_best_s=round(cli_best, 3),
                rulesync_best_s=round(rs_best, 3),
                cli_cpu_best_s=round(min(cli_cpu[harness]), 3),
                rulesync_cpu_best_s=round(min(rs_cpu[harness]), 3),
                rulesync_files=rs_files[harness],
                cli_ratio=round(ratio, 2),
                cli_cpu_ratio=round(min(rs_cpu[harness]) / min(cli_cpu[harness]), 2),
            )
            cells = [f"{cli_best:.2f}", f"{rs_best:.2f}", f"{rs_files[harness]:,}", f"{ratio:.1f}x"]
        rows.append(row)
        print(
            f"{harness:<10}{best:>8.2f}{best / written * 1e6:>10.0f}{relative:>9.2f}x"
            f"{agents:>8,}{refused:>8,}{cells[0]:>8}{cells[1]:>11}{cells[2]:>9}{cells[3]:>10}"
        )
    print()
    print("ratios are wall time, best of the runs; the JSON also has CPU seconds (on a busy")
    print("machine CPU seconds compare the programs better than wall time)")
    print(
        f"{'PASS' if per_agent_ok else 'FAIL'}  every harness <= {TARGET_PER_AGENT:g}x the "
        "Claude render per agent written"
    )
    print(
        f"{'PASS' if cli_ok else 'FAIL'}  roster render (CLI) >= {TARGET_CLI:g}x rulesync on "
        f"every shared target"
    )
    for failure in failures:
        print(f"FAIL  {failure}")
    passed = per_agent_ok and cli_ok and not failures
    summary = {
        "bench": "harnesses",
        "profiles": n,
        "reps": args.reps,
        "rulesync_version": version,
        "load_average": [round(x, 2) for x in load],
        "pass_per_agent": per_agent_ok,
        "pass_cli": cli_ok,
        "failures": failures,
        "passed": passed,
        "harnesses": rows,
    }
    print(json.dumps(summary, separators=(",", ":")))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
