"""The render check of the harnesses whose files hold whole-tool lists (``codecs/wholetools.py``:
Qoder, Factory Droid) reads each written agent back into a profile to decide its calls."""

from __future__ import annotations

import pytest

from agent_roster.codecs import get_codec, permissions
from agent_roster.codecs.base import RenderRequest, Scope
from agent_roster.codecs.guard import render_guarded, sharing_answers
from agent_roster.model.profile import AgentProfile, PromptSection


@pytest.mark.parametrize("harness", ["droid", "qoder"])
def test_the_check_keeps_no_profile_it_read_back_until_the_render_ends(harness: str) -> None:
    # The rules memo of a render keeps every profile it is asked about until the render
    # ends. A profile read back from a written file holds the agent's whole prompt: kept
    # for every agent, that was half a gigabyte on a vault of 50 KB prompts.
    profiles = tuple(
        AgentProfile(
            id=f"agent-{n}",
            name=f"agent-{n}",
            description=f"Agent number {n}",
            allowed_tools=("Read", "Edit", "Bash"),
            denied_tools=("WebFetch",),
            sections=(PromptSection(heading="Role", body=f"Agent {n}. " + "x" * 2000),),
        )
        for n in range(5)
    )
    request = RenderRequest(profiles=profiles, servers={}, scope=Scope.PROJECT)
    codec = get_codec(harness)
    with sharing_answers():
        rendering = render_guarded(codec, request, lambda path: None)
        kept = permissions._REMEMBERED.get()
        assert kept is not None
        remembered = {id(profile) for profile, _ in kept.values()}
    written = {f.profile for f in rendering.files if f.profile}
    assert written == {p.id for p in profiles}  # every agent was written and checked
    assert not [d for d in rendering.diagnostics if d.is_error]
    assert remembered <= {id(p) for p in profiles}
    assert remembered  # the vault's own profiles are still remembered
