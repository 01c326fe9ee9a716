"""Diagnostics: the one shape every problem found in user input takes.

A diagnostic names the file, the 1-based line and column, a severity, a stable code, a
message and a hint. Codes are listed in :data:`CODES` with their default severity and a
one-line summary; ``docs/diagnostics.md`` documents each one and a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from functools import cache, lru_cache
from typing import Any, NamedTuple

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
    "file-unwritable": (
        E,
        "render could not write a file: something is in the way, or no permission",
    ),
    # Frontmatter
    "frontmatter-unterminated": (E, "the opening --- of the frontmatter has no closing ---"),
    "frontmatter-not-at-start": (E, "frontmatter must begin on the first line of the file"),
    "frontmatter-missing": (E, "the file has no YAML frontmatter"),
    "yaml-invalid": (E, "the frontmatter is not valid YAML"),
    "toml-invalid": (E, "roster.toml is not valid TOML, so nothing in it applies"),
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
    "literal-secret": (
        W,
        "a secret's value is written in a vault file; write a ${VAR} reference instead",
    ),
    "argv-option-value": (
        E,
        "a value that reaches a command line would be read as an option (or as several words)",
    ),
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
    "harness-recovered": (
        W,
        "frontmatter that is not valid YAML, which the harness loads after its own repair",
    ),
    "render-unsupported": (
        E,
        "a profile or server cannot be written for the target harness without changing its meaning",
    ),
    "render-widens": (
        E,
        "the harness cannot hold a restriction of the profile: the agent would be allowed "
        "more than the profile says, so it is not written (--allow-widening writes it)",
    ),
    "import-inexact": (
        E,
        "an agent's permission rules cannot be written as the vault's permission object "
        "without changing a decision; it is not imported",
    ),
    "import-exists": (
        E,
        "the vault already has a file for this agent or server; --overwrite replaces it",
    ),
    # Shared profiles (roster import SOURCE)
    "import-invalid": (E, "a shared profile file is not an export in seed 001's format"),
    "import-server-differs": (
        W,
        "a shared profile brings a server the vault has with another definition; kept the vault's",
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
    match = closest(word, choices)
    return f"did you mean {match!r}?" if match is not None else ""


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice ``word`` most likely misspells, or None when none is close.

    Case is ignored ("ACPX" suggests "acpx"). A choice is close when difflib's measure
    (rapidfuzz's ``ratio``, the share of matching characters) is at least 0.7, or when
    the Damerau-Levenshtein similarity is: there a swap of two neighbours is one edit, so
    ``modle`` is as close to ``model`` as to ``mode``. Close choices rank by that
    distance, then by how much their length differs (a swap keeps the length, a dropped
    letter does not: ``modle`` suggests ``model``), then by their order in ``choices``.
    The same ``choices`` are prepared once for many calls."""
    fuzz, process, DamerauLevenshtein = _rapidfuzz()
    folded = _folded(choices if isinstance(choices, tuple | frozenset) else tuple(choices))
    query = word.casefold()
    best: tuple[int, int, int] | None = None
    found: str | None = None
    # A Damerau-Levenshtein similarity of 0.7 implies a ratio above 0.4 (an edit costs
    # at most two insertions or deletions), so one pass of the cheap ratio in C leaves
    # only a few choices to measure one by one.
    for key, score, order in process.extract(
        query, folded.keys, scorer=fuzz.ratio, score_cutoff=40, limit=None
    ):
        if score < 70 and DamerauLevenshtein.normalized_similarity(query, key) < 0.7:
            continue
        rank = (DamerauLevenshtein.distance(query, key), abs(len(key) - len(query)), order)
        if best is None or rank < best:
            best, found = rank, folded.choices[order]
    return found


@cache
def _rapidfuzz() -> tuple[Any, Any, Any]:
    # Imported on first use: rapidfuzz takes ~30 ms to import, and most commands never
    # suggest anything.
    from rapidfuzz import fuzz, process
    from rapidfuzz.distance import DamerauLevenshtein

    return fuzz, process, DamerauLevenshtein


class _Folded(NamedTuple):
    keys: list[str]  # casefolded, first spelling of each kept
    choices: list[str]  # the spelling to suggest, by the same index


@lru_cache(maxsize=64)  # the same few constant tuples (Config keys, modes...) again and again
def _folded(choices: tuple[str, ...] | frozenset[str]) -> _Folded:
    seen: dict[str, str] = {}
    for choice in sorted(choices) if isinstance(choices, frozenset) else choices:
        seen.setdefault(choice.casefold(), choice)
    return _Folded(list(seen), list(seen.values()))


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
