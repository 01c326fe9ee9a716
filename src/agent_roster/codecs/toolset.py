"""What a profile's rules leave an agent, for harnesses whose tool lists take whole tools.

Qoder CLI and Factory Droid give a subagent an allowlist of tool names (Qoder also a
denylist of exact names); neither holds a rule on a tool's arguments, an ``ask``, or a
rule for every tool. The canonical model is ordered rules (docs/codecs/permissions.md): the
effective list folds ``permission_mode``, ``allowed_tools``, ``permission`` and
``denied_tools`` (README D9), the last matching rule decides. :func:`whole_tools` reads that
list the way such a harness must, **never wider**:

* a tool is given only when no call of it can be denied: one denied for some of its
  arguments (``Bash(rm -rf:*)`` in ``denied_tools``, ``bash: {"rm *": deny}``) is denied
  whole; one allowed only for some arguments (``Bash(git log:*)`` in ``allowed_tools``) is
  left out;
* when a tool nobody names would be denied (an allowlist, a leading ``'*': deny``), the
  agent gets the list of the tools its rules do allow; otherwise it keeps every tool but
  the denied ones;
* a rule that limits **every** tool by its arguments (``"*": {"*.env": deny}``) has no
  narrower form short of no tools at all: it is a problem, and render refuses the profile.

``ask`` counts as available (the harness asks by its own approval mode, as for Claude
Code); codecs report it. The tools are canonical names: built-ins as Claude Code names
them (narrowed names taken whole), ``mcp__<server>__<tool>`` and ``mcp__<server>__*``, and
bare commands of the embedded server; each codec maps them to its own names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from agent_roster.codecs.claude.rules import tools_for_key
from agent_roster.codecs.permissions import RuleIndex, SourcedRule, effective_rules, wildcard_match
from agent_roster.codecs.tool_names import opencode_key, split_ref
from agent_roster.known_tools import (
    DEFAULT_EMBEDDED_COMMANDS,
    DEFAULT_EMBEDDED_SERVER,
    RETIRED_CLAUDE_TOOLS,
)
from agent_roster.model.profile import AgentProfile, PermissionAction

#: A permission key no rule names: only rules on every tool (``*``) match it, so its
#: decision is what a tool the profile never names gets.
_UNNAMED = "\x00roster-unnamed-tool"


class ToolVerdict(NamedTuple):
    """The tools one profile may have, as whole tools (canonical names, in profile order)."""

    #: The allowlist to write, or ``None`` when a tool nobody names stays available (then
    #: ``deny`` lists what to take away).
    allow: tuple[str, ...] | None
    #: Tools to deny (only with ``allow`` ``None``).
    deny: tuple[str, ...]
    #: Tools an explicit ``ask`` rule decides: written as available.
    asked: tuple[str, ...]
    #: Tools some of whose calls the rules deny, or allow only for some arguments: taken
    #: away whole (narrower than the profile).
    narrowed: tuple[str, ...]
    #: Why no list of whole tools can hold the profile without widening ("" when one can).
    problem: str


@lru_cache(maxsize=8192)  # pure, and profiles repeat the same names
def _key(name: str, embedded: str, commands: frozenset[str]) -> str:
    return opencode_key(name, embedded=embedded, commands=commands)


def readback_note(want: Sequence[str], got: Sequence[str]) -> str:
    """How a tool list import reads back differs from the profile's (for a loss)."""
    less = [t for t in want if t not in got]
    more = [t for t in got if t not in want]
    parts = [f"without {', '.join(less)}"] if less else []
    parts += [f"with {', '.join(more)}"] if more else []
    return "reads back " + (" and ".join(parts) if parts else "in another order")


def whole(name: str) -> str:
    """A canonical tool name without its argument pattern (``Bash(git log:*)`` → ``Bash``)."""
    ref = split_ref(name)
    return ref.tool if ref.argument is not None else name


def _key_tools(key: str, servers: Sequence[str]) -> list[str]:
    """The canonical tools a permission key stands for (``claude.rules.tools_for_key``,
    retired names left out where a current one remains)."""
    built_in = _built_in_key_tools(key)
    if built_in:
        return list(built_in)
    return tools_for_key(key, servers)


@lru_cache(maxsize=1024)  # pure, and profiles repeat the same keys
def _built_in_key_tools(key: str) -> tuple[str, ...]:
    names = tools_for_key(key, ())
    if any(split_ref(n).server is not None for n in names):
        return ()
    return tuple(n for n in names if n not in RETIRED_CLAUDE_TOOLS) or tuple(names)


