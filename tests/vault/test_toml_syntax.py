"""TOML errors located and worded by roster, the same on every Python (issue 11 item 4)."""

from __future__ import annotations

import pytest

from agent_roster.vault.toml_syntax import TomlProblem, parse_toml, toml_position


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[mcp\n", (1, 5, "expected ']' to close the [table] header")),
        ("[[a]\n", (1, 4, "expected ']]' to close the [[array of tables]] header")),
        ('a = "x\n', (1, 7, "unterminated string")),
        ("a = 'x\n", (2, 1, "unterminated string")),
        ("a = '''\n", (2, 1, "unterminated string")),
        ("a = 1\na = 2\n", (2, 6, "a key is set twice")),
        ("[a]\n[a]\n", (2, 3, "a table is declared twice")),
        ("a = [1,\n", (2, 1, "expected a value")),
        ("x = tru\n", (1, 5, "expected a value")),
        ("a = 1 b = 2\n", (1, 7, "more text after a value on the same line")),
        ("= 1\n", (1, 1, "expected a key, a [table] header or a comment")),
        ("a b = 1\n", (1, 3, "expected '=' after the key")),
        ("a = {x=1,}\n", (1, 10, "expected a key")),
        ('a = "\\q"\n', (1, 8, "invalid escape in a string")),
        ('a = "\x01"\n', (1, 6, "control character U+0001 in a string")),
        ("# \x7f\n", (1, 3, "control character U+007F in a string or comment")),
        ("a = [1\n", (2, 1, "array not closed")),
        ("a = {x = 1\n", (1, 11, "inline table not closed")),
        ("a = 1979-02-30\n", (1, 5, "invalid date or time")),
        ("a = " + "[" * 50_000, (1, 1, "arrays or tables nest too deeply")),
        ("a = " + "1" * 5_000, (1, 5, "a number has too many digits")),
    ],
)
def test_every_refusal_is_located_and_worded_by_roster(
    text: str, expected: tuple[int, int, str]
) -> None:
    found = parse_toml(text)
    assert isinstance(found, TomlProblem)
    assert (found.line, found.column, found.message) == expected
    assert found.hint


def test_valid_toml_parses() -> None:
    assert parse_toml('a = 1\n[b]\nc = "d"\n') == {"a": 1, "b": {"c": "d"}}


TEXT = """\
# defect
model = "m"
[mcp.servers.s]
transport = "stdio"
  args = 1
[mcp.servers."t x"]
env.A = 1
'q'.r = 2
text = \"\"\"
k = 1
\"\"\"
"""


@pytest.mark.parametrize(
    ("path", "position"),
    [
        (("model",), (2, 1)),
        (("mcp", "servers", "s", "args"), (5, 3)),
        (("mcp", "servers", "s"), (3, 1)),
        (("mcp", "servers", "s", "url"), (3, 1)),  # not written: its table
        (("mcp", "servers", "t x", "env", "A"), (7, 1)),
        (("mcp", "servers", "t x", "env"), (7, 1)),
        (("mcp", "servers", "t x", "q", "r"), (8, 1)),
        (("mcp", "servers", "t x", "k"), (6, 1)),  # inside a string: not a key
        (("nowhere",), (1, 1)),
    ],
)
def test_positions_of_keys(path: tuple[str, ...], position: tuple[int, int]) -> None:
    assert toml_position(TEXT, path) == position
