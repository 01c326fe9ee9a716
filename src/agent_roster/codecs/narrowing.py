"""Rules decided by argument, made whole and stricter for a harness that cannot hold them.

Most harnesses decide a tool as a whole: an agent either has ``Bash`` or not, may be asked
about it or not. A profile may decide by argument (``Bash(git diff:*)`` allowed, ``Bash(rm
-rf:*)`` denied). Rendered as it is to such a harness, the agent would be let do more than
its profile says (issue 12 item 2), and the render check refuses it (``guard.py``). Before
refusing, the check tries this: every permission key the profile decides by argument gets
one decision for the whole tool, the strictest the profile gives any call of it (a call no
rule matches counts as ``ask``, the canonical model's default). The agent then does less
than its profile allows, never more; each key made whole is reported. Prompt text is not
used: it restricts nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from functools import lru_cache

import msgspec

from agent_roster.codecs.base import Probe
from agent_roster.codecs.permissions import effective_rules, evaluate, key_kind
from agent_roster.codecs.semantics import (
    ASK,
    canonical,
    sample_argument,
    strictest,
    tools_of_key,
    wider,
)
from agent_roster.codecs.tool_names import canonical_tools, native_names, split_ref
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

#: An argument no pattern a profile writes is expected to match: the call "anything else".
OTHER_ARGUMENT = "roster-narrowing-any-other-argument"


class Narrowed(msgspec.Struct, frozen=True, kw_only=True):
    """A permission key the profile decides by argument, and the one decision it gets."""

    key: str
    tools: tuple[str, ...]
    action: PermissionAction
    #: The decisions the profile gives calls of it (the witnesses' answers), strictest last.
    decisions: tuple[PermissionAction, ...]

    def text(self, title: str) -> str:
        said = "/".join(a.value for a in self.decisions)
        return (
            f"{', '.join(self.tools)}: {title} cannot decide them apart, so every call is "
            f"{self.action.value} (the profile says {said} by tool or argument; narrower, "
            "never wider)"
        )


def keys_by_argument(profile: AgentProfile, embedded: str = "") -> dict[str, list[str]]:
    """The built-in permission keys ``profile`` decides by argument, each with the
    patterns its rules use (glob keys and MCP tools left out: those take no narrowing)."""
    found: dict[str, list[str]] = {}
    for sourced in effective_rules(profile, embedded=embedded):
        rule = sourced.rule
        if rule.pattern == "*" or "*" in rule.permission or "?" in rule.permission:
            continue
        if not tools_of_key(rule.permission):
            continue  # an MCP tool or a key with no built-in tool
        found.setdefault(rule.permission, []).append(rule.pattern)
    return found


def keys_split_by_tool(
    profile: AgentProfile,
    embedded: str = "",
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    among: Set[str] | None = None,
) -> list[str]:
    """The permission keys (of ``among``, when given) whose tools the profile decides
    differently (``Edit`` denied, ``Write`` allowed, both under OpenCode's ``edit``): a
    harness that decides by key cannot hold that, so the key gets its tools' strictest
    decision."""
    keys = {s.rule.permission for s in effective_rules(profile, embedded=embedded) if s.tool}
    if among is not None:
        keys &= among
    found = []
    for key in sorted(keys):
        tools = _every_tool_of_key(key)
        if len(tools) < 2:
            continue
        whole = {_decision(profile, Probe(tool), embedded, commands) for tool in tools}
        if len(whole) > 1:
            found.append(key)
    return found


def keys_widened_whole(
    profile: AgentProfile,
    keys: Set[str],
    embedded: str = "",
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> set[str]:
    """Of ``keys``, the ones a harness that decides each key as one tool would decide more
    permissively than the profile decides one of its tools: the key's decision is its
    rules' with no regard to which tool a Tools-list entry named (``"allowed": ["Edit"]``
    allows OpenCode's whole ``edit``, so ``Write`` too). Exactly what the render check
    would find widened there, for keys the profile decides without arguments; a key with
    argument patterns is left to the check."""
    rules = effective_rules(profile, embedded=embedded)
    tagged = {s.rule.permission for s in rules if s.tool and s.rule.permission in keys}
    if not tagged or any(
        s.rule.pattern != "*"
        and (s.rule.permission in tagged or key_kind(s.rule.permission)[0] != "exact")
        for s in rules
    ):
        return set()
    found = set()
    for key in tagged:
        whole = evaluate(rules, key).action
        for tool in tools_of_key(key):
            want = canonical(
                profile, Probe(tool), embedded=embedded, commands=commands, rules=rules
            )
            if want.rule is not None and wider(whole, want.action):
                found.add(key)
                break
    return found


@lru_cache(maxsize=64)
def _every_tool_of_key(key: str) -> tuple[str, ...]:
    """Every canonical tool OpenCode decides under ``key``, the ones a render check does
    not probe on their own included (``MultiEdit`` is ``edit`` too)."""
    return tuple(
        tool
        for tool in canonical_tools()
        if any(native.name == key for native in native_names("opencode", tool))
    )


def narrow(
    profile: AgentProfile,
    *,
    embedded: str = "",
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    only: Set[str] | None = None,
) -> tuple[AgentProfile, tuple[Narrowed, ...]]:
    """``profile`` with every key it decides by tool or argument decided whole (module
    docstring; ``only``: just those keys, the ones a target could not hold), and what was
    made whole; ``profile`` itself when there is none."""
    keys = keys_by_argument(profile, embedded)
    # Only the keys asked about are decided tool by tool (a render narrows one key or two).
    split = keys_split_by_tool(profile, embedded, commands, among=only)
    keys.update({key: [] for key in split if key not in keys})
    if only is not None:
        keys = {key: patterns for key, patterns in keys.items() if key in only}
    return _decided_whole(profile, keys, embedded, commands)


def narrow_widened_whole(
    profile: AgentProfile,
    keys: Set[str],
    *,
    embedded: str = "",
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
) -> tuple[AgentProfile, tuple[Narrowed, ...]]:
    """:func:`narrow` with ``only=keys`` for keys :func:`keys_widened_whole` found: the
    same result without asking again what it already knows. Such a key has no rule by
    argument (keys_widened_whole returns nothing when one does), and its tools are decided
    apart: the key's own
    decision is its last rule's, which decides that rule's tool (or every tool, when it
    names none) the same, so a tool decided more strictly is decided differently."""
    return _decided_whole(profile, {key: [] for key in sorted(keys)}, embedded, commands)


def _decided_whole(
    profile: AgentProfile, keys: dict[str, list[str]], embedded: str, commands: frozenset[str]
) -> tuple[AgentProfile, tuple[Narrowed, ...]]:
    # ``profile`` with each of ``keys`` (with the patterns its rules use) decided whole.
    if not keys:
        return profile, ()
    made: list[Narrowed] = []
    for key, patterns in keys.items():
        tools = tools_of_key(key) if patterns else _every_tool_of_key(key)
        witnesses = [a for a in map(sample_argument, patterns) if a is not None]
        decisions = [
            _decision(profile, Probe(tool, argument), embedded, commands)
            for tool in tools
            for argument in (*witnesses, OTHER_ARGUMENT)
        ]
        ordered = tuple(sorted(set(decisions), key=_strictness))
        made.append(Narrowed(key=key, tools=tools, action=strictest(decisions), decisions=ordered))
    narrowed_keys = {n.key for n in made}
    narrowed_tools = {tool for n in made for tool in n.tools}

    def kept(names: Iterable[str]) -> tuple[str, ...]:
        return tuple(
            name
            for name in names
            if not (split_ref(name).argument is not None and split_ref(name).tool in narrowed_tools)
        )

    permission = [
        rule
        for rule in profile.permission
        if not (rule.permission in narrowed_keys and rule.pattern != "*")
    ]
    # Last among the permission rules: after the allowed tools, so it decides them; the
    # denied tools come after and only deny more.
    permission += [PermissionRule(permission=n.key, action=n.action) for n in made]
    result = msgspec.structs.replace(
        profile,
        allowed_tools=kept(profile.allowed_tools),
        denied_tools=kept(profile.denied_tools),
        permission=tuple(permission),
    )
    return result, tuple(made)


def _decision(
    profile: AgentProfile, probe: Probe, embedded: str, commands: frozenset[str]
) -> PermissionAction:
    found = canonical(profile, probe, embedded=embedded, commands=commands)
    return ASK if found.rule is None else found.action


def _strictness(action: PermissionAction) -> int:
    return {PermissionAction.ALLOW: 0, PermissionAction.ASK: 1, PermissionAction.DENY: 2}[action]


__all__ = [
    "Narrowed",
    "keys_by_argument",
    "keys_widened_whole",
    "narrow",
    "narrow_widened_whole",
]
