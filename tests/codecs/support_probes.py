"""Probe profiles that show what a codec's render does with each canonical field.

For every field, a few values (``PROBES``) are set on a base profile every codec renders
cleanly; what the render reports for that field is its outcome: the losses it lists for
the field (translated / embedded / dropped / refused), an error it raises that the base
render does not (refused: the harness refuses the value, or cannot hold a restriction and
the render check refuses the agent), or nothing (kept). ``observed`` collects them per
field, so the matrix test can compare them with what each codec declares
(``Codec.support``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_roster.codecs.base import Codec, Rendering, RenderRequest, Scope
from agent_roster.codecs.guard import render_guarded
from agent_roster.codecs.support import FIELDS, Support
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    AgentProfile,
    InstallManifest,
    PermissionAction,
    PermissionRule,
    PromptSection,
    Runtime,
)

BASE = AgentProfile(
    id="probe",
    name="probe",
    description="A probe agent for the support matrix.",
    sections=(PromptSection(heading="Role", body="You answer questions."),),
)
SERVERS = {
    "local": McpServer(name="local", transport=Transport.STDIO, command="node", args=("s.js",)),
    "remote": McpServer(
        name="remote",
        transport=Transport.HTTP,
        url="https://mcp.example.com/mcp",
        headers={"Authorization": "Bearer ${TOKEN}"},
    ),
    "events": McpServer(name="events", transport=Transport.SSE, url="https://example.com/sse"),
}


def _rule(permission: str, pattern: str, action: PermissionAction) -> PermissionRule:
    return PermissionRule(permission=permission, pattern=pattern, action=action)


DENY, ALLOW, ASK = PermissionAction.DENY, PermissionAction.ALLOW, PermissionAction.ASK

#: Field → the values each probe gives it (each applied to BASE on its own).
PROBES: dict[str, tuple[dict[str, Any], ...]] = {
    "name": ({"name": "Probe Agent"},),
    "description": ({"description": "Another description."},),
    "prompt": (
        {
            "sections": (
                PromptSection(heading="Role", body="You answer questions."),
                PromptSection(heading="Rules", body="- Be brief."),
            )
        },
    ),
    "model": ({"model": "claude-sonnet-4-6"},),
    "provider": ({"model": "claude-sonnet-4-6", "provider": "anthropic"},),
    "temperature": ({"temperature": 0.2},),
    "top_p": ({"top_p": 0.9},),
    "max_turns": ({"max_turns": 5},),
    "max_tokens_per_task": ({"max_tokens_per_task": 100_000},),
    "permission_mode": (
        {"permission_mode": "acceptEdits"},
        {"permission_mode": "plan"},
        {"permission_mode": "bypassPermissions"},
    ),
    "allowed_tools": (
        {"allowed_tools": ("Read", "Grep", "Glob")},
        {"allowed_tools": ("Read", "Bash(git log:*)")},
        {"allowed_tools": ("Read", "mcp__local__run"), "mcp_servers": ("local",)},
    ),
    "denied_tools": (
        {"denied_tools": ("WebFetch",)},
        {"denied_tools": ("Bash(rm -rf:*)",)},
    ),
    "permission": (
        {"permission": (_rule("webfetch", "*", DENY),)},
        {"permission": (_rule("bash", "rm *", DENY),)},
        {"permission": (_rule("bash", "*", ASK),)},
    ),
    "mcp_servers": (
        {"mcp_servers": ("local",)},
        {"mcp_servers": ("remote",)},
        {"mcp_servers": ("events",)},
    ),
    "mode": ({"mode": "subagent"}, {"mode": "primary"}),
    "color": ({"color": "blue"},),
    "runtime": ({"runtime": Runtime.CLAUDE_SDK},),
    "agent_name": ({"runtime": Runtime.ACPX, "agent_name": "codex"},),
    "tags": ({"tags": ("probe", "matrix")},),
    "install": ({"install": InstallManifest(npm=("left-pad",))},),
}
assert tuple(PROBES) == FIELDS


def _render(codec: Codec, profile: AgentProfile, scope: Scope) -> Rendering:
    # What `roster render` does: the codec, then the check that refuses an agent the
    # harness would let do more than its profile (codecs/guard.py).
    request = RenderRequest(profiles=(profile,), servers=SERVERS, scope=scope)
    return render_guarded(codec, request, lambda rel: None)


def _errors(rendering: Rendering) -> set[str]:
    return {d.message for d in rendering.diagnostics if d.is_error}


def _losses(rendering: Rendering, field: str) -> set[tuple[str, str]]:
    return {(loss.outcome.value, loss.detail) for loss in rendering.losses if loss.field == field}


def outcomes(
    codec: Codec, field: str, values: Mapping[str, Any], scope: Scope = Scope.PROJECT
) -> set[Support]:
    """What rendering BASE with ``values`` set does with ``field``."""
    base = _render(codec, BASE, scope)
    probe = _render(codec, _replace(BASE, values), scope)
    found = {Support(outcome) for outcome, _ in _losses(probe, field) - _losses(base, field)}
    if _errors(probe) - _errors(base):
        found.add(Support.REFUSED)
    return found or {Support.KEPT}


def observed(codec: Codec, scope: Scope = Scope.PROJECT) -> dict[str, tuple[Support, ...]]:
    """Every field's outcomes over all its probes, in :class:`Support` order."""
    order = list(Support)
    result = {}
    for field, probes in PROBES.items():
        found: set[Support] = set()
        for values in probes:
            found |= outcomes(codec, field, values, scope)
        result[field] = tuple(sorted(found, key=order.index))
    return result


def _replace(profile: AgentProfile, values: Mapping[str, Any]) -> AgentProfile:
    import msgspec

    replace: Callable[..., AgentProfile] = msgspec.structs.replace
    return replace(profile, **values)
