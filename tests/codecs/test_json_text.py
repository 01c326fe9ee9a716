"""``native_io.json_text`` writes every JSON file of a render: it must be exactly
``json.dumps(value, indent=2, ensure_ascii=False) + "\\n"`` whatever the value holds."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs import native_io
from agent_roster.codecs.native_io import json_text

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e100, 1e-7, -0.0, 0.1 + 0.2, 5e-324, 1e16])
    | st.text()  # control characters, U+2028, quotes and backslashes included
    | st.text(st.characters(codec=None, categories=["Cs", "Cc", "Zl"]), max_size=3)
)
_KEYS = st.text() | st.integers(min_value=-5, max_value=5) | st.booleans() | st.none()


def _values() -> st.SearchStrategy[Any]:
    return st.recursive(
        _SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.tuples(inner, inner)
            | st.dictionaries(st.text(max_size=8), inner, max_size=4)
            | st.dictionaries(_KEYS, inner, max_size=3)
        ),
        max_leaves=20,
    )


@settings(max_examples=400, deadline=None)
@given(_values())
def test_json_text_is_json_dumps_byte_for_byte(value: Any) -> None:
    assert json_text(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def test_the_usual_server_file_takes_the_fast_writer() -> None:
    servers = {
        "mcpServers": {
            "ctx": {"command": "npx", "args": ["-y", "@x/ctx"], "env": {"K": "${K}"}},
            "web": {"type": "http", "url": "https://example.com/mcp", "timeout": 30},
            "off": {"disabled": True, "tools": [], "headers": {}},
        }
    }
    assert native_io._plain_json(servers)
    assert json_text(servers) == json.dumps(servers, indent=2, ensure_ascii=False) + "\n"


def test_values_msgspec_writes_differently_are_not_given_to_it() -> None:
    for value in (1e100, math.nan, {1: "a"}, {True: 1}, 2**64, {"x": [1.5]}):
        assert not native_io._plain_json(value)
