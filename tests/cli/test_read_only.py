"""Read-only commands never write (issue 13 item 3), through the real ``roster`` command.

Seen on main: ``status`` and ``resolve`` created a database (and ``resolve`` synced, copying
starter knowledge packs into the vault) in whatever folder they ran in, and listing
profiles wrote starter packs into the example vault. Each read-only command now runs
against a copy of the example vault in a read-only folder (``chmod -R a-w``). The tests
run as root too, where permissions are not enforced, so the whole folder is also
snapshotted (every path, its mtime and its content hash) before and after, and must not
change; no database may appear. With a database already there, it is opened read-only
(SQLite: not even its ``-wal``/``-shm`` files appear) and its rows do not change, on SQLite
and PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect
from tests.file_modules import load_file_module

from agent_roster.commands.registry import SPECS
from agent_roster.store import Store, create_engine

ROSTER = str(Path(sys.executable).with_name("roster"))
REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vault"


# The sync tests' backends (a fresh PostgreSQL schema) and row snapshots, shared.
_sync = load_file_module(REPO / "tests" / "sync" / "conftest.py", "_roster_read_only_backends")
_helpers = load_file_module(REPO / "tests" / "sync" / "helpers.py", "_roster_read_only_helpers")
fresh_database = _sync.fresh_database
rows_snapshot = _helpers.snapshot

#: Every read-only command, with arguments that reach its real work, and the exit codes it
#: may end with (a render --check of nothing rendered yet fails, as it should).
COMMANDS: list[tuple[tuple[int, ...], tuple[str, ...]]] = [
    ((0,), ("validate",)),
    ((0,), ("validate", "--format", "json", "vault/agent-types/coding/profile.md")),
    ((0,), ("show", "coding")),
    ((0,), ("show", "coding", "--project", "webshop", "--json")),
    ((0,), ("status",)),
    ((0,), ("status", "--json")),
    ((0,), ("resolve", "--profile", "coding")),
    ((0,), ("resolve", "--profile", "coding", "--project", "webshop", "--json")),
    ((2,), ("resolve", "--task", "no-such-task")),
    ((0,), ("can", "coding", "Bash")),
    ((0,), ("can", "coding", "Bash", "git status", "--project", "webshop", "--json")),
    ((0,), ("discover", "--harness", "claude", "--workspace", "work", "--home", "home")),
    (
        (0,),
        ("discover", "--harness", "opencode", "--workspace", "work", "--home", "home", "--json"),
    ),
    ((1,), ("render", "--to", "claude", "--check")),
    ((0,), ("render", "--to", "claude", "--to", "opencode", "--dry-run")),
    ((1,), ("render", "--to", "codex", "--check", "--out", "work", "--project", "webshop")),
    ((0,), ("profile", "list")),
    ((0,), ("profile", "list", "--json")),
    ((0,), ("profile", "get", "coding")),
    ((0, 1), ("check", "coding")),  # 1 while the manifest's packages are missing
    ((0,), ("export", "coding")),
    ((0,), ("source", "list")),
    ((0,), ("tools",)),
    ((0,), ("mcp", "list")),
    ((0,), ("mcp", "show", "github")),
    ((0,), ("project-profile", "list", "webshop")),
    ((0,), ("project-profile", "show", "webshop", "coding")),
    ((0,), ("project", "list")),
    ((2,), ("task", "show", "no-such-task")),
    ((2,), ("why", "work/.claude/agents/coding.md")),
    ((0,), ("schema",)),
]


def test_every_read_only_registry_command_is_covered() -> None:
    covered = {" ".join(words[:2]) for _, words in COMMANDS} | {words[0] for _, words in COMMANDS}
    read_only = {spec.cli for spec in SPECS if not spec.writes}
    assert read_only <= covered, read_only - covered


Snapshot = dict[str, tuple[str, int, str]]


def tree(root: Path) -> Snapshot:
    """Every path under ``root``: its kind, mtime and (for files) content hash."""
    found: Snapshot = {}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder) / name
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                found[str(path.relative_to(root))] = ("file", info.st_mtime_ns, digest)
            else:
                kind = "dir" if stat.S_ISDIR(info.st_mode) else "other"
                found[str(path.relative_to(root))] = (kind, info.st_mtime_ns, "")
    return found


def read_only(root: Path) -> None:
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder) / name
            path.chmod(path.lstat().st_mode & ~0o222)
    root.chmod(root.stat().st_mode & ~0o222)


def writable(root: Path) -> None:
    root.chmod(root.stat().st_mode | 0o200)
    for folder, folders, _files in os.walk(root):
        for name in folders:
            (Path(folder) / name).chmod((Path(folder) / name).stat().st_mode | 0o200)


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Path]:
    """A folder holding a copy of the example vault, a workspace and a home."""
    root = tmp_path / "ro"
    shutil.copytree(EXAMPLE, root / "vault")
    (root / "work").mkdir()
    (root / "home").mkdir()
    yield root
    writable(root)


def run_all(root: Path, *db: str) -> list[str]:
    """Run every command in ``root``; the problems found (a crash, a write refused)."""
    env = {**os.environ, "HOME": str(root / "home")}
    env.pop("ROSTER_DB", None)
    problems = []
    for codes, words in COMMANDS:
        done = subprocess.run(
            [ROSTER, "--vault", "vault", *db, *words],
            capture_output=True,
            text=True,
            cwd=root,
            env=env,
            timeout=180,
            check=False,
        )
        output = done.stdout + done.stderr
        if done.returncode not in codes or "Traceback" in output:
            problems.append(f"roster {' '.join(words)}: exit {done.returncode}\n{output}")
    return problems


def test_read_only_commands_write_nothing_without_a_database(place: Path) -> None:
    read_only(place)
    before = tree(place)
    problems = run_all(place)
    assert tree(place) == before
    assert not (place / ".roster").exists()
    assert problems == []


def test_read_only_commands_open_an_existing_sqlite_database_read_only(place: Path) -> None:
    synced = subprocess.run(
        [ROSTER, "--vault", "vault", "sync"], cwd=place, capture_output=True, check=False
    )
    assert synced.returncode == 0, synced.stderr
    database = place / ".roster" / "roster.db"
    assert sorted(p.name for p in database.parent.iterdir()) == ["roster.db"]
    with Store.open(f"sqlite:///{database}") as store:
        rows = rows_snapshot(store)
    read_only(place)
    before = tree(place)
    problems = run_all(place)
    assert tree(place) == before  # the database file, and no -wal or -shm beside it
    assert problems == []
    # The database was read: status shows the sync, profile list its profiles.
    status = _json(place, "status", "--json")
    assert status["exists"] and status["files"]["profile"] == {"ok": 7}
    assert len(_json(place, "profile", "list", "--json")["profiles"]) == 6
    writable(place)
    with Store.open(f"sqlite:///{database}") as store:
        assert rows_snapshot(store) == rows


def _json(root: Path, *words: str) -> dict[str, Any]:
    done = subprocess.run(
        [ROSTER, "--vault", "vault", *words], capture_output=True, text=True, cwd=root, check=False
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize("synced", [False, True], ids=["empty-schema", "synced"])
def test_read_only_commands_leave_a_postgresql_database_as_it_was(
    place: Path, tmp_path: Path, synced: bool
) -> None:
    with contextlib_database(tmp_path) as url:
        if synced:
            done = subprocess.run(
                [ROSTER, "--vault", "vault", "--db", url, "sync"], cwd=place, check=False
            )
            assert done.returncode == 0
        before_rows = _pg_rows(url)
        read_only(place)
        before = tree(place)
        problems = run_all(place, "--db", url)
        assert tree(place) == before
        assert _pg_rows(url) == before_rows
        assert problems == []


def contextlib_database(tmp_path: Path):  # type: ignore[no-untyped-def]
    import contextlib

    return contextlib.contextmanager(fresh_database)("postgresql", tmp_path)


def _pg_rows(url: str) -> object:
    """The schema's tables and, when it has the store's, every synced row."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            tables = sorted(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    if "agent_profiles" not in tables:
        return tables
    with Store.open(url, migrate=False) as store:
        return tables, rows_snapshot(store)


