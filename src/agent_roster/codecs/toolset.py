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
from typing import NamedTuple

from agent_roster.codecs.claude.rules import tools_for_key
from agent_roster.codecs.permissions import SourcedRule, effective_rules, evaluate, wildcard_match
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


def whole(name: str) -> str:
    """A canonical tool name without its argument pattern (``Bash(git log:*)`` → ``Bash``)."""
    ref = split_ref(name)
    return ref.tool if ref.argument is not None else name


def _key_tools(key: str, servers: Sequence[str]) -> list[str]:
    names = tools_for_key(key, servers)
    return [n for n in names if n not in RETIRED_CLAUDE_TOOLS] or names


def _overlaps(key: str, rule_key: str) -> bool:
    # A rule key reaches a tool key when it matches it, or (for a whole server, whose key
    # is the glob ``<server>_*``) when it names one of that server's tools.
    if wildcard_match(key, rule_key):
        return True
    return key.endswith("_*") and wildcard_match(rule_key, key)


def _partly_denied(rules: Sequence[SourcedRule], key: str) -> bool:
    """Whether some call of the tool keyed ``key`` may be denied by an argument-level rule
    that no later whole-tool rule overrides."""
    for index, sourced in enumerate(rules):
        rule = sourced.rule
        if rule.action is not PermissionAction.DENY or rule.pattern == "*":
            continue
        if not _overlaps(key, rule.permission):
            continue
        later = rules[index + 1 :]
        if not any(s.rule.pattern == "*" and wildcard_match(key, s.rule.permission) for s in later):
            return True
    return False


def _partly_allowed(rules: Sequence[SourcedRule], key: str) -> bool:
    """Whether an argument-level rule lets some calls of a tool the rules deny through."""
    return any(
        s.rule.action is not PermissionAction.DENY
        and s.rule.pattern != "*"
        and _overlaps(key, s.rule.permission)
        for s in rules
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
    out: list[str] = []
    for name in names:
        if split_ref(name).server is not None:
            continue
        for other in _key_tools(opencode_key(name), servers):
            if other not in out:
                out.append(other)
    return out


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
    mode's rules name ``edit``)."""
    rules = effective_rules(profile, embedded=embedded)
    problem = _every_tool_by_argument(rules)
    if problem:
        return ToolVerdict(None, (), (), (), problem)
    named = named_tools(profile)
    for name in extra:
        if name not in named:
            named.append(name)
    # Tools that share a key with a named one are denied with it; they are never listed
    # as allowed unless named (an allowlist stays as narrow as the profile wrote it).
    candidates = named + [t for t in _siblings(named, profile.mcp_servers) if t not in named]
    listing = evaluate(rules, _UNNAMED).action is PermissionAction.DENY
    available: list[str] = []
    unavailable: list[str] = []
    asked: list[str] = []
    narrowed: list[str] = []
    for name in candidates:
        key = opencode_key(name, embedded=embedded, commands=commands)
        decision = evaluate(rules, key)
        if decision.action is PermissionAction.DENY:
            unavailable.append(name)
            if _partly_allowed(rules, key):
                narrowed.append(name)
        elif _partly_denied(rules, key):
            unavailable.append(name)
            narrowed.append(name)
        else:
            available.append(name)
            explicit = decision.rule is not None and decision.rule.source == "permission"
            if decision.action is PermissionAction.ASK and explicit:
                asked.append(name)
    if listing:
        listed = tuple(t for t in available if t in named)
        return ToolVerdict(listed, (), tuple(asked), tuple(narrowed), "")
    return ToolVerdict(None, tuple(unavailable), tuple(asked), tuple(narrowed), "")
