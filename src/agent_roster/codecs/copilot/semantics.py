"""What GitHub Copilot decides for a custom agent's tool call (docs/codecs/copilot.md §5).

An agent has the tools its ``tools`` list grants (``copilot/tools.py``: aliases, Claude
names and CLI tool names, ``<server>/<tool>``, ``<server>/*``, ``<server>-<tool>``); no
list, or ``*`` in it, is every tool, ``[]`` none. Readers differ in how wide an entry is
(the cloud agent reads ``Grep`` as all of ``search``; the CLI gives ``create`` with
``edit``), so an entry grants the widest reading: ``Edit``/``Write`` together, ``Grep``/
``Glob`` together, ``WebFetch``/``WebSearch`` together. A tool it has is decided as the
Copilot CLI decides it (the harness roster can run): reading, searching, the todo list
and subagents run; shell commands, file edits, web access and MCP tools ask for approval
unless the session passes ``--allow-tool`` (the cloud agent runs without prompts in its
sandbox; roster models the CLI). A tool Copilot does not have is denied.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.copilot.tools import canonical_tools
from agent_roster.codecs.semantics import ALLOW, ASK, DENY, agent_document, agent_text
from agent_roster.codecs.tool_names import split_ref, to_native
from agent_roster.model.profile import PermissionAction

#: Canonical tools one entry grants together in some Copilot reader.
GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"Read", "NotebookRead"}),
    frozenset({"Grep", "Glob"}),
    frozenset({"Bash"}),
    frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"}),
    frozenset({"Task", "Agent"}),
    frozenset({"TodoWrite", "TodoRead"}),
    frozenset({"WebFetch", "WebSearch"}),
)
#: Tools that run without approval in the CLI.
UNPROMPTED = frozenset({"Read", "NotebookRead", "Grep", "Glob", "Task", "Agent", "TodoWrite"})


def _group(tool: str) -> frozenset[str]:
    return next((g for g in GROUPS if tool in g), frozenset({tool}))


def granted(tools: list[Any], probe: Probe) -> bool:
    """Whether a ``tools`` list grants the probed tool (in the widest reading)."""
    ref = split_ref(probe.tool)
    for entry in tools:
        if not isinstance(entry, str):
            continue
        entry = entry.strip()
        if entry == "*":
            return True
        if ref.server is not None:
            server, sep, tool = entry.partition("/")
            if sep and server == ref.server and tool in ("*", ref.mcp_tool):
                return True
            if entry == f"{ref.server}-{ref.mcp_tool}":
                return True
            continue
        if ref.tool in _grants(entry):
            return True
    return False


@lru_cache(maxsize=4096)
def _grants(entry: str) -> frozenset[str]:
    # The canonical built-ins one entry grants, its groups' included: a render check asks
    # a dozen probes of every agent, each of which went through the whole list.
    return frozenset(
        granted for tool in canonical_tools(entry) for granted in _group(split_ref(tool).tool)
    )


def has_tool(tool: str) -> bool:
    """Whether Copilot has the canonical built-in ``tool`` at all."""
    return to_native("copilot", tool) is not None


def decide_data(data: dict[str, Any], probe: Probe) -> PermissionAction:
    """Copilot's decision for ``probe`` under an agent's frontmatter ``data``."""
    ref = split_ref(probe.tool)
    if ref.server is None and not has_tool(ref.tool):
        return DENY
    tools = data.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if tools is not None and (not isinstance(tools, list) or not granted(tools, probe)):
        return DENY
    return ALLOW if ref.server is None and ref.tool in UNPROMPTED else ASK


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """Copilot's decision for ``probe`` made by the custom agent ``agent``."""
    text = agent_text(agent)
    if text is None:
        return DENY
    doc = agent_document(text, agent.paths[0] if agent.paths else "")
    if doc is None or not doc.has_frontmatter:
        return DENY
    description = doc.data.get("description")
    if not isinstance(description, str) or not description.strip():
        return DENY
    return decide_data(doc.data, probe)
