"""The TOML text written without tomlkit is byte for byte what tomlkit writes."""

from __future__ import annotations

from typing import Any

import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.toml_text import basic_string, plain_document

#: Strings with everything a basic string must escape: quotes, backslashes, control
#: characters, DEL, line breaks, and text beyond ASCII.
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(['"', "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "'"]),
        st.characters(codec="utf-8"),
    ),
    max_size=20,
)
BARE = st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)
SCALAR = st.one_of(TEXT, st.integers(min_value=-(2**63), max_value=2**63 - 1))
VALUE = st.one_of(SCALAR, st.lists(TEXT, max_size=4))


def by_tomlkit(keys: dict[str, Any]) -> str:
    doc = tomlkit.document()
    for key, value in keys.items():
        doc[key] = value
    return tomlkit.dumps(doc)


@settings(max_examples=400, deadline=None)
@given(
    top=st.dictionaries(BARE, VALUE, max_size=4),
    tables=st.dictionaries(BARE, st.dictionaries(BARE, VALUE, min_size=1, max_size=3), max_size=2),
)
def test_plain_documents_are_written_as_tomlkit_writes_them(
    top: dict[str, Any], tables: dict[str, dict[str, Any]]
) -> None:
    keys: dict[str, Any] = {**top, **{k: v for k, v in tables.items() if k not in top}}
    assert plain_document(keys) == by_tomlkit(keys)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_basic_strings_are_escaped_as_tomlkit_escapes_them(text: str) -> None:
    assert f"k = {basic_string(text)}\n" == by_tomlkit({"k": text})


def test_other_shapes_are_left_to_tomlkit() -> None:
    for keys in (
        {"a": 1.5},
        {"a": True},
        {"a key": "x"},
        {"a": [1, 2]},
        {"t": {"inner": {"deep": 1}}},
        {"t": {}},
        {"t": {"x": 1}, "after": "x"},
    ):
        assert plain_document(keys) is None, keys
