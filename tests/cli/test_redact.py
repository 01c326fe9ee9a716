"""The one redaction function (issue 11 item 3): what it masks, what it leaves alone (a
clean vault's output is unchanged), and that every CLI output goes through it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_roster.codecs import codec_names
from agent_roster.redact import MASK, redact, redact_data, redact_many, redact_text, secret_key

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vault"
ROSTER = str(Path(sys.executable).with_name("roster"))
PAT = "ghp_" + "Q7xK2mN9pL4vB8cR1tY6wZ3aF5hJ0dS2gE4u"

MASKED = [
    # secret-named keys, every syntax
    (f"GH_PAT={PAT}", "GH_PAT=***"),
    ("GH_PAT=plainvalue", "GH_PAT=***"),
    ('"GH_PAT": "plainvalue"', '"GH_PAT": "***"'),
    ("PGPASSWORD = 'hunter2'", "PGPASSWORD = '***'"),
    ("  GH_PAT: plainvalue", "  GH_PAT: ***"),
    ("apiKey: abcdefgh1", "apiKey: ***"),
    ("X-Api-Key: abcdef12345", "X-Api-Key: ***"),
    ("Cookie: session=abc123", "Cookie: ***"),
    (
        'headers = {Cookie = "a=b", Authorization = "Bearer x1"}',
        'headers = {Cookie = "***", Authorization = "Bearer ***"}',
    ),
    # Authorization headers without a bearer word nearby: Basic, a bare token, the proxy's
    ('"Authorization": "abc123def456"', '"Authorization": "***"'),  # JSON
    ('"Authorization": "Basic dXNlcjpTM2NyZXRQYXNz"', '"Authorization": "Basic ***"'),
    (
        '+      "Authorization": "Basic dXNlcjpTM2NyZXRQYXNz",',  # a diff line
        '+      "Authorization": "Basic ***",',
    ),
    ('  Authorization: "Basic dXNlcjpTM2NyZXRQYXNz"', '  Authorization: "Basic ***"'),  # YAML
    ("  Authorization: abc123def456", "  Authorization: ***"),
    ('Authorization = "Basic dXNlcjpTM2NyZXRQYXNz"', 'Authorization = "Basic ***"'),  # TOML
    ('headers = {Authorization = "abc123def456"}', 'headers = {Authorization = "***"}'),
    ("Authorization: Basic dXNlcjpTM2NyZXRQYXNz", "Authorization: Basic ***"),  # a header
    ("Proxy-Authorization: Basic dXNlcjpTM2NyZXRQYXNz", "Proxy-Authorization: Basic ***"),
    ('"Proxy-Authorization": "abc123def456"', '"Proxy-Authorization": "***"'),
    ('proxy-authorization = "abc123def456"', 'proxy-authorization = "***"'),
    # token shapes, anywhere
    (f"use {PAT} here", "use *** here"),
    ("OPENAI_KEY=sk-proj-abcdefghijklmnop1234", "OPENAI_KEY=***"),
    ("key sk-ant-api03-abcdefghijklmnopqrst", "key ***"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "***"),
    ("xoxb-1234567890-abcdefghij", "***"),
    ("AKIAIOSFODNN7EXAMPLE", "***"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3", "***"),
    ("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5", "***"),  # long, mixed, random
    # credentials in URLs
    ("postgres://u:s3cretPW@db.example:5432/app", "postgres://u:***@db.example:5432/app"),
    ("https://x-access-token:plainvalue@github.com/a", "https://x-access-token:***@github.com/a"),
    ("https://h/mcp?access_token=abc123&x=1", "https://h/mcp?access_token=***&x=1"),
    ("https://h/v1?key=AIzaNotReallyAKey&alt=json", "https://h/v1?key=***&alt=json"),
    # secret-looking CLI arguments
    ("npx server --token plain-token-value-123", "npx server --token ***"),
    ("--api-key=xyz987", "--api-key=***"),
    ('["--token", "abc123"]', '["--token", "***"]'),
    ('+        "--token",\n+        "abc123"', '+        "--token",\n+        "***"'),
    ("args:\n  - --token\n  - plainvalue99\n", "args:\n  - --token\n  - ***\n"),
]

KEPT = [
    # references say where a secret comes from
    '"GITHUB_TOKEN": "${GITHUB_TOKEN}"',
    '"Authorization": "Bearer ${API_TOKEN}"',
    '"Authorization": "${API_TOKEN}"',
    "Authorization: Bearer ${API_TOKEN}",
    'Authorization = "Basic ${BASIC_AUTH}"',
    '"Proxy-Authorization": "${PROXY_AUTH}"',
    "OPENCODE_KEY={env:OPENCODE_KEY}",
    "  GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_PERSONAL_ACCESS_TOKEN}",  # YAML, unquoted
    "GH_TOKEN: Bearer ${GH_TOKEN}",
    "postgres://u:${DB_PASSWORD}@db/app",
    '"GH": "${env:GH}"',  # Cursor, VS Code
    'secret_env = {K = "env:V"}',  # AGH
    'bearer_token_env_var = "GITHUB_TOKEN"',  # Codex: a variable's name
    # words, not secrets
    "token: the one you got",
    "use --token to pass it",
    "Authorization: AGH servers take none",
    "max_tokens_per_task: 5000",
    '"max_tokens_per_task": 5000',
    "author: Jane",
    '"key": "bash"',
    "permission_mode: bypassPermissions",
    "claude -p --model=claude-sonnet-4-6 --permission-mode=default",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # a sha256
    "mcp__github__createPullRequestReview2 CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP",
    "agent-types/a-very-long-profile-name-for-testing-paths/profile.md:9:35",
    "task-runner-with-a-long-name-1234",
]


@pytest.mark.parametrize(("text", "shown"), MASKED)
def test_masked(text: str, shown: str) -> None:
    assert redact_text(text) == shown
    assert redact(text) == shown
    assert redact_text(shown) == shown  # idempotent


@pytest.mark.parametrize("text", KEPT)
def test_kept(text: str) -> None:
    assert redact_text(text) == text


def test_many_texts_at_once() -> None:
    assert redact_many([]) == []
    texts = ["a\nGH_PAT=plainvalue", "", "a\n- --token\n- plain-token-value-1\n"]
    assert redact_many(texts) == [redact_text(t) for t in texts]
    assert redact_many(texts)[0] == "a\nGH_PAT=***"


def test_data_is_masked_by_key_by_value_and_by_argument() -> None:
    data = {
        "env": {"GH_PAT": "plain", "T": "${GH}", "URL": "postgres://u:pw@h/db"},
        "args": ["-y", "--token", "abc", "--port", "8080"],
        "headers": {"Authorization": "Basic dXNlcjpwYXNz"},
        "nested": [{"clientSecret": "x"}],
        "max_tokens_per_task": 5,
        "note": f"uses {PAT}",
    }
    assert redact_data(data) == {
        "env": {"GH_PAT": MASK, "T": "${GH}", "URL": "postgres://u:***@h/db"},
        "args": ["-y", "--token", MASK, "--port", "8080"],
        "headers": {"Authorization": "Basic ***"},
        "nested": [{"clientSecret": MASK}],
        "max_tokens_per_task": 5,
        "note": "uses ***",
    }
    assert data["env"]["GH_PAT"] == "plain"  # the input is left as it was


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("GH_PAT", True),
        ("GITHUB_TOKEN", True),
        ("PGPASSWORD", True),
        ("api_key", True),
        ("X-Goog-Api-Key", True),
        ("clientSecret", True),
        ("Authorization", True),
        ("Set-Cookie", True),
        ("key", False),
        ("max_tokens_per_task", False),
        ("author", False),
        ("path", False),
        ("tokenizer", False),
    ],
)
def test_secret_key_names(name: str, secret: bool) -> None:
    assert secret_key(name) is secret


def test_the_cli_prints_only_through_the_output_module() -> None:
    """Every line the CLI prints passes the redaction function: no module of cli/ but
    output.py (and the error boundary in app.py, which redacts itself) writes directly."""
    direct = re.compile(r"\bclick\.echo\(|\bclick\.secho\(|\bprint\(|sys\.std(?:out|err)\.write")
    offenders = []
    for path in sorted((REPO / "src" / "agent_roster" / "cli").glob("*.py")):
        if path.name == "output.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if direct.search(line) and not (path.name == "app.py" and "redact_text(" in line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert offenders == []


def _roster(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [ROSTER, *args], capture_output=True, text=True, timeout=300, check=False, cwd=cwd
    )
    return done.stdout + done.stderr


def test_a_clean_vault_renders_and_shows_unchanged(tmp_path: Path) -> None:
    """No false positives: every file the example vault renders for every harness, and its
    JSON views, read the same after redaction (its secrets are ${VAR} references)."""
    out = tmp_path / "out"
    to = [arg for name in codec_names() for arg in ("--to", name)]
    _roster("--vault", str(EXAMPLE), "render", *to, "--out", str(out))
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) > 20
    changed = [str(p) for p in files if redact_text(p.read_text()) != p.read_text()]
    assert changed == []
    for args in (["mcp", "list", "--json"], ["mcp", "show", "github", "--json"]):
        data = json.loads(_roster("--vault", str(EXAMPLE), *args))
        assert redact_data(data) == data, args
    for profile in ("coding", "code-review", "qa", "supervisor", "web-developer"):
        data = json.loads(_roster("--vault", str(EXAMPLE), "show", profile, "--json"))
        assert redact_data(data) == data, profile
