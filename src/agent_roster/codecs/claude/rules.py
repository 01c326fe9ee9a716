"""Canonical permissions for harnesses without ordered rules (permissions.md §3).

Claude Code, Copilot and Cursor only have whole-tool switches; argument-level rules and
narrowed tool names become sentences of the ``## Roster constraints`` section (D4). This
module builds those sentences, maps OpenCode permission keys back to canonical tools, and
holds Claude Code's own tool and name rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.tool_names import canonical_tools, native_names, split_ref
from agent_roster.known_tools import (
    DEFAULT_EMBEDDED_COMMANDS,
    DEFAULT_EMBEDDED_SERVER,
    RETIRED_CLAUDE_TOOLS,
    to_claude,
)
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

_ACTION_WORDS = {
    PermissionAction.ALLOW: "You may use",
    PermissionAction.ASK: "Ask the user before using",
    PermissionAction.DENY: "Never use",
}


def rule_sentence(rule: PermissionRule) -> str:
    """One canonical rule as an instruction (the key is OpenCode's permission key)."""
    target = "any tool" if rule.permission == "*" else f"`{rule.permission}`"
    if rule.pattern == "*":
        return f"{_ACTION_WORDS[rule.action]} {target}."
    return f"{_ACTION_WORDS[rule.action]} {target} with an argument matching `{rule.pattern}`."


def narrowed_sentences(names: Iterable[str], *, allow: bool) -> list[str]:
    """Sentences for narrowed canonical names (``Bash(git log:*)``), one per tool."""
    by_tool: dict[str, list[str]] = {}
    for name in names:
        ref = split_ref(name)
        if ref.argument is not None:
            by_tool.setdefault(ref.tool, []).append(f"`{ref.argument}`")
    verb = "Use {tool} only with arguments matching" if allow else "Never use {tool} with"
    suffix = "" if allow else " (arguments matching these patterns)"
    return [
        f"{verb.format(tool=tool)} {', '.join(patterns)}{suffix}."
        for tool, patterns in by_tool.items()
    ]


def is_narrowed(name: str) -> bool:
    """Whether a canonical tool name carries an argument pattern (``Bash(git log:*)``)."""
    return split_ref(name).argument is not None


def tools_for_key(key: str, servers: Sequence[str]) -> list[str]:
    """Canonical tool names an OpenCode permission key stands for: every table row whose
    OpenCode key it is (``edit`` → Write, Edit, MultiEdit, NotebookEdit), or an MCP name
    when the key is ``<server>_<tool>``/``<server>_*`` for one of ``servers``; empty when
    the key has no canonical tool."""
    built_in = [
        tool
        for tool in canonical_tools()
        if any(native.name == key for native in native_names("opencode", tool))
    ]
    if built_in:
        return built_in
    for server in sorted(servers, key=len, reverse=True):
        clean = re.sub(r"[^a-zA-Z0-9_-]", "_", server)
        if key.startswith(clean + "_"):
            tool = key[len(clean) + 1 :]
            return [f"mcp__{server}__{tool}"] if tool else []
    return []


@lru_cache(maxsize=8192)  # pure, and profiles repeat the same names
def native_tool(
    name: str,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> str:
    """Canonical → Claude, as the launcher does (``resolve/tools.for_claude``): the
    embedded server's bare commands get its prefix; every other name (built-ins, current
    tools the registry may not list yet, subagent names) is written as it is."""
    return to_claude(name, embedded, commands)


def name_problem(ident: str) -> str:
    if ident.startswith("-"):
        return "names must not start with '-' (Claude Code refuses the file)"
    if ":" in ident:
        return (
            "':' is reserved for plugin agents (<plugin>:<agent>); Claude Code 2.1.218+ refuses it"
        )
    if "/" in ident or "\\" in ident or ident in {"", ".", ".."}:
        return "the name must be usable as a file name"
    return ""


class ClaudePermissions:
    """What the canonical ``permission`` rules add to ``tools``/``disallowedTools``."""

    def __init__(self, profile: AgentProfile, embedded: str = DEFAULT_EMBEDDED_SERVER) -> None:
        self.allow: list[str] = []
        self.deny: list[str] = []
        self.constraints: list[str] = []
        self.dropped: list[str] = []
        rules = profile.permission
        first = rules[0] if rules else None
        self.lead_deny = first is not None and (first.permission, first.pattern, first.action) == (
            "*",
            "*",
            PermissionAction.DENY,
        )
        effective = effective_rules(profile, embedded=embedded)
        for index, rule in enumerate(rules):
            if rule.permission == "*" and rule.pattern == "*" and index == 0 and self.lead_deny:
                continue  # expressed by writing an explicit tools allowlist
            if rule.pattern != "*" or rule.permission == "*":
                self.constraints.append(rule_sentence(rule))
                continue
            names = tools_for_key(rule.permission, profile.mcp_servers)
            names = [n for n in names if n not in RETIRED_CLAUDE_TOOLS] or names
            decision = evaluate(effective, rule.permission).action
            if not names:
                self.dropped.append(f"{rule.permission} (no Claude Code tool)")
            elif decision is PermissionAction.DENY:
                self.deny.extend(names)
            elif decision is PermissionAction.ALLOW and (profile.allowed_tools or self.lead_deny):
                self.allow.extend(names)
            elif decision is PermissionAction.ALLOW:
                self.dropped.append(f"{rule.permission}: allow (every tool is available already)")
            else:
                self.dropped.append(f"{rule.permission}: ask (permissionMode default asks)")
