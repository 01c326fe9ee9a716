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
from typing import Any, NamedTuple


class Mark(NamedTuple):
    """A 1-based file position."""

    line: int
    column: int


# Frontmatter positions repeat from file to file (``name`` on line 3, its value at column
# 7...); sharing one Mark per position saves building, collecting and freeing ten tuples
# per profile. Bounded: a hostile vault cannot grow it without limit.
_MARKS: dict[tuple[int, int], Mark] = {}


def mark(line: int, column: int) -> Mark:
    """The shared Mark for a position."""
    key = (line, column)
    found = _MARKS.get(key)
    if found is None:
        found = tuple.__new__(Mark, key)
        if len(_MARKS) < 65536:
            _MARKS[key] = found
    return found


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

#: The bytes of plain ASCII text: space to tilde, and the newline.
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
# Outside YAML's printable set less its line breaks other than "\n" (carriage return, NEL,
# U+2028 and U+2029, which this module does not split lines at): control characters, lone
# surrogates and the two noncharacters of the basic plane. Such a text is left to the full
# loader, which reports it with its position or breaks the line there. Written as the
# complement itself: the negated class took milliseconds to compile, at every start.
# Raw: the regex reads the escapes (mypyc compiles no string holding a surrogate).
_NON_PRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")

Marks = dict[str, Mark]


_NUMBER_START = frozenset("-+.0123456789")
_RESERVED_KEYS = frozenset(_BOOL) | _NULL
# Letters, digits, spaces and a few marks that mean nothing in a plain scalar (no ``#``,
# ``:``, quotes, brackets or tabs). Starting with a letter, such a value is a number under no
# rule, and a null or a boolean only when it is one of those words (``_RESERVED_KEYS``).
_PLAIN_TEXT = re.compile(r"[A-Za-z0-9 ._/()+=@-]*")


def _plain(value: str) -> tuple[bool, Any]:
    """Resolve a plain scalar with YAML 1.2 core rules; (False, None) to step aside."""
    if value in _NULL:
        return True, None
    if value in _BOOL:
        return True, _BOOL[value]
    if value[0] not in _NUMBER_START:
        return True, value  # every number form below starts with one of these
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


# Flow lists (``tags: [profile, agent-type, api]``) repeat across a vault's profiles. The
# items are immutable scalars; each caller gets a fresh list.
_FLOW_LISTS: dict[str, tuple[Any, ...] | None] = {}


def _flow_list(value: str) -> tuple[bool, Any]:
    if value in _FLOW_LISTS:
        items = _FLOW_LISTS[value]
        return (False, None) if items is None else (True, list(items))
    ok, resolved = _read_flow_list(value)
    if len(_FLOW_LISTS) < 4096:
        _FLOW_LISTS[value] = tuple(resolved) if ok else None
    return ok, resolved


def _read_flow_list(value: str) -> tuple[bool, Any]:
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


def load_flat(
    text: str, first_line: int, *, positions: bool = True
) -> tuple[dict[str, Any], Marks, Marks] | None:
    """Read flat frontmatter, or return None when it is not in the fast subset.

    Returns the data and the 1-based (line, column) of each key and value; without
    ``positions`` the two mappings of marks are left empty (the fast path of a valid
    profile needs none, and building them is a sixth of the reading)."""
    # Plain ASCII with nothing outside space..tilde but newlines cannot hold a character the
    # regex looks for; C-speed checks settle the usual case without it (deleting those
    # bytes leaves nothing: a tenth of the cost of the regex, or of removing the newlines
    # and asking isprintable, on the 20 KB frontmatter of a rendered OpenCode agent).
    if not (text.isascii() and not text.encode("ascii").translate(None, _PLAIN_ASCII)) and (
        _NON_PRINTABLE.search(text)
    ):
        return None
    data: dict[str, Any] = {}
    key_marks: Marks = {}
    value_marks: Marks = {}
    match_line = _LINE.match
    marks = _MARKS
    lines = text.split("\n")
    count = len(lines)
    index = 0
    while index < count:
        line = lines[index]
        line_no = first_line + index
        index += 1
        if not line or line[0] == "#" or line.isspace():
            continue
        match = match_line(line)
        if match is None:
            return None
        key, value = match.groups()
        if key in data or key in _RESERVED_KEYS:
            # Duplicates are reported by the full loader, with positions; keys such as
            # ``true`` or ``null`` resolve to non-strings there and get their own error.
            return None
        if value is not None:
            value = value.rstrip(" ")
        value_line = line_no
        resolved: Any
        if not value:
            following = lines[index] if index < count else ""
            if following[:2] == "- " or (
                following[:1] == " " and following.lstrip(" ")[:2] == "- "
            ):
                listed = _block_sequence(lines, index)
                if listed is None:
                    return None
                value_line = first_line + index  # the full loader marks the first "-"
                resolved, column, index = listed
            elif following[:1] == " ":
                nested = _nested_mapping(lines, index)
                if nested is None:
                    return None
                value_line = first_line + index  # the full loader marks the first inner key
                resolved, column, index = nested
            else:
                resolved = None
                column = len(key) + 2
        else:
            first = value[0]
            if first == "[":
                if value[-1] != "]":
                    return None
                ok, resolved = _flow_list(value)
            elif first.isalpha() and value not in _RESERVED_KEYS and _PLAIN_TEXT.fullmatch(value):
                # A plain word or phrase (``name: Coding Agent``): a string under every
                # rule below, so skip them.
                ok, resolved = True, value
            else:
                ok, resolved = _scalar(value)
            if not ok:
                return None
            column = match.start(2) + 1
        data[key] = resolved
        if positions:
            key_marks[key] = marks.get((line_no, 1)) or mark(line_no, 1)
            value_marks[key] = marks.get((value_line, column)) or mark(value_line, column)
    return data, key_marks, value_marks


