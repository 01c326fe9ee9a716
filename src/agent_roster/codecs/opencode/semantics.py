"""What OpenCode decides for an agent's tool call (docs/codecs/permissions.md §1).

The agent's rules are OpenCode's built-in defaults, then the ``permission`` of the config
files (global ``~/.config/opencode/opencode.json[c]``, then the project's
``opencode.json[c]``, merged as OpenCode merges config layers), then the agent's own
``permission`` (its deprecated ``tools`` map folded in first); the last matching rule
decides and no match asks. A tool OpenCode does not have is denied: the agent cannot call
it. MCP tools are ``<server>_<tool>`` keys.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe, Scope
from agent_roster.codecs.native_md import read_native_recovering
from agent_roster.codecs.opencode.flavor import KILO, OPENCODE, Flavor
from agent_roster.codecs.opencode.js import JsoncError, load_jsonc, merge_deep
from agent_roster.codecs.opencode.read import RECOVERY
from agent_roster.codecs.opencode.schema import check_agent, normalize, permission_map
from agent_roster.codecs.permissions import RuleIndex, rules_from_config
from agent_roster.codecs.semantics import DENY, agent_text
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
    text = agent_text(agent)
    if text is None:
        return None
    return _agent_rules(text, agent.paths[0] if agent.paths else "", flavor.codec)


@lru_cache(maxsize=1024)
def _agent_rules(text: str, path: str, codec: str) -> tuple[PermissionRule, ...] | None:
    # Keyed by the flavor's name: a Flavor holds a mapping, which is not hashable.
    flavor = KILO if codec == KILO.codec else OPENCODE
    recovery = RECOVERY if flavor is OPENCODE else RECOVERY._replace(harness=flavor.label)
    doc = read_native_recovering(text, path, [], recovery)
    if doc is None:
        # Kilo loads such a file as an agent with no settings: only the defaults decide.
        return () if flavor.unparsed_is_prompt else None
    entry = dict(doc.data)
    if check_agent(entry, flavor.extra_keys) or entry.get("disable") is True:
        return None
    try:
        return rules_from_config(normalize(entry, flavor.extra_keys).get("permission") or {})
    except UsageError:
        return None


def key_of(probe: Probe) -> str | None:
    """The OpenCode permission key of the probed tool, or ``None`` when OpenCode has no
    such tool."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        return opencode_mcp_key(ref.server, ref.mcp_tool or "*")
    native = to_native("opencode", ref.tool)
    return native.name if native is not None else None


def decide(agent: NativeAgent, probe: Probe, flavor: Flavor = OPENCODE) -> PermissionAction:
    """The decision of OpenCode (or its fork ``flavor``) for ``probe`` made by ``agent``."""
    rules = agent_rules(agent, flavor)
    if rules is None:
        return DENY
    key = key_of(probe)
    if key is None:
        return DENY
    texts = tuple(agent.read(path) for path in config_files(flavor, agent.scope))
    argument = probe.argument if split_ref(probe.tool).server is None else "*"
    # The last matching rule of defaults, config layers and the agent's own decides, through
    # an index built once per agent: a rendered agent holds a scoping deny for every other
    # server (hundreds of rules), and a render check asks a dozen probes of each.
    return _index(rules, _layered(texts)).decide(key, argument)[0]


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


@lru_cache(maxsize=256)
def _index(rules: tuple[PermissionRule, ...], layered: tuple[PermissionRule, ...]) -> RuleIndex:
    return RuleIndex((*DEFAULTS, *layered, *rules))
