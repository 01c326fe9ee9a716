"""What OpenCode decides for an agent's tool call (docs/codecs/permissions.md §1).

The agent's rules are OpenCode's built-in defaults, then the ``permission`` of the config
files (global ``~/.config/opencode/opencode.json[c]``, then the project's
``opencode.json[c]``, merged as OpenCode merges config layers), then the agent's own
``permission`` (its deprecated ``tools`` map folded in first); the last matching rule
decides and no match asks. A tool OpenCode does not have is denied: the agent cannot call
it. MCP tools are ``<server>_<tool>`` keys.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe, Scope
from agent_roster.codecs.native_md import Tailed, expanded, read_written
from agent_roster.codecs.opencode.flavor import KILO, OPENCODE, Flavor
from agent_roster.codecs.opencode.js import JsoncError, load_jsonc, merge_deep
from agent_roster.codecs.opencode.read import RECOVERY
from agent_roster.codecs.opencode.schema import agent_permission, check_agent, permission_map
from agent_roster.codecs.opencode.scoping import ScopingTail
from agent_roster.codecs.permissions import (
    RuleIndex,
    expand_home,
    key_kind,
    rules_from_config,
    wildcard_match,
)
from agent_roster.codecs.semantics import DENY, agent_text, remembered
from agent_roster.codecs.tool_names import opencode_mcp_key, split_ref, to_native
from agent_roster.errors import UsageError
from agent_roster.model.profile import PermissionAction, PermissionRule

_A, _S, _D = PermissionAction.ALLOW, PermissionAction.ASK, PermissionAction.DENY
#: OpenCode's built-in rules for a user-defined agent, before every config layer
#: (``packages/opencode/src/agent/agent.ts``; ``read`` of ``.env`` files asks in 1.18.33).
DEFAULTS: tuple[PermissionRule, ...] = tuple(
    PermissionRule(permission=key, pattern=pattern, action=action)
    for key, pattern, action in (
        ("*", "*", _A),
        ("doom_loop", "*", _S),
        ("external_directory", "*", _S),
        ("question", "*", _D),
        ("plan_enter", "*", _D),
        ("plan_exit", "*", _D),
        ("read", "*", _A),
        ("read", "*.env", _S),
        ("read", "*.env.*", _S),
        ("read", "*.env.example", _A),
    )
)
#: The config files whose ``permission`` applies to every agent, per scope, in the order
#: OpenCode merges them (later wins a key, keeping its first position).
CONFIG_FILES = {
    Scope.PROJECT: ("opencode.json", "opencode.jsonc", ".opencode/opencode.json"),
    Scope.USER: (
        ".config/opencode/config.json",
        ".config/opencode/opencode.json",
        ".config/opencode/opencode.jsonc",
    ),
}
#: Kilo's, in the order of ``flavor._kilo_layers`` (checked with ``kilo debug config``).
KILO_CONFIG_FILES = {
    Scope.PROJECT: (
        "kilo.json",
        "kilo.jsonc",
        "opencode.json",
        "opencode.jsonc",
        *(f"{d}/{n}" for d in (".kilocode", ".kilo") for n in ("kilo.jsonc", "kilo.json")),
        *(f"{d}/{n}" for d in (".kilocode", ".kilo") for n in ("opencode.jsonc", "opencode.json")),
    ),
    Scope.USER: tuple(
        f".config/kilo/{n}"
        for n in ("config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc")
    ),
}


def config_files(flavor: Flavor, scope: Scope) -> tuple[str, ...]:
    """The config files whose ``permission`` applies to an agent of ``scope``."""
    return (KILO_CONFIG_FILES if flavor is KILO else CONFIG_FILES)[scope]


@lru_cache(maxsize=64)
def _config_layer(text: str) -> dict[str, Any] | None:
    # A render check asks a dozen probes of every agent against the same config file
    # (which holds the whole mcp block): parsed once per content, not once per probe.
    try:
        value, _ = load_jsonc(text)
    except JsoncError:
        return None  # OpenCode refuses the whole configuration: nothing runs at all
    if isinstance(value, dict) and "permission" in value:
        return permission_map(value["permission"])
    return None


def agent_rules(agent: NativeAgent, flavor: Flavor = OPENCODE) -> tuple[PermissionRule, ...] | None:
    """The agent file's own rules (``tools`` folded in), or ``None`` when the harness would
    not load it."""
    layer = agent_layer(agent, flavor)
    if layer is None:
        return None
    try:
        return rules_from_config(layer.whole())
    except UsageError:
        return None


def agent_layer(agent: NativeAgent, flavor: Flavor = OPENCODE) -> AgentLayer | None:
    """The agent file's own permission map (``tools`` folded in), ready to decide calls,
    or ``None`` when the harness would not load it."""
    return remembered(agent, flavor.codec + " layer", lambda: _layer_of(agent, flavor))


def _layer_of(agent: NativeAgent, flavor: Flavor) -> AgentLayer | None:
    text = agent_text(agent)
    if text is None:
        return None
    # With a memo each text is read once: the uncached reader, which need not hash it.
    read = _agent_layer if agent.memo is None else _read_layer
    return read(text, agent.paths[0] if agent.paths else "", flavor.codec)


class AgentLayer:
    """One agent's ``permission`` map as OpenCode reads it (JavaScript key order), deciding
    a call straight from the map: the keys that can match it are looked up (the key itself,
    each ``<prefix>*`` of it, the few other wildcard keys), never a pass over every rule. A
    rendered agent holds a scoping deny for every other server, hundreds of keys, and a
    render check asks a dozen calls of each agent, once."""

    __slots__ = ("ends", "globs", "permission", "rules", "tail")

    def __init__(self, permission: dict[str, Any], tail: ScopingTail | None = None) -> None:
        #: The map, or with ``tail`` the part of it before the scoping denies that end it.
        self.permission = permission
        self.tail = tail
        #: Where a ``<prefix>*`` key could end a called key's prefix: one less than each
        #: length the map's keys have (worked out at the first call).
        self.ends: list[int] | None = None
        # The keys one per line, sorted by a regex at C speed: most keys of a rendered
        # agent's map are "<server>_*" prefixes, which need no list of their own.
        joined = "\n".join(permission)
        self.rules: RuleIndex | None = None
        self.globs: tuple[str, ...] = ()
        if "\\" in joined or joined.count("\n") != max(len(permission) - 1, 0):
            # A key with "\\" matches by normalised text, one with a line break would not
            # be one line: such a (hand-written) map is decided rule by rule.
            self.rules = RuleIndex(rules_from_config(self.whole()))
        else:
            self.globs = _globs(joined)

    def whole(self) -> dict[str, Any]:
        """The agent's whole permission map, scoping denies included."""
        if self.tail is None:
            return self.permission
        return {**self.permission, **self.tail.entries()}

    def decide(self, key: str, argument: str) -> PermissionAction | None:
        """The action of the last of the map's rules matching the call, or ``None`` when
        none does (the config layers and defaults decide)."""
        if self.rules is not None or "\\" in key:
            index = self.rules or RuleIndex(rules_from_config(self.whole()))
            action, position = index.decide(key, argument)
            return None if position is None else action
        if self.tail is not None and self.tail.denies(key):
            return _ACTIONS["deny"]  # the map's last rules: the last match is one of them
        permission = self.permission
        found = [key] if key in permission and key_kind(key)[0] == "exact" else []
        ends = self.ends
        if ends is None:
            # The few lengths a map's keys have (a C-speed pass), so a call tries the
            # prefixes of those lengths, not one per character of its key.
            ends = self.ends = sorted(size - 1 for size in set(map(len, permission)) if size)
        for end in ends:
            if end > len(key):
                break
            prefix = key[:end] + "*"
            if prefix in permission and key_kind(prefix) == ("prefix", key[:end]):
                found.append(prefix)
        found.extend(glob for glob in self.globs if wildcard_match(key, glob))
        if len(found) > 1:
            found = self._in_map_order(found)
        for candidate in reversed(found):
            value = permission[candidate]
            if isinstance(value, str):
                return _ACTIONS[value]  # a bare action: pattern "*"
            for pattern, action in reversed(value.items()):
                if pattern == "*" or wildcard_match(argument, expand_home(pattern)):
                    return _ACTIONS[action]
        return None

    def _in_map_order(self, keys: list[str]) -> list[str]:
        # The map's own order, found by walking it until every key is met: the keys a call
        # matches are its own and a few wildcards, which come first in a rendered map, so
        # the walk stops long before the hundreds of scoping denies that end it (an index
        # of every key's position, built per agent, cost more than all its lookups).
        wanted = set(keys)
        ordered = []
        for key in self.permission:
            if key in wanted:
                ordered.append(key)
                if len(ordered) == len(wanted):
                    break
        return ordered