# A nested key as rendered OpenCode agents write their permission maps (``'*': deny``,
# ``github_*: ask``): single-quoted without a quote inside, or plain, starting with a
# letter or ``_`` (so never a number, an alias or another indicator) and holding letters,
# digits and ``_ - . * /``, which mean nothing in a plain scalar.
_NESTED_LINE = re.compile(r"(?:'([^'\n]+)'|([A-Za-z_][A-Za-z0-9_.*/-]*)):(?:[ ]+(.*))?$")


def _nested_mapping(lines: list[str], start: int) -> tuple[dict[str, Any], int, int] | None:
    """One level of ``key: scalar`` lines under a key with no value, as MCP server files
    write ``env:`` and ``headers:``. Returns the mapping, the column of its first key (where
    the full loader puts the value) and the index of the first line after it; None for
    anything else (deeper nesting, lists, blank or comment lines inside, uneven indents)."""
    first = lines[start]
    indent = len(first) - len(first.lstrip(" "))
    prefix = " " * indent
    mapping: dict[str, Any] = {}
    index = start
    count = len(lines)
    # A line read before at this indent means what it meant then: a rendered OpenCode
    # agent repeats the same few hundred ``<server>_*: deny`` lines, which a render check
    # reads back for every agent. Runs of such lines are looked up and added at C speed
    # (a line's text fixes its indent, so each indent has a memo of its own).
    seen = _ENTRIES.setdefault(indent, {}) if indent < _INDENTS_KEPT else {}
    known = list(map(seen.get, lines[start:]))  # None where a line is new
    while index < count:
        try:
            run_end = start + known.index(None, index - start)
        except ValueError:
            run_end = count
        if run_end > index:
            size = len(mapping)
            # A run holds no None: it ends at the first one.
            mapping.update(known[index - start : run_end - start])  # type: ignore[arg-type]
            if len(mapping) != size + run_end - index:
                return None  # a key twice
            index = run_end
            if index == count:
                break
        line = lines[index]
        if not line:
            if index == count - 1:
                break  # the newline that ends the frontmatter
            return None
        if line[0] != " ":
            break  # the next top-level key
        if not line.startswith(prefix):
            return None
        match = _NESTED_LINE.match(line, indent)
        if match is None:
            return None
        quoted, plain_key, value = match.groups()
        key = plain_key if quoted is None else quoted
        if key in mapping or value is None:
            return None
        if quoted is None and (key in _BOOL or key in _NULL):
            return None
        value = value.rstrip(" ")
        if not value:
            return None
        if value.isalpha() and value not in _RESERVED_KEYS:
            resolved: Any = value  # a plain word (``deny``): a string under every rule
        else:
            ok, resolved = _scalar(value)
            if not ok:
                return None
        mapping[key] = resolved
        if len(seen) < _ENTRIES_KEPT:
            seen[line] = (key, resolved)  # scalars only: immutable, safe to share
        index += 1
    return mapping, indent + 1, index


def _block_sequence(lines: list[str], start: int) -> tuple[list[Any], int, int] | None:
    """A block list of scalars under a key with no value (``tools:`` then ``- Read``
    lines, as Claude Code agents are written), at the key's indent or deeper. Returns the
    list, the column of its first ``-`` (where the full loader puts the value) and the index
    of the first line after it; None for anything else (nested items, blank or comment
    lines inside, uneven indents, an item this module does not read)."""
    first = lines[start]
    indent = len(first) - len(first.lstrip(" "))
    prefix = " " * indent + "- "
    body = indent + 2
    items: list[Any] = []
    index = start
    count = len(lines)
    while index < count:
        line = lines[index]
        if not line:
            if index == count - 1:
                break  # the newline that ends the frontmatter
            return None
        if not line.startswith(prefix):
            if line[0] == " " or line[0] == "-" or (indent and line[0] == "#"):
                return None  # another indent, a bare "-", or a comment inside
            break  # the next top-level key
        value = line[body:].rstrip(" ")
        if not value or value[0] == " ":
            return None
        ok, resolved = _scalar(value)
        if not ok:
            return None
        items.append(resolved)
        index += 1
    return items, indent + 1, index


#: Nested ``key: scalar`` lines already read, by indent, then by their exact text: (key,
#: value). Bounded, as a hostile file could hold any number of distinct lines.
_ENTRIES: dict[int, dict[str, tuple[str, Any]]] = {}
_ENTRIES_KEPT = 65_536
_INDENTS_KEPT = 16
