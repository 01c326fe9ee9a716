"""Writing Gemini CLI files: one agent file per profile and the merged ``settings.json``.

The ``tools`` allowlist is Gemini's only per-agent permission, so canonical rules are folded
into it (permissions.md §3) and what it cannot say goes into the prompt (README D4). Every
field the agent file cannot hold is reported (D3). Mapping: docs/codecs/gemini.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from agent_roster.codecs.base import Loss, LossOutcome, RenderRequest
from agent_roster.codecs.gemini.read import BUILTIN_AGENTS, SLUG, valid_tool_name
from agent_roster.codecs.native_io import JsonProblem, json_text, parse_json
from agent_roster.codecs.native_md import harness_diagnostic, model_for, write_native
from agent_roster.codecs.permissions import (
    SourcedRule,
    effective_rules,
    evaluate,
    wildcard_match,
)
from agent_roster.codecs.prompt import render_prompt
from agent_roster.codecs.tool_names import (
    canonical_tools,
    opencode_key,
    opencode_mcp_key,
    split_ref,
    to_native,
)
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

AGENTS_DIR = ".gemini/agents"
SETTINGS_FILE = ".gemini/settings.json"
#: ``harness.gemini`` keys render writes back (D5).
PASS_THROUGH = ("timeout_mins",)

_NO_FIELD = {
    "provider": "Gemini agent files name a model, not a vendor",
    "top_p": "Gemini fixes topP for subagents",
    "permission_mode": "Gemini has no per-agent permission mode",
    "mode": "Gemini agents are always subagents",
    "color": "Gemini has no agent colour",
    "max_tokens_per_task": "Gemini has no token budget per agent",
    "runtime": "roster's runtime choice is not a Gemini setting",
    "agent_name": "roster's ACP agent name is not a Gemini setting",
    "tags": "Gemini has no tags",
    "install": "Gemini does not install dependencies for an agent",
}

Lose = Callable[[str, LossOutcome, str], None]


def settings_entry(server: McpServer) -> dict[str, Any]:
    """A server as a ``settings.json`` ``mcpServers`` entry (camelCase; ``url`` with an
    explicit ``type``, because ``url`` alone means streamable HTTP in code and SSE in the
    docs). ``${VAR}`` values are kept: Gemini expands them when it loads settings."""
    entry: dict[str, Any] = {}
    if server.transport is Transport.STDIO:
        entry["command"] = server.command
        if server.args:
            entry["args"] = list(server.args)
        if server.env:
            entry["env"] = dict(server.env)
    else:
        entry["url"] = server.url
        entry["type"] = "sse" if server.transport is Transport.SSE else "http"
        if server.headers:
            entry["headers"] = dict(server.headers)
    if server.description:
        entry["description"] = server.description
    return entry


def render_profile(
    profile: AgentProfile, request: RenderRequest, out: list[Diagnostic], losses: list[Loss]
) -> str | None:
    """The agent file for ``profile``, with its losses appended to ``losses``; ``None`` and
    a ``render-unsupported`` error in ``out`` when Gemini would refuse or ignore it."""
    path = f"{AGENTS_DIR}/{profile.id}.md"

    def refuse(message: str, hint: str) -> None:
        out.append(
            harness_diagnostic(
                "render-unsupported", f"{profile.id}: {message}", path=path, hint=hint
            )
        )

    if not SLUG.match(profile.id):
        refuse("name: Name must be a valid slug", "Gemini agent names match ^[a-z0-9-_]+$")
        return None
    if profile.id in BUILTIN_AGENTS:
        refuse(
            f"'{profile.id}' is a built-in Gemini subagent; a file with that name is ignored",
            "rename the profile",
        )
        return None
    if not profile.description:
        refuse(
            "description: String must contain at least 1 character(s)",
            "Gemini requires a description",
        )
        return None
    for name in profile.mcp_servers:
        if name not in request.servers:
            refuse(f"MCP server '{name}' is not in the registry", "add it under mcp-servers/")
            return None
        if "_" in name or not valid_tool_name(f"mcp_{name}_*"):
            refuse(
                f"MCP server '{name}' cannot be named in tools: Gemini reads mcp_<server>_<tool> "
                "with a server name free of '_'",
                "rename the registry entry without '_' (for example with '-')",
            )
            return None

    def lose(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=profile.id, field=field, outcome=outcome, detail=detail))

    for field, why in _NO_FIELD.items():
        value = getattr(profile, field)
        if value not in (None, "", (), {}) and not (field == "install" and value.is_empty):
            lose(field, LossOutcome.DROPPED, why)
    data: dict[str, Any] = {"name": profile.id}
    if profile.name != profile.id:
        data["display_name"] = profile.name
    data["description"] = profile.description
    model = model_for(profile, "gemini")
    if model:
        data["model"] = model
    if profile.temperature is not None:
        data["temperature"] = profile.temperature
    if profile.max_turns is not None:
        if profile.max_turns > 0:
            data["max_turns"] = profile.max_turns
        else:
            lose("max_turns", LossOutcome.DROPPED, "Gemini needs a positive max_turns")
    tools, constraints = _tools(profile, lose)
    if tools is not None:
        data["tools"] = tools
    for key, value in profile.harness.get("gemini", {}).items():
        if key in PASS_THROUGH and isinstance(value, int) and value > 0:
            data[key] = value
        else:
            lose("harness", LossOutcome.DROPPED, f"harness.gemini.{key} is not an agent key")
    return write_native(data, render_prompt(profile, constraints))


def _tools(profile: AgentProfile, lose: Lose) -> tuple[list[str] | None, list[str]]:
    """The ``tools`` allowlist (``None``: inherit every tool) and prose constraints.

    Gemini has only an allowlist: a tool is listed when its effective decision is not
    ``deny``. The list is needed when any rule denies, or to name the agent's MCP servers
    (``mcp_<server>_*``); otherwise it is omitted and the agent inherits all tools."""
    rules = effective_rules(profile)
    # A deny of a tool Gemini does not have needs no list (an import writes those).
    lacking = _lacking_keys()
    has_deny = any(
        r.rule.action is PermissionAction.DENY
        and r.rule.permission not in lacking
        and not (r.tool and to_native("gemini", r.tool) is None)
        for r in rules
    )
    narrowed = [r.rule for r in rules if r.rule.pattern != "*"]
    # A key denied as a whole but allowed for some arguments (``Bash(git diff:*)`` after
    # an allowlist) stays in the allowlist; the argument rules go into the prompt.
    opened = {r.permission for r in narrowed if r.action is not PermissionAction.DENY}
    if not has_deny and not profile.mcp_servers:
        constraints = _rule_lines(rules, set())
        _report_rules(profile, lose, constraints, listed=False)
        return None, constraints
    tools: list[str] = []
    widened: set[str] = set()
    for canonical in canonical_tools():
        native = to_native("gemini", canonical)
        if native is None or native.name in tools:
            continue
        key = opencode_key(canonical)
        # Decided for this very tool: Gemini gives Write (write_file) and Edit (replace)
        # apart, so "Write" in a Tools list grants write_file and not replace.
        if evaluate(rules, key, tool=canonical).action is not PermissionAction.DENY:
            tools.append(native.name)
        elif key in opened:
            tools.append(native.name)
            widened.add(key)
    constraints = _rule_lines(rules, widened)
    for server in profile.mcp_servers:
        if evaluate(rules, opencode_mcp_key(server, "*")).action is not PermissionAction.DENY:
            tools.append(f"mcp_{server}_*")
            continue
        for tool in profile.allowed_tools:
            ref = split_ref(tool)
            if ref.server != server or not ref.mcp_tool or ref.mcp_tool == "*":
                continue
            key = opencode_mcp_key(server, ref.mcp_tool)
            name = f"mcp_{server}_{ref.mcp_tool}"
            if evaluate(rules, key).action is PermissionAction.DENY or name in tools:
                continue
            if valid_tool_name(name):
                tools.append(name)
            else:
                lose("allowed_tools", LossOutcome.DROPPED, f"{tool}: not a valid Gemini tool name")
    for server in profile.mcp_servers:
        if not any(t.startswith(f"mcp_{server}_") for t in tools):
            lose(
                "mcp_servers",
                LossOutcome.DROPPED,
                f"no tool of '{server}' is allowed, so the agent's tools list cannot name the "
                "server (its settings.json entry is still written)",
            )
    for tool in profile.denied_tools:
        ref = split_ref(tool)
        if ref.server in profile.mcp_servers and f"mcp_{ref.server}_*" in tools:
            constraints.append(f"Never call the MCP tool `{tool}`.")
    _report_rules(profile, lose, constraints, listed=True)
    return tools, constraints


@cache
def _lacking_keys() -> frozenset[str]:
    """Rule keys of canonical tools Gemini does not have (a key no tool it has shares)."""
    have = {opencode_key(c) for c in canonical_tools() if to_native("gemini", c) is not None}
    denies = tuple(
        PermissionRule(permission=c, action=PermissionAction.DENY)
        for c in canonical_tools()
        if to_native("gemini", c) is None
    )
    found = effective_rules(AgentProfile(id="x", name="x", permission=denies))
    return frozenset(r.rule.permission for r in found) - have


def _rule_lines(rules: Sequence[SourcedRule], widened: set[str]) -> list[str]:
    """Prose for the rules Gemini cannot enforce: every argument rule, and for a tool listed
    only because some of its arguments are allowed, every rule that applies to it."""
    lines = [
        f"`{r.rule.permission}` `{r.rule.pattern}` → {r.rule.action.value}"
        for r in rules
        if r.rule.pattern != "*" or any(wildcard_match(key, r.rule.permission) for key in widened)
    ]
    if lines:
        lines.insert(0, "Tool rules, in order; the last rule matching a call decides:")
    return lines


def _report_rules(profile: AgentProfile, lose: Lose, constraints: list[str], listed: bool) -> None:
    outcome = LossOutcome.EMBEDDED if constraints else LossOutcome.TRANSLATED
    where = "a tools allowlist" if listed else "nothing (the agent inherits every tool)"
    if listed:
        lose(
            "allowed_tools",
            outcome,
            "written as Gemini's tools allowlist (built-ins through the tool table, "
            "servers as mcp_<server>_*); Gemini tools with no canonical name are not granted",
        )
    elif profile.allowed_tools:
        lose("allowed_tools", outcome, f"allows everything, so it became {where}")
    if profile.denied_tools:
        lose("denied_tools", outcome, f"folded into {where}; argument rules embedded")
    if profile.permission:
        lose("permission", outcome, f"folded into {where}; argument rules embedded")


def merge_settings(
    text: str | None, entries: dict[str, dict[str, Any]], out: list[Diagnostic]
) -> str | None:
    """``settings.json`` with ``entries`` set under ``mcpServers``; every other key (and
    every other server) kept in its order. ``None`` when the file cannot be merged safely."""
    data: Any = {}
    if text is not None and text.strip():
        data = parse_json(text)
        if isinstance(data, JsonProblem):
            problem = data
            out.append(
                harness_diagnostic(
                    "render-unsupported",
                    f"cannot merge MCP servers into {SETTINGS_FILE}: {problem.message} at line "
                    f"{problem.line} column {problem.column} (comments are not kept by a JSON "
                    "merge, so roster leaves the file alone)",
                    path=SETTINGS_FILE,
                    line=problem.line,
                    column=problem.column,
                    hint="remove comments or fix the JSON, then render again",
                )
            )
            return None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        out.append(
            harness_diagnostic(
                "render-unsupported",
                f"cannot merge MCP servers into {SETTINGS_FILE}: mcpServers is not an object",
                path=SETTINGS_FILE,
                hint="make the file a JSON object with an mcpServers object",
            )
        )
        return None
    block = data.setdefault("mcpServers", {})
    block.update(entries)
    return json_text(data)
