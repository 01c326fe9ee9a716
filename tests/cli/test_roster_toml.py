"""roster.toml errors are diagnostics (issue 11 item 5), through the real ``roster`` command.

On main before this change an unterminated string in roster.toml made roster forget the
``permission_mode = "plan"`` written before it: ``validate`` said ok and ``resolve`` showed
no warning. A bad byte, ``runtime = 5`` and ``[embedded_server] name = "../x"`` were as
silent. Each is now a located diagnostic (path, line, column, code, hint) that ``validate``,
``sync``, ``status``, ``resolve``, ``render`` and ``can`` show; ``run`` refuses to launch
(exit 2, as for a profile with errors).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROSTER = str(Path(sys.executable).with_name("roster"))

WRITER = """---
id: writer
name: Writer
---
## Role
You write.

## Config
```json
{"model": "claude-sonnet-4-6"}
```
"""

GOOD_TOML = '[defaults]\npermission_mode = "plan"\nmax_turns = 7\n'
# The finding: the string on line 3 is never closed.
UNTERMINATED = '[defaults]\npermission_mode = "plan"\nmodel = "claude-sonnet-4-6\nmax_turns = 7\n'


def roster(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "agent-types" / "writer").mkdir(parents=True)
    (root / "agent-types" / "writer" / "profile.md").write_text(WRITER)
    return root


def resolved(vault: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    done = roster("--vault", "vault", "resolve", "--profile", "writer", "--json", cwd=vault.parent)
    assert done.returncode == 0, done.stderr
    return done, json.loads(done.stdout)


def test_an_unterminated_string_fails_validate_and_resolve_warns(vault: Path) -> None:
    (vault / "roster.toml").write_text(GOOD_TOML)
    assert roster("--vault", "vault", "validate", cwd=vault.parent).returncode == 0
    _, data = resolved(vault)
    assert data["profile"]["permission_mode"] == "plan"  # type: ignore[index]

    (vault / "roster.toml").write_text(UNTERMINATED)
    checked = roster("--vault", "vault", "validate", "--format", "json", cwd=vault.parent)
    assert checked.returncode == 1
    [problem] = json.loads(checked.stdout)["diagnostics"]
    assert problem == {
        "path": "vault/roster.toml",
        "line": 3,
        "column": 27,
        "severity": "error",
        "code": "toml-invalid",
        "message": "invalid TOML: unterminated string; "
        "nothing in roster.toml applies until this is fixed",
        "hint": "close the string with the quote it was opened with",
    }

    done, data = resolved(vault)
    # plan is gone (nothing of the file applies), and resolve says so.
    assert data["profile"]["permission_mode"] != "plan"  # type: ignore[index]
    assert [d["code"] for d in data["config"]] == ["toml-invalid"]  # type: ignore[attr-defined]
    assert "roster.toml:3:27: error[toml-invalid]" in done.stderr
    assert "warning: roster.toml has errors; built-in defaults stand in" in done.stderr

    text = roster("--vault", "vault", "resolve", "--profile", "writer", cwd=vault.parent)
    assert text.returncode == 0
    assert "roster.toml:3:27: error[toml-invalid]" in text.stderr


#: Each broken roster.toml, and the diagnostic every command shows for it.
CASES = {
    "bad-byte": (
        b'[defaults]\npermission_mode = "plan"\nmodel = "caf\xe9"\n',
        "roster.toml:3:13: error[encoding-invalid] byte 0xe9 is not valid UTF-8",
    ),
    "runtime-5": (
        b'[defaults]\npermission_mode = "plan"\nruntime = 5\n',
        "roster.toml:3:1: error[field-type] [defaults] runtime must be a string, one of "
        "claude_sdk, acpx, supervisor; got 5",
    ),
    "unsafe-name": (
        b'[embedded_server]\nname = "../x"\n',
        "roster.toml:2:1: error[name-unsafe] [embedded_server] name '../x' must not contain '..'",
    ),
    "unterminated": (UNTERMINATED.encode(), "roster.toml:3:27: error[toml-invalid]"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_command_shows_a_broken_roster_toml(vault: Path, tmp_path: Path, case: str) -> None:
    raw, expected = CASES[case]
    (vault / "roster.toml").write_bytes(raw)
    db = ("--db", f"sqlite:///{tmp_path / 'db' / 'roster.db'}")
    base = ("--vault", "vault", *db)
    cwd = vault.parent
    in_vault = f"vault/{expected}"

    validated = roster(*base, "validate", cwd=cwd)
    assert (validated.returncode, in_vault in validated.stdout) == (1, True), validated.stdout

    synced = roster(*base, "sync", cwd=cwd)
    assert (synced.returncode, expected in synced.stdout) == (1, True), synced.stdout
    data = json.loads(roster(*base, "sync", "--json", cwd=cwd).stdout)
    assert any(expected.endswith(d["message"]) or d["code"] in expected for d in data["config"])

    status = roster(*base, "status", cwd=cwd)
    assert (status.returncode, expected in status.stdout) == (1, True), status.stdout

    resolving = roster(*base, "resolve", "--profile", "writer", cwd=cwd)
    assert (resolving.returncode, expected in resolving.stderr) == (0, True), resolving.stderr

    out = tmp_path / "out"
    rendered = roster(*base, "render", "--to", "claude", "--out", str(out), cwd=cwd)
    assert (rendered.returncode, expected in rendered.stderr) == (1, True), rendered.stderr

    asked = roster(*base, "can", "writer", "Bash", cwd=cwd)
    assert expected in asked.stderr

    # Never launch with a configuration roster could not read (exit 2, as for a profile
    # with errors), and name each problem once.
    launched = roster(*base, "run", "--profile", "writer", "--", "hello", cwd=cwd)
    assert launched.returncode == 2
    assert launched.stderr.count(expected) == 1
    assert "roster run does not launch until they are fixed" in launched.stderr


def test_a_single_roster_toml_validates_as_config(vault: Path) -> None:
    (vault / "roster.toml").write_text('[defaults]\nmodle = "x"\n[notify]\n')
    done = roster("validate", "vault/roster.toml", cwd=vault.parent)
    assert done.returncode == 0
    assert "vault/roster.toml:2:1: warning[field-unknown] unknown key 'modle' in [defaults]" in (
        done.stdout
    )
    assert "did you mean 'model'?" in done.stdout
    assert "1 file checked: 0 errors, 1 warnings" in done.stdout


def test_a_bad_notify_table_is_located(vault: Path) -> None:
    (vault / "roster.toml").write_text("[defaults]\n\n[[notify.webhook]]\nurl = 5\n")
    done = roster("--vault", "vault", "validate", cwd=vault.parent)
    assert done.returncode == 1
    assert "vault/roster.toml:3:1: error[field-value] [[notify.webhook]] url must be" in (
        done.stdout
    )


def test_watch_keeps_the_configuration_in_force_and_says_why(vault: Path, tmp_path: Path) -> None:
    """``roster watch`` reads roster.toml for the embedded server's name: a broken save is
    reported (one line per problem) and changes nothing in force; the fix says so."""
    import queue
    import signal
    import threading
    import time

    (vault / "roster.toml").write_text(GOOD_TOML)
    db = f"sqlite:///{tmp_path / 'db' / 'roster.db'}"
    command = [ROSTER, "--vault", str(vault), "--db", db, "watch", "--settle-ms", "20"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line.rstrip("\n")) for line in process.stderr or ()],
        daemon=True,
    ).start()
    seen: list[str] = []

    def until(needle: str) -> str:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                seen.append(lines.get(timeout=0.5))
            except queue.Empty:
                continue
            if needle in seen[-1]:
                return seen[-1]
        raise AssertionError(f"{needle!r} not printed:\n" + "\n".join(seen))

    try:
        until(" watching ")
        (vault / "roster.toml").write_text(UNTERMINATED)
        line = until("roster.toml:3:27: [toml-invalid]")
        assert " error: " in line and "(hint: close the string " in line
        until("warning: roster.toml has errors; the configuration in force stays as it was")
        (vault / "roster.toml").write_text(GOOD_TOML.replace("plan", "auto"))
        until("roster.toml reads cleanly again")
        until("roster.toml changed; the new configuration is in force")
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 143
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
