"""JSON inside fenced blocks: exact parsing, and file positions for any value in it.

``json.loads`` keeps no positions, and a position-tracking parser would slow the common case
down. So blocks are parsed with the C decoder, and only when a diagnostic needs a place is the
(already valid) text tokenised once, iteratively, into an index of where every key and value
starts; every later lookup is a dict hit, so a block with thousands of problems stays linear.
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

PathPart = str | int
JsonPath = tuple[PathPart, ...]

#: One JSON token that starts or ends something: a string, a bracket, or a bare literal
#: (number, true, NaN...). Colons and commas are skipped: in valid JSON, a string in an
#: object is a key exactly when the object's last entry is complete, and array items are
#: counted as they start, so neither is needed (half the tokens of a long block).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]|[^\s{}\[\]:,"]+', re.S)


class JsonIndex:
    """Offsets of every value (``values``) and object key (``keys``) by path, and every
    repeated key as (object path, key, offset) in ``duplicates``."""

    __slots__ = ("duplicates", "keys", "values")

    def __init__(self, text: str) -> None:
        self.values: dict[JsonPath, int] = {}
        self.keys: dict[JsonPath, int] = {}
        self.duplicates: list[tuple[JsonPath, str, int]] = []
        self._scan(text)

    def _scan(self, text: str) -> None:
        # ``text`` is valid JSON (the C decoder read it first). Frame: [path, keys seen (an
        # object) or None (an array), item count, expecting a key].
        values, keys, duplicates = self.values, self.keys, self.duplicates
        stack: list[list[Any]] = []
        frame: list[Any] | None = None
        pending: JsonPath = ()
        for match in _TOKEN.finditer(text):
            lexeme = match.group()
            if lexeme == "}" or lexeme == "]":
                stack.pop()
                frame = stack[-1] if stack else None
                if frame is not None and frame[1] is not None:
                    frame[3] = True  # the object's entry is complete: a key comes next
                continue
            start = match.start()
            if frame is not None:
                if frame[1] is None:
                    pending = (*frame[0], frame[2])
                    frame[2] += 1
                elif frame[3]:
                    key = lexeme[1:-1] if "\\" not in lexeme else json.loads(lexeme)
                    frame[3] = False
                    if key in frame[1]:
                        duplicates.append((frame[0], key, start))
                    frame[1].add(key)
                    pending = (*frame[0], key)
                    keys[pending] = start
                    continue
                else:
                    frame[3] = True  # a scalar value ends the entry (a container, its end)
            values[pending] = start
            if lexeme == "{":
                frame = [pending, set(), 0, True]
                stack.append(frame)
            elif lexeme == "[":
                frame = [pending, None, 0, False]
                stack.append(frame)


def items_index(
    text: str, value: dict[str, list[str]], wanted: Sequence[tuple[str, int, str]]
) -> JsonIndex | None:
    """An index holding only the offsets of the ``wanted`` items (key, index, item) of
    ``text``, a JSON object decoded as ``value``, whose values are lists of distinct
    strings, no string in two lists and no item equal to a key; ``wanted`` in the order of
    the text. Each item is then the one place ``"item"`` is written, if the text has no
    escapes: found with one ``find`` each, and checked to start a string (an even count of
    quotes before it). None when that
    cannot be relied on; then build a :class:`JsonIndex`. For the fast path's unknown-tool
    warnings, several times cheaper than the full scan."""
    if "\\" in text:
        return None
    values: dict[JsonPath, int] = {}
    # ``wanted`` is in the text's order: each search starts where the last one ended and
    # the quotes are counted once, so 100,000 items stay linear (issue 11 item 6).
    at = quotes = 0
    for key, position, item in wanted:
        found = text.find(f'"{item}"', at)
        if found < 0 or item in value:
            return None
        quotes += text.count('"', at, found)
        if quotes % 2:
            return None
        values[(key, position)] = found
        at = found + len(item) + 2
        quotes += 2
    index = JsonIndex.__new__(JsonIndex)
    index.keys, index.values, index.duplicates = {}, values, []
    return index


def find_token(text: str, predicate: Callable[[str], bool]) -> int | None:
    """Offset of the first lexeme outside strings for which ``predicate`` holds."""
    for match in _TOKEN.finditer(text):
        if predicate(match.group()):
            return match.start()
    return None


#: A JSON string literal on one line (JSONC's comments make quotes in them pair up only
#: within their own line).
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


class TextLines:
    """Positions in one text, each a lookup: the line and column of an offset (a bisect into
    the newline offsets, found once), and of the first occurrence of a JSON string literal
    (every literal of the text indexed once). Reporting every one of 50,000 bad entries of
    a file so costs one pass over it, not one pass per entry (issue 11 item 6)."""

    __slots__ = ("_literals", "_newlines", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None
        self._literals: dict[str, int] | None = None

    def line_column(self, offset: int, first_line: int = 1) -> tuple[int, int]:
        """Line (``first_line`` for the text's first) and 1-based column of ``offset``."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        before = bisect_left(self._newlines, offset)
        line_start = self._newlines[before - 1] + 1 if before else 0
        return first_line + before, offset - line_start + 1

    def find(self, needle: str) -> int:
        """Offset of the first ``needle`` in the text, -1 when absent: ``str.find``, but a
        quoted needle (``'"name"'``) is a dict hit on the text's string literals."""
        if len(needle) >= 2 and needle[0] == needle[-1] == '"' and "\n" not in needle:
            if self._literals is None:
                literals: dict[str, int] = {}
                for match in _STRING.finditer(self.text):
                    literals.setdefault(match.group(), match.start())
                self._literals = literals
            at = self._literals.get(needle)
            if at is not None:
                return at
        return self.text.find(needle)

    def locate(self, needle: str) -> tuple[int, int]:
        """Line and column of the first ``needle`` in the text; (1, 1) when absent."""
        at = self.find(needle)
        return (1, 1) if at < 0 else self.line_column(at)


@functools.lru_cache(maxsize=8)
def text_lines(text: str) -> TextLines:
    """The :class:`TextLines` of ``text``, kept for the next position asked of the same
    text (a file's readers ask one at a time, one per bad entry)."""
    return TextLines(text)


class JsonBlock:
    """The text of one ```json block, the file line of its first content line, and its
    decoded value."""

    __slots__ = ("_index", "_lines", "first_line", "text", "value")

    def __init__(
        self, text: str, first_line: int, value: Any, index: JsonIndex | None = None
    ) -> None:
        self.text = text
        self.first_line = first_line
        self.value = value
        self._index = index
        self._lines: TextLines | None = None

    def __repr__(self) -> str:
        return f"JsonBlock(first_line={self.first_line}, value={self.value!r})"

    @property
    def index(self) -> JsonIndex:
        if self._index is None:
            self._index = JsonIndex(self.text)
        return self._index

    def position(self, path: Sequence[PathPart] = (), *, key: bool = False) -> tuple[int, int]:
        """File (line, column) of the value at ``path``, or of its key when ``key`` is set.
        Falls back to the nearest enclosing value when the path does not exist."""
        return self.line_column(self.offset(tuple(path), key=key))

    def offset(self, path: JsonPath, *, key: bool = False) -> int:
        index = self.index
        if key and path in index.keys:
            return index.keys[path]
        while path not in index.values and path:
            path = path[:-1]
        return index.values.get(path, len(self.text) - len(self.text.lstrip()))

    def line_column(self, offset: int) -> tuple[int, int]:
        """File (line, column) of an offset into the block's text."""
        if self._lines is None:
            self._lines = TextLines(self.text)
        return self._lines.line_column(offset, self.first_line)


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
