"""Keys a harness decides whole (``Codec.whole_keys``): OpenCode and Kilo decide every file
edit under one key, ``edit``. A profile that decides those tools apart is made whole before
the first render (``guard.render_guarded``), which must come out exactly as the render,
check, narrow and render again it replaces, with one render fewer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_roster.codecs import get_codec
from agent_roster.codecs.base import Codec, ReadExisting, Rendering, RenderRequest, Scope
from agent_roster.codecs.guard import render_guarded, sharing_answers
from agent_roster.codecs.narrowing import keys_widened_whole, narrow, narrow_widened_whole
from agent_roster.model.profile import (
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

EDITS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
OTHERS = ("Read", "Bash", "Bash(git diff:*)", "Edit(src/**)", "WebFetch", "mcp__github__get_issue")


def _profile(pid: str, **fields: object) -> AgentProfile:
    return AgentProfile(
        id=pid,
        name=pid,
        description="edits",
        sections=(PromptSection(heading="Role", body="You edit."),),
        **fields,  # type: ignore[arg-type]
    )


CASES = {
    # Edit allowed, Write not: OpenCode's edit: allow would let Write through.
    "edit-only": _profile("edit-only", allowed_tools=("Read", "Edit")),
    # The other way round: edit: deny is already stricter; nothing is made whole.
    "write-only": _profile("write-only", allowed_tools=("Read", "Write"), denied_tools=("Edit",)),
    # Only the tools a check asks about count: MultiEdit denied beside Edit and Write
    # allowed splits nothing (semantics.UNPROBED).
    "both": _profile("both", allowed_tools=("Edit", "Write"), permission_mode="acceptEdits"),
    # MultiEdit allowed alone: edit: allow would let Edit and Write through.
    "multi": _profile("multi", allowed_tools=("Read", "MultiEdit"), permission_mode="acceptEdits"),
    # Decided by argument: left to the check (and its retry).
    "by-argument": _profile("by-argument", allowed_tools=("Read", "Edit(src/**)")),
    # A rule, not a Tools list: no key is split by tool.
    "rule": _profile(
        "rule", permission=(PermissionRule(permission="edit", action=PermissionAction.ASK),)
    ),
}


class _Counting:
    """``codec`` with its renders counted, and its whole keys as given."""

    def __init__(self, codec: Codec, whole_keys: frozenset[str]) -> None:
        self.codec = codec
        self.whole_keys = whole_keys
        self.renders = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.codec, name)

    def render(self, request: RenderRequest, existing: ReadExisting) -> Rendering:
        self.renders += 1
        return self.codec.render(request, existing)


def _both_ways(harness: str, profiles: tuple[AgentProfile, ...]) -> tuple[Rendering, int, int]:
    codec = get_codec(harness)
    request = RenderRequest(profiles=profiles, servers={}, scope=Scope.PROJECT)
    ahead = _Counting(codec, codec.whole_keys)
    after = _Counting(codec, frozenset())
    with sharing_answers():
        first = render_guarded(ahead, request, lambda path: None)  # type: ignore[arg-type]
    with sharing_answers():
        second = render_guarded(after, request, lambda path: None)  # type: ignore[arg-type]
    assert first.files == second.files
    assert first.diagnostics == second.diagnostics
    assert sorted(first.losses, key=repr) == sorted(second.losses, key=repr)
    return first, ahead.renders, after.renders


@pytest.mark.parametrize("harness", ["opencode", "kilo"])
def test_made_whole_ahead_is_the_check_and_retry_with_one_render(harness: str) -> None:
    assert get_codec(harness).whole_keys == frozenset({"edit"})
    rendering, ahead, after = _both_ways(harness, tuple(CASES.values()))
    # A key decided by argument still takes the check's retry.
    assert (ahead, after) == (2, 2)
    # Without it, the check finds edit-only and multi widened and renders again, unless
    # they were made whole ahead.
    whole = tuple(p for pid, p in CASES.items() if pid != "by-argument")
    assert _both_ways(harness, whole)[1:] == (1, 2)
    narrowed = {
        loss.profile
        for loss in rendering.losses
        if loss.field == "permission" and "cannot decide them apart" in loss.detail
    }
    assert narrowed == {"edit-only", "multi", "by-argument"}
    text = {f.profile: f.content for f in rendering.files}
    assert "edit: deny" in text["edit-only"] and "edit: deny" in text["multi"]
    assert "edit: allow" in text["both"]


def test_the_keys_widened_whole_are_the_ones_the_check_finds() -> None:
    found = {pid: keys_widened_whole(p, {"edit"}) for pid, p in CASES.items()}
    assert found == {
        "edit-only": {"edit"},
        "write-only": set(),
        "both": set(),
        "multi": {"edit"},
        "by-argument": set(),  # the check's retry narrows it
        "rule": set(),
    }
    assert keys_widened_whole(CASES["edit-only"], {"bash"}) == set()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    allowed=st.lists(st.sampled_from(EDITS + OTHERS), max_size=5, unique=True),
    denied=st.lists(st.sampled_from(EDITS + OTHERS), max_size=3, unique=True),
    mode=st.sampled_from(["", "acceptEdits", "plan", "default"]),
)
def test_any_tools_list_renders_the_same_either_way(
    allowed: list[str], denied: list[str], mode: str
) -> None:
    profile = _profile(
        "p", allowed_tools=tuple(allowed), denied_tools=tuple(denied), permission_mode=mode
    )
    _, ahead, after = _both_ways("opencode", (profile,))
    assert ahead <= after


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    allowed=st.lists(st.sampled_from(EDITS + OTHERS), max_size=5, unique=True),
    denied=st.lists(st.sampled_from(EDITS + OTHERS), max_size=3, unique=True),
    mode=st.sampled_from(["", "acceptEdits", "plan", "default", "bypassPermissions"]),
    rule=st.sampled_from([None, "allow", "ask", "deny"]),
)
def test_narrowing_the_keys_widened_whole_needs_no_second_look(
    allowed: list[str], denied: list[str], mode: str, rule: str | None
) -> None:
    # narrow_widened_whole skips what keys_widened_whole already found (its keys are split
    # by tool and have no rule by argument): it must give exactly what narrow gives.
    permission = (
        () if rule is None else (PermissionRule(permission="edit", action=PermissionAction(rule)),)
    )
    profile = _profile(
        "p",
        allowed_tools=tuple(allowed),
        denied_tools=tuple(denied),
        permission_mode=mode,
        permission=permission,
    )
    keys = keys_widened_whole(profile, {"edit", "bash", "read"})
    assert narrow_widened_whole(profile, keys) == narrow(profile, only=keys)


def test_forgetting_the_answers_empties_the_memos_and_changes_no_render() -> None:
    # A split render's parent empties the memos once its part is done
    # (commands/harness.py): the memos must really be emptied, and a render after that,
    # in the same block, must be the one a fresh block gives.
    from agent_roster.codecs import guard, permissions

    request = RenderRequest(profiles=tuple(CASES.values()), servers={}, scope=Scope.PROJECT)
    codec = get_codec("opencode")
    with sharing_answers():
        first = render_guarded(codec, request, lambda path: None)
        memos = (guard._ANSWERS.get(), permissions._REMEMBERED.get(), permissions._INDEXED.get())
        assert all(memo for memo in memos)  # the render filled each of them
        guard.forget_answers()
        assert not any(memo for memo in memos)
        again = render_guarded(codec, request, lambda path: None)
    assert again == first
