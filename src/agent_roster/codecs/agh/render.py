"""AGH render: one profile → ``AGENT.md`` (+ ``mcp.json``, capability files), checked with
AGH's own rules before anything is returned (docs/codecs/agh.md §10)."""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

from agent_roster.codecs.agh import rules
from agent_roster.codecs.agh.read import (
    AGENT_FILE,
    CAPABILITY_DIR,
    CAPABILITY_FILES,
    SIDECAR,
    check_fields,
    load_frontmatter,
    read_sidecar,
    split_agent_md,
)
from agent_roster.codecs.base import Loss, LossOutcome, NativeFile, ReadExisting, RenderRequest
from agent_roster.codecs.native_io import existing_present, json_text
from agent_roster.codecs.native_md import harness_diagnostic, remember_reading, write_native
from agent_roster.codecs.permissions import SourcedRule, effective_rules, evaluate, evaluator
from agent_roster.codecs.prompt import blank, render_prompt
from agent_roster.codecs.tool_names import canonical_tools, opencode_key, split_ref
from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile, PermissionAction

#: ``harness.agh`` keys render re-emits (D5); anything else there is refused.
PASS_THROUGH = (
    "command",
    "toolsets",
    "skills",
    "category_path",
    "hooks",
    "tools",
    "deny_tools",
    "capabilities",
)

#: ``permission_mode`` → ``permissions`` (permissions.md §3.1) when no rule decides.
_MODE_PERMISSIONS = {
    "default": "approve-reads",
    "plan": "approve-reads",
    "acceptEdits": "approve-reads",
    "bypassPermissions": "approve-all",
    "auto": "approve-all",
    "full": "approve-all",
}

#: Canonical fields with no AGH key, and why (each reported ``dropped`` when set).
_NO_FIELD = {
    "description": "AGH rejects description (unknown field); kept in the vault only",
    "provider": "AGH has no model-vendor key; the model id is written as is",
    "max_tokens_per_task": "AGH has no token budget per task",
    "max_turns": "AGH has no turn limit per agent",
    "temperature": "AGH has no sampling settings per agent",
    "top_p": "AGH has no sampling settings per agent",
    "mode": "AGH has no agent mode",
    "color": "AGH has no display colour",
    "tags": "roster-only field",
    "install": "roster-only field",
    "metadata": "roster-only field",
    "extra_config": "unknown Config keys have no AGH meaning",
}


_SERVER_HINT = (
    "AGH MCP servers take no headers and take secrets only as whole ${VAR} references "
    "(secret_env); change the registry entry or leave the server out of this profile"
)


@cache
def _tool_keys() -> frozenset[str]:
    """``*`` and the OpenCode key of every canonical tool: the calls a mode must decide."""
    return frozenset({"*"} | {opencode_key(tool) for tool in canonical_tools()})


def _decide_permissions(profile: AgentProfile) -> str:
    """AGH ``permissions`` for a profile: every effective decision ``deny`` → deny-all,
    every one ``allow`` → approve-all, mixed → approve-reads (permissions.md §3)."""
    effective = effective_rules(profile)
    if not effective:
        return _MODE_PERMISSIONS.get(profile.permission_mode, "")
    tool_keys = _tool_keys()
    named = {s.rule.permission for s in effective}
    concrete = [k for k in named if "*" not in k and "?" not in k]
    if concrete and _mixed(effective, concrete, tool_keys - named):
        return "approve-reads"
    keys = itertools.chain(tool_keys, (k for k in concrete if k not in tool_keys))
    first = None
    decide = evaluator(effective)
    for key in keys:
        action = decide(key).action
        if first is None:
            first = action
        elif action is not first:
            return "approve-reads"  # mixed: no need to decide the other keys
    if first is PermissionAction.DENY:
        return "deny-all"
    if first is PermissionAction.ALLOW:
        return "approve-all"
    return "approve-reads"


def _mixed(
    effective: tuple[SourcedRule, ...], concrete: list[str], unnamed: frozenset[str]
) -> bool:
    """Whether a key no rule names and the keys rules name get different decisions, asked
    first and without the rules' index: most restricted profiles (``*`` denied, a few
    tools allowed) are mixed on the first two keys, and an agent AGH then refuses (its
    servers) would build the index for nothing. ``False`` says only "not shown here"."""
    other = next(iter(unnamed), None)
    if other is None:
        return False
    action = evaluate(effective, other).action
    return any(evaluate(effective, key).action is not action for key in concrete)


