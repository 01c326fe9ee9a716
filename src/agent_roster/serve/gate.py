"""Who may call which command over MCP (issue 14 item 3, "per-launch credentials").

A request without a launch token is the local user (loopback; beyond loopback the request
guard already demanded the daemon's token) and sees every command. A request with a launch
token is an agent launched for a task and profile: it sees, and may call, only the commands
its effective profile's Tools *allow*, decided by the canonical permission rules (the same
evaluator as ``roster can``) for the embedded server's tool ``mcp__<embedded>__<command>``.
``ask`` counts as no: nobody is there to answer over MCP. The check runs in the server, so
it holds whatever permission mode the agent itself runs with (``bypassPermissions``
included).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from pathlib import Path

import msgspec

from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.tool_names import opencode_key
from agent_roster.commands.context import Caller, RosterContext
from agent_roster.commands.registry import Command
from agent_roster.errors import ForbiddenError
from agent_roster.model.profile import PermissionAction
from agent_roster.serve import tokens


class LaunchGate:
    """The :class:`~agent_roster.serve.mcp.Gate` of the daemon."""

    def __init__(self, key: bytes, daemon_token: str | None = None) -> None:
        self.key = key
        self.daemon_token = daemon_token

    @classmethod
    def for_folder(cls, folder: Path, daemon_token: str | None = None) -> LaunchGate:
        return cls(tokens.launch_key(folder), daemon_token)

    def verify(self, token: str) -> bool:
        """Whether ``token`` is a valid launch token (for the request guard)."""
        try:
            tokens.verify(self.key, token)
        except ForbiddenError:
            return False
        return True

    def caller(self, headers: Mapping[str, str] | None) -> Caller | None:
        value = (headers or {}).get("authorization", "")
        scheme, _, token = value.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        if self.daemon_token is not None and hmac.compare_digest(token, self.daemon_token):
            return None
        return tokens.verify(self.key, token)

    def refusal(self, ctx: RosterContext, caller: Caller | None, command: Command) -> str | None:
        if caller is None:
            return None
        found = ctx.index().effective(caller.profile, caller.project)
        if found is None:
            return f"its profile {caller.profile!r} no longer exists"
        embedded = ctx.config().embedded.name
        tool = f"mcp__{embedded}__{command.name}"
        # The profile's Tools and permission rules decide; its permission_mode is how the
        # agent's own client asks, and must not open the server (bypassPermissions).
        tools_only = msgspec.structs.replace(found.profile, permission_mode="")
        rules = effective_rules(tools_only, embedded=embedded)
        decision = evaluate(rules, opencode_key(tool, embedded=embedded), "*")
        if decision.action is PermissionAction.ALLOW:
            return None
        if decision.rule is None:
            return f"no rule of profile {caller.profile!r} allows {command.name}"
        rule = decision.rule
        return (
            f"rule {decision.position} of profile {caller.profile!r} ({rule.source}: "
            f"{rule.text()}) gives {decision.action.value}"
        )
