"""JSON inside fenced blocks: exact parsing, and file positions for any value in it.

``json.loads`` keeps no positions, and a position-tracking parser would slow the common case
down. So blocks are parsed with the C decoder, and only when a diagnostic needs a place is the
(already valid) text walked again with ``raw_decode`` to find where a key or value starts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

_decoder = json.JSONDecoder()
_WS = " \t\n\r"

PathPart = str | int


class JsonBlock(NamedTuple):
    """The text of one ```json block and where it starts in the file."""

    text: str
    first_line: int  # file line of the block's first content line
    value: Any

    def position(self, path: Sequence[PathPart] = (), *, key: bool = False) -> tuple[int, int]:
        """File (line, column) of the value at ``path``, or of its key when ``key`` is set.
        Falls back to the nearest enclosing value when the path does not exist."""
        offset = _locate(self.text, path, key)
        line = self.first_line + self.text.count("\n", 0, offset)
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return line, column


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WS:
        index += 1
    return index


def _locate(text: str, path: Sequence[PathPart], key: bool) -> int:
    index = _skip_ws(text, 0)
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        if index >= len(text):
            return index
        opener = text[index]
        if opener == "{" and isinstance(part, str):
            found = _find_member(text, index, part, key and last)
        elif opener == "[" and isinstance(part, int):
            found = _find_item(text, index, part)
        else:
            return index
        if found is None:
            return index
        index = found
    return index


def _find_member(text: str, index: int, wanted: str, want_key: bool) -> int | None:
    index = _skip_ws(text, index + 1)
    while index < len(text) and text[index] != "}":
        key_start = index
        name, index = _decoder.raw_decode(text, index)
        index = _skip_ws(text, index)
        index = _skip_ws(text, index + 1)  # past ':'
        if name == wanted:
            return key_start if want_key else index
        _, index = _decoder.raw_decode(text, index)
        index = _skip_ws(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_ws(text, index + 1)
    return None


def _find_item(text: str, index: int, wanted: int) -> int | None:
    index = _skip_ws(text, index + 1)
    position = 0
    while index < len(text) and text[index] != "]":
        if position == wanted:
            return index
        _, index = _decoder.raw_decode(text, index)
        index = _skip_ws(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_ws(text, index + 1)
        position += 1
    return None


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
