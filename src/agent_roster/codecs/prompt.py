"""The prompt in both directions (docs/codecs/README.md D4, D6).

Render writes ``AgentProfile.prompt`` (the Role section's text with no heading, then every
other prose section under its ``## Heading``) and, when a codec has constraints it can only
express as prose, one last section ``## Roster constraints`` whose body starts with a
marker. Import takes a native prompt whole, byte for byte, as the Role section (issue 12
item 1): its own headings, fences (closed or not), line ends and spacing stay as they are,
so rendering it back to the same harness gives the same text. Only the marked section roster
itself appended is taken off again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from agent_roster.model.profile import AgentProfile, PromptSection

EMBEDDED_HEADING = "Roster constraints"
EMBEDDED_MARKER = "<!-- roster:embedded -->"
# What render_prompt appends, to the end of the text: the heading, a blank line, the marker
# and one bullet per line (a file written with CRLF may carry them with CRLF).
_EMBEDDED = re.compile(
    r"(?:\A|\r?\n\r?\n)## "
    + re.escape(EMBEDDED_HEADING)
    + r"\r?\n\r?\n"
    + re.escape(EMBEDDED_MARKER)
    + r"(?:\r?\n- [^\r\n]*)*\Z"
)


def blank(text: str) -> bool:
    """Whether ``text.strip()`` is empty, without copying ``text`` (a prompt may be tens of
    kilobytes; ``isspace`` stops at its first visible character)."""
    return not text or text.isspace()


def stripped_shorter_than(text: str, size: int) -> bool:
    """Whether ``len(text.strip()) < size``, told from the text's head when that settles
    it: visible characters ``size`` or more apart there are as far apart in the whole."""
    head = text[: size + 64].strip()
    if len(head) >= size:
        return False
    return len(text.strip()) < size


def render_prompt(profile: AgentProfile, constraints: Sequence[str] = ()) -> str:
    """The native prompt text: the profile's prompt, plus the marked constraints section
    listing ``constraints`` (one bullet each) when there are any."""
    prompt = profile.prompt
    if not constraints:
        return prompt
    bullets = "\n".join(f"- {line}" for line in constraints)
    embedded = f"## {EMBEDDED_HEADING}\n\n{EMBEDDED_MARKER}\n{bullets}"
    return f"{prompt}\n\n{embedded}" if prompt else embedded


class ImportedPrompt(NamedTuple):
    """Sections recovered from a native prompt, and what import had to change (each a
    human sentence, reported as a loss)."""

    sections: tuple[PromptSection, ...]
    notes: tuple[str, ...]


def import_body(text: str) -> ImportedPrompt:
    """A native prompt as canonical prose: one Role section holding ``text`` exactly, less
    a trailing ``## Roster constraints`` section roster embedded (D4)."""
    notes: tuple[str, ...] = ()
    embedded = _EMBEDDED.search(text) if EMBEDDED_MARKER in text else None
    if embedded is not None:
        text = text[: embedded.start()]
        notes = ("removed the '## Roster constraints' section roster had embedded",)
    if not text:
        return ImportedPrompt((), notes)
    return ImportedPrompt((PromptSection(heading="Role", body=text),), notes)
