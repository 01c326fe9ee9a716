"""A database belongs to one vault (issue 13 item 2), through the real ``roster`` command,
on SQLite and PostgreSQL.

Seen on main: syncing a second vault into a database marked every row of the first vault
deleted, without a warning. Now the database records the vault it belongs to (its real
path, and the id in the vault's ``.roster-vault-id``); another vault is refused with the
stable error code ``vault-mismatch`` and a hint, and ``roster sync --rebind`` moves the
database on purpose.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from sqlalchemy import delete

from agent_roster.store import Store
from agent_roster.store import tables as t
from agent_roster.sync.binding import VAULT_ID_FILE

from .conftest import EXAMPLE_VAULT

ROSTER = str(Path(sys.executable).with_name("roster"))

OTHER = """---
id: other
name: Other
---
## Role
You are another vault's only agent.
"""


def roster(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ROSTER, *args], capture_output=True, text=True, timeout=180, check=False)


def sync(vault: Path, db: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return roster("--vault", str(vault), "--db", db, "sync", *extra)


def present(db: str) -> list[str]:
    with Store.open(db) as store:
        return sorted(p.id for p in store.list_profiles())


def other_vault(root: Path) -> Path:
    (root / "agent-types" / "other").mkdir(parents=True)
    (root / "agent-types" / "other" / "profile.md").write_text(OTHER)
    return root


def test_a_second_vault_is_refused_and_rebind_moves_the_database(
    db_url: str, tmp_path: Path
) -> None:
    first = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "first"))
    second = other_vault(tmp_path / "second")
    assert sync(first, db_url).returncode == 0
    before = present(db_url)
    assert len(before) == 6
    ident = (first / VAULT_ID_FILE).read_text().splitlines()[-1]
    assert len(ident) == 32

    refused = sync(second, db_url, "--json")
    assert refused.returncode == 2
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "vault-mismatch"
    assert str(first.resolve()) in error["message"]
    assert "roster sync --rebind" in error["hint"]
    assert present(db_url) == before  # nothing of the first vault was marked deleted
    # Read-only commands check too, and never show another vault's rows as this one's.
    status = roster("--vault", str(second), "--db", db_url, "status", "--json")
    assert status.returncode == 2
    assert json.loads(status.stdout)["error"]["code"] == "vault-mismatch"
    text = sync(second, db_url)
    assert text.returncode == 2
    assert "error: this database does not belong to the vault at" in text.stderr
    assert "hint: give this vault its own database" in text.stderr

    moved = sync(second, db_url, "--rebind")
    assert moved.returncode == 0, moved.stderr
    assert f"the database belonged to the vault at {first.resolve()}" in moved.stdout
    assert present(db_url) == ["other"]
    # Now the first vault is the other one.
    assert sync(first, db_url).returncode == 2
    assert sync(second, db_url).returncode == 0


def test_a_moved_vault_keeps_its_database_and_a_copy_does_not(db_url: str, tmp_path: Path) -> None:
    vault = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault"))
    assert sync(vault, db_url).returncode == 0
    copy = Path(shutil.copytree(vault, tmp_path / "copy"))  # id file included
    refused = sync(copy, db_url, "--json")
    assert refused.returncode == 2
    message = json.loads(refused.stdout)["error"]["message"]
    assert "another vault with the same id is still at" in message

    moved = vault.rename(tmp_path / "moved")
    shutil.rmtree(copy)
    done = sync(moved, db_url)
    assert done.returncode == 0, done.stderr
    assert f"the vault moved from {(tmp_path / 'vault').resolve()}" in done.stdout
    assert present(db_url) == sorted(p.name for p in (moved / "agent-types").iterdir())
    assert sync(moved, db_url).returncode == 0
    assert "moved" not in sync(moved, db_url).stdout  # said once


def test_a_lost_id_file_is_written_again(db_url: str, tmp_path: Path) -> None:
    vault = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault"))
    assert sync(vault, db_url).returncode == 0
    content = (vault / VAULT_ID_FILE).read_text()
    (vault / VAULT_ID_FILE).unlink()
    assert sync(vault, db_url).returncode == 0
    assert (vault / VAULT_ID_FILE).read_text() == content


def test_a_database_from_before_the_rule_is_bound_by_its_next_sync(
    db_url: str, tmp_path: Path
) -> None:
    vault = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault"))
    assert sync(vault, db_url).returncode == 0
    with Store.open(db_url) as store, store.transaction() as conn:
        conn.execute(delete(t.store_meta))
    other = other_vault(tmp_path / "other")
    # Unbound: the next vault synced is taken as its vault (as main did), then kept.
    assert sync(other, db_url).returncode == 0
    assert present(db_url) == ["other"]
    assert sync(vault, db_url).returncode == 2


def test_watch_and_up_refuse_another_vaults_database_as_sync_does(
    db_url: str, tmp_path: Path
) -> None:
    # Seen: roster watch printed "watching" and then failed every sync with a traceback,
    # forever. It ends now with sync's error and hint, exit 2; roster up too.
    first = Path(shutil.copytree(EXAMPLE_VAULT, tmp_path / "first"))
    second = other_vault(tmp_path / "second")
    assert sync(first, db_url).returncode == 0
    before = present(db_url)
    refused = sync(second, db_url)
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: this database does not belong to the vault at")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    for command in (["watch", "--settle-ms", "20"], ["up", "--port", port]):
        result = roster("--vault", str(second), "--db", db_url, *command)
        assert result.returncode == 2, command
        assert result.stderr == refused.stderr, command
        assert "Traceback" not in result.stdout + result.stderr
        assert "watching" not in result.stdout + result.stderr
    assert present(db_url) == before
