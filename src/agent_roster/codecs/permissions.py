"""Permission rules with OpenCode's semantics, the canonical model (docs/codecs/permissions.md).

Rules are ordered ``(permission, pattern, action)`` triples; both the permission key and the
pattern are wildcards; the *last* matching rule decides; no match means ``ask``. A profile's
effective list folds ``permission_mode``, ``allowed_tools`` and ``denied_tools`` around its
explicit rules in one fixed order (README D9), which is also the order OpenCode folds its own
deprecated ``tools`` map in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from agent_roster.codecs.tool_names import opencode_key, split_ref
from agent_roster.errors import UsageError
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

#: Keys whose OpenCode schema takes only an action, never a pattern map.
ACTION_ONLY_KEYS = frozenset({"question", "webfetch", "websearch", "doom_loop", "todowrite"})

#: ``permission_mode`` folded into rules placed before everything else (permissions.md §3.1).
MODE_RULES: dict[str, tuple[PermissionRule, ...]] = {
    "plan": (PermissionRule(permission="edit", action=PermissionAction.DENY),),
    "acceptEdits": (PermissionRule(permission="edit", action=PermissionAction.ALLOW),),
    "bypassPermissions": (PermissionRule(permission="*", action=PermissionAction.ALLOW),),
    "full": (PermissionRule(permission="*", action=PermissionAction.ALLOW),),
}


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str]:
    # OpenCode's Wildcard.match: "\" normalised to "/", "*" any run (including "/"), "?" one
    # character, everything else literal, a trailing " *" optional, anchored, dot-all.
    pattern = pattern.replace("\\", "/")
    optional_tail = pattern.endswith(" *")
    if optional_tail:
        pattern = pattern[:-2]
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    if optional_tail:
        body += "(?: .*)?"
    # \Z, not $: Python's $ also matches before a final newline, JavaScript's does not.
    return re.compile(f"^{body}\\Z", re.S)


def wildcard_match(text: str, pattern: str) -> bool:
    """Whether ``text`` matches the OpenCode wildcard ``pattern`` (case-sensitive)."""
    return _compile(pattern).match(text.replace("\\", "/")) is not None


def expand_home(pattern: str, home: str | None = None) -> str:
    """OpenCode expands ``~``, ``~/x``, ``$HOME`` and ``$HOME/x`` at the start of a pattern."""
    home = home if home is not None else os.path.expanduser("~")
    if pattern == "~" or pattern.startswith("~/"):
        return home + pattern[1:]
    if pattern.startswith("$HOME"):
        return home + pattern[5:]
    return pattern


class SourcedRule(NamedTuple):
    """A rule of the effective list and the profile field it came from."""

    rule: PermissionRule
    source: str  # "permission_mode", "allowed_tools", "permission", "denied_tools", "defaults"

    def text(self) -> str:
        r = self.rule
        return f"{r.permission} {r.pattern} {r.action.value}"


class Decision(NamedTuple):
    """The answer for one tool call: the action and the 0-based position of the deciding
    rule in the effective list (``None`` when no rule matched and the default ``ask``
    applies)."""

    action: PermissionAction
    position: int | None
    rule: SourcedRule | None


def evaluate(
    rules: Sequence[SourcedRule], permission: str, argument: str = "*", *, home: str | None = None
) -> Decision:
    """The last rule whose key matches ``permission`` and whose pattern matches ``argument``
    decides; without a match the answer is ``ask`` (OpenCode ``evaluate``)."""
    for index in range(len(rules) - 1, -1, -1):
        sourced = rules[index]
        rule = sourced.rule
        if wildcard_match(permission, rule.permission) and wildcard_match(
            argument, expand_home(rule.pattern, home)
        ):
            return Decision(rule.action, index, sourced)
    return Decision(PermissionAction.ASK, None, None)


@lru_cache(maxsize=8192)  # immutable, and profiles repeat the same tool names
def _tool_rule(name: str, action: PermissionAction, embedded: str, source: str) -> SourcedRule:
    ref = split_ref(name)
    key = opencode_key(name, embedded=embedded)
    return SourcedRule(
        PermissionRule(permission=key, pattern=ref.argument or "*", action=action), source
    )


@lru_cache(maxsize=64)
def _mode_rules(mode: str) -> tuple[SourcedRule, ...]:
    return tuple(SourcedRule(rule, "permission_mode") for rule in MODE_RULES.get(mode, ()))


_DENY_ALL = SourcedRule(
    PermissionRule(permission="*", action=PermissionAction.DENY), "allowed_tools"
)


def effective_rules(profile: AgentProfile, *, embedded: str = "") -> tuple[SourcedRule, ...]:
    """The profile's ordered rule list: ``permission_mode``'s rules, then ``allowed_tools``
    (``*`` deny, then each allowed tool), then the explicit ``permission`` rules, then each
    ``denied_tools`` entry as a deny (README D9)."""
    out: list[SourcedRule] = list(_mode_rules(profile.permission_mode))
    if profile.allowed_tools:
        out.append(_DENY_ALL)
        allow = PermissionAction.ALLOW
        out.extend(
            _tool_rule(name, allow, embedded, "allowed_tools") for name in profile.allowed_tools
        )
    out.extend(SourcedRule(rule, "permission") for rule in profile.permission)
    deny = PermissionAction.DENY
    out.extend(_tool_rule(name, deny, embedded, "denied_tools") for name in profile.denied_tools)
    return tuple(out)


def rules_from_config(value: Any, *, where: str = "permission") -> tuple[PermissionRule, ...]:
    """OpenCode's ``permission`` value (an action, or a map of key → action or pattern map)
    as ordered rules. Raises :class:`UsageError` naming ``where`` for a malformed value."""
    if isinstance(value, str):
        return (PermissionRule(permission="*", action=_action(value, where)),)
    if not isinstance(value, Mapping):
        raise UsageError(f"{where} must be an action or a mapping, not {type(value).__name__}")
    rules: list[PermissionRule] = []
    for key, item in value.items():
        if isinstance(item, str):
            rules.append(
                PermissionRule(permission=str(key), action=_action(item, f"{where}.{key}"))
            )
        elif isinstance(item, Mapping):
            for pattern, action in item.items():
                rules.append(
                    PermissionRule(
                        permission=str(key),
                        pattern=str(pattern),
                        action=_action(action, f"{where}.{key}.{pattern}"),
                    )
                )
        else:
            raise UsageError(f"{where}.{key} must be an action or a mapping of patterns")
    return tuple(rules)


def _action(value: object, where: str) -> PermissionAction:
    # A dict lookup: calling the enum costs more than the rest of reading a rule.
    found = _ACTIONS.get(str(value))
    if found is None:
        raise UsageError(f"{where}: {value!r} is not one of allow, ask, deny")
    return found


_ACTIONS = {action.value: action for action in PermissionAction}
#: Each action's plain string (``.value`` goes through the enum machinery each time).
_VALUES = {action: action.value for action in PermissionAction}


def rules_to_config(rules: Iterable[PermissionRule]) -> dict[str, Any]:
    """Ordered rules as an OpenCode ``permission`` map. A key written once with pattern
    ``*`` only becomes a bare action; otherwise a pattern map. Rules for one key are grouped
    at the key's first position, which keeps every decision because keys that are not globs
    never match each other's calls; a later duplicate pattern replaces the earlier value
    (JavaScript object semantics) and keeps its position."""
    grouped: dict[str, dict[str, str]] = {}
    for rule in rules:
        grouped.setdefault(rule.permission, {})[rule.pattern] = _VALUES[rule.action]
    out: dict[str, Any] = {}
    for key, patterns in grouped.items():
        if list(patterns) == ["*"] or (key in ACTION_ONLY_KEYS and "*" in patterns):
            out[key] = patterns["*"]
        else:
            out[key] = patterns
    return out


def key_decisions(rules: Sequence[SourcedRule], keys: Iterable[str]) -> dict[str, PermissionAction]:
    """The effective decision for each key with argument ``*`` (permissions.md §3)."""
    return {key: evaluate(rules, key).action for key in keys}


def has_argument_rules(rules: Iterable[PermissionRule]) -> bool:
    """Whether any rule narrows by argument (pattern other than ``*``)."""
    return any(rule.pattern != "*" for rule in rules)


def key_kind(key: str) -> tuple[str, str]:
    """How a rule key can be looked up: ``("exact", key)`` for a key without wildcards,
    ``("prefix", p)`` for ``p*`` with no other wildcard (``*`` is the prefix ``""``), else
    ``("glob", key)``. A trailing ``" *"`` is not a plain prefix (it also matches without
    the space), and ``\\`` is normalised by matching, so both stay globs."""
    if "\\" in key:
        return ("glob", key)
    if "*" not in key and "?" not in key:
        return ("exact", key)
    body = key[:-1]
    if key.endswith("*") and not key.endswith(" *") and "*" not in body and "?" not in body:
        return ("prefix", body)
    return ("glob", key)


class RuleIndex:
    """An ordered rule list indexed by key, so one decision costs the rules of that key
    plus the wildcard keys that can match it, not a pass over every rule. Codecs probe
    whole lists (hundreds of ``<server>_*`` keys per agent); :func:`evaluate` stays the
    plain reference and a property test keeps the two equal."""

    def __init__(self, rules: Sequence[PermissionRule]) -> None:
        self.exact: dict[str, list[tuple[int, PermissionRule]]] = {}
        self.prefix: dict[str, list[tuple[int, PermissionRule]]] = {}
        self.globs: list[tuple[int, PermissionRule]] = []
        for index, rule in enumerate(rules):
            kind, value = key_kind(rule.permission)
            if kind == "exact":
                self.exact.setdefault(value, []).append((index, rule))
            elif kind == "prefix":
                self.prefix.setdefault(value, []).append((index, rule))
            else:
                self.globs.append((index, rule))

    def candidates(self, permission: str) -> list[tuple[int, PermissionRule]]:
        """Every rule whose key matches ``permission``, in no particular order."""
        found: list[tuple[int, PermissionRule]] = []
        if "\\" in permission:  # normalisation could make any key match: no shortcuts
            everything = [*self.globs]
            for group in (*self.exact.values(), *self.prefix.values()):
                everything.extend(group)
            return [(i, r) for i, r in everything if wildcard_match(permission, r.permission)]
        found.extend(self.exact.get(permission, ()))
        prefix = self.prefix
        if prefix:
            for end in range(len(permission) + 1):
                matched = prefix.get(permission[:end])
                if matched:
                    found.extend(matched)
        found.extend((i, r) for i, r in self.globs if wildcard_match(permission, r.permission))
        return found

    def decide(
        self, permission: str, argument: str = "*", *, home: str | None = None
    ) -> tuple[PermissionAction, int | None]:
        """The same answer as :func:`evaluate`: the action and the deciding rule's index."""
        best: tuple[int, PermissionRule] | None = None
        for index, rule in self.candidates(permission):
            if best is not None and index < best[0]:
                continue
            if rule.pattern == "*" or wildcard_match(argument, expand_home(rule.pattern, home)):
                best = (index, rule)
        if best is None:
            return PermissionAction.ASK, None
        return best[1].action, best[0]
