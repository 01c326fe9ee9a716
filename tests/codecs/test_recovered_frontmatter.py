"""Issue 12 item 5: load what the harness loads. Claude Code and OpenCode read frontmatter
that is not valid YAML after repairing it (a ``description: Use when: x`` is the common
case); discover and import do the same, with a ``harness-recovered`` warning, and the agent
renders back byte for byte. Copilot, Cursor and Gemini have no such repair: the file is
still refused there (docs/codecs/*.md say so).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_roster.codecs.claude.read import quote_values
from agent_roster.codecs.opencode.read import block_scalars
from agent_roster.commands.discover import discover, import_agents
from agent_roster.commands.harness import render_agents

from ..trees import build_tree

COLON = "description: Use when: x happens"


@pytest.mark.parametrize(
    ("text", "repaired"),
    [
        (f"name: a\n{COLON}\n", 'name: a\ndescription: "Use when: x happens"\n'),
        ('description: "ok: y"\n', 'description: "ok: y"\n'),  # already quoted
        ("description: 'ok: y'\n", "description: 'ok: y'\n"),
        ("tools: [a, b]\n", "tools: [a, b]\n"),  # a flow list YAML reads
        ("tools: [a: b\n", 'tools: "[a: b"\n'),
        ('d: a\\b: "c"\n', 'd: "a\\\\b: \\"c\\""\n'),  # backslash and quote escaped
        ("x-y: {a}\n", 'x-y: "{a}"\n'),  # any YAML indicator
        ("d: 50% off\n", 'd: "50% off"\n'),
        ("d: a:b\n", "d: a:b\n"),  # no ": " and no indicator
        (f"{COLON}\r\n", f"{COLON}\r\n"),  # a CR ends the line: not repaired
        ("\t\tname: a\n", "    name: a\n"),  # leading tabs: two spaces each
        ("key:  \n", "key:  \n"),
        ("  nested: a: b\n", "  nested: a: b\n"),  # indented: not a key line
    ],
)
def test_claude_quotes_values_as_claude_code_does(text: str, repaired: str) -> None:
    assert quote_values(text) == repaired


@pytest.mark.parametrize(
    ("text", "repaired"),
    [
        (f"{COLON}\n", "description: |-\n  Use when: x happens\n"),
        ("description:Use when: x\n", "description: |-\n  Use when: x\n"),
        ("description: a:b\n", "description: |-\n  a:b\n"),  # any colon
        ('description: "a: b"\n', 'description: "a: b"\n'),
        ("description: >\n", "description: >\n"),
        ("x-y: a: b\n", "x-y: a: b\n"),  # keys are letters, digits and _
        ("  nested: a: b\n", "  nested: a: b\n"),
        ("# c: d\n", "# c: d\n"),
        (f"{COLON}\r\nmode: a\r\n", "description: |-\n  Use when: x happens\nmode: a\n"),
    ],
)
def test_opencode_turns_values_into_block_scalars_as_opencode_does(
    text: str, repaired: str
) -> None:
    assert block_scalars(text) == repaired


#: One agent per harness whose description holds ": " unquoted.
FILES = {
    "claude": (".claude/agents/colon.md", f"---\nname: colon\n{COLON}\n---\nYou help.\n"),
    "opencode": (".opencode/agents/colon.md", f"---\n{COLON}\nmode: subagent\n---\nYou help.\n"),
    "copilot": (".github/agents/colon.agent.md", f"---\nname: colon\n{COLON}\n---\nYou help.\n"),
    "cursor": (".cursor/agents/colon.md", f"---\nname: colon\n{COLON}\n---\nYou help.\n"),
    "gemini": (".gemini/agents/colon.md", f"---\nname: colon\n{COLON}\n---\nYou help.\n"),
}
LINE = {"claude": 3, "opencode": 2, "copilot": 3, "cursor": 3, "gemini": 3}


def _discover(harness: str, tmp_path: Path, text: str | None = None) -> tuple[Path, Path]:
    rel, default = FILES[harness]
    build_tree(tmp_path / "ws", {rel: text if text is not None else default})
    (tmp_path / "home").mkdir()
    return tmp_path / "ws", tmp_path / "home"


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_the_agent_loads_with_a_warning_and_comes_back_byte_for_byte(
    harness: str, tmp_path: Path
) -> None:
    workspace, home = _discover(harness, tmp_path)
    found = discover(harness, workspace=workspace, home=home)
    assert [(p.id, p.description) for p in found.profiles] == [("colon", "Use when: x happens")]
    assert not found.refused
    [warning] = [d for d in found.diagnostics if d.code == "harness-recovered"]
    assert (warning.severity.value, warning.line, warning.column) == ("warning", LINE[harness], 22)
    assert warning.message.startswith(
        "invalid YAML in frontmatter: mapping values are not allowed in this context; "
    )
    assert "so it loads the agent: roster reads it the same way" in warning.message
    vault = tmp_path / "vault"
    (vault / "agent-types").mkdir(parents=True)
    report = import_agents(vault, harness, workspace=workspace, home=home)
    assert report.ok and [f.status for f in report.files] == ["created"]
    assert "harness-recovered" in [d.code for d in report.diagnostics]
    out = tmp_path / "out"
    assert render_agents(vault, [harness], out=out).ok
    rel, text = FILES[harness]
    assert (out / rel).read_text() == text  # the file as it was, unquoted


@pytest.mark.parametrize("harness", ["copilot", "cursor", "gemini"])
def test_harnesses_without_a_repair_still_refuse_the_file(harness: str, tmp_path: Path) -> None:
    workspace, home = _discover(harness, tmp_path)
    found = discover(harness, workspace=workspace, home=home)
    assert found.profiles == () and found.refused
    assert "harness-recovered" not in [d.code for d in found.diagnostics]
    assert [(d.line, d.column) for d in found.diagnostics if d.is_error] == [(3, 22)]


def test_a_crlf_file_is_not_repaired_by_claude_code(tmp_path: Path) -> None:
    text = f"---\r\nname: colon\r\n{COLON}\r\n---\r\nYou help.\r\n"
    workspace, home = _discover("claude", tmp_path, text)
    found = discover("claude", workspace=workspace, home=home)
    assert found.profiles == ()
    assert [d.code for d in found.diagnostics] == ["yaml-invalid"]


def test_a_repair_that_does_not_parse_either_keeps_the_yaml_error(tmp_path: Path) -> None:
    text = "---\nname: colon\ndescription: [unclosed: x\n  - a: b\n---\nYou help.\n"
    workspace, home = _discover("claude", tmp_path, text)
    found = discover("claude", workspace=workspace, home=home)
    assert found.profiles == ()
    assert [d.code for d in found.diagnostics] == ["yaml-invalid"]
