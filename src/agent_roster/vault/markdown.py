"""The markdown structure of a profile body: ``##`` sections and fenced code blocks.

Only what the format needs is recognised, following CommonMark where it matters: an ATX
heading of level 2 (up to three spaces of indentation, optional closing ``#``s) starts a
section, and fenced code (``` or ~~~, three or more, closed by the same character at least as
long) is opaque, so a ``## `` line inside a fence is text. Positions are kept as offsets into
the normalised text and 1-based line numbers, for diagnostics and later in-place edits.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_INTERESTING = re.compile(
    r"^(?P<indent> {0,3})(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)"
    r"|##(?:[ \t]+(?P<title>[^\n]*?))?[ \t]*)$",
    re.M,
)
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

    @property
    def key(self) -> str:
        return " ".join(self.heading.split()).casefold()


class Structure(NamedTuple):
    """``preamble_end`` is where the text before the first section ends."""

    preamble_end: int
    sections: tuple[Section, ...]
    unclosed: Fence | None


def scan(text: str, offset: int = 0, first_line: int = 1) -> Structure:
    """Scan ``text[offset:]`` (whose first line is file line ``first_line``)."""
    sections: list[Section] = []
    fences: list[Fence] = []
    current: tuple[str, int, int, int, int, int] | None = None
    preamble_end = len(text)
    line = first_line
    last = offset
    open_fence: tuple[str, int, int, str, int, int, str] | None = None
    unclosed: Fence | None = None

    def close_section(end: int) -> None:
        nonlocal current, fences
        if current is None:
            return
        heading, h_line, h_col, start, body_start, body_line = current
        sections.append(
            Section(heading, h_line, h_col, start, body_start, end, body_line, tuple(fences))
        )
        fences = []

    for match in _INTERESTING.finditer(text, offset):
        pos = match.start()
        line += text.count("\n", last, pos)
        last = pos
        marker = match.group("fence")
        if open_fence is not None:
            char, length, start, info, f_line, f_col, lang = open_fence
            if (
                marker is not None
                and marker[0] == char
                and len(marker) >= length
                and not match.group("info").strip()
            ):
                content_start = text.find("\n", start) + 1
                fences.append(
                    Fence(
                        f_line,
                        f_col,
                        lang,
                        info,
                        start,
                        content_start,
                        pos,
                        match.end(),
                        f_line + 1,
                        line,
                        True,
                    )
                )
                open_fence = None
            continue
        if marker is not None:
            info = match.group("info")
            if marker[0] == "`" and "`" in info:
                continue  # inline code such as ```json {...}```, not a fence
            info = info.strip()
            lang = info.split(maxsplit=1)[0].casefold() if info else ""
            column = len(match.group("indent")) + 1
            open_fence = (marker[0], len(marker), pos, info, line, column, lang)
            continue
        # A level-2 heading.
        if current is None:
            preamble_end = pos
        close_section(pos)
        title = _CLOSING_HASHES.sub("", (match.group("title") or "").strip()).strip()
        title_col = match.start("title") - pos + 1 if match.group("title") else 3
        body_start = min(match.end() + 1, len(text))
        current = (title, line, title_col, pos, body_start, line + 1)

    if open_fence is not None:
        char, length, start, info, f_line, f_col, lang = open_fence
        content_start = text.find("\n", start) + 1 or len(text)
        end_line = line + text.count("\n", last)
        unclosed = Fence(
            f_line, f_col, lang, info, start, content_start, len(text), len(text),
            f_line + 1, end_line, False,
        )
        fences.append(unclosed)
    if current is None:
        preamble_end = len(text)
        fences = []
    close_section(len(text))
    return Structure(preamble_end, tuple(sections), unclosed)


_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def tidy(block: str) -> str:
    """Drop blank lines around a block of markdown but keep everything else verbatim."""
    return _LEADING_BLANK_LINES.sub("", block).rstrip()
