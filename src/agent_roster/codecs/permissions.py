"""Permission rules with OpenCode's semantics, the canonical model (docs/codecs/permissions.md).

Rules are ordered ``(permission, pattern, action)`` triples; both the permission key and the
pattern are wildcards; the *last* matching rule decides; no match means ``ask``. A profile's
effective list folds ``permission_mode``, ``allowed_tools`` and ``denied_tools`` around its
explicit rules in one fixed order (README D9), which is also the order OpenCode folds its own
deprecated ``tools`` map in.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from functools import cache, lru_cache
from typing import Any, NamedTuple

from agent_roster.codecs.tool_names import canonical_tools, opencode_key, split_ref, to_native
from agent_roster.errors import UsageError
from agent_roster.known_tools import RETIRED_CLAUDE_TOOLS
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
    # The render check evaluates hundreds of thousands of rules (issue 12 item 8): most
    # patterns are "*" or a plain key, which need no regex.
    if pattern == "*":
        return True
    if "*" not in pattern and "?" not in pattern and "\\" not in pattern:
        return text.replace("\\", "/") == pattern
    return _compile(pattern).match(text.replace("\\", "/")) is not None


def _home_dependent(pattern: str) -> bool:
    # Whether expand_home would make ``pattern`` depend on the home folder.
    return pattern[:1] == "~" or pattern.startswith("$HOME")


#: Answers a memoizing RuleIndex keeps: a render asks a few calls per server, and a
#: daemon keeps a few such indexes (opencode/semantics._shared_index) from render to render.
_MEMO_KEPT = 16_384


def expand_home(pattern: str, home: str | None = None) -> str:
    """OpenCode expands ``~``, ``~/x``, ``$HOME`` and ``$HOME/x`` at the start of a pattern."""
    if pattern[:1] == "~":
        if pattern == "~" or pattern.startswith("~/"):
            return (home if home is not None else os.path.expanduser("~")) + pattern[1:]
    elif pattern.startswith("$HOME"):
        return (home if home is not None else os.path.expanduser("~")) + pattern[5:]
    return pattern


class SourcedRule(NamedTuple):
    """A rule of the effective list and the profile field it came from. ``tool`` is the
    canonical tool a Tools-list entry names when its key stands for several tools (``Edit``
    for key ``edit``, which ``Write`` shares): the entry allows or denies that tool only,
    which an evaluation for a named tool honours (:func:`evaluate` with ``tool``)."""

    rule: PermissionRule
    source: str  # "permission_mode", "allowed_tools", "permission", "denied_tools", "defaults"
    tool: str = ""

    def text(self) -> str:
        r = self.rule
        key = f"{r.permission} ({self.tool})" if self.tool else r.permission
        return f"{key} {r.pattern} {r.action.value}"


class Decision(NamedTuple):
    """The answer for one tool call: the action and the 0-based position of the deciding
    rule in the effective list (``None`` when no rule matched and the default ``ask``
    applies)."""

    action: PermissionAction
    position: int | None
    rule: SourcedRule | None


def evaluate(
    rules: Sequence[SourcedRule],
    permission: str,
    argument: str = "*",
    *,
    home: str | None = None,
    tool: str | None = None,
) -> Decision:
    """The last rule whose key matches ``permission`` and whose pattern matches ``argument``
    decides; without a match the answer is ``ask`` (OpenCode ``evaluate``). With ``tool``
    (the canonical tool called), a Tools-list rule written for another tool of the same key
    does not match: ``"allowed": ["Edit"]`` allows Edit, not Write."""
    named = ALIASES.get(tool, tool) if tool is not None else None
    # A key without wildcards matches only itself; telling so by a comparison and a lookup
    # keeps this loop cheap (render asks it tens of times per agent, issue 12 item 8).
    plain = "\\" not in permission
    kinds = _KINDS
    for index in range(len(rules) - 1, -1, -1):
        sourced = rules[index]
        if named is not None and sourced.tool and sourced.tool != named:
            continue
        rule = sourced.rule
        key = rule.permission
        if key != permission and key != "*":
            if plain and (kinds.get(key) or key_kind(key))[0] == "exact":
                continue
            if not wildcard_match(permission, key):
                continue
        pattern = rule.pattern
        if pattern == "*" or wildcard_match(argument, expand_home(pattern, home)):
            return Decision(rule.action, index, sourced)
    return Decision(PermissionAction.ASK, None, None)


class _ListIndex:
    """One effective rule list split by key kind, so a call looks at the rules of its own
    key and the wildcard ones only: a profile's list is asked about by the codec, the
    render check and the narrowing, a few dozen calls each, and most calls match no rule
    but a catch-all."""

    __slots__ = ("decisions", "exact", "order", "rules", "wild")

    def __init__(self, rules: tuple[SourcedRule, ...]) -> None:
        self.rules = rules
        self.exact: dict[str, list[int]] = {}
        wild: list[int] = []
        for index, sourced in enumerate(rules):
            key = sourced.rule.permission
            if (_KINDS.get(key) or key_kind(key))[0] == "exact":
                self.exact.setdefault(key, []).append(index)
            else:
                wild.append(index)
        #: The wildcard rules, last first: the candidates of a key no exact rule names.
        self.wild = tuple(reversed(wild))
        #: Each key's candidates last first, its own rules among the wildcard ones (made
        #: when the key is first asked about: the codec and the check ask the same keys).
        self.order: dict[str, tuple[int, ...]] = {}
        #: The answer each rule gives, made once: a few rules decide dozens of calls.
        self.decisions: list[Decision | None] = [None] * len(rules)

    def evaluate(self, permission: str, argument: str, tool: str | None) -> Decision:
        indexes = self.order.get(permission)
        if indexes is None:
            own = self.exact.get(permission)
            indexes = tuple(sorted((*own, *self.wild), reverse=True)) if own else self.wild
            if own:
                self.order[permission] = indexes
        named = ALIASES.get(tool, tool) if tool is not None else None
        rules = self.rules
        for index in indexes:
            sourced = rules[index]
            if named is not None and sourced.tool and sourced.tool != named:
                continue
            rule = sourced.rule
            key = rule.permission
            if key != permission and key != "*" and not wildcard_match(permission, key):
                continue
            pattern = rule.pattern
            if pattern == "*" or wildcard_match(argument, expand_home(pattern)):
                found = self.decisions[index]
                if found is None:
                    found = self.decisions[index] = Decision(rule.action, index, sourced)
                return found
        return _NO_RULE


#: The answer when no rule matches: the default, ``ask``.
_NO_RULE = Decision(PermissionAction.ASK, None, None)


def evaluate_indexed(
    rules: Sequence[SourcedRule], permission: str, argument: str = "*", *, tool: str | None = None
) -> Decision:
    """:func:`evaluate` (the user's home from the environment), through an index of
    ``rules`` kept while :func:`remembering_rules` is active (for a tuple: a list could
    change under its index); a property test holds the two equal."""
    index = _index_of(rules)
    if index is None or "\\" in permission:
        # A key with "\\" is matched by its normalised text: any rule key may match it.
        return evaluate(rules, permission, argument, tool=tool)
    return index.evaluate(permission, argument, tool)


def evaluator(rules: Sequence[SourcedRule]) -> Callable[[str], Decision]:
    """:func:`evaluate_indexed` of ``rules`` for a key (argument ``*``) as one function, the
    index looked up once: for a caller asking key after key until it knows enough."""
    index = _index_of(rules)
    if index is None:
        return lambda key: evaluate(rules, key)
    ask = index.evaluate
    return lambda key: evaluate(rules, key) if "\\" in key else ask(key, "*", None)


def _index_of(rules: Sequence[SourcedRule]) -> _ListIndex | None:
    # The index of ``rules`` kept while remembering_rules is active (None otherwise, or
    # for a list, which could change under its index).
    kept = _INDEXED.get()
    if kept is None or type(rules) is not tuple:
        return None
    found = kept.get(id(rules))
    if found is None or found[0] is not rules:
        found = kept[id(rules)] = (rules, _ListIndex(rules))
    return found[1]


def evaluate_each(
    rules: Sequence[SourcedRule], calls: Iterable[tuple[str, str, str | None]]
) -> list[Decision]:
    """:func:`evaluate_indexed` of each ``(permission, argument, tool)`` call, the index
    looked up once: render asks a profile's list about twenty tools, and its check about
    as many calls (issue 12 item 8)."""
    indexed = _index_of(rules)
    if indexed is None:
        return [evaluate(rules, key, argument, tool=tool) for key, argument, tool in calls]
    index = indexed.evaluate
    return [
        evaluate(rules, key, argument, tool=tool) if "\\" in key else index(key, argument, tool)
        for key, argument, tool in calls
    ]


@cache
def key_tools() -> dict[str, tuple[str, ...]]:
    """OpenCode keys that stand for several distinct canonical tools, with those tools
    (``edit``: Write, Edit); :data:`ALIASES` and :data:`SECONDARY` tools are not counted,
    so ``task`` and ``read`` are not among them."""
    found: dict[str, list[str]] = {}
    for tool in canonical_tools():
        native = to_native("opencode", tool)
        if native is not None and tool not in ALIASES and tool not in SECONDARY:
            found.setdefault(native.name, []).append(tool)
    return {key: tuple(tools) for key, tools in found.items() if len(tools) > 1}


#: Canonical names of one tool: Claude Code's ``Agent`` is ``Task`` renamed.
ALIASES: dict[str, str] = {"Agent": "Task"}
#: Tools that never decide a shared key on their own (``can edit``, render probes): Claude
#: Code retired ``MultiEdit``, ``NotebookRead`` and the rest of RETIRED_CLAUDE_TOOLS, and
#: every other harness edits a notebook with its edit tool (while ``Write`` can rewrite
#: one anyway). Each is still decided for itself when named.
SECONDARY: frozenset[str] = frozenset({"NotebookEdit", *RETIRED_CLAUDE_TOOLS})


def tool_of(name: str) -> str:
    """The canonical tool a Tools-list entry stands for when its OpenCode key is shared
    with other tools (``Edit``; ``Bash(git log:*)`` → ``""`` as ``bash`` is not shared),
    else ``""``."""
    ref = split_ref(name)
    if ref.server is not None:
        return ""
    tool = ALIASES.get(ref.tool, ref.tool)
    native = to_native("opencode", tool)
    if native is None:
        return ""
    return tool if native.name in key_tools() else ""


def evaluate_key(
    rules: Sequence[SourcedRule], key: str, argument: str = "*", *, home: str | None = None
) -> Decision:
    """The decision for a whole OpenCode key: for a key several canonical tools share, the
    strictest of theirs (OpenCode's ``edit`` permission governs Write as well as Edit)."""
    tools = key_tools().get(key)
    if not tools:
        return evaluate(rules, key, argument, home=home)
    order = {PermissionAction.ALLOW: 0, PermissionAction.ASK: 1, PermissionAction.DENY: 2}
    found = [evaluate(rules, key, argument, home=home, tool=tool) for tool in tools]
    return max(found, key=lambda d: (order[d.action], d.rule is not None))


@lru_cache(maxsize=8192)  # immutable, and profiles repeat the same tool names
def _tool_rule(name: str, action: PermissionAction, embedded: str, source: str) -> SourcedRule:
    ref = split_ref(name)
    key = opencode_key(name, embedded=embedded)
    return SourcedRule(
        PermissionRule(permission=key, pattern=ref.argument or "*", action=action),
        source,
        tool_of(name),
    )


@lru_cache(maxsize=8192)  # immutable, and profiles repeat the same rules
def _permission_rule(rule: PermissionRule) -> SourcedRule:
    """A ``permission`` rule as evaluated: a key that is a canonical tool's name (``Edit``,
    ``Bash``; import writes these for harnesses that decide per tool) stands for that tool
    under its OpenCode key, for that tool alone where the key is shared (``Edit`` is not
    ``Write``). Any other key is an OpenCode key or glob, as written."""
    tool = ALIASES.get(rule.permission, rule.permission)
    if tool[:1].isupper() and tool in _canonical_names():
        native = to_native("opencode", tool)
        if native is not None:
            found = PermissionRule(permission=native.name, pattern=rule.pattern, action=rule.action)
            return SourcedRule(found, "permission", tool_of(tool))
    return SourcedRule(rule, "permission")


@cache
def _canonical_names() -> frozenset[str]:
    return frozenset(canonical_tools())


@lru_cache(maxsize=64)
def _mode_rules(mode: str) -> tuple[SourcedRule, ...]:
    return tuple(SourcedRule(rule, "permission_mode") for rule in MODE_RULES.get(mode, ()))


_DENY_ALL = SourcedRule(
    PermissionRule(permission="*", action=PermissionAction.DENY), "allowed_tools"
)


#: Effective rule lists kept while :func:`remembering_rules` is active, by profile identity.
_REMEMBERED: ContextVar[dict[tuple[int, str], tuple[AgentProfile, tuple[SourcedRule, ...]]] | None]
_REMEMBERED = ContextVar("roster_effective_rules", default=None)
#: Rule lists indexed for :func:`evaluate_indexed` while :func:`remembering_rules` is
#: active, by list identity (the list kept beside its index).
_INDEXED: ContextVar[dict[int, tuple[tuple[SourcedRule, ...], _ListIndex]] | None]
_INDEXED = ContextVar("roster_indexed_rules", default=None)


@contextlib.contextmanager
def remembering_rules() -> Iterator[None]:
    """Within this block, each profile's effective rules are worked out once: a render asks
    for them a dozen times per profile (its codec, the check's probes and answers, the
    narrowing), and a profile does not change while it is rendered (it is immutable)."""
    token = _REMEMBERED.set({})
    indexed = _INDEXED.set({})
    try:
        yield
    finally:
        _INDEXED.reset(indexed)
        _REMEMBERED.reset(token)


def forget_rules() -> None:
    """Empty the memos of :func:`remembering_rules` (the block stays open): for a caller
    done with every profile it has rendered so far."""
    for memo in (_REMEMBERED.get(), _INDEXED.get()):
        if memo is not None:
            memo.clear()


def effective_rules(profile: AgentProfile, *, embedded: str = "") -> tuple[SourcedRule, ...]:
    """The profile's ordered rule list: ``permission_mode``'s rules, then ``allowed_tools``
    (``*`` deny, then each allowed tool; an exact empty list is ``*`` deny alone), then the
    explicit ``permission`` rules, then each ``denied_tools`` entry as a deny (README D9)."""
    remembered = _REMEMBERED.get()
    if remembered is None:
        return _effective_rules(profile, embedded)
    # Keyed by identity while the block holds the profile, so the key cannot be reused.
    key = (id(profile), embedded)
    kept = remembered.get(key)
    if kept is not None and kept[0] is profile:
        return kept[1]
    found = _effective_rules(profile, embedded)
    remembered[key] = (profile, found)
    return found


def unremembered_rules(profile: AgentProfile, *, embedded: str = "") -> tuple[SourcedRule, ...]:
    """:func:`effective_rules` worked out afresh, outside :func:`remembering_rules`' memo:
    for a profile made to answer a few questions (an agent file read back by the render
    check), which the memo would keep, prompt and all, until the render ends."""
    return _effective_rules(profile, embedded)


def _effective_rules(profile: AgentProfile, embedded: str) -> tuple[SourcedRule, ...]:
    out: list[SourcedRule] = list(_mode_rules(profile.permission_mode))
    if profile.allowed_tools or profile.tools_exact:
        out.append(_DENY_ALL)
        allow = PermissionAction.ALLOW
        out.extend(
            _tool_rule(name, allow, embedded, "allowed_tools") for name in profile.allowed_tools
        )
    out.extend(_permission_rule(rule) for rule in profile.permission)
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
    made = _RULES
    for key, item in value.items():
        if isinstance(item, str):
            # A rendered agent repeats the same few hundred ``<server>_*: deny`` rules: each
            # (key, action) is made once (rules are immutable) and the message naming a
            # bad value only when there is one.
            rule = made.get((key, item))
            if rule is None:
                rule = PermissionRule(permission=str(key), action=_action(item, f"{where}.{key}"))
                if len(made) < _RULES_KEPT:
                    made[(key, item)] = rule
            rules.append(rule)
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


#: Rules made by :func:`rules_from_config`, by (key, action text); bounded, as a hostile
#: file could name any number of keys.
_RULES: dict[tuple[object, str], PermissionRule] = {}
_RULES_KEPT = 65_536


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
    # Indexes are built per rendered agent, and the agents of one render share most keys.
    found = _KINDS.get(key)
    if found is None:
        found = _key_kind(key)
        if len(_KINDS) < _KINDS_KEPT:
            _KINDS[key] = found
    return found


#: :func:`key_kind` of the keys seen so far; bounded, as a hostile file could name any
#: number of keys.
_KINDS: dict[str, tuple[str, str]] = {}
_KINDS_KEPT = 65_536


def _key_kind(key: str) -> tuple[str, str]:
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

    def __init__(self, rules: Sequence[PermissionRule], *, memo: bool = False) -> None:
        """``memo``: keep each answer, for an index asked the same calls over and over (the
        rules every agent of a render shares); not when a pattern depends on the home
        folder, which the environment could change between two calls."""
        self.memo: dict[tuple[str, str, str | None], tuple[PermissionAction, int | None]] | None
        self.memo = None
        if memo and not any(_home_dependent(rule.pattern) for rule in rules):
            self.memo = {}
        self.exact: dict[str, list[tuple[int, PermissionRule]]] = {}
        self.prefix: dict[str, list[tuple[int, PermissionRule]]] = {}
        self.globs: list[tuple[int, PermissionRule]] = []
        kinds = _KINDS
        for index, rule in enumerate(rules):
            key = rule.permission
            kind, value = kinds.get(key) or key_kind(key)
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
        memo = self.memo
        if memo is None:
            return self._decide(permission, argument, home)
        call = (permission, argument, home)
        found = memo.get(call)
        if found is None:
            found = self._decide(permission, argument, home)
            if len(memo) < _MEMO_KEPT:  # bounded: the calls come from the files read
                memo[call] = found
        return found

    def _decide(
        self, permission: str, argument: str, home: str | None
    ) -> tuple[PermissionAction, int | None]:
        best: tuple[int, PermissionRule] | None = None
        for index, rule in self.candidates(permission):
            if best is not None and index < best[0]:
                continue
            if rule.pattern == "*" or wildcard_match(argument, expand_home(rule.pattern, home)):
                best = (index, rule)
        if best is None:
            return PermissionAction.ASK, None
        return best[1].action, best[0]
