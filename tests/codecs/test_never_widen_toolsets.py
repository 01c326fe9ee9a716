"""Never widen (issue 16 item 3): what a harness file gives an agent, read back by the
codec's own import, is never more than the profile allowed.

For generated profiles (allowed and denied tools, narrowed names, ordered rules, modes) each
harness renders; a refused profile is fine (render said why). Otherwise the profile import
reads from the written file must not let any tool call through that the original denied:
for every tool and every argument the original's rules mention (and a few others), the
imported profile's decision is ``deny`` wherever the original's is. The check evaluates the
canonical rules directly (``permissions.evaluate``), not the codecs' own reasoning.

Import itself must not widen either: it reads only what the harness honours (an entry the
harness ignores gives nothing), which ``test_import_never_grants_what_the_harness_ignores``
checks on native files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_roster.codecs import get_codec
from agent_roster.codecs.base import Roots, Scope
from agent_roster.codecs.permissions import effective_rules, evaluate
from agent_roster.codecs.tool_names import canonical_tools, opencode_key
from agent_roster.model.profile import (
    PERMISSION_MODES,
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from ..trees import build_tree
from .helpers import render_and_discover
from .test_every_codec import SERVERS

#: Harnesses whose tool lists take whole tools and that promise never to widen.
HARNESSES = ("qoder", "droid")
TOOLS = (*canonical_tools(), "mcp__github__create_issue", "mcp__github__other", "mcp__docs__search")
ARGUMENTS = ("zzz", "git log -1", "rm -rf /", "a.env", "src/a.py", "x")

_tool = st.sampled_from(
    [
        *canonical_tools()[:16],
        "Bash(git log:*)",
        "Bash(rm -rf:*)",
        "Read(src/*)",
        "mcp__github__create_issue",
        "mcp__github__*",
        "mcp__docs__search",
    ]
)
_rule = st.builds(
    PermissionRule,
    permission=st.sampled_from(["bash", "edit", "read", "webfetch", "*", "github_*", "glob"]),
    pattern=st.sampled_from(["*", "git *", "*.env", "src/*", "rm *"]),
    action=st.sampled_from(list(PermissionAction)),
)


@st.composite
def profiles(draw: st.DrawFn) -> AgentProfile:
    return AgentProfile(
        id="probe",
        name="probe",
        description="Probes the rules.",
        permission_mode=draw(st.sampled_from(["", *PERMISSION_MODES])),
        permission=tuple(draw(st.lists(_rule, max_size=4))),
        allowed_tools=tuple(draw(st.lists(_tool, max_size=4, unique=True))),
        denied_tools=tuple(draw(st.lists(_tool, max_size=3, unique=True))),
        mcp_servers=tuple(
            draw(st.lists(st.sampled_from(sorted(SERVERS)), max_size=2, unique=True))
        ),
        sections=(PromptSection(heading="Role", body="You probe the rules you are given."),),
    )


def _arguments(profile: AgentProfile) -> list[str]:
    found = list(ARGUMENTS)
    for rule in effective_rules(profile):
        found.append(rule.rule.pattern.replace("*", "x"))
    return found


def widened(before: AgentProfile, after: AgentProfile) -> list[str]:
    """Every (tool, argument) the imported profile lets through and the original denied."""
    old, new = effective_rules(before), effective_rules(after)
    out = []
    for tool in TOOLS:
        key = opencode_key(tool)
        for argument in _arguments(before):
            was = evaluate(old, key, argument).action
            now = evaluate(new, key, argument).action
            if was is PermissionAction.DENY and now is not PermissionAction.DENY:
                out.append(f"{tool}({argument}): {was.value} -> {now.value}")
    return out


@pytest.mark.parametrize("harness", HARNESSES)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(profile=profiles())
def test_a_rendered_agent_never_has_more_than_its_profile(
    harness: str, profile: AgentProfile, tmp_path_factory: pytest.TempPathFactory
) -> None:
    codec = get_codec(harness)
    for scope in (Scope.PROJECT, Scope.USER):
        root = tmp_path_factory.mktemp(harness)
        rendering, discovery = render_and_discover(codec, [profile], SERVERS, scope, root)
        if any(d.is_error and profile.id in d.message for d in rendering.diagnostics):
            assert not any(f.profile == profile.id for f in rendering.files)
            continue
        (back,) = [p for p in discovery.profiles if p.id == profile.id]
        assert widened(profile, back) == [], (harness, scope)


#: Native files whose tools the harness does not honour, and what import must make of
#: them: never a tool the harness does not give.
IGNORED = {
    "qoder": (
        ".qoder/agents/probe.md",
        "tools: [read, Bash(git log:*), mcp__github, LS]\n",
    ),
    "droid": (
        ".factory/droids/probe.md",
        "tools: [read, Bash, Write, all, mcp__github__create_issue]\n",
    ),
}


@pytest.mark.parametrize("harness", HARNESSES)
def test_import_never_grants_what_the_harness_ignores(harness: str, tmp_path: Path) -> None:
    """Each entry here gives the agent nothing in the harness (a wrong case, an argument
    pattern, a Claude name the harness does not take): import leaves it out, and the agent,
    having no tool left, comes back with the rule ``'*': deny``."""
    path, tools = IGNORED[harness]
    text = f"---\nname: probe\ndescription: Probes.\n{tools}---\n\nYou probe.\n"
    build_tree(tmp_path / "ws", {path: text})
    (tmp_path / "home").mkdir()
    found = get_codec(harness).discover(Roots(workspace=tmp_path / "ws", home=tmp_path / "home"))
    (profile,) = found.profiles
    assert profile.allowed_tools == ()
    assert profile.permission == (PermissionRule(permission="*", action=PermissionAction.DENY),)
    dropped = [loss.detail for loss in found.losses if loss.field == "allowed_tools"]
    assert len(dropped) >= 4, dropped
