"""Never widen (issue 12 item 2), checked with the real OpenCode CLI (opencode-ai 1.18.33).

Agents of several harnesses are imported and rendered to OpenCode by ``roster``; then
``opencode debug agent NAME`` reports the rule list OpenCode itself built for the agent (its
built-in defaults, the config layers and the agent's own rules). Each probe call decided by
that list must be no more permissive than the source harness's own decision for it. The
rules are evaluated with OpenCode's semantics, which ``test_opencode_cli.py`` checks against
the CLI's own decisions for real ``bash`` calls.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from agent_roster.codecs import get_codec
from agent_roster.codecs.base import NativeAgent, Scope
from agent_roster.codecs.opencode.semantics import key_of
from agent_roster.codecs.permissions import SourcedRule, evaluate
from agent_roster.codecs.semantics import FIXED_PROBES, wider
from agent_roster.commands.discover import import_agents
from agent_roster.commands.harness import render_agents
from agent_roster.model.profile import PermissionAction, PermissionRule

from ..trees import build_tree
from .helpers import EXAMPLES, need_harness, run_harness
from .never_widen import SOURCES
from .test_opencode_cli import OFFLINE


class Case(NamedTuple):
    harness: str
    name: str
    files: dict[str, str]
    paths: tuple[str, ...]


CASES = (
    Case(
        "defect",
        "reader",
        {".defect/agents/reader.md": '+++\ndescription = "reads"\n+++\nRead.\n'},
        (".defect/agents/reader.md",),
    ),
    Case(
        "defect",
        "idle",
        {".defect/agents/idle.md": '+++\ndescription = "idle"\n[tools]\nallow = []\n+++\nNo.\n'},
        (".defect/agents/idle.md",),
    ),
    Case(
        "claude",
        "shell",
        {
            ".claude/agents/shell.md": "---\nname: shell\ndescription: runs\n"
            "tools: Read, Bash\n---\n\nRun.\n"
        },
        (".claude/agents/shell.md",),
    ),
    Case(
        "claude",
        "editor",
        {
            ".claude/agents/editor.md": "---\nname: editor\ndescription: edits\n"
            "permissionMode: acceptEdits\n---\n\nEdit.\n"
        },
        (".claude/agents/editor.md",),
    ),
    Case(
        "opencode",
        "asker",
        {
            "opencode.json": json.dumps({"permission": "ask"}),
            ".opencode/agents/asker.md": "---\ndescription: asks\npermission:\n"
            "  edit: deny\n---\n\nAsk.\n",
        },
        (".opencode/agents/asker.md",),
    ),
    Case(
        "cursor",
        "looker",
        {
            ".cursor/agents/looker.md": "---\nname: looker\ndescription: looks\n"
            "readonly: true\n---\n\nLook.\n"
        },
        (".cursor/agents/looker.md",),
    ),
    Case(
        "agh",
        "careful",
        {
            ".agh/agents/careful/AGENT.md": "---\nname: careful\n"
            "permissions: approve-reads\n---\n\nGo.\n"
        },
        (".agh/agents/careful/AGENT.md",),
    ),
)

#: One agent of every other source harness, each restricting something.
CASES += (
    Case(
        "codex",
        "sandboxed",
        {
            ".codex/agents/sandboxed.toml": 'name = "sandboxed"\ndescription = "reads"\n'
            'sandbox_mode = "read-only"\ndeveloper_instructions = "Read."\n'
        },
        (".codex/agents/sandboxed.toml",),
    ),
    Case(
        "gemini",
        "lister",
        {
            ".gemini/agents/lister.md": "---\nname: lister\ndescription: lists\n"
            "tools:\n  - read_file\n  - glob\n---\n\nList.\n"
        },
        (".gemini/agents/lister.md",),
    ),
    Case(
        "copilot",
        "pilot",
        {".github/agents/pilot.agent.md": "---\ndescription: flies\n---\n\nFly.\n"},
        (".github/agents/pilot.agent.md",),
    ),
    Case(
        "kilo",
        "kilner",
        {
            "kilo.json": json.dumps({"permission": {"bash": "deny"}}),
            ".kilo/agents/kilner.md": "---\ndescription: fires\nmode: subagent\n"
            "permission:\n  webfetch: ask\n---\n\nFire.\n",
        },
        (".kilo/agents/kilner.md",),
    ),
    Case(
        "qwen",
        "planner",
        {
            ".qwen/agents/planner.md": "---\nname: planner\ndescription: plans\n"
            "approvalMode: plan\n---\n\nPlan the work carefully.\n"
        },
        (".qwen/agents/planner.md",),
    ),
    Case(
        "qoder",
        "quiet",
        {
            ".qoder/agents/quiet.md": "---\nname: quiet\ndescription: quiet\n"
            "disallowedTools: Bash\n---\n\nBe quiet.\n"
        },
        (".qoder/agents/quiet.md",),
    ),
    Case(
        "droid",
        "peeker",
        {
            ".factory/droids/peeker.md": "---\nname: peeker\ndescription: peeks\n"
            "tools: read-only\n---\n\nPeek.\n"
        },
        (".factory/droids/peeker.md",),
    ),
)
#: Every source harness has a case (issue 12 item 2).
assert {case.harness for case in CASES} == set(SOURCES)


def _reader(root: Path):  # type: ignore[no-untyped-def]
    return lambda rel: (root / rel).read_text() if (root / rel).is_file() else None


@pytest.mark.xdist_group("opencode")
def test_opencode_decides_no_more_than_the_source_harness(tmp_path: Path) -> None:
    binary = need_harness("opencode")
    vault, out, home = tmp_path / "vault", tmp_path / "out", tmp_path / "home"
    vault.mkdir()
    home.mkdir()
    shutil.copy(EXAMPLES / "roster.toml", vault / "roster.toml")
    want: dict[str, dict[str, PermissionAction]] = {}
    for case in CASES:
        ws = tmp_path / f"ws-{case.name}"
        build_tree(ws, case.files)
        agent = NativeAgent(case.name, case.paths, _reader(ws), Scope.PROJECT)
        codec = get_codec(case.harness)
        want[case.name] = {p.describe(): codec.decide(agent, p) for p in FIXED_PROBES}
        report = import_agents(vault, case.harness, workspace=ws, home=tmp_path / "nohome")
        assert report.ok, [d.format() for d in report.diagnostics]
    rendered = render_agents(vault, ["opencode"], out=out)
    assert rendered.ok, [d.format() for d in rendered.diagnostics]

    # One call per agent, one after another: calls side by side (each with its own home)
    # were slower here, each CLI setting its home up.
    for case in CASES:
        done = run_harness(
            [binary, "debug", "agent", case.name, "--pure"],
            cwd=out,
            home=home,
            env=OFFLINE,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        reported = json.loads(done.stdout)["permission"]
        rules = [
            SourcedRule(
                PermissionRule(
                    permission=r["permission"],
                    pattern=r["pattern"],
                    action=PermissionAction(r["action"]),
                ),
                "opencode",
            )
            for r in reported
        ]
        for probe in FIXED_PROBES:
            key = key_of(probe)
            assert key is not None
            argument = "*" if probe.tool.startswith("mcp__") else probe.argument
            got = evaluate(rules, key, argument).action
            limit = want[case.name][probe.describe()]
            assert not wider(got, limit), (case.harness, case.name, probe, got, limit)
