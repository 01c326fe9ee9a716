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
from typing import Any, NamedTuple

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.claude import semantics as claude_semantics
from agent_roster.codecs.defaults import explicit_rules
from agent_roster.codecs.qwen.read import QwenAgent, parse_agent, tool_list
from agent_roster.codecs.qwen.tools import canonical_tool
from agent_roster.codecs.semantics import DENY, agent_text, remembered
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
    view = remembered(agent, "qwen view", lambda: _agent_view(agent))
    if view is None:
        return DENY
    return decide_view(view, probe)


class View(NamedTuple):
    """A subagent's lists read once for deciding calls (:func:`decide_data`'s reading):
    the canonical built-ins and the MCP names its ``tools`` list grants (``listed``: it
    has one), the built-ins and MCP names its ``disallowedTools`` take away, its mode."""

    listed: bool
    tools: frozenset[str]
    tools_mcp: frozenset[str]
    denied: frozenset[str]
    denied_mcp: frozenset[str]
    mode: str


def view_of(data: dict[str, Any]) -> View:
    """``data``'s :class:`View`."""
    tools = tool_list(data.get("tools")) or []
    disallowed = tool_list(data.get("disallowedTools")) or []
    plain = [entry for entry in disallowed if not entry.startswith("mcp__")]
    return View(
        listed=bool(tools),
        tools=_canonical(tools),
        tools_mcp=frozenset(entry for entry in tools if entry.startswith("mcp__")),
        # A built-in is taken away by its name too (``entry == whole``).
        denied=_canonical(disallowed) | frozenset(plain),
        denied_mcp=frozenset(entry for entry in disallowed if entry.startswith("mcp__")),
        mode=MODES.get(str(data.get("approvalMode") or "default"), "bypassPermissions"),
    )


def _canonical(entries: list[str]) -> frozenset[str]:
    # The canonical names of the entries that are not MCP names (``_same``).
    found = (canonical_tool(e.strip()) for e in entries if not e.startswith("mcp__"))
    return frozenset(name for name in found if name is not None)


def decide_view(view: View, probe: Probe) -> PermissionAction:
    """:func:`decide_data` from the agent's :class:`View` (a property test keeps the two
    equal): set lookups instead of a pass over both lists per call."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        name = f"mcp__{ref.server}__{ref.mcp_tool or '*'}"
        if view.listed and name not in view.tools_mcp:
            return DENY
        if name in view.denied_mcp or f"mcp__{ref.server}__*" in view.denied_mcp:
            return DENY
        return claude_semantics.mode_decision(view.mode, name)
    if to_native("qwen", ref.tool) is None:
        return DENY
    if view.listed and ref.tool not in view.tools:
        return DENY
    if ref.tool in view.denied:
        return DENY
    return claude_semantics.mode_decision(view.mode, ref.tool)


def _agent_view(agent: NativeAgent) -> View | None:
    text = agent_text(agent)
    if text is None:
        return None
    path = agent.paths[0] if agent.paths else "agent.md"
    # With a memo each text is read once: the uncached reader, which need not hash it (a
    # long prompt's hash costs more than reading its frontmatter).
    return _view(text, path) if agent.memo is None else _view_of(text, path)


def _view_of(text: str, path: str) -> View | None:
    parsed = _parsed(text, path)
    return None if parsed is None else view_of(parsed.data)


# A render check asks a dozen probes of every agent: read once per content.
_view = lru_cache(maxsize=1024)(_view_of)


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
