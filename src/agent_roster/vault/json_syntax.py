"""Where JSON text first goes wrong, and what to say about it, in our own words.

The decoders (``json``, msgspec) only say *that* a text is invalid; the message and even
the position ``json`` reports are CPython's and change between versions (3.13 reports a
trailing comma at the comma, "Illegal trailing comma before end of object", where 3.12
reported the closing brace, "Expecting property name enclosed in double quotes"). Issue 13:
roster's diagnostics must not depend on that, so after a decoder has refused a text this
small scanner walks it once more, by RFC 8259's grammar, and names the first offending
character with a stable message and hint. It runs only on the error path, iteratively
(nesting depth costs no recursion).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class JsonSyntaxError(NamedTuple):
    """The first place a JSON text breaks the grammar: an offset into the text."""

    offset: int
    message: str
    hint: str


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER_RUN = re.compile(r"[-+0-9.eE]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')
_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')
_CONSTANTS = ("NaN", "Infinity", "-Infinity")

_VALUE_HINT = "write a JSON value here; comments and single quotes are not JSON"
_MISSING_COMMA = "a comma is missing between items, or a quote is not closed"
_TRAILING = "the last item takes no trailing comma"

# What the scanner expects next.
_VALUE, _FIRST_ITEM, _FIRST_KEY, _KEY, _COLON, _AFTER = range(6)


def json_syntax_error(text: str) -> JsonSyntaxError | None:
    """The first syntax error in ``text`` (one JSON value, whitespace around it), or
    ``None`` when the grammar holds. Values the grammar allows but a decoder may still
    refuse (a number too long to convert, a repeated key) are not its concern."""
    stack: list[str] = []  # "{" or "[" per open container
    state = _VALUE
    comma = -1  # offset of the comma just read, for a trailing comma before } or ]
    pos = 0
    end = len(text)
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        ch = text[pos] if pos < end else ""
        if state == _AFTER:
            if not stack:
                if not ch:
                    return None
                return JsonSyntaxError(
                    pos,
                    "more text after the JSON value",
                    "a block holds one JSON value: wrap several in [...] or remove the rest",
                )
            close = "}" if stack[-1] == "{" else "]"
            if ch == ",":
                comma, pos = pos, pos + 1
                state = _KEY if close == "}" else _VALUE
            elif ch == close:
                stack.pop()
                pos += 1
            else:
                item = "a member" if close == "}" else "an item"
                return JsonSyntaxError(
                    pos, f"expected ',' or '{close}' after {item}", _MISSING_COMMA
                )
            continue
        if state == _COLON:
            if ch != ":":
                return JsonSyntaxError(pos, "expected ':' after the key", 'write "key": value')
            pos, state = pos + 1, _VALUE
            continue
        if state in (_FIRST_KEY, _KEY):
            if ch == "}" and state == _FIRST_KEY:
                stack.pop()
                pos, state = pos + 1, _AFTER
                continue
            if ch == "}":
                return JsonSyntaxError(comma, "trailing comma before '}'", _TRAILING)
            if ch != '"':
                return JsonSyntaxError(
                    pos,
                    "expected a key in double quotes",
                    "keys need double quotes; comments are not JSON",
                )
            found = _string(text, pos)
            if isinstance(found, JsonSyntaxError):
                return found
            pos, state = found, _COLON
            continue
        # A value is expected (first item of an array, or after ',' or ':', or at the top).
        if ch == "]" and state == _FIRST_ITEM:
            stack.pop()
            pos, state = pos + 1, _AFTER
            continue
        if ch == "]" and stack and stack[-1] == "[" and comma >= 0 and state == _VALUE:
            return JsonSyntaxError(comma, "trailing comma before ']'", _TRAILING)
        comma = -1
        if ch in "{[" and ch:
            stack.append(ch)
            pos += 1
            state = _FIRST_KEY if ch == "{" else _FIRST_ITEM
            continue
        state = _AFTER
        if ch == '"':
            found = _string(text, pos)
            if isinstance(found, JsonSyntaxError):
                return found
            pos = found
        elif text.startswith(_CONSTANTS, pos):
            name = next(c for c in _CONSTANTS if text.startswith(c, pos))
            return JsonSyntaxError(
                pos,
                f"{name} is not valid JSON",
                "NaN and Infinity are not JSON; write a number or null",
            )
        elif ch and ch in "-0123456789":
            run = _NUMBER_RUN.match(text, pos)
            assert run is not None
            if _NUMBER.fullmatch(run.group()) is None:
                return JsonSyntaxError(
                    pos,
                    "invalid number",
                    "JSON numbers look like -12, 3.5 or 1e9: no leading zeros, no + sign, "
                    "a digit after the point",
                )
            pos = run.end()
        else:
            word = next((w for w in ("true", "false", "null") if text.startswith(w, pos)), "")
            if not word:
                return JsonSyntaxError(pos, "expected a value", _VALUE_HINT)
            pos += len(word)


def _string(text: str, start: int) -> int | JsonSyntaxError:
    """The offset after the string that opens at ``start``, or its first error."""
    pos = start + 1
    while True:
        pos = _PLAIN.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            return JsonSyntaxError(
                start, "unterminated string", "close the string with a double quote"
            )
        ch = text[pos]
        if ch == '"':
            return pos + 1
        if ch == "\\":
            escape = _ESCAPE.match(text, pos)
            if escape is None:
                return JsonSyntaxError(
                    pos,
                    "invalid escape in a string",
                    'a backslash escapes only " \\ / b f n r t and uXXXX; write \\\\ for one',
                )
            pos = escape.end()
            continue
        return JsonSyntaxError(
            pos,
            "control character in a string",
            "write it escaped: \\n for a new line, \\t for a tab",
        )


class JsonProblem(NamedTuple):
    """A refused JSON text's first error as a diagnostic needs it: 1-based line and
    column in the text, message and hint."""

    line: int
    column: int
    message: str
    hint: str


def json_problem(text: str, refused_at: int = 0) -> JsonProblem:
    """The first error of ``text``, which a decoder has refused (``refused_at``: its
    offset, used only should the grammar find nothing, e.g. a lone surrogate)."""
    found = json_syntax_error(text) or JsonSyntaxError(
        refused_at, "not valid JSON", "check the JSON syntax near this position"
    )
    line = text.count("\n", 0, found.offset) + 1
    column = found.offset - (text.rfind("\n", 0, found.offset) + 1) + 1
    return JsonProblem(line, column, found.message, found.hint)
