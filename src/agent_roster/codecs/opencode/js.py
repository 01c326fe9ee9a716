"""JavaScript object semantics OpenCode's config goes through, reproduced for the codec.

OpenCode reads YAML frontmatter and JSON(C) into plain JavaScript objects, which put
integer-like keys ("0", "42") before every other key, in numeric order; layers are merged
with remeda ``mergeDeep`` (an existing key keeps its position and takes the new value, new
keys are appended, arrays and scalars replace). The permission rule order depends on both
(docs/codecs/permissions.md §1.2), so discovery and render model them exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from agent_roster.codecs.native_io import JsonProblem, parse_json

# ECMAScript "array index": a canonical decimal numeral below 2**32 - 1.
_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")


def is_array_index(key: str) -> bool:
    """Whether a JavaScript object would move ``key`` to the front (integer-like key)."""
    return bool(_INDEX.match(key)) and int(key) < 2**32 - 1


def js_key(key: object) -> str:
    """A YAML/JSON mapping key as the JavaScript property name it becomes."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        if math.isfinite(key) and key == int(key):
            return str(int(key))
        return repr(key)
    return str(key)


def js_object(value: Mapping[Any, Any]) -> dict[str, Any]:
    """``value`` with JavaScript's key order: array-index keys first (ascending), then the
    others in insertion order. Nested mappings are converted too."""
    # A render check reads back every OpenCode agent, whose permission map names every
    # server of the render: the common case (string keys, scalar values, no key starting
    # with a digit) is settled by a few C-speed passes and a copy.
    try:
        joined = "\n".join(value)  # fails unless every key is a string
    except TypeError:
        joined = None
    if (
        joined is not None
        and not joined[:1].isdigit()
        and _DIGIT_FIRST.search(joined) is None
        and set(map(type, value.values())) <= _SCALARS
    ):
        return dict(value)
    index: list[tuple[str, Any]] = []
    rest: list[tuple[str, Any]] = []
    for k, v in value.items():
        key = k if type(k) is str else js_key(k)
        if not (type(v) is str or v is None or type(v) is bool):
            v = jsify(v)
        if key[:1].isdigit() and is_array_index(key):
            index.append((key, v))
        else:
            rest.append((key, v))
    if not index:
        return dict(rest)
    index.sort(key=lambda kv: int(kv[0]))
    return dict(index + rest)


#: Values JavaScript holds as they are (no mapping to reorder inside).
_SCALARS = {str, type(None), bool, int, float}
#: A key after the first starting with a digit (a literal "\n" first: a fast search).
_DIGIT_FIRST = re.compile(r"\n[0-9]")


def jsify(value: Any) -> Any:
    """A decoded YAML/JSON value as JavaScript would hold it (mappings reordered)."""
    if isinstance(value, Mapping):
        return js_object(value)
    if isinstance(value, list | tuple):
        return [jsify(v) for v in value]
    return value


def merge_deep(target: Mapping[str, Any], source: Mapping[str, Any]) -> dict[str, Any]:
    """remeda ``mergeDeep(target, source)``: plain objects merge recursively, anything else
    from ``source`` replaces; existing keys keep their position."""
    out = dict(target)
    for key, value in source.items():
        current = out.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            out[key] = merge_deep(current, value)
        else:
            out[key] = value
    return js_object(out)


class JsoncError(ValueError):
    """A JSON(C) text that does not parse; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def strip_jsonc(text: str) -> tuple[str, bool]:
    """``text`` with ``//`` and ``/* */`` comments and trailing commas blanked out (line and
    column positions kept), and whether it had comments."""
    out = list(text)
    had = False
    for start, end, kind in _scan(text):
        if kind == "comment":
            had = True
            for j in range(start, end):
                if out[j] != "\n":
                    out[j] = " "
    blanked = "".join(out)
    for start, _end, kind in _scan(blanked):
        if kind == ",":
            j = start + 1
            while j < len(blanked) and blanked[j] in " \t\r\n":
                j += 1
            if j < len(blanked) and blanked[j] in "}]":
                out[start] = " "
    return "".join(out), had


def _scan(text: str) -> list[tuple[int, int, str]]:
    # Comment spans and commas outside strings.
    found: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            found.append((i, end, "comment"))
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            found.append((i, end, "comment"))
            i = end
            continue
        if c == ",":
            found.append((i, i + 1, ","))
        i += 1
    return found


def load_jsonc(text: str) -> tuple[Any, bool]:
    """Parse JSON with comments (``opencode.jsonc``); returns the value (JavaScript key
    order) and whether comments were present. Raises :class:`JsoncError`."""
    stripped, had_comments = strip_jsonc(text.removeprefix("\ufeff"))
    if not stripped.strip():
        return {}, had_comments
    value = parse_json(stripped)
    if isinstance(value, JsonProblem):
        raise JsoncError(value.message, value.line, value.column)
    try:
        return jsify(value), had_comments
    except RecursionError:
        raise JsoncError("arrays or objects nest too deeply", 1, 1) from None


def js_type(value: Any) -> str:
    """The type name zod reports for a JSON value (``array``, ``object``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
