"""The edits :mod:`agent_roster.vault.patch` applies: each knows the span it rewrites, how to
rewrite it from the parser's positions, and how to check the re-parsed result."""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

from agent_roster.errors import UsageError
from agent_roster.vault import patch_frontmatter as fmpatch
from agent_roster.vault import patch_json
from agent_roster.vault.markdown import Section, section_key, tidy
from agent_roster.vault.profile_parser import STRUCTURED, ProfileDocument
from agent_roster.vault.render import to_json


class Remove(Enum):
    """Type of :data:`REMOVE`: "delete this key / list / section"."""

    REMOVE = "remove"


REMOVE = Remove.REMOVE
#: Where a structured section goes when it has to be created.
ORDER = ("config", "tools", "mcp servers", "install")
_HEADINGS = {
    "config": "Config",
    "tools": "Tools",
    "mcp servers": "MCP Servers",
    "install": "Install",
}
MISSING: Any = object()


def same(a: Any, b: Any) -> bool:
    """Equal as JSON: ``1`` is not ``true``, a tuple is its list, MISSING only itself."""
    if a is MISSING or b is MISSING:
        return a is b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class Edit:
    """One change to a profile document. ``apply`` returns the new text; ``spans`` are the
    line ranges it rewrites (checked for errors first); ``verify`` checks the re-parsed
    result and returns a problem, or None."""

    label = "the file"

    def apply(self, doc: ProfileDocument) -> str:
        raise NotImplementedError

    def spans(self, doc: ProfileDocument) -> list[tuple[int, int]]:
        raise NotImplementedError

    def verify(self, doc: ProfileDocument) -> str | None:
        raise NotImplementedError


class FrontmatterEdit(Edit):
    def __init__(self, key: str, value: Any) -> None:
        self.key = fmpatch.check_key(key)
        self.value = value
        self.label = f"frontmatter key {key!r}"

    def apply(self, doc: ProfileDocument) -> str:
        value = fmpatch.DELETE if self.value is REMOVE else self.value
        return fmpatch.set_key(doc.text, doc.frontmatter, self.key, value, path=doc.path)

    def spans(self, doc: ProfileDocument) -> list[tuple[int, int]]:
        if doc.frontmatter.present:
            return [(1, doc.frontmatter.end_line)]
        # No frontmatter yet: an error before the first section (a misplaced ---) blocks
        # adding one, which would turn the old block into plain text.
        preamble = doc.structure.preamble_end
        return [(1, doc.text.count("\n", 0, preamble) + 1)]

    def verify(self, doc: ProfileDocument) -> str | None:
        found = doc.frontmatter.data.get(self.key, MISSING)
        wanted = MISSING if self.value is REMOVE else self.value
        return None if same(found, wanted) else f"{self.key!r} reads back as {found!r}"


class BlockEdit(Edit):
    """A structured section's JSON value: ``changes`` for object keys, or ``whole``."""

    def __init__(
        self, key: str, changes: Mapping[str, Any] | None = None, whole: Any = MISSING
    ) -> None:
        self.key = key
        self.changes = dict(changes or {})
        self.whole = whole
        self.label = f"## {_HEADINGS[key]}"
        for name, value in [*self.changes.items(), ("", whole)]:
            if value is not REMOVE and value is not MISSING:
                try:
                    json.dumps(value, allow_nan=False)
                except (TypeError, ValueError) as exc:
                    raise UsageError(f"{self.label} {name}: not a JSON value ({exc})") from None

    def _new_value(self, old: Any) -> Any:
        if self.whole is not MISSING:
            return self.whole
        value = dict(old) if isinstance(old, dict) else {}
        for name, change in self.changes.items():
            if change is REMOVE:
                value.pop(name, None)
            else:
                value[name] = change
        return value

    def apply(self, doc: ProfileDocument) -> str:
        text = doc.text
        sections = sections_of(doc, self.key)
        if not sections:
            if self.whole is REMOVE or (
                self.whole is MISSING and all(v is REMOVE for v in self.changes.values())
            ):
                return text
            return _insert_section(doc, self.key, self._new_value(None))
        section = sections[0]
        if self.whole is REMOVE:
            return _remove_span(text, section)
        fence = next((f for f in section.fences if f.lang == "json"), None)
        if fence is None:  # an empty section (a warning): give it a block
            block = f"```json\n{to_json(self._new_value(None))}\n```\n"
            tail = "\n" if section.body_end < len(text) else ""
            return text[: section.body_start] + "\n" + block + tail + text[section.body_end :]
        content = text[fence.content_start : fence.content_end]
        old = json.loads(content)
        new = self._new_value(old)
        if same(new, old):
            return text
        if self.whole is MISSING and isinstance(old, dict):
            # Only the members that change are rewritten; the rest stays as written.
            content = patch_json.apply(content, self.changes, REMOVE)
            return text[: fence.content_start] + content + text[fence.content_end :]
        indent = " " * (fence.column - 1)
        body = "".join(f"{indent}{line}\n" for line in to_json(new).split("\n"))
        return text[: fence.content_start] + body + text[fence.content_end :]

    def spans(self, doc: ProfileDocument) -> list[tuple[int, int]]:
        return [_span(doc, s) for s in sections_of(doc, self.key)]

    def verify(self, doc: ProfileDocument) -> str | None:
        sections = sections_of(doc, self.key)
        if self.whole is REMOVE:
            return f"{self.label} is still there" if sections else None
        if not sections:
            if self.whole is MISSING and all(v is REMOVE for v in self.changes.values()):
                return None
            return f"{self.label} cannot be found after the edit"
        fence = next((f for f in sections[0].fences if f.lang == "json"), None)
        if fence is None:
            return f"{self.label} has no ```json block after the edit"
        value = json.loads(doc.text[fence.content_start : fence.content_end])
        if self.whole is not MISSING:
            return None if same(value, self.whole) else f"{self.label} reads back as {value!r}"
        for name, change in self.changes.items():
            found = value.get(name, MISSING) if isinstance(value, dict) else MISSING
            if not same(found, MISSING if change is REMOVE else change):
                return f"{self.label} {name!r} reads back as {found!r}"
        return None


