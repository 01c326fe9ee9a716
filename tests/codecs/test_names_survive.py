"""Names and values survive (issue 12 item 4).

A bare tool name becomes ``mcp__<embedded>__<name>`` only when it is a command of the
embedded server (the catalog, plus roster.toml ``[embedded_server] commands``); any other
bare name (a current Claude Code tool, a subagent's name) is written as it was, with a
``tool-unknown`` warning when no registry knows it. Model ids are never rewritten on a
round trip to the same harness.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from agent_roster.codecs.tool_names import opencode_key
from agent_roster.commands.validate import validate
from agent_roster.known_tools import CLAUDE_CODE_TOOLS, KnownTools, embedded_commands
from agent_roster.resolve import tools
from agent_roster.vault.profile_parser import parse_profile

from ..resolve.helpers import index_of
from .exact import round_trip

CLAUDE_AGENT = """---
name: lead
description: Runs a team of agents.
tools: Read, TeamCreate, TeamDelete, TaskList, SendMessage, code-reviewer, create_task
---

You lead the team.
"""
#: What regenerating the file must not do: the description is edited in the vault, so the
#: remembered frontmatter no longer applies and the tools list is written from the profile.
EDIT = ("description: Runs a team of agents.", "description: Leads a team of agents.")


def _frontmatter(text: str) -> dict[str, object]:
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_current_claude_tools_and_subagent_names_are_not_renamed(tmp_path: Path) -> None:
    """Finding: TeamCreate, TaskList, SendMessage and subagent names came back as
    mcp__agent-queue__TeamCreate..., tools that do not exist: the agent lost them."""
    trip = round_trip("claude", {".claude/agents/lead.md": CLAUDE_AGENT}, edit=EDIT, root=tmp_path)
    assert trip.rendered.ok, [d.format() for d in trip.rendered.diagnostics]
    rendered = _frontmatter(trip.files[".claude/agents/lead.md"])
    assert rendered["tools"] == [
        "Read",
        "TeamCreate",
        "TeamDelete",
        "TaskList",
        "SendMessage",
        "code-reviewer",
        "mcp__agent-queue__create_task",  # a command of the embedded server
    ]
    vault = parse_profile(trip.profile_md, expected_id="lead").profile
    assert vault is not None and vault.allowed_tools[:2] == ("Read", "TeamCreate")
    assert vault.allowed_tools[-1] == "create_task"  # bare: it is the embedded server's
    # Untouched, the file comes back as it was, comma-separated string and all.
    same = round_trip("claude", {".claude/agents/lead.md": CLAUDE_AGENT}, root=tmp_path / "s")
    assert same.files[".claude/agents/lead.md"] == CLAUDE_AGENT


def test_only_names_no_registry_knows_are_warned_about(tmp_path: Path) -> None:
    trip = round_trip("claude", {".claude/agents/lead.md": CLAUDE_AGENT}, root=tmp_path)
    assert trip.imported.ok
    warned = [d.message for d in trip.imported.diagnostics if d.code == "tool-unknown"]
    assert warned == ["tool 'code-reviewer' is not a known tool"]
    report = validate([tmp_path / "vault"])
    unknown = [d for d in report.diagnostics if d.code == "tool-unknown"]
    assert [d.message for d in unknown] == ["tool 'code-reviewer' is not a known tool"]
    assert all(d.severity.value == "warning" for d in unknown)


def test_roster_toml_declares_more_embedded_commands(tmp_path: Path) -> None:
    """``[embedded_server] commands`` adds names the server has beyond the catalog: those
    are prefixed for Claude (render and launch) and known to validate."""
    agent = CLAUDE_AGENT.replace("code-reviewer", "triage_ticket")
    root = tmp_path / "t"
    first = round_trip("claude", {".claude/agents/lead.md": agent}, root=root)
    assert first.imported.ok
    vault = root / "vault"
    (vault / "roster.toml").write_text('[embedded_server]\ncommands = ["triage_ticket"]\n')
    assert [d for d in validate([vault]).diagnostics if d.code == "tool-unknown"] == []
    index = index_of(vault)
    commands = index.config.embedded.command_names
    assert "triage_ticket" in commands and "create_task" in commands
    assert tools.for_claude(["triage_ticket", "TeamCreate"], "agent-queue", commands) == [
        "mcp__agent-queue__triage_ticket",
        "TeamCreate",
    ]
    # Without the declaration the name is not the embedded server's.
    assert tools.for_claude(["triage_ticket"], "agent-queue") == ["triage_ticket"]


def test_a_bad_commands_entry_is_reported(tmp_path: Path) -> None:
    (tmp_path / "agent-types").mkdir()
    (tmp_path / "roster.toml").write_text('[embedded_server]\ncommands = ["ok", "mcp__x y"]\n')
    from agent_roster.resolve.config import load_config

    loaded = load_config(tmp_path)
    assert loaded.config.embedded.commands == ()
    (problem,) = loaded.diagnostics
    assert problem.code == "field-value" and "commands" in problem.message


def test_permission_keys_are_not_embedded_commands() -> None:
    """OpenCode's ``edit`` is a permission key, not the embedded server's tool."""
    assert opencode_key("edit", embedded="agent-queue") == "edit"
    assert opencode_key("create_task", embedded="agent-queue") == "agent-queue_create_task"
    assert opencode_key("triage", embedded="aq", commands=embedded_commands(["triage"])) == (
        "aq_triage"
    )


def test_the_embedded_server_has_only_its_commands() -> None:
    known = KnownTools(["github"])
    assert known.is_known("create_task") and known.is_known("mcp__agent-queue__create_task")
    assert not known.is_known("mcp__agent-queue__TeamCreate")
    assert known.is_known("mcp__agent-queue__*") and known.is_known("mcp__github__anything")
    assert known.is_known("TeamCreate") and known.is_known("SendMessage")


def test_one_table_of_claude_code_tools_with_descriptions() -> None:
    names = [tool.name for tool in CLAUDE_CODE_TOOLS]
    assert len(names) == len(set(names))
    assert {"TeamCreate", "TaskList", "SendMessage", "Agent", "Workflow"} <= set(names)
    assert all(tool.description for tool in CLAUDE_CODE_TOOLS)
    assert {tool.status for tool in CLAUDE_CODE_TOOLS} == {"current", "interactive", "retired"}
    retired = {tool.name for tool in CLAUDE_CODE_TOOLS if tool.status == "retired"}
    assert retired == tools.RETIRED_CLAUDE_TOOLS


# --- model ids ----------------------------------------------------------------------------

OPENCODE_AGENT = (
    "---\ndescription: Writes docs.\nmode: subagent\nmodel: {model}\n---\n\nWrite docs.\n"
)


def test_an_opencode_model_without_provider_is_kept(tmp_path: Path) -> None:
    """Finding: OpenCode's ``model: claude-4-sonnet`` came back as
    ``anthropic/claude-4-sonnet``."""
    for index, model in enumerate(("claude-4-sonnet", "anthropic/claude-sonnet-4-5", "x/y/z")):
        files = {".opencode/agents/docs.md": OPENCODE_AGENT.format(model=model)}
        edit = ("description: Writes docs.", "description: Writes more docs.")
        trip = round_trip("opencode", files, edit=edit, root=tmp_path / str(index))
        assert trip.rendered.ok, [d.format() for d in trip.rendered.diagnostics]
        assert _frontmatter(trip.files[".opencode/agents/docs.md"])["model"] == model


def test_a_model_from_elsewhere_still_gets_its_provider(tmp_path: Path) -> None:
    """The provider is inferred only for models that did not come from OpenCode itself."""
    agent = "---\nname: docs\ndescription: Writes docs.\nmodel: claude-sonnet-4-6\n---\n\nWrite.\n"
    trip = round_trip("claude", {".claude/agents/docs.md": agent}, root=tmp_path)
    from agent_roster.commands.harness import render_agents

    out = tmp_path / "oc"
    report = render_agents(tmp_path / "vault", ["opencode"], out=out)
    assert report.ok and trip.imported.ok
    text = (out / ".opencode/agents/docs.md").read_text()
    assert _frontmatter(text)["model"] == "anthropic/claude-sonnet-4-6"


def test_model_inherit_is_kept_when_the_file_is_written_afresh(tmp_path: Path) -> None:
    """``model: inherit`` means "no model of its own" (canonically: no model); written again
    as it was, not dropped, even when another field changed."""
    for harness, rel in (
        ("claude", ".claude/agents/docs.md"),
        ("cursor", ".cursor/agents/docs.md"),
    ):
        agent = "---\nname: docs\ndescription: Writes docs.\nmodel: inherit\n---\n\nWrite.\n"
        edit = ("description: Writes docs.", "description: Writes more docs.")
        trip = round_trip(harness, {rel: agent}, edit=edit, root=tmp_path / harness)
        assert _frontmatter(trip.files[rel])["model"] == "inherit"
