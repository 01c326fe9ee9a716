"""The CLI adapters ``sync``, ``status`` and ``watch``, the global ``--db`` option and
``$ROSTER_DB``. ``watch`` runs as a real process and is stopped with SIGINT."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.store import Store, sqlite_url

from .helpers import CODING, QA, position, replace_in, set_max_tokens, wait_for


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _profile_count(url: str) -> int:
    with Store.open(url) as store:
        return len(store.list_profiles())


def test_sync_text_json_and_exit_codes(
    db_url: str, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ("--vault", str(vault), "--db", db_url)

    code, out, _ = _run(capsys, *base, "sync")
    assert code == 0
    assert "starter   agent-types/coding/memory/git-conventions.md" in out
    assert out.splitlines()[-1].startswith(
        "12 files, 0 unchanged, 12 written, 0 failed, 0 deleted, 0 restored, 0 recovered in "
    )

    code, out, _ = _run(capsys, *base, "sync", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["scanned"], data["unchanged"], data["written"], data["events"]) == (12, 12, 0, [])

    replace_in(vault / CODING, "200000,", "200000,,")
    line, column = position(vault / CODING, "200000,,")
    code, out, _ = _run(capsys, *base, "sync")
    assert code == 1
    assert f"failure   {CODING}  1 error(s); the previous version stays active" in out
    assert f"{CODING}:{line}:{column + 7}: error[json-invalid]" in out

    # `failed` counts failures recorded by this run (the broken content was reported
    # already); `failing` counts files still broken, and keeps the exit code at 1.
    code, out, _ = _run(capsys, *base, "sync", "--json")
    data = json.loads(out)
    assert (code, data["failed"], data["failing"]) == (1, 0, 1)
    assert _run(capsys, *base, "status")[0] == 1


def test_sync_prune(db_url: str, vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ("--vault", str(vault), "--db", db_url)
    assert _run(capsys, *base, "sync")[0] == 0
    (vault / QA).unlink()
    code, out, _ = _run(capsys, *base, "sync")
    assert (code, _profile_count(db_url)) == (0, 5)
    assert f"deleted   {QA}" in out

    code, out, _ = _run(capsys, *base, "sync", "--prune", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["pruned"] == 1
    assert [(e["kind"], e["entry_id"]) for e in data["events"]] == [("pruned", "qa")]
    with Store.open(db_url) as store:
        assert store.get_profile("qa", include_missing=True) is None


def test_default_database_is_beside_the_vault(
    tmp_path: Path, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--vault", str(vault), "sync")[0] == 0
    default = tmp_path / ".roster" / "roster.db"
    assert default.is_file()
    assert not list(vault.rglob("*.db"))
    code, out, _ = _run(capsys, "--vault", str(vault), "status")
    assert code == 0
    assert f"database   {sqlite_url(default)}" in out


def test_db_option_and_environment(
    tmp_path: Path, vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from_env, from_option = tmp_path / "env.db", tmp_path / "option.db"
    monkeypatch.setenv("ROSTER_DB", sqlite_url(from_env))
    monkeypatch.setenv("ROSTER_VAULT", str(vault))

    assert _run(capsys, "sync")[0] == 0
    assert _profile_count(sqlite_url(from_env)) == 6
    assert not (tmp_path / ".roster").exists()

    assert _run(capsys, "--db", sqlite_url(from_option), "sync")[0] == 0  # the option wins
    assert _profile_count(sqlite_url(from_option)) == 6
    code, out, _ = _run(capsys, "--db", sqlite_url(from_option), "status", "--json")
    assert (code, json.loads(out)["database"]) == (0, sqlite_url(from_option))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "not a url", "sync"], "is not a database URL"),
        (
            ["--db", "postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2", "sync"],
            "cannot open database",
        ),
        (["sync", "--bogus"], "No such option '--bogus'"),
        (["status", "--events", "many"], "'many' is not a valid integer"),
        (["watch", "--settle-ms", "soon"], "'soon' is not a valid integer"),
    ],
)
def test_usage_errors_exit_two(
    vault: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = _run(capsys, "--vault", str(vault), *args)
    assert code == 2
    assert message in out + err


def test_missing_vault_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("sync", "status", "watch"):
        code, _, err = _run(capsys, "--vault", str(tmp_path / "nowhere"), command)
        assert code == 2
        assert f"error: vault {tmp_path / 'nowhere'} does not exist" in err
    assert not (tmp_path / ".roster").exists()


#: ``roster watch``'s one line format (issue 13): a time, then the message.
WATCH_LINE = re.compile(r"^\d\d:\d\d:\d\d (?!\d{4}-)\S")


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    ("signum", "code", "last"),
    [(signal.SIGINT, 130, "stopped (interrupted)"), (signal.SIGTERM, 143, "stopped (terminated)")],
)
def test_watch_process_syncs_edits_and_stops_on_a_signal(
    db_url: str, vault: Path, signum: int, code: int, last: str
) -> None:
    command = [
        sys.executable,
        "-m",
        "agent_roster",
        "--vault",
        str(vault),
        "--db",
        db_url,
        "watch",
        "--settle-ms",
        "20",
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 90  # a hang guard; start-up is slow on a busy machine
        seen: list[str] = []
        while not any(" watching " in line for line in seen):
            left = deadline - time.monotonic()
            assert left > 0 and process.poll() is None, f"watch never got ready: {seen}"
            try:
                seen.append(lines.get(timeout=left))
            except queue.Empty:
                continue
        with Store.open(db_url) as store:
            assert len(store.list_profiles()) == 6
            set_max_tokens(vault / CODING, 31337)
            wait_for(
                lambda: (p := store.get_profile("coding")) and p.max_tokens_per_task == 31337,
                45,
                "the edit to reach the database",
            )
        process.send_signal(signum)
        # Ctrl-C exits 130 and SIGTERM 143, as the README says (issue 13: it exited 0).
        assert process.wait(timeout=30) == code
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(5)
    while not lines.empty():
        seen.append(lines.get_nowait())
    assert not any("Traceback" in line for line in seen), "".join(seen)
    # One output format: every line is "HH:MM:SS message"; watchfiles' own log lines
    # ("N changes detected") and logging's dated format are not mixed in.
    assert [line for line in seen if not WATCH_LINE.match(line)] == [], "".join(seen)
    assert not any("changes detected" in line or " INFO " in line for line in seen)
    assert any(" written, " in line for line in seen[1:])  # the edit's sync was reported
    assert seen[-1].rstrip("\n").endswith(f" {last}")
