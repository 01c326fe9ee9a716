"""What Codex decides for an agent role's tool call (docs/codecs/codex.md §5).

A role has no tool list: its shell (``shell``) and file edits (``apply_patch``) are governed
by ``sandbox_mode`` and ``approval_policy``, set in the role or inherited from
``.codex/config.toml`` (Codex's defaults: ``workspace-write``, ``on-request``):

| sandbox | approval | edits in the workspace | shell command |
|---|---|---|---|
| ``danger-full-access`` | ``untrusted`` / other | allow | ask / allow |
| ``workspace-write`` | ``untrusted`` / other | allow | ask / allow (sandboxed) |
| ``read-only`` | ``never`` / other | deny / ask | deny / ask |

Reads, search, ``update_plan`` and ``spawn_agent`` always run; ``web_search`` runs unless
``web_search = "disabled"``; Codex has no fetch tool. MCP tools run when their server is
enabled and its ``enabled_tools``/``disabled_tools`` let them (Codex's MCP approval prompts
are not modelled: taken as allow, which over-states Codex). A server the role does not
configure is inherited from the parent session, so its tools are allowed.
"""

from __future__ import annotations

import json
import tomllib
from functools import lru_cache, partial
from typing import Any

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.codex.mcp import tool_filters
from agent_roster.codecs.defaults import explicit_rules
from agent_roster.codecs.native_md import recalled_reading
from agent_roster.codecs.semantics import ALLOW, ASK, DENY, agent_text
from agent_roster.codecs.tool_names import split_ref
from agent_roster.model.profile import PermissionAction, PermissionRule

CONFIG_FILE = ".codex/config.toml"
DEFAULT_SANDBOX = "workspace-write"
DEFAULT_APPROVAL = "on-request"
EDITS = frozenset({"Edit", "Write", "MultiEdit"})
SHELL = frozenset({"Bash"})
ALWAYS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead", "Task", "Agent", "TodoWrite"})


def sandbox_decisions(sandbox: str, approval: str) -> tuple[PermissionAction, PermissionAction]:
    """(edits, shell) under a sandbox mode and an approval policy (table above)."""
    if sandbox == "read-only":
        return (DENY, DENY) if approval == "never" else (ASK, ASK)
    return ALLOW, ASK if approval == "untrusted" else ALLOW


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _toml(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    return _parsed(text) or {}


@lru_cache(maxsize=64)
def _parsed(text: str) -> dict[str, Any] | None:
    # A render check asks a dozen probes of every role against the same role file and the
    # same config.toml (which holds every server of the render): parsed once per content,
    # not once per probe. Callers only read the result.
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def decide_data(role: dict[str, Any], config: dict[str, Any], probe: Probe) -> PermissionAction:
    """Codex's decision for ``probe`` under a role table and the config it inherits."""
    ref = split_ref(probe.tool)
    if ref.server is not None:
        table = _table(role.get("mcp_servers")).get(ref.server)
        if table is None:
            table = _table(config.get("mcp_servers")).get(ref.server)
        enabled_tools, disabled, enabled = tool_filters(table)
        tool = ref.mcp_tool or "*"
        if not enabled or tool in disabled:
            return DENY
        if enabled_tools is not None and tool not in enabled_tools:
            return DENY
        return ALLOW
    sandbox = str(role.get("sandbox_mode") or config.get("sandbox_mode") or DEFAULT_SANDBOX)
    approval = str(role.get("approval_policy") or config.get("approval_policy") or DEFAULT_APPROVAL)
    edits, shell = sandbox_decisions(sandbox, approval)
    if ref.tool in EDITS:
        return edits
    if ref.tool in SHELL:
        return shell
    if ref.tool in ALWAYS:
        return ALLOW
    if ref.tool == "WebSearch":
        search = role.get("web_search", config.get("web_search", "cached"))
        return DENY if search in ("disabled", False) else ALLOW
    return DENY  # Codex has no such tool (WebFetch among them)


def decide(agent: NativeAgent, probe: Probe) -> PermissionAction:
    """Codex's decision for ``probe`` made by the agent role ``agent``."""
    path = agent.paths[0] if agent.paths else ""
    text = agent_text(agent, path) if path else None
    if text is None:
        return DENY
    found, reading = recalled_reading(text, path)  # a role this render just wrote
    role = reading if found else _parsed(text)
    if role is None:
        return DENY  # Codex skips a role file it cannot parse
    return decide_data(role, _toml(agent.read(CONFIG_FILE)), probe)


#: The keys of a role and a config that decide a call (``codex/semantics.decide_data``).
_DECIDING = ("sandbox_mode", "approval_policy", "web_search", "mcp_servers")


def import_rules(role: dict[str, Any], config: dict[str, Any]) -> tuple[PermissionRule, ...]:
    """Codex's decision for every tool as rules (``defaults.explicit_rules``): its sandbox
    and approval defaults, web search, and each configured server's tool filters."""
    key = json.dumps(
        [{k: v for k, v in table.items() if k in _DECIDING} for table in (role, config)],
        sort_keys=True,
        default=str,
    )
    return _rules_for(key)


@lru_cache(maxsize=256)
def _rules_for(key: str) -> tuple[PermissionRule, ...]:
    role, config = json.loads(key)
    names: list[str] = []
    for table in (config, role):
        for server, entry in _table(table.get("mcp_servers")).items():
            names.append(f"mcp__{server}__*")
            enabled, disabled, _ = tool_filters(entry)
            names.extend(f"mcp__{server}__{tool}" for tool in (*(enabled or ()), *disabled))
    decide = partial(decide_data, role, config)
    return explicit_rules(decide, dict.fromkeys(names))
