"""Where a TOML text goes wrong, and what to say about it, in our own words.

``tomllib`` keeps the position of an error only in its message before Python 3.14
(``"... (at line 3, column 7)"`` or ``"... (at end of document)"``; 3.14 adds ``lineno``
and ``colno``), and the message is CPython's. Issue 11 item 4 and issue 13: roster's
diagnostics must not depend on the interpreter, so :func:`toml_problem` reads the position
from the attributes when there are any and from that suffix otherwise, and words the error
itself: the refusal is sorted into one of a few kinds by its leading words (a closed set in
``tomllib/_parser.py``, the same on 3.11 to 3.13), and anything it does not recognise is
"invalid TOML", never CPython's text. The offending character is read from the text.
Error path only.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import tomllib

_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")

_TWICE = "each key and table is defined once in a TOML file; merge the two definitions"
_STRING = "close the string with the quote it was opened with"
_ESCAPE = (
    'a backslash escapes only b t n f r " \\ and uXXXX or UXXXXXXXX; for backslashes '
    "use a literal string in single quotes"
)
_CONTROL = "write it escaped (\\n, \\t, \\u0000) or remove it"

#: Leading words of a ``tomllib`` refusal → our message (``{char}``: the character at the
#: error) and hint. Checked in order; the first match wins.
_KINDS: tuple[tuple[str, str, str], ...] = (
    ("Cannot declare", "a table is declared twice", _TWICE),
    ("Cannot overwrite", "a key is set twice", _TWICE),
    ("Cannot mutate", "a key is set twice", _TWICE),
    ("Cannot redefine", "a table is declared twice", _TWICE),
    ("Duplicate inline table key", "a key is set twice in an inline table", _TWICE),
    ("Expected ']]'", "expected ']]' to close the [[array of tables]] header", "write [[name]]"),
    ("Expected ']'", "expected ']' to close the [table] header", "write [name]"),
    ("Expected '='", "expected '=' after the key", 'write key = value, strings in "quotes"'),
    (
        "Expected newline",
        "more text after a value on the same line",
        "write one key = value per line; a comment starts with #",
    ),
    ("Expected '", "unterminated string", _STRING),
    ('Expected "', "unterminated string", _STRING),
    ("Unterminated string", "unterminated string", _STRING),
    ("Found invalid character", "control character {char} in a string or comment", _CONTROL),
    ("Illegal character", "control character {char} in a string", _CONTROL),
    ("Unescaped", "invalid escape in a string", _ESCAPE),
    ("Invalid hex value", "invalid escape in a string", _ESCAPE),
    ("Escaped character", "invalid escape in a string", _ESCAPE),
    ("Invalid date", "invalid date or time", "dates look like 1979-05-27 or 1979-05-27T07:32:00Z"),
    (
        "Invalid initial character for a key",
        "expected a key",
        "bare keys use A-Z a-z 0-9 _ and -; quote any other key",
    ),
    (
        "Invalid statement",
        "expected a key, a [table] header or a comment",
        "each line is key = value, [table], [[array of tables]] or # comment",
    ),
    (
        "Invalid value",
        "expected a value",
        'strings need quotes (key = "text"); true and false are lower case',
    ),
    ("Unclosed array", "array not closed", "separate items with commas and close it with ]"),
    (
        "Unclosed inline table",
        "inline table not closed",
        "close it with } on the same line; an inline table takes no trailing comma",
    ),
)
_FALLBACK = ("invalid TOML", "check the TOML syntax near this position")


class TomlProblem(NamedTuple):
    """A refused TOML text's first error as a diagnostic needs it: 1-based line and column
    in the text, message and hint."""

    line: int
    column: int
    message: str
    hint: str


def parse_toml(text: str) -> dict[str, Any] | TomlProblem:
    """``text`` as a TOML document, or its first problem (nesting too deep for the
    decoder included)."""
    # Imported here: its regexes take milliseconds to compile, at every CLI start that
    # parses no TOML at all (a render to Claude Code, a vault without roster.toml).
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return toml_problem(text, exc)
    except RecursionError:
        return TomlProblem(1, 1, "arrays or tables nest too deeply", "flatten the nesting")
    except ValueError:
        # An integer longer than Python converts (sys.get_int_max_str_digits).
        found = re.search(r"[0-9_]{4000,}", text)
        offset = found.start() if found is not None else 0
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return TomlProblem(line, column, "a number has too many digits", "write it as a string")


def toml_problem(text: str, exc: tomllib.TOMLDecodeError) -> TomlProblem:
    """The position and our wording of the error ``tomllib`` raised for ``text``."""
    raw = str(exc.args[0]) if exc.args else ""
    line, column = _position(text, exc, raw)
    reason = _AT.sub("", raw)
    message, hint = next(
        ((message, hint) for lead, message, hint in _KINDS if reason.startswith(lead)), _FALLBACK
    )
    if "{char}" in message:
        char = _char_at(text, line, column)
        if char in ("\n", "\r", ""):  # a line end inside a one-line string
            message, hint = "unterminated string", _STRING
        else:
            message = message.format(char=f"U+{ord(char):04X}")
    return TomlProblem(line, column, message, hint)


def _position(text: str, exc: tomllib.TOMLDecodeError, raw: str) -> tuple[int, int]:
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if isinstance(line, int) and isinstance(column, int) and line > 0 and column > 0:
        return line, column
    found = _AT.search(raw)
    if found is not None and found.group(1):
        return int(found.group(1)), int(found.group(2))
    # The end of the document (or a message without a position): the last character.
    line = text.count("\n") + 1
    return line, len(text) - (text.rfind("\n") + 1) + 1


def _char_at(text: str, line: int, column: int) -> str:
    # The character at a 1-based line and column ("" past the end).
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    offset = start + column - 1
    return text[offset] if 0 <= offset < len(text) else ""


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(?:#.*)?$")
#: One part of a key: bare, "basic" or 'literal'.
_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_ASSIGN = re.compile(rf"^(\s*)({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_KEY_PART = re.compile(rf"\s*({_PART})\s*(?:\.|$)")


def toml_position(text: str, path: tuple[str, ...]) -> tuple[int, int]:
    """1-based line and column of the key at ``path`` (``("mcp", "servers", "s", "args")``)
    in a TOML text ``tomllib`` accepted: a ``key =`` line under its table header (dotted
    keys included), or the header itself; the nearest enclosing key or header when the
    key is not written out; (1, 1) when nothing of it is. ``tomllib`` keeps no positions,
    and this runs on the error path only."""
    best: tuple[int, tuple[int, int]] = (0, (1, 1))
    table: tuple[str, ...] = ()
    in_string = False
    for number, line in enumerate(text.split("\n"), start=1):
        if in_string:  # inside a multi-line string: nothing here is a key
            in_string = line.count('"""') % 2 == 0 and line.count("'''") % 2 == 0
            continue
        header = _HEADER.match(line)
        if header is not None and not line.lstrip().startswith("#"):
            table = _split_key(header.group(1)) or table
            found: tuple[str, ...] = table
            column = line.index("[") + 1
        else:
            assign = _ASSIGN.match(line)
            if assign is None:
                continue
            in_string = (line.count('"""') + line.count("'''")) % 2 == 1
            found = table + _split_key(assign.group(2))
            column = len(assign.group(1)) + 1
        depth = _common(found, path)
        if depth in (len(found), len(path)) and depth > best[0]:
            best = (depth, (number, column))
            if depth == len(path):
                break
    return best[1]


def _split_key(key: str) -> tuple[str, ...]:
    parts: list[str] = []
    pos = 0
    while pos < len(key):
        part = _KEY_PART.match(key, pos)
        if part is None:
            return tuple(parts)
        word = part.group(1)
        if word[0] == '"':
            import tomllib

            try:
                word = tomllib.loads(f"k = {word}")["k"]
            except tomllib.TOMLDecodeError:
                word = word[1:-1]
        elif word[0] == "'":
            word = word[1:-1]
        parts.append(word)
        pos = part.end()
    return tuple(parts)


def _common(found: tuple[str, ...], path: tuple[str, ...]) -> int:
    depth = 0
    for a, b in zip(found, path, strict=False):
        if a != b:
            break
        depth += 1
    return depth
