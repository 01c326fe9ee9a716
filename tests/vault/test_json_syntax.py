"""Our own JSON syntax errors (issue 13): the same message and place on every Python.

CPython's ``json`` changed both its messages and its positions in 3.13; diagnostics built
from them differed between 3.12 and 3.13. ``json_syntax_error`` must agree with the decoder
on *whether* a text is valid (property-tested both ways) and say where and what by itself.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.vault.json_syntax import json_syntax_error

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 0, 2]), st.booleans())
def test_valid_json_has_no_error(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert json_syntax_error(f" \n{text}\t\r\n") is None


def _decoder_refuses(text: str) -> bool:
    try:
        json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except ValueError:
        return True
    except RecursionError:
        return False
    return False


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        st.text(alphabet='{}[]:,"\\ \n-+.0123456789eEaflnrstuN\x01', max_size=30),
        JSON_VALUES.map(json.dumps)
        .flatmap(
            lambda text: st.tuples(
                st.just(text),
                st.integers(0, len(text)),
                st.integers(0, len(text)),
                st.text(alphabet='{}[]:,"\\ x', max_size=2),
            )
        )
        .map(lambda t: t[0][: t[1]] + t[3] + t[0][t[2] :]),
    )
)
def test_errors_exactly_where_the_decoder_refuses(text: str) -> None:
    found = json_syntax_error(text)
    assert (found is not None) == _decoder_refuses(text), (text, found)
    if found is not None:
        assert 0 <= found.offset <= len(text)
        assert found.message and found.hint


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ('{"a": 1,}', 7, "trailing comma before '}'"),
        ("[1, 2, ]", 5, "trailing comma before ']'"),
        ('{"a": 1 "b": 2}', 8, "expected ',' or '}' after a member"),
        ("[1 2]", 3, "expected ',' or ']' after an item"),
        ("{'a': 1}", 1, "expected a key in double quotes"),
        ("{// c\n}", 1, "expected a key in double quotes"),
        ('{"a" 1}', 5, "expected ':' after the key"),
        ('{"a": }', 6, "expected a value"),
        ("", 0, "expected a value"),
        ("  ", 2, "expected a value"),
        ('"abc', 0, "unterminated string"),
        ('"a\\qb"', 2, "invalid escape in a string"),
        ('"a\\u12"', 2, "invalid escape in a string"),
        ('"a\tb"', 2, "control character in a string"),
        ("[01]", 1, "invalid number"),
        ("1.", 0, "invalid number"),
        ("+1", 0, "expected a value"),
        ("[NaN]", 1, "NaN is not valid JSON"),
        ("-Infinity", 0, "-Infinity is not valid JSON"),
        ("{} {}", 3, "more text after the JSON value"),
        ("[tru]", 1, "expected a value"),
        ('[{"a": [1,]}]', 9, "trailing comma before ']'"),
    ],
)
def test_messages_and_places(text: str, offset: int, message: str) -> None:
    found = json_syntax_error(text)
    assert found is not None and (found.offset, found.message) == (offset, message)


def test_deep_nesting_costs_no_recursion() -> None:
    assert json_syntax_error("[" * 200_000 + "]" * 200_000) is None
    found = json_syntax_error("[" * 200_000 + "}")
    assert found is not None and found.offset == 200_000


def test_whitespace_is_only_json_whitespace() -> None:
    for char in string.whitespace.replace(" ", "").replace("\t", "").replace("\n", ""):
        if char == "\r":
            continue
        assert json_syntax_error(f"{char}1") is not None
