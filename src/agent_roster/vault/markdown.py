"""The markdown structure of a profile body: ``##`` sections and fenced code blocks.

Only what the format needs is recognised, following CommonMark where it matters: an ATX
heading of level 2 (up to three spaces of indentation, optional closing ``#``s) starts a
section, and fenced code (``` or ~~~, three or more, closed by the same character at least as
long) is opaque, so a ``## `` line inside a fence is text. Positions are kept as offsets into
the normalised text and 1-based line numbers, for diagnostics and later in-place edits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain
from typing import NamedTuple

_CLOSING_HASHES = re.compile(r"[ \t]+#+$|^#+$")


class Fence(NamedTuple):
    """A fenced code block. ``content_start``/``content_end`` are offsets of its inner text,
    ``content_line`` the file line of the first inner line, ``lang`` the lower-cased first
    word of the info string ("" when untagged)."""

    line: int
    column: int
    lang: str
    info: str
    start: int
    content_start: int
    content_end: int
    end: int
    content_line: int
    end_line: int
    closed: bool


class Section(NamedTuple):
    """A ``##`` section: heading as written, the heading's line and column, the offsets of
    its body, and the fences inside it."""

    heading: str
    line: int
    column: int
    start: int
    body_start: int
    body_end: int
    body_line: int
    fences: tuple[Fence, ...]
    key: str  # the heading with whitespace folded and case removed, for matching


def section_key(heading: str) -> str:
    return " ".join(heading.split()).casefold()


class Structure(NamedTuple):
    """``preamble_end`` is where the text before the first section ends."""

    preamble_end: int
    sections: tuple[Section, ...]
    unclosed: Fence | None


# ``NamedTuple.__new__`` is a Python function; the tuple constructor builds the same object
# several times faster, which counts for the dozen sections and fences of every profile.
_new = tuple.__new__

# Every line that can open or close a fence or start a section begins, after at most three
# spaces, with ``##`` and a blank, or with three backticks or tildes. One pattern finds
# those lines and, for a fence, also its whole content and closing line (the first line of
# the same character, at least as long, with nothing but blanks after it), so a fenced
# block costs Python one match instead of one per line. The groups: indent; heading rest;
# backtick run, info, closing indent; tilde run, info, closing indent. A backtick fence
# whose info string holds a backtick is inline code, not a fence, and matches nothing. (A
# pattern that starts with a literal newline lets the regex engine skip ahead quickly; a
# ``^`` in MULTILINE mode would be tried at every position.)
_PARTS = r"""([ ]{0,3})(?:
    \#\#(?=[ \t\n]|\Z)([^\n]*)
  | (`{3,})([^`\n]*)(?=\n|\Z)(?:\n(?:[^\n]*\n)*?([ ]{0,3})\3`*[^\S\n]*(?=\n|\Z))?
  | (~{3,})([^\n]*)(?:\n(?:[^\n]*\n)*?([ ]{0,3})\6~*[^\S\n]*(?=\n|\Z))?
)"""
_LINE = re.compile(r"\n" + _PARTS, re.X)
_FIRST_LINE = re.compile(_PARTS, re.X)

# The same few headings and info strings recur in every profile of a vault; what they
# resolve to is remembered. Bounded, so a hostile vault cannot grow them without limit.
_MEMO_LIMIT = 4096
_HEADINGS: dict[str, tuple[str, int, str]] = {}
_INFOS: dict[str, tuple[str, str]] = {}


def _heading(rest: str) -> tuple[str, int, str]:
    """The title in the rest of a ``##`` line, its column after the ``##``, and its key."""
    known = _HEADINGS.get(rest)
    if known is not None:
        return known
    title = rest.strip(" \t")
    if title:
        delta = len(rest) - len(rest.lstrip(" \t"))
        if title.endswith("#"):
            title = _CLOSING_HASHES.sub("", title).strip()
    else:
        delta = 0
    known = (title, delta, section_key(title))
    if len(_HEADINGS) < _MEMO_LIMIT:
        _HEADINGS[rest] = known
    return known


def _info(rest: str) -> tuple[str, str]:
    """A fence's info string and its language (the lower-cased first word)."""
    known = _INFOS.get(rest)
    if known is None:
        info = rest.strip()
        known = (info, info.split(maxsplit=1)[0].casefold() if info else "")
        if len(_INFOS) < _MEMO_LIMIT:
            _INFOS[rest] = known
    return known


def _candidates(text: str, offset: int) -> Iterator[re.Match[str]]:
    """Matches at or after ``offset`` (a line start); group 1 starts each line."""
    if offset:
        return _line_matches(text, offset - 1)
    first = _FIRST_LINE.match(text)
    if first is None:
        return _line_matches(text, 0)
    return chain((first,), _line_matches(text, first.end()))


#: From this many characters on, :func:`_line_matches` looks for candidates with ``find``.
LONG_TEXT = 8_192


def _line_matches(text: str, start: int, long: int = LONG_TEXT) -> Iterator[re.Match[str]]:
    """``_LINE.finditer(text, start)``, found faster in long prose (issue 12 item 8: 20-80
    KB prompts). The regex engine tries the pattern at every newline; but a line it can
    match has a ``#``, a backtick or a tilde after at most three spaces, and those
    characters are rare in prose, while ``str.find`` of one character runs at memory
    speed. So in a text of ``long`` characters or more, the first of them on each line is
    found, the newline before it (if only spaces stand between) is a candidate, and the
    candidates are matched in order as ``finditer`` would, each after the end of the last
    match (a property test compares the two). A short profile, mostly headings and
    fences, is quicker with ``finditer`` itself."""
    if len(text) - start < long:
        yield from _LINE.finditer(text, start)
        return
    find = text.find
    starts: set[int] = set()
    for mark in "#`~":
        at = find(mark, start)
        while at >= 0:
            line = at
            while line > start and at - line < 3 and text[line - 1] == " ":
                line -= 1
            if line > start and text[line - 1] == "\n":
                starts.add(line - 1)
            # The rest of this line cannot start one: go on from the next line.
            at = find("\n", at)
            if at >= 0:
                at = find(mark, at)
    match = _LINE.match
    end = start
    for at in sorted(starts):
        if at >= end:
            found = match(text, at)
            if found is not None:
                yield found
                end = found.end()


def scan(text: str, offset: int = 0, first_line: int = 1) -> Structure:
    """Scan ``text[offset:]`` (whose first line is file line ``first_line``).

    This runs once per profile on the hot path, so it is written for speed: one regex
    finds headings and whole fenced blocks, and line numbers are counted only between
    them."""
    sections: list[Section] = []
    fences: list[Fence] = []
    # The open section's first five fields (heading, line, column, start, body start), and
    # its last two (body line, key); ``None`` while in the preamble.
    opened: tuple[str, int, int, int, int] | None = None
    body_line = 0
    key = ""
    preamble_end = len(text)
    line = first_line
    last = offset
    unclosed: Fence | None = None
    count = text.count
    size = len(text)
    headings = _HEADINGS
    infos = _INFOS

    for match in _candidates(text, offset):
        indent, rest, b_run, b_info, _, _, t_info, _ = match.groups()
        pos = match.start(1)
        line += count("\n", last, pos)
        if rest is None:  # a fence
            if b_run is not None:
                info, lang = infos.get(b_info) or _info(b_info)
                eol = match.end(4)
                close = match.start(5)
            else:
                info, lang = infos.get(t_info) or _info(t_info)
                eol = match.end(7)
                close = match.start(8)
            if close < 0:
                # Never closed: everything after it is code, so the scan ends here.
                unclosed = _new(
                    Fence,
                    (
                        line,
                        len(indent) + 1,
                        lang,
                        info,
                        pos,
                        min(eol + 1, size),
                        size,
                        size,
                        line + 1,
                        line + count("\n", pos),
                        False,
                    ),
                )
                fences.append(unclosed)
                break
            close_line = line + count("\n", pos, close)
            fences.append(
                _new(
                    Fence,
                    (
                        line,
                        len(indent) + 1,
                        lang,
                        info,
                        pos,
                        eol + 1,
                        close,
                        match.end(),
                        line + 1,
                        close_line,
                        True,
                    ),
                )
            )
            line = close_line
            last = close
            continue
        last = pos
        # A level-2 heading closes the open section (or the preamble).
        if opened is None:
            preamble_end = pos
        else:
            sections.append(_new(Section, (*opened, pos, body_line, tuple(fences), key)))
        fences = []  # fences in the preamble belong to no section
        title, delta, key = headings.get(rest) or _heading(rest)
        eol = match.end()
        opened = (title, line, len(indent) + 3 + delta, pos, eol + 1 if eol < size else size)
        body_line = line + 1

    if opened is None:
        preamble_end = size
    else:
        sections.append(_new(Section, (*opened, size, body_line, tuple(fences), key)))
    return _new(Structure, (preamble_end, tuple(sections), unclosed))


#: A section as ``outline`` gives it: heading, key, body start and end offsets, and its
#: fences as (lang, content start, content end).
Outline = tuple[str, str, int, int, list[tuple[str, int, int]]]


def outline(text: str, offset: int = 0) -> list[Outline] | None:
    """The sections ``scan`` finds in ``text[offset:]``, without positions, or None when a
    fence is never closed.

    For the fast path of a valid profile, which needs each section's text and its fences'
    contents but no line or column: leaving those out (and the named tuples that carry
    them) makes this about a third cheaper than ``scan``. The same regex and memos decide
    what is a heading or a fence, and a property test checks that the two agree."""
    sections: list[Outline] = []
    fences: list[tuple[str, int, int]] = []
    opened: tuple[str, str, int] | None = None  # the open section's heading, key, body start
    size = len(text)
    headings = _HEADINGS
    infos = _INFOS
    for match in _candidates(text, offset):
        _, rest, b_run, b_info, _, _, t_info, _ = match.groups()
        if rest is None:  # a fence
            if b_run is not None:
                lang = (infos.get(b_info) or _info(b_info))[1]
                eol = match.end(4)
                close = match.start(5)
            else:
                lang = (infos.get(t_info) or _info(t_info))[1]
                eol = match.end(7)
                close = match.start(8)
            if close < 0:
                return None
            fences.append((lang, eol + 1, close))
            continue
        pos = match.start(1)
        if opened is not None:
            sections.append((*opened, pos, fences))
        fences = []  # fences in the preamble belong to no section
        title, _, key = headings.get(rest) or _heading(rest)
        eol = match.end()
        opened = (title, key, eol + 1 if eol < size else size)
    if opened is not None:
        sections.append((*opened, size, fences))
    return sections


_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def tidy(block: str) -> str:
    """Drop blank lines around a block of markdown but keep everything else verbatim."""
    if block[:1] not in BLANK_STARTS:
        return block.rstrip()  # no leading blank line is possible: skip the regex
    return _LEADING_BLANK_LINES.sub("", block).rstrip()


#: The first characters with which a block can start with a blank line.
BLANK_STARTS = ("", " ", "\t", "\n")