_ACTIONS = {action.value: action for action in PermissionAction}
#: What makes a key a glob for :func:`key_kind` (no "\\" here): a "?", a "*" before the
#: key's end, or a trailing " *".
_GLOB_MARK = re.compile(r"\?|\*(?!\n|\Z)| \*(?=\n|\Z)")


def _globs(joined: str) -> tuple[str, ...]:
    # The glob keys among ``joined`` (one key per line), in order. Rendered maps have none
    # or a few, so the search finds the lines rather than testing each key, and a few
    # substring counts settle the usual case: every "*" ends a key, none after a space.
    if (
        "?" not in joined
        and joined.count("*") == joined.count("*\n") + joined.endswith("*")
        and " *\n" not in joined
        and not joined.endswith(" *")
    ):
        return ()
    found: dict[str, None] = {}
    for mark in _GLOB_MARK.finditer(joined):
        start = joined.rfind("\n", 0, mark.start()) + 1
        end = joined.find("\n", mark.start())
        found[joined[start : end if end >= 0 else len(joined)]] = None
    return tuple(found)


def _read_layer(text: str, path: str, codec: str) -> AgentLayer | None:
    # By the flavor's name: a Flavor holds a mapping, which is not hashable.
    flavor = KILO if codec == KILO.codec else OPENCODE
    recovery = RECOVERY if flavor is OPENCODE else RECOVERY._replace(harness=flavor.label)
    doc = read_written(text, path, [], recovery, tailed=True)
    if doc is None:
        # Kilo loads such a file as an agent with no settings: only the defaults decide.
        return AgentLayer({}) if flavor.unparsed_is_prompt else None
    # Only the permission map is read with its tail; anything else is taken whole.
    entry = {k: v if k == "permission" else expanded(v) for k, v in doc.data.items()}
    tail = None
    permission = entry.get("permission")
    if type(permission) is Tailed:
        # A map this render wrote: its head, then the scoping denies, which are decided
        # from the tail they were written from (valid keys and actions, the map's last,
        # none of them a key of the head) unless a tools map folded in first could move
        # one of them up, or a key is one only the whole map decides.
        source = permission.source
        if (
            type(source) is ScopingTail
            and source.block.prefixes is not None
            and not entry.get("tools")
        ):
            entry["permission"], tail = permission.head, source
        else:
            entry["permission"] = expanded(permission)
    if check_agent(entry, flavor.extra_keys) or entry.get("disable") is True:
        return None
    # check_agent passed: every value is an action or a map of patterns to actions.
    return AgentLayer(agent_permission(entry), tail)


