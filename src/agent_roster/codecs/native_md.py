"""Markdown files with YAML frontmatter, as harnesses read and write them.

Harnesses parse frontmatter with JavaScript YAML libraries (YAML 1.2 core schema) or serde;
we load it with the vault's YAML 1.2 loader so ``on``/``yes`` stay strings as they do for
them, and report problems with positions in the ``validate`` shape.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.vault.frontmatter import Mark, read_frontmatter


class NativeDocument(NamedTuple):
    """A parsed native markdown file: its frontmatter mapping (empty when absent), the body
    after it, and the 1-based line the body starts on."""

    data: dict[str, Any]
    body: str
    body_line: int
    has_frontmatter: bool
    key_marks: dict[str, Mark]


def read_native(text: str, path: str, out: list[Diagnostic]) -> NativeDocument | None:
    """Split and load a native agent file; ``None`` (with diagnostics in ``out``) when its
    frontmatter is broken. A file without frontmatter gives an empty mapping."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---"):
        return NativeDocument({}, text, 1, False, {})
    found: list[Diagnostic] = []
    fm = read_frontmatter(text, path, found)
    errors = [d for d in found if d.is_error]
    out.extend(found)
    if errors:
        return None
    return NativeDocument(
        dict(fm.data), text[fm.body_offset :], fm.body_line, True, dict(fm.key_marks)
    )


def dump_yaml(data: dict[str, Any]) -> str:
    """YAML for a frontmatter block: key order kept, unicode as is, no line folding of long
    strings (harness loaders differ on folded scalars)."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1_000_000)


def write_native(data: dict[str, Any], body: str) -> str:
    """A markdown file with ``data`` as frontmatter (omitted when empty) and ``body``."""
    body = body.strip("\n")
    if not data:
        return f"{body}\n"
    return f"---\n{dump_yaml(data)}---\n\n{body}\n" if body else f"---\n{dump_yaml(data)}---\n"


def harness_diagnostic(
    code: str,
    message: str,
    *,
    path: str,
    line: int = 1,
    column: int = 1,
    hint: str = "",
    warning: bool = False,
) -> Diagnostic:
    """A diagnostic about a harness file; ``warning`` for things the harness tolerates."""
    return dx.make(
        code,
        message,
        path=path,
        line=line,
        column=column,
        hint=hint,
        severity=dx.Severity.WARNING if warning else None,
    )
