"""Every codec through the whole Protocol (STYLE habit 3): render → files → discover.

* the example vault round-trips on each codec's native fields (README D12);
* on generated profiles, every native field either comes back equal or the render reported
  a loss for it: nothing is lost silently (issue 5 item 4);
* rendering is deterministic and idempotent: a second render over the first output
  produces the same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_roster.codecs import codec_names, get_codec
from agent_roster.codecs.base import LossOutcome, Scope
from agent_roster.codecs.tool_names import canonical_tools
from agent_roster.commands.harness import load_effective
from agent_roster.model.mcp import McpServer, Transport
from agent_roster.model.profile import (
    PERMISSION_MODES,
    AgentProfile,
    PermissionAction,
    PermissionRule,
    PromptSection,
)

from .helpers import (
    CHECKED_FIELDS,
    EXAMPLES,
    PERMISSION_FIELDS,
    field_value,
    render_and_discover,
    render_with,
    roundtrip_differences,
    same_field,
)

CODECS = codec_names()


@pytest.fixture(scope="module")
def example_set():  # type: ignore[no-untyped-def]
    return load_effective(EXAMPLES)


@pytest.mark.parametrize("name", CODECS)
@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.USER])
def test_example_vault_round_trips(name: str, scope: Scope, example_set, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    codec = get_codec(name)
    assert codec.name == name
    assert codec.native_fields, f"{name} claims no native fields"
    assert example_set.profiles and not example_set.diagnostics
    # About fields, not permissions: the example's restrictions that a harness cannot hold
    # are written anyway here (test_never_widen*.py and test_example_vault_renders_or_
    # refuses check that `roster render` refuses or narrows them instead).
    rendering, discovery = render_and_discover(
        codec, example_set.profiles, example_set.servers, scope, tmp_path, allow_widening=True
    )
    assert rendering.files, f"{name} rendered nothing for the example vault"
    errors = [d for d in rendering.diagnostics if d.is_error]
    rendered_ids = {p.id for p in discovery.profiles}
    # Every example profile is either rendered and rediscovered, or refused with an error.
    for profile in example_set.profiles:
        assert profile.id in rendered_ids or any(
            profile.id in d.message or profile.id in d.path for d in errors
        ), f"{name}: {profile.id} neither rendered nor refused"
    assert not discovery.refused, [d.format() for d in discovery.diagnostics if d.is_error]
    originals = [p for p in example_set.profiles if p.id in rendered_ids]
    assert originals, f"{name} could render none of the example profiles"
    assert roundtrip_differences(codec, originals, discovery.profiles, rendering.losses) == []


@pytest.mark.parametrize("name", CODECS)
def test_render_is_idempotent(name: str, example_set, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    codec = get_codec(name)
    first, _ = render_and_discover(codec, example_set.profiles, example_set.servers, root=tmp_path)
    second, _ = render_and_discover(codec, example_set.profiles, example_set.servers, root=tmp_path)
    assert {f.path: f.content for f in first.files} == {f.path: f.content for f in second.files}


@pytest.mark.parametrize("name", CODECS)
def test_every_file_names_its_profile_or_is_merged(name: str, example_set) -> None:  # type: ignore[no-untyped-def]
    """The render ledger (issue 13) needs to know whose file each is: a profile's own file
    names that profile; a file every agent shares is one roster merges into (and so never
    deletes while it holds the user's content)."""
    rendering = render_with(get_codec(name), example_set.profiles, example_set.servers)
    ids = {p.id for p in example_set.profiles}
    for file in rendering.files:
        assert (file.profile in ids) != file.merged, (name, file.path, file.profile)
        if file.profile:
            assert file.profile in file.path, (name, file.path)
    assert any(f.merged for f in rendering.files) or name in ("agh",), name


# --- generated profiles: a field comes back or its loss is reported ---------------------------

SERVERS = {
    "github": McpServer(
        name="github",
        transport=Transport.STDIO,
        command="npx",
        args=("-y", "@modelcontextprotocol/server-github"),
        env={"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
    ),
    "docs": McpServer(name="docs", transport=Transport.HTTP, url="https://example.com/mcp"),
}

_slug = st.from_regex(r"[a-z][a-z0-9-]{0,14}[a-z0-9]", fullmatch=True)
_text = (
    st.text(
        alphabet=st.characters(codec="utf-8", categories=("L", "N"), include_characters=" .,-"),
        min_size=1,
        max_size=40,
    )
    .map(str.strip)
    .filter(bool)
)
_tool = st.sampled_from(
    [*canonical_tools()[:20], "mcp__github__create_issue", "mcp__github__*", "mcp__docs__search"]
)
_rule = st.builds(
    PermissionRule,
    permission=st.sampled_from(["bash", "edit", "read", "webfetch", "*", "github_*"]),
    pattern=st.sampled_from(["*", "git *", "*.env", "src/*"]),
    action=st.sampled_from(list(PermissionAction)),
)


@st.composite
def profiles(draw: st.DrawFn) -> AgentProfile:
    ident = draw(_slug)
    sections = tuple(
        PromptSection(heading=h, body=draw(_text))
        for h in draw(
            st.lists(
                st.sampled_from(["Role", "Rules", "Reflection", "Style"]),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
    )
    return AgentProfile(
        id=ident,
        name=draw(st.one_of(st.just(ident), _text)),
        description=draw(st.one_of(st.just(""), _text)),
        model=draw(
            st.sampled_from(
                ["", "claude-sonnet-4-6", "anthropic/claude-sonnet-4-6", "gpt-5", "gemini-2.5-pro"]
            )
        ),
        permission_mode=draw(st.sampled_from(["", *PERMISSION_MODES])),
        max_turns=draw(st.one_of(st.none(), st.integers(1, 200))),
        temperature=draw(st.one_of(st.none(), st.sampled_from([0.0, 0.2, 0.7, 1.0]))),
        top_p=draw(st.one_of(st.none(), st.sampled_from([0.5, 0.9, 1.0]))),
        mode=draw(st.sampled_from(["", "subagent", "primary", "all"])),
        color=draw(st.sampled_from(["", "blue", "red", "#ff8800"])),
        permission=tuple(draw(st.lists(_rule, max_size=4))),
        allowed_tools=tuple(draw(st.lists(_tool, max_size=5, unique=True))),
        denied_tools=tuple(draw(st.lists(_tool, max_size=3, unique=True))),
        mcp_servers=tuple(
            draw(st.lists(st.sampled_from(sorted(SERVERS)), max_size=2, unique=True))
        ),
        sections=sections,
        source=f"agent-types/{ident}/profile.md",
    )


@pytest.mark.parametrize("name", CODECS)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(profile=profiles())
def test_nothing_is_lost_silently(
    name: str, profile: AgentProfile, tmp_path_factory: pytest.TempPathFactory
) -> None:
    codec = get_codec(name)
    root = tmp_path_factory.mktemp(name)
    rendering, discovery = render_and_discover(codec, [profile], SERVERS, Scope.PROJECT, root)
    if any(d.is_error for d in rendering.diagnostics):
        assert not rendering.files or all(profile.id not in f.path for f in rendering.files)
        return  # refused with a reason: nothing written for it
    back = {p.id: p for p in discovery.profiles}.get(profile.id)
    assert back is not None, [d.format() for d in discovery.diagnostics]
    lost = {loss.field for loss in rendering.losses if loss.profile == profile.id}
    if lost & PERMISSION_FIELDS:
        # The permission fields mean one rule list (helpers.PERMISSION_FIELDS): a loss
        # reported on one (Copilot drops acceptEdits) is the change an import then writes
        # as explicit rules in another (its own defaults: edits ask).
        lost |= PERMISSION_FIELDS
    silent = [
        f"{field}: {field_value(profile, field)!r} -> {field_value(back, field)!r}"
        for field in sorted(set(CHECKED_FIELDS) | codec.native_fields)
        if field not in lost and not same_field(profile, back, field)
    ]
    assert silent == [], f"{name} changed fields without reporting a loss"


@pytest.mark.parametrize("name", CODECS)
def test_unset_fields_are_never_reported(name: str, tmp_path: Path) -> None:
    """A loss names a field the profile sets; a minimal profile loses at most what it has."""
    minimal = AgentProfile(
        id="minimal",
        name="minimal",
        description="Answers questions about the code",
        model="claude-sonnet-4-6",
        sections=(PromptSection(heading="Role", body="You answer questions."),),
    )
    rendering, _ = render_and_discover(get_codec(name), [minimal], {}, Scope.PROJECT, tmp_path)
    # OpenCode derives a provider from the model family, and reports that it did.
    assert {loss.field for loss in rendering.losses} <= {
        "description",
        "model",
        "provider",
        "prompt",
    }


@pytest.mark.parametrize("name", CODECS)
def test_example_vault_renders_or_refuses(name: str, example_set, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`roster render` of the example vault (issue 13 item 6 against issue 12 item 2): each
    agent is written, or refused with `render-widens` naming what the harness cannot hold;
    no other error. A tool the harness cannot decide by argument is decided whole and
    stricter (reported), which is how Claude Code, defect and Gemini write every agent."""
    codec = get_codec(name)
    rendering, discovery = render_and_discover(
        codec, example_set.profiles, example_set.servers, Scope.PROJECT, tmp_path
    )
    errors = [d for d in rendering.diagnostics if d.is_error]
    assert {d.code for d in errors} <= {"render-widens"}, [d.format() for d in errors]
    refused = {loss.profile for loss in rendering.losses if loss.outcome is LossOutcome.REFUSED}
    written = {p.id for p in discovery.profiles}
    for profile in example_set.profiles:
        assert (profile.id in written) != (profile.id in refused), (name, profile.id)
    if name in ("claude", "opencode", "kilo", "qwen", "defect", "gemini"):
        assert not refused, (name, sorted(refused))
