"""Issue 12 item 5 against the real CLIs: an agent whose ``description: Use when: x`` is not
valid YAML is loaded by Claude Code (2.1.197) and OpenCode (1.18.33) after their own
repair, and roster discovers and imports it the same way, with a ``harness-recovered``
warning; a CRLF file is not repaired by Claude Code (its repair matches lines up to LF),
and neither CLI nor roster loads a file the repair cannot fix.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from agent_roster.commands.discover import discover, import_agents
from agent_roster.commands.harness import render_agents

from ..trees import build_tree
from .helpers import need_harness, run_harness
from .test_opencode_cli import OFFLINE

COLON = "description: Use when: x happens"
PROBE = "roster-probe-agent"
CLAUDE_FILES = {
    "colon.md": f"---\nname: colon\n{COLON}\n---\nYou help.\n",
    "crlf.md": f"---\r\nname: crlf\r\n{COLON}\r\n---\r\nYou help.\r\n",
    "broken.md": "---\nname: broken\ndescription: [unclosed: x\n  - a: b\n---\nYou help.\n",
    "plain.md": "---\nname: plain\ndescription: Plain.\n---\nYou help.\n",
}


def _claude_agents(binary: str, workspace: Path, home: Path) -> set[str]:
    env = {"IS_SANDBOX": "1"} if os.geteuid() == 0 else {}
    run = run_harness(
        [binary, "-p", "--agent", PROBE, "hello"], cwd=workspace, home=home, env=env, timeout=180
    )
    match = re.search(rf"--agent '{PROBE}' not found\. Available agents: (.*)", run.stderr)
    assert match, run.stdout + run.stderr
    return {name.strip() for name in match.group(1).split(",")}


def test_claude_code_and_roster_load_the_same_agents(tmp_path: Path) -> None:
    binary = need_harness("claude")
    workspace, home, vault = tmp_path / "ws", tmp_path / "home", tmp_path / "vault"
    build_tree(workspace, {f".claude/agents/{name}": text for name, text in CLAUDE_FILES.items()})
    home.mkdir()
    (vault / "agent-types").mkdir(parents=True)
    loaded = _claude_agents(binary, workspace, home) & {"colon", "crlf", "broken", "plain"}
    assert loaded == {"colon", "plain"}
    found = discover("claude", workspace=workspace, home=home)
    assert {p.id for p in found.profiles} == loaded
    assert [Path(d.path).name for d in found.diagnostics if d.code == "harness-recovered"] == [
        "colon.md"
    ]
    report = import_agents(vault, "claude", workspace=workspace, home=home)
    assert {f.name for f in report.files} == loaded
    assert "harness-recovered" in [d.code for d in report.diagnostics]
    # Rendered back, the file is what it was, and Claude Code still loads it.
    out = tmp_path / "out"
    render_agents(vault, ["claude"], out=out)
    assert (out / ".claude/agents/colon.md").read_text() == CLAUDE_FILES["colon.md"]
    assert "colon" in _claude_agents(binary, out, home)


def test_opencode_and_roster_read_the_same_description(tmp_path: Path) -> None:
    binary = need_harness("opencode")
    workspace, home = tmp_path / "ws", tmp_path / "home"
    files = {
        "colon.md": f"---\n{COLON}\nmode: subagent\n---\nYou help.\n",
        "crlf.md": f"---\r\n{COLON}\r\nmode: subagent\r\n---\r\nYou help.\r\n",
    }
    build_tree(workspace, {f".opencode/agents/{name}": text for name, text in files.items()})
    home.mkdir()
    found = discover("opencode", workspace=workspace, home=home)
    mine = {p.id: p.description for p in found.profiles}
    assert mine == {"colon": "Use when: x happens", "crlf": "Use when: x happens"}
    assert sorted(
        Path(d.path).name for d in found.diagnostics if d.code == "harness-recovered"
    ) == [
        "colon.md",
        "crlf.md",
    ]
    for name, description in mine.items():
        done = run_harness(
            [binary, "debug", "agent", name, "--pure"],
            cwd=workspace,
            home=home,
            env=OFFLINE,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["description"] == description
