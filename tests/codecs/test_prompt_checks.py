"""The prompt checks codecs make without copying a long prompt (``codecs/prompt.py``,
``AgentProfile.prompt_blank``) give exactly what stripping the prompt gives."""

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


@settings(max_examples=500, deadline=None)
@given(_TEXTS, st.integers(min_value=0, max_value=12), st.integers(min_value=0, max_value=100))
def test_the_checks_are_strip_s(text: str, size: int, pad: int) -> None:
    padded = " " * pad + text + "\n" * pad
    for value in (text, padded, padded * 3):
        assert blank(value) == (not value.strip())
        assert stripped_shorter_than(value, size) == (len(value.strip()) < size)
