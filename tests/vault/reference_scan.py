"""The section scanner as it was before the whole-fence regex: one candidate line at a
time, every rule spelled out in Python. Kept as the oracle the fast scanner is checked
against (test_fast_paths.py); not used by the package."""

from __future__ import annotations

import re

from agent_roster.vault.markdown import Fence, Section, Structure, section_key

_CLOSING_HASHES = re.compile(r"[ \t]+#+$|^#+$")


# Every line that can open or close a fence or start a section begins, after at most three
# spaces, with one of these characters; only those lines are examined. (A pattern that
# starts with a literal newline lets the regex engine skip ahead quickly; a ``^`` in
# MULTILINE mode would be tried at every position.)
_CANDIDATE = re.compile(r"\n {0,3}[`~#]")


def _candidate_lines(text: str, offset: int) -> list[int]:
    """Start offsets of the lines at or after ``offset`` (a line start) worth examining."""
    starts = [m.start() + 1 for m in _CANDIDATE.finditer(text, max(offset - 1, 0))]
    if offset == 0 and text[:4].lstrip(" ")[:1] in ("#", "`", "~"):
        starts.insert(0, 0)
    elif starts and starts[0] < offset:
        del starts[0]  # offset - 1 was not a newline: that match began before the region
    return starts


def _section(opened: tuple[str, int, int, int, int, int], end: int, fences: list[Fence]) -> Section:
    heading, line, column, start, body_start, body_line = opened
    return Section(
        heading,
        line,
        column,
        start,
        body_start,
        end,
        body_line,
        tuple(fences),
        section_key(heading),
    )


def scan(text: str, offset: int = 0, first_line: int = 1) -> Structure:
    """Scan ``text[offset:]`` (whose first line is file line ``first_line``).

    This runs once per profile on the hot path, so it is written for speed: ``str.find``
    locates candidate lines and plain string methods classify them."""
    sections: list[Section] = []
    fences: list[Fence] = []
    # The open section: heading, line, column, start, body start, body line.
    current: tuple[str, int, int, int, int, int] | None = None
    preamble_end = len(text)
    line = first_line
    last = offset
    # The open fence: char, length, start, info, line, column, lang.
    open_fence: tuple[str, int, int, str, int, int, str] | None = None
    unclosed: Fence | None = None
    count = text.count
    find = text.find
    size = len(text)

    for pos in _candidate_lines(text, offset):
        eol = find("\n", pos)
        if eol == -1:
            eol = size
        raw = text[pos:eol]
        stripped = raw.lstrip(" ")
        indent = len(raw) - len(stripped)
        char = stripped[0]
        if char == "#":
            if open_fence is not None or not stripped.startswith("##"):
                continue
            rest = stripped[2:]
            if rest and rest[0] not in " \t":
                continue  # "###" or "##x": not a level-2 heading
            marker = 0
        else:
            marker = len(stripped) - len(stripped.lstrip(char))
            if marker < 3:
                continue
            rest = stripped[marker:]
        line += count("\n", last, pos)
        last = pos
        if open_fence is not None:
            if char == open_fence[0] and marker >= open_fence[1] and not rest.strip():
                _, _, start, f_info, f_line, f_col, lang = open_fence
                fences.append(
                    Fence(
                        f_line,
                        f_col,
                        lang,
                        f_info,
                        start,
                        find("\n", start) + 1,
                        pos,
                        eol,
                        f_line + 1,
                        line,
                        True,
                    )
                )
                open_fence = None
            continue
        if marker:
            if char == "`" and "`" in rest:
                continue  # inline code such as ```json {...}```, not a fence
            info = rest.strip()
            lang = info.split(maxsplit=1)[0].casefold() if info else ""
            open_fence = (char, marker, pos, info, line, indent + 1, lang)
            continue
        # A level-2 heading closes the open section (or the preamble).
        if current is None:
            preamble_end = pos
            fences = []  # fences in the preamble belong to no section
        else:
            sections.append(_section(current, pos, fences))
            fences = []
        title = rest.strip(" \t")
        if title:
            title_col = indent + 3 + (len(rest) - len(rest.lstrip(" \t")))
            if title.endswith("#"):
                title = _CLOSING_HASHES.sub("", title).strip()
        else:
            title_col = indent + 3
        current = (title, line, title_col, pos, min(eol + 1, size), line + 1)

    if open_fence is not None:
        _, _, start, f_info, f_line, f_col, lang = open_fence
        content_start = find("\n", start) + 1 or size
        end_line = line + count("\n", last)
        unclosed = Fence(
            f_line,
            f_col,
            lang,
            f_info,
            start,
            content_start,
            size,
            size,
            f_line + 1,
            end_line,
            False,
        )
        fences.append(unclosed)
    if current is None:
        preamble_end = size
    else:
        sections.append(_section(current, size, fences))
    return Structure(preamble_end, tuple(sections), unclosed)
