"""Diagnostics: the one shape every problem found in user input takes.

A diagnostic names the file, the 1-based line and column, a severity, a stable code, a
message and a hint. Codes are listed in :data:`CODES` with their default severity and a
one-line summary; ``docs/diagnostics.md`` documents each one and a test keeps the two in step.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from enum import StrEnum

import msgspec


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Diagnostic(msgspec.Struct, frozen=True, kw_only=True):
    """One problem in one file, at one position."""

    path: str
    line: int
    column: int
    severity: Severity
    code: str
    message: str
    hint: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def format(self) -> str:
        """Render as ``path:line:col: severity[code] message (hint)`` for terminals."""
        text = f"{self.path}:{self.line}:{self.column}: {self.severity.value}[{self.code}] "
        text += self.message
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


E = Severity.ERROR
W = Severity.WARNING

#: Every diagnostic code: default severity and a one-line summary.
CODES: dict[str, tuple[Severity, str]] = {
    # Reading the file
    "file-unreadable": (E, "the file could not be read"),
    "encoding-invalid": (E, "the file is not valid UTF-8"),
    # Frontmatter
    "frontmatter-unterminated": (E, "the opening --- of the frontmatter has no closing ---"),
    "frontmatter-not-at-start": (E, "frontmatter must begin on the first line of the file"),
    "frontmatter-missing": (E, "the file has no YAML frontmatter"),
    "yaml-invalid": (E, "the frontmatter is not valid YAML"),
    "yaml-duplicate-key": (E, "a key appears twice in the frontmatter"),
    "yaml-not-mapping": (E, "the frontmatter is not a mapping of keys to values"),
    "field-required": (E, "a required field is missing"),
    "field-type": (E, "a field has the wrong type"),
    "field-value": (E, "a field has a value that is not allowed"),
    "field-unknown": (W, "a key is not one Agent Roster knows; probably a typo"),
    "id-mismatch": (E, "the frontmatter id differs from the id the file's path gives"),
    "name-unsafe": (E, "an id or name is not a single safe path segment"),
    # Sections and fences
    "section-duplicate": (E, "a ## section appears twice"),
    "section-empty": (W, "a structured section has no content"),
    "fence-unclosed": (E, "a code fence is never closed, so it swallows the rest of the file"),
    "verbatim-invalid": (E, "a roster-verbatim prose block is malformed"),
    "json-block-missing": (E, "a structured section has no ```json block"),
    "json-fence-untagged": (E, "a structured section's code fence has no language tag"),
    "json-fence-language": (E, "a structured section's code fence is tagged with another language"),
    "json-block-duplicate": (E, "a structured section has more than one ```json block"),
    "json-invalid": (E, "a ```json block is not valid JSON"),
    "json-type": (E, "a ```json block holds the wrong JSON type"),
    # Field semantics
    "tool-unknown": (W, "a tool name is not in the known-tools registry"),
    "tool-conflict": (W, "a tool is both allowed and denied"),
    "tool-duplicate": (W, "a tool is listed twice in one list"),
    "mcp-inline-deprecated": (W, "inline MCP server configs are deprecated; use registry names"),
    "mcp-server-unknown": (W, "a profile names an MCP server the registry does not have"),
    "runtime-agent-name": (E, "the acpx runtime needs agent_name"),
    "agent-name-ignored": (W, "agent_name is only used by the acpx runtime"),
    "package-name-invalid": (E, "an install manifest names an invalid package"),
    "layout-unknown": (W, "a file sits where the vault layout expects something else; not loaded"),
    "path-outside-vault": (
        E,
        "a symlink leads outside the vault; nothing is read or written through it",
    ),
    # Harness files (codecs: discover, import, render)
    "harness-invalid": (
        E,
        "the harness itself would refuse this file or value (its own error text is quoted)",
    ),
    "harness-field-unknown": (
        E,
        "a key the harness does not know; strict ones refuse the file, lenient ones ignore it",
    ),
    "harness-field-type": (E, "a harness field has a type or value the harness does not accept"),
    "harness-name-invalid": (E, "an agent or server name breaks the harness's naming rules"),
    "harness-shadowed": (
        W,
        "a definition the harness does not load because another layer or file wins",
    ),
    "harness-ignored": (W, "a file or key the harness passes over without an error"),
    "render-unsupported": (
        E,
        "a profile or server cannot be written for the target harness without changing its meaning",
    ),
    "import-exists": (
        E,
        "the vault already has a file for this agent or server; --overwrite replaces it",
    ),
}


def make(
    code: str,
    message: str,
    *,
    path: str,
    line: int = 1,
    column: int = 1,
    hint: str = "",
    severity: Severity | None = None,
) -> Diagnostic:
    """Build a diagnostic with the code's default severity unless one is given."""
    default, _ = CODES[code]
    return Diagnostic(
        path=path,
        line=line,
        column=column,
        severity=severity or default,
        code=code,
        message=message,
        hint=hint,
    )


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A hint naming the closest choice, or an empty string when nothing is close."""
    folded = {choice.casefold(): choice for choice in choices}  # "ACPX" suggests "acpx"
    matches = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.7)
    return f"did you mean {folded[matches[0]]!r}?" if matches else ""


def list_profiles_hint(project: str | None = None) -> str:
    """The hint for a profile id that does not exist: the command that lists the ids there
    are (a test checks every ``roster ...`` a hint names exists and does what it says)."""
    if project:
        return f"list them with 'roster project-profile list {project}'"
    return "list them with 'roster profile list'"


def count(diagnostics: Iterable[Diagnostic]) -> tuple[int, int]:
    """Return (errors, warnings)."""
    errors = warnings = 0
    for diagnostic in diagnostics:
        if diagnostic.severity is Severity.ERROR:
            errors += 1
        else:
            warnings += 1
    return errors, warnings
