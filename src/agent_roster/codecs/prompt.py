"""The prompt in both directions (docs/codecs/README.md D4, D6).

Render writes ``AgentProfile.prompt`` (every prose section under its ``## Heading``) and, when
a codec has constraints it can only express as prose, one last section ``## Roster
constraints`` whose body starts with a marker. Import splits a native prompt with the vault's
own section rules, removes that marked section, turns leading text into ``## Role``, and
renames headings that would collide with a structured section.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from agent_roster.model.profile import AgentProfile, PromptSection
from agent_roster.vault import markdown

EMBEDDED_HEADING = "Roster constraints"
EMBEDDED_MARKER = "<!-- roster:embedded -->"
_STRUCTURED = frozenset({"config", "tools", "mcp servers", "install"})


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


def split_prompt(text: str) -> ImportedPrompt:
    """A native prompt as canonical prose sections (D6)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return ImportedPrompt((), ())
    structure = markdown.scan(text)
    notes: list[str] = []
    sections: list[PromptSection] = []
    lead = markdown.tidy(text[: structure.preamble_end])
    if lead.strip():
        sections.append(PromptSection(heading="Role", body=lead))
        if structure.sections:
            notes.append("text before the first ## heading became the Role section")
    for section in structure.sections:
        body = markdown.tidy(text[section.body_start : section.body_end])
        heading = section.heading
        if section.key == EMBEDDED_HEADING.casefold() and body.startswith(EMBEDDED_MARKER):
            notes.append("removed the '## Roster constraints' section roster had embedded")
            continue
        if section.key in _STRUCTURED:
            notes.append(
                f"prompt heading '## {heading}' renamed '## {heading} (prompt)' so the vault "
                "does not read it as a structured section"
            )
            heading = f"{heading} (prompt)"
        sections.append(PromptSection(heading=heading, body=body))
    return ImportedPrompt(tuple(sections), tuple(notes))
