"""A harness's own decisions written out as canonical rules, for import (never widen).

Issue 12 item 2: an import writes every native default explicitly, so that ``roster can``
on the imported profile answers as the source harness does and a profile never falls back
to "the runtime's default" (roster.toml ``[defaults]``, or whatever the target harness
does). Harnesses without ordered rules decide a call by the tool alone (a list, a mode, a
read-only switch); their ``decide`` is the reference, and :func:`explicit_rules` asks it
once per canonical tool and once per named MCP server or tool:

* ``*``: what the harness decides for a tool of an MCP server the agent never names (its
  catch-all);
* each canonical tool the harness decides otherwise, keyed by its canonical name (decided
  for that tool alone, ``permissions._permission_rule``);
* each MCP server (``<server>_*``) and then each MCP tool named, where it differs from
  what the rules so far give.

The rules are a function of the harness's decision alone, so callers cache them per
distinct native setting (a mode, a tool list): no work per agent beyond one lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from agent_roster.codecs.base import Probe
from agent_roster.codecs.permissions import ALIASES
from agent_roster.codecs.tool_names import canonical_tools, opencode_key, split_ref
from agent_roster.model.profile import PermissionAction, PermissionRule

#: The tool of an MCP server no agent names: the harness's catch-all decision.
UNNAMED_MCP = "mcp__roster-unnamed__tool"


def explicit_rules(
    decide: Callable[[Probe], PermissionAction], mcp: Iterable[str] = ()
) -> tuple[PermissionRule, ...]:
    """Ordered canonical rules under which the canonical model decides every canonical
    tool, and every MCP name in ``mcp`` (``mcp__<server>__<tool>`` or ``mcp__<server>__*``),
    as ``decide`` does (module docstring)."""
    catch = decide(Probe(UNNAMED_MCP))
    rules = [PermissionRule(permission="*", action=catch)]
    for tool in canonical_tools():
        if tool in ALIASES:
            continue  # another name of a tool decided here (Agent is Task)
        found = decide(Probe(tool))
        if found is not catch:
            rules.append(PermissionRule(permission=tool, action=found))
    servers: dict[str, PermissionAction] = {}
    tools: dict[str, PermissionAction] = {}
    for name in mcp:
        ref = split_ref(name)
        if ref.server is None:
            continue
        if ref.mcp_tool in (None, "", "*"):
            servers[ref.server] = decide(Probe(f"mcp__{ref.server}__*"))
        else:
            tools[name] = decide(Probe(name))
    for server, found in servers.items():
        if found is not catch:
            rules.append(PermissionRule(permission=opencode_key(f"mcp__{server}__*"), action=found))
    for name, found in tools.items():
        around = servers.get(split_ref(name).server or "", catch)
        if found is not around:
            rules.append(PermissionRule(permission=opencode_key(name), action=found))
    return tuple(rules)
