"""What Cursor decides for a subagent's tool call (docs/codecs/cursor.md §5).

A Cursor subagent has the parent's tools; ``readonly: true`` takes away the ones that
change things (file edits and the terminal). Cursor documents no per-subagent approval, so
a tool the agent has is taken as allowed (an over-statement where a user's Cursor settings
ask before running commands).
"""

from __future__ import annotations

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.semantics import ALLOW, DENY, agent_document, agent_text
from agent_roster.codecs.tool_names import split_ref
from agent_roster.model.profile import PermissionAction

#: What ``readonly: true`` takes away.
WRITES = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Bash", "PowerShell"})


def decide_readonly(readonly: bool, probe: Probe) -> PermissionAction:
    """Cursor's decision for ``probe`` with ``readonly`` set or not."""
    return DENY if readonly and split_ref(probe.tool).tool in WRITES else ALLOW


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """Cursor's decision for ``probe`` made by the subagent ``agent``."""
    text = agent_text(agent)
    if text is None:
        return DENY
    doc = agent_document(text, agent.paths[0] if agent.paths else "")
    if doc is None or not doc.has_frontmatter:
        return DENY
    return decide_readonly(doc.data.get("readonly") is True, probe)