def render_profile(
    profile: AgentProfile, request: RenderRequest, existing: ReadExisting
) -> tuple[list[NativeFile], list[Loss], list[Diagnostic]]:
    pid = profile.id
    folder = f"{rules.AGENTS_DIR}/{pid}"
    agent_path = f"{folder}/{AGENT_FILE}"
    losses: list[Loss] = []
    errors: list[str] = []

    def loss(field: str, outcome: LossOutcome, detail: str) -> None:
        losses.append(Loss(profile=pid, field=field, outcome=outcome, detail=detail))

    name_problem = rules.agent_name_error(pid)
    if name_problem or pid != pid.strip():
        errors.append(name_problem or f"agent name {pid!r} has surrounding spaces AGH would trim")
    extra = dict(profile.harness.get("agh", {}))
    for key in extra:
        if key not in PASS_THROUGH:
            errors.append(f'harness.agh.{key}: unknown field "{key}" (AGH would refuse the file)')
    for field, reason in _NO_FIELD.items():
        if getattr(profile, field) not in (None, "", (), {}) and not (
            field == "install" and profile.install.is_empty
        ):
            loss(field, LossOutcome.DROPPED, reason)
    if profile.name and profile.name != pid:
        loss("name", LossOutcome.DROPPED, "AGH names an agent by its directory only")
    for other in profile.harness:
        if other != "agh":
            loss(f"harness.{other}", LossOutcome.DROPPED, "another harness's pass-through block")
    if profile.runtime is not None and not profile.agent_name:
        loss("runtime", LossOutcome.DROPPED, "AGH launches [defaults].provider; set agent_name")

    constraints: list[str] = []
    tools: list[str] = []
    deny_tools: list[str] = []
    builtins: list[str] = []
    narrowed: dict[str, list[str]] = {}
    for name in profile.allowed_tools:
        ref = split_ref(name)
        if ref.server is not None:
            problem = rules.tool_pattern_error(name, f"agent.tools[{len(tools)}]")
            if problem:
                loss("allowed_tools", LossOutcome.DROPPED, f"{name}: AGH refuses it ({problem})")
            elif name not in tools:
                tools.append(name)
        else:
            builtins.append(name)
            if ref.argument is not None:
                narrowed.setdefault(ref.tool, []).append(f"`{ref.argument}`")
                loss("allowed_tools", LossOutcome.EMBEDDED, f"{name}: AGH has no argument rules")
    for tool, patterns in narrowed.items():
        constraints.append(f"Use {tool} only for calls matching " + ", ".join(patterns) + ".")
    if builtins:
        loss(
            "allowed_tools",
            LossOutcome.TRANSLATED,
            "provider tools (" + ", ".join(builtins) + ") are governed by AGH `permissions`",
        )
    for name in profile.denied_tools:
        ref = split_ref(name)
        problem = (
            rules.tool_pattern_error(name, f"agent.deny_tools[{len(deny_tools)}]")
            if ref.server is not None
            else "not an AGH ToolID"
        )
        if problem is None:
            if name not in deny_tools:
                deny_tools.append(name)
            continue
        constraints.append(f"Never use {name}.")
        loss("denied_tools", LossOutcome.EMBEDDED, f"{name}: {problem}; written as prose")
    for rule in profile.permission:
        if rule.pattern != "*":
            constraints.append(
                f"{rule.permission} calls matching `{rule.pattern}`: {rule.action.value}."
            )
            loss("permission", LossOutcome.EMBEDDED, f"{rule.permission} {rule.pattern}")
    # The permissions go here among the losses, and among the keys below, once the agent
    # is known to be written: deciding them is most of the work for an agent AGH refuses.
    permission_losses_at = len(losses)

    data: dict[str, Any] = {"name": pid}
    if profile.agent_name:
        data["provider"] = profile.agent_name
    if "command" in extra:
        data["command"] = extra["command"]
    if profile.model:
        data["model"] = profile.model
    native_tools = tools + [t for t in extra.get("tools", ()) if t not in tools]
    native_deny = deny_tools + [t for t in extra.get("deny_tools", ()) if t not in deny_tools]
    for key, values in (("tools", native_tools), ("toolsets", extra.get("toolsets", []))):
        if values:
            data[key] = list(values)
    if native_deny:
        data["deny_tools"] = native_deny
    data["permissions"] = ""  # its place among the keys
    for key in ("skills", "category_path", "hooks"):
        if extra.get(key):
            data[key] = extra[key]
    errors.extend(_check_pass_through(data))

    # The constraints section is never blank: without it the prompt is the profile's.
    if not constraints and profile.prompt_blank:
        errors.append("agent prompt is required (the profile has no prose sections)")

    files: list[NativeFile] = []
    sidecar: dict[str, Any] = {}
    sidecar_path = f"{folder}/{SIDECAR}"
    for server_name in profile.mcp_servers:
        server = request.servers.get(server_name)
        if server is None:
            loss("mcp_servers", LossOutcome.DROPPED, f"{server_name}: not in the registry")
            continue
        native, problems = rules.server_to_native(server)
        if native is None:
            # The sidecar is part of the agent: without this server the agent would not be
            # the profile any more, so the agent is refused rather than written short.
            errors.append(f"MCP server {server_name!r}: " + "; ".join(problems))
            continue
        sidecar[server_name] = native
    capabilities = extra.get("capabilities") or {}
    if not isinstance(capabilities, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and _capability_path_ok(k)
        for k, v in capabilities.items()
    ):
        errors.append("harness.agh.capabilities must map capability file names to their text")
    if errors:
        diags = [
            harness_diagnostic(
                "render-unsupported",
                f"agent {pid!r} cannot be written for AGH: {problem}",
                path=profile.source or agent_path,
                hint=_SERVER_HINT
                if problem.startswith("MCP server")
                else "AGH refuses every agent while one AGENT.md is invalid; nothing written",
            )
            for problem in errors
        ]
        # Refused whole: like an agent the render check refuses, it reports its refusal,
        # not how fields of a file never written would have been translated.
        return [], [], diags
    permissions = _decide_permissions(profile)
    if permissions:
        data["permissions"] = permissions
    else:
        del data["permissions"]
    losses[permission_losses_at:permission_losses_at] = _permission_losses(profile, permissions)
    content = write_native(data, render_prompt(profile, constraints))
    sidecar_text = json_text({"mcpServers": sidecar})
    refusals = _self_check(pid, agent_path, content, sidecar_path, sidecar_text)
    if refusals:
        return [], losses, refusals
    files.append(NativeFile(path=agent_path, content=content, profile=pid))
    if sidecar or existing_present(existing, sidecar_path):
        # An empty map replaces a stale sidecar, whose servers AGH would otherwise still load.
        files.append(NativeFile(path=sidecar_path, content=sidecar_text, profile=pid))
    for rel, text in capabilities.items():
        files.append(NativeFile(path=f"{folder}/{rel}", content=text, profile=pid))
    return files, losses, []