class ProseEdit(Edit):
    def __init__(self, heading: str, body: str | Remove) -> None:
        if not heading.strip() or "\n" in heading or heading != heading.strip():
            raise UsageError(f"{heading!r} is not a section heading", hint="write e.g. 'Rules'")
        self.key = section_key(heading)
        if self.key in STRUCTURED:
            raise UsageError(
                f"## {heading} is a structured section, not prose",
                hint="edit its values (Config keys, tools, MCP servers, install lists)",
            )
        self.heading = heading
        self.body = body
        self.label = f"## {heading}"

    def apply(self, doc: ProfileDocument) -> str:
        text = doc.text
        sections = sections_of(doc, self.key)
        if self.body is REMOVE:
            return _remove_span(text, sections[0]) if sections else text
        body = self.body.strip("\n")
        if not sections:
            text = text if text.endswith("\n") or not text else text + "\n"
            return text + ("\n" if text else "") + f"## {self.heading}\n\n{body}\n"
        section = sections[0]
        old = text[section.body_start : section.body_end]
        lead = old[: len(old) - len(old.lstrip("\n"))] or "\n"
        trail = old[len(old.rstrip()) :]
        if "\n" not in trail:
            trail = "\n\n" if section.body_end < len(text) else "\n"
        return text[: section.body_start] + lead + body + trail + text[section.body_end :]

    def spans(self, doc: ProfileDocument) -> list[tuple[int, int]]:
        return [_span(doc, s) for s in sections_of(doc, self.key)]

    def verify(self, doc: ProfileDocument) -> str | None:
        sections = sections_of(doc, self.key)
        if self.body is REMOVE:
            return f"{self.label} is still there" if sections else None
        if len(sections) != 1:
            return f"{self.label} cannot be found once after the edit"
        section = sections[0]
        found = tidy(doc.text[section.body_start : section.body_end])
        if found != tidy(self.body):
            return (
                f"the new body of {self.label} does not read back as written "
                "(does it contain a '## ' heading or an unclosed code fence?)"
            )
        return None


def sections_of(doc: ProfileDocument, key: str) -> list[Section]:
    return [s for s in doc.structure.sections if s.key == key]


def _span(doc: ProfileDocument, section: Section) -> tuple[int, int]:
    return section.line, doc.text.count("\n", 0, max(section.body_end - 1, 0)) + 1


def _remove_span(text: str, section: Section) -> str:
    if section.body_end >= len(text):  # the last section: also drop the blank lines before it
        return text[: section.start].rstrip("\n") + "\n" if text[: section.start].strip() else ""
    return text[: section.start] + text[section.body_end :]


def _insert_section(doc: ProfileDocument, key: str, value: Any) -> str:
    """A new structured section: after the last one that precedes it in :data:`ORDER`, else
    before the first that follows it, else at the end of the file."""
    text = doc.text
    block = f"## {_HEADINGS[key]}\n\n```json\n{to_json(value)}\n```\n"
    rank = ORDER.index(key)
    present = [s for s in doc.structure.sections if s.key in ORDER]
    before = [s for s in present if ORDER.index(s.key) < rank]
    after = [s for s in present if ORDER.index(s.key) > rank]
    if before and before[-1].body_end < len(text):
        at = before[-1].body_end
        return text[:at] + block + "\n" + text[at:]
    if after and not before:
        at = after[0].start
        return text[:at] + block + "\n" + text[at:]
    if text and not text.endswith("\n"):
        text += "\n"
    return text + ("\n" if text else "") + block
