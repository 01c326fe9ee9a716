"""Every problem of a broken profile in one pass, each at its exact line and column, and the
shape every diagnostic takes."""

from __future__ import annotations

import pytest

from agent_roster.diagnostics import CODES, Severity, count, did_you_mean, make
from agent_roster.known_tools import KnownTools

from .helpers import parse

BROKEN = """---
id: coding
name: 42
tags: [a, 1]
nmae: x
---
# Coding

## Role
```text
## Tools
```
## Config
```json
{
  "model": "",
  "permission_mode": "turbo",
  "max_tokens_per_task": true,
  "runtime": "acpx",
  "permision_mode": "auto"
}
```
## Tools
```JSON
{"allowed": ["Read", "Raed", "Read"], "denied": ["Read"]}
```
## MCP Servers
```
["github"]
```
## Install
```json
{"npm": ["eslint",], "pip": ["-e ."]}
```
## role
dup
## Rules
```python
never closed
"""


def test_a_broken_profile_yields_every_problem_at_its_place() -> None:
    parsed = parse(BROKEN, known_tools=KnownTools())
    found = sorted((d.line, d.column, d.severity.value, d.code) for d in parsed.diagnostics)
    assert found == [
        (3, 7, "error", "field-type"),  # name: 42
        (4, 7, "error", "field-type"),  # tags: [a, 1]
        (5, 1, "warning", "field-unknown"),  # nmae
        (16, 12, "error", "field-type"),  # "model": ""
        (17, 22, "error", "field-value"),  # "turbo"
        (18, 26, "error", "field-type"),  # max_tokens_per_task: true
        (19, 14, "error", "runtime-agent-name"),  # acpx without agent_name
        (20, 3, "warning", "field-unknown"),  # permision_mode
        (25, 22, "warning", "tool-unknown"),  # Raed
        (25, 30, "warning", "tool-duplicate"),  # Read again
        (25, 50, "warning", "tool-conflict"),  # Read denied too
        (28, 1, "error", "json-fence-untagged"),  # MCP Servers fence
        (33, 18, "error", "json-invalid"),  # trailing comma in the npm list
        (35, 4, "error", "section-duplicate"),  # ## role
        (38, 1, "error", "fence-unclosed"),  # ```python
    ]
    assert not parsed.ok
    # What validated is still there: the profile is usable for display and diffing.
    p = parsed.profile
    assert p is not None
    assert p.role == "```text\n## Tools\n```"
    assert p.allowed_tools == ("Read", "Raed") and p.denied_tools == ("Read",)
    assert p.extra_config == {"permision_mode": "auto"}
    assert [s.heading for s in p.sections] == ["Role", "Rules"]


def test_whole_messages_of_the_broken_profile() -> None:
    parsed = parse(BROKEN, known_tools=KnownTools())
    by_place = {(d.line, d.column): d for d in parsed.diagnostics}
    assert by_place[(3, 7)].message == "'name' must be a non-empty string, got the number 42"
    assert by_place[(5, 1)].message == "unknown frontmatter key 'nmae'"
    assert by_place[(5, 1)].hint == "did you mean 'name'?"
    assert by_place[(18, 26)].message == (
        "Config 'max_tokens_per_task' must be a positive integer, got true"
    )
    assert by_place[(33, 18)].message == "invalid JSON in ## Install: trailing comma before ']'"
    assert by_place[(35, 4)].message == "section '## role' appears again (first on line 9)"


def test_diagnostic_format_and_dict() -> None:
    d = make(
        "json-invalid",
        "invalid JSON in ## Config: Expecting value",
        path="a/profile.md",
        line=7,
        column=3,
        hint="write a JSON value here",
    )
    assert d.severity is Severity.ERROR and d.is_error
    assert d.format() == (
        "a/profile.md:7:3: error[json-invalid] invalid JSON in ## Config: Expecting value\n"
        "    hint: write a JSON value here"
    )
    assert d.to_dict() == {
        "path": "a/profile.md",
        "line": 7,
        "column": 3,
        "severity": "error",
        "code": "json-invalid",
        "message": "invalid JSON in ## Config: Expecting value",
        "hint": "write a JSON value here",
    }
    w = make("tool-unknown", "tool 'x' is not a known tool", path="p.md")
    assert (w.severity, w.line, w.column, w.format()) == (
        Severity.WARNING,
        1,
        1,
        "p.md:1:1: warning[tool-unknown] tool 'x' is not a known tool",
    )
    assert count([d, w, w]) == (1, 2)


def test_every_code_has_a_severity_and_summary() -> None:
    for code, (severity, summary) in CODES.items():
        assert code == code.lower() and " " not in code
        assert isinstance(severity, Severity) and summary


def test_severity_can_be_overridden() -> None:
    d = make("layout-unknown", "x", path="p", severity=Severity.ERROR)
    assert d.is_error


def test_did_you_mean() -> None:
    assert did_you_mean("permision_mode", ["model", "permission_mode"]) == (
        "did you mean 'permission_mode'?"
    )
    assert did_you_mean("ACPX", ["claude_sdk", "acpx"]) == "did you mean 'acpx'?"
    assert did_you_mean("zzz", ["model"]) == ""


def test_diagnostics_are_immutable() -> None:
    d = make("json-invalid", "m", path="p", hint="h")
    with pytest.raises(AttributeError):
        d.line = 2  # type: ignore[misc]
