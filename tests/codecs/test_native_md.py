"""Native frontmatter writing: the fast layout is exactly PyYAML's safe dump."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_roster.codecs.native_md import _full_dump, dump_yaml

_scalars = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["*", "yes", "on", "null", "~", "123", "1.5", "a: b", "#x", "- x", "é", "'q"]),
    st.integers(-5, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
_keys = st.one_of(st.text(max_size=10), st.sampled_from(["*", "bash", "git *", "on", "a" * 130]))
_values: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(data=st.dictionaries(_keys, _values, min_size=1, max_size=6))
@example(data={"a": 0.0, "b": -0.0, "c": [1, True, 1.0]})  # equal as keys, not as YAML
def test_dump_yaml_is_pyyaml_safe_dump(data: dict[str, Any]) -> None:
    assert dump_yaml(data) == _full_dump(data)
