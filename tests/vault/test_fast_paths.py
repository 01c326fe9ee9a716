"""Fast paths agree with the exact rules they shortcut."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.vault import paths

SEGMENTS = st.one_of(
    st.text(max_size=140),
    st.text(alphabet="ab.-_ /\\:\t\x00\x85\u00a0é", max_size=8),
    st.sampled_from(
        [
            "coding",
            ".hidden",
            "a..b",
            "..",
            "a b",
            " a",
            "a ",
            "x" * 128,
            "x" * 129,
            "a:b",
            "a\x7fb",
            "\u2003a",
        ]
    ),
)


@settings(max_examples=2000, deadline=None)
@given(SEGMENTS)
def test_segment_regex_agrees_with_the_rules(value: str) -> None:
    fast = paths._SAFE_SEGMENT.match(value) is not None
    slow = _slow_problem(value) is None
    assert fast == slow, repr(value)


def _slow_problem(value: str) -> str | None:
    # The rules written out longhand, as the issue states them.
    if not value:
        return "empty"
    if ".." in value:
        return "dots"
    if value.startswith("."):
        return "leading dot"
    for char in value:
        if char in "/\\:" or ord(char) < 32 or 127 <= ord(char) < 160:
            return "bad char"
    if value != value.strip():
        return "whitespace"
    if len(value) > paths.MAX_SEGMENT:
        return "long"
    return None
