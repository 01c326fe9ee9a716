"""No literal secrets into the vault (issue 13 item 4), through the real ``roster`` command.

Every command that writes a value into the vault refuses a secret's value with the
``${VAR}`` form to write instead, unless ``--allow-literal-secret``; an import from a
harness writes the ``${VAR}`` form and says which variable to set; ``validate`` warns on
literal secrets already in vault files; rendered files keep ``${VAR}`` references in each
harness's own syntax and never a value roster looked up.
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
BEARER = "sk-ant-" + "api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"
GH_PAT = "ghp_" + "Q7xK2mN9pL4vB8cR1tY6wZ3aF5hJ0dS2gE4u"
PROFILE = """---
id: coding
name: Coding
description: Writes code.
---
## Role
Write code.
"""


def roster(vault: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROSTER, "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        **kwargs,
    )


@pytest.fixture
def vault(make_tree: Any) -> Path:
    root: Path = make_tree({"agent-types/coding/profile.md": PROFILE, "mcp-servers/.keep": ""})
    return root


def vault_text(vault: Path) -> str:
    return "".join(p.read_text() for p in vault.rglob("*.md"))


# -- writes are refused --------------------------------------------------------------------
REFUSED = {
    "the issue's finding": (
        ["mcp", "add", "api", "--url", "https://api.example.com/mcp"],
        ["--header", f"Authorization=Bearer {BEARER}"],
        "headers Authorization: Bearer ${API_TOKEN}",
    ),
    "an env token": (
        ["mcp", "add", "gh", "--command", "npx"],
        ["--env", f"GH_PAT={GH_PAT}"],
        "env GH_PAT: ${GH_PAT}",
    ),
    "a password under a secret name": (
        ["mcp", "add", "db", "--command", "db-mcp"],
        ["--env", "PGPASSWORD=hunter2"],
        "env PGPASSWORD: ${PGPASSWORD}",
    ),
    "a token argument": (
        ["mcp", "add", "cli", "--command", "npx", "--arg", "server"],
        ["--arg", "--token", "--arg", "plain-token-value-123"],
        "args[2]: ${CLI_TOKEN}",
    ),
    "a URL credential": (
        ["mcp", "add", "web", "--transport", "http"],
        ["--url", "https://api.example.com/mcp?access_token=qs-access-tok-98765"],
        "url: https://api.example.com/mcp?access_token=${WEB_TOKEN}",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_mcp_add_refuses_a_literal_secret(vault: Path, case: str) -> None:
    base, secret, form = REFUSED[case]
    done = roster(vault, *base, *secret, "--json")
    assert done.returncode == 2, done.stdout + done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "literal-secret"
    assert error["message"].startswith("refusing to write a literal secret into mcp-servers/")
    assert form in error["hint"] and "--allow-literal-secret" in error["hint"]
    assert not (vault / "mcp-servers" / f"{base[2]}.md").exists()
    # The secret is not echoed back either (the error is output too).
    for value in (BEARER, GH_PAT, "hunter2", "plain-token-value-123", "qs-access-tok-98765"):
        assert value not in done.stdout + done.stderr
    # Allowed on purpose, it is written as given.
    allowed = roster(vault, *base, *secret, "--allow-literal-secret")
    assert allowed.returncode == 0, allowed.stderr
    assert (vault / "mcp-servers" / f"{base[2]}.md").exists()


def test_references_and_settings_are_not_secrets(vault: Path) -> None:
    done = roster(
        vault,
        *("mcp", "add", "gh", "--command", "npx", "--arg", "--token", "--arg", "${GH_TOKEN}"),
        *("--env", "GH_PAT=${GH_PAT}", "--env", "AUTH_MODE=oauth", "--env", "DEBUG_TOKEN=1"),
    )
    assert done.returncode == 0, done.stderr
    api = roster(
        vault,
        *("mcp", "add", "api", "--url", "https://api.example.com/mcp"),
        *("--header", "Authorization=Bearer ${API_TOKEN}"),
    )
    assert api.returncode == 0, api.stderr


def test_mcp_edit_refuses_a_new_literal_secret(vault: Path) -> None:
    assert (
        roster(vault, "mcp", "add", "api", "--url", "https://api.example.com/mcp").returncode == 0
    )
    before = (vault / "mcp-servers" / "api.md").read_text()
    done = roster(vault, "mcp", "edit", "api", "--header", f"Authorization=Bearer {BEARER}")
    assert done.returncode == 2 and "literal secret" in done.stderr
    assert "Bearer ${API_TOKEN}" in done.stderr
    assert (vault / "mcp-servers" / "api.md").read_text() == before
    # Roster's own mask, written back from a masked `mcp show`, would lose the secret.
    masked = roster(vault, "mcp", "edit", "api", "--header", "Authorization=Bearer ***")
    assert masked.returncode == 2
    ok = roster(vault, "mcp", "edit", "api", "--header", "Authorization=Bearer ${API_TOKEN}")
    assert ok.returncode == 0, ok.stderr


def test_profile_create_and_edit_refuse_a_literal_secret(vault: Path) -> None:
    config = json.dumps({"opencode": {"apiKey": BEARER}})
    done = roster(
        vault, "profile", "create", "leaky", "--name", "Leaky", "--config", f"harness={config}"
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "config.harness.opencode.apiKey" in done.stderr and BEARER not in done.stderr
    assert not (vault / "agent-types" / "leaky").exists()
    prose = roster(vault, "profile", "edit", "coding", "--sections", f"Rules=Use {GH_PAT} to push.")
    assert prose.returncode == 2 and "sections.Rules" in prose.stderr
    assert GH_PAT not in (vault / "agent-types" / "coding" / "profile.md").read_text()
    allowed = roster(
        vault,
        *("profile", "create", "leaky", "--name", "Leaky"),
        *("--config", f"harness={config}", "--allow-literal-secret"),
    )
    assert allowed.returncode == 0, allowed.stderr


def test_project_profile_edit_refuses_a_literal_secret(vault: Path, tmp_path: Path) -> None:
    assert roster(vault, "project-profile", "create", "web", "coding").returncode == 0
    harness = json.dumps({"opencode": {"apiKey": BEARER}})
    done = roster(vault, "project-profile", "edit", "web", "coding", "--set", f"harness={harness}")
    assert done.returncode == 2 and "literal secret" in done.stderr
    assert BEARER not in vault_text(vault)
    allowed = roster(
        vault,
        *("project-profile", "edit", "web", "coding", "--set", f"harness={harness}"),
        "--allow-literal-secret",
    )
    assert allowed.returncode == 0, allowed.stderr


# -- import writes references ----------------------------------------------------------------
def claude_workspace(root: Path) -> Path:
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(
        "---\nname: helper\ndescription: Helps.\nmcpServers:\n- gh\n---\n\nHelp.\n"
    )
    (agents / "leaky.md").write_text(
        f"---\nname: leaky\ndescription: Leaks.\n---\n\nPush with {GH_PAT} as the token.\n"
    )
    # Prompts show keys and code that are no secret (seen in a public collection of Claude
    # Code agents, where three such agents were refused): imported as they are.
    (agents / "teacher.md").write_text(
        "---\nname: teacher\ndescription: Shows code.\n---\n\nExample:\n\n"
        "    token: process.env.SLACK_BOT_TOKEN,\n"
        '    {"cost_per_token": "$0.00012", "token_reduction": "38%"}\n'
    )
    servers = {
        "gh": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "gh-mcp", "--token", "plain-token-value-123"],
            "env": {"GH_PAT": GH_PAT, "LOG_LEVEL": "info"},
        }
    }
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return root


def test_import_writes_references_and_names_the_variables(vault: Path, tmp_path: Path) -> None:
    workspace = claude_workspace(tmp_path / "ws")
    home = tmp_path / "home"
    home.mkdir()
    args = ("import", "--from", "claude", "--workspace", str(workspace), "--home", str(home))
    done = roster(vault, *args, "--json")
    report = json.loads(done.stdout)
    written = (vault / "mcp-servers" / "gh.md").read_text()
    assert GH_PAT not in vault_text(vault) and "plain-token-value-123" not in written
    assert "GH_PAT: ${GH_PAT}" in written and "${GH_TOKEN}" in written
    assert "LOG_LEVEL: info" in written
    warnings = [d for d in report["diagnostics"] if d["code"] == "literal-secret"]
    messages = {d["message"] for d in warnings if d["severity"] == "warning"}
    assert messages == {
        "the MCP server 'gh' held a literal secret in env GH_PAT; it is written as ${GH_PAT}",
        "the MCP server 'gh' held a literal secret in args[3]; it is written as ${GH_TOKEN}",
    }
    hints = {
        d["hint"].split(" in the environment")[0] for d in warnings if d["severity"] == "warning"
    }
    assert hints == {"set GH_PAT", "set GH_TOKEN"}
    # The agent whose prompt holds a token is not imported (a prompt cannot reference one).
    (refused,) = [d for d in warnings if d["severity"] == "error"]
    assert refused["message"] == (
        "agent 'leaky' is not imported: its sections.Role line 1 holds a literal secret "
        "(Push with *** as the token.)"
    )
    assert GH_PAT not in refused["message"] + refused["hint"]
    assert not (vault / "agent-types" / "leaky").exists()
    teacher = (vault / "agent-types" / "teacher" / "profile.md").read_text()
    assert "process.env.SLACK_BOT_TOKEN" in teacher and '"$0.00012"' in teacher
    assert (vault / "agent-types" / "helper" / "profile.md").exists()
    assert done.returncode == 1
    # On purpose, the literal is kept.
    kept = roster(vault, *args, "--overwrite", "--allow-literal-secret")
    assert GH_PAT in (vault / "mcp-servers" / "gh.md").read_text(), kept.stderr


# -- validate warns ------------------------------------------------------------------------
def test_validate_warns_on_literal_secrets_with_the_reference_form(vault: Path) -> None:
    (vault / "mcp-servers" / "gh.md").write_text(
        "---\nname: gh\ntransport: stdio\ncommand: npx\n"
        'args: ["-y", "gh-mcp", "--token", "plain-token-value-123"]\n'
        f"env:\n  GH_PAT: {GH_PAT}\n  LOG_LEVEL: info\n---\n"
    )
    (vault / "mcp-servers" / "api.md").write_text(
        "---\nname: api\ntransport: http\nurl: https://api.example.com/mcp\n"
        f'headers:\n  Authorization: "Bearer {BEARER}"\n---\n'
    )
    done = roster(vault, "validate", ".", "--format", "json", cwd=vault)
    assert done.returncode == 0  # warnings; --strict fails on them
    found = [
        (d["path"], d["line"], d["column"], d["hint"])
        for d in json.loads(done.stdout)["diagnostics"]
        if d["code"] == "literal-secret"
    ]
    env = "the environment the harness runs in"
    assert found == [
        (
            "mcp-servers/api.md",
            6,
            26,
            f'write a reference instead, Authorization: "Bearer ${{API_TOKEN}}", and set '
            f"API_TOKEN in {env}",
        ),
        (
            "mcp-servers/gh.md",
            5,
            36,
            'write a reference instead, args: ["-y", "gh-mcp", "--token", "${GH_TOKEN}"], and '
            f"set GH_TOKEN in {env}",
        ),
        (
            "mcp-servers/gh.md",
            7,
            11,
            f"write a reference instead, GH_PAT: ${{GH_PAT}}, and set GH_PAT in {env}",
        ),
    ]
    assert GH_PAT not in done.stdout and BEARER not in done.stdout
    assert roster(vault, "validate", ".", "--strict", cwd=vault).returncode == 1


def test_the_example_vault_has_no_literal_secret() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "vault"
    done = roster(example, "validate", str(example), "--strict")
    assert done.returncode == 0, done.stdout + done.stderr


# -- rendered files keep references ------------------------------------------------------------
#: Each harness's own form of ``${GITHUB_TOKEN}`` (docs/codecs/README.md D10): a harness
#: that expands references gets one, in its syntax.
REFERENCE_FORMS = {
    "claude": "${GITHUB_TOKEN}",
    "gemini": "${GITHUB_TOKEN}",
    "copilot": "${env:GITHUB_TOKEN}",
    "cursor": "${env:GITHUB_TOKEN}",
    "opencode": "{env:GITHUB_TOKEN}",
    "codex": '"GITHUB_TOKEN"',  # env_vars = ["GITHUB_TOKEN"]: passed through by name
    "agh": "env:GITHUB_TOKEN",  # secret_env
    "qwen": "${GITHUB_TOKEN}",  # a Gemini CLI fork: the same expansion
    "qoder": "${GITHUB_TOKEN}",  # expanded in env, at either scope (checked)
    "droid": "${GITHUB_TOKEN}",  # expanded in env and headers (checked)
}


@pytest.mark.parametrize("harness", codec_names())
def test_rendered_files_keep_references(make_tree: Any, tmp_path: Path, harness: str) -> None:
    vault = make_tree(
        {
            "agent-types/coding/profile.md": PROFILE.replace(
                "## Role", '## MCP Servers\n```json\n["gh"]\n```\n\n## Role'
            ),
            "mcp-servers/gh.md": "---\nname: gh\ntransport: stdio\ncommand: npx\n"
            'args: ["-y", "gh-mcp"]\nenv:\n  GITHUB_TOKEN: "${GITHUB_TOKEN}"\n---\n',
        }
    )
    out = tmp_path / "out"
    env = {**os.environ, "GITHUB_TOKEN": "the-value-from-the-environment"}
    done = roster(vault, "render", "--to", harness, "--out", str(out), env=env)
    texts = "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert "the-value-from-the-environment" not in texts  # roster never expands one
    if harness == "defect":  # defect expands nothing: the server is refused, not resolved
        assert "render-unsupported" in done.stderr
        assert "${GITHUB_TOKEN}" not in texts
        return
    if harness == "kilo":  # Kilo skips a project config holding {env:...}: dropped, said so
        assert done.returncode == 0, done.stderr
        assert "Kilo does not substitute" in done.stdout + done.stderr
        assert "GITHUB_TOKEN" not in texts
        return
    assert done.returncode == 0, done.stderr
    assert REFERENCE_FORMS[harness] in texts, texts