def _overlaps(key: str, rule_key: str) -> bool:
    # A rule key reaches a tool key when it matches it, or (for a whole server, whose key
    # is the glob ``<server>_*``) when it names one of that server's tools.
    if wildcard_match(key, rule_key):
        return True
    return key.endswith("_*") and wildcard_match(rule_key, key)


def _partly_denied(rules: Sequence[SourcedRule], narrow: Sequence[int], key: str) -> bool:
    """Whether some call of the tool keyed ``key`` may be denied by an argument-level rule
    (``narrow``: their positions) that no later whole-tool rule overrides."""
    for index in narrow:
        rule = rules[index].rule
        if rule.action is not PermissionAction.DENY or not _overlaps(key, rule.permission):
            continue
        later = rules[index + 1 :]
        if not any(s.rule.pattern == "*" and wildcard_match(key, s.rule.permission) for s in later):
            return True
    if key.endswith("_*"):  # a whole server: denying one of its tools takes it away
        for index, sourced in enumerate(rules):
            rule = sourced.rule
            if (
                rule.action is PermissionAction.DENY
                and rule.permission != key
                and wildcard_match(rule.permission, key)
                and not any(
                    s.rule.pattern == "*" and wildcard_match(key, s.rule.permission)
                    for s in rules[index + 1 :]
                )
            ):
                return True
    return False


def _partly_allowed(rules: Sequence[SourcedRule], narrow: Sequence[int], key: str) -> bool:
    """Whether an argument-level rule lets some calls of a tool the rules deny through."""
    return any(
        rules[i].rule.action is not PermissionAction.DENY
        and _overlaps(key, rules[i].rule.permission)
        for i in narrow
    )


def _every_tool_by_argument(rules: Sequence[SourcedRule]) -> str:
    for index, sourced in enumerate(rules):
        rule = sourced.rule
        if rule.permission != "*" or rule.pattern == "*":
            continue
        if rule.action is not PermissionAction.DENY:
            continue
        later = rules[index + 1 :]
        if any(s.rule.permission == "*" and s.rule.pattern == "*" for s in later):
            continue
        return (
            f"the rule '*' {rule.pattern!r} → deny limits every tool by its arguments, which "
            "a list of whole tools cannot hold (short of giving the agent no tools at all)"
        )
    return ""


def named_tools(profile: AgentProfile) -> list[str]:
    """Every tool the profile names, whole, in its order: allowed and denied tools, then
    the tools its rules' keys stand for (``edit`` → Write, Edit, NotebookEdit)."""
    out: dict[str, None] = {}
    for name in (*profile.allowed_tools, *profile.denied_tools):
        out.setdefault(whole(name), None)
    for rule in profile.permission:
        if rule.permission != "*":
            for name in _key_tools(rule.permission, profile.mcp_servers):
                out.setdefault(name, None)
    return list(out)


def _siblings(names: Iterable[str], servers: Sequence[str]) -> list[str]:
    """The tools that share a permission key with one of ``names`` (denying NotebookRead
    denies the key ``read``, so Read too)."""
    out: dict[str, None] = {}
    for name in names:
        if split_ref(name).server is None:
            out.update(
                dict.fromkeys(_built_in_key_tools(_key(name, "", DEFAULT_EMBEDDED_COMMANDS)))
            )
    return list(out)


def whole_tools(
    profile: AgentProfile,
    *,
    embedded: str = DEFAULT_EMBEDDED_SERVER,
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    extra: Iterable[str] = (),
) -> ToolVerdict:
    """The whole tools ``profile``'s effective rules leave it (see the module docstring).
    ``permission_mode`` is folded as the canonical model folds it; a codec that writes the
    mode natively passes the profile without it. ``extra`` adds tools to consider (a
    mode's rules name ``edit``). Keys are those ``effective_rules`` gives (the embedded
    server's default commands), so ``commands`` only names tools, in each codec."""
    return _whole_tools(profile, embedded, commands, tuple(extra), fast=True)