def _permission_losses(profile: AgentProfile, permissions: str) -> list[Loss]:
    """What writing ``permissions`` (one of AGH's three) made of the profile's rules."""
    found = []
    if permissions:
        back = ", ".join(
            f"{r.permission} {r.action.value}" for r in rules.PERMISSION_RULES[permissions]
        )
        found.append(
            Loss(
                profile=profile.id,
                field="permission",
                outcome=LossOutcome.TRANSLATED,
                detail=f"effective rules folded into AGH `permissions: {permissions}` "
                f"(imported as {back})",
            )
        )
    if profile.permission_mode:
        found.append(
            Loss(
                profile=profile.id,
                field="permission_mode",
                outcome=LossOutcome.TRANSLATED,
                detail=f"permission_mode {profile.permission_mode} → permissions: {permissions}",
            )
        )
    return found


def _self_check(
    pid: str, agent_path: str, content: str, sidecar_path: str, sidecar_text: str
) -> list[Diagnostic]:
    """Read the rendered files back with AGH's rules: anything AGH would refuse is a
    ``render-unsupported`` error instead of a file (the whole load would fail otherwise)."""
    found: list[Diagnostic] = []
    split = split_agent_md(content)
    if isinstance(split, str):
        problems = [split]
        remember_reading(content, agent_path, None)
    else:
        loaded = load_frontmatter(split[0], agent_path)
        # What agh/semantics.agent_data reads of this file: the render check asks it next.
        remember_reading(content, agent_path, None if isinstance(loaded, str) else loaded[0])
        if isinstance(loaded, str):
            problems = [loaded]
        else:
            found.extend(check_fields(loaded[0], loaded[1], pid, agent_path))
            problems = ["agent prompt is required"] if blank(split[1]) else []
    read_sidecar(sidecar_text, sidecar_path, found)
    problems += [d.message for d in found if d.is_error]
    return [
        harness_diagnostic(
            "render-unsupported",
            f"agent {pid!r} cannot be written for AGH: {problem}",
            path=agent_path,
            hint="AGH refuses every agent while one AGENT.md is invalid; nothing written",
        )
        for problem in problems
    ]


def _capability_path_ok(rel: str) -> bool:
    if rel in CAPABILITY_FILES:
        return True
    head, _, tail = rel.partition("/")
    return head == CAPABILITY_DIR and tail.endswith((".toml", ".json")) and "/" not in tail


def _check_pass_through(data: dict[str, Any]) -> list[str]:
    """AGH's own checks on the values render writes (pass-through included)."""
    problems: list[str] = []
    if "command" in data and not isinstance(data["command"], str):
        problems.append("agent.command must be a string")
    for key in ("tools", "deny_tools", "toolsets", "category_path"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(f"agent.{key} must be a list of strings")
            return problems
    for key in ("tools", "deny_tools"):
        for index, value in enumerate(data.get(key, [])):
            problem = rules.tool_pattern_error(value, f"agent.{key}[{index}]")
            if problem:
                problems.append(problem)
    for index, value in enumerate(data.get("toolsets", [])):
        problem = rules.toolset_error(value, f"agent.toolsets[{index}]")
        if problem:
            problems.append(problem)
    for index, segment in enumerate(data.get("category_path", [])):
        problem = rules.category_segment_error(segment.strip(), index)
        if problem:
            problems.append(problem)
    skills = data.get("skills")
    if skills is not None and (not isinstance(skills, dict) or set(skills) - {"disabled"}):
        problems.append('agent.skills: only "disabled" is accepted')
    hooks = data.get("hooks")
    if hooks is not None and not (
        isinstance(hooks, list) and all(isinstance(h, dict) for h in hooks)
    ):
        problems.append("agent.hooks must be a list of hook declarations")
    return problems
