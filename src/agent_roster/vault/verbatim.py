"""Prose kept byte for byte: one fenced block that stands for a section's exact text.

A prose section's text is read back tidied (blank lines at its start and whitespace at its
end removed), ``##`` lines split it, a fence left open swallows the rest of the file, and
line ends are read as LF. A native prompt may hold any of these (issue 12 item 1), so the
vault writes such a text as a single fenced block whose info string carries the marker
``roster-verbatim``::

    ## Role
    ````markdown roster-verbatim
    You are a reviewer.

    ## Focus
    ```python
    ````

The block's content is the text plus one final newline. The fence is longer than any run
of backticks inside, so nothing in the text can close it. Flags after the marker say how to
read the content: ``crlf`` (every line break of the text is CRLF) or ``json`` (the content
is one JSON string: for lone CRs and other mixes a markdown file cannot carry). A text
that plain prose gives back unchanged is written plain, for readers (Obsidian shows it as
markdown); a hand-written section without the marker means what it always meant.
"""

from __future__ import annotations

import json
import re

from agent_roster.vault import markdown

MARKER = "roster-verbatim"
FLAGS = frozenset({"crlf", "json"})
_OPEN = re.compile(r"(`{3,})([^`\n]*)\n")
_BACKTICKS = re.compile(r"`+")


def plain_survives(text: str) -> bool:
    """Whether ``text`` written plain under a ``##`` heading reads back as exactly
    ``text``: tidy already, no CR, no ``##`` line or open fence, and not itself a block."""
    if not text:
        return True
    if "\r" in text or markdown.tidy(text) != text:
        return False
    found = markdown.outline(text)
    return found == [] and not _is_block(text)


def encode(text: str) -> str:
    """The section text that reads back as ``text``: ``text`` itself when plain prose
    keeps it, else a verbatim block."""
    return text if plain_survives(text) else block(text)


def block(text: str) -> str:
    """``text`` as a verbatim block (always; see :func:`encode`)."""
    runs = [len(run) for run in _BACKTICKS.findall(text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    flags = ""
    content = text
    if "\r" in text:
        crlf = text.count("\r\n")
        if crlf == text.count("\r") == text.count("\n"):
            flags, content = " crlf", text.replace("\r\n", "\n")
        else:  # lone CRs, or CRLF and LF mixed
            flags, content = " json", json.dumps(text, ensure_ascii=False)
    inner = f"{content}\n" if content else ""
    return f"{fence}markdown {MARKER}{flags}\n{inner}{fence}"


def _is_block(text: str) -> bool:
    opened = _OPEN.match(text)
    return opened is not None and MARKER in opened.group(2).split()


def decode(text: str) -> tuple[str, str]:
    """A tidied section text read back: ``(text, "")`` when it is not a verbatim block,
    ``(original, "")`` when it is one, ``(text, problem)`` when it is a broken one."""
    if not text.startswith("```"):
        return text, ""
    opened = _OPEN.match(text)
    if opened is None:
        return text, ""
    words = opened.group(2).split()
    if MARKER not in words:
        return text, ""
    flags = words[words.index(MARKER) + 1 :]
    unknown = [flag for flag in flags if flag not in FLAGS]
    if unknown:
        return text, f"unknown flag {unknown[0]!r} after {MARKER} (known: crlf, json)"
    fence = opened.group(1)
    start = opened.end()
    last = text.rfind("\n")
    # The scanner's closing-line rule (vault/markdown.py), for this fence's length.
    closing = re.compile(rf"[ ]{{0,3}}`{{{len(fence)},}}[^\S\n]*")
    if last < start - 1 or not closing.fullmatch(text, last + 1):
        return text, "the block must end with its closing fence and nothing after it"
    content = text[start : last + 1]
    if any(closing.fullmatch(line) for line in content.split("\n")):
        return text, "a line inside the block closes its fence early"
    body = content[:-1] if content else ""
    if "json" in flags:
        try:
            value = json.loads(body)
        except ValueError as exc:
            return text, f"the json content is not a JSON string: {exc}"
        if not isinstance(value, str):
            return text, "the json content is not a JSON string"
        return value, ""
    if "crlf" in flags:
        body = body.replace("\n", "\r\n")
    return body, ""