def _whole_tools(
    profile: AgentProfile,
    embedded: str,
    commands: frozenset[str],
    extra: tuple[str, ...],
    *,
    fast: bool,
) -> ToolVerdict:
    named = named_tools(profile)
    # Tools ``extra`` adds and those that share a key with a named one are denied with it;
    # they are never listed as allowed unless named (an allowlist stays as narrow as the
    # profile wrote it).
    more = [*extra, *_siblings(named, profile.mcp_servers)]
    candidates = [*named, *(t for t in dict.fromkeys(more) if t not in named)]
    if (
        fast
        and not profile.permission
        and profile.permission_mode in ("", "plan")
        and not any(
            split_ref(t).argument is not None
            for t in (*profile.allowed_tools, *profile.denied_tools)
        )
    ):
        return _plain(profile, named, candidates, embedded, commands)
    rules = effective_rules(profile, embedded=embedded)
    problem = _every_tool_by_argument(rules)
    if problem:
        return ToolVerdict(None, (), (), (), problem)
    index = RuleIndex([r.rule for r in rules])
    narrow = [i for i, r in enumerate(rules) if r.rule.pattern != "*"]
    listing = index.decide(_UNNAMED)[0] is PermissionAction.DENY
    if not listing:
        keys = {_key(name, embedded, DEFAULT_EMBEDDED_COMMANDS) for name in candidates}
        for sourced in rules:
            rule = sourced.rule
            unlisted = rule.permission not in keys and rule.permission != "*"
            if (
                unlisted
                and rule.action is PermissionAction.DENY
                and not _key_tools(rule.permission, profile.mcp_servers)
            ):
                return ToolVerdict(
                    None,
                    (),
                    (),
                    (),
                    f"the rule {rule.permission!r} → deny names no tool roster can list "
                    "(a pattern, or an MCP server the profile does not use), so a list of "
                    "whole tools cannot deny what it covers",
                )
    available: list[str] = []
    unavailable: list[str] = []
    asked: list[str] = []
    narrowed: list[str] = []
    for name in candidates:
        key = _key(name, embedded, DEFAULT_EMBEDDED_COMMANDS)
        action, position = index.decide(key)
        if action is PermissionAction.DENY:
            unavailable.append(name)
            if _partly_allowed(rules, narrow, key):
                narrowed.append(name)
        elif _partly_denied(rules, narrow, key):
            unavailable.append(name)
            narrowed.append(name)
        else:
            available.append(name)
            explicit = position is not None and rules[position].source == "permission"
            if action is PermissionAction.ASK and explicit:
                asked.append(name)
    if listing:
        listed = tuple(t for t in available if t in named)
        return ToolVerdict(listed, (), tuple(asked), tuple(narrowed), "")
    return ToolVerdict(None, tuple(unavailable), tuple(asked), tuple(narrowed), "")


def _plain(
    profile: AgentProfile,
    named: Sequence[str],
    candidates: Sequence[str],
    embedded: str,
    commands: frozenset[str],
) -> ToolVerdict:
    """:func:`whole_tools` for a profile with whole-tool lists only (no rules, no argument
    patterns, no mode but ``plan``), without the rule index: its effective list is plan's
    ``edit: deny``, then ``'*': deny`` and one allow per allowed tool when it has an
    allowlist, then one deny per denied tool. So a tool is denied when a denied key matches
    it, else allowed when an allowed key does (with an allowlist) or plan does not deny it
    (without). Property-tested equal to the general reading."""
    # plan's rule (deny edit) comes before everything: only a profile without an
    # allowlist keeps it.
    lead = _Keys(["edit"] if profile.permission_mode == "plan" else [])
    denied = _Keys(_key(t, embedded, DEFAULT_EMBEDDED_COMMANDS) for t in profile.denied_tools)
    allowed = _Keys(_key(t, embedded, DEFAULT_EMBEDDED_COMMANDS) for t in profile.allowed_tools)
    listing = bool(profile.allowed_tools) or denied.match(_UNNAMED)
    available: list[str] = []
    unavailable: list[str] = []
    narrowed: list[str] = []
    for name in candidates:
        key = _key(name, embedded, DEFAULT_EMBEDDED_COMMANDS)
        if (not allowed.match(key) if listing else lead.match(key)) or denied.match(key):
            unavailable.append(name)
        elif key.endswith("_*") and any(k != key and wildcard_match(k, key) for k in denied.all):
            unavailable.append(name)
            narrowed.append(name)
        else:
            available.append(name)
    if listing:
        listed = tuple(t for t in available if t in named)
        return ToolVerdict(listed, (), (), tuple(narrowed), "")
    return ToolVerdict(None, tuple(unavailable), (), tuple(narrowed), "")


class _Keys:
    """Permission keys to match a tool's key against: a set for plain keys, the globs
    (``*``/``?``) tried one by one."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.all = list(keys)
        self.plain = {k for k in self.all if "*" not in k and "?" not in k and "\\" not in k}
        self.globs = [k for k in self.all if k not in self.plain]

    def match(self, key: str) -> bool:
        if key in self.plain and "\\" not in key:
            return True
        return any(wildcard_match(key, glob) for glob in self.globs) or (
            "\\" in key and any(wildcard_match(key, k) for k in self.plain)
        )
