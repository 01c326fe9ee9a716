"""Secrets are masked by value on every output path (issue 11 item 3), through the real
``roster`` command.

The vault below holds each finding of the issue as a literal: ``GH_PAT=ghp_…``,
``OPENAI_KEY=sk-…``, ``DATABASE_URL=postgres://u:PW@…``, ``--token X`` in args, an
``?access_token=`` URL, a ``Cookie`` header, an ``Authorization: Bearer`` header, and
``Authorization``/``Proxy-Authorization: Basic`` headers. None
of them may appear in ``mcp show`` / ``mcp list`` (text and JSON), ``resolve`` (text and
JSON), ``render --dry-run`` for every harness (text and JSON), an error message, ``status``
events or a crash report; ``${VAR}`` and ``{env:VAR}`` references stay visible. Each check
has its control: the rendered files, written for real, do hold the secrets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_roster.codecs import codec_names

ROSTER = str(Path(sys.executable).with_name("roster"))

GH_PAT = "ghp_" + "Q7xK2mN9pL4vB8cR1tY6wZ3aF5hJ0dS2gE4u"
OPENAI_KEY = "sk-proj-" + "T3BlbkFJx9Kq2LmN7pR4sV8wY1zA5cE0"
DB_PASSWORD = "Pw0rd-s3cret"
CLI_TOKEN = "plain-token-value-123"
URL_TOKEN = "qs-access-tok-98765"
COOKIE = "session=c00kie-s3ssion-value"
BEARER = "sk-ant-" + "api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"
BASIC = "dXNlcjpTM2NyZXRQYXNz"  # base64 "user:S3cretPass": no token shape, no entropy
SECRETS = (GH_PAT, OPENAI_KEY, DB_PASSWORD, CLI_TOKEN, URL_TOKEN, "c00kie-s3ssion", BEARER, BASIC)

LOCAL = f"""---
name: local
transport: stdio
command: npx
args: ["-y", "some-mcp-server", "--token", "{CLI_TOKEN}"]
env:
  GH_PAT: {GH_PAT}
  OPENAI_KEY: {OPENAI_KEY}
  DATABASE_URL: postgres://u:{DB_PASSWORD}@db.example:5432/app
---
"""
REMOTE = f"""---
name: remote
transport: http
url: https://api.example.com/mcp?access_token={URL_TOKEN}
headers:
  Cookie: "{COOKIE}"
  Authorization: "Bearer {BEARER}"
  Proxy-Authorization: "Basic {BASIC}"
---
"""
#: Basic auth: nothing but the header's name says it is a secret.
BASIC_AUTH = f"""---
name: basic
transport: http
url: https://basic.example.com/mcp
headers:
  Authorization: "Basic {BASIC}"
---
"""
REFS = """---
name: refs
transport: stdio
command: npx
args: ["-y", "ref-server"]
env:
  GITHUB_TOKEN: "${GITHUB_TOKEN}"
  OPENCODE_KEY: "{env:OPENCODE_KEY}"
---
"""
PROFILE = """---
id: coding
name: Coding
description: Writes code.
---
## Role
Write code.

## Config
```json
{"model": "claude-sonnet-4-6", "permission_mode": "acceptEdits", "runtime": "claude_sdk"}
```

