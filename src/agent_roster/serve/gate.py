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

from agent_roster.codecs.permissions import SourcedRule, effective_rules, evaluate
from agent_roster.codecs.tool_names import opencode_key
from agent_roster.commands.context import Caller, RosterContext
from agent_roster.commands.registry import Command
from agent_roster.errors import ForbiddenError
from agent_roster.model.profile import PermissionAction
from agent_roster.resolve import tokens


class LaunchGate:
    """The :class:`~agent_roster.serve.mcp.Gate` of the daemon."""

    def __init__(self, key: bytes, daemon_token: str | None = None) -> None:
        self.key = key
        self.daemon_token = daemon_token
        #: (profile, project) → (the effective profile they were folded from, its rules):
        #: a tools/list asks once per command, and the index hands out the same object
        #: until the next sync changes it.
        self._rules: dict[tuple[str, str | None], tuple[object, tuple[SourcedRule, ...]]] = {}

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
        claims = tokens.verify(self.key, token)
        return Caller(profile=claims.profile, project=claims.project, task=claims.task)

    def refusal(self, ctx: RosterContext, caller: Caller | None, command: Command) -> str | None:
        if caller is None:
            return None
        index = ctx.index()
        # An empty profile is the cascade's last level, roster.toml's [defaults].
        found = index.effective(caller.profile, caller.project) if caller.profile else None
        if found is None and caller.profile:
            return f"its profile {caller.profile!r} no longer exists"
        profile = found.profile if found is not None else index.default().profile
        named = repr(caller.profile) if caller.profile else "(the roster.toml default)"
        embedded = ctx.config().embedded.name
        key = (caller.profile, caller.project)
        hit = self._rules.get(key)
        if hit is not None and hit[0] is profile:
            rules = hit[1]
        else:
            # The profile's Tools and permission rules decide; its permission_mode is how
            # the agent's own client asks, and must not open the server (bypassPermissions).
            tools_only = msgspec.structs.replace(profile, permission_mode="")
            rules = effective_rules(tools_only, embedded=embedded)
            self._rules[key] = (profile, rules)
        tool = f"mcp__{embedded}__{command.name}"
        decision = evaluate(rules, opencode_key(tool, embedded=embedded), "*")
        if decision.action is PermissionAction.ALLOW:
            return None
        if decision.rule is None:
            return f"no rule of profile {named} allows {command.name} (the default is ask)"
        rule = decision.rule
        if rule.source == "allowed_tools" and rule.rule.permission == "*":
            return (
                f"the allowed_tools of profile {named} do not list {command.name} "
                f"(rule {decision.position}: {rule.text()})"
            )
        return (
            f"rule {decision.position} of profile {named} ({rule.source}: "
            f"{rule.text()}) gives {decision.action.value}"
        )
