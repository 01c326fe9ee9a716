"""Permission decisions compared across harnesses: probes, strictness and the canonical answer.

Issue 12 item 2 ("never widen"): a profile's restrictions must hold in every harness it is
rendered to, and an import must carry every restriction the source harness applies. Both
are checked the same way: a set of :class:`~agent_roster.codecs.base.Probe` calls is
decided by the canonical model (``roster can``: OpenCode's rules, :func:`canonical`) and by
each harness's own rules (``Codec.decide``, one ``semantics.py`` per harness), and no
harness may answer more permissively than the model where the model restricts. ``deny`` is
stricter than ``ask``, ``ask`` stricter than ``allow``.

A probe no canonical rule matches is "the runtime's default": the profile says nothing
about it, so nothing can widen there (an import writes the source's defaults as rules,
so an imported agent leaves nothing unmatched).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache
from typing import TypeVar

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.native_md import NativeDocument, read_written
from agent_roster.codecs.permissions import (
    ALIASES,
    SECONDARY,
    Decision,
    SourcedRule,
    effective_rules,
    evaluate_each,
    evaluate_indexed,
    expand_home,
    wildcard_match,
)
from agent_roster.codecs.tool_names import (
    canonical_tools,
    native_names,
    opencode_key,
    opencode_mcp_key,
    split_ref,
)
from agent_roster.known_tools import DEFAULT_EMBEDDED_COMMANDS
from agent_roster.model.profile import AgentProfile, PermissionAction

T = TypeVar("T")
ALLOW, ASK, DENY = PermissionAction.ALLOW, PermissionAction.ASK, PermissionAction.DENY
#: How strict each decision is: a harness may answer stricter than the model, never looser.
STRICTNESS = {ALLOW: 0, ASK: 1, DENY: 2}

#: The issue's fixed probe set: a destructive command, an edit, a new file, a read, a fetch
#: and a tool of an MCP server nobody configured for the agent.
FIXED_PROBES: tuple[Probe, ...] = (
    Probe("Bash", "rm -rf /"),
    Probe("Edit", "src/app.py"),
    Probe("Write", "src/new.py"),
    Probe("Read", "README.md"),
    Probe("WebFetch", "https://example.com/"),
    Probe("mcp__probe__do_thing"),
)
#: Further built-in tools a render check asks about (each harness has most of them).
MORE_PROBES: tuple[Probe, ...] = (
    Probe("Grep"),
    Probe("Glob"),
    Probe("WebSearch"),
    Probe("Task"),
    Probe("TodoWrite"),
)
#: The MCP tool a probe of a whole server calls.
PROBE_MCP_TOOL = "do_thing"


def wider(found: PermissionAction, limit: PermissionAction) -> bool:
    """Whether ``found`` allows more than ``limit``."""
    return STRICTNESS[found] < STRICTNESS[limit]


def strictest(actions: Iterable[PermissionAction]) -> PermissionAction:
    """The strictest of ``actions`` (``allow`` for none)."""
    best = ALLOW
    for action in actions:
        if STRICTNESS[action] > STRICTNESS[best]:
            best = action
    return best


def probe_key(
    probe: Probe, embedded: str = "", commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS
) -> str:
    """The OpenCode permission key (the canonical rule key) a probe is decided under."""
    return _key_and_tool(probe.tool, embedded, commands)[0]


@lru_cache(maxsize=8192)
def _key_and_tool(name: str, embedded: str, commands: frozenset[str]) -> tuple[str, str]:
    # The codec, the check and the narrowing ask the same few tools of every profile (the
    # fixed probes, each server's): their key and tool are worked out once per name.
    return opencode_key(name, embedded=embedded, commands=commands), split_ref(name).tool


def canonical(
    profile: AgentProfile,
    probe: Probe,
    *,
    embedded: str = "",
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    rules: Sequence[SourcedRule] | None = None,
) -> Decision:
    """``roster can``'s answer for ``probe``: the profile's effective rules (README D9), the
    last match decides; ``Decision.rule`` is ``None`` when no rule matched (the runtime's
    default)."""
    found = effective_rules(profile, embedded=embedded) if rules is None else rules
    key, tool = _key_and_tool(probe.tool, embedded, commands)
    return evaluate_indexed(found, key, probe.argument, tool=tool)


def canonical_each(
    profile: AgentProfile,
    probes: Iterable[Probe],
    *,
    embedded: str = "",
    commands: frozenset[str] = DEFAULT_EMBEDDED_COMMANDS,
    rules: Sequence[SourcedRule] | None = None,
) -> list[Decision]:
    """:func:`canonical` of each of ``probes``, in order."""
    found = effective_rules(profile, embedded=embedded) if rules is None else rules
    calls = []
    for probe in probes:
        key, tool = _key_and_tool(probe.tool, embedded, commands)
        calls.append((key, probe.argument, tool))
    return evaluate_each(found, calls)


def sample_argument(pattern: str) -> str | None:
    """An argument the OpenCode wildcard ``pattern`` matches (``git push *`` → ``git push
    x``), or ``None`` when none is easy to make."""
    pattern = expand_home(pattern)
    for candidate in (pattern[:-2], pattern) if pattern.endswith(" *") else (pattern,):
        text = candidate.replace("*", "x").replace("?", "x")
        if text and wildcard_match(text, pattern):
            return text
    return None


#: Tools a render check never asks about on their own: names of another tool
#: (``permissions.ALIASES``), tools Claude Code retired, and ``NotebookEdit``, which a
#: harness's edit tool covers while ``Write`` is there to rewrite a notebook anyway.
UNPROBED = frozenset({*ALIASES, *SECONDARY})


def tools_of_key(key: str) -> tuple[str, ...]:
    """Canonical built-in tools whose OpenCode key is ``key`` (``edit`` → Write, Edit), the
    ones in :data:`UNPROBED` left out."""
    # Most keys a render asks about are MCP keys, of no built-in tool: one lookup in a
    # table of the built-in keys answers them, where a cache of answers would churn.
    return _tools_by_key().get(key, ())


@cache
def _tools_by_key() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for tool in canonical_tools():
        if tool in UNPROBED:
            continue
        for native in native_names("opencode", tool):
            listed = found.setdefault(native.name, [])
            if tool not in listed:
                listed.append(tool)
    return {key: tuple(tools) for key, tools in found.items()}


def mcp_probe(server: str, tool: str = PROBE_MCP_TOOL) -> Probe:
    return Probe(f"mcp__{server}__{tool}")


def check_probes(profile: AgentProfile, embedded: str = "") -> tuple[Probe, ...]:
    """The calls a render check asks the target about: the fixed set and a few more
    built-ins, a tool of each of the profile's MCP servers and each MCP tool it names, and
    for every argument-level rule (and narrowed tool name) a call its pattern matches."""
    found: dict[Probe, None] = dict.fromkeys((*FIXED_PROBES, *MORE_PROBES))
    for server in profile.mcp_servers:
        found[mcp_probe(server)] = None
    for name in (*profile.allowed_tools, *profile.denied_tools):
        ref = split_ref(name)
        if ref.server is not None:
            tool = ref.mcp_tool if ref.mcp_tool and ref.mcp_tool != "*" else PROBE_MCP_TOOL
            found[mcp_probe(ref.server, tool)] = None
        elif ref.argument is not None and ref.tool not in UNPROBED:
            argument = sample_argument(ref.argument)
            if argument is not None:
                found[Probe(ref.tool, argument)] = None
    servers = sorted(profile.mcp_servers, key=len, reverse=True)
    for sourced in effective_rules(profile, embedded=embedded):
        rule = sourced.rule
        if sourced.tool:
            tools: tuple[str, ...] = () if sourced.tool in UNPROBED else (sourced.tool,)
        else:
            tools = tools_of_key(rule.permission) or _mcp_tools_of_key(rule.permission, servers)
        if not tools:
            continue
        argument = "*" if rule.pattern == "*" else sample_argument(rule.pattern)
        if argument is None:
            continue
        for tool in tools:
            found[Probe(tool, argument)] = None
    return tuple(found)


def _mcp_tools_of_key(key: str, servers: Sequence[str]) -> tuple[str, ...]:
    for server in servers:
        prefix = opencode_mcp_key(server, "*")[:-1]  # "<server>_", as OpenCode writes it
        if key.startswith(prefix):
            tool = key[len(prefix) :]
            if tool and "*" not in tool and "?" not in tool:
                return (f"mcp__{server}__{tool}",)
            return (f"mcp__{server}__{PROBE_MCP_TOOL}",)
    return ()


def remembered(agent: NativeAgent, key: str, read: Callable[[], T]) -> T:
    """``read()``, kept in the agent's memo under ``key`` when it has one
    (:attr:`NativeAgent.memo`), so a codec reads an agent once for every call it decides."""
    memo = agent.memo
    if memo is None:
        return read()
    if key in memo:
        return memo[key]  # type: ignore[no-any-return]
    found = memo[key] = read()
    return found


def agent_text(agent: NativeAgent, path: str | None = None) -> str | None:
    """The text of the agent's file (its first path, or ``path``)."""
    target = path if path is not None else (agent.paths[0] if agent.paths else "")
    return agent.read(target) if target else None


@lru_cache(maxsize=64)
def agent_document(text: str, path: str) -> NativeDocument | None:
    """``read_native`` of an agent file, once per content: a render check asks a dozen
    probes of every agent, each of which would otherwise parse its frontmatter again.
    Callers only read the result."""
    return read_written(text, path, [])
