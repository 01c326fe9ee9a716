"""How the vault holds prose byte for byte (issue 12 item 1): the roster-verbatim block.

A profile written by ``render_profile`` reads back with every prose section exactly as it
was, whatever the text holds; a hand-written profile means what it always meant; a broken
block is an error, never silently read as something else.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.model.profile import AgentProfile, NativeForm, PromptSection
from agent_roster.vault import verbatim
from agent_roster.vault.profile_parser import parse_profile
from agent_roster.vault.render import render_profile

from .test_fast_paths import _exact_paths

_PIECES = st.sampled_from(
    [
        "## Focus",
        "##",
        "---",
        "```",
        "````",
        "~~~",
        "```markdown roster-verbatim",
        "<div>",
        "   ",
        "\t",
        "é 🙂",
        "text",
        "\r",
        "\r\n",
        "\n",
        "\n\n",
        "`",
        "\x0b",
        "\u2028",
        "\ufeff",
    ]
)
TEXTS = st.one_of(
    st.lists(_PIECES, max_size=14).map("".join),
    st.text(st.characters(codec="utf-8"), max_size=40),
)


@settings(max_examples=600, deadline=None)
@given(role=TEXTS, rules=TEXTS)
def test_every_prose_text_reads_back_exactly(role: str, rules: str) -> None:
    sections = tuple(
        PromptSection(heading=heading, body=body)
        for heading, body in (("Role", role), ("Rules", rules))
    )
    profile = AgentProfile(id="p", name="p", sections=sections)
    text = render_profile(profile)
    fast = parse_profile(text, expected_id="p")
    with _exact_paths():
        exact = parse_profile(text, expected_id="p")
    for parsed in (fast, exact):
        assert parsed.ok, [d.format() for d in parsed.diagnostics]
        assert parsed.profile is not None
        assert parsed.profile.sections == sections
        assert parsed.profile.role == role


@settings(max_examples=300, deadline=None)
@given(head=TEXTS, tail=st.sampled_from(["", "\n", "\r\n"]), model=st.sampled_from(["", "m"]))
def test_the_native_memory_reads_back_exactly(head: str, tail: str, model: str) -> None:
    native = {"claude": NativeForm(head=head, tail=tail, model=model)}
    profile = AgentProfile(id="p", name="p", native=native)
    parsed = parse_profile(render_profile(profile), expected_id="p")
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.native == native


def test_plain_text_stays_plain_for_readers() -> None:
    body = "You review code.\n\n# Not a section\n\n```python\nx = 1\n```"
    assert verbatim.encode(body) == body
    text = render_profile(
        AgentProfile(id="p", name="p", sections=(PromptSection(heading="Role", body=body),))
    )
    assert f"## Role\n{body}\n" in text
    assert verbatim.MARKER not in text


def test_the_fence_outgrows_every_run_of_backticks_inside() -> None:
    body = "Run:\n``````\nno\n``````\n```` too"
    block = verbatim.block(body)
    assert block.startswith("```````markdown roster-verbatim\n")
    assert verbatim.decode(block) == (body, "")


def test_a_hand_written_section_is_read_as_always() -> None:
    """Without the marker a fence is prose, and a fence with the marker inside other text
    is prose too: only a section that is one marked block is verbatim."""
    text = (
        "---\nid: p\nname: p\n---\n## Role\n```markdown\nplain fence\n```\n\n"
        "## Rules\nIntro.\n```markdown roster-verbatim\nx\n```\n"
    )
    parsed = parse_profile(text, expected_id="p")
    assert parsed.ok and parsed.profile is not None
    assert parsed.profile.role == "```markdown\nplain fence\n```"
    assert parsed.profile.rules == "Intro.\n```markdown roster-verbatim\nx\n```"


def test_a_broken_block_is_an_error_with_its_position() -> None:
    broken = {
        "```markdown roster-verbatim zip\nx\n```": "unknown flag 'zip'",
        '```markdown roster-verbatim json\n"x\n```': "not a JSON string",
        "```markdown roster-verbatim json\n[1]\n```": "not a JSON string",
        "```markdown roster-verbatim\nx\n```\nafter": "closing fence and nothing after",
    }
    for block, message in broken.items():
        text = f"---\nid: p\nname: p\n---\n\n## Role\n{block}\n"
        parsed = parse_profile(text, expected_id="p")
        errors = [d for d in parsed.diagnostics if d.code == "verbatim-invalid"]
        assert len(errors) == 1, (block, parsed.diagnostics)
        assert message in errors[0].message
        assert (errors[0].line, errors[0].severity.value) == (7, "error")
