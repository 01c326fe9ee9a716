"""What AGH decides for an agent's tool call (docs/codecs/agh.md §5).

The provider CLI AGH launches asks AGH before each call it would ask a user about (ACP
``session/request_permission``), and the agent's ``permissions`` answers
(``internal/acp/permission.go``): ``approve-all`` allows, ``deny-all`` rejects,
``approve-reads`` allows calls of kind ``read`` and leaves every other call pending for the
operator (ask). No ``permissions``: the config default, ``approve-all``. MCP tools are also
filtered by AGH's own lists: ``deny_tools`` always removes, and a non-empty ``tools`` keeps
only what it names (exact ToolIDs or ``<prefix>*``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from agent_roster.codecs.agh.read import load_frontmatter, split_agent_md
from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.native_md import recalled_reading
from agent_roster.codecs.semantics import ALLOW, ASK, DENY, agent_text, remembered
from agent_roster.codecs.tool_names import split_ref
from agent_roster.model.profile import PermissionAction

#: The config default for an agent without ``permissions`` (``[permissions].mode``).
DEFAULT_MODE = "approve-all"
#: Canonical tools whose ACP permission requests are of kind ``read``.
READ_KINDS = frozenset({"Read", "NotebookRead"})


def mode_decision(mode: str, tool: str) -> PermissionAction:
    """What a ``permissions`` mode answers for a call of ``tool``."""
    if mode == "deny-all":
        return DENY
    if mode == "approve-reads":
        return ALLOW if tool in READ_KINDS else ASK
    return ALLOW


def _matches(entries: Any, name: str) -> bool:
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, str):
            continue
        entry = entry.strip()
        if entry == name or (entry.endswith("*") and name.startswith(entry[:-1])):
            return True
    return False


def agent_data(agent: NativeAgent) -> dict[str, Any] | None:
    """The agent's frontmatter, or ``None`` when AGH would refuse the file."""
    path = next((p for p in agent.paths if p.endswith("/AGENT.md")), None)
    text = agent_text(agent, path) if path else None
    if text is None or path is None:
        return None
    found, data = recalled_reading(text, path)  # read back by the render's self-check
    return data if found else _frontmatter(text, path)


@lru_cache(maxsize=64)
def _frontmatter(text: str, path: str) -> dict[str, Any] | None:
    # A render check asks a dozen probes of every agent: its file is read once per
    # content, not once per probe. Callers only read the result.
    split = split_agent_md(text)
    if isinstance(split, str):
        return None
    loaded = load_frontmatter(split[0], path)
    return None if isinstance(loaded, str) else loaded[0]


def decide_data(data: dict[str, Any], probe: Probe) -> PermissionAction:
    """AGH's decision for ``probe`` under an agent's frontmatter ``data``."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        name = probe.tool
        if _matches(data.get("deny_tools"), name):
            return DENY
        tools = data.get("tools")
        if isinstance(tools, list) and tools and not _matches(tools, name):
            return DENY
    mode = str(data.get("permissions") or "").strip() or DEFAULT_MODE
    return mode_decision(mode, ref.tool)


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """AGH's decision for ``probe`` made by the agent ``agent``."""
    data = remembered(agent, "agh data", lambda: agent_data(agent))
    return DENY if data is None else decide_data(data, probe)
