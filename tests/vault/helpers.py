"""Shared helpers for the vault parser tests: build documents, parse them, and check that
every diagnostic has the full shape the issue asks for (path, position, code, message, hint)."""

from __future__ import annotations

import os

import pytest

from agent_roster.diagnostics import CODES, Diagnostic, Severity
from agent_roster.known_tools import KnownTools
from agent_roster.vault import loader
from agent_roster.vault.jsonblock import JsonBlock
from agent_roster.vault.mcp_parser import ParsedServer, parse_mcp_server
from agent_roster.vault.profile_parser import ParsedProfile, parse_profile

FENCE = "```"
FM = "---\nid: coding\nname: Coding Agent\n---\n"  # lines 1-4; the body starts on line 5


def doc(*lines: str, frontmatter: str = FM) -> str:
    """A profile: the frontmatter, then ``lines`` (the first is file line 5)."""
    return frontmatter + "".join(line + "\n" for line in lines)


def block(heading: str, payload: str, lang: str = "json") -> str:
    """A structured section: heading on line 5, fence on 6, payload from line 7."""
    return doc(f"## {heading}", FENCE + lang, payload, FENCE)


def check_shape(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], path: str) -> None:
    for d in diagnostics:
        assert d.path == path
        assert d.line >= 1 and d.column >= 1, d
        assert d.code in CODES, d.code
        assert d.message.strip(), d
        assert isinstance(d.severity, Severity)
        if d.is_error:
            assert d.hint.strip(), f"error without a hint: {d}"


def parse(
    text: str | bytes,
    *,
    expected_id: str | None = "coding",
    project: str | None = None,
    known_tools: KnownTools | None = None,
    path: str = "agent-types/coding/profile.md",
) -> ParsedProfile:
    parsed = parse_profile(
        text, path=path, expected_id=expected_id, project=project, known_tools=known_tools
    )
    check_shape(parsed.diagnostics, path)
    return parsed


def parse_server(
    text: str | bytes, *, expected_name: str | None = "github", path: str = "mcp-servers/x.md"
) -> ParsedServer:
    parsed = parse_mcp_server(text, path=path, expected_name=expected_name)
    check_shape(parsed.diagnostics, path)
    return parsed


def where(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> list[tuple[int, int, str]]:
    """(line, column, code) of each diagnostic, in order."""
    return [(d.line, d.column, d.code) for d in diagnostics]


def codes(parsed: ParsedProfile | ParsedServer) -> list[str]:
    return [d.code for d in parsed.diagnostics]


def one(parsed: ParsedProfile | ParsedServer, code: str) -> Diagnostic:
    found = [d for d in parsed.diagnostics if d.code == code]
    assert len(found) == 1, (code, parsed.diagnostics)
    return found[0]


def json_block(text: str, first_line: int = 1) -> JsonBlock:
    import json

    return JsonBlock(text, first_line, json.loads(text))


def spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The real path of every file the vault loader reads from now on (in this process)."""
    read: list[str] = []
    real_read = loader._read_file

    def spy(path: str, size: int) -> bytes:
        read.append(os.path.realpath(path))
        return real_read(path, size)

    monkeypatch.setattr(loader, "_read_file", spy)
    return read