_agent_layer = lru_cache(maxsize=1024)(_read_layer)


def key_of(probe: Probe) -> str | None:
    """The OpenCode permission key of the probed tool, or ``None`` when OpenCode has no
    such tool."""
    return _call_of(probe.tool)[0]


@lru_cache(maxsize=8192)
def _call_of(tool: str) -> tuple[str | None, bool]:
    # The key of a tool, and whether it is an MCP tool (called with no argument). A render
    # check asks the same few tools of every agent, and one tool per server it uses.
    ref = split_ref(tool)
    if ref.server is not None:
        return opencode_mcp_key(ref.server, ref.mcp_tool or "*"), True
    native = to_native("opencode", ref.tool)
    return (native.name if native is not None else None), False


def decide(agent: NativeAgent, probe: Probe, flavor: Flavor = OPENCODE) -> PermissionAction:
    """The decision of OpenCode (or its fork ``flavor``) for ``probe`` made by ``agent``."""
    layer = agent_layer(agent, flavor)
    if layer is None:
        return DENY
    key, mcp = _call_of(probe.tool)
    if key is None:
        return DENY
    argument = "*" if mcp else probe.argument
    # The last matching rule of defaults, config layers and the agent's own decides: the
    # agent's own when one matches, else those every agent shares (indexed once).
    own = layer.decide(key, argument)
    if own is not None:
        return own
    return _config_index(agent, flavor).decide(key, argument)[0]


def _config_index(agent: NativeAgent, flavor: Flavor) -> RuleIndex:
    # The rules every agent of the scope shares (defaults and config layers), indexed once
    # per content of the config files.
    def read() -> RuleIndex:
        texts = tuple(agent.read(path) for path in config_files(flavor, agent.scope))
        return _shared_index(_layered(texts))

    return remembered(agent, flavor.codec + " config", read)


@lru_cache(maxsize=64)
def _layered(texts: tuple[str | None, ...]) -> tuple[PermissionRule, ...]:
    merged: dict[str, Any] = {}
    for text in texts:
        layer = _config_layer(text) if text is not None else None
        if layer is not None:
            merged = merge_deep(merged, layer)
    try:
        return rules_from_config(merged) if merged else ()
    except UsageError:
        return ()


@lru_cache(maxsize=64)
def _shared_index(layered: tuple[PermissionRule, ...]) -> RuleIndex:
    # OpenCode's defaults and the config layers: the same for every agent of a render,
    # asked the same few calls for each (the fixed probes, each server's tool).
    return RuleIndex((*DEFAULTS, *layered), memo=True)
