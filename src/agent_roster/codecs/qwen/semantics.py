"""What Qwen Code decides for a subagent's tool call (docs/codecs/qwen.md).

A subagent has the tools its ``tools`` list names (exact Qwen names or display names;
absent or empty: every tool), less its ``disallowedTools`` (names, or
``mcp__<server>__*`` for a whole server). A tool it has is then decided by its
``approvalMode`` (absent: ``default``) the way Claude Code's permission modes decide
(Qwen takes Claude's modes as its own: ``render.APPROVAL``): ``yolo`` allows every tool,
``plan`` denies edits and the shell, ``default`` asks before edits, the shell and the web.
``auto`` approves by a model's judgement, so it is read as ``yolo``: the never-widen check
must assume the most the harness may do. A tool Qwen does not have is denied.
"""

from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.claude import semantics as claude_semantics
from agent_roster.codecs.defaults import explicit_rules
from agent_roster.codecs.qwen.read import QwenAgent, parse_agent, tool_list
from agent_roster.codecs.qwen.tools import canonical_tool
from agent_roster.codecs.semantics import DENY, agent_text
from agent_roster.codecs.tool_names import split_ref, to_native
from agent_roster.model.profile import PermissionAction, PermissionRule

#: Qwen ``approvalMode`` → the Claude Code mode that decides the same.
MODES = {
    "default": "default",
    "plan": "plan",
    "auto-edit": "acceptEdits",
    "yolo": "bypassPermissions",
    "auto": "bypassPermissions",
    "bubble": "default",  # the parent session asks
}


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """Qwen Code's decision for ``probe`` made by the subagent ``agent``."""
    text = agent_text(agent)
    if text is None:
        return DENY
    parsed = _parsed(text, agent.paths[0] if agent.paths else "agent.md")
    if parsed is None:
        return DENY
    return decide_data(parsed.data, probe)


def decide_data(data: dict[str, Any], probe: Probe) -> PermissionAction:
    """Qwen Code's decision for ``probe`` under a subagent's frontmatter ``data``."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        name = f"mcp__{ref.server}__{ref.mcp_tool or '*'}"
        whole = f"mcp__{ref.server}__*"
        tool = name
    else:
        if to_native("qwen", ref.tool) is None:
            return DENY
        name = whole = ref.tool
        tool = ref.tool
    tools = tool_list(data.get("tools")) or []
    if tools and not any(_same(entry, name) for entry in tools):
        return DENY
    disallowed = tool_list(data.get("disallowedTools")) or []
    if any(_same(entry, name) or entry == whole for entry in disallowed):
        return DENY
    mode = data.get("approvalMode") or "default"
    return claude_semantics.mode_decision(MODES.get(str(mode), "bypassPermissions"), tool)


@lru_cache(maxsize=64)
def _parsed(text: str, path: str) -> QwenAgent | None:
    # A render check asks a dozen probes of every agent: its file is parsed once per
    # content, not once per probe. Callers only read the result.
    return parse_agent(text, Path(path))[0]


def _same(entry: str, name: str) -> bool:
    """Whether a list entry (a Qwen name, display name or MCP name) names ``name``."""
    if entry.startswith("mcp__") or name.startswith("mcp__"):
        return entry == name
    return canonical_tool(entry.strip()) == name


def import_rules(data: dict[str, Any]) -> tuple[PermissionRule, ...]:
    """Qwen Code's decision for every tool as rules (``defaults.explicit_rules``): its
    list, its ``disallowedTools`` and what its ``approvalMode`` asks about (issue 12 item 2:
    an import writes every default explicitly)."""
    tools = tuple(tool_list(data.get("tools")) or ())
    disallowed = tuple(tool_list(data.get("disallowedTools")) or ())
    return _import_rules(tools, disallowed, str(data.get("approvalMode") or ""))


@lru_cache(maxsize=256)
def _import_rules(
    tools: tuple[str, ...], disallowed: tuple[str, ...], mode: str
) -> tuple[PermissionRule, ...]:
    data: dict[str, Any] = {"tools": list(tools), "disallowedTools": list(disallowed)}
    if mode:
        data["approvalMode"] = mode
    mcp = [t for t in (*tools, *disallowed) if t.startswith("mcp__")]
    return explicit_rules(partial(decide_data, data), mcp)