BROKEN_CONFIG = '"max_tokens_per_task": 200000,,'


def _resolve(root: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, "--vault", "vault", "resolve", *words],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=180,
        check=False,
    )


def _break_coding(vault: Path) -> None:
    path = vault / "agent-types" / "coding" / "profile.md"
    text = path.read_text()
    assert '"max_tokens_per_task": 200000,' in text
    path.write_text(text.replace('"max_tokens_per_task": 200000,', BROKEN_CONFIG, 1))


def test_resolve_reads_the_vault_and_the_last_good_version_of_a_broken_file(
    place: Path,
) -> None:
    """resolve no longer syncs: a profile whose file fails now resolves from the version
    the database last synced (as sync keeps it active), and says so; never synced, it is
    an error naming the file's problems rather than another profile."""
    _break_coding(place / "vault")
    refused = _resolve(place, "--profile", "coding")
    assert refused.returncode == 2
    assert "agent-types/coding/profile.md has errors, and there is no synced version" in (
        refused.stderr
    )
    assert "error[json-invalid]" in refused.stderr
    assert not (place / ".roster").exists()

    (place / "vault" / "agent-types" / "coding" / "profile.md").write_text(
        (EXAMPLE / "agent-types" / "coding" / "profile.md").read_text()
    )
    synced = subprocess.run([ROSTER, "--vault", "vault", "sync"], cwd=place, check=False)
    assert synced.returncode == 0
    _break_coding(place / "vault")
    done = _resolve(place, "--profile", "coding", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["profile"]["max_tokens_per_task"] == 200000
    note = (
        "agent-types/coding/profile.md has errors now; resolved from the version last synced "
        "(roster validate shows them)"
    )
    assert data["notes"] == [note]
    assert f"warning: {note}" in done.stderr
