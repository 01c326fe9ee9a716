"""A fast path for the flat frontmatter almost every profile has.

libyaml costs 40 to 90 µs per frontmatter, most of it in the Python-side resolver and
constructor, which is more than the whole per-profile budget of the parse benchmark. Nearly
all frontmatter is a flat list of ``key: scalar`` lines, quoted strings and ``[flow, lists]``,
so this module reads exactly that subset, resolving plain scalars with the same YAML 1.2 core
schema rules as the full loader. Anything outside the subset (nesting, block lists, multi-line
or escaped strings, anchors, tags, comments inside values, duplicate keys...) returns
``None`` and the caller uses libyaml; the two are checked against each other by a property
test, so the fast path can only ever agree with the full loader or step aside.
"""

from __future__ import annotations

import re
from typing import Any

# A key at column 0, a colon, then either the end of the line or a space and a value.
# (Greedy, with trailing spaces stripped afterwards: a lazy group before ``[ ]*$`` makes the
# engine retry the tail at every character.)
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT = re.compile(r"[-+]?[0-9]+$")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_OTHER_NUMBER = re.compile(r"0o|0x|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$")
# Characters that may not start a plain scalar (or that this fast path leaves to libyaml).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_ITEM = re.compile(r"[ ]*(?:\"([^\"\\]*)\"|'([^']*)'|([^,\[\]{}\"'#:&*!|>%@`]*?))[ ]*(?:,|$)")

# YAML's printable set; anything else (control characters, lone surrogates...) is left to the
# full loader, which reports it with its position.
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)

Marks = dict[str, tuple[int, int]]


def _plain(value: str) -> tuple[bool, Any]:
    """Resolve a plain scalar with YAML 1.2 core rules; (False, None) to step aside."""
    if value in _NULL:
        return True, None
    if value in _BOOL:
        return True, _BOOL[value]
    if _INT.match(value):
        if len(value) > 18:
            return False, None  # huge integers: the full loader reports them precisely
        return True, int(value, 10)
    if _FLOAT.match(value):
        return True, float(value)
    if _OTHER_NUMBER.match(value):
        return False, None  # octal, hex, inf and nan: rare, leave them to the full loader
    return True, value


def _scalar(value: str) -> tuple[bool, Any]:
    first = value[0]
    if first == '"':
        if len(value) >= 2 and value[-1] == '"' and '"' not in value[1:-1] and ("\\" not in value):
            return True, value[1:-1]
        return False, None
    if first == "'":
        if len(value) >= 2 and value[-1] == "'" and "'" not in value[1:-1]:
            return True, value[1:-1]
        return False, None
    if first in _INDICATORS or "#" in value or ": " in value or value.endswith(":"):
        return False, None
    if "\t" in value:
        return False, None
    return _plain(value)


_FLOW_PLAIN_BAD = re.compile(r"[\[\]{}\"'#:&*!|>%@`\t]")


def _flow_list(value: str) -> tuple[bool, Any]:
    inner = value[1:-1]
    if not inner.strip():
        return True, []
    if _FLOW_PLAIN_BAD.search(inner) is None:
        # The usual case, ``[a, b c, 1]``: plain items only, split on commas.
        items: list[Any] = []
        for part in inner.split(","):
            item = part.strip(" ")
            if not item or item[0] in _INDICATORS:
                return False, None
            ok, resolved = _plain(item)
            if not ok:
                return False, None
            items.append(resolved)
        return True, items
    return _flow_list_quoted(inner)


def _flow_list_quoted(inner: str) -> tuple[bool, Any]:
    items: list[Any] = []
    position = 0
    while position < len(inner):
        match = _FLOW_ITEM.match(inner, position)
        if match is None or match.end() == position:
            return False, None
        double, single, plain = match.groups()
        if double is not None:
            items.append(double)
        elif single is not None:
            items.append(single)
        else:
            if not plain or plain[0] in _INDICATORS or "\t" in plain:
                return False, None
            ok, resolved = _plain(plain)
            if not ok:
                return False, None
            items.append(resolved)
        position = match.end()
        if position == len(inner) and inner.rstrip().endswith(","):
            return False, None  # a trailing comma: leave the exact reading to libyaml
    return True, items


def load_flat(text: str, first_line: int) -> tuple[dict[str, Any], Marks, Marks] | None:
    """Read flat frontmatter, or return None when it is not in the fast subset.

    Returns the data and the 1-based (line, column) of each key and value."""
    if _NON_PRINTABLE.search(text):
        return None
    data: dict[str, Any] = {}
    key_marks: Marks = {}
    value_marks: Marks = {}
    line_no = first_line - 1
    for line in text.split("\n"):
        line_no += 1
        if not line or line.isspace():
            continue
        first = line[0]
        if first == "#":
            continue
        match = _LINE.match(line)
        if match is None:
            return None
        key, value = match.group(1), match.group(2)
        if value is not None:
            value = value.rstrip(" ")
        if key in data or key in _BOOL or key in _NULL:
            # Duplicates are reported by the full loader, with positions; keys such as
            # ``true`` or ``null`` resolve to non-strings there and get their own error.
            return None
        if value is None or value == "":
            resolved: Any = None
            column = len(key) + 2
        else:
            if value[0] == "[":
                if not value.endswith("]"):
                    return None
                ok, resolved = _flow_list(value)
            else:
                ok, resolved = _scalar(value)
            if not ok:
                return None
            column = match.start(2) + 1
        data[key] = resolved
        key_marks[key] = (line_no, 1)
        value_marks[key] = (line_no, column)
    return data, key_marks, value_marks
