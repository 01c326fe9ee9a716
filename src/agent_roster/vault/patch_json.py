"""Key-level edits of a JSON object's text that keep every other member as written.

Changing ``model`` in a Config block rewrites only the value after ``"model":``; removing a
key removes its member and one comma; a new key is appended after the last member with the
same indentation (on the same line, in one line, when the object is written on one line).
Line breaks, spacing and the layout of long lists elsewhere in the block stay byte-identical.
The text must be valid JSON holding an object (the caller checked).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from agent_roster.vault.render import to_json

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)


class Member(NamedTuple):
    key: str
    start: int  # the key's opening quote
    value_start: int
    value_end: int


class Layout(NamedTuple):
    open: int
    close: int
    members: tuple[Member, ...]


def scan(text: str) -> Layout:
    """The top-level object's braces and members, by offset."""
    depth = 0
    opened = closed = -1
    members: list[Member] = []
    key: str | None = None
    key_start = value_start = last_end = -1
    for match in _TOKEN.finditer(text):
        lexeme, start, end = match.group(), match.start(), match.end()
        if depth == 1 and lexeme in (",", "}") and key is not None and value_start >= 0:
            members.append(Member(key, key_start, value_start, last_end))
            key, value_start = None, -1
        if lexeme in "{[":
            if depth == 0:
                opened = start
            elif depth == 1 and key is not None and value_start < 0:
                value_start = start
            depth += 1
        elif lexeme in "}]":
            depth -= 1
            if depth == 0:
                closed = start
                break
        elif depth == 1 and lexeme not in ",:":
            if key is None:
                key, key_start = json.loads(lexeme), start
            elif value_start < 0:
                value_start = start
        last_end = end
    return Layout(opened, closed, tuple(members))


def _indent(text: str, offset: int) -> str | None:
    """The indentation before ``offset`` when it starts its line, else None."""
    line_start = text.rfind("\n", 0, offset) + 1
    prefix = text[line_start:offset]
    return prefix if not prefix.strip() else None


def _inline(value: Any) -> str:
    """A member written on a line with others stays on one line."""
    return json.dumps(value, ensure_ascii=False)


def set_member(text: str, key: str, value: Any) -> str:
    layout = scan(text)
    for member in layout.members:
        if member.key == key:
            here = _indent(text, member.start)
            rendered = _inline(value) if here is None else to_json(value, here)
            return text[: member.value_start] + rendered + text[member.value_end :]
    encoded = json.dumps(key, ensure_ascii=False)
    if not layout.members:
        return text[: layout.open] + to_json({key: value}) + text[layout.close + 1 :]
    last = layout.members[-1]
    indent = _indent(text, last.start)
    if indent is None:
        addition = f", {encoded}: {_inline(value)}"
    else:
        addition = f",\n{indent}{encoded}: {to_json(value, indent)}"
    return text[: last.value_end] + addition + text[last.value_end :]


def remove_member(text: str, key: str) -> str:
    layout = scan(text)
    members = layout.members
    for index, member in enumerate(members):
        if member.key != key:
            continue
        if len(members) == 1:
            return text[: layout.open] + "{}" + text[layout.close + 1 :]
        if index > 0:
            return text[: members[index - 1].value_end] + text[member.value_end :]
        return text[: member.start] + text[members[1].start :]
    return text


def apply(text: str, changes: Mapping[str, Any], remove: object) -> str:
    """Set each key of ``changes`` (``remove`` as a value deletes the key)."""
    for key, value in changes.items():
        text = remove_member(text, key) if value is remove else set_member(text, key, value)
    return text
