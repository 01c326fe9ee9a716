"""What Gemini CLI decides for a subagent's tool call (docs/codecs/gemini.md §5).

A subagent has the tools its ``tools`` list names (Gemini names, ``*``, ``mcp_*``,
``mcp_<server>_*``, ``mcp_<server>_<tool>``); without the key it inherits every tool. Gemini's
subagent docs say subagents run in "YOLO mode": a tool it has runs without confirmation
(``docs/core/subagents.md``), so every call is allowed or denied. A tool Gemini does not
have (no row in the tool-name table) is denied.
"""

from __future__ import annotations

from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.semantics import ALLOW, DENY, agent_document, agent_text
from agent_roster.codecs.tool_names import native_names, split_ref
from agent_roster.model.profile import PermissionAction


def names_of(probe: Probe) -> tuple[str, ...]:
    """Gemini's names for the probed tool (none: Gemini has no such tool)."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        return (f"mcp_{ref.server}_{ref.mcp_tool or '*'}",)
    return tuple(native.name for native in native_names("gemini", ref.tool))


def granted(tools: list[Any], name: str) -> bool:
    """Whether a ``tools`` list grants the Gemini tool ``name``."""
    for entry in tools:
        if not isinstance(entry, str):
            continue
        if entry == name or entry == "*":
            return True
        if name.startswith("mcp_") and (
            entry == "mcp_*" or (entry.endswith("_*") and name.startswith(entry[:-1]))
        ):
            return True
    return False


def decide_data(data: dict[str, Any], probe: Probe) -> PermissionAction:
    """Gemini's decision for ``probe`` under a subagent's frontmatter ``data``."""
    names = names_of(probe)
    if not names:
        return DENY
    tools = data.get("tools")
    if tools is None:
        return ALLOW
    if not isinstance(tools, list):
        return DENY
    return ALLOW if any(granted(tools, name) for name in names) else DENY


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """Gemini CLI's decision for ``probe`` made by the subagent ``agent``."""
    text = agent_text(agent)
    if text is None:
        return DENY
    doc = agent_document(text, agent.paths[0] if agent.paths else "")
    if doc is None or not doc.has_frontmatter:
        return DENY
    return decide_data(doc.data, probe)
