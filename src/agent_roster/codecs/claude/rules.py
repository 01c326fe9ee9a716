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

from agent_roster.codecs import semantics
from agent_roster.codecs.base import Probe
from agent_roster.codecs.claude import semantics as claude_semantics
from agent_roster.codecs.claude.semantics import Coverage
from agent_roster.codecs.permissions import ALIASES, SECONDARY, effective_rules
from agent_roster.codecs.semantics import PROBE_MCP_TOOL
from agent_roster.codecs.tool_names import canonical_tools, native_names, split_ref
from agent_roster.known_tools import (
    DEFAULT_EMBEDDED_COMMANDS,
    DEFAULT_EMBEDDED_SERVER,
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


def claude_mode(profile: AgentProfile) -> str:
    """The permission mode a rendered agent runs in: the profile's (``full`` is
    ``bypassPermissions``), else a ``dontAsk`` kept in ``harness.claude``, else Claude
    Code's ``default``."""
    mode = profile.permission_mode
    if mode == "full":
        return "bypassPermissions"
    if mode:
        return mode
    kept = profile.harness.get("claude", {}).get("permissionMode")
    return kept if kept in claude_semantics.PERMISSION_MODES else "default"


class ClaudePermissions:
    """What a profile's rules make of an agent's ``tools`` and ``disallowedTools``, decided
    tool by tool (issue 12 item 2). Claude Code decides a call by the agent's tool list,
    then its permission mode (``claude/semantics.py``); for each tool this keeps Claude's
    answer at most as permissive as the profile's:

    * the profile denies every tool it does not name (``*: deny``, an allowlist, an exact
      set): an explicit ``tools`` list, with each tool a rule allows added;
    * Claude would allow or ask where the profile denies, or allow where it asks (Claude
      cannot ask for a read-only tool): the tool goes into ``disallowedTools`` (``ask`` so
      becomes ``deny``, reported);
    * the profile allows where the mode asks: Claude asks (stricter; reported).

    What Claude cannot hold per agent (argument patterns) is left to the render check,
    which refuses the agent (``codecs/guard.py``); nothing is written as prose."""

    def __init__(
        self,
        profile: AgentProfile,
        mode: str,
        embedded: str = DEFAULT_EMBEDDED_SERVER,
        commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    ) -> None:
        rules = effective_rules(profile, embedded=embedded)
        self.list: list[str] | None = None
        self.deny: list[str] = []
        self.narrowed: list[str] = []
        self.stricter: list[str] = []
        if not rules:
            return
        names = self._names(profile)
        # The profile's answer for each name, asked once for both passes below, and for a
        # tool of a server nobody configured (the catch-all).
        answers = semantics.canonical_each(
            profile,
            [*_UNIVERSE_PROBES, *(Probe(name) for name, _ in names[len(UNIVERSE) :]), _CATCH_ALL],
            embedded=embedded,
            rules=rules,
        )
        last = answers.pop()
        catch = None if last.rule is None else last.action
        wants = [None if found.rule is None else found.action for found in answers]
        listed: Coverage | None = None
        if profile.allowed_tools or profile.tools_exact or catch is PermissionAction.DENY:
            listed = Coverage(native_tool(t, embedded, commands) for t in profile.allowed_tools)
            for (name, written), found in zip(names, wants, strict=True):
                if name in ALIASES or name in SECONDARY:
                    continue  # granted only when the profile names it
                granted = found is not None and found is not PermissionAction.DENY
                if granted and not listed.covers(name):
                    listed.append(written)
            self.list = listed.entries
        denied = Coverage()
        for (name, written), want in zip(names, wants, strict=True):
            if want is None:
                continue
            got = self._claude(name, mode, listed, denied)
            if semantics.wider(got, want):
                if written not in denied.entries:
                    denied.append(written)
                if want is PermissionAction.ASK:
                    self.narrowed.append(written)
            elif semantics.wider(want, got) and name in PROMPTED:
                self.stricter.append(name)
        self.deny = denied.entries

    @staticmethod
    def _names(profile: AgentProfile) -> list[tuple[str, str]]:
        # (the name decided, the name written): built-ins, and each MCP server as a whole.
        found = [(tool, tool) for tool in UNIVERSE]
        found += [(f"mcp__{s}__{PROBE_MCP_TOOL}", f"mcp__{s}") for s in profile.mcp_servers]
        return found

    @staticmethod
    def _claude(
        name: str, mode: str, listed: Coverage | None, denied: Coverage
    ) -> PermissionAction:
        if listed is not None and not listed.covers(name, "*"):
            return PermissionAction.DENY
        if denied.covers(name):
            return PermissionAction.DENY
        return claude_semantics.mode_decision(mode, split_ref(name).tool)


#: A tool of an MCP server no agent configures: what the profile says of every other tool.
_CATCH_ALL = Probe("mcp__probe__do_thing")
#: The Claude Code tools render decides one by one: those an import writes a rule for
#: (``claude/semantics.IMPORT_TOOLS``) and the other prompted ones the tool table knows.
UNIVERSE = (
    *claude_semantics.IMPORT_TOOLS,
    "NotebookEdit",
    "WebFetch",
    "WebSearch",
    "Skill",
    "ExitPlanMode",
)
_UNIVERSE_PROBES = tuple(Probe(tool) for tool in UNIVERSE)
#: Tools whose "allow" Claude Code's modes may turn into "ask" (reported as stricter).
PROMPTED = frozenset({"Bash", "Edit", "Write", "WebFetch", "WebSearch"})
