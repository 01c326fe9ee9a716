"""The prompt checks codecs make without copying a long prompt (``codecs/prompt.py``,
``AgentProfile.prompt_blank``) give exactly what stripping the prompt gives, and the
prompt, joined in one pass, is its sections as specified."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.prompt import blank, stripped_shorter_than
from agent_roster.model.profile import AgentProfile, PromptSection

_BITS = st.sampled_from(["", " ", "\n", "\t", "\r\n", "\u3000", "\x1c", "x", "## ", "Role", "é"])
_TEXTS = st.lists(_BITS, max_size=12).map("".join) | st.text(max_size=40)
_HEADINGS = st.sampled_from(["Role", "role", "ROLE", "Goals", "", " ", "Rôle"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.builds(PromptSection, heading=_HEADINGS, body=_TEXTS), max_size=3))
def test_prompt_blank_is_a_blank_prompt(sections: list[PromptSection]) -> None:
    profile = AgentProfile(id="p", name="p", sections=tuple(sections))
    assert profile.prompt_blank == (not profile.prompt.strip())


def _prompt_as_specified(sections: list[PromptSection]) -> str:
    # AgentProfile.prompt's docstring, step by step: the first Role section's body first,
    # with no heading; every other section under its heading, a blank line between.
    parts: list[str] = []
    role_seen = False
    for section in sections:
        if not role_seen and section.key == "role":
            role_seen = True
            if section.body:
                parts.insert(0, section.body)
        elif section.body:
            parts.append(f"## {section.heading}\n\n{section.body}")
        else:
            parts.append(f"## {section.heading}")
    return "\n\n".join(parts)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.builds(PromptSection, heading=_HEADINGS, body=_TEXTS), max_size=4))
def test_the_prompt_is_its_sections_joined_as_specified(sections: list[PromptSection]) -> None:
    profile = AgentProfile(id="p", name="p", sections=tuple(sections))
    assert profile.prompt == _prompt_as_specified(sections)
    assert profile.prompt_length == len(profile.prompt)


@settings(max_examples=500, deadline=None)
@given(_TEXTS, st.integers(min_value=0, max_value=12), st.integers(min_value=0, max_value=100))
def test_the_checks_are_strip_s(text: str, size: int, pad: int) -> None:
    padded = " " * pad + text + "\n" * pad
    for value in (text, padded, padded * 3):
        assert blank(value) == (not value.strip())
        assert stripped_shorter_than(value, size) == (len(value.strip()) < size)
