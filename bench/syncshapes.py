"""The sync benchmark's shapes phase (issue 12 item 8): a cold sync of every vault shape
next to a floor-sync measured in the same run.

**floor-sync** is the least a correct one-way sync into SQLite does with the same libraries,
single-threaded: list the layout folders with ``os.scandir``, read every profile and MCP
server file, hash it (blake2b, as change detection needs), split off the frontmatter and
``yaml.load`` it with libyaml's ``CSafeLoader``, ``json.loads`` every ```json block, and
insert one row per file (path, hash, size, the frontmatter and blocks as JSON text, the
markdown body) into a new SQLite file in WAL mode with ``synchronous=NORMAL`` (as roster
opens it), in one transaction with ``executemany``. No validation, no positions, no model,
no bookkeeping of events, no second table.

**cold sync** is ``SyncEngine(store, vault).sync()`` into a new, migrated database (as
phase 1 of ``bench/sync.py`` times it); a large one parses in worker processes, one per
core, so on this 2-core machine it has twice the CPUs the floor has. Both run ``--reps``
times, interleaved, each on a fresh database; the target (cold sync <= 3x floor-sync) is
judged on the best runs, medians shown beside them.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vaultgen
from agent_roster.store import Store, sqlite_url
from agent_roster.sync.engine import SyncEngine
from benchkit import Timing
from parse import _JSON_BLOCK, floor_list

TARGET_RATIO = 3.0  # cold sync / floor-sync, at most (issue 12 item 8)


def floor_sync(vault: str, database: Path) -> tuple[float, int]:
    """One floor-sync of ``vault`` into the new SQLite file ``database``: (seconds, rows)."""
    gc.collect()
    start = time.perf_counter()
    profiles, servers = floor_list(vault)
    rows: list[tuple[str, str, int, str, str, str]] = []
    for path in profiles + servers:
        with open(path, "rb") as handle:
            raw = handle.read()
        digest = hashlib.blake2b(raw, digest_size=16).hexdigest()
        text = raw.decode("utf-8")
        body = text
        front: Any = None
        end = text.find("\n---", 3) if text.startswith("---\n") else -1
        if end >= 0:
            front = yaml.load(text[4 : end + 1], Loader=yaml.CSafeLoader)
            body = text[end + 4 :]
        blocks = [json.loads(match.group(1)) for match in _JSON_BLOCK.finditer(body)]
        rows.append((path, digest, len(raw), json.dumps(front), json.dumps(blocks), body))
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(
            "CREATE TABLE files (path TEXT PRIMARY KEY, hash TEXT, size INTEGER, "
            "frontmatter TEXT, blocks TEXT, body TEXT)"
        )
        with connection:
            connection.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?)", rows)
    finally:
        connection.close()
    return time.perf_counter() - start, len(rows)


def cold_sync(vault: str, database: Path) -> tuple[float, int]:
    """One cold ``SyncEngine.sync()`` into a new, migrated SQLite file: (seconds, written);
    opening and migrating the database are not timed."""
    with Store.open(sqlite_url(database)) as store:
        gc.collect()
        start = time.perf_counter()
        report = SyncEngine(store, vault).sync()
        seconds = time.perf_counter() - start
    return seconds, report.written


def shapes_phase(args: argparse.Namespace, scratch: Path) -> tuple[bool, dict[str, Any]]:
    """Every shape ``--shape`` chose: generate its vault, time floor-sync and cold sync
    ``--reps`` times, print a table; (all passed, figures by shape)."""
    figures: dict[str, Any] = {}
    for shape in vaultgen.chosen_shapes(args):
        vault = scratch / f"vault-{shape}"
        vaultgen.generate_from_args(vault, args, shape)
        floor, ours = Timing("floor-sync", []), Timing("cold sync", [])
        problems: list[str] = []
        for rep in range(args.reps):
            seconds, rows = floor_sync(str(vault), scratch / f"floor-{shape}-{rep}.db")
            floor.runs.append(seconds)
            seconds, written = cold_sync(str(vault), scratch / f"cold-{shape}-{rep}.db")
            ours.runs.append(seconds)
            if written != rows:
                problems.append(f"the cold sync wrote {written} of {rows} files")
            print(
                f"  {shape} rep {rep + 1}/{args.reps}: floor-sync {floor.runs[-1]:.2f} s, "
                f"cold sync {ours.runs[-1]:.2f} s",
                file=sys.stderr,
            )
        for leftover in scratch.glob(f"*-{shape}-*.db*"):
            leftover.unlink()
        ratio = ours.best / floor.best
        figures[shape] = {
            "files": rows,
            "floor_sync_best_s": round(floor.best, 3),
            "floor_sync_median_s": round(floor.median, 3),
            "cold_best_s": round(ours.best, 3),
            "cold_median_s": round(ours.median, 3),
            "ratio_best": round(ratio, 2),
            "ratio_median": round(ours.median / floor.median, 2),
            "problems": problems,
            "passed": ratio <= TARGET_RATIO and not problems,
        }
        _remove(vault)
    load = os.getloadavg()
    print(
        f"cold sync vs floor-sync by shape (SQLite, {args.reps} repetitions, load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end)"
    )
    print(
        f"{'shape':<14}{'files':>8}{'floor best':>12}{'cold best':>11}{'ratio':>8}"
        f"{'median':>8}{'target':>8}  verdict"
    )
    for shape, row in figures.items():
        print(
            f"{shape:<14}{row['files']:>8,}{row['floor_sync_best_s']:>11.2f}s"
            f"{row['cold_best_s']:>10.2f}s{row['ratio_best']:>7.2f}x{row['ratio_median']:>7.2f}x"
            f"{TARGET_RATIO:>7g}x  {'PASS' if row['passed'] else 'FAIL'}"
            + (f"  ({'; '.join(row['problems'])})" if row["problems"] else "")
        )
    print()
    return all(row["passed"] for row in figures.values()), figures


def _remove(folder: Path) -> None:
    for root, folders, files in os.walk(folder, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in folders:
            os.rmdir(os.path.join(root, name))
    folder.rmdir()
