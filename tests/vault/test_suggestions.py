"""Did-you-mean (issue 12 item 7): a swap of two letters is one edit, another harness's
tool name suggests the canonical tool, and an unknown name is looked at once per load."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_roster import known_tools
from agent_roster.commands.validate import validate
from agent_roster.diagnostics import closest, did_you_mean
from agent_roster.known_tools import KnownTools
from agent_roster.vault.profile_blocks import CONFIG_KEYS

from ..trees import build_tree
from .helpers import block, parse


def test_a_swap_of_two_letters_is_one_edit() -> None:
    # difflib answered 'mode' (a dropped letter is one edit, a swap two).
    assert did_you_mean("modle", CONFIG_KEYS) == "did you mean 'model'?"
    assert closest("modle", ["mode", "model"]) == "model"
    assert closest("Raed", ["Edit", "Read"]) == "Read"
    assert closest("permision_mdoe", CONFIG_KEYS) == "permission_mode"


def test_what_difflib_found_is_still_found() -> None:
    assert closest("claude", ["claude_sdk", "acpx", "supervisor"]) == "claude_sdk"
    assert closest("ACPX", ["claude_sdk", "acpx"]) == "acpx"
    assert closest("bypass_permissions", ["plan", "bypassPermissions"]) == "bypassPermissions"


def test_nothing_close_suggests_nothing() -> None:
    assert did_you_mean("xyz", ["Read", "Edit"]) == ""
    assert closest("kubernetes", CONFIG_KEYS) is None
    assert closest("anything", []) is None


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("shell", "did you mean 'Bash'? ('shell' is codex's name for it)"),
        (
            "read_file",
            "did you mean 'Read'? ('read_file' is gemini's, defect's and qwen's name for it)",
        ),
        (
            "run_shell_command",
            "did you mean 'Bash'? ('run_shell_command' is gemini's and qwen's name for it)",
        ),
        ("shell(ls:*)", "did you mean 'Bash'? ('shell' is codex's name for it)"),
        ("bash", "did you mean 'Bash'?"),  # OpenCode's spelling: the same word
        ("Raed", "did you mean 'Read'?"),
        ("TeamCraete", "did you mean 'TeamCreate'?"),
        ("zzz_unrelated", ""),
    ],
)
def test_unknown_tools_suggest_the_canonical_tool(name: str, hint: str) -> None:
    assert KnownTools().suggest(name) == hint


def test_the_tools_block_carries_the_hint() -> None:
    parsed = parse(block("Tools", '{"allowed": ["shell", "read_file"]}'), known_tools=KnownTools())
    assert [(d.code, d.hint) for d in parsed.diagnostics] == [
        ("tool-unknown", "did you mean 'Bash'? ('shell' is codex's name for it)"),
        (
            "tool-unknown",
            "did you mean 'Read'? ('read_file' is gemini's, defect's and qwen's name for it)",
        ),
    ]


def _profile(ident: str, tools: list[str]) -> str:
    allowed = ", ".join(f'"{t}"' for t in tools)
    return (
        f"---\nid: {ident}\nname: {ident}\n---\n\n## Role\nWork.\n\n"
        f'## Tools\n```json\n{{"allowed": [{allowed}]}}\n```\n'
    )


def test_each_distinct_unknown_name_is_looked_at_once_per_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = known_tools.tool_hint

    def counting(name: str, known: object) -> str:
        calls.append(name)
        return real(name, known)  # type: ignore[arg-type]

    monkeypatch.setattr(known_tools, "tool_hint", counting)
    unknown = ["shell", "modle", "Raed"]
    profiles = {
        f"p{i}/profile.md": _profile(f"p{i}", ["Read", *unknown[: 1 + i % 3]]) for i in range(60)
    }
    # A project scope has its own registry; the hints are the same, so the memo is shared.
    profiles_in_project = {
        f"q{i}/profile.md": _profile(f"q{i}", ["shell", "Raed"]) for i in range(5)
    }
    vault = build_tree(
        tmp_path / "vault",
        {
            "agent-types": profiles,
            "projects": {"web": {"agent-types": profiles_in_project}},
        },
    )
    report = validate([vault], base=tmp_path)
    warnings = [d for d in report.diagnostics if d.code == "tool-unknown"]
    assert len(warnings) == 20 * 1 + 20 * 2 + 20 * 3 + 5 * 2
    assert sorted(calls) == sorted(unknown)
    # A second load computes them again: the memo belongs to one load, not to the process.
    validate([vault], base=tmp_path)
    assert sorted(calls) == sorted(unknown * 2)
