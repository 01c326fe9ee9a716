"""The whole-tool reading of a profile's rules (``codecs/toolset.py``), shared by the Qoder
and Factory Droid codecs: its fast path for profiles with whole-tool lists only gives
exactly what the general reading does (the never-widen property itself is
tests/codecs/test_never_widen.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.claude.rules import tools_for_key
from agent_roster.codecs.tool_names import canonical_tools
from agent_roster.codecs.toolset import _whole_tools, whole_tools
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

_NAMES = st.sampled_from(
    [*canonical_tools(), "mcp__github__create_issue", "mcp__github__*", "mcp__docs__x", "deploy"]
)


@settings(max_examples=400, deadline=None)
@given(
    allowed=st.lists(_NAMES, max_size=5, unique=True),
    denied=st.lists(_NAMES, max_size=4, unique=True),
    plan=st.booleans(),
    servers=st.lists(st.sampled_from(["github", "docs"]), max_size=2, unique=True),
)
def test_the_fast_path_reads_as_the_rules_do(
    allowed: list[str], denied: list[str], plan: bool, servers: list[str]
) -> None:
    profile = AgentProfile(
        id="p",
        name="p",
        allowed_tools=tuple(allowed),
        denied_tools=tuple(denied),
        permission_mode="plan" if plan else "",
        mcp_servers=tuple(servers),
    )
    extra = tuple(tools_for_key("edit", ())) if plan else ()
    commands = frozenset({"deploy"})
    fast = _whole_tools(profile, "agent-queue", commands, extra, fast=True)
    general = _whole_tools(profile, "agent-queue", commands, extra, fast=False)
    assert fast == general


def test_a_deny_after_an_allow_wins_and_a_server_loses_a_denied_tool() -> None:
    rules = (
        PermissionRule(permission="bash", action=PermissionAction.ALLOW),
        PermissionRule(permission="*", action=PermissionAction.DENY),
    )
    assert whole_tools(AgentProfile(id="p", name="p", permission=rules)).allow == ()
    server = AgentProfile(
        id="p",
        name="p",
        allowed_tools=("Read", "mcp__github__*"),
        denied_tools=("mcp__github__create_issue",),
        mcp_servers=("github",),
    )
    verdict = whole_tools(server)
    assert verdict.allow == ("Read",) and verdict.narrowed == ("mcp__github__*",)