## MCP Servers
```json
["local", "remote", "basic", "refs"]
```
"""


def roster(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, *args], capture_output=True, text=True, timeout=180, check=False, cwd=cwd
    )


def leaked(done: subprocess.CompletedProcess[str]) -> list[str]:
    shown = done.stdout + done.stderr
    return [secret for secret in SECRETS if secret in shown]


@pytest.fixture
def vault(make_tree: Any) -> Path:
    root: Path = make_tree(
        {
            "mcp-servers/local.md": LOCAL,
            "mcp-servers/remote.md": REMOTE,
            "mcp-servers/basic.md": BASIC_AUTH,
            "mcp-servers/refs.md": REFS,
            "agent-types/coding/profile.md": PROFILE,
        }
    )
    return root


def test_mcp_show_and_list_mask_every_finding(vault: Path) -> None:
    base = ["--vault", str(vault)]
    for args in (
        ["mcp", "show", "local"],
        ["mcp", "show", "local", "--json"],
        ["mcp", "show", "remote"],
        ["mcp", "show", "remote", "--json"],
        ["mcp", "show", "basic"],
        ["mcp", "show", "basic", "--json"],
        ["mcp", "list"],
        ["mcp", "list", "--json"],
    ):
        done = roster(*base, *args)
        assert done.returncode == 0, done.stderr
        assert leaked(done) == [], args
    shown = json.loads(roster(*base, "mcp", "show", "local", "--json").stdout)["server"]
    assert shown["env"] == {
        "GH_PAT": "***",
        "OPENAI_KEY": "***",
        "DATABASE_URL": "postgres://u:***@db.example:5432/app",
    }
    assert shown["args"] == ["-y", "some-mcp-server", "--token", "***"]
    remote = json.loads(roster(*base, "mcp", "show", "remote", "--json").stdout)["server"]
    assert remote["url"] == "https://api.example.com/mcp?access_token=***"
    assert remote["headers"] == {
        "Cookie": "***",
        "Authorization": "Bearer ***",
        "Proxy-Authorization": "Basic ***",
    }
    basic = json.loads(roster(*base, "mcp", "show", "basic", "--json").stdout)["server"]
    assert basic["headers"] == {"Authorization": "Basic ***"}
    # References say where a secret comes from, not what it is: they stay visible.
    refs = json.loads(roster(*base, "mcp", "show", "refs", "--json").stdout)["server"]
    assert refs["env"] == {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "OPENCODE_KEY": "{env:OPENCODE_KEY}"}
    listed = roster(*base, "mcp", "list").stdout
    assert "npx -y some-mcp-server --token ***" in listed
    assert "https://api.example.com/mcp?access_token=***" in listed


def test_resolve_masks_every_finding(vault: Path, tmp_path: Path) -> None:
    base = ["--vault", str(vault), "--db", f"sqlite:///{tmp_path / 'roster.db'}"]
    assert roster(*base, "sync").returncode == 0
    for args in (["--json"], []):
        done = roster(*base, "resolve", "--profile", "coding", *args)
        assert done.returncode == 0, done.stderr
        assert leaked(done) == [], args
    launch = json.loads(roster(*base, "resolve", "--profile", "coding", "--json").stdout)
    ((path, config),) = launch["launch"]["files"].items()
    servers = config["mcpServers"]
    assert servers["local"]["env"]["GH_PAT"] == "***"
    assert servers["remote"]["headers"] == {
        "Cookie": "***",
        "Authorization": "Bearer ***",
        "Proxy-Authorization": "Basic ***",
    }
    assert servers["refs"]["env"]["GITHUB_TOKEN"] == "${GITHUB_TOKEN}"
    # The control: the launch file itself keeps the values (Claude Code reads it).
    resolved = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys\n"
            "from agent_roster.commands.resolve import build_index, resolve_launch\n"
            "from agent_roster.commands.sync import open_store\n"
            f"with open_store({str(vault)!r}, {base[3]!r}) as store:\n"
            f"    index = build_index(store, {str(vault)!r})\n"
            f"spec = resolve_launch(index, {str(vault)!r}, profile='coding').launch\n"
            "print(next(iter(spec.files.values())))\n",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert GH_PAT in resolved.stdout and BEARER in resolved.stdout
    assert path.endswith(".mcp.json")


@pytest.mark.parametrize("harness", codec_names())
def test_render_dry_run_masks_every_finding_for_every_harness(
    vault: Path, tmp_path: Path, harness: str
) -> None:
    out = tmp_path / "out"
    base = ["--vault", str(vault), "render", "--to", harness, "--out", str(out)]
    # The control: a real render writes the secrets into the harness's files.
    written = roster(*base, "--scope", "project")
    assert written.returncode in (0, 1), written.stderr
    texts = [p.read_text() for p in out.rglob("*") if p.is_file() and p.suffix != ".json"] + [
        p.read_text() for p in out.rglob("*.json") if p.name != ".roster-ledger.json"
    ]
    rendered = [s for s in SECRETS if any(s in text for text in texts)]
    if not rendered:  # AGH takes secrets only as ${VAR}: it refuses them, and says so
        assert "render-unsupported" in written.stderr, harness
    assert leaked(written) == [], harness
    fresh = tmp_path / "fresh"
    for args in ([], ["--json"]):
        done = roster(*base[:-2], "--out", str(fresh), "--dry-run", *args)
        assert done.returncode in (0, 1), done.stderr
        assert leaked(done) == [], (harness, args)
        if not args and rendered:  # the text shows the diffs (--json lists files only)
            assert "***" in done.stdout, harness
    # A dry run over the written files: what changes is diffed with both sides masked.
    edited = vault / "mcp-servers" / "local.md"
    edited.write_text(edited.read_text().replace("some-mcp-server", "other-mcp-server"))
    again = roster(*base, "--dry-run")
    assert leaked(again) == [], harness


def test_error_messages_mask_secrets(vault: Path) -> None:
    for args in (["mcp", "show", GH_PAT], ["mcp", "show", GH_PAT, "--json"]):
        done = roster("--vault", str(vault), *args)
        assert done.returncode == 2
        assert leaked(done) == [], args
        assert "***" in done.stdout + done.stderr
    # click's own usage errors too.
    done = roster("--vault", str(vault), "mcp", "add", "x", "--transport", OPENAI_KEY)
    assert done.returncode == 2 and leaked(done) == []


def test_status_events_mask_secrets(vault: Path, tmp_path: Path) -> None:
    # A broken server whose diagnostic quotes the token it was given as its transport.
    (vault / "mcp-servers" / "broken.md").write_text(
        f"---\nname: broken\ntransport: {GH_PAT}\n---\n"
    )
    base = ["--vault", str(vault), "--db", f"sqlite:///{tmp_path / 'roster.db'}"]
    synced = roster(*base, "sync")
    assert synced.returncode == 1 and leaked(synced) == []
    for args in ([], ["--json"]):
        done = roster(*base, "status", *args)
        assert leaked(done) == [], args
    events = json.loads(roster(*base, "status", "--json").stdout)
    assert "***" in json.dumps(events)


CRASH = """
import sys
from agent_roster.cli import main
from agent_roster.vault import loader

def choke(*args, **kwargs):
    # A bug that chokes on a file: the exception carries the whole file's bytes.
    return open(sys.argv[1], "rb").read().decode("utf-8")

loader.load_vault = choke
sys.exit(main(["--vault", sys.argv[2], *sys.argv[3:]]))
"""


@pytest.mark.parametrize("as_json", [False, True])
def test_a_crash_report_holds_no_file_content(vault: Path, tmp_path: Path, as_json: bool) -> None:
    choked = tmp_path / "choked.md"
    choked.write_bytes(f"secret line {GH_PAT}\nDATABASE_URL={DB_PASSWORD}\n\xff".encode("latin-1"))
    args = ["validate", str(vault), *(["--format", "json"] if as_json else [])]
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(choked), str(vault), *args],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "ROSTER_DEBUG"},
    )
    assert done.returncode == 70, done.stderr
    assert leaked(done) == [] and "secret line" not in done.stdout + done.stderr
    assert done.stderr.startswith(
        "internal error (a bug in roster; please report it): UnicodeDecodeError at agent_roster/"
    )
    if as_json:
        assert json.loads(done.stdout)["error"]["code"] == "bug"
